//! Chat history: count a conversation as the provider does and trim it to a budget
//! without ever breaking a tool call apart from its results.
//!
//! - [`Message`] is a ready-made message; [`ChatMessage`] lets your own message type
//!   be trimmed in place, borrowed, never copied.
//! - [`ChatFormat`] adds the chat format's overhead to each message (OpenAI's by
//!   default, as tiktoken-rs's `num_tokens_from_messages` and the OpenAI cookbook
//!   count it).
//! - [`ChatTrimmer`] hands a [`TrimContext`] to your `on_trim` hook (seed 001), then
//!   drops whole messages until the history fits.
//!
//! How tool calls and their results are kept together is described on [`ChatTrimmer`].

use std::collections::HashSet;
use std::fmt;

use thiserror::Error;

use crate::TokenCounter;

/// Who wrote a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Instructions for the model; kept by the default trimming policy.
    System,
    /// The person talking to the model; the latest user message is kept.
    User,
    /// The model's replies, including its tool calls.
    Assistant,
    /// The result of a tool call.
    Tool,
}

impl Role {
    /// The role's name in the OpenAI chat format: `system`, `user`, `assistant` or
    /// `tool`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A tool call the assistant made: an id that results refer to, the tool's name and
/// its arguments (usually JSON).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolCall {
    /// The call id; a [`Tool`](Role::Tool) message answers it with the same
    /// [`tool_call_id`](Message::tool_call_id).
    pub id: String,
    /// The name of the tool.
    pub name: String,
    /// The arguments, as the model wrote them.
    pub arguments: String,
}

impl ToolCall {
    /// A tool call with its id, tool name and arguments.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// A borrowed view, as [`ChatMessage::tool_calls`] yields it.
    pub fn as_ref(&self) -> ToolCallRef<'_> {
        ToolCallRef {
            id: &self.id,
            name: &self.name,
            arguments: &self.arguments,
        }
    }
}

/// A borrowed tool call: what [`ChatMessage::tool_calls`] yields, so a message type
/// of your own need not store [`ToolCall`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToolCallRef<'a> {
    /// The call id.
    pub id: &'a str,
    /// The name of the tool.
    pub name: &'a str,
    /// The arguments.
    pub arguments: &'a str,
}

/// A chat message: a role, content, an optional name, and the tool calls or the
/// tool-call id that pair tool calls with their results.
///
/// ```
/// use ctxbudget::{Message, Role, ToolCall};
///
/// let history = vec![
///     Message::system("You are terse."),
///     Message::user("Weather in Paris and Rome?"),
///     Message::assistant("")
///         .with_tool_call(ToolCall::new("call_1", "weather", r#"{"city":"Paris"}"#))
///         .with_tool_call(ToolCall::new("call_2", "weather", r#"{"city":"Rome"}"#)),
///     Message::tool("call_1", "18°C, cloudy"),
///     Message::tool("call_2", "24°C, sunny"),
/// ];
/// assert_eq!(history[3].role, Role::Tool);
/// assert_eq!(history[2].tool_calls.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text.
    pub content: String,
    /// An optional participant name (OpenAI's `name` field).
    pub name: Option<String>,
    /// The tool calls of an assistant message.
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool message answers.
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A message with a role and content, no name and no tool calls.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            name: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// A [`System`](Role::System) message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }

    /// A [`User`](Role::User) message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }

    /// An [`Assistant`](Role::Assistant) message; add tool calls with
    /// [`with_tool_call`](Message::with_tool_call).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }

    /// A [`Tool`](Role::Tool) message answering the call `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(tool_call_id.into()),
            ..Self::new(Role::Tool, content)
        }
    }

    /// Sets the participant name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Adds a tool call.
    #[must_use]
    pub fn with_tool_call(mut self, call: ToolCall) -> Self {
        self.tool_calls.push(call);
        self
    }
}

