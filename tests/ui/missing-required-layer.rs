use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512, required)]
    system: String,
    #[budget(tokens = 2048)]
    memory: String,
    #[budget(tokens = 512, required)]
    user: String,
}

fn main() {
    let _ = AgentContext::builder().system("You are terse.").memory("m").build();
}
