//! The Claude counter: counting speed against the `HuggingFace` counter of a
//! `tokenizer.json` (Anthropic's published one, the closest in kind), trimming
//! against one count of the kept text on every input shape, and the Claude
//! estimate against the exact counts.
//!
//! Run with `cargo bench --bench claude` (`CTXBUDGET_CORPUS` names the corpus folder;
//! the shipped fixtures stand in without it). A plain timer, not criterion: medians
//! of `ROUNDS` runs (`CLAUDE_BENCH_ROUNDS`, 7 by default), printed as Markdown
//! tables. `CLAUDE_BENCH=count|trim|estimate` runs one part;
//! `CLAUDE_BENCH_SHAPES=one-letter,emoji-zwj` trims those shapes only.

// Ratios of times and counts are printed as floats.
#![allow(missing_docs, clippy::cast_precision_loss)]

use std::fmt::Write as _;

use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ctxbudget::count::{Claude, ClaudeGeneration, HuggingFace, ModelEstimate};
use ctxbudget::{Keep, TokenCounter, TrimOptions, trim_with};
use ctxbudget_tests::corpus_or_fixture;
use ctxbudget_tests::shapes::{NAMES, shape};

const MB: usize = 1_000_000;
const BUDGETS: [usize; 3] = [512, 4_096, 32_768];

fn rounds() -> usize {
    std::env::var("CLAUDE_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(7)
}

fn median(mut run: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..rounds())
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn anthropic_tokenizer() -> HuggingFace {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tokenizers/anthropic-tokenizer.json.gz");
    let compressed = std::fs::read(path).expect("the tokenizer fixtures are shipped");
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut bytes)
        .expect("a gzip file");
    HuggingFace::from_bytes(bytes).expect("the Anthropic tokenizer loads")
}

/// The shapes to trim: `CLAUDE_BENCH_SHAPES` (comma-separated), or all of them.
fn trim_shapes() -> Vec<&'static str> {
    let only = std::env::var("CLAUDE_BENCH_SHAPES").unwrap_or_default();
    NAMES
        .into_iter()
        .filter(|name| only.is_empty() || only.split(',').any(|wanted| wanted == *name))
        .collect()
}

fn part(name: &str) -> bool {
    std::env::var("CLAUDE_BENCH").map_or(true, |only| only == name)
}

fn main() {
    let generations = ClaudeGeneration::ALL.map(Claude::new);
    let start = Instant::now();
    let _ = generations[0].count("warm up");
    let _ = generations[1].count("warm up");
    println!("vocabularies loaded in {:?}\n", start.elapsed());
    if part("count") {
        counting(generations);
    }
    if part("trim") {
        trimming(generations);
    }
    if part("estimate") {
        estimating(generations);
    }
}

fn counting(generations: [Claude; 3]) {
    {
        let hf = anthropic_tokenizer();
        println!("| input (1 MB) | v3 | v4.7 | v4.8 | HuggingFace (Anthropic tokenizer.json) |");
        println!("| --- | --- | --- | --- | --- |");
        for name in NAMES {
            let text = shape(name, MB);
            let rate = |counter: &dyn TokenCounter| {
                let time = median(|| {
                    black_box(counter.count(black_box(&text)));
                });
                format!(
                    "{:.1} MB/s ({} tokens)",
                    text.len() as f64 / 1e6 / time.as_secs_f64(),
                    counter.count(&text)
                )
            };
            println!(
                "| {name} | {} | {} | {} | {} |",
                rate(&generations[0]),
                rate(&generations[1]),
                rate(&generations[2]),
                rate(&hf)
            );
        }
        println!();
    }
}

fn trimming(generations: [Claude; 3]) {
    {
        println!("Trimming 1 MB: trim_with / one count of the kept text (median times)\n");
        for counter in &generations {
            println!("### {}\n", counter.generation());
            println!(
                "| input | head 512 | head 4,096 | head 32,768 | tail 512 | tail 4,096 | tail 32,768 |"
            );
            println!("| --- | --- | --- | --- | --- | --- | --- |");
            for name in trim_shapes() {
                let text = shape(name, MB);
                let mut row = format!("| {name} |");
                for keep in [Keep::Head, Keep::Tail] {
                    let options = TrimOptions::new().keep(keep);
                    for budget in BUDGETS {
                        let kept = trim_with(&text, budget, counter, &options).kept;
                        let trim = median(|| {
                            black_box(
                                trim_with(black_box(&text), budget, counter, &options).tokens,
                            );
                        });
                        let floor = median(|| {
                            black_box(counter.count(black_box(kept)));
                        });
                        let _ = write!(row, " {:.2}x |", trim.as_secs_f64() / floor.as_secs_f64());
                    }
                }
                println!("{row}");
            }
            println!();
        }
    }
}

fn estimating(generations: [Claude; 3]) {
    {
        let estimate = ModelEstimate::claude();
        println!("| 200 KB of | estimate | v3 | v4.7 | v4.8 | estimate / max(v4.7, v4.8) |");
        println!("| --- | --- | --- | --- | --- | --- |");
        for name in ["prose.txt", "markdown.md", "code.txt"] {
            let text = corpus_or_fixture(name);
            let end = ctxbudget_tests::floor_char_boundary(&text, 200_000);
            let text = &text[..end];
            let counts = generations.map(|c| c.count(text));
            let guess = estimate.count(text);
            println!(
                "| {name} | {guess} | {} | {} | {} | {:.3} |",
                counts[0],
                counts[1],
                counts[2],
                guess as f64 / counts[1].max(counts[2]) as f64
            );
        }
        println!();
        // The lowest estimate / exact ratio over slices of every length, without
        // the margin: the margin a Claude estimate needs to stay above the newest
        // generation is 1 / that ratio.
        let bare = estimate.with_margin_percent(0);
        println!(
            "| shape | lowest (estimate without margin) / max(v4.7, v4.8), by slice length: 16 | 64 | 256 | 1,024 | 4,096 | 16,384 |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- |");
        for name in NAMES {
            let text = shape(name, 300_000);
            let mut row = format!("| {name} |");
            for length in [16usize, 64, 256, 1_024, 4_096, 16_384] {
                let mut lowest = f64::MAX;
                for k in 0..60 {
                    let start = ctxbudget_tests::floor_char_boundary(
                        &text,
                        (k * 7_919) % (text.len() - length),
                    );
                    let end = ctxbudget_tests::floor_char_boundary(&text, start + length);
                    let slice = &text[start..end];
                    let exact = generations[1]
                        .count(slice)
                        .max(generations[2].count(slice))
                        .max(1);
                    lowest = lowest.min(bare.count(slice) as f64 / exact as f64);
                }
                let _ = write!(row, " {lowest:.3} |");
            }
            println!("{row}");
        }
    }
}
