use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512)]
    system: String,
    history: Vec<String>,
    #[budget(required)]
    user: String,
}

fn main() {}
