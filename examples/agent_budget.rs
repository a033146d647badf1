//! Declare a context, fill it with the builder, spend, and print the telemetry JSON.
//!
//! Run: `cargo run --example agent_budget`.

use ctxbudget::{BudgetError, CharEstimate, ContextLayers, TokenCounter, budget::UsageLog};

/// What one call to the model is made of.
#[derive(ContextLayers, Debug)]
#[context(total = 8192, output = 1024)]
struct AgentContext {
    /// The system prompt: always present.
    #[budget(tokens = 512, required)]
    system: String,
    /// Recalled memories.
    #[budget(tokens = 2048)]
    memory: String,
    /// Retrieved chunks.
    #[budget(tokens = 4096)]
    semantic: Vec<String>,
    /// The user's message: always present.
    #[budget(tokens = 512, required)]
    user: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let context = AgentContext::builder()
        .system("You are a careful coding assistant. Answer briefly.")
        .memory("The user prefers Rust and dislikes long answers.")
        .semantic(vec![
            "ContextBudget reserves tokens per layer.".to_owned(),
            "A budget that cannot fit is a compile error.".to_owned(),
        ])
        .user("How do I keep my prompt under the model's window?")
        .build();

    let counter = CharEstimate;
    let mut usage = AgentContext::usage();
    usage.spend(AgentContextLayer::System, counter.count(&context.system))?;
    usage.spend(AgentContextLayer::Memory, counter.count(&context.memory))?;
    for chunk in &context.semantic {
        usage.spend(AgentContextLayer::Semantic, counter.count(chunk))?;
    }
    usage.spend(AgentContextLayer::User, counter.count(&context.user))?;

    // A layer going over its reservation is refused, and nothing is recorded.
    let too_much = usage.spend(AgentContextLayer::Memory, 4000);
    if let Err(err @ BudgetError::LayerOverBudget { .. }) = &too_much {
        eprintln!("refused: {err}");
    }

    println!("{}", usage.to_json());
    println!(
        "spent {} of {} tokens, {} left (the answer has {} reserved)",
        usage.total_spent(),
        AgentContext::TOTAL,
        usage.remaining(),
        AgentContextLayer::Output.budget()
    );

    // The same line, appended to a JSON-lines log (here: standard output).
    let mut log = UsageLog::new(std::io::stdout().lock());
    log.record(&usage)?;
    Ok(())
}
