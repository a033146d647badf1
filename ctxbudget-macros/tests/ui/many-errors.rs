// Every mistake of one input is reported at once, not only the first, and code
// that uses the generated types reports nothing more.
use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 1024)]
struct AgentContext {
    #[budget(tokens = 512, requird)]
    system: String,
    history: String,
    #[budget(tokens = 1.5)]
    user: String,
}

fn main() {
    let mut usage = AgentContext::usage();
    let _ = usage.spend(AgentContextLayer::History, 10);
    let _ = AgentContext::builder().system("s").user("u").build();
}
