//! `trim_chat`: the library's `ChatTrimmer` over OpenAI chat messages, with every
//! option of LangChain's `trim_messages`; `ctxbudget.langchain.trim_messages` is built
//! on it.
//!
//! Messages are counted one of two ways:
//!
//! - by a ctxbudget counter (`counter=`, `model=`, else `o200k_base`), in the OpenAI
//!   chat format, images and files as the library counts them, the GIL released;
//! - by the caller (`costs=`, one whole-message cost each, and `priming=` for the
//!   list): the library's `ChatFormat::precounted`, for LangChain's `token_counter`
//!   callables. A message kept in part then costs what `piece_counter` says of it
//!   with its kept text; the GIL is held, since that counter is Python.

use std::cell::RefCell;
use std::path::PathBuf;

use ctxbudget::chat::{ChatFormat, ChatMessage, ChatStrategy, ChatTrimmer, Role, ToolCallRef};
use ctxbudget::request::WireRequest;
use ctxbudget::request::openai::{ChatRequest, RequestMessage};
use ctxbudget::{TokenCounter, chat::TrimmedChat};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::counter::{PyCounter, choose_counter};
use crate::errors::{RequestError, TrimError};
use crate::json::dumps;

/// An OpenAI message whose whole cost the caller counted.
struct Precosted<'a> {
    message: &'a RequestMessage,
    cost: usize,
}

impl ChatMessage for Precosted<'_> {
    fn role(&self) -> Role {
        self.message.role()
    }
    fn content(&self) -> &str {
        self.message.content()
    }
    fn name(&self) -> Option<&str> {
        self.message.name()
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.message.tool_calls()
    }
    fn tool_call_id(&self) -> Option<&str> {
        self.message.tool_call_id()
    }
    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.message.tool_result_ids()
    }
    fn carries_user_content(&self) -> bool {
        self.message.carries_user_content()
    }
    fn starts_with_thinking(&self) -> bool {
        self.message.starts_with_thinking()
    }
    fn content_tokens<C: TokenCounter + ?Sized>(&self, _: &C) -> usize {
        self.cost
    }
}

/// The counter of the pieces of a message kept in part: a Python callable
/// `(index, start, end, text) -> int` that says what message `index` costs with only
/// the characters `start..end` of its text (`index` is -1 for a text that is no
/// piece of a message). Its first exception is kept and raised after the trim; the
/// pieces it could not count cost `usize::MAX`, so they are never kept.
struct PieceCounter<'py, 'm> {
    py: Python<'py>,
    callable: Option<Bound<'py, PyAny>>,
    texts: Vec<&'m str>,
    error: RefCell<Option<PyErr>>,
}

impl PieceCounter<'_, '_> {
    /// The message whose text `piece` is a slice of, and the piece's characters.
    fn locate(&self, piece: &str) -> Option<(usize, usize, usize)> {
        let at = piece.as_ptr() as usize;
        self.texts.iter().enumerate().find_map(|(index, text)| {
            let base = text.as_ptr() as usize;
            let offset = at.checked_sub(base)?;
            let end = offset.checked_add(piece.len())?;
            if piece.is_empty() || end > text.len() {
                return None;
            }
            let start = text.get(..offset)?.chars().count();
            Some((index, start, start + piece.chars().count()))
        })
    }
}

impl TokenCounter for PieceCounter<'_, '_> {
    fn count(&self, text: &str) -> usize {
        let Some(callable) = &self.callable else {
            return usize::MAX;
        };
        if self.error.borrow().is_some() {
            return usize::MAX;
        }
        let (index, start, end) = self.locate(text).map_or((-1, 0, 0), |(i, s, e)| {
            (isize::try_from(i).unwrap_or(-1), s, e)
        });
        match callable
            .call1((index, start, end, PyString::new(self.py, text)))
            .and_then(|n| n.extract::<usize>())
        {
            Ok(n) => n,
            Err(error) => {
                self.error.borrow_mut().get_or_insert(error);
                usize::MAX
            }
        }
    }
}

