//! One context for every model: the same struct assembled for windows chosen at run
//! time, as a string prompt and as chat messages, and a budget read from a config
//! file assembled the same way.
//!
//! The fixed layers (the instructions, the question) keep their reservations in
//! every window; the layers declared as shares of the window (the guide, the
//! conversation, the retrieved passages) grow with it. A window too small for the
//! fixed reservations is an error that says by how much.
//!
//! Run: `cargo run --example model_windows` (no network: the texts are the
//! fixtures in `tests/fixtures/`, counted with tiktoken's `o200k_base`).

use ctxbudget::assemble::{AssembleOptions, LayerInput, LayerPolicy};
use ctxbudget::{ContextBudget, ContextLayers, Message, Tiktoken, select::RankedChunks};
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

    // The declared window, then two models chosen at run time.
    println!("== declared window: 8,192 tokens, 1,024 for the answer ==");
    println!("{}\n", context.assemble(&counter)?);
    for (model, window, output) in [
        ("a 32k model", 32_768, 4_096),
        ("a 128k model", 128_000, 16_384),
    ] {
        let options = AssembleOptions::for_window(window, output);
        let out = context.assemble_with(&counter, &options)?;
        println!("== {model}: {window} tokens, {output} for the answer ==\n{out}\n");
    }

    // As chat messages: the system message, the conversation, the final user message.
    let out = context.assemble_messages(&counter, &AssembleOptions::for_window(32_768, 4_096))?;
    println!("== as messages, for the 32k model ==\n{out}");
    let chat = out.prompt.to_chat();
    println!(
        "{} messages: system ({} chars), {} from the conversation, and the question with {} passages\n",
        chat.len(),
        out.prompt.system.len(),
        out.prompt
            .sources
            .iter()
            .filter(|s| s.index.is_some())
            .count(),
        out.layer("passages").map_or(0, |l| l.fitted.kept),
    );

    // Too small a window for the fixed reservations says by how much.
    if let Err(err) = context.assemble_with(&counter, &AssembleOptions::for_window(1_000, 500)) {
        println!("refused: {err}\n");
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
