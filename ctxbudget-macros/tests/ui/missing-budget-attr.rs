use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512)]
    system: String,
    history: Vec<String>,
    #[budget(required)]
    user: String,
    #[budget]
    plan: String,
}

#[derive(ContextLayers)]
#[context]
struct BareContext {
    #[budget(tokens = 1)]
    system: String,
}

fn main() {}