fn parse_roles(option: &str, roles: Vec<String>) -> PyResult<Vec<Role>> {
    roles
        .iter()
        .map(|role| match role.as_str() {
            "system" | "developer" => Ok(Role::System),
            "user" => Ok(Role::User),
            "assistant" => Ok(Role::Assistant),
            "tool" | "function" => Ok(Role::Tool),
            other => Err(PyValueError::new_err(format!(
                "{option} has the role {other:?}, which is not a chat role: use \"system\", \"user\", \"assistant\" or \"tool\""
            ))),
        })
        .collect()
}

/// The options of one trim, as the library's `ChatTrimmer` takes them.
struct Options {
    max_tokens: usize,
    strategy: ChatStrategy,
    include_system: bool,
    keep_latest_user: bool,
    start_on: Vec<Role>,
    end_on: Vec<Role>,
    allow_partial: bool,
}

impl Options {
    fn trimmer<C: TokenCounter>(&self, counter: C, format: ChatFormat) -> ChatTrimmer<C> {
        ChatTrimmer::new(counter, self.max_tokens)
            .with_format(format)
            .with_strategy(self.strategy)
            .with_include_system(self.include_system)
            .with_keep_latest_user(self.keep_latest_user)
            .with_start_on(self.start_on.iter().copied())
            .with_end_on(self.end_on.iter().copied())
            .with_allow_partial(self.allow_partial)
    }
}

/// What a trim kept, as plain data: the GIL-free part builds it, Python gets a dict.
struct Outcome {
    kept: Vec<usize>,
    tokens: usize,
    /// `(seq, start, end, boundary)`, in characters of the message's text.
    partial: Option<(usize, usize, usize, String)>,
    dropped: Vec<(usize, &'static str, Option<usize>)>,
}

impl Outcome {
    fn of<M: ChatMessage>(trimmed: &TrimmedChat<'_, M>) -> Self {
        let partial = trimmed.partial().and_then(|element| {
            let part = element.partial?;
            let text = element.message.content();
            let start = text.get(..part.start)?.chars().count();
            let end = start.checked_add(part.text.chars().count())?;
            Some((element.seq, start, end, format!("{:?}", part.boundary)))
        });
        Outcome {
            kept: trimmed.elements().iter().map(|e| e.seq).collect(),
            tokens: trimmed.tokens(),
            partial,
            dropped: trimmed
                .dropped()
                .iter()
                .map(|d| (d.seq, reason_name(d.reason), d.tokens))
                .collect(),
        }
    }

    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let out = PyDict::new(py);
        out.set_item("kept", self.kept)?;
        out.set_item("tokens", self.tokens)?;
        out.set_item("partial", self.partial)?;
        let dropped = PyList::empty(py);
        for (seq, reason, tokens) in self.dropped {
            dropped.append((seq, reason, tokens))?;
        }
        out.set_item("dropped", dropped)?;
        Ok(out)
    }
}

fn reason_name(reason: ctxbudget::chat::DropReason) -> &'static str {
    use ctxbudget::chat::DropReason;
    match reason {
        DropReason::Hook => "hook",
        DropReason::Unpaired => "unpaired",
        DropReason::OverBudget => "over_budget",
        DropReason::StartOnUser | DropReason::StartOn => "start_on",
        DropReason::EndOn => "end_on",
        _ => "other",
    }
}

