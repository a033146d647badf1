//! `ctxbudget fit`: trim a provider request body (OpenAI Chat Completions or Anthropic
//! Messages) to its model's window by removing whole messages.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use ctxbudget::models::Model;
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::{
    FittedRequest, InputLimit, RequestCount, RequestError, RequestFitter, RequestFormat,
    RequestReport, WireRequest, detect_format,
};
use serde_json::json;

use crate::counter::{Counter, CounterArgs, lookup_model};
use crate::error::CliError;
use crate::input::{Output, Source};

const EXAMPLES: &str = "\
The body's format is detected (a top-level `system`, Anthropic's block types, OpenAI's
roles and parts) unless --format says it. Whole messages are removed, oldest first;
system messages, the latest user message and every tool call with its results stay.
--model sets the counter and the limit: the model's window less the body's
`max_tokens` (or `max_completion_tokens`), else less the model's output limit (4,096
for models whose output shares the window).
The fitted body goes to standard output, the report to standard error.
Exit codes: 0 it fits (trimmed or not), 1 bad input, 2 what must stay is over the limit.

Examples:
  ctxbudget fit --model gpt-4o request.json > fitted.json
  ctxbudget fit --model claude-sonnet-4-5 --max-input 32000 --report-json - < body.json
  ctxbudget fit --max-input 16000 --encoding cl100k_base --format openai request.json";

/// The wire format `--format` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`)
    Openai,
    /// Anthropic Messages (`POST /v1/messages`)
    Anthropic,
}

impl FormatArg {
    /// The library's format.
    pub fn format(self) -> RequestFormat {
        match self {
            FormatArg::Openai => RequestFormat::OpenAiChat,
            FormatArg::Anthropic => RequestFormat::AnthropicMessages,
        }
    }
}

/// A request body read in its format.
#[derive(Debug)]
pub enum Request {
    /// OpenAI Chat Completions.
    OpenAi(ChatRequest),
    /// Anthropic Messages.
    Anthropic(MessagesRequest),
}

impl Request {
    /// Reads `body` in `format`, or in the format detected from the body.
    ///
    /// # Errors
    ///
    /// The library's message for a body that is not JSON or not of the format's
    /// shape, with the line and column.
    pub fn parse(body: &str, format: Option<FormatArg>) -> Result<Self, CliError> {
        let format = match format {
            Some(format) => format.format(),
            None => detect_format(body).map_err(|e| CliError::input(e.to_string()))?,
        };
        let request = match format {
            RequestFormat::AnthropicMessages => {
                MessagesRequest::from_json(body).map(Self::Anthropic)
            }
            _ => ChatRequest::from_json(body).map(Self::OpenAi),
        };
        request.map_err(|e| CliError::input(e.to_string()))
    }

    /// What the request costs as its provider bills its input.
    pub fn count(&self, counter: &Counter) -> RequestCount {
        let fitter = RequestFitter::new(counter.get());
        match self {
            Request::OpenAi(request) => fitter.count(request),
            Request::Anthropic(request) => fitter.count(request),
        }
    }
}

/// How to fit: the counter, the model's window and the input limit. Shared by `fit`
/// and `batch fit`.
#[derive(Debug, Clone, Args)]
pub struct FitSpec {
    #[command(flatten)]
    counter: CounterArgs,
    /// At most this many input tokens; with --model, the lower of this and the
    /// model's window less the output reserved
    #[arg(long, value_name = "N")]
    max_input: Option<usize>,
    /// The body's wire format [default: detected from the body]
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
}

/// A loaded [`FitSpec`]: fits requests, on any thread.
#[derive(Debug, Clone)]
pub struct Fitter {
    counter: Counter,
    model: Option<&'static Model>,
    max_input: Option<usize>,
    format: Option<FormatArg>,
}

/// A request fitted: the body as compact JSON and the report.
#[derive(Debug)]
pub struct Fitted {
    /// The fitted body, compact JSON on one line.
    pub json: String,
    /// What fitting did.
    pub report: RequestReport,
}

impl FitSpec {
    /// Loads the counter and the model.
    ///
    /// # Errors
    ///
    /// Neither `--model` nor `--max-input`, an unknown model or encoding, a
    /// tokenizer file that cannot be used.
    pub fn load(&self) -> Result<Fitter, CliError> {
        let model = self
            .counter
            .model
            .as_deref()
            .map(lookup_model)
            .transpose()?;
        if model.is_none() && self.max_input.is_none() {
            return Err(CliError::input(
                "no input limit: pass `--model MODEL` (its window, less the output reserved) \
                 or `--max-input N` (at most N input tokens), or both",
            ));
        }
        Ok(Fitter {
            counter: self.counter.load()?,
            model,
            max_input: self.max_input,
            format: self.format,
        })
    }
}

