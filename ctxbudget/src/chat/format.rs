//! How a chat format counts: per-message overhead ([`ChatFormat`]) and the budget a
//! trim reports ([`HistoryBudget`]).

use std::borrow::Cow;

use super::message::{ChatMessage, Role};
use crate::count::TokenCounter;

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
/// use ctxbudget::{chat::ChatFormat, Message};
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
    layout: Layout,
}

/// Where system text and tool results go in a request of the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Layout {
    /// Every message, system and tool results included, is a message of its own.
    Messages,
    /// Anthropic's: system text is the request's top-level `system`, and a tool
    /// result is a `tool_result` block of a user message.
    SystemAndResultBlocks,
    /// Each message's [`content_tokens`](ChatMessage::content_tokens) is its whole
    /// cost: nothing else of it is counted.
    Precounted,
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
            layout: Layout::Messages,
        }
    }

    /// An estimate of Anthropic's Messages format: 3 tokens per message, 10 per
    /// tool call (on top of its name and `input`: the call id and the block's
    /// markup), 3 to prime the reply; the role's name is counted like text.
    ///
    /// Anthropic publishes neither its tokenizer nor how messages are rendered, so
    /// these figures are estimates, chosen so that two published counts of its
    /// token-counting guide come out at or a little over with Anthropic's public
    /// (pre-Claude-3) tokenizer: `"You are a scientist"` and `"Hello, Claude"`, 14
    /// tokens; a `get_weather` tool and one question, 403 tokens (see
    /// `tests/suite/anthropic_request.rs`). Check them against the `usage` Anthropic
    /// returns, or its `count_tokens` endpoint, and set your own with the `with_*`
    /// methods if they differ.
    ///
    /// Messages of other chat types ([`Message`](crate::Message) and yours) are
    /// counted as [`PromptMessages::to_anthropic`](crate::assemble::PromptMessages::to_anthropic)
    /// sends them, so that a prompt assembled in this format costs at least what the
    /// Anthropic request made from it costs:
    ///
    /// - a system message becomes text of the top-level `system`: it costs its text
    ///   and the blank line that joins it, no message framing; the system text of an
    ///   assembled prompt costs its text alone;
    /// - a tool result becomes a `tool_result` block of a user message: it costs its
    ///   call id and content, plus the framing of that user message. The results of
    ///   parallel calls share one user message, so each result after the first is
    ///   counted `3 + "user"` tokens over the request.
    ///
    /// ```
    /// use ctxbudget::{chat::ChatFormat, Message};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let result = Message::tool("toolu_1", "18 degrees");
    /// // 3 per message + 1 ("user") + 1 (the call id) + 2 (the content).
    /// assert_eq!(ChatFormat::anthropic().message_tokens(&words, &result), 7);
    /// ```
    pub const fn anthropic() -> Self {
        Self {
            tokens_per_message: 3,
            tokens_per_name: 0,
            tokens_per_tool_call: 10,
            reply_priming: 3,
            layout: Layout::SystemAndResultBlocks,
        }
    }

    /// [`anthropic`](Self::anthropic), for the tokenizer generation of the Claude model
    /// `model` names: a one-message request costs the frame Anthropic's
    /// `count_tokens` adds around one user message (measured by `ctok`: 7 tokens
    /// on Claude 3 through 4.6 and the other 4.x models, 11 on Claude Opus 4.7, 6 on
    /// later models), so the reply priming is that frame less the message's own 3
    /// and its role (`user`, one token). How each further message is framed is not
    /// published, and stays the estimate of [`anthropic`](Self::anthropic). For a
    /// name that is no Claude model, [`anthropic`](Self::anthropic) itself, whose
    /// frame of 7 is at or above the newest generation's.
    ///
    /// ```
    /// use ctxbudget::chat::ChatFormat;
    ///
    /// assert_eq!(ChatFormat::anthropic_for_model("claude-sonnet-4-5"), ChatFormat::anthropic());
    /// assert_eq!(ChatFormat::anthropic_for_model("claude-opus-4-7").reply_priming(), 7);
    /// assert_eq!(ChatFormat::anthropic_for_model("claude-opus-4-8").reply_priming(), 2);
    /// ```
    #[cfg(any(feature = "claude", feature = "requests"))]
    pub fn anthropic_for_model(model: &str) -> Self {
        let format = Self::anthropic();
        match crate::count::claude_name::ClaudeName::parse(model) {
            Some(name) => format.with_reply_priming(name.message_frame().saturating_sub(4)),
            None => format,
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
            layout: Layout::Messages,
        }
    }

    /// For messages that are counted whole by the caller: a message costs exactly
    /// what its [`content_tokens`](ChatMessage::content_tokens) says, and nothing
    /// of it is counted besides (not its role, name or tool calls), nor added per
    /// request until [`with_reply_priming`](ChatFormat::with_reply_priming) says so.
    ///
    /// This is how a counter of whole messages fits a trim: LangChain's
    /// `token_counter`, or costs a provider reported. Have your message type return
    /// its known cost from `content_tokens`; the counter given to
    /// [`ChatTrimmer`](super::ChatTrimmer) then only counts the pieces of a message
    /// kept in part ([`with_allow_partial`](super::ChatTrimmer::with_allow_partial)),
    /// which costs what its kept text counts. The `with_tokens_per_*` settings are
    /// ignored in this format.
    ///
    /// ```
    /// use ctxbudget::chat::{ChatFormat, ChatMessage, Role};
    ///
    /// /// A message whose cost was counted elsewhere, role and framing included.
    /// struct Counted { text: &'static str, cost: usize }
    ///
    /// impl ChatMessage for Counted {
    ///     fn role(&self) -> Role { Role::User }
    ///     fn content(&self) -> &str { self.text }
    ///     fn content_tokens<C: ctxbudget::TokenCounter + ?Sized>(&self, _: &C) -> usize {
    ///         self.cost
    ///     }
    /// }
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let chat = [Counted { text: "hello there", cost: 10 }];
    /// let format = ChatFormat::precounted().with_reply_priming(2);
    /// assert_eq!(format.message_overhead(&words, &chat[0]), 0);
    /// assert_eq!(format.count_messages(&words, &chat), 12);
    /// ```
    pub const fn precounted() -> Self {
        Self {
            tokens_per_message: 0,
            tokens_per_name: 0,
            tokens_per_tool_call: 0,
            reply_priming: 0,
            layout: Layout::Precounted,
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

    /// What one message costs in this format (without the reply priming): its
    /// [overhead](ChatFormat::message_overhead) plus its content.
    pub fn message_tokens<C, M>(&self, counter: &C, message: &M) -> usize
    where
        C: TokenCounter + ?Sized,
        M: ChatMessage + ?Sized,
    {
        self.message_overhead(counter, message)
            .saturating_add(message.content_tokens(counter))
    }

    /// What one message costs apart from its content: the per-message tokens, its
    /// role, its name and its tool calls. A message whose content is cut to a text
    /// of `n` tokens costs `message_overhead + n`.
    ///
    /// ```
    /// use ctxbudget::{chat::ChatFormat, Message};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let message = Message::user("hello there").with_name("bob");
    /// // 3 per message + 1 ("user") + 1 ("bob") + 1 per name.
    /// assert_eq!(ChatFormat::openai().message_overhead(&words, &message), 6);
    /// assert_eq!(ChatFormat::openai().message_tokens(&words, &message), 8);
    /// ```
    pub fn message_overhead<C, M>(&self, counter: &C, message: &M) -> usize
    where
        C: TokenCounter + ?Sized,
        M: ChatMessage + ?Sized,
    {
        if self.layout == Layout::Precounted {
            return 0;
        }
        let role = message.role();
        let mut tokens = match (self.layout, role) {
            // Joined to the top-level system text by a blank line.
            (Layout::SystemAndResultBlocks, Role::System) => counter.count("\n\n"),
            // A block of a user message, with its call id.
            (Layout::SystemAndResultBlocks, Role::Tool) => self
                .tokens_per_message
                .saturating_add(counter.count(Role::User.as_str()))
                .saturating_add(message.tool_call_id().map_or(0, |id| counter.count(id))),
            _ => self
                .tokens_per_message
                .saturating_add(counter.count(role.as_str())),
        };
        if let Some(name) = message.name() {
            tokens = tokens
                .saturating_add(counter.count(name))
                .saturating_add(self.tokens_per_name);
        }
        for call in message.tool_calls() {
            tokens = tokens
                .saturating_add(self.tokens_per_tool_call)
                .saturating_add(counter.count(call.name))
                .saturating_add(match self.layout {
                    Layout::Messages | Layout::Precounted => counter.count(call.arguments),
                    Layout::SystemAndResultBlocks => {
                        counter.count(&anthropic_tool_input(call.arguments))
                    }
                });
        }
        tokens
    }

    /// What the system text of an assembled prompt costs beyond its text: a
    /// message's framing, or nothing where the format sends it as a top-level
    /// field ([`anthropic`](Self::anthropic)).
    pub(crate) fn system_text_frame<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        match self.layout {
            Layout::Messages => self
                .tokens_per_message
                .saturating_add(counter.count(Role::System.as_str())),
            Layout::SystemAndResultBlocks | Layout::Precounted => 0,
        }
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

/// A call's arguments as the `input` of an Anthropic `tool_use` block, which must be
/// a JSON object: the arguments as they are (trimmed) when they are one, `{}` when
/// they are empty, and any other text as `{"arguments": "<the text>"}`.
pub(crate) fn anthropic_tool_input(arguments: &str) -> Cow<'_, str> {
    let trimmed = arguments.trim();
    if trimmed.is_empty() {
        return Cow::Borrowed("{}");
    }
    if trimmed.starts_with('{') && is_json(trimmed) {
        return Cow::Borrowed(trimmed);
    }
    Cow::Owned(wrap_arguments(arguments))
}

#[cfg(feature = "serde")]
fn is_json(text: &str) -> bool {
    serde_json::from_str::<&serde_json::value::RawValue>(text).is_ok()
}

#[cfg(feature = "serde")]
fn wrap_arguments(arguments: &str) -> String {
    serde_json::json!({ "arguments": arguments }).to_string()
}

// Without serde there is no Anthropic request to convert to
// (`PromptMessages::to_anthropic` needs the `requests` feature): arguments count as
// they are.
#[cfg(not(feature = "serde"))]
fn is_json(_: &str) -> bool {
    true
}

#[cfg(not(feature = "serde"))]
fn wrap_arguments(arguments: &str) -> String {
    arguments.to_owned()
}

/// The budget a [`TrimContext`](super::TrimContext) reports: the limit for the whole request, of which
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
    /// use ctxbudget::chat::HistoryBudget;
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
