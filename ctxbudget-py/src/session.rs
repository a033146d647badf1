//! `ctxbudget.ChatSession`: a long-running agent's history, each message counted once
//! when pushed, prompts prepared with a cut that keeps the provider's cache warm.

use std::path::PathBuf;

use ctxbudget::chat::{ChatSession, CutPolicy};
use ctxbudget::request::openai::RequestMessage;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::counter::{PyCounter, Shared, choose_counter};
use crate::errors::SessionError;
use crate::json::{dumps, loads};
use crate::request::edits_arg;

/// A message given as a dict in the OpenAI Chat Completions shape (`role`, `content`,
/// `tool_calls`, `tool_call_id`, ...), read losslessly.
fn message_arg(message: &Bound<'_, PyAny>) -> PyResult<RequestMessage> {
    let json = dumps(message)?;
    serde_json::from_str(&json).map_err(|e| {
        PyValueError::new_err(format!(
            "not a Chat Completions message ({e}): give a dict with `role` and `content`"
        ))
    })
}

/// Messages as one JSON array.
fn messages_json<'a>(messages: impl IntoIterator<Item = &'a RequestMessage>) -> String {
    let parts: Vec<String> = messages
        .into_iter()
        .map(|m| serde_json::to_string(m).unwrap_or_else(|_| "null".to_owned()))
        .collect();
    format!("[{}]", parts.join(","))
}

/// A prompt a `ChatSession` prepared: the messages to send and where the unchanged
/// prefix ends (for Anthropic's `cache_control`).
#[pyclass(name = "Prompt", module = "ctxbudget", frozen)]
#[derive(Debug)]
pub struct PyPrompt {
    messages: String,
    /// What the messages cost, reply priming included.
    #[pyo3(get)]
    tokens: usize,
    /// The session's limit.
    #[pyo3(get)]
    limit: usize,
    /// The index of the last message that the previous prompt sent too, if any.
    #[pyo3(get)]
    stable_prefix: Option<usize>,
    /// Where to put cache breakpoints: message indices, ascending.
    #[pyo3(get)]
    cache_breakpoints: Vec<usize>,
    /// Whether the cut moved for this prompt.
    #[pyo3(get)]
    cut_moved: bool,
    /// How many messages of the session this prompt leaves out.
    #[pyo3(get)]
    dropped: usize,
    edits: Option<String>,
}

#[pymethods]
impl PyPrompt {
    /// The messages to send, as dicts.
    #[getter]
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.messages)
    }

    /// What the context edits did for this prompt (`None` with edits off).
    #[getter]
    fn edits<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.edits
            .as_deref()
            .map(|json| loads(py, json))
            .transpose()
    }

    /// Every field as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("messages", self.messages(py)?)?;
        dict.set_item("tokens", self.tokens)?;
        dict.set_item("limit", self.limit)?;
        dict.set_item("stable_prefix", self.stable_prefix)?;
        dict.set_item("cache_breakpoints", &self.cache_breakpoints)?;
        dict.set_item("cut_moved", self.cut_moved)?;
        dict.set_item("dropped", self.dropped)?;
        dict.set_item("edits", self.edits(py)?)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!("Prompt(tokens={}, limit={})", self.tokens, self.limit)
    }
}

/// A long-running agent's history in the OpenAI Chat Completions message shape: each
/// message is counted once, when pushed, so preparing the 10,000th prompt costs what
/// the 100th does; the cut stays still while the prompt fits, then moves past whole
/// tool-call units to a low-water mark, so most prompts start with the previous one
/// (which providers bill from their cache). A push that would break the history (a
/// result without its call, a duplicate id) raises `SessionError`, the session
/// unchanged.
///
/// >>> s = ctxbudget.ChatSession(2000, counter=ctxbudget.Counter.chars())
/// >>> s.push({"role": "system", "content": "You are a coding agent."})
/// 11
/// >>> _ = s.push({"role": "user", "content": "Run the tests."})
/// >>> s.prepare().tokens <= 2000
/// True
#[pyclass(name = "ChatSession", module = "ctxbudget")]
pub struct PyChatSession {
    inner: ChatSession<RequestMessage, Shared>,
    counter: String,
}

impl std::fmt::Debug for PyChatSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatSession")
            .field("counter", &self.counter)
            .finish_non_exhaustive()
    }
}

fn session_error(error: &ctxbudget::chat::SessionError) -> PyErr {
    SessionError::new_err(error.to_string())
}

