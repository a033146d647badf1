use ctxbudget::ContextLayers;

const WINDOW: usize = 4096;

// With a const total the compiler resolves the share and adds up the reservations.
#[derive(ContextLayers)]
#[context(total = WINDOW)]
struct AgentContext {
    #[budget(tokens = 2048)]
    system: String,
    #[budget(share = 0.75)]
    history: String,
}

fn main() {}
