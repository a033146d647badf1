//! `fit_request`, `count_request`, `Edits` and the objects they return.

use std::path::PathBuf;

use ctxbudget::chat::edit::Edits;
use ctxbudget::request::RequestFormat;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use serde_json::Value;

use crate::counter::{PyCounter, lookup_model, named_counter};
use crate::errors::{DoesNotFitError, RequestError, request_error};
use crate::fit::{FitFailure, FitSpec, Fitted, count_body, format_name, parse_format, report_json};
use crate::json::{dumps, loads, to_json_value};

/// The fields of `Edits` that are an amount of tokens: an `int` is tokens, a `float`
/// a share of the limit.
const THRESHOLDS: [&str; 5] = [
    "trigger",
    "low_water",
    "max_tool_result_tokens",
    "clear_at_least",
    "summary_room",
];

/// The context edits a fit makes before it drops whole messages (the library's
/// `chat::edit::Edits`): old thinking dropped, tool results over a share of the limit
/// cut to their head and tail, all but the most recent results replaced by a
/// placeholder, the task (first user message) kept.
///
/// `Edits()` is the library's default; keyword arguments change a field, by the
/// library's names: `keep_tool_results`, `max_tool_result_tokens`,
/// `drop_old_thinking`, `exclude_tools`, `clear_tool_inputs`, `pin_task`,
/// `low_water`, `trigger`, `clear_at_least`, `grid`, `placeholder`,
/// `media_placeholder`, `truncation_marker`, `compact`, `summary_room`,
/// `summary_prefix`. An amount of tokens is an `int` (tokens) or a `float` (a share
/// of the limit); `None` turns a step off.
///
/// >>> ctxbudget.Edits(keep_tool_results=2, max_tool_result_tokens=0.25).to_dict()["keep_tool_results"]
/// 2
#[pyclass(name = "Edits", module = "ctxbudget", frozen, skip_from_py_object)]
#[derive(Debug, Clone)]
pub struct PyEdits {
    pub(crate) inner: Edits,
}

#[pymethods]
impl PyEdits {
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut fields = serde_json::Map::new();
        if let Some(options) = options {
            for (key, value) in options.iter() {
                let key: String = key.extract()?;
                let value = if THRESHOLDS.contains(&key.as_str()) {
                    threshold(&key, &value)?
                } else {
                    to_json_value(&value)?
                };
                fields.insert(key, value);
            }
        }
        let inner: Edits = serde_json::from_value(Value::Object(fields))
            .map_err(|e| PyValueError::new_err(format!("Edits: {e}")))?;
        Ok(PyEdits { inner })
    }

    /// No edits: a fit only drops whole messages.
    #[staticmethod]
    fn none() -> Self {
        PyEdits {
            inner: Edits::none(),
        }
    }

    /// Whether these edits change nothing (`Edits.none()`).
    #[getter]
    fn is_none(&self) -> bool {
        self.inner.is_none()
    }

    /// Every field, as the library's config files spell them.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(&self.inner).unwrap_or_default();
        loads(py, &json)
    }

    fn __repr__(&self) -> String {
        if self.inner.is_none() {
            return "Edits.none()".to_owned();
        }
        format!(
            "Edits({})",
            serde_json::to_string(&self.inner).unwrap_or_default()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyEdits>()
            .is_ok_and(|other| other.get().inner == self.inner)
    }
}

/// An amount of tokens: `int` tokens or a `float` share, as the library's JSON has it.
fn threshold(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    if value.is_none() {
        return Ok(Value::Null);
    }
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "Edits: `{key}` is an amount of tokens: give an int (tokens) or a float (a share of the limit), not a bool"
        )));
    }
    if let Ok(tokens) = value.extract::<usize>() {
        return Ok(serde_json::json!({ "tokens": tokens }));
    }
    if let Ok(share) = value.extract::<f64>() {
        if !share.is_finite() || share < 0.0 {
            return Err(PyValueError::new_err(format!(
                "Edits: `{key}` is {share}: a share of the limit is a number from 0.0 to 1.0"
            )));
        }
        return Ok(serde_json::json!({ "share": share }));
    }
    Err(PyTypeError::new_err(format!(
        "Edits: `{key}` is an amount of tokens: give an int (tokens, 0 or more) or a float (a share of the limit)"
    )))
}

