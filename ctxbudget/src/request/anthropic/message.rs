//! [`AnthropicMessage`]: one entry of `messages`, and the [`ChatMessage`] view that
//! lets [`ChatTrimmer`](crate::ChatTrimmer) count and trim it in place.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::blocks::{Content, ContentBlock, ToolResultBlock, ToolUseBlock};
use super::count::content_tokens;
use super::extras::{Extras, FieldValue, missing, required};
use crate::chat::{ChatMessage, Role, ToolCallRef};
use crate::count::TokenCounter;

/// The role of an Anthropic message: the system prompt is not a message (it is the
/// request's top-level `system`), and tool results are `user` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnthropicRole {
    /// `"user"`: the person, and the results of tool calls.
    User,
    /// `"assistant"`: the model, and its tool calls.
    Assistant,
}

impl AnthropicRole {
    /// `"user"` or `"assistant"`.
    pub fn as_str(self) -> &'static str {
        match self {
            AnthropicRole::User => "user",
            AnthropicRole::Assistant => "assistant",
        }
    }
}

impl From<AnthropicRole> for Role {
    fn from(role: AnthropicRole) -> Self {
        match role {
            AnthropicRole::User => Role::User,
            AnthropicRole::Assistant => Role::Assistant,
        }
    }
}

impl fmt::Display for AnthropicRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for AnthropicRole {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for AnthropicRole {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RoleVisitor;

        impl Visitor<'_> for RoleVisitor {
            type Value = AnthropicRole;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`user` or `assistant`")
            }

            fn visit_str<E: de::Error>(self, role: &str) -> Result<AnthropicRole, E> {
                match role {
                    "user" => Ok(AnthropicRole::User),
                    "assistant" => Ok(AnthropicRole::Assistant),
                    "system" => Err(E::custom(
                        "a message has the role `system`: Anthropic takes the system prompt in the request's top-level `system` field, not in `messages`",
                    )),
                    other => Err(E::custom(format_args!(
                        "unknown role `{other}`, expected `user` or `assistant`"
                    ))),
                }
            }
        }

        deserializer.deserialize_str(RoleVisitor)
    }
}

/// One entry of an Anthropic request's `messages`: a role, content (a string or
/// blocks), and any other field, kept as it was.
///
/// It implements [`ChatMessage`]:
///
/// - [`tool_calls`](ChatMessage::tool_calls) are its `tool_use` blocks, with the
///   JSON text of `input` as the arguments;
/// - [`tool_result_ids`](ChatMessage::tool_result_ids) are the `tool_use_id`s of its
///   `tool_result` blocks: a user message answering several calls is kept or
///   dropped with them;
/// - [`carries_user_content`](ChatMessage::carries_user_content) is true for a user
///   message with anything besides `tool_result` blocks: results followed by the
///   next question (as LangChain writes them) make the latest user message;
/// - [`starts_with_thinking`](ChatMessage::starts_with_thinking) is true for an
///   assistant message whose first block is `thinking` or `redacted_thinking`;
/// - [`content`](ChatMessage::content) is the text of string content, or of a
///   message whose only block is a text block; it is `""` for other block content
///   (use [`text`](AnthropicMessage::text) for all its text), so such a message is
///   never kept in part;
/// - [`content_tokens`](ChatMessage::content_tokens) counts every block as
///   described in [the module docs](super#counting).
///
/// ```
/// use ctxbudget::chat::{ChatMessage, Role};
/// use ctxbudget::request::anthropic::AnthropicMessage;
///
/// let call: AnthropicMessage = serde_json::from_str(r#"{"role": "assistant", "content": [
///     {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.rs"}},
///     {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "b.rs"}}
/// ]}"#)?;
/// let ids: Vec<&str> = call.tool_calls().map(|c| c.id).collect();
/// assert_eq!(ids, ["toolu_1", "toolu_2"]);
/// assert_eq!(call.tool_calls().next().unwrap().arguments, r#"{"path": "a.rs"}"#);
///
/// let results: AnthropicMessage = serde_json::from_str(r#"{"role": "user", "content": [
///     {"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn a() {}"},
///     {"type": "tool_result", "tool_use_id": "toolu_2", "content": "fn b() {}"}
/// ]}"#)?;
/// assert_eq!(results.role(), Role::User);
/// assert_eq!(results.tool_result_ids().collect::<Vec<_>>(), ["toolu_1", "toolu_2"]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct AnthropicMessage {
    /// `user` or `assistant`.
    pub role: AnthropicRole,
    /// The content.
    pub content: Content,
    /// Other fields, kept as they were.
    pub extra: Extras,
    counts_thinking: bool,
}

impl PartialEq for AnthropicMessage {
    /// Equal when the JSON is: whether thinking counts is not compared.
    fn eq(&self, other: &Self) -> bool {
        self.role == other.role && self.content == other.content && self.extra == other.extra
    }
}

impl Eq for AnthropicMessage {}

impl AnthropicMessage {
    /// A message with a role and content.
    pub fn new(role: AnthropicRole, content: impl Into<Content>) -> Self {
        Self {
            role,
            content: content.into(),
            extra: Extras::new(),
            counts_thinking: true,
        }
    }

