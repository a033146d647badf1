//! Trimming speed on real text: ctxbudget against the seed algorithm, one full count
//! of the input, and one count of just the kept text (the floor for any exact trimmer
//! built on tiktoken-rs), all with `o200k_base`.
//!
//! Run with `cargo bench --bench trim`; summarise with `python3 benches/summarize.py`.
//! The corpus is `../shared/corpus/` (or `CTXBUDGET_CORPUS`); without it the benches
//! run on the shipped 32 KB fixtures repeated to the same sizes.
//!
//! Ids: `trim/<input>/<approach>/<budget>` where approach is `seed` (a), `full_count`
//! (b, independent of the budget), `ctxbudget` (c) and `kept_count` (d).

// `criterion_group!` generates a public function without docs.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ctxbudget::{Tiktoken, trim_to_budget};
use ctxbudget_tests::{MULTILINGUAL, corpus_or_fixture, floor_char_boundary};

const BUDGETS: [usize; 3] = [512, 4_096, 32_768];
const MB: usize = 1_000_000;

/// Seed 000's `trim_to_budget`, ported faithfully (quadratic re-counting, re-joined
/// segments and all) as the baseline.
mod seed {
    use ctxbudget::TokenCounter;

    pub fn trim_to_budget(text: &str, budget: usize, counter: &impl TokenCounter) -> String {
        if budget == 0 {
            return String::new();
        }
        if text.is_empty() || counter.count(text) <= budget {
            return text.to_owned();
        }
        let paragraphs = split_paragraphs(text);
        if let Some(kept) = trim_segments(&paragraphs, budget, counter, "\n\n") {
            return kept;
        }
        let sentences: Vec<&str> = split_sentences(text)
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .collect();
        if let Some(kept) = trim_segments(&sentences, budget, counter, " ") {
            return kept;
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        if let Some(kept) = trim_segments(&words, budget, counter, " ") {
            return kept;
        }
        trim_by_bytes(text, budget, counter)
    }

    /// `re.split(r"\n{2,}", text)`.
    fn split_paragraphs(text: &str) -> Vec<&str> {
        regex::Regex::new(r"\n{2,}").unwrap().split(text).collect()
    }

    /// `re.split(r"(?<=[.!?])\s+(?=\S)|\n{2,}", text)`, scanned by hand because the
    /// `regex` crate has no look-around.
    fn split_sentences(text: &str) -> Vec<&str> {
        let mut parts = Vec::new();
        let mut start = 0;
        let mut chars = text.char_indices().peekable();
        let mut previous = None;
        while let Some((at, c)) = chars.next() {
            let after_terminator = matches!(previous, Some('.' | '!' | '?'));
            if c.is_whitespace() && after_terminator {
                let run_end = text[at..]
                    .find(|c: char| !c.is_whitespace())
                    .map(|offset| at + offset);
                if let Some(end) = run_end {
                    parts.push(&text[start..at]);
                    start = end;
                    while chars.peek().is_some_and(|&(i, _)| i < end) {
                        chars.next();
                    }
                    previous = None;
                    continue;
                }
            }
            if c == '\n' && text[at..].starts_with("\n\n") {
                let end = text[at..]
                    .find(|c: char| c != '\n')
                    .map_or(text.len(), |o| at + o);
                parts.push(&text[start..at]);
                start = end;
                while chars.peek().is_some_and(|&(i, _)| i < end) {
                    chars.next();
                }
                previous = None;
                continue;
            }
            previous = Some(c);
        }
        parts.push(&text[start..]);
        parts
    }

    fn trim_segments(
        segments: &[&str],
        budget: usize,
        counter: &impl TokenCounter,
        join: &str,
    ) -> Option<String> {
        if segments.is_empty() {
            return Some(String::new());
        }
        let mut kept: Vec<&str> = Vec::new();
        for segment in segments {
            let mut candidate_parts = kept.clone();
            candidate_parts.push(segment);
            let candidate = candidate_parts.join(join);
            let cost = counter.count(&candidate);
            if cost > budget {
                if kept.is_empty() {
                    return None;
                }
                break;
            }
            kept.push(segment);
            if cost >= budget {
                break;
            }
        }
        if kept.is_empty() {
            None
        } else {
            Some(kept.join(join))
        }
    }

    fn trim_by_bytes(text: &str, budget: usize, counter: &impl TokenCounter) -> String {
        let (mut low, mut high) = (0usize, text.len());
        let mut best = "";
        while low <= high {
            let mid = usize::midpoint(low, high);
            let prefix = &text[..ctxbudget_tests::floor_char_boundary(text, mid)];
            if counter.count(prefix) <= budget {
                best = prefix;
                low = mid + 1;
            } else if mid == 0 {
                break;
            } else {
                high = mid - 1;
            }
        }
        best.to_owned()
    }
}

/// `text` repeated to `size` bytes, cut on a char boundary.
fn sized(text: &str, size: usize) -> String {
    let mut out = String::with_capacity(size + text.len());
    while out.len() < size {
        out.push_str(text);
        out.push_str("\n\n");
    }
    let end = floor_char_boundary(&out, size);
    out.truncate(end);
    out
}

/// Deterministic pseudo-random base64, one line of 1 MB.
fn base64_noise(size: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..size)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ALPHABET[(state % 64) as usize] as char
        })
        .collect()
}

/// CJK text without spaces (only CJK punctuation), from the shipped fixture.
fn cjk(size: usize) -> String {
    let lines: String = MULTILINGUAL.lines().take(3).collect::<Vec<_>>().concat();
    sized(&lines.replace([' ', '\n'], ""), size).replace('\n', "")
}

fn inputs() -> Vec<(String, String, bool)> {
    let mut inputs = Vec::new();
    for name in ["prose.txt", "markdown.md", "code.txt"] {
        let text = corpus_or_fixture(name);
        let one = sized(&text, MB);
        let stem = name.split('.').next().unwrap_or(name);
        inputs.push((format!("{stem}-1MB"), one.clone(), true));
        inputs.push((format!("{stem}-10MB"), sized(&one, 10 * MB), false));
    }
    inputs.push(("one-letter-1MB".into(), "a".repeat(MB), false));
    inputs.push(("base64-1MB".into(), base64_noise(MB), false));
    inputs.push(("cjk-1MB".into(), cjk(MB), false));
    inputs
}

fn bench_trim(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let bpe = tiktoken_rs::o200k_base_singleton();
    for (name, text, with_seed) in inputs() {
        let mut group = c.benchmark_group(format!("trim/{name}"));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(3));
        group.bench_function("full_count", |b| {
            b.iter(|| bpe.encode_ordinary(black_box(&text)).len());
        });
        for budget in BUDGETS {
            let kept = trim_to_budget(&text, budget, &counter);
            group.bench_with_input(
                BenchmarkId::new("ctxbudget", budget),
                &budget,
                |b, &budget| {
                    b.iter(|| trim_to_budget(black_box(&text), budget, &counter).len());
                },
            );
            group.bench_with_input(BenchmarkId::new("kept_count", budget), kept, |b, kept| {
                b.iter(|| bpe.encode_ordinary(black_box(kept)).len());
            });
            if with_seed {
                group.bench_with_input(BenchmarkId::new("seed", budget), &budget, |b, &budget| {
                    b.iter(|| seed::trim_to_budget(black_box(&text), budget, &counter).len());
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench_trim);
criterion_main!(benches);
