use ctxbudget::ContextLayers;

/// No `Default`: an unset optional layer would have no value.
struct Document {
    text: String,
}

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512, required)]
    system: String,
    #[budget(tokens = 2048)]
    document: Document,
}

fn main() {}
