use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512, policy = tial)]
    history: String,
    #[budget(tokens = 512, policy = "never")]
    system: String,
    #[budget(tokens = 512, policy = 3)]
    memory: String,
    #[budget(tokens = 512, polcy = head)]
    user: String,
}

fn main() {}
