use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(totl = 4096, colour = 1)]
struct AgentContext {
    #[budget(token = 512)]
    system: String,
    #[budget(tokens = 512, requird)]
    user: String,
}

fn main() {}
