//! `ctxbudget fit`: trim a provider request body (OpenAI Chat Completions, OpenAI
//! Responses, Anthropic Messages, Gemini generateContent or Bedrock Converse) to its
//! model's window by removing whole messages.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use ctxbudget::chat::edit::Edits;
use ctxbudget::models::Model;
use ctxbudget::request::{
    AnyRequest, FittedRequest, InputLimit, OutputReservation, RequestError, RequestFitter,
    RequestFormat, RequestReport,
};
use serde_json::json;

use crate::counter::{Chosen, CounterArgs, RequestCounters, lookup_model};
use crate::error::CliError;
use crate::input::{Output, Source, eprint_line};

const EXAMPLES: &str = "\
The body's format is detected (a top-level `system`, Anthropic's block types, OpenAI's
roles and parts) unless --format says it. First the context edits shed old bulk
(old thinking dropped, tool results over an eighth of the limit cut to their head and
tail, all but the 3 most recent results replaced by a placeholder; --drop-only turns
them off); then whole messages are removed, oldest first; system messages, the task
(the first user message), the latest user message and every tool call with its
results stay.
--model sets the counter and the limit: the model's window less the body's
`max_tokens` (or `max_completion_tokens`), else less the model's output limit (4,096
for models whose output shares the window); the report gives that reservation with
or without a lower --max-input.
Without --model, --encoding or --tokenizer the body's own `model` chooses the
counter; a model the catalogue does not know is counted with o200k_base, and the
report warns that the counts are not exact.
The fitted body goes to standard output, the report to standard error. With
--drop-only the fit counts what it keeps, from the newest message: the report says
how many messages were dropped, and their tokens (and the tokens before) only with
--count-dropped; in --report-json an uncounted figure is null.
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
    /// OpenAI Responses (`POST /v1/responses`)
    Responses,
    /// Gemini generateContent (`POST .../models/{model}:generateContent`)
    Gemini,
    /// Amazon Bedrock Converse (`POST /model/{modelId}/converse`)
    Bedrock,
}

impl FormatArg {
    /// The library's format.
    pub fn format(self) -> RequestFormat {
        match self {
            FormatArg::Openai => RequestFormat::OpenAiChat,
            FormatArg::Anthropic => RequestFormat::AnthropicMessages,
            FormatArg::Responses => RequestFormat::OpenAiResponses,
            FormatArg::Gemini => RequestFormat::GeminiGenerateContent,
            FormatArg::Bedrock => RequestFormat::BedrockConverse,
        }
    }
}

/// Reads `body` in `format`, or in the format the library's
/// [`detect_format`](ctxbudget::request::detect_format) reads from the body.
///
/// # Errors
///
/// The library's message for a body that is not JSON, not a request of any format,
/// or not of the format's shape, with the line and column.
pub fn parse_request(body: &str, format: Option<FormatArg>) -> Result<AnyRequest, CliError> {
    AnyRequest::from_json(body, format.map(FormatArg::format))
        .map_err(|e| CliError::input(e.to_string()))
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
    #[command(flatten)]
    edits: EditArgs,
}

/// The context edits a fit applies before it drops whole messages: by default the
/// library's `Edits::default()` (old thinking dropped, tool results over an eighth of
/// the limit truncated, all but the 3 most recent results cleared, the task kept).
#[derive(Debug, Clone, Args)]
pub struct EditArgs {
    /// No context edits: only drop whole messages, oldest first
    #[arg(long, conflicts_with_all = ["keep_tool_results", "max_tool_result", "keep_thinking", "exclude_tool", "no_pin_task"])]
    drop_only: bool,
    /// Clear all but the K most recent tool results [default: 3]
    #[arg(long, value_name = "K")]
    keep_tool_results: Option<usize>,
    /// Truncate a tool result over N tokens to its head and tail [default: an
    /// eighth of the limit]
    #[arg(long, value_name = "N")]
    max_tool_result: Option<usize>,
    /// Keep the thinking of earlier assistant turns
    #[arg(long)]
    keep_thinking: bool,
    /// Never edit the results of this tool (repeatable)
    #[arg(long, value_name = "NAME")]
    exclude_tool: Vec<String>,
    /// Let the first user message (the task) be dropped like any other
    #[arg(long)]
    no_pin_task: bool,
}

