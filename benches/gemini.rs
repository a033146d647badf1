//! Gemini generateContent requests: fitting a 1,000-content body against its floor.
//!
//! Run with `cargo bench --bench gemini`. The body repeats the rounds of the shipped
//! agent session (`tests/fixtures/gemini/agent_session.json`: thought parts and
//! signatures, parallel function calls and their responses, answers) with fresh
//! call ids until it has 1,000 contents. What is timed: see `long_session.rs`.

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::request::gemini::GeminiRequest;
use serde_json::{Value, json};

#[path = "long_session.rs"]
mod long_session;

const SESSION: &str = include_str!("../tests/fixtures/gemini/agent_session.json");

fn is_answer(content: &Value) -> bool {
    content["role"] == "model"
        && content["parts"]
            .as_array()
            .is_some_and(|p| p.iter().all(|p| p.get("functionCall").is_none()))
}

fn bench(c: &mut Criterion) {
    let body = long_session::long_body(
        SESSION,
        &long_session::Growth {
            list: "contents",
            starts_round: |content| content["role"] == "model",
            is_answer,
            ids: &["call_"],
            question: json!({"role": "user", "parts": [{"text": "Now write the summary of all of it."}]}),
        },
    );
    long_session::fit_against_floor(c, "gemini", &body, |body| {
        GeminiRequest::from_json(body).expect("parses")
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
