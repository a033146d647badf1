//! One context for every model: the same struct assembled for the windows of models
//! from the catalogue, as a string prompt and as chat messages, and a budget read from
//! a config file assembled the same way.
//!
//! The fixed layers (the instructions, the question) keep their reservations in
//! every window; the layers declared as shares of the window (the guide, the
//! conversation, the retrieved passages) grow with it. `AssembleOptions::for_model`
//! takes the window, the output to keep for the reply and the chat format from the
//! catalogue, and the assembly's `output` is the request's `max_tokens`. A window too
//! small for what the context reserves is an error that says by how much.
//!
//! Run: `cargo run --example model_windows` (no network: the texts are the
//! fixtures in `tests/fixtures/`, counted with each model's counter: tiktoken for
//! OpenAI models, an upper estimate for Claude).

use ctxbudget::assemble::{AssembleOptions, LayerInput, LayerPolicy};
use ctxbudget::request::WireRequest;
use ctxbudget::{ContextBudget, ContextLayers, Message, Model, Tiktoken, select::RankedChunks};
use ctxbudget_tests::{MARKDOWN, PROSE};

/// The context of one call; shares are of the window of the model it goes to.
#[derive(ContextLayers)]
#[context(total = 8192, output = 1024)]
struct Support {
    /// Never cut: too long is an error.
    #[budget(tokens = 256, policy = never)]
    system: String,
    /// A quarter of the window for the product guide, with a note on what was left out.
    #[budget(share = 0.25, policy = disclose, recovery = "read docs/GUIDE.md")]
    guide: String,
    /// The conversation so far, sent as messages; grows into what others leave.
    #[budget(share = 0.25, grow)]
    history: Vec<Message>,
    /// Retrieved passages, read with the question in the final user message.
    #[budget(share = 0.125, grow, role = user)]
    passages: RankedChunks,
    /// The question: never cut.
    #[budget(tokens = 256, policy = never)]
    question: String,
}

fn conversation() -> Vec<Message> {
    PROSE
        .split("\n\n")
        .filter(|p| p.len() > 80)
        .take(120)
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 0 {
                Message::user(p)
            } else {
                Message::assistant(p)
            }
        })
        .collect()
}

fn passages() -> RankedChunks {
    PROSE
        .split("\n\n")
        .filter(|p| p.len() > 200)
        .enumerate()
        .map(|(i, p)| {
            (
                p.to_owned(),
                1.0 / (1.0 + f64::from(u32::try_from(i % 50).unwrap_or(0))),
            )
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let counter = Tiktoken::o200k_base();
    let context = Support {
        system: "You are a support agent. Answer from the guide and the passages.".into(),
        guide: MARKDOWN.into(),
        history: conversation(),
        passages: passages(),
        question: "How do I configure the parser for large files?".into(),
    };

    // The declared window, then models from the catalogue, chosen at run time.
    println!("== declared window: 8,192 tokens, 1,024 for the answer ==");
    println!("{}\n", context.assemble(&counter)?);
    for name in ["gpt-4o", "claude-sonnet-4-5"] {
        let model = Model::lookup(name)?;
        let options = AssembleOptions::for_model(model);
        let out = context.assemble_with(&model.counter()?, &options)?;
        println!(
            "== {}: {} tokens, {} for the answer ==\n{out}\n",
            model.name(),
            out.window(),
            out.output
        );
    }

    // As chat messages for Claude: the system message, the conversation, the final
    // user message, sent as an Anthropic request whose `max_tokens` is the output the
    // assembly kept.
    let claude = Model::lookup("claude-sonnet-4-5")?;
    let out = context.assemble_messages(&claude.counter()?, &AssembleOptions::for_model(claude))?;
    println!("== as messages, for {} ==\n{out}", claude.name());
    let request = out
        .prompt
        .to_anthropic(claude.name(), u64::try_from(out.output)?);
    println!(
        "{} messages: system ({} chars), {} from the conversation, and the question with {} passages; max_tokens {}\n",
        request.messages().len(),
        out.prompt.system.len(),
        out.prompt
            .sources
            .iter()
            .filter(|s| s.index.is_some())
            .count(),
        out.layer("passages").map_or(0, |l| l.fitted.kept),
        out.output,
    );

    // gpt-4's window, 8,192 tokens with 4,096 kept for the answer, is too small for
    // what the context reserves: the error says by how much.
    let gpt_4 = Model::lookup("gpt-4")?;
    if let Err(err) = context.assemble_with(&gpt_4.counter()?, &AssembleOptions::for_model(gpt_4)) {
        println!("gpt-4 refused: {err}\n");
    }

    // The same from a config file, with the content given by layer name.
    let budget = ContextBudget::from_json(
        r#"{"total": 8192, "layers": {"system": 256, "guide": {"share": 0.5}, "question": 256, "output": 1024}}"#,
    )?;
    let layers = [
        LayerInput::new("system", &context.system).with_policy(LayerPolicy::Never),
        LayerInput::new("guide", &context.guide)
            .with_policy(LayerPolicy::disclose("read docs/GUIDE.md")),
        LayerInput::new("question", &context.question).with_policy(LayerPolicy::Never),
    ];
    let out = budget.assemble_with(
        &layers,
        &counter,
        &AssembleOptions::for_window(16_384, 2_048),
    )?;
    println!("== from a config file, for a 16k model ==\n{out}");
    println!("\ntelemetry: {}", out.to_json());
    Ok(())
}
