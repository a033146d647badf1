use ctxbudget::ContextLayers;

const WINDOW: usize = 4096;
const MEMORY: usize = 2048;

#[derive(ContextLayers)]
#[context(total = WINDOW)]
struct AgentContext {
    #[budget(tokens = 512)]
    system: String,
    #[budget(tokens = MEMORY * 2)]
    memory: String,
}

fn main() {}
