use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
struct NoContext {
    #[budget(tokens = 512)]
    system: String,
}

#[derive(ContextLayers)]
#[context(output = 512)]
struct NoTotal {
    #[budget(tokens = 512)]
    system: String,
}

fn main() {}
