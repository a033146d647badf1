//! Provider requests in and out: count a whole request body as the provider bills it
//! and trim it to the model's window by removing whole messages, never touching a
//! kept one.
//!
//! - [`openai`]: OpenAI Chat Completions request bodies.
//! - [`anthropic`]: Anthropic Messages request bodies.
//!
//! Both parse losslessly: a body that is not trimmed serializes back to an equal JSON
//! value, with fields and block types ctxbudget does not know kept as they were.
//! Their messages implement [`ChatMessage`], so
//! [`ChatTrimmer`](crate::ChatTrimmer), its `on_trim` hook and its tool-pairing
//! guarantee work on them directly. [`WireRequest`] is what the two formats have in
//! common: what the request costs outside its messages, how it is checked and how
//! messages are removed.
//!
//! # Requests of Rust clients
//!
//! A client's request type that serializes to a Chat Completions body, such as
//! async-openai's `CreateChatCompletionRequest`, fits through serde in two lines: to
//! JSON and into [`openai::ChatRequest`], and after fitting back the same way. The
//! fitted body has whole messages removed and nothing else changed, so it reads back
//! into the client's type. (A `serde_json::Value` stands in for the client's type
//! here; with async-openai, write its type instead.)
//!
//! ```
//! use ctxbudget::request::{RequestFitter, openai::ChatRequest};
//!
//! # type CreateChatCompletionRequest = serde_json::Value;
//! let req: CreateChatCompletionRequest = serde_json::from_str(r#"{"model": "gpt-4o", "messages": [
//!     {"role": "system", "content": "Be brief."},
//!     {"role": "user", "content": "An old question, far too long to keep in a small window."},
//!     {"role": "assistant", "content": "An old answer, just as long as the old question was."},
//!     {"role": "user", "content": "What is 2 + 2?"}
//! ]}"#)?;
//!
//! let request = ChatRequest::from_json(&serde_json::to_string(&req)?)?;
//! let words = |t: &str| t.split_whitespace().count();
//! let fitted = RequestFitter::new(words).with_max_input(40).fit(request)?;
//! let req: CreateChatCompletionRequest = serde_json::from_str(&fitted.request.to_json())?;
//!
//! assert_eq!(req["messages"].as_array().map(Vec::len), Some(2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod anthropic;
mod detect;
mod error;
mod fit;
pub mod image;
pub mod openai;
mod prompt;
mod report;

pub use detect::{detect_format, detect_value};
pub use error::RequestError;
pub use fit::{DEFAULT_OUTPUT, FittedRequest, InputLimit, RequestCount, RequestFitter};
pub use report::{DroppedRequestMessage, OutputReservation, RequestReport};

use std::fmt;

use crate::chat::edit::EditableMessage;
use crate::chat::{ChatFormat, ChatMessage};
use crate::count::TokenCounter;

/// The wire formats ctxbudget reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RequestFormat {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    OpenAiChat,
    /// Anthropic Messages (`POST /v1/messages`).
    AnthropicMessages,
}

impl RequestFormat {
    /// The format's name, as reports print it.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestFormat::OpenAiChat => "OpenAI Chat Completions",
            RequestFormat::AnthropicMessages => "Anthropic Messages",
        }
    }
}

#[cfg(feature = "tiktoken")]
impl RequestFormat {
    /// The format that reads and trims request bodies of a catalogue model's API, if
    /// ctxbudget has one.
    ///
    /// ```
    /// use ctxbudget::models::Model;
    /// use ctxbudget::request::RequestFormat;
    ///
    /// let api = Model::lookup("claude-sonnet-4-5")?.api();
    /// assert_eq!(RequestFormat::for_api(api), Some(RequestFormat::AnthropicMessages));
    /// assert_eq!(RequestFormat::for_api(Model::lookup("gemini-2.5-pro")?.api()), None);
    /// # Ok::<(), ctxbudget::models::ModelNotFound>(())
    /// ```
    pub const fn for_api(api: crate::models::ApiFormat) -> Option<Self> {
        use crate::models::ApiFormat;
        match api {
            ApiFormat::OpenAiChat => Some(RequestFormat::OpenAiChat),
            ApiFormat::AnthropicMessages => Some(RequestFormat::AnthropicMessages),
            _ => None,
        }
    }
}

