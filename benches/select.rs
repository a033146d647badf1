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
use ctxbudget_tests::{corpus_or_fixture, ranked_chunks};

const CHUNKS: usize = 1_000;

fn bench(c: &mut Criterion) {
    let bpe = Tiktoken::o200k_base();
    let text = corpus_or_fixture("prose.txt");
    let ranked = ranked_chunks(&text, CHUNKS, &bpe);
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
