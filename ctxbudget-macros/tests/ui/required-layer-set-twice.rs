use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512, required)]
    system: String,
    #[budget(tokens = 512)]
    user: String,
}

fn main() {
    let _ = AgentContext::builder().system("a").user("u").system("b").build();
}