/// A chat message that can be counted and trimmed: implement it for your own message
/// type and trim a `&[YourMessage]` without converting or copying it.
///
/// Only [`role`](ChatMessage::role) and [`content`](ChatMessage::content) are
/// required. Implement [`tool_calls`](ChatMessage::tool_calls) and
/// [`tool_call_id`](ChatMessage::tool_call_id) if your messages carry tool calls:
/// ctxbudget pairs calls with results through them.
///
/// ```
/// use ctxbudget::{CharEstimate, ChatMessage, ChatTrimmer, Role};
///
/// struct Line { from_bot: bool, text: String }
///
/// impl ChatMessage for Line {
///     fn role(&self) -> Role { if self.from_bot { Role::Assistant } else { Role::User } }
///     fn content(&self) -> &str { &self.text }
/// }
///
/// let chat: Vec<Line> = (0..10)
///     .map(|i| Line { from_bot: i % 2 == 1, text: format!("message number {i}") })
///     .collect();
/// let trimmed = ChatTrimmer::new(CharEstimate, 40).trim(&chat)?;
/// // The latest user message always survives; the oldest ones went first.
/// assert_eq!(trimmed.messages().first().unwrap().text, "message number 6");
/// # Ok::<(), ctxbudget::ChatTrimError>(())
/// ```
pub trait ChatMessage {
    /// Who wrote the message.
    fn role(&self) -> Role;

    /// The message text.
    fn content(&self) -> &str;

    /// The participant name, if any. Default: none.
    fn name(&self) -> Option<&str> {
        None
    }

    /// The tool calls this (assistant) message makes. Default: none.
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        std::iter::empty()
    }

    /// The call this (tool) message answers. Default: none.
    fn tool_call_id(&self) -> Option<&str> {
        None
    }
}

impl ChatMessage for Message {
    fn role(&self) -> Role {
        self.role
    }
    fn content(&self) -> &str {
        &self.content
    }
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.tool_calls.iter().map(ToolCall::as_ref)
    }
    fn tool_call_id(&self) -> Option<&str> {
        self.tool_call_id.as_deref()
    }
}

macro_rules! forward_chat_message {
    ($($pointer:ty),* $(,)?) => {$(
        impl<T: ChatMessage + ?Sized> ChatMessage for $pointer {
            fn role(&self) -> Role {
                (**self).role()
            }
            fn content(&self) -> &str {
                (**self).content()
            }
            fn name(&self) -> Option<&str> {
                (**self).name()
            }
            fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
                (**self).tool_calls()
            }
            fn tool_call_id(&self) -> Option<&str> {
                (**self).tool_call_id()
            }
        }
    )*};
}

// A history of references or shared pointers trims like a history of messages.
forward_chat_message!(&T, Box<T>, std::rc::Rc<T>, std::sync::Arc<T>);

/// The token overhead a chat format adds around messages.
///
/// A message costs `tokens_per_message`, plus the tokens of its role and content,
/// plus the tokens of its name and `tokens_per_name` when it has one, plus, for each
/// tool call, the tokens of the tool's name and arguments and `tokens_per_tool_call`.
/// A whole request adds `reply_priming` once (the `<|start|>assistant<|message|>` that
/// primes the reply).
///
/// [`ChatFormat::openai`] (the default) is the OpenAI cookbook's accounting for
/// current models (3 per message, 1 per name, 3 for the reply), with tool calls
/// counted as tiktoken-rs's `num_tokens_from_messages` counts them (name, arguments
/// and 1 more). OpenAI does not publish how tool calls and call ids are serialized,
/// so those terms are an estimate (call ids are not counted): set
/// [`with_tokens_per_tool_call`](ChatFormat::with_tokens_per_tool_call) from the
/// `usage` your provider reports, or leave headroom in the budget.
///
/// ```
/// use ctxbudget::{ChatFormat, Message};
///
/// let words = |t: &str| t.split_whitespace().count();
/// let chat = [Message::user("hello there")];
/// // 3 per message + 1 ("user") + 2 ("hello there") + 3 to prime the reply.
/// assert_eq!(ChatFormat::openai().count_messages(&words, &chat), 9);
/// assert_eq!(ChatFormat::content_only().count_messages(&words, &chat), 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChatFormat {
    tokens_per_message: usize,
    tokens_per_name: usize,
    tokens_per_tool_call: usize,
    reply_priming: usize,
}

impl Default for ChatFormat {
    fn default() -> Self {
        Self::openai()
    }
}

