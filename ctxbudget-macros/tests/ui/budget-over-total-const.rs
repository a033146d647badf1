use ctxbudget::ContextLayers;

const WINDOW: usize = 4096;
const MEMORY: usize = 2048;
const SYSTEM_TOKENS: u32 = 600;

#[derive(ContextLayers)]
#[context(total = WINDOW)]
struct AgentContext {
    #[budget(tokens = 512)]
    system: String,
    #[budget(tokens = MEMORY * 2)]
    memory: String,
}

// A literal total with const reservations: the error points at the total all the same.
#[derive(ContextLayers)]
#[context(total = 8192, output = 1024)]
struct Prompt<'a> {
    #[budget(tokens = SYSTEM_TOKENS)]
    system: &'a str,
    #[budget(tokens = 6000)]
    history: Vec<&'a str>,
    #[budget(tokens = 1536)]
    user: &'a str,
}

fn main() {}
