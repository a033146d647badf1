//! How well the trimming engine uses the budget on real text: the mean fill (kept
//! tokens / budget) and the share of cuts that end at a sentence or stronger
//! boundary, for ctxbudget's policy and for the naive one (the coarsest level that
//! keeps anything, `with_min_fill(0.0)`).
//!
//! ```sh
//! cargo run --release --example fill_report    # ../shared/corpus, or the fixtures
//! ```

use ctxbudget::{Keep, Tiktoken, TrimOptions, trim::Boundary, trim_with};
use ctxbudget_tests::{CODE, MARKDOWN, PROSE, corpus, floor_char_boundary};

const BUDGETS: [usize; 5] = [128, 512, 2_048, 8_192, 32_768];
const STARTS: usize = 24;

fn main() {
    let counter = Tiktoken::o200k_base();
    let files = [
        ("markdown", "markdown.md", MARKDOWN),
        ("prose", "prose.txt", PROSE),
        ("code", "code.txt", CODE),
    ];
    let policies = [
        ("ctxbudget (min_fill 0.8)", TrimOptions::new()),
        (
            "coarsest level (min_fill 0.0)",
            TrimOptions::new().with_min_fill(0.0),
        ),
    ];
    println!("| text | keep | policy | cuts | mean fill | sentence or stronger |");
    println!("|---|---|---|---|---|---|");
    for (label, file, fixture) in files {
        let text = corpus(file).unwrap_or_else(|| fixture.to_owned());
        for keep in [Keep::Head, Keep::Tail] {
            for (policy, options) in &policies {
                let options = options.clone().keep(keep);
                let (mut cuts, mut fill, mut strong) = (0usize, 0.0f64, 0usize);
                for budget in BUDGETS {
                    for start in 0..STARTS {
                        // Windows that start all over the text, each long enough to
                        // need a cut.
                        let from = floor_char_boundary(&text, text.len() * start / STARTS / 2);
                        let to = floor_char_boundary(&text, (from + budget * 12).min(text.len()));
                        let window = &text[from..to];
                        let result = trim_with(window, budget, &counter, &options);
                        if !result.cut {
                            continue;
                        }
                        cuts += 1;
                        fill += result.fill();
                        strong +=
                            usize::from(result.boundary.is_some_and(|b| b <= Boundary::Sentence));
                    }
                }
                #[allow(clippy::cast_precision_loss)]
                let (mean, share) = (
                    fill / cuts.max(1) as f64,
                    strong as f64 / cuts.max(1) as f64,
                );
                println!(
                    "| {label} | {keep:?} | {policy} | {cuts} | {:.1}% | {:.1}% |",
                    mean * 100.0,
                    share * 100.0
                );
            }
        }
    }
}