#[pymethods]
impl PyChatSession {
    /// A session whose prompts cost at most `limit` tokens (the window, less the
    /// reply's tokens and what the request spends outside its messages). `edits=`
    /// (`True`, an `Edits`) sheds old tool output before the cut moves;
    /// `low_water` and `grid` tune the cut (shares of the limit); `minimal_fit=True`
    /// cuts as little as possible each time instead; `start_on_user=True` cuts only at
    /// user turns (Claude on Bedrock).
    #[new]
    #[pyo3(signature = (limit, *, model=None, encoding=None, tokenizer=None, counter=None, edits=None, low_water=None, grid=None, minimal_fit=false, start_on_user=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        limit: usize,
        model: Option<&str>,
        encoding: Option<&str>,
        tokenizer: Option<PathBuf>,
        counter: Option<PyCounter>,
        edits: Option<&Bound<'_, PyAny>>,
        low_water: Option<f64>,
        grid: Option<f64>,
        minimal_fit: bool,
        start_on_user: bool,
    ) -> PyResult<Self> {
        let counter = choose_counter(py, model, encoding, tokenizer, counter)?;
        let mut policy = if minimal_fit {
            CutPolicy::minimal_fit()
        } else {
            CutPolicy::cache_stable()
        };
        for (name, share) in [("low_water", low_water), ("grid", grid)] {
            if let Some(share) = share {
                if !(0.0..=1.0).contains(&share) {
                    return Err(PyValueError::new_err(format!(
                        "{name}={share}: give a share of the limit from 0.0 to 1.0"
                    )));
                }
            }
        }
        if let Some(low_water) = low_water {
            policy = policy.with_low_water(low_water);
        }
        if let Some(grid) = grid {
            policy = policy.with_grid(grid);
        }
        let inner = ChatSession::new(counter.inner.clone(), limit)
            .with_policy(policy)
            .with_start_on_user(start_on_user)
            .with_edits(edits_arg(edits)?);
        Ok(PyChatSession {
            inner,
            counter: counter.name,
        })
    }

    /// Adds a message (a Chat Completions message dict); returns what it costs, the
    /// format's per-message overhead included. Raises `SessionError` for a message
    /// that would break the history.
    fn push(&mut self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<usize> {
        let message = message_arg(message)?;
        let inner = &mut self.inner;
        py.detach(|| inner.push(message))
            .map_err(|e| session_error(&e))
    }

    /// Adds messages in order; stops at the first refused one, with the ones before it
    /// pushed.
    fn extend(&mut self, py: Python<'_>, messages: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let messages = messages
            .iter()
            .map(message_arg)
            .collect::<PyResult<Vec<_>>>()?;
        let inner = &mut self.inner;
        py.detach(|| inner.extend(messages))
            .map_err(|e| session_error(&e))
    }

    /// Removes the last message and returns it (`None` when the session is empty).
    fn pop<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .pop()
            .map(|m| loads(py, &serde_json::to_string(&m).unwrap_or_default()))
            .transpose()
    }

    /// The prompt to send now, within the limit. Raises `SessionError` when what must
    /// stay (system messages, the latest user message) is over the limit.
    fn prepare(&mut self, py: Python<'_>) -> PyResult<PyPrompt> {
        let inner = &mut self.inner;
        py.detach(|| {
            inner.prepare().map(|prompt| PyPrompt {
                messages: messages_json(prompt.messages()),
                tokens: prompt.tokens(),
                limit: prompt.limit(),
                stable_prefix: prompt.stable_prefix(),
                cache_breakpoints: prompt.cache_breakpoints(),
                cut_moved: prompt.cut_moved(),
                dropped: prompt.dropped().len(),
                edits: prompt
                    .edits()
                    .and_then(|report| serde_json::to_string(report).ok()),
            })
        })
        .map_err(|e| session_error(&e))
    }

    /// The messages of the current prompt, as dicts: those the last `prepare` kept,
    /// then the ones pushed since.
    #[getter]
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &messages_json(self.inner.messages()))
    }

    /// What the current prompt costs, reply priming included (over the limit when
    /// the next `prepare` must move the cut).
    #[getter]
    fn tokens(&self) -> usize {
        self.inner.tokens()
    }

    /// The limit of each prompt.
    #[getter]
    fn limit(&self) -> usize {
        self.inner.limit()
    }

    /// Changes the limit (a new model, a longer tool list); raises `SessionError` when
    /// what must stay no longer fits.
    #[setter]
    fn set_limit(&mut self, limit: usize) -> PyResult<()> {
        self.inner.set_limit(limit).map_err(|e| session_error(&e))
    }

    /// The call ids of tool calls still waiting for their results.
    #[getter]
    fn pending_calls(&self) -> Vec<String> {
        self.inner.pending_calls()
    }

    /// What the context edits did over the session: `cleared_tool_uses`,
    /// `cleared_input_tokens`, `truncated`, `thinking_dropped`, `summarized`,
    /// `saved_tokens`.
    fn edit_totals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(
            py,
            &serde_json::to_string(&self.inner.edit_totals()).unwrap_or_default(),
        )
    }

    /// The counter's name.
    #[getter]
    fn counter(&self) -> &str {
        &self.counter
    }

    /// The number of messages in the current prompt.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "ChatSession({} messages, {} tokens, limit={})",
            self.inner.len(),
            self.inner.tokens(),
            self.inner.limit()
        )
    }
}