impl ChatFormat {
    /// OpenAI's chat format: 3 tokens per message, 1 per name, 1 per tool call and 3
    /// to prime the reply; the role's name is counted like text.
    pub const fn openai() -> Self {
        Self {
            tokens_per_message: 3,
            tokens_per_name: 1,
            tokens_per_tool_call: 1,
            reply_priming: 3,
        }
    }

    /// No overhead: a message costs its role, content, name and tool calls as text,
    /// and nothing is added per message or per request. Combine with the `with_*`
    /// methods to describe another provider.
    pub const fn content_only() -> Self {
        Self {
            tokens_per_message: 0,
            tokens_per_name: 0,
            tokens_per_tool_call: 0,
            reply_priming: 0,
        }
    }

    /// Sets the fixed cost of every message.
    #[must_use]
    pub const fn with_tokens_per_message(mut self, tokens: usize) -> Self {
        self.tokens_per_message = tokens;
        self
    }

    /// Sets the extra cost of a message that has a name.
    #[must_use]
    pub const fn with_tokens_per_name(mut self, tokens: usize) -> Self {
        self.tokens_per_name = tokens;
        self
    }

    /// Sets the fixed cost of each tool call, on top of its name and arguments.
    #[must_use]
    pub const fn with_tokens_per_tool_call(mut self, tokens: usize) -> Self {
        self.tokens_per_tool_call = tokens;
        self
    }

    /// Sets the cost added once per request to prime the reply.
    #[must_use]
    pub const fn with_reply_priming(mut self, tokens: usize) -> Self {
        self.reply_priming = tokens;
        self
    }

    /// The fixed cost of every message.
    pub const fn tokens_per_message(&self) -> usize {
        self.tokens_per_message
    }

    /// The extra cost of a named message.
    pub const fn tokens_per_name(&self) -> usize {
        self.tokens_per_name
    }

    /// The fixed cost of each tool call.
    pub const fn tokens_per_tool_call(&self) -> usize {
        self.tokens_per_tool_call
    }

    /// The cost added once per request.
    pub const fn reply_priming(&self) -> usize {
        self.reply_priming
    }

    /// What one message costs in this format (without the reply priming).
    pub fn message_tokens<C, M>(&self, counter: &C, message: &M) -> usize
    where
        C: TokenCounter + ?Sized,
        M: ChatMessage + ?Sized,
    {
        let mut tokens = self
            .tokens_per_message
            .saturating_add(counter.count(message.role().as_str()))
            .saturating_add(counter.count(message.content()));
        if let Some(name) = message.name() {
            tokens = tokens
                .saturating_add(counter.count(name))
                .saturating_add(self.tokens_per_name);
        }
        for call in message.tool_calls() {
            tokens = tokens
                .saturating_add(self.tokens_per_tool_call)
                .saturating_add(counter.count(call.name))
                .saturating_add(counter.count(call.arguments));
        }
        tokens
    }

    /// What a request with these messages costs: every message plus the reply
    /// priming.
    pub fn count_messages<C, M>(&self, counter: &C, messages: &[M]) -> usize
    where
        C: TokenCounter + ?Sized,
        M: ChatMessage,
    {
        messages.iter().fold(self.reply_priming, |sum, m| {
            sum.saturating_add(self.message_tokens(counter, m))
        })
    }
}

/// The budget a [`TrimContext`] reports: the limit for the whole request, of which
/// the chat format's reply priming is reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryBudget {
    limit: usize,
    reserved: usize,
}

impl HistoryBudget {
    /// A budget of `limit` tokens for the whole request, nothing reserved.
    pub const fn new(limit: usize) -> Self {
        Self { limit, reserved: 0 }
    }

    /// Reserves `tokens` of the limit (for the reply priming, say).
    #[must_use]
    pub const fn with_reserved(mut self, tokens: usize) -> Self {
        self.reserved = tokens;
        self
    }

    /// The limit for the whole request.
    pub const fn limit(&self) -> usize {
        self.limit
    }

    /// The reserved part of the limit.
    pub const fn reserved(&self) -> usize {
        self.reserved
    }

