use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096, output = 512)]
struct AgentContext {
    #[budget(tokens = 512)]
    total: String,
    #[budget(tokens = 512)]
    output: String,
    #[budget(tokens = 512)]
    long_memory: String,
    #[budget(tokens = 512)]
    long__memory: String,
    #[budget(tokens = 0)]
    build: String,
}

fn main() {}