impl Fitter {
    /// The counter.
    pub fn counter(&self) -> &Counter {
        &self.counter
    }

    /// Reads `body` and fits it.
    ///
    /// # Errors
    ///
    /// Bad input (exit code 1) for a body that is not a valid request, and "does not
    /// fit" (exit code 2) when what must stay is over the limit.
    pub fn fit_body(&self, body: &str) -> Result<Fitted, CliError> {
        match Request::parse(body, self.format)? {
            Request::OpenAi(request) => self.fit(request).map(|f| Fitted {
                json: f.request.to_json(),
                report: f.report,
            }),
            Request::Anthropic(request) => self.fit(request).map(|f| Fitted {
                json: f.request.to_json(),
                report: f.report,
            }),
        }
    }

    fn fit<R: WireRequest>(&self, request: R) -> Result<FittedRequest<R>, CliError> {
        let mut fitter = RequestFitter::new(self.counter.get()).with_count_dropped(true);
        if let Some(model) = self.model {
            fitter = fitter.with_limit(InputLimit::for_model(model));
        }
        if let Some(max_input) = self.max_input {
            let limit = match self.model {
                Some(_) => fitter
                    .input_limit(&request)
                    .map_err(|e| request_error(&e))?
                    .0
                    .min(max_input),
                None => max_input,
            };
            fitter = fitter.with_max_input(limit);
        }
        fitter.fit(request).map_err(|e| request_error(&e))
    }
}

/// The library's message, with the exit code that goes with it: 2 when the request
/// is valid but cannot fit, 1 otherwise.
pub fn request_error(error: &RequestError) -> CliError {
    match error {
        RequestError::DoesNotFit { .. }
        | RequestError::ToolLoopDoesNotFit { .. }
        | RequestError::OutputOverWindow { .. } => CliError::does_not_fit(error.to_string()),
        _ => CliError::input(error.to_string()),
    }
}

/// Trim a provider request body to a model's window by removing whole messages
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct FitArgs {
    #[command(flatten)]
    spec: FitSpec,
    /// Print the report on standard error as one line of JSON instead of a table
    #[arg(long)]
    report_json: bool,
    /// The request body (JSON); `-` or none reads standard input
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Writes the fitted body on standard output and the report on standard error.
pub fn run(args: &FitArgs) -> Result<ExitCode, CliError> {
    let spec = args.spec.load()?;
    let body = Source::from_arg(args.file.as_deref()).read_text()?;
    let fitted = spec.fit_body(&body)?;
    let mut out = Output::stdout();
    out.write(fitted.json.as_bytes())?;
    out.write(b"\n")?;
    out.flush()?;
    if args.report_json {
        eprintln!("{}", report_json(&fitted.report, spec.counter()));
    } else {
        eprintln!("{}", fitted.report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The report as one line of JSON.
pub fn report_json(report: &RequestReport, counter: &Counter) -> String {
    let dropped: Vec<serde_json::Value> = report
        .dropped
        .iter()
        .map(|d| {
            json!({
                "index": d.index,
                "role": d.role.as_str(),
                "tokens": d.tokens,
                "reason": d.reason.to_string(),
            })
        })
        .collect();
    let assumptions: Vec<String> = report.assumptions.iter().map(ToString::to_string).collect();
    json!({
        "format": report.format.as_str(),
        "model": report.model,
        "trimmed": report.trimmed(),
        "tokens_before": report.tokens_before,
        "tokens_after": report.tokens_after,
        "limit": report.limit,
        "output_reserved": report.output_reserved,
        "fixed": report.fixed,
        "kept": report.kept,
        "system_kept": report.system_kept,
        "dropped": dropped,
        "estimate": report.is_estimate(),
        "exactness": report.exactness.as_str(),
        "assumptions": assumptions,
        "counter": counter.name(),
    })
    .to_string()
}

/// `count --chat`: the input tokens of a request body, as its provider bills them.
pub fn count_body(
    body: &str,
    format: Option<FormatArg>,
    counter: &Counter,
) -> Result<usize, CliError> {
    Ok(Request::parse(body, format)?.count(counter).tokens)
}
