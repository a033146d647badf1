//! The fitting shared by `fit_request`, `count_request` and the Arrow batches: which
//! counter and which limit a body is fitted with, and the report as JSON. Everything
//! here runs without the GIL, on any thread.

use std::collections::HashMap;
use std::sync::RwLock;

use ctxbudget::chat::edit::Edits;
use ctxbudget::models::{MAX_NAME_BYTES, Model};
use ctxbudget::request::{
    AnyRequest, InputLimit, OutputReservation, RequestCount, RequestError, RequestFitter,
    RequestFormat, RequestReport,
};
use serde_json::{Value, json};

use crate::counter::PyCounter;
use crate::errors::does_not_fit;

/// A fit that failed: the message and whether the request was valid but cannot fit.
#[derive(Debug)]
pub struct FitFailure {
    /// The library's message (or the binding's, for a missing limit).
    pub message: String,
    /// Valid, but what must stay is over the limit.
    pub does_not_fit: bool,
}

impl From<RequestError> for FitFailure {
    fn from(error: RequestError) -> Self {
        FitFailure {
            does_not_fit: does_not_fit(&error),
            message: error.to_string(),
        }
    }
}

/// The short names of the wire formats, as `format=` takes them and
/// `FittedRequest.format` gives them.
pub fn format_name(format: RequestFormat) -> &'static str {
    match format {
        RequestFormat::OpenAiChat => "openai",
        RequestFormat::AnthropicMessages => "anthropic",
        RequestFormat::OpenAiResponses => "responses",
        _ => format.as_str(),
    }
}

/// The format `format=` names: a short name (`"openai"`, `"anthropic"`,
/// `"responses"`) or the format's full name, in any case.
pub fn parse_format(name: &str) -> Option<RequestFormat> {
    let wanted = name.trim().to_ascii_lowercase();
    [
        RequestFormat::OpenAiChat,
        RequestFormat::AnthropicMessages,
        RequestFormat::OpenAiResponses,
    ]
    .into_iter()
    .find(|&format| format_name(format) == wanted || format.as_str().to_ascii_lowercase() == wanted)
    .or(match wanted.as_str() {
        "chat" | "chat_completions" | "openai_chat" => Some(RequestFormat::OpenAiChat),
        "messages" => Some(RequestFormat::AnthropicMessages),
        _ => None,
    })
}

/// Distinct body models whose counters a [`FitSpec`] remembers (the rest are looked
/// up for each body).
const REMEMBERED_MODELS: usize = 64;

/// What a body's `model` chooses: the catalogue's model, the counter and the warning
/// of [`counter_for_body`].
#[derive(Debug, Clone)]
struct Chosen {
    model: Option<&'static Model>,
    counter: PyCounter,
    warning: Option<String>,
}

/// How to fit request bodies: made once (per call, per batch fitter, per worker),
/// used on any thread.
#[derive(Debug)]
pub struct FitSpec {
    /// The counter named by the caller; `None`: each body's model's own.
    counter: Option<PyCounter>,
    /// `model=`: its window (less the output reserved) and its prices.
    model: Option<&'static Model>,
    /// `max_input=`: at most this many input tokens.
    max_input: Option<usize>,
    /// `window=` and `output=`: a window of this many tokens, of which the body's
    /// output limit (or `output`) is reserved.
    window: Option<(usize, usize)>,
    /// The context edits made before whole messages are dropped.
    edits: Edits,
    /// The wire format, when the caller names it; else detected from each body.
    format: Option<RequestFormat>,
    /// Count the dropped messages too, so the report gives `tokens_before`.
    count_dropped: bool,
    /// What each body model chose, read by every thread for every body.
    chosen: RwLock<HashMap<String, Chosen>>,
}

/// A body fitted.
#[derive(Debug)]
pub struct Fitted {
    /// The fitted body, compact JSON.
    pub json: String,
    /// What fitting did.
    pub report: RequestReport,
    /// The counter's name.
    pub counter: String,
    /// Why the counts are not exact for the body's model, when they are not.
    pub warning: Option<String>,
    /// The model whose prices give the cost: `model=`, else the body's.
    pub priced: Option<&'static Model>,
}

/// A body counted.
#[derive(Debug)]
pub struct Counted {
    /// The request's wire format.
    pub format: RequestFormat,
    /// The body's model.
    pub model: Option<String>,
    /// What the request costs, part by part.
    pub count: RequestCount,
    /// The counter's name.
    pub counter: String,
    /// Why the counts are not exact for the body's model, when they are not.
    pub warning: Option<String>,
}

/// The counter a body is counted with: the one named, or the body's model's own,
/// else `o200k_base` with a warning that says why.
pub fn counter_for_body(
    named: Option<&PyCounter>,
    body_model: Option<&str>,
) -> (PyCounter, Option<String>) {
    if let Some(counter) = named {
        return (counter.clone(), None);
    }
    let fallback = |why: String| {
        let counter = PyCounter::default_counter();
        let warning = format!(
            "{why}: counted with {}, which may count fewer tokens; pass model=, encoding=, \
             tokenizer= or counter= to name the counter",
            counter.name
        );
        (counter, Some(warning))
    };
    let Some(name) = body_model else {
        return fallback("the body names no `model`".to_owned());
    };
    let shown: String = name.chars().take(64).collect();
    match Model::lookup(name) {
        Err(_) => fallback(format!(
            "the body's model `{shown}` is not in the catalogue"
        )),
        Ok(model) => match PyCounter::of_model(model) {
            Ok(counter) => (counter, None),
            Err(_) => fallback(format!(
                "the body's model `{shown}` counts with a tokenizer file (load it with \
                 Counter.tokenizer_file and pass counter=)"
            )),
        },
    }
}

