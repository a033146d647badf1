//! `ctxbudget batch`: count, trim or fit every line of a JSON-lines data set, on all
//! cores.

mod engine;
mod files;
mod jsonl;
mod tally;

use std::ffi::OsString;
use std::fmt;
use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use ctxbudget::{TrimOptions, trim_with};
use indicatif::ProgressBar;

use crate::counter::{Counter, CounterArgs};
use crate::error::CliError;
use crate::fit::{FitSpec, Fitter};
use crate::input::warn;
use crate::trim::TrimSpec;
use engine::{Done, Failed, Ran};
use files::BatchIo;
use jsonl::{Line, json_string, parse_line, text_of};
use tally::Job;

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

/// A `batch` command (`count`, `trim` or `fit`) with its counter loaded, run over
/// any reader and writer: the engine of `ctxbudget batch`, without its files, its
/// threads option or its progress bar.
///
/// ```
/// use ctxbudget_cli::Batch;
///
/// let batch = Batch::from_args(["count", "--encoding", "cl100k_base"])?;
/// let input = "{\"id\": 7, \"text\": \"hello world\"}\n\n[1]\n\"hi\"\n";
/// let (mut output, mut errors) = (Vec::new(), Vec::new());
/// let summary = batch.run(&mut input.as_bytes(), &mut output, Some(&mut errors));
/// assert_eq!(
///     String::from_utf8(output)?,
///     "{\"id\":7,\"text\":\"hello world\",\"tokens\":2}\n{\"tokens\":1}\n"
/// );
/// assert!(String::from_utf8(errors)?.starts_with("{\"line\":3,\"error\":"));
/// assert_eq!((summary.lines(), summary.blank(), summary.written(), summary.bad()), (4, 1, 2, 1));
/// assert_eq!(summary.exit_code(), 1);
/// assert!(summary.to_string().starts_with("ctxbudget batch count: 4 lines, 2 written, 1 error"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Batch {
    handler: Handler,
}

/// Parses the words after `ctxbudget batch`.
#[derive(Debug, Parser)]
#[command(name = "ctxbudget batch")]
struct BatchCli {
    #[command(flatten)]
    batch: BatchArgs,
}

impl Batch {
    /// Reads the arguments that follow `ctxbudget batch` (`["trim", "--tokens",
    /// "512"]`) and loads the counter, the trim options or the fitter they name.
    /// `--input`, `--output`, `--errors` and `--threads` are accepted and not used:
    /// [`run`](Self::run) takes its streams, and handles lines on the current rayon
    /// pool (the global one outside any).
    ///
    /// # Errors
    ///
    /// Arguments the command line would refuse, with the same message (an unknown
    /// option, a missing `--tokens`, an unknown encoding or model, a tokenizer file
    /// that cannot be used).
    pub fn from_args<I, T>(args: I) -> Result<Self, CliError>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let words =
            std::iter::once(OsString::from("batch")).chain(args.into_iter().map(Into::into));
        let cli = BatchCli::try_parse_from(words)
            .map_err(|error| CliError::input(error.to_string().trim_end()))?;
        Ok(Batch {
            handler: Handler::load(&cli.batch.command)?,
        })
    }

    /// Handles every line of `input` as `ctxbudget batch` does: one line of `output`
    /// for each line that succeeded, in input order; one line of `errors` (when given)
    /// for each that failed; blank lines skipped; a byte order mark at the start
    /// skipped. Both writers are flushed before it returns. A writer that fails stops
    /// the run (see [`BatchSummary::error`]); one that fails with
    /// [`BrokenPipe`](std::io::ErrorKind::BrokenPipe) ends it without an error, as a
    /// reader that went away does. The calling thread reads and writes; the pool's
    /// threads parse, handle and serialize the lines.
    pub fn run(
        &self,
        input: &mut dyn BufRead,
        output: &mut dyn Write,
        errors: Option<&mut dyn Write>,
    ) -> BatchSummary {
        let handler = &self.handler;
        let job = handler.job();
        let ran = engine::stream(
            input,
            output,
            errors,
            job,
            &|line: &str| handler.line(line),
            &ProgressBar::hidden(),
            None,
        );
        BatchSummary { ran, job }
    }
}

/// What a [`Batch::run`] did with the lines: the counts its summary gives, the exit
/// code, and why it stopped early if it did. `Display` writes the summary as `batch`
/// prints it.
#[derive(Debug)]
pub struct BatchSummary {
    ran: Ran,
    job: Job,
}

impl BatchSummary {
    /// The lines read, blank ones included.
    #[must_use]
    pub fn lines(&self) -> usize {
        self.ran.tally().lines()
    }

    /// The blank lines (skipped: neither written nor an error).
    #[must_use]
    pub fn blank(&self) -> usize {
        self.ran.tally().blank()
    }

    /// The lines written to the output: the sum of [`outcomes`](Self::outcomes).
    #[must_use]
    pub fn written(&self) -> usize {
        self.ran.tally().outcomes().iter().sum()
    }

    /// The lines written, by outcome as the summary names them (`counted`; `cut`
    /// and `unchanged`; `trimmed` and `unchanged`).
    pub fn outcomes(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        self.job
            .outcomes
            .iter()
            .copied()
            .zip(self.ran.tally().outcomes().iter().copied())
    }

