//! `ctxbudget batch`: count, trim or fit every line of a JSON-lines data set, on all
//! cores.

mod engine;
mod jsonl;

use std::process::ExitCode;

use clap::{Args, Subcommand};
use ctxbudget::trim_with;

use crate::counter::CounterArgs;
use crate::error::CliError;
use crate::fit::FitSpec;
use crate::input::warn;
use crate::trim::TrimSpec;
use engine::{BatchIo, Done, Failed, Job};
use jsonl::{Line, json_string, parse_line, text_of};

const EXAMPLES: &str = "\
Each input line is a JSON object whose `text` field holds the text (other fields pass
through unchanged; a key given twice means its last value), or a JSON string. Lines
are handled on all cores and written in input order; a bad line is reported with its
line number and does not stop the run. The summary on standard error counts the
lines and names the first bad ones; --errors FILE gets every one. An output that is
the input file, or --errors naming the output, is refused before anything is written.
A reader that stops reading (`| head`) ends the run early, with the summary.
Exit code: 0 when every line was written, 1 when some line was bad input (or the
output could not be written).

Examples:
  ctxbudget batch count --input docs.jsonl --output counted.jsonl
  ctxbudget batch trim --tokens 512 --keep head -i corpus.jsonl -o trimmed.jsonl
  RAYON_NUM_THREADS=1 ctxbudget batch count < docs.jsonl > counted.jsonl";

const FIT_EXAMPLES: &str = "\
Each input line is a request body on one line: OpenAI Chat Completions or Anthropic
Messages JSON (format detected per line unless --format says it). Each is fitted as
`ctxbudget fit` does (counted with its own model's tokenizer unless --model,
--encoding or --tokenizer names one) and written as compact JSON, in input order; a
line that is bad input or cannot fit is reported with its line number and does not
stop the run, and the summary counts the lines whose counts are not exact for their
model.
Exit code: 0 when every line was written, 1 when some line was bad input, 2 when some
line could not fit (and none was bad).

Examples:
  ctxbudget batch fit --model gpt-4o --input requests.jsonl --output fitted.jsonl
  ctxbudget batch fit --max-input 16000 -i requests.jsonl -o fitted.jsonl --errors errors.jsonl";

/// Count, trim or fit every line of a JSON-lines data set, in parallel
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct BatchArgs {
    #[command(subcommand)]
    command: BatchCommand,
}

#[derive(Debug, Subcommand)]
enum BatchCommand {
    /// Add the token count of each line's text: `{"id": 1, "text": "...", "tokens": 42}`
    #[command(after_help = EXAMPLES)]
    Count(BatchCountArgs),
    /// Trim each line's text to a token budget, in place
    #[command(after_help = EXAMPLES)]
    Trim(BatchTrimArgs),
    /// Fit each line's request body (OpenAI or Anthropic JSON) to a model's window
    #[command(after_help = FIT_EXAMPLES)]
    Fit(BatchFitArgs),
}

/// Which field holds the text.
#[derive(Debug, Clone, Args)]
struct FieldArgs {
    /// The field of each JSON object that holds the text
    #[arg(long, value_name = "NAME", default_value = "text")]
    field: String,
}

#[derive(Debug, Args)]
struct BatchCountArgs {
    #[command(flatten)]
    field: FieldArgs,
    /// The field the count is written to (replaced if the object has it)
    #[arg(long, value_name = "NAME", default_value = "tokens")]
    tokens_field: String,
    #[command(flatten)]
    counter: CounterArgs,
    #[command(flatten)]
    io: BatchIo,
}

#[derive(Debug, Args)]
struct BatchTrimArgs {
    #[command(flatten)]
    spec: TrimSpec,
    #[command(flatten)]
    field: FieldArgs,
    /// Also write the token count of the trimmed text to this field
    #[arg(long, value_name = "NAME")]
    tokens_field: Option<String>,
    #[command(flatten)]
    counter: CounterArgs,
    #[command(flatten)]
    io: BatchIo,
}

#[derive(Debug, Args)]
struct BatchFitArgs {
    #[command(flatten)]
    spec: FitSpec,
    #[command(flatten)]
    io: BatchIo,
}

