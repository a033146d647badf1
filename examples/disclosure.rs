//! Section disclosure of a long Markdown file.
//!
//! ```text
//! cargo run --example disclosure                 # the shipped fixture, 400 tokens
//! cargo run --example disclosure -- FILE.md 1000 # your file, your budget
//! ```
//!
//! Prints the estimated cut (estimate budget, note outside it) and the ctxbudget cut
//! measured with cl100k, whose text and note fit the budget together.

use std::process::ExitCode;

use ctxbudget::{
    disclose_within, disclosure::disclosure_trailer, disclosure::estimate,
    disclosure::truncate_at_section_boundary,
};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/aho-corasick-docs.md"
);

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (path, shown_path) = match args.next() {
        Some(path) => (path.clone(), path),
        None => (
            FIXTURE.to_owned(),
            "tests/fixtures/aho-corasick-docs.md".to_owned(),
        ),
    };
    let budget = match args.next().map(|b| b.parse::<usize>()) {
        None => 400,
        Some(Ok(budget)) => budget,
        Some(Err(err)) => {
            eprintln!("the budget must be a whole number of tokens: {err}");
            return ExitCode::FAILURE;
        }
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) => {
            eprintln!("cannot read {path}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let recovery = format!("read {shown_path}");

    let cut = truncate_at_section_boundary(&text, budget);
    let note = disclosure_trailer(cut.shown, cut.total, "lines", &recovery)
        .expect("the recovery action is not blank");
    println!(
        "== truncate_at_section_boundary: estimate budget {budget}, note outside the budget =="
    );
    println!(
        "kept {} of {} lines, estimate {} + note {} tokens",
        cut.shown,
        cut.total,
        estimate(cut.rendered),
        estimate(note.as_str())
    );

    let bpe = tiktoken_rs::cl100k_base_singleton();
    let cl100k = |t: &str| bpe.encode_ordinary(t).len();
    match disclose_within(&text, budget, &cl100k, "lines", &recovery) {
        Ok(out) => {
            println!("\n== ctxbudget: cl100k budget {budget}, text and note together ==");
            println!(
                "kept {} of {} lines, {} cl100k tokens in all\n",
                out.shown, out.total, out.tokens
            );
            println!("{}", out.text());
            // The spend as telemetry: one layer reserved at the budget, and the answer.
            let layers = [("document", budget), ("output", 1_024)];
            let total = budget.saturating_add(1_024);
            let mut usage = match ctxbudget::ContextBudget::new(total, layers) {
                Ok(budget) => budget.usage(),
                Err(err) => {
                    eprintln!("{err}");
                    return ExitCode::FAILURE;
                }
            };
            if let Err(err) = usage.spend("document", out.tokens) {
                eprintln!("{err}");
                return ExitCode::FAILURE;
            }
            println!("\ntelemetry: {}", usage.to_json());
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}