impl EditArgs {
    /// The library's edit options these flags describe.
    pub fn edits(&self) -> Edits {
        if self.drop_only {
            return Edits::none();
        }
        let mut edits = Edits::default();
        if let Some(keep) = self.keep_tool_results {
            edits = edits.clear_tool_results(keep);
        }
        if let Some(tokens) = self.max_tool_result {
            edits = edits.truncate_tool_results(tokens);
        }
        if self.keep_thinking {
            edits = edits.keep_thinking();
        }
        if !self.exclude_tool.is_empty() {
            edits = edits.exclude_tools(self.exclude_tool.iter().cloned());
        }
        edits.pin_task(!self.no_pin_task)
    }
}

/// A loaded [`FitSpec`]: fits requests, on any thread.
#[derive(Debug)]
pub struct Fitter {
    counters: RequestCounters,
    model: Option<&'static Model>,
    max_input: Option<usize>,
    format: Option<FormatArg>,
    edits: Edits,
    count_dropped: bool,
}

/// A request fitted: the body as compact JSON and the report.
#[derive(Debug)]
pub struct Fitted {
    /// The fitted body, compact JSON on one line.
    pub json: String,
    /// What fitting did.
    pub report: RequestReport,
    /// The counter's name, as reports give it.
    pub counter: String,
    /// Why the counts are not exact for the body's model, when the counter is not
    /// its own.
    pub warning: Option<String>,
    /// The `--model`, whose prices give the request's cost.
    pub model: Option<&'static Model>,
}

impl Fitted {
    /// What the fitted request costs at the `--model`'s prices, in US dollars: its
    /// input (none of it read from a prompt cache) and, at most, the output its
    /// window reserves (at the long-prompt prices when the input is long enough);
    /// `None` without `--model` or for a model without prices.
    pub fn cost(&self) -> Option<(f64, f64)> {
        let model = self.model?;
        let input = self.report.tokens_after;
        Some((
            model.input_cost(input, 0)?,
            model.output_cost(self.report.output_reserved, input)?,
        ))
    }

    /// The report's cost line: `  cost       $0.001280 input at $2.50/M; up to ...`.
    fn cost_line(&self) -> Option<String> {
        let (input, output) = self.cost()?;
        let prices = self.model?.prices()?.for_prompt(self.report.tokens_after);
        Some(format!(
            "  cost       ${input:.6} input at {}; up to ${output:.6} for the {} output tokens \
             reserved, at {}",
            prices.input, self.report.output_reserved, prices.output
        ))
    }
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
            counters: self.counter.for_requests()?,
            model,
            max_input: self.max_input,
            format: self.format,
            edits: self.edits.edits(),
            count_dropped: false,
        })
    }
}

impl Fitter {
    /// With `true`, a fit with `--drop-only` counts the messages it drops too, so
    /// that the report gives their tokens and the tokens before; with `false` (as
    /// loaded) it counts what it keeps, from the newest message, and what it drops
    /// costs nothing. With the context edits on, every message is counted anyway.
    #[must_use]
    pub fn with_count_dropped(mut self, count_dropped: bool) -> Self {
        self.count_dropped = count_dropped;
        self
    }

    /// Reads `body` and fits it, counted with its model's counter (see
    /// [`RequestCounters::for_body`]).
    ///
    /// # Errors
    ///
    /// Bad input (exit code 1) for a body that is not a valid request, and "does not
    /// fit" (exit code 2) when what must stay is over the limit.
    pub fn fit_body(&self, body: &str) -> Result<Fitted, CliError> {
        let mut request = parse_request(body, self.format)?;
        let chosen = self.counters.for_body(request.model());
        // Gemini and Bedrock bodies carry no model (it is in the URL): --model says
        // it, for how they count images and frame messages.
        if let (Some(model), None) = (self.model, request.model()) {
            request = request.with_model(model.name());
        }
        let fitted = self.fit(request, &chosen)?;
        let (json, mut report) = (fitted.request.to_json(), fitted.report);
        // A count made with another model's tokenizer is never "exact".
        report.exactness = chosen.counter.exactness_for(chosen.warning.is_some());
        Ok(Fitted {
            json,
            report,
            counter: chosen.counter.name().to_owned(),
            warning: chosen.warning,
            model: self.model,
        })
    }

