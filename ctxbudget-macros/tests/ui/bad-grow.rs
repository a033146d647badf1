use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096, separator = 2)]
struct AgentContext {
    #[budget(tokens = 512, grow = "high")]
    retrieval: String,
    #[budget(tokens = 512, grow = -1)]
    memory: String,
    #[budget(tokens = 512, grow = 1.5)]
    history: String,
    #[budget(tokens = 512, grow, grow = 2)]
    user: String,
}

fn main() {}
