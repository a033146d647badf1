//! The message model: [`Message`], [`Role`], [`ToolCall`], and the [`ChatMessage`]
//! trait through which your own message type is counted and trimmed in place.

use std::fmt;

use crate::count::TokenCounter;

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
/// use ctxbudget::{Message, chat::Role, chat::ToolCall};
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
/// use ctxbudget::{CharEstimate, chat::ChatMessage, ChatTrimmer, chat::Role};
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
/// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
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

    /// Every call this message answers. Default: its
    /// [`tool_call_id`](ChatMessage::tool_call_id), if any.
    ///
    /// Override it when one message answers several calls, as an Anthropic user
    /// message with several `tool_result` blocks does: such a message is kept with
    /// the calls it answers, or dropped with them, exactly like a
    /// [`Tool`](Role::Tool) message.
    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.tool_call_id().into_iter()
    }

    /// Whether this (user) message carries something of the user's besides tool
    /// results: a question, an instruction, an image. Default: whether it answers no
    /// call ([`tool_result_ids`](ChatMessage::tool_result_ids) is empty).
    ///
    /// The latest user message that does is the *latest user message* the trimmer
    /// keeps, wherever its parts sit. Override it when one message can hold both, as
    /// an Anthropic user message of `tool_result` blocks followed by text does (the
    /// question is kept with the calls those results answer).
    fn carries_user_content(&self) -> bool {
        self.tool_result_ids().next().is_none()
    }

    /// Whether this (assistant) message starts with the model's thinking (Anthropic's
    /// `thinking` and `redacted_thinking` blocks). Default: false.
    ///
    /// When the message right after the latest user message does, the tool-use loop
    /// it starts (every message after that user message) is kept or dropped whole:
    /// the provider rejects a later step of the loop without the thinking that
    /// started it.
    fn starts_with_thinking(&self) -> bool {
        false
    }

    /// What the message's content costs with `counter`. Default: the count of
    /// [`content`](ChatMessage::content).
    ///
    /// Override it when the content is more than one text (parts, images, documents):
    /// [`ChatFormat`](super::ChatFormat) adds this to the message's overhead, so the
    /// trimmer sees what the provider bills. [`content`](ChatMessage::content) stays
    /// the text that `allow_partial` may cut and that hooks read.
    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        counter.count(self.content())
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
            fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
                (**self).tool_result_ids()
            }
            fn carries_user_content(&self) -> bool {
                (**self).carries_user_content()
            }
            fn starts_with_thinking(&self) -> bool {
                (**self).starts_with_thinking()
            }
            fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
                (**self).content_tokens(counter)
            }
        }
    )*};
}

// A history of references or shared pointers trims like a history of messages.
forward_chat_message!(&T, Box<T>, std::rc::Rc<T>, std::sync::Arc<T>);
