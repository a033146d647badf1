use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096.0)]
struct AgentContext {
    #[budget(tokens = 1.5)]
    system: String,
    #[budget(tokens = "512")]
    memory: String,
    #[budget(tokens = -3)]
    plan: String,
    #[budget(tokens = 512u32)]
    user: String,
}

const HALF: f64 = 0.5;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct ConstOfWrongType {
    #[budget(tokens = HALF)]
    system: String,
}

fn main() {}
