//! Provider requests: fitting a 1,000-message Chat Completions request against its
//! floor, and counting a request with tools and images against counting its text.
//!
//! Run with `cargo bench --bench request`. The request repeats the shipped 120-message
//! coding-agent session (`tests/fixtures/requests/openai/coding_session.json`, real
//! source code and Markdown in its tool results) with fresh call ids until it has
//! 1,000 messages.
//!
//! - **fit**: `ChatRequest::from_json` + `RequestFitter::fit` to 32,000 tokens, against
//!   the floor the issue sets: parsing the body alone plus counting the messages the
//!   fit keeps.
//! - **count**: `RequestFitter::count` of a request with 20 tool definitions and 10
//!   images (data URLs), against counting its text alone (every message text and the
//!   tool definitions' JSON, with no per-message or image rules).
//!
//! Before criterion's own measurements, the contenders are timed interleaved, in a
//! random order each round, and the medians and their ratio are printed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::chat::{ChatFormat, Role};
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::{RequestFitter, WireRequest};
use ctxbudget::{ChatTrimmer, Tiktoken, TokenCounter};
use ctxbudget_tests::agent::SplitMix;
use serde_json::{Value, json};

const SESSION: &str = include_str!("../tests/fixtures/requests/openai/coding_session.json");
const MESSAGES: usize = 1_000;
const LIMIT: usize = 32_000;
const ROUNDS: usize = 21;

/// The shipped session's turns repeated, call ids renumbered, to `MESSAGES` messages.
fn long_request() -> String {
    let mut body: Value = serde_json::from_str(SESSION).expect("the fixture parses");
    let messages = body["messages"].as_array().expect("messages").clone();
    let (head, turns) = messages.split_at(
        messages
            .iter()
            .position(|m| m["role"] == "user")
            .expect("a user message"),
    );
    let mut out: Vec<Value> = head.to_vec();
    let mut copy = 0;
    while out.len() < MESSAGES {
        for message in turns {
            let mut message = message.clone();
            let text = serde_json::to_string(&message).expect("serializes");
            if copy > 0 && text.contains("\"call_") {
                message =
                    serde_json::from_str(&text.replace("\"call_", &format!("\"call_{copy}_")))
                        .expect("still JSON");
            }
            out.push(message);
        }
        copy += 1;
    }
    // End on a complete turn: cut after the last assistant message without calls.
    let mut end = MESSAGES.min(out.len());
    while end > 0
        && !(out[end - 1]["role"] == "assistant" && out[end - 1].get("tool_calls").is_none())
    {
        end -= 1;
    }
    out.truncate(end);
    out.push(json!({"role": "user", "content": "Now write the summary of all of it."}));
    body["messages"] = Value::Array(out);
    serde_json::to_string(&body).expect("serializes")
}

/// A PNG of `width × height` with `filler` bytes of image data, base64, as a data
/// URL. The counts read the header and check that the data could hold the pixels
/// (the header's CRC, an `IDAT` chunk of at least the deflated size), so the chunks
/// are whole; the pixels themselves are not decoded.
fn png_data_url(width: u32, height: u32, filler: usize) -> String {
    use base64::Engine as _;
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    0xedb8_8320 ^ (crc >> 1)
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let chunk = |kind: &[u8], data: &[u8]| {
        let length = u32::try_from(data.len()).expect("a chunk under 4 GB");
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        let mut out = length.to_be_bytes().to_vec();
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
        out
    };
    let mut header = width.to_be_bytes().to_vec();
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &header));
    png.extend(chunk(b"IDAT", &vec![0x5a_u8; filler]));
    png.extend(chunk(b"IEND", &[]));
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&png)
    )
}

/// A request with 20 tool definitions, 10 images of 20-200 KB and the session's first
/// 60 messages.
fn tools_and_images() -> ChatRequest {
    let mut body: Value = serde_json::from_str(SESSION).expect("the fixture parses");
    let tools: Vec<Value> = (0..20)
        .map(|i| {
            json!({"type": "function", "function": {
                "name": format!("tool_{i}"),
                "description": format!("Tool number {i}: reads, searches or edits files of the repository."),
                "parameters": {"type": "object", "properties": {
                    "path": {"type": "string", "description": "Path relative to the repository root"},
                    "mode": {"type": "string", "enum": ["read", "write", "append"]},
                    "limit": {"type": "integer", "description": "How many lines at most"}
                }, "required": ["path"]}
            }})
        })
        .collect();
    body["tools"] = Value::Array(tools);
    let messages = body["messages"].as_array_mut().expect("messages");
    messages.truncate(60);
    for i in 0..10u32 {
        messages.push(json!({"role": "user", "content": [
            {"type": "text", "text": format!("Screenshot {i} of the failing test run.")},
            {"type": "image_url", "image_url": {
                "url": png_data_url(800 + 100 * i, 600 + 50 * i, 20_000 * (i as usize + 1)),
                "detail": if i % 3 == 0 { "low" } else { "high" }}}
        ]}));
        messages.push(json!({"role": "assistant", "content": format!("Screenshot {i} shows an assertion failure.")}));
    }
    messages.push(json!({"role": "user", "content": "What do the screenshots have in common?"}));
    ChatRequest::from_json(&body.to_string()).expect("a valid request")
}

