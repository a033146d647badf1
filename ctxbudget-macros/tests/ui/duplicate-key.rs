use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096, total = 8192)]
struct AgentContext {
    #[budget(tokens = 512, tokens = 1024)]
    system: String,
    #[budget(tokens = 512)]
    #[budget(required)]
    user: String,
}

fn main() {}
