//! Ranked retrieval chunks selected under a few budgets.
//!
//! ```text
//! cargo run --example retrieval
//! ```
//!
//! The chunks are paragraphs of the shipped prose fixture (the Python language
//! reference), merged to about 100-300 tokens each, with made-up relevance scores.
//! For each budget it prints what was kept whole, what was cut (and where), how many
//! chunks were dropped, and the exact o200k count of the joined text.

use ctxbudget::{Tiktoken, TokenCounter, select, select::SelectOptions, select::Selection};
use ctxbudget_tests::PROSE;

/// Consecutive paragraphs of `text`, merged until each has at least `min_bytes`.
fn chunks(text: &str, min_bytes: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut end = 0;
    for paragraph in text.split("\n\n") {
        end += paragraph.len();
        if end - start >= min_bytes {
            out.push(text[start..end].trim());
            start = end + 2;
        }
        end += 2;
    }
    out
}

/// A made-up relevance score in `0.0..1.0`, the same on every run.
fn score(index: usize) -> f64 {
    let mut x = (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    #[allow(clippy::cast_precision_loss)]
    let score = (x % 1000) as f64 / 1000.0;
    score
}

fn preview(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut preview: String = line.chars().take(48).collect();
    if preview.len() < text.len() {
        preview.push('…');
    }
    preview
}

fn report(title: &str, selection: &Selection<'_>, bpe: &Tiktoken) {
    let stats = selection.stats();
    println!("== {title}");
    for chosen in &selection.chunks {
        let how = match chosen.cut {
            Some(boundary) => format!("cut at a {boundary} boundary"),
            None => "whole".to_owned(),
        };
        println!(
            "  #{:<3} score {:.3}  {:>4} tokens  {how:<26} {}",
            chosen.index,
            chosen.score,
            chosen.tokens,
            preview(chosen.text)
        );
    }
    let dropped = selection.dropped();
    let shown: Vec<String> = dropped.iter().take(12).map(|i| format!("#{i}")).collect();
    let more = if dropped.len() > shown.len() {
        " …"
    } else {
        ""
    };
    println!("  dropped: {}{more}", shown.join(" "));
    println!(
        "  given {}, used {}, dropped {}, cut {}; {} of {} tokens (checked: {})",
        stats.given,
        stats.used,
        stats.dropped,
        stats.cut,
        stats.tokens,
        stats.budget,
        bpe.count(&selection.text()),
    );
    println!();
}

fn main() {
    let bpe = Tiktoken::o200k_base();
    let texts = chunks(PROSE, 700);
    let ranked: Vec<(&str, f64)> = texts
        .iter()
        .enumerate()
        .map(|(i, &text)| (text, score(i)))
        .collect();
    let sizes: Vec<usize> = texts.iter().map(|t| bpe.count(t)).collect();
    println!(
        "{} chunks of the prose fixture, {}..={} o200k tokens each, {} in all\n",
        ranked.len(),
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0),
        sizes.iter().sum::<usize>(),
    );

    let options = SelectOptions::new();
    for budget in [300, 1_200, 2_500] {
        let selection = select(&ranked, budget, &bpe, &options);
        report(
            &format!("budget {budget}, stop at the first misfit"),
            &selection,
            &bpe,
        );
    }
    let scanning = options.with_keep_scanning(true);
    let selection = select(&ranked, 1_200, &bpe, &scanning);
    report(
        "budget 1200, keep scanning for smaller chunks",
        &selection,
        &bpe,
    );

    let mut usage = RetrievalPromptUsage::new();
    match usage.spend(RetrievalPromptLayer::Retrieval, selection.tokens) {
        Ok(()) => println!("telemetry: {}", usage.to_json()),
        Err(err) => eprintln!("{err}"),
    }
}

ctxbudget::budget! {
    /// A prompt with a retrieval layer and room for the answer.
    RetrievalPrompt(total = 2_000) { retrieval: 1_200, output: 800 }
}