/// Every text of `request` counted as plain text: message texts and the tool
/// definitions' JSON.
fn count_text(counter: &Tiktoken, request: &ChatRequest, tools_json: &[String]) -> usize {
    let messages: usize = request
        .messages
        .iter()
        .filter_map(|m| m.content.as_ref())
        .map(|content| match content.as_text() {
            Some(text) => counter.count(text),
            None => content
                .parts()
                .iter()
                .filter_map(|p| p.as_text())
                .map(|t| counter.count(t))
                .sum(),
        })
        .sum();
    messages + tools_json.iter().map(|t| counter.count(t)).sum::<usize>()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn shuffled(rng: &mut SplitMix, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

fn bench(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let body = long_request();
    let fitter = RequestFitter::new(&counter).with_max_input(LIMIT);
    let parsed = ChatRequest::from_json(&body).expect("parses");
    let total = fitter.count(&parsed).tokens;
    let baseline = fitter.fit(parsed.clone()).expect("fits");
    let kept_seqs: Vec<usize> = {
        let trimmer = ChatTrimmer::new(&counter, LIMIT).with_start_on([Role::User]);
        trimmer
            .trim(parsed.messages())
            .expect("fits")
            .elements()
            .iter()
            .map(|e| e.seq)
            .collect()
    };
    eprintln!(
        "request: {} messages, {} bytes, {total} tokens; fitted to {} messages, {} tokens",
        parsed.messages.len(),
        body.len(),
        baseline.request.messages.len(),
        baseline.report.tokens_after
    );
    let floor = |body: &str| {
        let request = ChatRequest::from_json(body).expect("parses");
        let format = ChatFormat::openai();
        kept_seqs
            .iter()
            .map(|&i| format.message_tokens(&counter, &request.messages[i]))
            .sum::<usize>()
    };
    let fit = |body: &str| {
        let request = ChatRequest::from_json(body).expect("parses");
        fitter.fit(request).expect("fits").report.tokens_after
    };

    let images = tools_and_images();
    let tools_json: Vec<String> = images
        .tools
        .iter()
        .flatten()
        .map(|t| serde_json::to_string(t).expect("serializes"))
        .collect();
    let count_request = |r: &ChatRequest| RequestFitter::new(&counter).count(r).tokens;
    eprintln!(
        "tools and images: {} messages, 20 tools, 10 images: {} tokens, {} of them text",
        images.messages.len(),
        count_request(&images),
        count_text(&counter, &images, &tools_json)
    );

    let mut rng = SplitMix::new(0x5eed_u64);
    let mut times: [Vec<Duration>; 4] = Default::default();
    for _ in 0..ROUNDS {
        for contender in shuffled(&mut rng, 4) {
            let start = Instant::now();
            match contender {
                0 => drop(black_box(fit(black_box(&body)))),
                1 => drop(black_box(floor(black_box(&body)))),
                2 => drop(black_box(count_request(black_box(&images)))),
                _ => drop(black_box(count_text(
                    &counter,
                    black_box(&images),
                    &tools_json,
                ))),
            }
            times[contender].push(start.elapsed());
        }
    }
    let [fit_t, floor_t, count_t, text_t] = times.map(median);
    eprintln!(
        "medians of {ROUNDS} interleaved rounds: parse + fit {fit_t:.2?}, parse + count kept {floor_t:.2?} ({:.2}x); count request {count_t:.2?}, count its text {text_t:.2?} ({:.2}x)",
        fit_t.as_secs_f64() / floor_t.as_secs_f64(),
        count_t.as_secs_f64() / text_t.as_secs_f64(),
    );

    let mut group = c.benchmark_group("request");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("parse_and_fit_1000_messages", |b| {
        b.iter(|| fit(black_box(&body)));
    });
    group.bench_function("parse_and_count_kept", |b| {
        b.iter(|| floor(black_box(&body)));
    });
    group.bench_function("count_20_tools_10_images", |b| {
        b.iter(|| count_request(black_box(&images)));
    });
    group.bench_function("count_text_only", |b| {
        b.iter(|| count_text(&counter, black_box(&images), &tools_json));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
