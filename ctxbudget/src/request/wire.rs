//! What every wire format shares, below the formats that use it: [`RequestFormat`],
//! the [`Assumption`]s a count can rest on, [`RequestCost`], and the
//! [`WireRequest`] seam that the fitter works through.

use std::fmt;

use super::error::RequestError;
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
    /// OpenAI Responses (`POST /v1/responses`).
    OpenAiResponses,
    /// Gemini `generateContent` (`POST .../models/{model}:generateContent`).
    GeminiGenerateContent,
    /// Amazon Bedrock Converse (`POST /model/{modelId}/converse`).
    BedrockConverse,
}

impl RequestFormat {
    /// The format's name, as reports print it.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestFormat::OpenAiChat => "OpenAI Chat Completions",
            RequestFormat::AnthropicMessages => "Anthropic Messages",
            RequestFormat::OpenAiResponses => "OpenAI Responses",
            RequestFormat::GeminiGenerateContent => "Gemini generateContent",
            RequestFormat::BedrockConverse => "Bedrock Converse",
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
    /// assert_eq!(
    ///     RequestFormat::for_api(Model::lookup("gemini-2.5-pro")?.api()),
    ///     Some(RequestFormat::GeminiGenerateContent)
    /// );
    /// # Ok::<(), ctxbudget::models::ModelNotFound>(())
    /// ```
    pub const fn for_api(api: crate::models::ApiFormat) -> Option<Self> {
        use crate::models::ApiFormat;
        match api {
            ApiFormat::OpenAiChat => Some(RequestFormat::OpenAiChat),
            ApiFormat::AnthropicMessages => Some(RequestFormat::AnthropicMessages),
            ApiFormat::GeminiGenerateContent => Some(RequestFormat::GeminiGenerateContent),
            ApiFormat::OpenAiResponses => Some(RequestFormat::OpenAiResponses),
            ApiFormat::BedrockConverse => Some(RequestFormat::BedrockConverse),
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
/// Implemented by the request types of [`openai`](super::openai),
/// [`anthropic`](super::anthropic), [`responses`](super::responses),
/// [`gemini`](super::gemini) and [`bedrock`](super::bedrock).
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

    /// For a format where what a message costs depends on the messages after it,
    /// how much each message's count rises once only the messages of `keep` are
    /// left (one entry per message; 0 for a dropped one); with `keep` `None`, the
    /// most it can rise by, whatever is dropped. `None` (the default) when no
    /// message's cost depends on what follows it.
    ///
    /// Anthropic's: the thinking of earlier turns, which models that keep only the
    /// last turns' thinking do not count, counts again once the turns after it are
    /// dropped. A fit checks what it kept with this, so that its report recounts.
    fn count_rises<C: TokenCounter + ?Sized>(
        &self,
        keep: Option<&[bool]>,
        counter: &C,
    ) -> Option<Vec<usize>> {
        let _ = (keep, counter);
        None
    }

    /// The `model` field, if the body has one.
    fn model(&self) -> Option<&str>;

    /// The output limit the body asks for (`max_completion_tokens` or `max_tokens`),
    /// if it sets one.
    fn max_output_tokens(&self) -> Option<u64>;
}

/// Keeps the items whose `keep[i]` is true, in order, for
/// [`WireRequest::retain_messages`]; an item past the end of `keep` stays.
pub(super) fn retain_kept<T>(items: &mut Vec<T>, keep: &[bool]) {
    let mut flags = keep.iter();
    items.retain(|_| flags.next().copied().unwrap_or(true));
}
