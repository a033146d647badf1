//! The main job: fit a real tool-heavy coding-agent request to a model's window and
//! print what was dropped.
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
//! into a 32,000-token window so that there is something to trim.

use std::error::Error;

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
    R: WireRequest + serde::Serialize,
{
    let model = Model::lookup(request.model().unwrap_or("gpt-4o"))?;
    // Count the dropped messages too, for the "before" figure (fitting alone counts
    // only what it keeps).
    let mut fitter = RequestFitter::for_model(model)?.with_count_dropped(true);
    if let Some(window) = window {
        fitter = fitter.with_window(window, model.default_output());
    }
    let messages_before = request.messages().len();
    let result = fitter.fit(request)?;
    let body = serde_json::to_string(&result.request)?;
    println!(
        "{name}: {messages_before} messages, fitted to {} ({} bytes of JSON)",
        result.request.messages().len(),
        body.len()
    );
    println!("{}", result.report);
    Ok(())
}