impl FitSpec {
    /// The options, loaded.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        counter: Option<PyCounter>,
        model: Option<&'static Model>,
        max_input: Option<usize>,
        window: Option<(usize, usize)>,
        edits: Edits,
        format: Option<RequestFormat>,
        count_dropped: bool,
    ) -> Self {
        FitSpec {
            counter,
            model,
            max_input,
            window,
            edits,
            format,
            count_dropped,
            chosen: RwLock::new(HashMap::new()),
        }
    }

    /// The catalogue's model, the counter and the warning for a body whose `model` is
    /// `name`; remembered for the first [`REMEMBERED_MODELS`] names.
    fn choose(&self, name: Option<&str>) -> Chosen {
        let key = name.unwrap_or_default();
        if let Some(chosen) = self.chosen.read().ok().and_then(|m| m.get(key).cloned()) {
            return chosen;
        }
        let (counter, warning) = counter_for_body(self.counter.as_ref(), name);
        let chosen = Chosen {
            model: name.and_then(|name| Model::lookup(name).ok()),
            counter,
            warning,
        };
        if let Ok(mut known) = self.chosen.write() {
            if known.len() < REMEMBERED_MODELS && key.len() <= MAX_NAME_BYTES {
                known.insert(key.to_owned(), chosen.clone());
            }
        }
        chosen
    }

    /// Reads `body` and fits it.
    ///
    /// # Errors
    ///
    /// A body that is not a valid request, a missing limit, or what must stay over
    /// the limit.
    pub fn fit_body(&self, body: &str) -> Result<Fitted, FitFailure> {
        let request = AnyRequest::from_json(body, self.format)?;
        let Chosen {
            model: body_model,
            counter,
            warning,
        } = self.choose(request.model());
        let mut fitter = RequestFitter::new(counter.inner.clone())
            .with_count_dropped(self.count_dropped)
            .with_edits(self.edits.clone());
        // The window: `window=`, else `model=`'s, else (without `max_input=`) the
        // body's own model's.
        let window = if let Some((window, output)) = self.window {
            Some(InputLimit::Window {
                window,
                default_output: output,
            })
        } else if let Some(model) = self.model {
            Some(InputLimit::for_model(model))
        } else if self.max_input.is_none() {
            body_model.map(InputLimit::for_model)
        } else {
            None
        };
        let mut reserved = None;
        match (window, self.max_input) {
            (Some(window), Some(max_input)) => {
                fitter = fitter.with_limit(window);
                let (limit, output) = fitter.input_limit_any(&request)?;
                fitter = fitter.with_max_input(limit.min(max_input));
                let kind = if request.max_output_tokens().is_some() {
                    OutputReservation::Body
                } else {
                    OutputReservation::Default
                };
                reserved = Some((output, kind));
            }
            (Some(window), None) => fitter = fitter.with_limit(window),
            (None, Some(max_input)) => fitter = fitter.with_max_input(max_input),
            (None, None) => {
                return Err(FitFailure {
                    message: "no input limit: pass model= (its window, less the output \
                              reserved), max_input= or window=, or send a body whose `model` \
                              the catalogue knows"
                        .to_owned(),
                    does_not_fit: false,
                });
            }
        }
        let result = fitter.fit_any(request)?;
        let mut report = result.report;
        if let Some((output, kind)) = reserved {
            report.output_reserved = output;
            report.output = kind;
        }
        // A count made with another model's tokenizer is never "exact".
        if warning.is_some() && report.exactness.is_exact() {
            report.exactness = ctxbudget::count::Exactness::Estimate;
        }
        Ok(Fitted {
            json: result.request.to_json(),
            report,
            counter: counter.name,
            warning,
            priced: self.model.or(body_model),
        })
    }
}

/// Reads `body` and counts it as its provider bills its input.
///
/// # Errors
///
/// A body that is not a request of the format (or of the format detected).
pub fn count_body(
    body: &str,
    format: Option<RequestFormat>,
    named: Option<&PyCounter>,
) -> Result<Counted, RequestError> {
    let request = AnyRequest::from_json(body, format)?;
    let (counter, warning) = counter_for_body(named, request.model());
    let count = RequestFitter::new(counter.inner.clone()).count_any(&request);
    Ok(Counted {
        format: request.format(),
        model: request.model().map(str::to_owned),
        count,
        counter: counter.name,
        warning,
    })
}

/// The report as JSON: what `Report.to_dict()` returns.
pub fn report_json(fitted: &Fitted) -> Value {
    let report = &fitted.report;
    let dropped: Vec<Value> = report
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
    let cost = fitted.priced.and_then(|model| {
        let input = model.input_cost(report.tokens_after, 0)?;
        let output = model.output_cost(report.output_reserved, report.tokens_after)?;
        Some(json!({"currency": "USD", "model": model.name(), "input": input, "output_reserved": output}))
    });
    json!({
        "format": format_name(report.format),
        "model": report.model,
        "trimmed": report.trimmed(),
        "fits": report.tokens_after <= report.limit,
        "tokens_before": report.tokens_before,
        "tokens_after": report.tokens_after,
        "limit": report.limit,
        "output_reserved": report.output_reserved,
        "fixed": report.fixed,
        "kept": report.kept,
        "system_kept": report.system_kept,
        "dropped": dropped,
        "edits": report.edits.as_ref().and_then(|edits| serde_json::to_value(edits).ok()),
        "estimate": report.is_estimate(),
        "exactness": report.exactness.as_str(),
        "assumptions": assumptions,
        "counter": fitted.counter,
        "cost": cost,
        "warnings": fitted.warning.iter().collect::<Vec<_>>(),
    })
}
