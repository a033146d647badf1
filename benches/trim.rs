//! Trimming speed on every input shape: ctxbudget against one count of just the
//! text it keeps (the floor for any exact trimmer), all with `o200k_base`.
//!
//! Run with `cargo bench --bench trim` (a filter such as `cargo bench --bench trim
//! -- one-letter` runs the groups whose name holds it). The corpus is
//! `../shared/corpus/` (or `CTXBUDGET_CORPUS`); without it the benches run on the
//! shipped 32 KB fixtures repeated to the same sizes. The shapes are those of
//! `ctxbudget_tests::shapes`, at 1 MB and 10 MB, trimmed to 512, 4,096 and 32,768
//! tokens keeping the head and keeping the tail.
//!
//! Contenders, interleaved in a shuffled order each round (`benches/interleave.rs`):
//! `ctxbudget` (`trim_with`), `floor` (one `bpe-openai` count of the text
//! `ctxbudget` kept: the fastest exact count there is), `floor-tiktoken-rs` (one
//! `tiktoken-rs` count of it: the floor of a trimmer built on `tiktoken-rs`), and,
//! with `CTXBUDGET_BENCH_SEED=1`, the naive algorithm ctxbudget replaces on the 1 MB
//! real texts. The `follow/` groups trim with `Keep::HeadAndTail`, `disclose_within`
//! and `select` on inputs without split points, against one count of what they
//! return. The tables are printed at the end of the run.

// `criterion_group!` generates a public function without docs.
#![allow(missing_docs)]

#[path = "interleave.rs"]
mod interleave;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::select::SelectOptions;
use ctxbudget::{Keep, Tiktoken, TokenCounter, TrimOptions, disclose_within, select, trim_with};
use ctxbudget_tests::shapes::{NAMES, shape};
use interleave::{Contender, Rounds, human, interleaved};

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

fn wanted(group: &str) -> bool {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .all(|filter| group.contains(filter.as_str()))
}

fn bench_trim(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let linear = bpe_openai::o200k_base();
    let classic = tiktoken_rs::o200k_base_singleton();
    let with_seed = std::env::var_os("CTXBUDGET_BENCH_SEED").is_some();
    let mut table = String::from(
        "| input | side | budget | ctxbudget | floor (bpe-openai) | ctxbudget / floor | floor (tiktoken-rs) | ctxbudget / tiktoken-rs floor | naive / ctxbudget |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for name in NAMES {
        for (size, label) in [(MB, "1MB"), (10 * MB, "10MB")] {
            if !wanted(&format!("trim/{name}-{label}")) {
                continue;
            }
            let text = shape(name, size);
            for (side, keep) in [("head", Keep::Head), ("tail", Keep::Tail)] {
                let options = TrimOptions::new().keep(keep);
                for budget in BUDGETS {
                    let group = format!("trim/{name}-{label}/{side}/{budget}");
                    if !wanted(&group) {
                        continue;
                    }
                    let kept = trim_with(&text, budget, &counter, &options).kept;
                    let mut contenders = vec![
                        Contender::new("ctxbudget", || {
                            trim_with(black_box(&text), budget, &counter, &options).tokens
                        }),
                        Contender::new("floor", || linear.count(black_box(kept))),
                        Contender::new("floor-tiktoken-rs", || {
                            classic.encode_ordinary(black_box(kept)).len()
                        }),
                    ];
                    let real = matches!(name, "prose" | "markdown" | "code");
                    if with_seed && real && size == MB && keep == Keep::Head {
                        contenders.push(Contender::new("naive", || {
                            seed::trim_to_budget(black_box(&text), budget, &counter).len()
                        }));
                    }
                    let rounds = interleaved(c, &group, &contenders, 10, Duration::from_secs(1));
                    row(
                        &mut table,
                        &format!("{name}-{label}"),
                        side,
                        budget,
                        &rounds,
                    );
                }
            }
        }
    }
    println!("\n{table}");
}

#[allow(clippy::cast_precision_loss)]
fn row(table: &mut String, input: &str, side: &str, budget: usize, rounds: &Rounds) {
    let ours = rounds.index("ctxbudget");
    let floor = rounds.index("floor");
    let classic = rounds.index("floor-tiktoken-rs");
    let naive = rounds.names.iter().position(|n| n == "naive").map_or_else(
        || "–".to_owned(),
        |naive| format!("{:.0}x", rounds.ratio(naive, ours)),
    );
    let _ = writeln!(
        table,
        "| {input} | {side} | {budget} | {} | {} | {:.2}x | {} | {:.2}x | {naive} |",
        human(rounds.median(ours)),
        human(rounds.median(floor)),
        rounds.ratio(ours, floor),
        human(rounds.median(classic)),
        rounds.ratio(ours, classic),
    );
}

/// `Keep::HeadAndTail`, `disclose_within` and `select` on inputs without split
/// points, against one count of what each returns.
fn bench_follow(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let linear = bpe_openai::o200k_base();
    let mut table = String::from(
        "| operation | input | budget | ctxbudget | floor (bpe-openai) | ctxbudget / floor |\n|---|---|---|---|---|---|\n",
    );
    let both = TrimOptions::new().keep(Keep::HeadAndTail);
    let select_options = SelectOptions::new();
    for name in [
        "one-letter",
        "cjk-nopunct",
        "emoji-zwj",
        "base64-alnum",
        "prose",
    ] {
        for (size, label) in [(MB, "1MB"), (10 * MB, "10MB")] {
            if !wanted(&format!("follow/{name}-{label}")) {
                continue;
            }
            let text = shape(name, size);
            let chunks = [(text.as_str(), 0.9), ("A short chunk.", 0.5)];
            for budget in [4_096, 32_768] {
                #[allow(clippy::type_complexity)]
                let operations: [(&str, Box<dyn Fn() -> String + '_>); 3] = [
                    (
                        "head-and-tail",
                        Box::new(|| {
                            trim_with(black_box(&text), budget, &counter, &both)
                                .text()
                                .into_owned()
                        }),
                    ),
                    (
                        "disclose_within",
                        Box::new(|| {
                            disclose_within(
                                black_box(&text),
                                budget,
                                &counter,
                                "lines",
                                "read the file",
                            )
                            .map(|d| d.text())
                            .unwrap_or_default()
                        }),
                    ),
                    (
                        "select",
                        Box::new(|| {
                            select(black_box(&chunks), budget, &counter, &select_options)
                                .text()
                                .into_owned()
                        }),
                    ),
                ];
                for (operation, run) in &operations {
                    let group = format!("follow/{name}-{label}/{operation}/{budget}");
                    if !wanted(&group) {
                        continue;
                    }
                    let output = run();
                    assert!(counter.count(&output) <= budget);
                    let contenders = [
                        Contender::new("ctxbudget", || run().len()),
                        Contender::new("floor", || linear.count(black_box(output.as_str()))),
                    ];
                    let rounds = interleaved(c, &group, &contenders, 10, Duration::from_secs(1));
                    let _ = writeln!(
                        table,
                        "| {operation} | {name}-{label} | {budget} | {} | {} | {:.2}x |",
                        human(rounds.median(0)),
                        human(rounds.median(1)),
                        rounds.ratio(0, 1),
                    );
                }
            }
        }
    }
    println!("\n{table}");
}

criterion_group!(benches, bench_trim, bench_follow);
criterion_main!(benches);
