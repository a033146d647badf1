//! Selecting from 1,000 ranked chunks of real prose (100-300 o200k tokens
//! each) under 4k and 32k budgets, against counting every chunk once.
//!
//! Run with `cargo bench --bench select`. The chunks are paragraphs of the benchmark
//! corpus (`../shared/corpus/prose.txt`) when it is there, else of the shipped prose
//! fixture (repeated), merged to at least 700 bytes each, of 100-300 tokens.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::{Tiktoken, TokenCounter, select, select::SelectOptions};
use ctxbudget_tests::corpus_or_fixture;

const CHUNKS: usize = 1_000;
const MIN_BYTES: usize = 700;
const MAX_BYTES: usize = 1_400;

/// Paragraphs of `text` merged to `MIN_BYTES..=MAX_BYTES` (longer paragraphs alone),
/// cycling through the text until there are `CHUNKS`.
fn chunks(text: &str) -> Vec<&str> {
    let paragraphs: Vec<&str> = text
        .split("\n\n")
        .filter(|p| !p.trim().is_empty() && p.len() <= MAX_BYTES)
        .collect();
    let mut out = Vec::with_capacity(CHUNKS);
    let mut i = 0;
    while out.len() < CHUNKS {
        // A run of consecutive paragraphs is a sub-slice of `text`.
        let first = paragraphs[i % paragraphs.len()];
        let start = first.as_ptr() as usize - text.as_ptr() as usize;
        let mut end = start + first.len();
        i += 1;
        while end - start < MIN_BYTES && i % paragraphs.len() != 0 {
            let next = paragraphs[i % paragraphs.len()];
            let next_start = next.as_ptr() as usize - text.as_ptr() as usize;
            if next_start + next.len() - start > MAX_BYTES {
                break;
            }
            end = next_start + next.len();
            i += 1;
        }
        out.push(&text[start..end]);
    }
    out
}

/// A made-up relevance score in `0.0..1.0`, the same on every run.
fn score(index: usize) -> f64 {
    let mut x = (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    #[allow(clippy::cast_precision_loss)]
    let score = (x % 10_000) as f64 / 10_000.0;
    score
}

fn bench(c: &mut Criterion) {
    let bpe = Tiktoken::o200k_base();
    let text = corpus_or_fixture("prose.txt");
    // Keep the chunks of 100..=300 tokens, cycling through them up to `CHUNKS`.
    let sized: Vec<&str> = chunks(&text)
        .into_iter()
        .filter(|t| (100..=300).contains(&bpe.count(t)))
        .collect();
    let ranked: Vec<(&str, f64)> = sized
        .iter()
        .copied()
        .cycle()
        .take(CHUNKS)
        .enumerate()
        .map(|(i, t)| (t, score(i)))
        .collect();
    let counts: Vec<usize> = ranked.iter().map(|(t, _)| bpe.count(t)).collect();
    eprintln!(
        "{} chunks, {}..={} tokens each (median {}), {} in all",
        ranked.len(),
        counts.iter().min().unwrap_or(&0),
        counts.iter().max().unwrap_or(&0),
        {
            let mut sorted = counts.clone();
            sorted.sort_unstable();
            sorted[sorted.len() / 2]
        },
        counts.iter().sum::<usize>(),
    );
    let options = SelectOptions::new();
    for budget in [4_096, 32_768] {
        let selection = select(&ranked, budget, &bpe, &options);
        let stats = selection.stats();
        eprintln!(
            "budget {budget}: {} chunks used ({} cut), {} tokens",
            stats.used, stats.cut, stats.tokens
        );
    }

    let mut group = c.benchmark_group("select_1000_chunks");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("count_every_chunk_once", |b| {
        b.iter(|| {
            black_box(&ranked)
                .iter()
                .map(|(t, _)| bpe.count(t))
                .sum::<usize>()
        });
    });
    for budget in [4_096, 32_768] {
        group.bench_function(format!("select_{}k", budget / 1024), |b| {
            b.iter(|| select(black_box(&ranked), budget, &bpe, &options).tokens);
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