/// The edits `edits=` names: `None` or `False` none, `True` the defaults, an `Edits`,
/// or a `dict` of `Edits` options.
pub fn edits_arg(edits: Option<&Bound<'_, PyAny>>) -> PyResult<Edits> {
    let Some(edits) = edits else {
        return Ok(Edits::none());
    };
    if edits.is_none() {
        return Ok(Edits::none());
    }
    if let Ok(flag) = edits.cast::<pyo3::types::PyBool>() {
        return Ok(if flag.is_true() {
            Edits::default()
        } else {
            Edits::none()
        });
    }
    if let Ok(edits) = edits.cast::<PyEdits>() {
        return Ok(edits.get().inner.clone());
    }
    if let Ok(options) = edits.cast::<PyDict>() {
        return PyEdits::new(Some(options)).map(|e| e.inner);
    }
    Err(PyTypeError::new_err(
        "edits= takes None, True (the default edits), an Edits or a dict of Edits options",
    ))
}

/// The format `format=` names.
pub fn format_arg(format: Option<&str>) -> PyResult<Option<RequestFormat>> {
    format
        .map(|name| {
            parse_format(name).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "unknown request format `{name}`: use \"openai\", \"anthropic\" or \"responses\", or None to detect it"
                ))
            })
        })
        .transpose()
}

/// A request body given as a `dict` (or `list`), a JSON `str` or UTF-8 `bytes`, as JSON
/// text.
pub fn body_text(body: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = body.cast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    if let Ok(bytes) = body.cast::<PyBytes>() {
        return std::str::from_utf8(bytes.as_bytes())
            .map(str::to_owned)
            .map_err(|e| {
                PyValueError::new_err(format!(
                    "the request body is not UTF-8 ({e}): send UTF-8 JSON, or a dict"
                ))
            });
    }
    if body.cast::<PyDict>().is_ok() || body.cast::<PyList>().is_ok() {
        return dumps(body);
    }
    Err(PyTypeError::new_err(format!(
        "a request body is a dict, a JSON str or UTF-8 bytes, not {}",
        body.get_type().name()?
    )))
}

/// What a fit did: tokens before and after, messages dropped, the limit, the edits.
///
/// `to_dict()` gives all of it (`dropped` then lists each message, with its index,
/// role, tokens and why).
#[pyclass(name = "Report", module = "ctxbudget", frozen)]
#[derive(Debug)]
pub struct PyReport {
    /// The fit, its body taken out (`FittedRequest` holds it).
    fitted: Fitted,
}

impl PyReport {
    /// The report of `fitted`, and the fitted body.
    pub fn of(mut fitted: Fitted) -> (Self, String) {
        let json = std::mem::take(&mut fitted.json);
        (PyReport { fitted }, json)
    }
}

#[pymethods]
impl PyReport {
    /// The input tokens of the request as it came in; `None` when messages were
    /// dropped uncounted (pass `count_dropped=True` to count them).
    #[getter]
    fn tokens_before(&self) -> Option<usize> {
        self.fitted.report.tokens_before
    }

    /// The input tokens of the fitted request.
    #[getter]
    fn tokens_after(&self) -> usize {
        self.fitted.report.tokens_after
    }

    /// How many messages were dropped.
    #[getter]
    fn dropped(&self) -> usize {
        self.fitted.report.dropped.len()
    }

    /// The input limit the request was fitted to.
    #[getter]
    fn limit(&self) -> usize {
        self.fitted.report.limit
    }

    /// How many messages were kept.
    #[getter]
    fn kept(&self) -> usize {
        self.fitted.report.kept
    }

    /// The output reserved from the window.
    #[getter]
    fn output_reserved(&self) -> usize {
        self.fitted.report.output_reserved
    }

    /// `"exact"`, `"upper estimate"`, `"estimate"` or `"unknown"`.
    #[getter]
    fn exactness(&self) -> &'static str {
        self.fitted.report.exactness.as_str()
    }

    /// The counter's name.
    #[getter]
    fn counter(&self) -> &str {
        &self.fitted.counter
    }

    /// Why the counts are not exact for the body's model, when they are not.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.fitted.warning.iter().cloned().collect()
    }

    /// Whether the fitted request is within the limit (always, for a returned fit).
    #[getter]
    fn fits(&self) -> bool {
        self.fitted.report.tokens_after <= self.fitted.report.limit
    }

    /// Whether any message was dropped.
    #[getter]
    fn trimmed(&self) -> bool {
        self.fitted.report.trimmed()
    }

    /// The whole report as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &report_json(&self.fitted).to_string())
    }

    fn __repr__(&self) -> String {
        let report = &self.fitted.report;
        format!(
            "Report(tokens_before={}, tokens_after={}, dropped={}, limit={})",
            report
                .tokens_before
                .map_or_else(|| "None".to_owned(), |t| t.to_string()),
            report.tokens_after,
            report.dropped.len(),
            report.limit
        )
    }
}

