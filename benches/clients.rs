//! Requests of Rust clients: what `RequestFitter::fit_serde` costs on async-openai's
//! `CreateChatCompletionRequest` against fitting the same body as JSON text.
//!
//! Run with `cargo bench --bench clients`. The body is the shipped coding session
//! (`tests/fixtures/requests/openai/coding_session.json`, 120 messages), fitted to
//! 8,000 `o200k_base` tokens. Contenders, interleaved in a new random order each
//! round:
//!
//! - **json**: `ChatRequest::from_json` + `fit` + `to_json`, the fit of a body a
//!   program already holds as text;
//! - **`fit_serde`**: `fit_serde(&request)` on the client's value, which adds
//!   serializing it and reading the fitted body back into its type;
//! - **round trip**: `serde_json::to_string` + `from_str` of the client's value
//!   alone, the serde round trip `fit_serde` adds.
//!
//! - **detect**: `detect_format` of the body, the pass that tells its format.
//!
//! The table it prints gives what `fit_serde` adds to the JSON fit against one
//! round trip, both as ratios to the JSON fit measured in the same rounds.

use std::time::Duration;

use async_openai::types::chat::CreateChatCompletionRequest;
use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::Tiktoken;
use ctxbudget::request::RequestFitter;
use ctxbudget::request::openai::ChatRequest;

#[path = "interleave.rs"]
mod interleave;

use interleave::{Contender, human, interleaved};

const SESSION: &str = include_str!("../tests/fixtures/requests/openai/coding_session.json");
const LIMIT: usize = 8_000;

fn bench(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let fitter = RequestFitter::new(&counter).with_max_input(LIMIT);
    let client: CreateChatCompletionRequest =
        serde_json::from_str(SESSION).expect("async-openai reads the session");
    let body = serde_json::to_string(&client).expect("serializes");

    let contenders = [
        Contender::new("json", || {
            let request = ChatRequest::from_json(&body).expect("parses");
            fitter.fit(request).expect("fits").request.to_json().len()
        }),
        Contender::new("fit_serde", || {
            let back = fitter.fit_serde(&client).expect("fits");
            back.request.messages.len()
        }),
        Contender::new("detect", || {
            usize::from(ctxbudget::request::detect_format(&body).is_ok())
        }),
        Contender::new("round trip", || {
            let text = serde_json::to_string(&client).expect("serializes");
            let back: CreateChatCompletionRequest = serde_json::from_str(&text).expect("reads");
            back.messages.len()
        }),
    ];
    let rounds = interleaved(c, "clients", &contenders, 30, Duration::from_secs(5));
    println!("| contender | median | ratio to json |");
    println!("| --- | ---: | ---: |");
    for name in ["json", "fit_serde", "detect", "round trip"] {
        let index = rounds.index(name);
        println!(
            "| {name} | {} | {:.2}x |",
            human(rounds.median(index)),
            rounds.ratio(index, rounds.index("json"))
        );
    }
    let json = rounds.index("json");
    println!(
        "fit_serde adds {:.2}x of the JSON fit; one round trip of the client's value is {:.2}x",
        rounds.ratio(rounds.index("fit_serde"), json) - 1.0,
        rounds.ratio(rounds.index("round trip"), json)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