impl fmt::Display for RequestFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Something a count rests on that ctxbudget could not know exactly: the count is an
/// estimate, and the report says why.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Assumption {
    /// An image given by a remote URL: its size is unknown without downloading it, so
    /// it is counted at the most the provider bills for one image.
    RemoteImage {
        /// The index of the message in the request's `messages`.
        message: usize,
        /// The tokens it was counted at.
        assumed_tokens: usize,
    },
    /// An image whose data ctxbudget could not read a size from (not one of the
    /// formats it knows, or corrupt): counted at the most the provider bills.
    UnreadableImage {
        /// The index of the message in the request's `messages`.
        message: usize,
        /// The tokens it was counted at.
        assumed_tokens: usize,
    },
    /// A part the provider bills by rules it does not publish (audio, files, PDF
    /// documents): counted as described.
    UnpublishedRule {
        /// The index of the message in `messages`, or `None` outside the messages.
        message: Option<usize>,
        /// What was counted and how.
        what: &'static str,
    },
}

impl fmt::Display for Assumption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Assumption::RemoteImage {
                message,
                assumed_tokens,
            } => write!(
                f,
                "message {message}: an image at a remote URL, size unknown, counted at the maximum of {assumed_tokens} tokens"
            ),
            Assumption::UnreadableImage {
                message,
                assumed_tokens,
            } => write!(
                f,
                "message {message}: an image whose size could not be read, counted at the maximum of {assumed_tokens} tokens"
            ),
            Assumption::UnpublishedRule {
                message: Some(message),
                what,
            } => write!(f, "message {message}: {what}"),
            Assumption::UnpublishedRule {
                message: None,
                what,
            } => f.write_str(what),
        }
    }
}

/// What part of a request costs, and what the count assumed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct RequestCost {
    /// The tokens.
    pub tokens: usize,
    /// Why the count is an estimate; empty when it is exact (as exact as the counter).
    pub assumptions: Vec<Assumption>,
}

/// A provider request body whose messages ctxbudget can count and trim.
///
/// Implemented by the request types of [`openai`] and [`anthropic`].
pub trait WireRequest: Sized {
    /// The request's message type, which the [editing engine](crate::chat::edit)
    /// can edit in place.
    type Message: ChatMessage + EditableMessage;

    /// Which wire format this is.
    const FORMAT: RequestFormat;

    /// The messages, in order.
    fn messages(&self) -> &[Self::Message];

    /// The per-message overhead of this format, as [`ChatTrimmer`](crate::ChatTrimmer)
    /// should count it.
    fn chat_format(&self) -> ChatFormat;

    /// What the request costs outside its messages (tool definitions, a top-level
    /// system prompt), and what that count assumed.
    fn fixed_cost<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost;

    /// What counting the messages assumed (remote images of unknown size, ...).
    fn message_assumptions(&self) -> Vec<Assumption>;

    /// Checks the request is one the provider accepts, as far as trimming depends on
    /// it: every tool result follows its call, call ids are unique, blocks are where
    /// the provider wants them.
    ///
    /// # Errors
    ///
    /// The first problem found, with the message index and what to fix.
    fn validate(&self) -> Result<(), RequestError>;

    /// Runs `edit` on the messages, which it may change in place (never add, remove
    /// or reorder), then brings up to date what the request works out from them
    /// (Anthropic: whose thinking counts).
    fn edit_messages<T>(&mut self, edit: impl FnOnce(&mut [Self::Message]) -> T) -> T;

    /// Keeps exactly the messages whose `keep[i]` is true, in order, untouched.
    /// `keep` has one entry per message.
    fn retain_messages(&mut self, keep: &[bool]);

    /// The `model` field, if the body has one.
    fn model(&self) -> Option<&str>;

    /// The output limit the body asks for (`max_completion_tokens` or `max_tokens`),
    /// if it sets one.
    fn max_output_tokens(&self) -> Option<u64>;
}
