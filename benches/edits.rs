//! Context editing: editing and fitting a 1,000-message Chat Completions request
//! against counting it once (the bound the context-editing issue sets: at most
//! 1.3x).
//!
//! Run with `cargo bench --bench edits`. The request repeats the shipped 120-message
//! coding-agent session (`tests/fixtures/requests/openai/coding_session.json`) with
//! fresh call ids until it has 1,000 messages (about 370,000 `o200k_base` tokens).
//!
//! - **count**: `ChatFormat::count_messages` of the messages, once.
//! - **edit + fit**: `ContextEditor::edit` (counts every message once, clears old
//!   tool results, plans a compaction) and then `ChatTrimmer::trim` over
//!   `Precounted` messages (only the per-message overhead is counted again), at a
//!   32,000-token limit (edits, then dropping) and at 250,000 (edits alone fit).
//! - **fitter**: the same through `RequestFitter::with_edits(Edits::default())` on
//!   a clone of the request: validation, the fixed cost, the edits, the pinned
//!   task and the report.
//!
//! Each contender clones the messages first, so both pay the same copy. Before
//! criterion's own measurements, the contenders are timed interleaved, in a random
//! order each round, and the medians and their ratios are printed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::chat::ChatFormat;
use ctxbudget::chat::edit::{ContextEditor, Edits, Precounted};
use ctxbudget::request::RequestFitter;
use ctxbudget::request::openai::{ChatRequest, RequestMessage};
use ctxbudget::{ChatTrimmer, Tiktoken};
use ctxbudget_tests::agent::SplitMix;
use serde_json::{Value, json};

const SESSION: &str = include_str!("../tests/fixtures/requests/openai/coding_session.json");
const MESSAGES: usize = 1_000;
const LIMITS: [usize; 2] = [32_000, 250_000];
const ROUNDS: usize = 15;

/// The shipped session's turns repeated, call ids renumbered, to `MESSAGES`
/// messages, ending on a question.
fn long_request() -> ChatRequest {
    let mut body: Value = serde_json::from_str(SESSION).expect("the fixture parses");
    let messages = body["messages"].as_array().expect("messages").clone();
    let first_user = messages
        .iter()
        .position(|m| m["role"] == "user")
        .expect("a user message");
    let (head, turns) = messages.split_at(first_user);
    let mut out: Vec<Value> = head.to_vec();
    let mut copy = 0;
    while out.len() < MESSAGES {
        for message in turns {
            let text = serde_json::to_string(message).expect("serializes");
            let message = if copy > 0 && text.contains("\"call_") {
                serde_json::from_str(&text.replace("\"call_", &format!("\"call_{copy}_")))
                    .expect("still JSON")
            } else {
                message.clone()
            };
            out.push(message);
        }
        copy += 1;
    }
    let mut end = MESSAGES.min(out.len());
    while end > 0
        && !(out[end - 1]["role"] == "assistant" && out[end - 1].get("tool_calls").is_none())
    {
        end -= 1;
    }
    out.truncate(end);
    out.push(json!({"role": "user", "content": "Now write the summary of all of it."}));
    body["messages"] = Value::Array(out);
    ChatRequest::from_json(&body.to_string()).expect("a valid request")
}

fn count(counter: &Tiktoken, messages: &[RequestMessage]) -> usize {
    let messages = messages.to_vec();
    ChatFormat::openai().count_messages(counter, &messages)
}

fn edit_and_fit(counter: &Tiktoken, messages: &[RequestMessage], limit: usize) -> usize {
    let mut messages = messages.to_vec();
    let editor = ContextEditor::new(counter, limit);
    let edited = editor.edit(&mut messages);
    let precounted = Precounted::wrap(&messages, edited.content_tokens());
    ChatTrimmer::new(counter, limit)
        .trim(&precounted)
        .expect("fits")
        .tokens()
}

fn fitter_fit(counter: &Tiktoken, request: &ChatRequest, limit: usize) -> usize {
    RequestFitter::new(counter)
        .with_max_input(limit)
        .with_edits(Edits::default())
        .fit(request.clone())
        .expect("fits")
        .report
        .tokens_after
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn bench(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let request = long_request();
    let messages = request.messages.clone();
    let total = count(&counter, &messages);
    for limit in LIMITS {
        let mut edited_messages = messages.clone();
        let edited = ContextEditor::new(&counter, limit).edit(&mut edited_messages);
        let t = &edited.report().totals;
        eprintln!(
            "{} messages, {total} tokens, limit {limit}: edits {} -> {} tokens ({} results cleared, {} truncated), fitted to {} tokens",
            messages.len(),
            edited.report().tokens_before,
            edited.report().tokens_after,
            t.cleared_tool_uses,
            t.truncated,
            edit_and_fit(&counter, &messages, limit),
        );
    }

    let mut rng = SplitMix::new(7);
    let mut times: [Vec<Duration>; 1 + 2 * LIMITS.len()] = Default::default();
    for _ in 0..ROUNDS {
        let mut order: Vec<usize> = (0..times.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for contender in order {
            let start = Instant::now();
            match contender {
                0 => black_box(count(&counter, black_box(&messages))),
                i if i <= LIMITS.len() => {
                    black_box(edit_and_fit(&counter, black_box(&messages), LIMITS[i - 1]))
                }
                i => black_box(fitter_fit(
                    &counter,
                    black_box(&request),
                    LIMITS[i - 1 - LIMITS.len()],
                )),
            };
            times[contender].push(start.elapsed());
        }
    }
    let [count_time, rest @ ..] = times.map(median);
    eprintln!("count once: {count_time:?}");
    let names = LIMITS
        .iter()
        .map(|l| ("edit + fit", l))
        .chain(LIMITS.iter().map(|l| ("RequestFitter::with_edits", l)));
    for ((name, limit), time) in names.zip(rest) {
        #[allow(clippy::cast_precision_loss)]
        let ratio = time.as_secs_f64() / count_time.as_secs_f64();
        eprintln!("{name} at {limit}: {time:?} ({ratio:.2}x counting once)");
    }

    let mut group = c.benchmark_group("edits");
    group.sample_size(10);
    group.bench_function("count once", |b| {
        b.iter(|| count(&counter, black_box(&messages)));
    });
    for limit in LIMITS {
        group.bench_function(format!("edit + fit {limit}"), |b| {
            b.iter(|| edit_and_fit(&counter, black_box(&messages), limit));
        });
    }
    for limit in LIMITS {
        group.bench_function(format!("RequestFitter::with_edits {limit}"), |b| {
            b.iter(|| fitter_fit(&counter, black_box(&request), limit));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