    /// Tokens still available to messages once `used` are spent:
    /// `limit - reserved - used`, or 0 when that would be negative.
    ///
    /// ```
    /// use ctxbudget::HistoryBudget;
    ///
    /// let budget = HistoryBudget::new(100).with_reserved(3);
    /// assert_eq!(budget.available(0), 97);
    /// assert_eq!(budget.available(90), 7);
    /// assert_eq!(budget.available(1_000), 0);
    /// ```
    pub const fn available(&self, used: usize) -> usize {
        self.limit
            .saturating_sub(self.reserved)
            .saturating_sub(used)
    }
}

/// One message of the history as a [`TrimContext`] and a [`TrimmedChat`] show it.
#[derive(Debug)]
pub struct ChatElement<'m, M> {
    /// Its position in the caller's history, 0-based in load order. Seqs never change:
    /// removing a message does not renumber the others.
    pub seq: usize,
    /// The caller's message, borrowed.
    pub message: &'m M,
    /// What it costs, chat format overhead included.
    pub tokens: usize,
    /// Its role.
    pub role: Role,
}

impl<M> Clone for ChatElement<'_, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for ChatElement<'_, M> {}

/// Seq numbers for [`TrimContext::remove`]: one `usize`, or a slice, array, `Vec`
/// or range of them.
pub trait IntoSeqs {
    /// The seqs, of a history of `len` messages: seqs at or past `len` are unknown
    /// and may be left out (a range such as `3..usize::MAX` is cut to `3..len`).
    fn into_seqs(self, len: usize) -> impl Iterator<Item = usize>;
}

impl IntoSeqs for usize {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        std::iter::once(self)
    }
}

impl IntoSeqs for &[usize] {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        self.iter().copied()
    }
}

impl<const N: usize> IntoSeqs for [usize; N] {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        self.into_iter()
    }
}

impl IntoSeqs for Vec<usize> {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        self.into_iter()
    }
}

impl IntoSeqs for &Vec<usize> {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        self.iter().copied()
    }
}

impl IntoSeqs for std::ops::Range<usize> {
    fn into_seqs(self, len: usize) -> impl Iterator<Item = usize> {
        self.start.min(len)..self.end.min(len)
    }
}

impl IntoSeqs for std::ops::RangeInclusive<usize> {
    fn into_seqs(self, len: usize) -> impl Iterator<Item = usize> {
        let (start, end) = self.into_inner();
        start.min(len)..end.saturating_add(1).min(len)
    }
}

/// What an `on_trim` hook receives before the call (seed 001's `TrimContext`): the
/// history's messages with their seq numbers and costs, the budget, and
/// [`remove`](TrimContext::remove) to drop messages by seq.
///
/// Removing only affects this trim: the caller's history is borrowed and never
/// modified. After the hook, [`ChatTrimmer`] repairs tool-call pairing and applies its
/// policy to what is left.
///
/// ```
/// use ctxbudget::{CharEstimate, ChatTrimmer, Message};
///
/// let history: Vec<Message> = (0..6).map(|i| Message::user(format!("question {i}"))).collect();
/// let trimmed = ChatTrimmer::new(CharEstimate, 48).trim_with(&history, |ctx| {
///     // Drop the oldest two when over 90 % of what is available.
///     if ctx.total_tokens() > ctx.budget().available(0) * 9 / 10 {
///         let oldest: Vec<usize> = ctx.message_elements().iter().take(2).map(|e| e.seq).collect();
///         ctx.remove(oldest);
///     }
/// })?;
/// assert_eq!(trimmed.elements()[0].seq, 2);
/// # Ok::<(), ctxbudget::ChatTrimError>(())
/// ```
#[derive(Debug)]
pub struct TrimContext<'m, M> {
    elements: Vec<ChatElement<'m, M>>,
    removed: Vec<bool>,
    total_tokens: usize,
    budget: HistoryBudget,
}

impl<'m, M> TrimContext<'m, M> {
    fn new(elements: Vec<ChatElement<'m, M>>, budget: HistoryBudget) -> Self {
        let total_tokens = sum_tokens(&elements);
        Self {
            removed: vec![false; elements.len()],
            elements,
            total_tokens,
            budget,
        }
    }

    /// The budget of this trim; compare [`total_tokens`](TrimContext::total_tokens)
    /// with [`available(0)`](HistoryBudget::available).
    pub fn budget(&self) -> HistoryBudget {
        self.budget
    }

