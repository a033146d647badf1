use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct Tuple(#[budget(tokens = 512)] String);

#[derive(ContextLayers)]
#[context(total = 4096)]
enum Enum {
    System,
}

#[derive(ContextLayers)]
#[context(total = 4096)]
union Union {
    system: u32,
}

#[derive(ContextLayers)]
#[context(total = 4096)]
struct Unit;

fn main() {}
