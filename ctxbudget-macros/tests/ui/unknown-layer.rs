// A layer that does not exist cannot be spent on.
use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512)]
    system: String,
    #[budget(tokens = 2048)]
    memory: String,
}

fn main() {
    let mut usage = AgentContext::usage();
    let _ = usage.spend(AgentContextLayer::Memroy, 10);
}
