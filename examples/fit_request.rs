//! The main job: fit a real tool-heavy coding-agent request to a model's window,
//! dropping whole messages and with context edits, and print both side by side.
//!
//! ```text
//! cargo run --release                          # the shipped OpenAI and Anthropic sessions
//! cargo run --release -- REQUEST.json          # your own request body (format detected)
//! cargo run --release -- REQUEST.json 16000    # ... fitted into a 16,000-token window
//! ```
//!
//! The request's `model` chooses the counter (exact for OpenAI models, an upper
//! estimate for Claude and Gemini) and the window (from the model catalogue); the
//! body's `max_tokens` is reserved for the answer. The shipped sessions are fitted
//! into a 32,000-token window so that there is something to trim: drop-only
//! (the library's default) removes whole turns, oldest first; with
//! `Edits::default()` old tool results are cleared or cut first and every message
//! stays.

use std::error::Error;

use ctxbudget::chat::edit::Edits;
use ctxbudget::chat::{ChatMessage, Role};
use ctxbudget::models::Model;
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::{RequestFitter, RequestFormat, WireRequest, detect_format};

const OPENAI_SESSION: &str = include_str!("../tests/fixtures/requests/openai/coding_session.json");
const ANTHROPIC_SESSION: &str = include_str!("../tests/fixtures/requests/anthropic/session.json");
const SHIPPED_WINDOW: usize = 32_000;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    match args.next() {
        None => {
            fit_and_print(
                "tests/fixtures/requests/openai/coding_session.json",
                OPENAI_SESSION,
                Some(SHIPPED_WINDOW),
            )?;
            println!();
            fit_and_print(
                "tests/fixtures/requests/anthropic/session.json",
                ANTHROPIC_SESSION,
                Some(SHIPPED_WINDOW),
            )?;
        }
        Some(path) => {
            let body =
                std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
            let window = args
                .next()
                .map(|n| n.parse::<usize>().map_err(|e| format!("window {n:?}: {e}")))
                .transpose()?;
            fit_and_print(&path, &body, window)?;
        }
    }
    Ok(())
}

/// Reads `body` in the format it is in and fits it.
fn fit_and_print(name: &str, body: &str, window: Option<usize>) -> Result<(), Box<dyn Error>> {
    match detect_format(body)? {
        RequestFormat::AnthropicMessages => fit(name, MessagesRequest::from_json(body)?, window),
        _ => fit(name, ChatRequest::from_json(body)?, window),
    }
}

fn fit<R>(name: &str, request: R, window: Option<usize>) -> Result<(), Box<dyn Error>>
where
    R: WireRequest + Clone + serde::Serialize,
{
    let model = Model::lookup(request.model().unwrap_or("gpt-4o"))?;
    // Count the dropped messages too, for the "before" figure (fitting alone counts
    // only what it keeps).
    let mut fitter = RequestFitter::for_model(model)?.with_count_dropped(true);
    if let Some(window) = window {
        fitter = fitter.with_window(window, model.default_output());
    }
    let users = |messages: &[R::Message]| {
        messages
            .iter()
            .filter(|m| m.role() == Role::User && m.carries_user_content())
            .count()
    };
    let (messages_before, users_before) = (request.messages().len(), users(request.messages()));
    let dropped = fitter.fit(request.clone())?;
    let edited = fitter.clone().with_edits(Edits::default()).fit(request)?;
    println!("{name}: {messages_before} messages, {users_before} from the user");
    println!("{:<22} {:>14} {:>14}", "", "drop-only", "edited");
    let row = |label: &str, a: String, b: String| println!("{label:<22} {a:>14} {b:>14}");
    let out = |f: &ctxbudget::request::FittedRequest<R>| {
        let m = f.request.messages();
        (m.len(), users(m), f.report.tokens_after, f.report.limit)
    };
    let (d, e) = (out(&dropped), out(&edited));
    row(
        "messages kept",
        format!("{}/{messages_before}", d.0),
        format!("{}/{messages_before}", e.0),
    );
    row(
        "user messages kept",
        format!("{}/{users_before}", d.1),
        format!("{}/{users_before}", e.1),
    );
    row("tokens", d.2.to_string(), e.2.to_string());
    // Per mille in integers: no float casts.
    let use_of = |(_, _, tokens, limit): (usize, usize, usize, usize)| {
        let per_mille = tokens.saturating_mul(1_000) / limit.max(1);
        format!("{}.{}%", per_mille / 10, per_mille % 10)
    };
    row("window use", use_of(d), use_of(e));
    let valid = |f: &ctxbudget::request::FittedRequest<R>| {
        let ok = f.request.validate().is_ok() && f.report.tokens_after <= f.report.limit;
        if ok { "yes" } else { "NO" }.to_owned()
    };
    row("valid and fitting", valid(&dropped), valid(&edited));
    let totals = edited
        .report
        .edits
        .as_ref()
        .map(|e| e.totals)
        .unwrap_or_default();
    row(
        "results cleared",
        "-".into(),
        totals.cleared_tool_uses.to_string(),
    );
    row(
        "results truncated",
        "-".into(),
        totals.truncated.to_string(),
    );
    row(
        "thinking dropped",
        "-".into(),
        totals.thinking_dropped.to_string(),
    );
    let body = serde_json::to_string(&edited.request)?;
    println!("\nedited, {} bytes of JSON:\n{}", body.len(), edited.report);
    Ok(())
}
