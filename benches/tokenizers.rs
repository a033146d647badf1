//! Trimming speed with the Hugging Face and Tekken counters against the floor: one
//! count of just the kept text with the same counter.
//!
//! Counters: Anthropic's `tokenizer.json` (NFKC + `ByteLevel`), Mistral 7B's
//! converted `tokenizer.json` (`Metaspace` without `split`), DeepSeek V4's
//! `tokenizer.json` (digit, CJK and word `Split` stages) and Mistral Nemo's
//! `tekken_240718.json`, all from `tests/fixtures/tokenizers/`. Inputs: the shipped
//! prose, Markdown and code fixtures, each repeated to 1 MB (and, for DeepSeek,
//! the multilingual one, for its CJK stage).
//!
//! Run with `cargo bench --bench tokenizers`. Ids:
//! `tokenizers/<counter>/<input>/<approach>/<budget>` where approach is `head` and
//! `tail` (`trim_with`, keeping the beginning or the end) and `head_floor` and
//! `tail_floor` (one count of what each kept); the ratio to report is `head` over
//! `head_floor` (and `tail` over `tail_floor`).

// `criterion_group!` generates a public function without docs.
#![allow(missing_docs)]

use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ctxbudget::count::{HuggingFace, Tekken};
use ctxbudget::{Keep, TokenCounter, TrimOptions, trim_with};
use ctxbudget_tests::{CODE, MARKDOWN, MULTILINGUAL, PROSE, floor_char_boundary};

const BUDGETS: [usize; 3] = [512, 4_096, 32_768];
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

const INPUTS: [(&str, &str); 3] = [("prose", PROSE), ("markdown", MARKDOWN), ("code", CODE)];

fn bench_counter(
    c: &mut Criterion,
    name: &str,
    counter: &dyn TokenCounter,
    inputs: &[(&str, &str)],
) {
    for &(input, text) in inputs {
        let text = sized(text, MB);
        let mut group = c.benchmark_group(format!("tokenizers/{name}/{input}-1MB"));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(2));
        for budget in BUDGETS {
            for (side, keep) in [("head", Keep::Head), ("tail", Keep::Tail)] {
                let options = TrimOptions::new().keep(keep);
                let kept = trim_with(&text, budget, counter, &options).kept;
                group.bench_with_input(BenchmarkId::new(side, budget), &budget, |b, &budget| {
                    b.iter(|| trim_with(black_box(&text), budget, counter, &options).tokens);
                });
                group.bench_with_input(
                    BenchmarkId::new(format!("{side}_floor"), budget),
                    kept,
                    |b, kept| b.iter(|| counter.count(black_box(kept))),
                );
            }
        }
        group.finish();
    }
}

fn bench_tokenizers(c: &mut Criterion) {
    let anthropic = HuggingFace::from_bytes(gunzip("anthropic-tokenizer.json.gz"))
        .expect("the Anthropic tokenizer loads");
    let mistral = HuggingFace::from_bytes(gunzip("mistral-v1-tokenizer.json.gz"))
        .expect("the Mistral tokenizer loads");
    let tekken =
        Tekken::from_bytes(gunzip("tekken_240718.json.gz")).expect("the Tekken file loads");
    let deepseek = HuggingFace::from_bytes(gunzip("deepseek-v4-tokenizer.json.gz"))
        .expect("the DeepSeek tokenizer loads");
    bench_counter(c, "hf-anthropic", &anthropic, &INPUTS);
    bench_counter(c, "hf-mistral-v1", &mistral, &INPUTS);
    let mut with_cjk = INPUTS.to_vec();
    with_cjk.push(("multilingual", MULTILINGUAL));
    bench_counter(c, "hf-deepseek-v4", &deepseek, &with_cjk);
    bench_counter(c, "tekken", &tekken, &INPUTS);
}

criterion_group!(benches, bench_tokenizers);
criterion_main!(benches);