/// Trims OpenAI chat messages to `max_tokens` with the library's `ChatTrimmer`: whole
/// messages are dropped, a tool call never without all its results nor a result
/// without its call.
///
/// `messages` is a list of OpenAI message dicts (or its JSON text). Returns a dict:
/// `kept` (the indices kept, in order), `tokens` (what they cost, reply priming
/// included), `partial` (`None`, or `(index, start, end, boundary)`: the message
/// kept in part and the characters of its text that are kept) and `dropped`
/// (`(index, reason, tokens or None)` tuples).
///
/// Counting: with `costs=` (one `int` per message, each message's whole cost) and
/// `priming=` (what an empty list costs), the caller's counts; a message kept in part
/// is then counted by `piece_counter(index, start, end, text) -> int`: what message
/// `index` costs with only the characters `start..end` of its text. Otherwise a ctxbudget counter
/// (`counter=`, `model=`, `encoding=`, `tokenizer=`; default `o200k_base`) in the
/// OpenAI chat format.
///
/// >>> from ctxbudget._ctxbudget import trim_chat
/// >>> msgs = [{"role": "user", "content": "one " * 50}, {"role": "assistant", "content": "ok"},
/// ...         {"role": "user", "content": "and now?"}]
/// >>> trim_chat(msgs, 30)["kept"]
/// [1, 2]
#[pyfunction]
#[pyo3(signature = (
    messages, max_tokens, *, costs = None, priming = 0, piece_counter = None,
    counter = None, model = None, encoding = None, tokenizer = None,
    strategy = "last", include_system = true, keep_latest_user = true,
    start_on = Vec::new(), end_on = Vec::new(), allow_partial = false,
))]
#[allow(clippy::too_many_arguments)] // keyword arguments, as LangChain's
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts owned arguments
pub fn trim_chat<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    max_tokens: usize,
    costs: Option<Vec<usize>>,
    priming: usize,
    piece_counter: Option<Bound<'py, PyAny>>,
    counter: Option<PyCounter>,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    strategy: &str,
    include_system: bool,
    keep_latest_user: bool,
    start_on: Vec<String>,
    end_on: Vec<String>,
    allow_partial: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let messages_json = if let Ok(text) = messages.cast::<PyString>() {
        text.extract::<String>()?
    } else if messages.cast::<PyList>().is_ok() {
        dumps(messages)?
    } else {
        return Err(PyTypeError::new_err(
            "messages must be a list of OpenAI message dicts or its JSON text",
        ));
    };
    let strategy = match strategy {
        "last" => ChatStrategy::KeepLast,
        "first" => ChatStrategy::KeepFirst,
        other => {
            return Err(PyValueError::new_err(format!(
                "strategy is {other:?}: use \"last\" (keep the latest messages) or \"first\""
            )));
        }
    };
    let options = Options {
        max_tokens,
        strategy,
        include_system,
        keep_latest_user,
        start_on: parse_roles("start_on", start_on)?,
        end_on: parse_roles("end_on", end_on)?,
        allow_partial,
    };
    let model_field = match model {
        Some(name) => format!("\"model\":{},", serde_json::Value::from(name)),
        None => String::new(),
    };
    let body = format!("{{{model_field}\"messages\":{messages_json}}}");
    let request = py
        .detach(|| ChatRequest::from_json(&body))
        .map_err(|e| RequestError::new_err(e.to_string()))?;
    let trim_error = |e: ctxbudget::chat::ChatTrimError| TrimError::new_err(e.to_string());

    if let Some(costs) = costs {
        let messages = request.messages();
        if costs.len() != messages.len() {
            return Err(PyValueError::new_err(format!(
                "costs has {} entries for {} messages: give one cost per message",
                costs.len(),
                messages.len()
            )));
        }
        let history: Vec<Precosted<'_>> = messages
            .iter()
            .zip(costs)
            .map(|(message, cost)| Precosted { message, cost })
            .collect();
        let pieces = PieceCounter {
            py,
            callable: piece_counter,
            texts: messages.iter().map(ChatMessage::content).collect(),
            error: RefCell::new(None),
        };
        let format = ChatFormat::precounted().with_reply_priming(priming);
        let trimmer = options.trimmer(&pieces as &dyn TokenCounter, format);
        let outcome = trimmer.trim(&history).map(|t| Outcome::of(&t));
        if let Some(error) = pieces.error.into_inner() {
            return Err(error);
        }
        return outcome.map_err(trim_error)?.into_dict(py);
    }

    let counter = choose_counter(py, model, encoding, tokenizer, counter)?;
    let outcome = py.detach(|| {
        let trimmer = options.trimmer(&*counter.inner, request.chat_format());
        trimmer.trim(request.messages()).map(|t| Outcome::of(&t))
    });
    outcome.map_err(trim_error)?.into_dict(py)
}
