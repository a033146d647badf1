//! Bedrock Converse requests: fitting a 1,000-message body against its floor.
//!
//! Run with `cargo bench --bench bedrock`. The body repeats the rounds of the shipped
//! agent session (`tests/fixtures/bedrock/agent_session.json`: reasoning with
//! signatures, parallel tool uses and their results, answers) with fresh tool use
//! ids until it has 1,000 messages, counted as for a Claude model. What is timed:
//! see `long_session.rs`.

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::request::bedrock::BedrockRequest;
use serde_json::{Value, json};

#[path = "long_session.rs"]
mod long_session;

const SESSION: &str = include_str!("../tests/fixtures/bedrock/agent_session.json");
const MODEL: &str = "anthropic.claude-sonnet-4-5-20250929-v1:0";

fn is_answer(message: &Value) -> bool {
    message["role"] == "assistant"
        && message["content"]
            .as_array()
            .is_some_and(|p| p.iter().all(|p| p.get("toolUse").is_none()))
}

fn bench(c: &mut Criterion) {
    let body = long_session::long_body(
        SESSION,
        &long_session::Growth {
            list: "messages",
            starts_round: |message| message["role"] == "assistant",
            is_answer,
            ids: &["call_", "tooluse_"],
            question: json!({"role": "user", "content": [{"text": "Now write the summary of all of it."}]}),
        },
    );
    long_session::fit_against_floor(c, "bedrock", &body, |body| {
        BedrockRequest::from_json(body)
            .expect("parses")
            .with_model(MODEL)
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