    /// What the current messages cost together (chat format overhead per message
    /// included; the reply priming is the budget's reserved part).
    pub fn total_tokens(&self) -> usize {
        self.total_tokens
    }

    /// A snapshot of the current elements, in seq order.
    pub fn message_elements(&self) -> Vec<ChatElement<'m, M>> {
        self.elements.clone()
    }

    /// The current elements, borrowed.
    pub fn elements(&self) -> &[ChatElement<'m, M>] {
        &self.elements
    }

    /// The current messages, without element metadata.
    pub fn messages(&self) -> Vec<&'m M> {
        self.elements.iter().map(|e| e.message).collect()
    }

    /// Removes the messages with these seqs. Calls accumulate; seqs that are unknown
    /// or already removed are ignored.
    pub fn remove(&mut self, seqs: impl IntoSeqs) -> &mut Self {
        let mut changed = false;
        for seq in seqs.into_seqs(self.removed.len()) {
            if let Some(flag) = self.removed.get_mut(seq) {
                changed |= !*flag;
                *flag = true;
            }
        }
        if changed {
            let removed = &self.removed;
            self.elements.retain(|e| !removed[e.seq]);
            self.total_tokens = sum_tokens(&self.elements);
        }
        self
    }
}

fn sum_tokens<M>(elements: &[ChatElement<'_, M>]) -> usize {
    elements
        .iter()
        .fold(0usize, |sum, e| sum.saturating_add(e.tokens))
}

/// Which end of the history [`ChatTrimmer`] keeps when it must drop messages
/// (LangChain's `strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ChatStrategy {
    /// Keep the latest messages: drop the oldest first (the default).
    #[default]
    KeepLast,
    /// Keep the earliest messages: drop the newest first.
    KeepFirst,
}

/// Why [`ChatTrimmer`] dropped a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DropReason {
    /// The `on_trim` hook removed it.
    Hook,
    /// It belonged to a tool call and its results, and a partner was missing (removed
    /// by the hook or absent from the history), so it would have been an orphan.
    Unpaired,
    /// The history was over budget, and this was the next message (or tool-call unit)
    /// in drop order.
    OverBudget,
    /// It came before the first user message and
    /// [`with_start_on_user`](ChatTrimmer::with_start_on_user) is set.
    StartOnUser,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            DropReason::Hook => "removed by the on_trim hook",
            DropReason::Unpaired => "tool call and results must stay together",
            DropReason::OverBudget => "over budget",
            DropReason::StartOnUser => "before the first user message",
        })
    }
}

/// A message [`ChatTrimmer`] dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DroppedMessage {
    /// Its seq (index in the caller's history).
    pub seq: usize,
    /// What it cost.
    pub tokens: usize,
    /// Why it was dropped.
    pub reason: DropReason,
}

/// What [`ChatTrimmer`] kept and dropped.
#[derive(Debug)]
pub struct TrimmedChat<'m, M> {
    kept: Vec<ChatElement<'m, M>>,
    dropped: Vec<DroppedMessage>,
    tokens: usize,
    budget: HistoryBudget,
}

impl<'m, M> TrimmedChat<'m, M> {
    /// The kept messages, in history order.
    pub fn messages(&self) -> Vec<&'m M> {
        self.kept.iter().map(|e| e.message).collect()
    }

    /// The kept elements (seq, message, tokens, role), in history order.
    pub fn elements(&self) -> &[ChatElement<'m, M>] {
        &self.kept
    }

    /// The dropped messages, in seq order, with the reason for each.
    pub fn dropped(&self) -> &[DroppedMessage] {
        &self.dropped
    }

    /// What the kept messages cost as a request, reply priming included; never more
    /// than the budget's limit.
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// The budget that was applied.
    pub fn budget(&self) -> HistoryBudget {
        self.budget
    }
}

/// Why a history could not be trimmed to its budget.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ChatTrimError {
    /// Even after dropping every message the policy may drop, what must stay — the
    /// system messages and the latest user message, unless the hook removed them,
    /// plus the reply priming — is over the limit.
    #[error(
        "system messages and the latest user message need {needed} tokens but the budget is {budget} ({over} over)"
    )]
    OverBudget {
        /// What the messages that must stay cost, reply priming included.
        needed: usize,
        /// The budget's limit.
        budget: usize,
        /// `needed - budget`.
        over: usize,
    },
}

