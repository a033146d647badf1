//! One operation, for `valgrind --tool=callgrind`: instruction counts do not
//! depend on the load of a shared machine, so their ratios are exact where the
//! clock is noisy. Every contender runs inside `measured`, which callgrind is told
//! to count alone (the function `counted`, after one warm-up run):
//!
//! ```text
//! cargo bench --bench instructions --no-run
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='instructions::counted' \
//!     target/release/deps/instructions-<hash> <contender> <shape> <bytes> <head|tail> <budget>
//! ```
//!
//! An optional last argument picks another counter than `o200k` (`Tiktoken`):
//! `hf-anthropic`, `hf-mistral-v1`, `hf-deepseek-v4` (Hugging Face `tokenizer.json` files) or
//! `tekken` (Mistral Nemo's), from `tests/fixtures/tokenizers/`; then `contender`
//! is `ctxbudget` or `floor` (one count of what it keeps, with the same counter).
//!
//! `contender` is `ctxbudget` (`trim_with`), `floor` (one `bpe-openai` count of
//! the text `ctxbudget` keeps), `floor-tiktoken-rs` (one `tiktoken-rs` count of
//! it), `count` (one `Tiktoken` count of the whole input), `count-bpe-openai` and
//! `count-tiktoken-rs`, or `head-and-tail`, `disclose_within` and `select` (the
//! last three ignore the side). `benches/instructions.sh` runs the table of
//! `BENCHMARKS.md`. Without arguments (as `cargo bench` runs it) it does nothing.

use std::hint::black_box;

use std::io::Read;

use ctxbudget::count::{HuggingFace, Tekken};
use ctxbudget::select::SelectOptions;
use ctxbudget::{Keep, Tiktoken, TokenCounter, TrimOptions, disclose_within, select, trim_with};
use ctxbudget_tests::shapes::shape;

/// Runs `run` once to warm what a process builds on first use (the regular
/// expressions' lazy automata, allocations), then once more inside the function
/// callgrind counts: the table is the steady state of a long-running process.
#[inline(never)]
fn measured(run: &dyn Fn() -> usize) -> usize {
    black_box(run());
    counted(run)
}

