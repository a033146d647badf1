//! Counting speed per counter and input shape: ctxbudget's `Tiktoken` against
//! `bpe-openai` (the linear baseline) and `tiktoken-rs`, in `o200k_base` and
//! `cl100k_base`, on 1 MB of the corpus files and of the worst cases of a
//! byte-pair tokenizer (see `ctxbudget_tests::shapes`).
//!
//! Run with `cargo bench --bench counting`. The contenders run interleaved, in a
//! shuffled order each round (see `benches/interleave.rs`); the table printed at
//! the end gives each one's median, its MB/s, and the median over rounds of its
//! time over `bpe-openai`'s.

// `criterion_group!` generates a public function without docs.
#![allow(missing_docs)]

#[path = "interleave.rs"]
mod interleave;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::{Tiktoken, TokenCounter};
use ctxbudget_tests::shapes::{NAMES, shape};
use interleave::{Contender, Rounds, human, interleaved};

const MB: usize = 1_000_000;

fn bench_counting(c: &mut Criterion) {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut table = String::from(
        "| encoding | input | tokens | ctxbudget | bpe-openai | tiktoken-rs | ctxbudget / bpe-openai | tiktoken-rs / bpe-openai |\n|---|---|---|---|---|---|---|---|\n",
    );
    let encodings = [
        (
            "o200k_base",
            Tiktoken::o200k_base(),
            bpe_openai::o200k_base(),
            tiktoken_rs::o200k_base_singleton(),
        ),
        (
            "cl100k_base",
            Tiktoken::cl100k_base(),
            bpe_openai::cl100k_base(),
            tiktoken_rs::cl100k_base_singleton(),
        ),
    ];
    for name in NAMES {
        let text = shape(name, MB);
        for (encoding, counter, linear, classic) in &encodings {
            let group = format!("counting/{encoding}/{name}-1MB");
            if filter.as_ref().is_some_and(|f| !group.contains(f.as_str())) {
                continue;
            }
            let tokens = counter.count(&text);
            assert_eq!(tokens, linear.count(text.as_str()));
            let contenders = [
                Contender::new("ctxbudget", || counter.count(black_box(&text))),
                Contender::new("bpe-openai", || linear.count(black_box(text.as_str()))),
                Contender::new("tiktoken-rs", || {
                    classic.encode_ordinary(black_box(&text)).len()
                }),
            ];
            let rounds = interleaved(c, &group, &contenders, 10, Duration::from_secs(3));
            row(&mut table, encoding, name, tokens, text.len(), &rounds);
        }
    }
    println!("\n{table}");
}

#[allow(clippy::cast_precision_loss)]
fn row(
    table: &mut String,
    encoding: &str,
    name: &str,
    tokens: usize,
    bytes: usize,
    rounds: &Rounds,
) {
    let cell = |index: usize| {
        let median = rounds.median(index);
        let rate = bytes as f64 / 1e6 / median.as_secs_f64().max(1e-12);
        format!("{} ({rate:.1} MB/s)", human(median))
    };
    let base = rounds.index("bpe-openai");
    let ours = rounds.index("ctxbudget");
    let classic = rounds.index("tiktoken-rs");
    let _ = writeln!(
        table,
        "| {encoding} | {name} | {tokens} | {} | {} | {} | {:.2}x | {:.2}x |",
        cell(ours),
        cell(base),
        cell(classic),
        rounds.ratio(ours, base),
        rounds.ratio(classic, base),
    );
}

criterion_group!(benches, bench_counting);
criterion_main!(benches);