/// Trims a chat history to a token budget: an `on_trim` hook first, then a policy
/// that drops whole messages and never splits a tool call from its results.
///
/// The policy, applied to what the hook left:
///
/// 1. Tool-call units with a missing member are dropped (see below).
/// 2. While the request is over budget, the next droppable unit is dropped: the oldest
///    first ([`ChatStrategy::KeepLast`], the default) or the newest first
///    ([`ChatStrategy::KeepFirst`]). A unit is one message, or a tool call with all its
///    results. System messages and the latest user message of the history are never
///    dropped by the policy.
/// 3. With [`with_start_on_user`](ChatTrimmer::with_start_on_user), messages before
///    the first kept user message (other than system messages) are dropped too.
///
/// The caller's history is borrowed, never modified; the result borrows from it.
///
/// # Tool calls and their results
///
/// Providers reject a request in which a tool result has no tool call before it, or a
/// tool call is not followed by a result for each of its call ids. ctxbudget treats
/// a tool call and its results as one unit:
///
/// - A *call* is an [`Assistant`](Role::Assistant) message with at least one tool
///   call. Its *results* are the [`Tool`](Role::Tool) messages that directly follow it
///   (only other tool messages in between) and whose
///   [`tool_call_id`](ChatMessage::tool_call_id) is one of its call ids. Parallel
///   calls (several ids in one message) form a single unit with all their results.
/// - A unit is kept whole or dropped whole. When the hook removes any member of a
///   unit, the rest of it is dropped too ([`DropReason::Unpaired`]).
/// - A unit that is already broken in the input — a call with an id that has no
///   result, or a tool message that answers no call right before it — is dropped
///   ([`DropReason::Unpaired`]): the provider would reject it anyway.
///
/// ```
/// use ctxbudget::{CharEstimate, ChatTrimmer, DropReason, Message, ToolCall};
///
/// let history = vec![
///     Message::system("You answer questions about the weather."),
///     Message::user("What's the weather in Paris? Please be detailed about it."),
///     Message::assistant("").with_tool_call(ToolCall::new("c1", "weather", r#"{"city":"Paris"}"#)),
///     Message::tool("c1", "Paris: 18°C, cloudy, light wind from the west, no rain expected."),
///     Message::assistant("It is 18°C and cloudy in Paris."),
///     Message::user("And tomorrow?"),
/// ];
/// let trimmed = ChatTrimmer::new(CharEstimate, 60).trim(&history)?;
/// let kept: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
/// assert_eq!(kept, [0, 4, 5]);
/// // The tool call and its result went together.
/// assert!(trimmed.dropped().iter().all(|d| d.reason == DropReason::OverBudget));
/// assert!(trimmed.tokens() <= 60);
/// # Ok::<(), ctxbudget::ChatTrimError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ChatTrimmer<C> {
    counter: C,
    limit: usize,
    format: ChatFormat,
    strategy: ChatStrategy,
    start_on_user: bool,
}

/// One message, or a tool call with its results: kept or dropped as a whole.
struct Unit {
    members: Vec<usize>,
    /// False for a broken tool-call unit in the input.
    complete: bool,
}

impl<C: TokenCounter> ChatTrimmer<C> {
    /// A trimmer that counts with `counter` and fits requests into `budget` tokens,
    /// in the OpenAI chat format, keeping the latest messages.
    pub fn new(counter: C, budget: usize) -> Self {
        Self {
            counter,
            limit: budget,
            format: ChatFormat::openai(),
            strategy: ChatStrategy::KeepLast,
            start_on_user: false,
        }
    }

