//! Trimming a chat history with tool calls, with an `on_trim` hook.
//!
//! ```text
//! cargo run --example chat_history
//! ```
//!
//! The hook removes a stale tool result; ctxbudget then drops that call's other
//! result and the call itself (a provider would reject them apart), and drops the
//! oldest turns until the request fits 150 cl100k tokens. The system prompt and the
//! latest user message always stay.
//!
//! Then the same history with the options LangChain's `trim_messages` users know:
//! end on a user or tool message, and keep the end of the message that no longer
//! fits whole (cut at a sentence boundary) instead of dropping it.

use ctxbudget::{
    ChatTrimmer, Message, budget,
    chat::{ChatElement, Role, ToolCall, TrimContext},
};

budget! {
    /// The request: the trimmed history and room for the answer.
    ChatRequest(total = 200) { history: 150, output: 50 }
}

fn main() {
    let history = history();

    let bpe = tiktoken_rs::cl100k_base_singleton();
    let cl100k = |t: &str| bpe.encode_ordinary(t).len();
    let chat_trimmer = ChatTrimmer::new(cl100k, 150);

    let trimmed = chat_trimmer.trim_with(&history, |ctx| {
        println!(
            "on_trim: {} messages, {} tokens, {} available",
            ctx.elements().len(),
            ctx.total_tokens(),
            ctx.budget().available(0)
        );
        remove_stale(ctx);
    });

    let trimmed = match trimmed {
        Ok(trimmed) => trimmed,
        Err(err) => {
            eprintln!("cannot fit the chat: {err}");
            std::process::exit(1);
        }
    };
    println!(
        "\nkept ({} tokens of {}):",
        trimmed.tokens(),
        chat_trimmer.budget().limit()
    );
    for e in trimmed.elements() {
        print_element(e);
    }
    println!("\ndropped:");
    for d in trimmed.dropped() {
        // With a hook, every message was counted; `trim` alone leaves the messages
        // beyond the first one that did not fit uncounted (`None`).
        let tokens = d.tokens.map_or_else(|| "-".to_owned(), |t| t.to_string());
        println!(
            "  #{:<2} {:<9} {:>3} tokens  {}  ({})",
            d.seq,
            history[d.seq].role,
            tokens,
            preview(&history[d.seq]),
            d.reason
        );
    }

    let mut usage = ChatRequestUsage::new();
    if let Err(err) = usage.spend(ChatRequestLayer::History, trimmed.tokens()) {
        eprintln!("{err}");
        std::process::exit(1);
    }
    println!("\ntelemetry: {}", usage.to_json());

    // LangChain-style: trim_messages(..., max_tokens=104, strategy="last",
    // include_system=True, allow_partial=True, end_on=("human", "tool")).
    let langchain_style = ChatTrimmer::new(cl100k, 104)
        .with_end_on([Role::User, Role::Tool])
        .with_allow_partial(true);
    let trimmed = match langchain_style.trim_with(&history, remove_stale) {
        Ok(trimmed) => trimmed,
        Err(err) => {
            eprintln!("cannot fit the chat: {err}");
            std::process::exit(1);
        }
    };
    println!(
        "\nkept with end_on and allow_partial ({} tokens of {}):",
        trimmed.tokens(),
        langchain_style.budget().limit()
    );
    for e in trimmed.elements() {
        print_element(e);
    }
}

/// A trip-planning conversation with a tool call and two parallel ones.
fn history() -> Vec<Message> {
    vec![
        Message::system(
            "You are a travel assistant. Answer briefly and cite the tool results you used.",
        ),
        Message::user("I am planning a trip to Lisbon in May. What is the weather usually like?"),
        Message::assistant("").with_tool_call(ToolCall::new(
            "call_w1",
            "climate",
            r#"{"city":"Lisbon","month":"May"}"#,
        )),
        Message::tool(
            "call_w1",
            "Lisbon, May: average high 22°C, low 14°C, 5 rainy days, 10 hours of sun a day.",
        ),
        Message::assistant(
            "May in Lisbon is mild. Expect around 22°C by day and 14°C at night, with little rain.",
        ),
        Message::user("Compare flights from Berlin and from Munich on May 3rd."),
        Message::assistant("")
            .with_tool_call(ToolCall::new(
                "call_f1",
                "flights",
                r#"{"from":"BER","to":"LIS","date":"2025-05-03"}"#,
            ))
            .with_tool_call(ToolCall::new(
                "call_f2",
                "flights",
                r#"{"from":"MUC","to":"LIS","date":"2025-05-03"}"#,
            )),
        Message::tool(
            "call_f1",
            "BER-LIS: 3 flights, from 89 EUR, 3h40 direct (07:10, 12:55, 18:30).",
        ),
        Message::tool(
            "call_f2",
            "MUC-LIS: 2 flights, from 112 EUR, 3h15 direct (09:05, 16:40).",
        ),
        Message::assistant(
            "From Berlin it starts at 89 EUR; from Munich at 112 EUR, but the flight is shorter.",
        ),
        Message::user("Book the cheapest one and tell me what to pack."),
    ]
}

/// The Munich fares are stale: drop that result. Its call and its sibling result go
/// with it.
fn remove_stale(ctx: &mut TrimContext<'_, Message>) {
    let stale: Vec<usize> = ctx
        .elements()
        .iter()
        .filter(|e| e.role == Role::Tool && e.message.content.starts_with("MUC"))
        .map(|e| e.seq)
        .collect();
    ctx.remove(stale);
}

fn print_element(e: &ChatElement<'_, Message>) {
    // `content()` is what to send: for a message kept in part, the kept part.
    let text = match e.partial {
        Some(part) => format!("[kept in part, cut at a {}] {}", part.boundary, e.content()),
        None => preview(e.message),
    };
    println!(
        "  #{:<2} {:<9} {:>3} tokens  {}",
        e.seq, e.role, e.tokens, text
    );
}

fn preview(message: &Message) -> String {
    let text = if message.tool_calls.is_empty() {
        message.content.clone()
    } else {
        let names: Vec<&str> = message.tool_calls.iter().map(|c| c.id.as_str()).collect();
        format!("[calls {}]", names.join(", "))
    };
    let short: String = text.chars().take(50).collect();
    if short.len() < text.len() {
        format!("{short}…")
    } else {
        short
    }
}