#[inline(never)]
fn counted(run: &dyn Fn() -> usize) -> usize {
    black_box(run())
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let (contender, name, bytes, side, budget, counter_name) = match args.as_slice() {
        [contender, name, bytes, side, budget] => (contender, name, bytes, side, budget, "o200k"),
        [contender, name, bytes, side, budget, counter] => {
            (contender, name, bytes, side, budget, counter.as_str())
        }
        _ => return,
    };
    if counter_name != "o200k" {
        other_counter(counter_name, contender, name, bytes, side, budget);
        return;
    }
    let bytes: usize = bytes.parse().expect("bytes is a number");
    let budget: usize = budget.parse().expect("budget is a number");
    let keep = if side == "tail" {
        Keep::Tail
    } else {
        Keep::Head
    };
    let text = shape(name, bytes);
    let counter = Tiktoken::o200k_base();
    let linear = bpe_openai::o200k_base();
    let classic = || tiktoken_rs::o200k_base_singleton();
    let options = TrimOptions::new().keep(keep);
    let kept = || trim_with(&text, budget, &counter, &options).kept;
    // Load the vocabularies before the measured part (tiktoken-rs only when used).
    black_box((counter.count("a"), linear.count("a")));
    if contender.contains("tiktoken-rs") {
        black_box(classic().encode_ordinary("a"));
    }
    // And the split-point patterns, compiled on a process's first trim (about 11
    // million instructions, once): the table is the steady state.
    black_box(trim_with(
        "Warm up. The lazy tables, 12 of them.",
        3,
        &counter,
        &options,
    ));
    black_box((
        counter.next_split("a, b", 0),
        counter.prev_split("日本語", 9),
    ));
    let both = TrimOptions::new().keep(Keep::HeadAndTail);
    let chunks = [(text.as_str(), 0.9), ("A short chunk.", 0.5)];
    let tokens = match contender.as_str() {
        "ctxbudget" => measured(&|| trim_with(&text, budget, &counter, &options).tokens),
        "floor" => {
            let kept = kept();
            measured(&|| linear.count(kept))
        }
        "floor-tiktoken-rs" => {
            let kept = kept();
            measured(&|| classic().encode_ordinary(kept).len())
        }
        "count" => measured(&|| counter.count(&text)),
        "count-bpe-openai" => measured(&|| linear.count(text.as_str())),
        "count-tiktoken-rs" => measured(&|| classic().encode_ordinary(&text).len()),
        "head-and-tail" => measured(&|| trim_with(&text, budget, &counter, &both).tokens),
        "head-and-tail-floor" => {
            let output = trim_with(&text, budget, &counter, &both)
                .text()
                .into_owned();
            measured(&|| linear.count(output.as_str()))
        }
        "disclose_within" => measured(&|| {
            disclose_within(&text, budget, &counter, "lines", "read the file")
                .map_or(0, |d| d.tokens)
        }),
        "disclose_within-floor" => {
            let output = disclose_within(&text, budget, &counter, "lines", "read the file")
                .map(|d| d.text())
                .unwrap_or_default();
            measured(&|| linear.count(output.as_str()))
        }
        "select" => measured(&|| select(&chunks, budget, &counter, &SelectOptions::new()).tokens),
        "select-floor" => {
            let output = select(&chunks, budget, &counter, &SelectOptions::new())
                .text()
                .into_owned();
            measured(&|| linear.count(output.as_str()))
        }
        other => panic!("unknown contender {other}"),
    };
    println!("{contender} {name} {bytes} {side} {budget}: {tokens} tokens");
}

fn gunzip(name: &str) -> Vec<u8> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tokenizers")
        .join(name);
    let compressed = std::fs::read(path).expect("the tokenizer fixtures are shipped");
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut bytes)
        .expect("the tokenizer fixtures are gzip files");
    bytes
}

/// Trimming with a Hugging Face or Tekken counter against one count of what it
/// keeps with the same counter.
fn other_counter(
    counter_name: &str,
    contender: &str,
    name: &str,
    bytes: &str,
    side: &str,
    budget: &str,
) {
    let counter: Box<dyn TokenCounter> = match counter_name {
        "hf-anthropic" => {
            Box::new(HuggingFace::from_bytes(gunzip("anthropic-tokenizer.json.gz")).expect("loads"))
        }
        "hf-mistral-v1" => Box::new(
            HuggingFace::from_bytes(gunzip("mistral-v1-tokenizer.json.gz")).expect("loads"),
        ),
        "hf-deepseek-v4" => Box::new(
            HuggingFace::from_bytes(gunzip("deepseek-v4-tokenizer.json.gz")).expect("loads"),
        ),
        "tekken" => Box::new(Tekken::from_bytes(gunzip("tekken_240718.json.gz")).expect("loads")),
        other => panic!("unknown counter {other}"),
    };
    let counter = counter.as_ref();
    let bytes: usize = bytes.parse().expect("bytes is a number");
    let budget: usize = budget.parse().expect("budget is a number");
    let keep = if side == "tail" {
        Keep::Tail
    } else {
        Keep::Head
    };
    let text = shape(name, bytes);
    let options = TrimOptions::new().keep(keep);
    // Warm up what a process builds on first use, on this very input.
    let kept = trim_with(&text, budget, counter, &options).kept;
    black_box(counter.count(kept));
    let tokens = match contender {
        "ctxbudget" => measured(&|| trim_with(&text, budget, counter, &options).tokens),
        "floor" => measured(&|| counter.count(kept)),
        other => panic!("unknown contender {other} for {counter_name}"),
    };
    println!("{contender} {name} {bytes} {side} {budget} {counter_name}: {tokens} tokens");
}
