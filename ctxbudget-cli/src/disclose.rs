//! `ctxbudget disclose`: the start of a Markdown document, cut at a section
//! boundary, and a note that says how to read the rest, together within a budget.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use ctxbudget::disclose_within;
use ctxbudget::disclosure::DisclosureError;
use serde_json::json;

use crate::counter::CounterArgs;
use crate::error::CliError;
use crate::input::{Output, Source, eprint_line};

const EXAMPLES: &str = "\
Examples:
  ctxbudget disclose --tokens 2000 --recovery 'read AGENTS.md' AGENTS.md
  curl -s https://example.com/api.md | ctxbudget disclose -n 4000 --recovery 'fetch the API docs'";

/// Show the start of a Markdown document, cut at a section boundary, with a note on
/// how to read the rest
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct DiscloseArgs {
    /// The token budget of the shown text and its note together
    #[arg(long, short = 'n', value_name = "N")]
    tokens: usize,
    /// What the reader can do to see the full text, as the note says it
    /// (`<truncated: showing 40 of 300 lines; full text: TEXT>`)
    #[arg(long, short = 'r', value_name = "TEXT")]
    recovery: String,
    /// What the note counts
    #[arg(long, value_name = "UNIT", default_value = "lines")]
    unit: String,
    /// Print a one-line JSON report on standard error: lines shown and total, tokens
    #[arg(long)]
    report: bool,
    #[command(flatten)]
    counter: CounterArgs,
    /// The document; `-` or none reads standard input
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Writes the shown lines and the note, exactly the text that was counted. When even
/// the note alone is over the budget, the exit code is 2 and the message says the
/// least budget that works.
pub fn run(args: &DiscloseArgs) -> Result<ExitCode, CliError> {
    let counter = args.counter.load()?;
    let text = Source::from_arg(args.file.as_deref()).read_text()?;
    let disclosed = disclose_within(
        &text,
        args.tokens,
        counter.get(),
        &args.unit,
        &args.recovery,
    )
    .map_err(|error| match error {
        DisclosureError::BlankRecovery => CliError::input(
            "the recovery text is blank: pass what the reader can do to see the full text, \
                 e.g. `--recovery 'read AGENTS.md'`",
        ),
        DisclosureError::BudgetTooSmall { .. } => CliError::does_not_fit(error.to_string()),
        other => CliError::input(other.to_string()),
    })?;
    let mut out = Output::stdout();
    out.write(disclosed.text().as_bytes())?;
    out.flush()?;
    if args.report {
        let report = json!({
            "tokens": disclosed.tokens,
            "budget": args.tokens,
            "shown": disclosed.shown,
            "total": disclosed.total,
            "truncated": disclosed.truncated,
            "counter": counter.name(),
        });
        eprint_line(&report.to_string())?;
    }
    Ok(ExitCode::SUCCESS)
}