    /// A `user` message.
    pub fn user(content: impl Into<Content>) -> Self {
        Self::new(AnthropicRole::User, content)
    }

    /// An `assistant` message.
    pub fn assistant(content: impl Into<Content>) -> Self {
        Self::new(AnthropicRole::Assistant, content)
    }

    /// The content blocks; empty for string content.
    pub fn blocks(&self) -> &[ContentBlock] {
        self.content.blocks()
    }

    /// All the text of the message: string content, or its text blocks joined with
    /// newlines (other blocks left out).
    pub fn text(&self) -> Cow<'_, str> {
        match &self.content {
            Content::Text(text) => Cow::Borrowed(text),
            Content::Blocks(blocks) => {
                let mut texts = blocks.iter().filter_map(|b| match b {
                    ContentBlock::Text(t) => Some(t.text.as_str()),
                    _ => None,
                });
                match (texts.next(), texts.next()) {
                    (None, _) => Cow::Borrowed(""),
                    (Some(only), None) => Cow::Borrowed(only),
                    (Some(first), Some(second)) => {
                        let mut joined = format!("{first}\n{second}");
                        for text in texts {
                            joined.push('\n');
                            joined.push_str(text);
                        }
                        Cow::Owned(joined)
                    }
                }
            }
        }
    }

    /// Its `tool_use` blocks.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUseBlock> {
        self.blocks().iter().filter_map(|b| match b {
            ContentBlock::ToolUse(call) => Some(call),
            _ => None,
        })
    }

    /// Its `tool_result` blocks.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResultBlock> {
        self.blocks().iter().filter_map(|b| match b {
            ContentBlock::ToolResult(result) => Some(result),
            _ => None,
        })
    }

    /// Whether [`content_tokens`](ChatMessage::content_tokens) counts its `thinking`
    /// and `redacted_thinking` blocks. True for a message on its own;
    /// [`MessagesRequest`](super::MessagesRequest) sets it for each of its messages
    /// from its [`ThinkingRetention`](super::ThinkingRetention): Anthropic does not
    /// count the thinking of earlier turns, on models that strip it.
    pub fn counts_thinking(&self) -> bool {
        self.counts_thinking
    }

    /// Sets whether its thinking is counted (for messages counted outside a
    /// [`MessagesRequest`](super::MessagesRequest), which sets it itself).
    pub fn set_counts_thinking(&mut self, counts: bool) {
        self.counts_thinking = counts;
    }

    /// Whether this is a user message that opens a turn: it has content other than
    /// `tool_result` blocks (a user message of results only continues the
    /// assistant's turn).
    pub(super) fn opens_turn(&self) -> bool {
        self.role == AnthropicRole::User
            && match &self.content {
                Content::Text(_) => true,
                Content::Blocks(blocks) => blocks
                    .iter()
                    .any(|b| !matches!(b, ContentBlock::ToolResult(_))),
            }
    }
}

impl ChatMessage for AnthropicMessage {
    fn role(&self) -> Role {
        self.role.into()
    }

    fn content(&self) -> &str {
        match &self.content {
            Content::Text(text) => text,
            Content::Blocks(blocks) => match blocks.as_slice() {
                [ContentBlock::Text(only)] => &only.text,
                _ => "",
            },
        }
    }

    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.tool_uses().map(|call| ToolCallRef {
            id: &call.id,
            name: &call.name,
            arguments: call.input.get(),
        })
    }

    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.tool_results().map(|r| r.tool_use_id.as_str())
    }

    fn carries_user_content(&self) -> bool {
        self.opens_turn()
    }

    fn starts_with_thinking(&self) -> bool {
        self.role == AnthropicRole::Assistant
            && matches!(
                self.blocks().first(),
                Some(ContentBlock::Thinking(_) | ContentBlock::RedactedThinking(_))
            )
    }

    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        content_tokens(&self.content, counter, self.counts_thinking)
    }
}

impl Serialize for AnthropicMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("role", &self.role)?;
        map.serialize_entry("content", &self.content)?;
        self.extra.serialize_into(&mut map, &["role", "content"])?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for AnthropicMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MessageVisitor;

        impl<'de> Visitor<'de> for MessageVisitor {
            type Value = AnthropicMessage;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message: an object with `role` and `content`")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut role = None;
                let mut content = None;
                let mut extra = Extras::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value = FieldValue::Live(&mut map);
                    match key.as_str() {
                        "role" => required(&mut role, &key, value)?,
                        "content" => required(&mut content, &key, value)?,
                        _ => {
                            let raw = value.raw()?;
                            extra.push_read(key, raw)?;
                        }
                    }
                }
                Ok(AnthropicMessage {
                    role: role.ok_or_else(|| missing("role", "a message"))?,
                    content: content.ok_or_else(|| missing("content", "a message"))?,
                    extra,
                    counts_thinking: true,
                })
            }
        }

        deserializer.deserialize_map(MessageVisitor)
    }
}
