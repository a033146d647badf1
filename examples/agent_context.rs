//! Assemble an agent's context from real text: a system prompt and a user message
//! that must never be cut, a Markdown guide disclosed at a section boundary, a chat
//! history with tool calls, source code cut in the middle, recalled memory, and
//! retrieval chunks. The history and the retrieval are both marked `grow`: they share
//! whatever the other layers leave unused, so neither is cut while tokens stay
//! unused. Prints what each layer kept, dropped or cut, and the telemetry JSON.
//!
//! Run: `cargo run --example agent_context` (no arguments, no network: the texts
//! are the fixtures shipped in `tests/fixtures/`, counted with tiktoken's
//! `o200k_base`).

use ctxbudget::{ContextLayers, Message, Tiktoken, chat::ToolCall, select::RankedChunks};
use ctxbudget_tests::{CODE, MARKDOWN, PROSE};

/// What one call to the model is made of.
#[derive(ContextLayers, Debug)]
#[context(total = 8192, output = 1024)]
struct AgentContext {
    /// The system prompt: never cut; too long is an error.
    #[budget(tokens = 512, required, policy = never)]
    system: String,
    /// The project guide: leading sections and a note saying how to read the rest.
    #[budget(tokens = 1024, policy = disclose, recovery = "read docs/GUIDE.md")]
    guide: String,
    /// The conversation so far: the latest messages, tool calls kept with results.
    /// Grows, sharing what is left with the retrieval: a layer not marked `grow`
    /// never gets more than its reservation, however much the others leave.
    #[budget(tokens = 1536, grow)]
    history: Vec<Message>,
    /// The file being edited: its beginning and end.
    #[budget(tokens = 768, policy = head_and_tail)]
    code: String,
    /// Recalled notes: the beginning.
    #[budget(tokens = 512)]
    memory: String,
    /// Retrieved passages, best score first: grows, sharing what is left with the
    /// history.
    #[budget(tokens = 1024, grow)]
    retrieval: RankedChunks,
    /// The user's message: never cut.
    #[budget(tokens = 512, required, policy = never)]
    user: String,
}

fn history() -> Vec<Message> {
    let mut chat = vec![Message::system("Tool results are trusted file contents.")];
    let files = ["src/lib.rs", "src/bpe.rs", "src/vocab.rs", "src/model.rs"];
    for (i, path) in files.iter().cycle().take(24).enumerate() {
        chat.push(Message::user(format!(
            "Open {path} and tell me how it splits text."
        )));
        let id = format!("call_{i}");
        chat.push(Message::assistant("").with_tool_call(ToolCall::new(
            id.clone(),
            "read_file",
            format!(r#"{{"path":"{path}"}}"#),
        )));
        let start = (i * 1_300) % (CODE.len() - 1_200);
        chat.push(Message::tool(id, excerpt(CODE, start, 1_200)));
        chat.push(Message::assistant(format!(
            "{path} splits on a regex first, then merges byte pairs."
        )));
    }
    chat
}

/// `len` bytes of `text` from `start`, on char boundaries.
fn excerpt(text: &str, start: usize, len: usize) -> &str {
    let start = ctxbudget_tests::floor_char_boundary(text, start);
    let end = ctxbudget_tests::floor_char_boundary(text, start + len);
    &text[start..end]
}

/// Passages of the prose fixture with made-up relevance scores, as a vector search
/// would return them.
fn retrieved() -> RankedChunks {
    PROSE
        .split("\n\n")
        .filter(|p| p.len() > 200)
        .enumerate()
        .map(|(i, p)| {
            let score = 1.0 - f64::from(u32::try_from(i * 37 % 100).unwrap_or(0)) / 100.0;
            (p.to_owned(), score)
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let context = AgentContext::builder()
        .system(
            "You are a careful coding agent. Read before you write, keep changes small, \
             and say what you did not check.",
        )
        .guide(MARKDOWN)
        .history(history())
        .code(CODE)
        .memory(excerpt(PROSE, 0, 6_000))
        .retrieval(retrieved())
        .user("Why does the tokenizer split before punctuation, and is it safe to change?")
        .build();

    let counter = Tiktoken::o200k_base();
    let assembled = context.assemble(&counter)?;

    // The report: each layer's policy, reservation, grant, tokens and what it kept
    // and dropped; then the prompt against the limit and the output reservation.
    println!("{assembled}\n");

    if let Some(guide) = assembled.layer("guide") {
        let note = guide.text().lines().last().unwrap_or_default();
        println!("guide ends with: {note}");
    }
    if let Some(code) = assembled.layer("code") {
        println!(
            "code was cut in the middle: {}",
            code.text().contains("[…]")
        );
    }

    println!("\ntelemetry: {}", assembled.to_json());

    // A system prompt over its reservation is refused, naming the layer and the excess.
    let too_long = AgentContext::builder()
        .system("Always explain every step in detail. ".repeat(80))
        .user("hi")
        .build();
    if let Err(err) = too_long.assemble(&counter) {
        println!("\nrefused: {err}");
    }
    Ok(())
}