/// A request fitted: the body (`.body` a dict, `.json` its compact JSON), its format
/// and the report.
#[pyclass(name = "FittedRequest", module = "ctxbudget", frozen)]
#[derive(Debug)]
pub struct PyFittedRequest {
    /// The fitted body as compact JSON.
    #[pyo3(get)]
    json: String,
    /// What fitting did.
    #[pyo3(get)]
    report: Py<PyReport>,
    /// `"openai"`, `"anthropic"` or `"responses"`.
    #[pyo3(get)]
    format: &'static str,
}

#[pymethods]
impl PyFittedRequest {
    /// The fitted body as a dict (parsed from `.json` on each access).
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.json)
    }

    fn __repr__(&self) -> String {
        format!(
            "FittedRequest(format={:?}, {} bytes)",
            self.format,
            self.json.len()
        )
    }
}

/// The fit options of `fit_request` and `RequestBatchFitter`, read from Python.
#[allow(clippy::too_many_arguments)]
pub fn fit_spec(
    py: Python<'_>,
    model: Option<&str>,
    max_input: Option<usize>,
    window: Option<usize>,
    output: Option<usize>,
    counter: Option<PyCounter>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    edits: Option<&Bound<'_, PyAny>>,
    format: Option<&str>,
    count_dropped: bool,
) -> PyResult<FitSpec> {
    let model_ref = model.map(lookup_model).transpose()?;
    // `model=` chooses the counter only when nothing else does.
    let named = named_counter(py, None, encoding, tokenizer, counter)?;
    let named = match (named, model_ref) {
        (Some(counter), _) => Some(counter),
        (None, Some(model)) => Some(PyCounter::of_model(model)?),
        (None, None) => None,
    };
    let window = match (window, output) {
        (Some(window), output) => {
            if window == 0 {
                return Err(PyValueError::new_err(
                    "window=0 leaves no room: give the model's context window in tokens",
                ));
            }
            Some((
                window,
                output.unwrap_or(ctxbudget::request::DEFAULT_OUTPUT.min(window / 2)),
            ))
        }
        (None, Some(_)) => {
            return Err(PyValueError::new_err(
                "output= is the output reserved from window=: give window= too, or set the body's max_tokens",
            ));
        }
        (None, None) => None,
    };
    Ok(FitSpec::new(
        named,
        model_ref,
        max_input,
        window,
        edits_arg(edits)?,
        format_arg(format)?,
        count_dropped,
    ))
}

/// The exception of a failed fit.
pub fn fit_error(failure: FitFailure) -> PyErr {
    if failure.does_not_fit {
        DoesNotFitError::new_err(failure.message)
    } else {
        RequestError::new_err(failure.message)
    }
}

