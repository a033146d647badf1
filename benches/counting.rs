//! Counting speed per counter and input shape, on 1 MB of the corpus files and of
//! the worst cases of a byte-pair tokenizer (see `ctxbudget_tests::shapes`):
//!
//! - ctxbudget's `Tiktoken` against `bpe-openai` (the linear baseline) and
//!   `tiktoken-rs`, in `o200k_base` and `cl100k_base`;
//! - ctxbudget's `HuggingFace` against the `tokenizers` crate's own
//!   `encode(text, false)`, with Anthropic's and Mistral 7B's `tokenizer.json`;
//! - ctxbudget's `Tekken` alone (Mistral Nemo's vocabulary; its reference,
//!   `mistral-common`, is Python).
//!
//! Run with `cargo bench --bench counting`. The contenders run interleaved, in a
//! shuffled order each round (see `benches/interleave.rs`); the tables printed at
//! the end give each one's median, its MB/s, and the median over rounds of its
//! time over the baseline's. `CTXBUDGET_DUMP_SHAPES=<dir>` writes the inputs there
//! and exits, for `benches/python/counting.py` (the Python tokenizers' rates).

// `criterion_group!` generates a public function without docs.
#![allow(missing_docs)]

#[path = "interleave.rs"]
mod interleave;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use std::io::Read;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use ctxbudget::count::{HuggingFace, Tekken};
use ctxbudget::{Tiktoken, TokenCounter};
use ctxbudget_tests::shapes::{NAMES, shape};
use interleave::{Contender, Rounds, human, interleaved};

const MB: usize = 1_000_000;

fn gunzip(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tokenizers")
        .join(name);
    let compressed = std::fs::read(path).expect("the tokenizer fixtures are shipped");
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut bytes)
        .expect("the tokenizer fixtures are gzip files");
    bytes
}

fn bench_counting(c: &mut Criterion) {
    if let Some(dir) = std::env::var_os("CTXBUDGET_DUMP_SHAPES") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("the dump directory can be made");
        for name in NAMES {
            std::fs::write(dir.join(format!("{name}.txt")), shape(name, MB))
                .expect("the shape can be written");
        }
        return;
    }
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    bench_tiktoken(c, filter.as_deref());
    bench_files(c, filter.as_deref());
}

/// Hugging Face and Tekken files: ctxbudget's counters against the `tokenizers`
/// crate's own encoding (Tekken has no Rust baseline).
fn bench_files(c: &mut Criterion, filter: Option<&str>) {
    let mut table = String::from(
        "| counter | input | tokens | ctxbudget | tokenizers crate | ctxbudget / tokenizers |\n|---|---|---|---|---|---|\n",
    );
    let files = [
        ("hf-anthropic", "anthropic-tokenizer.json.gz"),
        ("hf-mistral-v1", "mistral-v1-tokenizer.json.gz"),
    ];
    for (label, file) in files {
        let bytes = gunzip(file);
        let counter = HuggingFace::from_bytes(&bytes).expect("the fixture loads");
        let raw = tokenizers::Tokenizer::from_bytes(&bytes).expect("the fixture loads");
        for name in NAMES {
            let group = format!("counting/{label}/{name}-1MB");
            if filter.is_some_and(|f| !group.contains(f)) {
                continue;
            }
            let text = shape(name, MB);
            let tokens = counter.count(&text);
            let encode = || {
                raw.encode_fast(black_box(text.as_str()), false)
                    .map_or(0, |e| e.len())
            };
            assert_eq!(tokens, encode());
            let contenders = [
                Contender::new("ctxbudget", || counter.count(black_box(&text))),
                Contender::new("tokenizers", encode),
            ];
            let rounds = interleaved(c, &group, &contenders, 10, Duration::from_secs(3));
            let cell = |index: usize| rate_cell(text.len(), &rounds, index);
            let (ours, base) = (rounds.index("ctxbudget"), rounds.index("tokenizers"));
            let _ = writeln!(
                table,
                "| {label} | {name} | {tokens} | {} | {} | {:.2}x |",
                cell(ours),
                cell(base),
                rounds.ratio(ours, base),
            );
        }
    }
    let tekken = Tekken::from_bytes(gunzip("tekken_240718.json.gz")).expect("the fixture loads");
    for name in NAMES {
        let group = format!("counting/tekken/{name}-1MB");
        if filter.is_some_and(|f| !group.contains(f)) {
            continue;
        }
        let text = shape(name, MB);
        let tokens = tekken.count(&text);
        let contenders = [Contender::new("ctxbudget", || {
            tekken.count(black_box(&text))
        })];
        let rounds = interleaved(c, &group, &contenders, 10, Duration::from_secs(3));
        let _ = writeln!(
            table,
            "| tekken | {name} | {tokens} | {} | – | – |",
            rate_cell(text.len(), &rounds, 0),
        );
    }
    println!("\n{table}");
}

#[allow(clippy::cast_precision_loss)]
fn rate_cell(bytes: usize, rounds: &Rounds, index: usize) -> String {
    let median = rounds.median(index);
    let rate = bytes as f64 / 1e6 / median.as_secs_f64().max(1e-12);
    format!("{} ({rate:.1} MB/s)", human(median))
}

/// The OpenAI encodings: ctxbudget's `Tiktoken` against `bpe-openai` and
/// `tiktoken-rs`.
fn bench_tiktoken(c: &mut Criterion, filter: Option<&str>) {
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
            if filter.is_some_and(|f| !group.contains(f)) {
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

fn row(
    table: &mut String,
    encoding: &str,
    name: &str,
    tokens: usize,
    bytes: usize,
    rounds: &Rounds,
) {
    let cell = |index: usize| rate_cell(bytes, rounds, index);
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
