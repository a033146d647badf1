//! [`RequestError`]: why a request body could not be read, checked or fitted.

use thiserror::Error;

/// Why a request body could not be read, checked or fitted; every message says what
/// was wrong and how to fix it.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The body is not JSON of the expected shape: serde's message (with the line and
    /// column) and what ctxbudget expected there.
    #[error("{format} request body: {source} ({expected})")]
    Json {
        /// Which format was being read.
        format: super::wire::RequestFormat,
        /// What ctxbudget expected.
        expected: &'static str,
        /// serde's error, with its position.
        #[source]
        source: serde_json::Error,
    },
    /// The body is not JSON at all, so its format could not be told.
    #[error(
        "the request body is not JSON: {source}; send a JSON object with `messages` (`input` for OpenAI Responses, `contents` for Gemini)"
    )]
    NotJson {
        /// serde's error, with its position.
        #[source]
        source: serde_json::Error,
    },
    /// The body is JSON, but no request of any format ctxbudget reads: it is not an
    /// object, or it has none of the fields that make one
    /// ([`detect_format`](super::detect_format)).
    #[error(
        "the request body is {found}, so it is no request of a format ctxbudget reads; send `messages` (Chat Completions, Anthropic, Bedrock), `input` (Responses) or `contents` (Gemini)"
    )]
    UnknownFormat {
        /// What the body is instead.
        found: &'static str,
    },
    /// A client's request value did not serialize to JSON
    /// ([`RequestFitter::fit_serde`](super::RequestFitter::fit_serde)).
    #[error(
        "the request value did not serialize to JSON: {source}; its `Serialize` impl must write a JSON object (maps need string keys)"
    )]
    Serialize {
        /// serde's error.
        #[source]
        source: serde_json::Error,
    },
    /// The fitted body did not deserialize back into the client's request type
    /// ([`RequestFitter::fit_serde`](super::RequestFitter::fit_serde)).
    #[error(
        "the fitted {format} body does not read back into the request type: {source}; the type requires something the fit removed, so fit its JSON instead"
    )]
    Deserialize {
        /// The format the body was read and written in.
        format: super::wire::RequestFormat,
        /// serde's error, with its position in the fitted body.
        #[source]
        source: serde_json::Error,
    },
    /// A tool result answers a call id that no earlier assistant message made.
    #[error(
        "message {message}: a tool result answers call id `{id}`, which no assistant message right before it makes; remove the result or add its call"
    )]
    OrphanToolResult {
        /// The index of the message in `messages`.
        message: usize,
        /// The call id it answers.
        id: String,
    },
    /// A tool call has no result in the messages right after it.
    #[error(
        "message {message}: tool call `{id}` has no result in the messages right after it; add the result or remove the call"
    )]
    UnansweredToolCall {
        /// The index of the assistant message in `messages`.
        message: usize,
        /// The call id.
        id: String,
    },
    /// Two tool calls share one id, so results cannot be paired.
    #[error(
        "messages {first} and {second}: two tool calls share the id `{id}`; call ids must be unique in a request"
    )]
    DuplicateCallId {
        /// The call id.
        id: String,
        /// The message of the first call.
        first: usize,
        /// The message of the second.
        second: usize,
    },
    /// A field outside the messages is not what the format allows (`messages`
    /// empty, a tool without a name, a system block that is not text, ...).
    #[error("`{field}` {problem}")]
    InvalidField {
        /// The field, as a path (`messages`, `tools[2]`, `system[0]`).
        field: String,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// A message is not where or what the format allows (a `tool_result` block that
    /// is not at the start of its user message, content of the wrong type, ...).
    #[error("message {message}: {problem}")]
    InvalidMessage {
        /// The index of the message in `messages`.
        message: usize,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// A block of a message is one the provider rejects: image data that does not
    /// decode or does not hold the size its header claims, an image over the
    /// provider's limits, a PDF of more pages than the provider takes.
    #[error("message {message}, block {block}: {problem}")]
    InvalidContent {
        /// The index of the message in `messages`.
        message: usize,
        /// The index of the block (content part) in the message's content.
        block: usize,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// What must stay in the request is over its input limit: the fields outside
    /// the messages, the system messages and the latest user message with the tool
    /// calls it answers, and the reply priming.
    #[error(
        "the request needs at least {needed} input tokens for what must stay, {over} over the limit of {limit}: raise the limit, or shorten the tools, system prompt or latest message"
    )]
    DoesNotFit {
        /// What must stay costs; `usize::MAX` when too large to count.
        needed: usize,
        /// The input limit.
        limit: usize,
        /// `needed - limit`.
        over: usize,
    },
    /// An Anthropic request ends in a tool-use loop that started with thinking: the
    /// loop stays whole (a later step without the thinking is rejected), and with
    /// what must stay besides it is over the input limit.
    #[error(
        "keeping the unfinished tool loop whole with its thinking needs at least {needed} input tokens, {over} over the limit of {limit}: raise the limit, or fit after the loop"
    )]
    ToolLoopDoesNotFit {
        /// What must stay costs, the loop included; `usize::MAX` when too large to
        /// count.
        needed: usize,
        /// The input limit.
        limit: usize,
        /// `needed - limit`.
        over: usize,
    },
    /// The fitter was asked to fit without a limit.
    #[error(
        "no input limit: call `with_max_input` or `with_window` on the RequestFitter before fitting"
    )]
    NoLimit,
    /// The output reservation is the whole window or more, so no input fits.
    #[error(
        "the output reservation of {output} tokens leaves no input in a window of {window}: lower the request's `max_tokens` / `max_completion_tokens` or the default output"
    )]
    OutputOverWindow {
        /// The output reserved.
        output: usize,
        /// The window.
        window: usize,
    },
    /// A provider's context-overflow error states no token counts, so how far to
    /// lower the limit is unknown.
    #[error(
        "the {provider} overflow error states no token counts, so the excess is unknown: fit again with a lower `with_max_input`"
    )]
    OverflowWithoutCounts {
        /// Whose error it is.
        provider: &'static str,
    },
}
