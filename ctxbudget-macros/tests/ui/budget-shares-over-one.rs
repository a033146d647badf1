use ctxbudget::ContextLayers;

// Shares of the window that add up to more than 1 fit no window: refused whatever
// the total.
#[derive(ContextLayers)]
#[context(total = 8192, output = 1024)]
struct AgentContext {
    #[budget(tokens = 512)]
    system: String,
    #[budget(share = 0.5)]
    history: String,
    #[budget(share = 0.6)]
    retrieval: String,
}

fn main() {}