    /// The lines that were bad input (each one line of the errors writer).
    #[must_use]
    pub fn bad(&self) -> usize {
        self.ran.tally().bad()
    }

    /// The lines that could not fit their budget (each one line of the errors
    /// writer).
    #[must_use]
    pub fn over(&self) -> usize {
        self.ran.tally().over()
    }

    /// The lines written whose counts are not exact for their request's model.
    #[must_use]
    pub fn not_exact(&self) -> usize {
        self.ran.tally().warned()
    }

    /// The exit code `batch` ends with: 0 when every line was written, 1 when a line
    /// was bad input or a writer failed, 2 when some line could not fit (and none
    /// was bad).
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        self.ran.exit_code()
    }

    /// Why the run stopped before the end of the input: the input could not be read,
    /// or a writer failed. `None` when it read to the end or the output's reader
    /// went away.
    #[must_use]
    pub fn error(&self) -> Option<CliError> {
        self.ran.error()
    }

    /// Whether the output's writer failed with a broken pipe (its reader went away)
    /// and the run ended there.
    #[must_use]
    pub fn closed(&self) -> bool {
        self.ran.closed()
    }
}

impl fmt::Display for BatchSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ran.summary().trim_end())
    }
}

/// Runs a batch command, on `--threads` threads when given (or `RAYON_NUM_THREADS`),
/// at most as many as the machine runs at once.
pub fn run(args: &BatchArgs) -> Result<ExitCode, CliError> {
    let threads = args.io().threads;
    let (threads, option) = match threads {
        Some(threads) => (threads, "--threads"),
        None => match std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
        {
            Some(threads) => (threads, "RAYON_NUM_THREADS="),
            None => return dispatch(args, None),
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
    dispatch(args, Some(&pool))
}

/// Runs the command on `pool`'s threads (the global pool's when `None`); this
/// thread reads and writes.
fn dispatch(args: &BatchArgs, pool: Option<&rayon::ThreadPool>) -> Result<ExitCode, CliError> {
    let handler = Handler::load(&args.command)?;
    engine::run(args.io(), handler.job(), |line| handler.line(line), pool)
}

impl BatchArgs {
    fn io(&self) -> &BatchIo {
        match &self.command {
            BatchCommand::Count(a) => &a.io,
            BatchCommand::Trim(a) => &a.io,
            BatchCommand::Fit(a) => &a.io,
        }
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

/// A batch command with what it needs loaded (the counter, the trim options, the
/// fitter): what becomes of one line.
#[derive(Debug)]
enum Handler {
    Count {
        field: String,
        tokens_field: String,
        counter: Counter,
    },
    Trim {
        field: String,
        tokens_field: Option<String>,
        tokens: usize,
        options: TrimOptions,
        counter: Counter,
    },
    Fit(Box<Fitter>),
}

impl Handler {
    /// Checks the options and loads the counter or the fitter.
    fn load(command: &BatchCommand) -> Result<Self, CliError> {
        Ok(match command {
            BatchCommand::Count(args) => {
                distinct_fields(&args.field.field, &args.tokens_field)?;
                Handler::Count {
                    field: args.field.field.clone(),
                    tokens_field: args.tokens_field.clone(),
                    counter: args.counter.load()?,
                }
            }
            BatchCommand::Trim(args) => {
                let options = args.spec.options()?;
                if let Some(tokens_field) = &args.tokens_field {
                    distinct_fields(&args.field.field, tokens_field)?;
                }
                Handler::Trim {
                    field: args.field.field.clone(),
                    tokens_field: args.tokens_field.clone(),
                    tokens: args.spec.tokens,
                    options,
                    counter: args.counter.load()?,
                }
            }
            BatchCommand::Fit(args) => Handler::Fit(Box::new(args.spec.load()?)),
        })
    }

    fn job(&self) -> Job {
        match self {
            Handler::Count { .. } => Job {
                name: "batch count",
                outcomes: &["counted"],
            },
            Handler::Trim { .. } => Job {
                name: "batch trim",
                outcomes: &["cut", "unchanged"],
            },
            Handler::Fit(_) => Job {
                name: "batch fit",
                outcomes: &["trimmed", "unchanged"],
            },
        }
    }

    /// What becomes of one line (not blank, UTF-8, without its line end).
    fn line(&self, line: &str) -> Result<Done, Failed> {
        match self {
            Handler::Count {
                field,
                tokens_field,
                counter,
            } => {
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
            }
            Handler::Trim {
                field,
                tokens_field,
                tokens,
                options,
                counter,
            } => {
                let parsed = parse_line(line).map_err(Failed::Bad)?;
                let text = text_of(&parsed, line, field).map_err(Failed::Bad)?;
                let trimmed = trim_with(&text, *tokens, counter.get(), options);
                let kept = json_string(&trimmed.text());
                let out = match (&parsed, tokens_field) {
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
            }
            Handler::Fit(spec) => match spec.fit_body(line) {
                Ok(fitted) => Ok(Done {
                    line: fitted.json,
                    outcome: usize::from(!fitted.report.trimmed()),
                    warning: fitted.warning,
                }),
                Err(error) if error.is_does_not_fit() => Err(Failed::Over(error.to_string())),
                Err(error) => Err(Failed::Bad(error.to_string())),
            },
        }
    }
}
