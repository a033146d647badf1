//! OpenAI Responses requests: fitting a 1,000-item body against its floor.
//!
//! Run with `cargo bench --bench responses`. The body repeats the rounds of the
//! shipped agent session (`tests/fixtures/responses/agent_session.json`: reasoning
//! with encrypted content, parallel function calls and their outputs, custom tool
//! calls, answers) with fresh call ids until it has 1,000 input items. What is
//! timed: see `long_session.rs`.

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::request::responses::ResponsesRequest;
use serde_json::json;

#[path = "long_session.rs"]
mod long_session;

const SESSION: &str = include_str!("../tests/fixtures/responses/agent_session.json");

fn bench(c: &mut Criterion) {
    let body = long_session::long_body(
        SESSION,
        &long_session::Growth {
            list: "input",
            starts_round: |item| item["type"] == "reasoning",
            is_answer: |item| item["role"] == "assistant",
            ids: &["call_", "rs_", "fc_"],
            question: json!({"role": "user", "content": "Now write the summary of all of it."}),
        },
    );
    long_session::fit_against_floor(c, "responses", &body, |body| {
        ResponsesRequest::from_json(body).expect("parses")
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
