use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512, role = sytem)]
    system: String,
    #[budget(tokens = 512, role = "user")]
    user: String,
    #[budget(tokens = 512, role = history)]
    history: Vec<ctxbudget::Message>,
    #[budget(tokens = 512, role = assistant)]
    notes: String,
}

fn main() {}
