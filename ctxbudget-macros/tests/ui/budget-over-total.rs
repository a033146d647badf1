use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 8192, output = 1024)]
struct AgentContext {
    #[budget(tokens = 512)]
    system: String,
    #[budget(tokens = 2048)]
    memory: String,
    #[budget(tokens = 4096)]
    semantic: String,
    #[budget(tokens = 1536)]
    user: String,
}

fn main() {}
