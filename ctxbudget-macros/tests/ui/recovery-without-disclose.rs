use ctxbudget::ContextLayers;

#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512, policy = tail, recovery = "read the log")]
    log: String,
    #[budget(tokens = 512, recovery = "read AGENTS.md")]
    guide: String,
    #[budget(tokens = 512, policy = disclose)]
    docs: String,
    #[budget(tokens = 512, policy = disclose, recovery = "  ")]
    notes: String,
    #[budget(tokens = 512, policy = disclose, recovery = read_it)]
    readme: String,
}

fn main() {}
