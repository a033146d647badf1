//! Assembling eleven layers of about 100 KB each to about 1,000 tokens per layer,
//! against trimming each layer alone (the bar: at most twice the sum), as a
//! string prompt and as messages.
//!
//! Run with `cargo bench --bench assemble`; it prints both medians and their ratio
//! at the end. The layers are cut from the benchmark corpus (`../shared/corpus/`)
//! when it is there, else from the shipped fixtures, repeated to 100 KB.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use ctxbudget::assemble::AssembleOptions;
use ctxbudget::{ContextLayers, Tiktoken, TrimOptions, trim_with};

const LAYER_BYTES: usize = 100_000;

/// Eleven layers of 1,000 tokens; the separators fit in the unreserved 264.
#[derive(ContextLayers)]
#[context(total = 12_288, output = 1_024)]
struct Eleven {
    #[budget(tokens = 1_000)]
    l0: String,
    #[budget(tokens = 1_000)]
    l1: String,
    #[budget(tokens = 1_000)]
    l2: String,
    #[budget(tokens = 1_000)]
    l3: String,
    #[budget(tokens = 1_000)]
    l4: String,
    #[budget(tokens = 1_000)]
    l5: String,
    #[budget(tokens = 1_000)]
    l6: String,
    #[budget(tokens = 1_000)]
    l7: String,
    #[budget(tokens = 1_000)]
    l8: String,
    #[budget(tokens = 1_000)]
    l9: String,
    #[budget(tokens = 1_000)]
    l10: String,
}

/// About 100 KB of real text for layer `k`: prose, Markdown and code in turn, each
/// layer starting at a different place.
fn layer_text(k: usize) -> String {
    let name = ["prose.txt", "markdown.md", "code.txt"][k % 3];
    let source = ctxbudget_tests::corpus_or_fixture(name);
    let start = ctxbudget_tests::floor_char_boundary(&source, (k * 7_919) % source.len());
    let mut text = String::with_capacity(LAYER_BYTES + source.len());
    text.push_str(&source[start..]);
    while text.len() < LAYER_BYTES {
        text.push_str(&source);
    }
    let end = ctxbudget_tests::floor_char_boundary(&text, LAYER_BYTES);
    text.truncate(end);
    text
}

fn bench(c: &mut Criterion) {
    let counter = Tiktoken::o200k_base();
    let texts: Vec<String> = (0..11).map(layer_text).collect();
    let t = |i: usize| texts[i].clone();
    let context = Eleven {
        l0: t(0),
        l1: t(1),
        l2: t(2),
        l3: t(3),
        l4: t(4),
        l5: t(5),
        l6: t(6),
        l7: t(7),
        l8: t(8),
        l9: t(9),
        l10: t(10),
    };
    let options = TrimOptions::new();
    let mut group = c.benchmark_group("assemble");
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("trim_each_layer", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|text| trim_with(black_box(text), 1_000, &counter, &options).tokens)
                .sum::<usize>()
        });
    });
    group.bench_function("assemble_11_layers", |b| {
        b.iter(|| black_box(&context).assemble(&counter).map(|a| a.tokens));
    });
    // The same layers as messages (every layer text: ten in the system message, the
    // last as the user message), counted in OpenAI's chat format.
    let options = AssembleOptions::new();
    group.bench_function("assemble_11_layers_messages", |b| {
        b.iter(|| {
            black_box(&context)
                .assemble_messages(&counter, &options)
                .map(|a| a.tokens)
        });
    });
    group.finish();
    let assembled = context.assemble(&counter).map(|a| (a.tokens, a.limit));
    println!("assembled prompt (tokens, limit): {assembled:?}");
}

criterion_group!(benches, bench);

/// The median of a finished benchmark, in nanoseconds.
fn median(name: &str) -> Option<f64> {
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".to_owned());
    let path = format!("{target}/criterion/assemble/{name}/new/estimates.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    json["median"]["point_estimate"].as_f64()
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if let (Some(trim), Some(assemble)) = (median("trim_each_layer"), median("assemble_11_layers"))
    {
        println!(
            "medians: trim each layer {:.2} ms, assemble {:.2} ms; ratio {:.2} (bar: 2.00)",
            trim / 1e6,
            assemble / 1e6,
            assemble / trim
        );
        if let Some(messages) = median("assemble_11_layers_messages") {
            println!(
                "as messages: {:.2} ms; ratio to trimming each layer {:.2}",
                messages / 1e6,
                messages / trim
            );
        }
    }
}