    fn fit(
        &self,
        request: AnyRequest,
        chosen: &Chosen,
    ) -> Result<FittedRequest<AnyRequest>, CliError> {
        let mut fitter = RequestFitter::new(chosen.counter.get())
            .with_count_dropped(self.count_dropped)
            .with_edits(self.edits.clone());
        // With a model, the report gives the output its window reserves, whether or
        // not --max-input lowers the limit further: one limit, one wording.
        let mut reserved = None;
        if let Some(model) = self.model {
            fitter = fitter.with_limit(InputLimit::for_model(model));
            if let Some(max_input) = self.max_input {
                let (limit, output) = fitter
                    .input_limit_any(&request)
                    .map_err(|e| request_error(&e))?;
                fitter = fitter.with_max_input(limit.min(max_input));
                let kind = if request.max_output_tokens().is_some() {
                    OutputReservation::Body
                } else {
                    OutputReservation::Default
                };
                reserved = Some((output, kind));
            }
        } else if let Some(max_input) = self.max_input {
            fitter = fitter.with_max_input(max_input);
        }
        let mut result = fitter.fit_any(request).map_err(|e| request_error(&e))?;
        if let Some((output, kind)) = reserved {
            result.report.output_reserved = output;
            result.report.output = kind;
        }
        Ok(result)
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
    /// Count the dropped messages too, so the report gives their tokens and the
    /// tokens before; without it a message dropped uncounted has `"tokens": null` in
    /// --report-json, and `tokens_before` is null (the context edits count every
    /// message anyway: this matters with --drop-only)
    #[arg(long)]
    count_dropped: bool,
    /// The request body (JSON); `-` or none reads standard input
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Writes the fitted body on standard output and the report on standard error.
pub fn run(args: &FitArgs) -> Result<ExitCode, CliError> {
    let spec = args.spec.load()?.with_count_dropped(args.count_dropped);
    let body = Source::from_arg(args.file.as_deref()).read_text()?;
    let fitted = spec.fit_body(&body)?;
    let mut out = Output::stdout();
    out.write(fitted.json.as_bytes())?;
    out.write(b"\n")?;
    out.flush()?;
    if args.report_json {
        eprint_line(&report_json(&fitted))?;
    } else {
        let mut table = fitted.report.to_string();
        if let Some(cost) = fitted.cost_line() {
            table.push('\n');
            table.push_str(&cost);
        }
        if let Some(warning) = &fitted.warning {
            table.push_str("\n  warning: ");
            table.push_str(warning);
        }
        eprint_line(&table)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The report as one line of JSON.
pub fn report_json(fitted: &Fitted) -> String {
    let report = &fitted.report;
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
        "edits": report.edits.as_ref().map(|edits| edits.totals),
        "estimate": report.is_estimate(),
        "exactness": report.exactness.as_str(),
        "assumptions": assumptions,
        "counter": fitted.counter,
        "cost": fitted.cost().map(|(input, output)| json!({
            "currency": "USD",
            "input": input,
            "output_reserved": output,
        })),
        "warnings": fitted.warning.iter().collect::<Vec<_>>(),
    })
    .to_string()
}

/// `count --chat`: the input tokens of a request body, as its provider bills them,
/// and why they are not exact for its model when they are not.
///
/// # Errors
///
/// A body that is not a request of the format (or of the format detected).
pub fn count_body(
    body: &str,
    format: Option<FormatArg>,
    counters: &RequestCounters,
) -> Result<(usize, Option<String>), CliError> {
    let request = parse_request(body, format)?;
    let chosen = counters.for_body(request.model());
    let tokens = RequestFitter::new(chosen.counter.get())
        .count_any(&request)
        .tokens;
    Ok((tokens, chosen.warning))
}
