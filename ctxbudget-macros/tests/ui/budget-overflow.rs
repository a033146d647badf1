use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 18446744073709551615)]
struct Literal {
    #[budget(tokens = 18446744073709551615)]
    system: String,
    #[budget(tokens = 1)]
    user: String,
}

#[derive(ContextLayers)]
#[context(total = usize::MAX)]
struct Constant {
    #[budget(tokens = usize::MAX)]
    system: String,
    #[budget(tokens = 1)]
    user: String,
}

#[derive(ContextLayers)]
#[context(total = 99999999999999999999999)]
struct TooLarge {
    #[budget(tokens = 1)]
    system: String,
}

fn main() {}
