use ctxbudget::ContextLayers;

const HALF: f64 = 0.5;

#[derive(ContextLayers)]
#[context(total = 8192)]
struct AgentContext {
    #[budget(share = 1.5)]
    a: String,
    #[budget(share = -0.25)]
    b: String,
    #[budget(share = "0.25")]
    c: String,
    #[budget(share = HALF)]
    d: String,
    #[budget(share = 2)]
    e: String,
    #[budget(tokens = 512, share = 0.25)]
    f: String,
    #[budget(share = 0.25f32)]
    g: String,
}

fn main() {}
