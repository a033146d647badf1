//! The cost of building a large model catalogue: `Catalogue::insert` of 1,000,000
//! new models (each with one alias) into an empty catalogue, and 40,000 overrides of
//! one model whose alias moves between two names. Inserts are O(1) amortized: the
//! first is about 1,000,000 hash-map inserts, the second about 40,000 plus the
//! alias moves.
//!
//! Also the built-in catalogue: building it from LiteLLM's table and our rows
//! (`Catalogue::build_builtin`, what the first lookup costs; under 20 ms is the
//! bar, and it takes well under one), and looking up names in every form once built.
//!
//! Run with `cargo bench --bench catalogue`. The models are built before the timed
//! region; what is timed is the inserts and dropping the catalogue.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ctxbudget::count::Encoding;
use ctxbudget::models::{ApiFormat, Catalogue, Model, ModelTokenizer, Provider};

fn model(name: String, alias: String) -> Model {
    Model::new(
        name,
        Provider::Other,
        1_000,
        ModelTokenizer::Tiktoken(Encoding::O200kBase),
        ApiFormat::OpenAiChat,
    )
    .with_aliases([alias])
}

fn insert_all(models: Vec<Model>) -> usize {
    let mut catalogue = Catalogue::empty();
    for model in models {
        catalogue.insert(model).expect("names are valid");
    }
    catalogue.len()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalogue");
    group.sample_size(10);
    group.bench_function("insert 1,000,000 models", |b| {
        b.iter_batched(
            || {
                (0..1_000_000)
                    .map(|i| model(format!("m-{i}"), format!("a-{i}")))
                    .collect()
            },
            |models| black_box(insert_all(models)),
            BatchSize::PerIteration,
        );
    });
    group.bench_function("override one model 40,000 times", |b| {
        b.iter_batched(
            || {
                (0..40_000)
                    .map(|i| model("m-7".into(), format!("b-{}", i % 2)).with_context_window(i + 1))
                    .collect()
            },
            |models| black_box(insert_all(models)),
            BatchSize::PerIteration,
        );
    });
    group.bench_function("build the built-in catalogue", |b| {
        b.iter(|| black_box(Catalogue::build_builtin().len()));
    });
    let names = [
        "gpt-4o",
        "openai/gpt-5.5-2026-04-23",
        "claude-sonnet-4-5-20250929",
        "global.anthropic.claude-opus-4-7",
        "models/gemini-3.1-pro-preview",
        "claude-opus-4-6@default",
    ];
    let builtin = Catalogue::builtin();
    group.bench_function("look up 6 names in every form", |b| {
        b.iter(|| {
            names
                .iter()
                .map(|name| {
                    builtin
                        .lookup(black_box(name))
                        .map_or(0, Model::context_window)
                })
                .sum::<usize>()
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
