use ctxbudget::{CharEstimate, ContextLayers};

struct Score(f64);

// Deriving works: a field that is not content only matters to `assemble()`.
#[derive(ContextLayers)]
#[context(total = 4096)]
struct AgentContext {
    #[budget(tokens = 512)]
    system: String,
    #[budget(tokens = 512, required)]
    score: Score,
}

fn main() {
    let context = AgentContext { system: String::new(), score: Score(0.5) };
    let _ = context.score.0;
    let _ = context.assemble(&CharEstimate);
}
