//! What the benches of the newer wire formats (`responses`, `gemini`, `bedrock`)
//! share: a long body grown from a shipped agent session, and the interleaved
//! timing of parsing and fitting it against its floor.
//!
//! - **fit**: the format's `from_json` + `RequestFitter::fit` to `LIMIT` tokens;
//! - **floor**: parsing the body alone plus counting the messages the fit keeps.
//!
//! Before criterion's own measurements the two are timed interleaved, in a random
//! order each round, and the medians and their ratio are printed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use ctxbudget::Tiktoken;
use ctxbudget::request::{RequestFitter, WireRequest};
use ctxbudget_tests::agent::SplitMix;
use serde_json::Value;

/// The input limit the long bodies are fitted to.
pub const LIMIT: usize = 32_000;
/// How many messages (items, contents) a long body has, about.
pub const LENGTH: usize = 1_000;
const ROUNDS: usize = 21;

/// How a session's list of messages grows into a long one.
pub struct Growth<'a> {
    /// The body's key of the list: `messages`, `input` or `contents`.
    pub list: &'a str,
    /// Whether an element starts a round (the first of them is where rounds start).
    pub starts_round: fn(&Value) -> bool,
    /// Whether an element is an answer: rounds end at the last one, and the long
    /// list is cut after one, so that no call is cut from its result.
    pub is_answer: fn(&Value) -> bool,
    /// The id prefixes renumbered in each copy of the rounds: with `call_`, copy 3
    /// turns `"call_01"` into `"call_3_01"`.
    pub ids: &'a [&'a str],
    /// The question that ends the long list.
    pub question: Value,
}

/// `session`'s rounds repeated, ids renumbered, to about [`LENGTH`] elements, cut
/// after an answer, then the question.
pub fn long_body(session: &str, growth: &Growth<'_>) -> String {
    let mut body: Value = serde_json::from_str(session).expect("the fixture parses");
    let list = body[growth.list].as_array().expect("the list").clone();
    let start = list
        .iter()
        .position(growth.starts_round)
        .expect("a round starts");
    let end = list.iter().rposition(growth.is_answer).expect("an answer");
    let (head, rounds) = (&list[..start], &list[start..=end]);
    let mut out: Vec<Value> = head.to_vec();
    let mut copy = 0;
    while out.len() < LENGTH {
        for element in rounds {
            let mut text = serde_json::to_string(element).expect("serializes");
            for id in growth.ids {
                text = text.replace(&format!("\"{id}0"), &format!("\"{id}{copy}_0"));
            }
            out.push(serde_json::from_str(&text).expect("still JSON"));
        }
        copy += 1;
    }
    let mut cut = LENGTH.min(out.len());
    while cut > 0 && !(growth.is_answer)(&out[cut - 1]) {
        cut -= 1;
    }
    out.truncate(cut);
    out.push(growth.question.clone());
    body[growth.list] = Value::Array(out);
    serde_json::to_string(&body).expect("serializes")
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Times `parse` + fit against `parse` + counting what the fit keeps, interleaved
/// and then with criterion, in the group `name`.
pub fn fit_against_floor<R: WireRequest + Clone>(
    c: &mut Criterion,
    name: &str,
    body: &str,
    parse: impl Fn(&str) -> R,
) {
    let counter = Tiktoken::o200k_base();
    let fitter = RequestFitter::new(&counter).with_max_input(LIMIT);
    let parsed = parse(body);
    parsed.validate().expect("valid");
    let total = fitter.count(&parsed).tokens;
    let baseline = fitter.fit(parsed.clone()).expect("fits");
    let dropped: Vec<usize> = baseline.report.dropped.iter().map(|d| d.index).collect();
    let kept: Vec<usize> = (0..parsed.messages().len())
        .filter(|i| !dropped.contains(i))
        .collect();
    eprintln!(
        "{name}: {} messages, {} bytes, {total} tokens; fitted to {} messages, {} tokens",
        parsed.messages().len(),
        body.len(),
        baseline.request.messages().len(),
        baseline.report.tokens_after
    );
    let floor = |body: &str| {
        let request = parse(body);
        let format = request.chat_format();
        let messages = request.messages();
        kept.iter()
            .map(|&i| format.message_tokens(&counter, &messages[i]))
            .sum::<usize>()
    };
    let fit = |body: &str| fitter.fit(parse(body)).expect("fits").report.tokens_after;

    let mut rng = SplitMix::new(0x5eed_u64);
    let mut times: [Vec<Duration>; 2] = Default::default();
    for _ in 0..ROUNDS {
        let order = if rng.below(2) == 0 { [0, 1] } else { [1, 0] };
        for contender in order {
            let start = Instant::now();
            if contender == 0 {
                black_box(fit(black_box(body)));
            } else {
                black_box(floor(black_box(body)));
            }
            times[contender].push(start.elapsed());
        }
    }
    let [fit_t, floor_t] = times.map(median);
    eprintln!(
        "medians of {ROUNDS} interleaved rounds: parse + fit {fit_t:.2?}, parse + count kept {floor_t:.2?} ({:.2}x)",
        fit_t.as_secs_f64() / floor_t.as_secs_f64(),
    );

    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function(format!("parse_and_fit_{LENGTH}"), |b| {
        b.iter(|| fit(black_box(body)));
    });
    group.bench_function("parse_and_count_kept", |b| {
        b.iter(|| floor(black_box(body)));
    });
    group.finish();
}
