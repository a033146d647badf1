//! `ctxbudget trim`: cut a text down to a token budget at the strongest boundary.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use ctxbudget::trim::Trimmed;
use ctxbudget::{Keep, TrimOptions, trim_with};
use serde_json::json;

use crate::counter::{Counter, CounterArgs};
use crate::error::CliError;
use crate::input::{Output, Source, eprint_line};

const EXAMPLES: &str = "\
Examples:
  ctxbudget trim --tokens 1000 README.md > README.short.md
  git log | ctxbudget trim --tokens 2000 --keep head
  tail -n 5000 app.log | ctxbudget trim --tokens 8000 --keep tail --report
  ctxbudget trim --tokens 500 --keep both --marker $'\\n[... cut ...]\\n' notes.md";

/// Which part of a text that is over budget to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeepArg {
    /// The beginning (documents, instructions)
    Head,
    /// The end (logs, chat transcripts)
    Tail,
    /// The beginning and the end, with the middle replaced by the marker
    Both,
}

impl KeepArg {
    /// The library's [`Keep`].
    pub fn keep(self) -> Keep {
        match self {
            KeepArg::Head => Keep::Head,
            KeepArg::Tail => Keep::Tail,
            KeepArg::Both => Keep::HeadAndTail,
        }
    }

    /// The name `--keep` takes.
    pub fn name(self) -> &'static str {
        match self {
            KeepArg::Head => "head",
            KeepArg::Tail => "tail",
            KeepArg::Both => "both",
        }
    }
}

/// How to trim: the budget, the kept part, the marker. Shared by `trim` and
/// `batch trim`.
#[derive(Debug, Clone, Args)]
pub struct TrimSpec {
    /// The token budget: the output costs at most this many tokens
    #[arg(long, short = 'n', value_name = "N")]
    pub tokens: usize,
    /// Which part to keep when the text is over the budget
    #[arg(long, short = 'k', value_enum, default_value_t = KeepArg::Head)]
    pub keep: KeepArg,
    /// With `--keep both`: the text that replaces the cut middle; its tokens count
    /// [default: "\n[…]\n"]
    #[arg(long, value_name = "TEXT")]
    pub marker: Option<String>,
    /// The least share of what fits (0 to 1) that a paragraph, line or sentence cut
    /// must keep to be chosen over a word cut nearer the budget
    #[arg(long, value_name = "SHARE", default_value_t = TrimOptions::DEFAULT_MIN_FILL)]
    pub min_fill: f64,
}

impl TrimSpec {
    /// The library's options for this spec.
    ///
    /// # Errors
    ///
    /// A marker given without `--keep both`.
    pub fn options(&self) -> Result<TrimOptions, CliError> {
        let mut options = TrimOptions::new()
            .keep(self.keep.keep())
            .with_min_fill(self.min_fill);
        if let Some(marker) = &self.marker {
            if self.keep != KeepArg::Both {
                return Err(CliError::input(format!(
                    "`--marker` is only used with `--keep both` (not `--keep {}`): add \
                     `--keep both` or leave the marker out",
                    self.keep.name()
                )));
            }
            options = options.with_elision(marker.clone());
        }
        Ok(options)
    }
}

/// Cut a text down to a token budget, at a paragraph, line, sentence or word
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct TrimArgs {
    #[command(flatten)]
    spec: TrimSpec,
    /// Print a one-line JSON report on standard error: tokens, budget, whether and
    /// where the text was cut
    #[arg(long)]
    report: bool,
    #[command(flatten)]
    counter: CounterArgs,
    /// The text to trim; `-` or none reads standard input
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Writes the trimmed text, byte for byte a prefix or suffix of the input (for
/// `--keep both`, a prefix, the marker and a suffix), with nothing added; a byte
/// order mark the input starts with is not part of the text.
pub fn run(args: &TrimArgs) -> Result<ExitCode, CliError> {
    let options = args.spec.options()?;
    let counter = args.counter.load()?;
    let text = Source::from_arg(args.file.as_deref()).read_text()?;
    let trimmed = trim_with(&text, args.spec.tokens, counter.get(), &options);
    let mut out = Output::stdout();
    out.write(trimmed.text().as_bytes())?;
    out.flush()?;
    if args.report {
        eprint_line(&report(&text, &trimmed, &counter, args.spec.keep))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The one-line JSON report of a trim.
pub fn report(input: &str, trimmed: &Trimmed<'_>, counter: &Counter, keep: KeepArg) -> String {
    let tail = trimmed
        .tail
        .map(|tail| [input.len() - tail.len(), input.len()]);
    json!({
        "tokens": trimmed.tokens,
        "budget": trimmed.budget,
        "cut": trimmed.cut,
        "boundary": trimmed.boundary.map(ctxbudget::trim::Boundary::name),
        "keep": keep.name(),
        "input_bytes": input.len(),
        "output_bytes": trimmed.text().len(),
        "kept_range": [trimmed.kept_range.start, trimmed.kept_range.end],
        "tail_range": tail,
        "counter": counter.name(),
    })
    .to_string()
}
