//! Trimming a 1,000-message chat (about 200k cl100k tokens) to 8k tokens, against
//! counting every message once and against counting only the messages kept (the
//! floor for any trimmer that reports exact costs).
//!
//! Run with `cargo bench --bench chat`. Messages are cut from the benchmark corpus
//! (`../shared/corpus/markdown.md`) when it is there, else from the shipped fixture
//! `tests/fixtures/aho-corasick-docs.md`, so the text is real Markdown either way.
//! Before criterion's measurements, the contenders are timed interleaved, in a
//! random order each round, and the medians and ratios are printed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::{ChatTrimmer, Message, chat::ChatFormat, chat::ToolCall};
use ctxbudget_tests::agent::SplitMix;

const MESSAGES: usize = 1_000;
/// About 200 cl100k tokens of Markdown.
const CHARS_PER_MESSAGE: usize = 800;
const BUDGET: usize = 8_000;

fn source_text() -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let corpus = format!("{root}/../shared/corpus/markdown.md");
    let fixture = format!("{root}/tests/fixtures/aho-corasick-docs.md");
    std::fs::read_to_string(corpus)
        .or_else(|_| std::fs::read_to_string(fixture))
        .expect("the fixture ships with the repository")
}

/// Consecutive pieces of `text` of about `chars` characters, cut at line ends,
/// starting over at the beginning when the text runs out.
fn pieces(text: &str, chars: usize) -> impl Iterator<Item = &str> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            start = 0;
        }
        let rest = &text[start..];
        let mut end = rest
            .char_indices()
            .nth(chars)
            .map_or(rest.len(), |(i, _)| i);
        end = rest[end..].find('\n').map_or(rest.len(), |nl| end + nl + 1);
        let piece = &rest[..end];
        start += end;
        Some(piece)
    })
}

/// A system prompt, then user/assistant turns; every fifth turn the assistant calls
/// two tools in parallel and both results follow.
fn history(text: &str) -> Vec<Message> {
    let mut pieces = pieces(text, CHARS_PER_MESSAGE);
    let mut next = || pieces.next().unwrap_or_default().to_owned();
    let mut history = vec![Message::system(next())];
    let mut turn = 0;
    while history.len() < MESSAGES {
        history.push(Message::user(next()));
        if turn % 5 == 4 && history.len() + 4 <= MESSAGES {
            let (a, b) = (format!("call_{turn}_a"), format!("call_{turn}_b"));
            history.push(
                Message::assistant("")
                    .with_tool_call(ToolCall::new(&a, "search", r#"{"q":"aho-corasick"}"#))
                    .with_tool_call(ToolCall::new(&b, "search", r#"{"q":"teddy"}"#)),
            );
            history.push(Message::tool(a, next()));
            history.push(Message::tool(b, next()));
        } else {
            history.push(Message::assistant(next()));
        }
        turn += 1;
    }
    history.truncate(MESSAGES);
    history
}

fn bench(c: &mut Criterion) {
    let bpe = tiktoken_rs::cl100k_base_singleton();
    let counter = |t: &str| bpe.encode_ordinary(t).len();
    let text = source_text();
    let history = history(&text);
    let format = ChatFormat::openai();
    let total = format.count_messages(&counter, &history);
    let chat_trimmer = ChatTrimmer::new(counter, BUDGET);
    let trimmed = chat_trimmer
        .trim(&history)
        .expect("system + latest user fit 8k");
    eprintln!(
        "history: {} messages, {total} tokens; trimmed to {} messages, {} tokens",
        history.len(),
        trimmed.elements().len(),
        trimmed.tokens()
    );

    let kept: Vec<&Message> = trimmed.messages();
    let count_kept = || {
        kept.iter()
            .map(|m| format.message_tokens(&counter, *m))
            .sum::<usize>()
    };
    let with_hook = || chat_trimmer.trim_with(&history, |_| {}).map(|t| t.tokens());
    let contenders: [(&str, &dyn Fn() -> usize); 4] = [
        ("count every message", &|| {
            format.count_messages(&counter, black_box(&history))
        }),
        ("count the kept messages", &|| count_kept()),
        ("trim (lazy)", &|| {
            chat_trimmer
                .trim(black_box(&history))
                .map_or(0, |t| t.tokens())
        }),
        ("trim_with a hook (counts all)", &|| {
            with_hook().unwrap_or(0)
        }),
    ];
    let mut rng = SplitMix::new(3);
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); contenders.len()];
    for _ in 0..15 {
        let mut order: Vec<usize> = (0..contenders.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for i in order {
            let start = Instant::now();
            black_box(contenders[i].1());
            times[i].push(start.elapsed());
        }
    }
    let medians: Vec<Duration> = times
        .into_iter()
        .map(|mut t| {
            t.sort_unstable();
            t[t.len() / 2]
        })
        .collect();
    let floor = medians[1].as_secs_f64();
    for ((name, _), median) in contenders.iter().zip(&medians) {
        eprintln!(
            "{name}: {median:.2?} ({:.2}x counting the kept messages)",
            median.as_secs_f64() / floor
        );
    }

    let mut group = c.benchmark_group("chat_1000_messages");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("count_every_message_once", |b| {
        b.iter(|| format.count_messages(&counter, black_box(&history)));
    });
    group.bench_function("count_kept_messages", |b| {
        b.iter(count_kept);
    });
    group.bench_function("trim_to_8k", |b| {
        b.iter(|| chat_trimmer.trim(black_box(&history)).map(|t| t.tokens()));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