/// Fits a provider request body to a model's window by removing whole messages,
/// oldest first (after the context edits, when `edits=` asks for them).
///
/// `body` is a dict, a JSON str or UTF-8 bytes in any wire format ctxbudget reads
/// (OpenAI Chat Completions, Anthropic Messages, OpenAI Responses), detected unless
/// `format=` names it. The limit is `model=`'s window (or `window=`'s) less the output
/// reserved, lowered to `max_input=`; without any of them, the body's own model's
/// window. The counter is `counter=`, `encoding=`, `tokenizer=` or `model=`'s, else the
/// body's model's own (else `o200k_base`, with a warning in the report).
///
/// Raises `RequestError` for a body that is not a valid request, `DoesNotFitError`
/// when what must stay (system prompt, latest message, tools) is over the limit.
///
/// >>> body = {"model": "gpt-4o", "messages": [
/// ...     {"role": "user", "content": "An old question, far too long to keep here."},
/// ...     {"role": "assistant", "content": "An old answer, just as long as that one."},
/// ...     {"role": "user", "content": "What is 2 + 2?"}]}
/// >>> fitted = ctxbudget.fit_request(body, max_input=25)
/// >>> [m["content"] for m in fitted.body["messages"]]
/// ['What is 2 + 2?']
/// >>> fitted.report.dropped, fitted.report.tokens_after <= 25
/// (2, True)
#[pyfunction]
#[pyo3(signature = (body, *, model=None, max_input=None, window=None, output=None, counter=None, encoding=None, tokenizer=None, edits=None, format=None, count_dropped=false))]
#[allow(clippy::too_many_arguments)]
pub fn fit_request(
    py: Python<'_>,
    body: &Bound<'_, PyAny>,
    model: Option<&str>,
    max_input: Option<usize>,
    window: Option<usize>,
    output: Option<usize>,
    counter: Option<PyCounter>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    edits: Option<&Bound<'_, PyAny>>,
    format: Option<&str>,
    count_dropped: bool,
) -> PyResult<PyFittedRequest> {
    let spec = fit_spec(
        py,
        model,
        max_input,
        window,
        output,
        counter,
        encoding,
        tokenizer,
        edits,
        format,
        count_dropped,
    )?;
    let body = body_text(body)?;
    let fitted = py.detach(|| spec.fit_body(&body)).map_err(fit_error)?;
    let format = format_name(fitted.report.format);
    let (report, json) = PyReport::of(fitted);
    Ok(PyFittedRequest {
        report: Py::new(py, report)?,
        format,
        json,
    })
}

/// What a request costs as its provider bills its input: `tokens = fixed + messages`.
#[pyclass(name = "RequestCount", module = "ctxbudget", frozen)]
#[derive(Debug)]
pub struct PyRequestCount {
    /// The whole request's input tokens.
    #[pyo3(get)]
    tokens: usize,
    /// What the request costs outside its messages (tools, a top-level system prompt).
    #[pyo3(get)]
    fixed: usize,
    /// What the messages cost, per-message overhead and reply priming included.
    #[pyo3(get)]
    messages: usize,
    /// Why the count is an estimate; empty when it is as exact as the counter.
    #[pyo3(get)]
    assumptions: Vec<String>,
    /// `"openai"`, `"anthropic"` or `"responses"`.
    #[pyo3(get)]
    format: &'static str,
    /// The body's `model`.
    #[pyo3(get)]
    model: Option<String>,
    /// The counter's name.
    #[pyo3(get)]
    counter: String,
    /// Why the count is not exact for the body's model, when it is not.
    #[pyo3(get)]
    warning: Option<String>,
}

#[pymethods]
impl PyRequestCount {
    /// Every field as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("tokens", self.tokens)?;
        dict.set_item("fixed", self.fixed)?;
        dict.set_item("messages", self.messages)?;
        dict.set_item("assumptions", &self.assumptions)?;
        dict.set_item("format", self.format)?;
        dict.set_item("model", &self.model)?;
        dict.set_item("counter", &self.counter)?;
        dict.set_item("warning", &self.warning)?;
        Ok(dict)
    }

    fn __int__(&self) -> usize {
        self.tokens
    }

    fn __repr__(&self) -> String {
        format!(
            "RequestCount(tokens={}, fixed={}, messages={})",
            self.tokens, self.fixed, self.messages
        )
    }
}

/// Counts a request body's input tokens as its provider bills them (tools, images and
/// per-message overhead included), with the counter named or the body's model's own.
///
/// >>> ctxbudget.count_request({"model": "gpt-4o", "messages": [{"role": "user", "content": "hello there"}]}).tokens
/// 9
#[pyfunction]
#[pyo3(signature = (body, *, model=None, encoding=None, tokenizer=None, counter=None, format=None))]
pub fn count_request(
    py: Python<'_>,
    body: &Bound<'_, PyAny>,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    counter: Option<PyCounter>,
    format: Option<&str>,
) -> PyResult<PyRequestCount> {
    let named = named_counter(py, model, encoding, tokenizer, counter)?;
    let format = format_arg(format)?;
    let body = body_text(body)?;
    let result = py
        .detach(|| count_body(&body, format, named.as_ref()))
        .map_err(|e| request_error(&e))?;
    Ok(PyRequestCount {
        tokens: result.count.tokens,
        fixed: result.count.fixed,
        messages: result.count.messages,
        assumptions: result
            .count
            .assumptions
            .iter()
            .map(ToString::to_string)
            .collect(),
        format: format_name(result.format),
        model: result.model,
        counter: result.counter,
        warning: result.warning,
    })
}