    /// Sets the chat format whose overhead is counted.
    #[must_use]
    pub fn with_format(mut self, format: ChatFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets which end of the history is kept.
    #[must_use]
    pub fn with_strategy(mut self, strategy: ChatStrategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// When `true`, the kept history (after system messages) starts with a user
    /// message: earlier assistant and tool messages are dropped.
    #[must_use]
    pub fn with_start_on_user(mut self, start_on_user: bool) -> Self {
        self.start_on_user = start_on_user;
        self
    }

    /// The budget: the limit, with the format's reply priming reserved.
    pub fn budget(&self) -> HistoryBudget {
        HistoryBudget::new(self.limit).with_reserved(self.format.reply_priming())
    }

    /// The counter.
    pub fn counter(&self) -> &C {
        &self.counter
    }

    /// The chat format.
    pub fn format(&self) -> ChatFormat {
        self.format
    }

    /// Trims `history` with the policy alone (no hook).
    ///
    /// # Errors
    ///
    /// [`ChatTrimError::OverBudget`] when the system messages and the latest user
    /// message alone do not fit; the error says by how much.
    pub fn trim<'m, M: ChatMessage>(
        &self,
        history: &'m [M],
    ) -> Result<TrimmedChat<'m, M>, ChatTrimError> {
        self.trim_with(history, |_| {})
    }

    /// Trims `history`: counts every message once, calls `on_trim` with a
    /// [`TrimContext`], then applies the policy (see [`ChatTrimmer`]).
    ///
    /// # Errors
    ///
    /// [`ChatTrimError::OverBudget`] when what must stay does not fit; the error says
    /// by how much.
    pub fn trim_with<'m, M, F>(
        &self,
        history: &'m [M],
        on_trim: F,
    ) -> Result<TrimmedChat<'m, M>, ChatTrimError>
    where
        M: ChatMessage,
        F: FnOnce(&mut TrimContext<'m, M>),
    {
        let budget = self.budget();
        let elements: Vec<ChatElement<'m, M>> = history
            .iter()
            .enumerate()
            .map(|(seq, message)| ChatElement {
                seq,
                message,
                tokens: self.format.message_tokens(&self.counter, message),
                role: message.role(),
            })
            .collect();
        let mut ctx = TrimContext::new(elements.clone(), budget);
        on_trim(&mut ctx);

        let mut dropped: Vec<Option<DropReason>> = ctx
            .removed
            .iter()
            .map(|&removed| removed.then_some(DropReason::Hook))
            .collect();
        let units = tool_units(history);
        let protected = protected_seqs(history);

        // 1. Pairing: a unit is whole or gone.
        for unit in &units {
            let broken = !unit.complete || unit.members.iter().any(|&s| dropped[s].is_some());
            if broken {
                for &s in &unit.members {
                    dropped[s].get_or_insert(DropReason::Unpaired);
                }
            }
        }
        // Exact sums in u128: a usize total that saturated could not be decreased
        // correctly when messages are dropped.
        let mut total: u128 = elements
            .iter()
            .filter(|e| dropped[e.seq].is_none())
            .map(|e| e.tokens as u128)
            .sum();
        let reserved = budget.reserved() as u128;
        let fits = |total: u128| total + reserved <= budget.limit() as u128;
        let saturate = |tokens: u128| usize::try_from(tokens).unwrap_or(usize::MAX);

        // 2. Budget: drop whole units in strategy order.
        let order: Box<dyn Iterator<Item = &Unit>> = match self.strategy {
            ChatStrategy::KeepFirst => Box::new(units.iter().rev()),
            ChatStrategy::KeepLast => Box::new(units.iter()),
        };
        for unit in order {
            if fits(total) {
                break;
            }
            if droppable(unit, &dropped, &protected) {
                total -= drop_unit(unit, DropReason::OverBudget, &mut dropped, &elements);
            }
        }

        // 3. Start on a user message.
        if self.start_on_user {
            for unit in &units {
                let first = unit.members[0];
                if dropped[first].is_some() || elements[first].role == Role::System {
                    continue;
                }
                if elements[first].role == Role::User {
                    break;
                }
                if droppable(unit, &dropped, &protected) {
                    total -= drop_unit(unit, DropReason::StartOnUser, &mut dropped, &elements);
                }
            }
        }

        if !fits(total) {
            let needed = saturate(total + reserved);
            return Err(ChatTrimError::OverBudget {
                needed,
                budget: budget.limit(),
                over: needed.saturating_sub(budget.limit()),
            });
        }

        let mut kept = Vec::with_capacity(elements.len());
        let mut gone = Vec::new();
        for element in elements {
            match dropped[element.seq] {
                None => kept.push(element),
                Some(reason) => gone.push(DroppedMessage {
                    seq: element.seq,
                    tokens: element.tokens,
                    reason,
                }),
            }
        }
        Ok(TrimmedChat {
            kept,
            dropped: gone,
            tokens: saturate(total + reserved),
            budget,
        })
    }
}

