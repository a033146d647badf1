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

// A second context with a required `system` layer, and borrowed layers: the messages
// still name the layer plainly.
#[derive(ContextLayers)]
#[context(total = 1024)]
struct Prompt<'a> {
    #[budget(tokens = 512, required)]
    system: &'a str,
    #[budget(tokens = 512)]
    user: &'a str,
}

fn main() {
    let _ = AgentContext::builder().system("You are terse.").memory("m").build();
    let _ = Prompt::builder().user("hi").build();
}
