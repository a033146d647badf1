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
    #[budget(tokens = 512i32)]
    user: String,
    #[budget(tokens = 300u8)]
    tool: String,
}

const HALF: f64 = 0.5;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct ConstOfWrongType {
    #[budget(tokens = HALF)]
    system: String,
}

fn main() {}
