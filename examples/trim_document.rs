//! Trims a real document to a few budgets and prints what was kept, its exact
//! token count and the boundary the cut used.
//!
//! ```sh
//! cargo run --example trim_document                      # the bundled README excerpts
//! cargo run --example trim_document -- path/to/file.md 50 500
//! ```

use std::error::Error;

use ctxbudget::{Keep, Tiktoken, TokenCounter, TrimOptions, trim_with};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let (name, text) = match args.next() {
        Some(path) => {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
            (path, text)
        }
        None => (
            "tests/fixtures/markdown.md (bundled)".to_owned(),
            ctxbudget_tests::MARKDOWN.to_owned(),
        ),
    };
    let mut budgets = args
        .map(|arg| {
            arg.parse::<usize>()
                .map_err(|e| format!("budget {arg:?} is not a token count: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if budgets.is_empty() {
        budgets = vec![40, 200, 1_000];
    }

    let counter = Tiktoken::o200k_base();
    println!(
        "{name}: {} bytes, {} tokens (o200k_base)\n",
        text.len(),
        counter.count(&text)
    );
    for budget in budgets {
        for keep in [Keep::Head, Keep::Tail] {
            let result = trim_with(&text, budget, &counter, &TrimOptions::new().keep(keep));
            let boundary = result.boundary.map_or("none (fits)", |b| b.name());
            println!(
                "=== budget {budget}, keep {keep:?}: {} tokens ({:.0}% of the budget), cut at a {boundary} boundary, bytes {:?} ===",
                result.tokens,
                result.fill() * 100.0,
                result.kept_range,
            );
            println!("{}\n", result.kept);
        }
    }
    Ok(())
}