/// Whether the policy may drop `unit`: all of it is still kept and none of it is
/// protected.
fn droppable(unit: &Unit, dropped: &[Option<DropReason>], protected: &[bool]) -> bool {
    unit.members
        .iter()
        .all(|&s| dropped[s].is_none() && !protected[s])
}

/// Marks every member of `unit` dropped for `reason`; returns the tokens freed.
fn drop_unit<M>(
    unit: &Unit,
    reason: DropReason,
    dropped: &mut [Option<DropReason>],
    elements: &[ChatElement<'_, M>],
) -> u128 {
    unit.members
        .iter()
        .map(|&s| {
            dropped[s] = Some(reason);
            elements[s].tokens as u128
        })
        .sum()
}

/// `protected[seq]`: system messages and the latest user message.
fn protected_seqs<M: ChatMessage>(history: &[M]) -> Vec<bool> {
    let latest_user = history.iter().rposition(|m| m.role() == Role::User);
    history
        .iter()
        .enumerate()
        .map(|(seq, m)| m.role() == Role::System || Some(seq) == latest_user)
        .collect()
}

/// Splits the history into units, in order of their first member (see the module
/// docs for how calls and results pair up).
fn tool_units<M: ChatMessage>(history: &[M]) -> Vec<Unit> {
    let mut units = Vec::with_capacity(history.len());
    let mut i = 0;
    while i < history.len() {
        let message = &history[i];
        let role = message.role();
        if role == Role::Assistant && message.tool_calls().next().is_some() {
            let ids: HashSet<&str> = message.tool_calls().map(|c| c.id).collect();
            let mut answered: HashSet<&str> = HashSet::with_capacity(ids.len());
            let mut members = vec![i];
            let mut strays = Vec::new();
            let mut j = i + 1;
            while let Some(next) = history.get(j).filter(|m| m.role() == Role::Tool) {
                match next.tool_call_id().filter(|id| ids.contains(id)) {
                    Some(id) => {
                        answered.insert(id);
                        members.push(j);
                    }
                    None => strays.push(j),
                }
                j += 1;
            }
            units.push(Unit {
                members,
                complete: answered.len() == ids.len(),
            });
            units.extend(strays.into_iter().map(|s| Unit {
                members: vec![s],
                complete: false,
            }));
            i = j;
        } else {
            units.push(Unit {
                members: vec![i],
                complete: role != Role::Tool,
            });
            i += 1;
        }
    }
    // Strays were pushed after their call's unit; keep units ordered by first member.
    units.sort_by_key(|u| u.members[0]);
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(units: &[Unit]) -> Vec<(Vec<usize>, bool)> {
        units
            .iter()
            .map(|u| (u.members.clone(), u.complete))
            .collect()
    }

    #[test]
    fn units_pair_parallel_calls_with_their_results() {
        let history = [
            Message::user("q"),
            Message::assistant("")
                .with_tool_call(ToolCall::new("a", "f", "{}"))
                .with_tool_call(ToolCall::new("b", "f", "{}")),
            Message::tool("b", "1"),
            Message::tool("zzz", "stray"),
            Message::tool("a", "2"),
            Message::tool("a", "late"),
            Message::assistant("").with_tool_call(ToolCall::new("c", "f", "{}")),
            Message::user("unanswered call above"),
            Message::tool("c", "too late"),
        ];
        assert_eq!(
            shape(&tool_units(&history)),
            vec![
                (vec![0], true),
                (vec![1, 2, 4, 5], true),
                (vec![3], false),
                (vec![6], false),
                (vec![7], true),
                (vec![8], false),
            ]
        );
    }

    #[test]
    fn protected_are_system_and_latest_user() {
        let history = [
            Message::system("s"),
            Message::user("u1"),
            Message::assistant("a"),
            Message::user("u2"),
            Message::assistant("a2"),
        ];
        assert_eq!(
            protected_seqs(&history),
            vec![true, false, false, true, false]
        );
    }
}
