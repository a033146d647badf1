//! `ctxbudget count`: the tokens of files or standard input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::counter::CounterArgs;
use crate::error::CliError;
use crate::fit::{FormatArg, count_body};
use crate::input::{Output, Source, eprint_line, warn};

const EXAMPLES: &str = "\
Examples:
  ctxbudget count README.md
  cat notes.txt | ctxbudget count --encoding cl100k_base
  ctxbudget count --tokenizer llama-3.1/tokenizer.json docs/*.md
  ctxbudget count --chat request.json
  ctxbudget count --chat --model claude-sonnet-4-5 --format anthropic request.json

With --chat and no --model, --encoding or --tokenizer, the body's own `model` chooses
the counter; for a model the catalogue does not know, o200k_base counts and a warning
on standard error says the count is not exact.";

/// Count the tokens of files or standard input
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct CountArgs {
    #[command(flatten)]
    counter: CounterArgs,
    /// Read a provider request body (OpenAI Chat Completions or Responses, Anthropic
    /// Messages, Gemini generateContent or Bedrock Converse JSON, format detected) and print the input tokens the provider bills for it:
    /// messages with their overhead, tool definitions, images
    #[arg(long)]
    chat: bool,
    /// With --chat: the body's wire format [default: detected from the body]
    #[arg(long, value_enum, requires = "chat")]
    format: Option<FormatArg>,
    /// The files to count; `-` or none reads standard input. With several files, one
    /// `COUNT<TAB>PATH` line each and a total
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Prints the count of one input, or a `COUNT<TAB>PATH` line for each of several and
/// their total. A file that cannot be read is reported and the others are still
/// counted; the exit code is then 1.
pub fn run(args: &CountArgs) -> Result<ExitCode, CliError> {
    let mut out = Output::stdout();
    if args.chat {
        if args.files.len() > 1 {
            return Err(CliError::input(
                "`--chat` counts one request body: pass one file (or `-` for standard input)",
            ));
        }
        let counters = args.counter.for_requests()?;
        let source = Source::from_arg(args.files.first().map(PathBuf::as_path));
        let (tokens, warning) = count_body(&source.read_text()?, args.format, &counters)?;
        out.write(format!("{tokens}\n").as_bytes())?;
        out.flush()?;
        if let Some(warning) = warning {
            warn(&warning)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let counter = args.counter.load()?;
    if args.files.len() <= 1 {
        let source = Source::from_arg(args.files.first().map(PathBuf::as_path));
        let text = source.read_text()?;
        out.write(format!("{}\n", counter.count(&text)).as_bytes())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut total = 0usize;
    let mut failed = false;
    for path in &args.files {
        let source = Source::from_arg(Some(path));
        match source.read_text() {
            Ok(text) => {
                let tokens = counter.count(&text);
                total = total.saturating_add(tokens);
                out.write(format!("{tokens}\t{}\n", source.label()).as_bytes())?;
            }
            Err(error) => {
                out.flush()?;
                eprint_line(&format!("error: {error}"))?;
                failed = true;
            }
        }
    }
    out.write(format!("{total}\ttotal\n").as_bytes())?;
    out.flush()?;
    Ok(if failed {
        ExitCode::from(crate::error::EXIT_BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}