/// Runs a batch command, on `--threads` threads when given (or `RAYON_NUM_THREADS`),
/// at most as many as the machine runs at once.
pub fn run(args: &BatchArgs) -> Result<ExitCode, CliError> {
    let threads = match &args.command {
        BatchCommand::Count(a) => a.io.threads,
        BatchCommand::Trim(a) => a.io.threads,
        BatchCommand::Fit(a) => a.io.threads,
    };
    let (threads, option) = match threads {
        Some(threads) => (threads, "--threads"),
        None => match std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
        {
            Some(threads) => (threads, "RAYON_NUM_THREADS="),
            None => return dispatch(args),
        },
    };
    if threads == 0 {
        return Err(CliError::input(
            "`--threads 0`: give at least 1 thread, or leave the option out to use all cores",
        ));
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let threads = if threads > cores {
        let sep = if option.ends_with('=') { "" } else { " " };
        warn(&format!(
            "`{option}{sep}{threads}` is more threads than the {cores} this machine runs at \
             once: using {cores}"
        ))?;
        cores
    } else {
        threads
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::input(format!("cannot start {threads} threads: {e}")))?;
    pool.install(|| dispatch(args))
}

fn dispatch(args: &BatchArgs) -> Result<ExitCode, CliError> {
    match &args.command {
        BatchCommand::Count(args) => count(args),
        BatchCommand::Trim(args) => trim(args),
        BatchCommand::Fit(args) => fit(args),
    }
}

/// Refuses a count field that is the text's field: the count would replace the text.
fn distinct_fields(field: &str, tokens_field: &str) -> Result<(), CliError> {
    if field == tokens_field {
        return Err(CliError::input(format!(
            "`--tokens-field {tokens_field}` is the text's field too: the count would replace \
             the text; name another field"
        )));
    }
    Ok(())
}

fn count(args: &BatchCountArgs) -> Result<ExitCode, CliError> {
    let field = args.field.field.as_str();
    let tokens_field = args.tokens_field.as_str();
    distinct_fields(field, tokens_field)?;
    let counter = args.counter.load()?;
    let job = Job {
        name: "batch count",
        outcomes: &["counted"],
    };
    engine::run(&args.io, job, |line| {
        let parsed = parse_line(line).map_err(Failed::Bad)?;
        let text = text_of(&parsed, line, field).map_err(Failed::Bad)?;
        let tokens = counter.count(&text).to_string();
        let out = match &parsed {
            Line::Object(object) => object.with(&[(tokens_field, &tokens)]),
            Line::Text(_) => format!("{{{}:{tokens}}}", json_string(tokens_field)),
        };
        Ok(Done {
            line: out,
            outcome: 0,
            warning: None,
        })
    })
}

fn trim(args: &BatchTrimArgs) -> Result<ExitCode, CliError> {
    let options = args.spec.options()?;
    let field = args.field.field.as_str();
    if let Some(tokens_field) = &args.tokens_field {
        distinct_fields(field, tokens_field)?;
    }
    let counter = args.counter.load()?;
    let job = Job {
        name: "batch trim",
        outcomes: &["cut", "unchanged"],
    };
    engine::run(&args.io, job, |line| {
        let parsed = parse_line(line).map_err(Failed::Bad)?;
        let text = text_of(&parsed, line, field).map_err(Failed::Bad)?;
        let trimmed = trim_with(&text, args.spec.tokens, counter.get(), &options);
        let kept = json_string(&trimmed.text());
        let out = match (&parsed, &args.tokens_field) {
            (Line::Object(object), Some(tokens_field)) => {
                let tokens = trimmed.tokens.to_string();
                object.with(&[(field, &kept), (tokens_field, &tokens)])
            }
            (Line::Object(object), None) => object.with(&[(field, &kept)]),
            (Line::Text(_), Some(tokens_field)) => format!(
                "{{{}:{kept},{}:{}}}",
                json_string(field),
                json_string(tokens_field),
                trimmed.tokens
            ),
            (Line::Text(_), None) => kept,
        };
        Ok(Done {
            line: out,
            outcome: usize::from(!trimmed.cut),
            warning: None,
        })
    })
}

fn fit(args: &BatchFitArgs) -> Result<ExitCode, CliError> {
    let spec = args.spec.load()?;
    let job = Job {
        name: "batch fit",
        outcomes: &["trimmed", "unchanged"],
    };
    engine::run(&args.io, job, |line| match spec.fit_body(line) {
        Ok(fitted) => Ok(Done {
            line: fitted.json,
            outcome: usize::from(!fitted.report.trimmed()),
            warning: fitted.warning,
        }),
        Err(error) if error.is_does_not_fit() => Err(Failed::Over(error.to_string())),
        Err(error) => Err(Failed::Bad(error.to_string())),
    })
}
