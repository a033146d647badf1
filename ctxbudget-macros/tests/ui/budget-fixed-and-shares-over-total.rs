use ctxbudget::ContextLayers;

// The fixed reservations and the shares, resolved at the declared total, are over
// it: `assemble()` could never succeed in the declared window.
#[derive(ContextLayers)]
#[context(total = 8192, output = 2048)]
struct AgentContext {
    #[budget(tokens = 2048)]
    system: String,
    #[budget(share = 0.75)]
    history: String,
}

// Fixed reservations over the declared window, with a share beside them.
#[derive(ContextLayers)]
#[context(total = 4096, output = 1024)]
struct Small {
    #[budget(tokens = 4096)]
    system: String,
    #[budget(share = 0.1)]
    history: String,
}

fn main() {}
