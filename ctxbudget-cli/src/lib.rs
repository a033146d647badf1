//! The `ctxbudget` command: count, trim and disclose text within a token budget from
//! the shell, and do it for whole JSON-lines data sets on all cores.
//!
//! Every command is a thin layer over the `ctxbudget` library: the counting and
//! cutting are the library's, this crate reads files, parses arguments and prints.
//! The binary is [`main`]; [`Batch`] runs the engine of `ctxbudget batch` over any
//! reader and writer (the fuzz target of `batch` drives it in memory).
//!
//! Exit codes: 0 success, 1 bad input or arguments (or output that could not be
//! written), 2 valid input that cannot fit its budget.

mod batch;
mod count;
mod counter;
mod disclose;
mod error;
mod fit;
mod input;
mod models;
mod trim;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use crate::batch::{Batch, BatchSummary};
pub use crate::error::CliError;
use crate::error::EXIT_BAD_INPUT;

const EXAMPLES: &str = "\
Examples:
  ctxbudget count README.md
  git diff | ctxbudget trim --tokens 4000 --keep head
  ctxbudget fit --model gpt-4o request.json > fitted.json
  ctxbudget batch trim --tokens 512 --input corpus.jsonl --output trimmed.jsonl
  ctxbudget models claude

Counting uses the o200k_base encoding (GPT-4o, GPT-4.1, GPT-5) unless --encoding,
--tokenizer or --model says otherwise; a request body (fit, count --chat, batch fit)
is counted with its own model's tokenizer.
Exit codes: 0 success, 1 bad input or arguments (or output that could not be
written), 2 valid input that cannot fit.";

/// Count, trim and disclose text within a token budget
#[derive(Debug, Parser)]
#[command(name = "ctxbudget", version, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the tokens of files or standard input
    Count(count::CountArgs),
    /// Cut a text down to a token budget, at a paragraph, line, sentence or word
    Trim(trim::TrimArgs),
    /// Show the start of a Markdown document, cut at a section boundary, with a note
    /// on how to read the rest
    Disclose(disclose::DiscloseArgs),
    /// Trim an OpenAI or Anthropic request body to a model's window by removing
    /// whole messages
    Fit(fit::FitArgs),
    /// List the models --model knows: context window, output limit, tokenizer
    Models(models::ModelsArgs),
    /// Count, trim or fit every line of a JSON-lines data set, in parallel
    Batch(batch::BatchArgs),
}

/// Runs the `ctxbudget` command with the process's arguments, reading and writing the
/// process's files and standard streams, and returns its exit code.
#[must_use]
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // `--help` and `--version` print to stdout and succeed; a usage error
            // is bad input (exit code 1, not clap's 2, which means "does not fit"),
            // and so is help that could not be written.
            let printed = error.print();
            return if error.use_stderr() || printed.is_err() {
                ExitCode::from(EXIT_BAD_INPUT)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(&cli) {
        Ok(code) => code,
        Err(error) => {
            // Where standard error cannot be written either, the exit code says it.
            let _ = input::eprint_line(&format!("error: {error}"));
            error.exit_code()
        }
    }
}

fn run(cli: &Cli) -> Result<ExitCode, CliError> {
    match &cli.command {
        Command::Count(args) => count::run(args),
        Command::Trim(args) => trim::run(args),
        Command::Disclose(args) => disclose::run(args),
        Command::Fit(args) => fit::run(args),
        Command::Models(args) => models::run(args),
        Command::Batch(args) => batch::run(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
