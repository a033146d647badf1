//! Bedrock Converse requests: fitting a 1,000-message body against its floor.
//!
//! Run with `cargo bench --bench bedrock`. The body repeats the rounds of the shipped
//! agent session (`tests/fixtures/bedrock/agent_session.json`: reasoning with
//! signatures, parallel tool uses and their results, answers) with fresh tool use
//! ids until it has 1,000 messages, counted as for a Claude model.
//!
//! - **fit**: `BedrockRequest::from_json` + `RequestFitter::fit` to 32,000 tokens;
//! - **floor**: parsing the body alone plus counting the messages the fit keeps.
//!
//! Before criterion's own measurements the two are timed interleaved, in a random
//! order each round, and the medians and their ratio are printed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::Tiktoken;
use ctxbudget::request::bedrock::BedrockRequest;
use ctxbudget::request::{RequestFitter, WireRequest};
use ctxbudget_tests::agent::SplitMix;
use serde_json::{Value, json};

const SESSION: &str = include_str!("../tests/fixtures/bedrock/agent_session.json");
const MESSAGES: usize = 1_000;
const LIMIT: usize = 32_000;
const ROUNDS: usize = 21;
const MODEL: &str = "anthropic.claude-sonnet-4-5-20250929-v1:0";

/// The session's rounds (from its first assistant message to its last answer)
/// repeated, tool use ids renumbered, to `MESSAGES` messages, then a question.
fn long_request() -> String {
    let mut body: Value = serde_json::from_str(SESSION).expect("the fixture parses");
    let messages = body["messages"].as_array().expect("messages").clone();
    let start = messages
        .iter()
        .position(|c| c["role"] == "assistant")
        .expect("an assistant message");
    let end = messages
        .iter()
        .rposition(|c| c["role"] == "assistant")
        .expect("an answer");
    let (head, rounds) = (&messages[..start], &messages[start..=end]);
    let mut out: Vec<Value> = head.to_vec();
    let mut copy = 0;
    while out.len() < MESSAGES {
        for message in rounds {
            let text = serde_json::to_string(message).expect("serializes");
            let text = text
                .replace("\"call_0", &format!("\"call_{copy}_0"))
                .replace("\"tooluse_0", &format!("\"tooluse_{copy}_0"));
            out.push(serde_json::from_str(&text).expect("still JSON"));
        }
        copy += 1;
    }
    // End after an answer, so that no call is cut from its response.
    let mut cut = MESSAGES.min(out.len());
    while cut > 0
        && !(out[cut - 1]["role"] == "assistant"
            && out[cut - 1]["content"]
                .as_array()
                .is_some_and(|p| p.iter().all(|p| p.get("toolUse").is_none())))
    {
        cut -= 1;
    }
    out.truncate(cut);
    out.push(json!({"role": "user", "content": [{"text": "Now write the summary of all of it."}]}));
    body["messages"] = Value::Array(out);
    serde_json::to_string(&body).expect("serializes")
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn bench(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let body = long_request();
    let fitter = RequestFitter::new(&counter).with_max_input(LIMIT);
    let parsed = BedrockRequest::from_json(&body)
        .expect("parses")
        .with_model(MODEL);
    parsed.validate().expect("valid");
    let total = fitter.count(&parsed).tokens;
    let baseline = fitter.fit(parsed.clone()).expect("fits");
    let dropped: Vec<usize> = baseline.report.dropped.iter().map(|d| d.index).collect();
    let kept: Vec<usize> = (0..parsed.messages().len())
        .filter(|i| !dropped.contains(i))
        .collect();
    eprintln!(
        "bedrock: {} messages, {} bytes, {total} tokens; fitted to {} messages, {} tokens",
        parsed.messages().len(),
        body.len(),
        baseline.request.messages().len(),
        baseline.report.tokens_after
    );
    let floor = |body: &str| {
        let request = BedrockRequest::from_json(body)
            .expect("parses")
            .with_model(MODEL);
        let format = request.chat_format();
        let messages = request.messages();
        kept.iter()
            .map(|&i| format.message_tokens(&counter, &messages[i]))
            .sum::<usize>()
    };
    let fit = |body: &str| {
        let request = BedrockRequest::from_json(body)
            .expect("parses")
            .with_model(MODEL);
        fitter.fit(request).expect("fits").report.tokens_after
    };

    let mut rng = SplitMix::new(0x5eed_u64);
    let mut times: [Vec<Duration>; 2] = Default::default();
    for _ in 0..ROUNDS {
        let order = if rng.below(2) == 0 { [0, 1] } else { [1, 0] };
        for contender in order {
            let start = Instant::now();
            if contender == 0 {
                black_box(fit(black_box(&body)));
            } else {
                black_box(floor(black_box(&body)));
            }
            times[contender].push(start.elapsed());
        }
    }
    let [fit_t, floor_t] = times.map(median);
    eprintln!(
        "medians of {ROUNDS} interleaved rounds: parse + fit {fit_t:.2?}, parse + count kept {floor_t:.2?} ({:.2}x)",
        fit_t.as_secs_f64() / floor_t.as_secs_f64(),
    );

    let mut group = c.benchmark_group("bedrock");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("parse_and_fit_1000_messages", |b| {
        b.iter(|| fit(black_box(&body)));
    });
    group.bench_function("parse_and_count_kept", |b| {
        b.iter(|| floor(black_box(&body)));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
