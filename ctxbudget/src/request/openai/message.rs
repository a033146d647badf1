//! One entry of `messages` ([`RequestMessage`]) and its role ([`MessageRole`]), and
//! how the chat engine sees it (its [`ChatMessage`] impl).

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use super::content::Content;
use super::cost;
use super::tools::{FunctionCall, ToolCall};
use crate::chat::{ChatMessage, Message, Role, ToolCallRef};
use crate::count::TokenCounter;
use crate::request::lossless::{
    Fields, NullFields, RawJson, WireObject, deserialize_object, read_optional, serialize_object,
    write_optional,
};

/// The `role` of a message, as the wire format names it.
///
/// A role ctxbudget does not know is kept as [`Other`](MessageRole::Other) and
/// written back as it was.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MessageRole {
    /// `"system"`.
    System,
    /// `"developer"`: the system role of the o-series and later models.
    Developer,
    /// `"user"`.
    User,
    /// `"assistant"`.
    Assistant,
    /// `"tool"`: the result of a tool call.
    Tool,
    /// `"function"`: the result of a legacy `function_call`.
    Function,
    /// Any other role.
    Other(String),
}

impl MessageRole {
    /// The role's name on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            MessageRole::System => "system",
            MessageRole::Developer => "developer",
            MessageRole::User => "user",
            MessageRole::Assistant => "assistant",
            MessageRole::Tool => "tool",
            MessageRole::Function => "function",
            MessageRole::Other(role) => role,
        }
    }

    /// The role as the chat engine sees it (see [`RequestMessage`]'s
    /// [`ChatMessage`] impl): `developer` is [`Role::System`], `function` is
    /// [`Role::Tool`], an unknown role is [`Role::Assistant`].
    pub fn chat_role(&self) -> Role {
        match self {
            MessageRole::System | MessageRole::Developer => Role::System,
            MessageRole::User => Role::User,
            MessageRole::Assistant | MessageRole::Other(_) => Role::Assistant,
            MessageRole::Tool | MessageRole::Function => Role::Tool,
        }
    }

    fn parse(role: &str) -> Self {
        match role {
            "system" => MessageRole::System,
            "developer" => MessageRole::Developer,
            "user" => MessageRole::User,
            "assistant" => MessageRole::Assistant,
            "tool" => MessageRole::Tool,
            "function" => MessageRole::Function,
            other => MessageRole::Other(other.to_owned()),
        }
    }
}

impl From<Role> for MessageRole {
    fn from(role: Role) -> Self {
        match role {
            Role::System => MessageRole::System,
            Role::User => MessageRole::User,
            Role::Assistant => MessageRole::Assistant,
            Role::Tool => MessageRole::Tool,
        }
    }
}

impl fmt::Display for MessageRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for MessageRole {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for MessageRole {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(RoleVisitor)
    }
}

struct RoleVisitor;

impl Visitor<'_> for RoleVisitor {
    type Value = MessageRole;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "`role` as a string (\"system\", \"developer\", \"user\", \"assistant\", \"tool\")",
        )
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<MessageRole, E> {
        Ok(MessageRole::parse(v))
    }
}

/// One entry of an OpenAI Chat Completions request's `messages`, kept losslessly.
///
/// The known fields are typed; every other field (`audio`, `prefix`, fields of
/// providers that speak this format, ...) is kept in [`extra`](Self::extra) as it
/// was. A known field that is `null` is `None` and is written back as `null`.
///
/// # As a [`ChatMessage`]
///
/// [`ChatTrimmer`](crate::ChatTrimmer) and the rest of the chat engine see:
///
/// - **role**: `system` and `developer` as [`Role::System`], so developer messages
///   are kept like system messages; `user` as [`Role::User`]; `assistant` as
///   [`Role::Assistant`]; `tool` and the legacy `function` as [`Role::Tool`]. A role
///   ctxbudget does not know is [`Role::Assistant`]: never protected, dropped when
///   over budget.
/// - **content**: the text of a plain string `content`. For an array of parts it is
///   the empty string: the parts are counted by
///   [`content_tokens`](ChatMessage::content_tokens), and such a message is never
///   kept in part (`allow_partial` only cuts plain text).
/// - **content tokens**: the text, or for parts the text and refusal parts, the
///   images by OpenAI's tile rule (see [`request::image`](crate::request::image)),
///   audio and files by documented estimates (see
///   [`AUDIO_TOKENS_PER_SECOND`](super::AUDIO_TOKENS_PER_SECOND) and
///   [`PDF_PAGE_TOKENS`](super::PDF_PAGE_TOKENS); a text file is counted as its
///   text), and a part of an unknown type as its JSON text; plus the message's
///   `refusal` field. What rests
///   on an estimate is listed by
///   [`WireRequest::message_assumptions`](crate::request::WireRequest::message_assumptions).
/// - **tool calls**: every entry of `tool_calls` (id, function name, arguments; for
///   a custom tool, its name and input), and the legacy `function_call`, whose
///   id is the function's name.
/// - **tool call id**: a `tool` message's `tool_call_id`; a legacy `function`
///   message's `name`. So a `function` message pairs with the `function_call` of
///   that name right before it, and the two are kept or dropped together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestMessage {
    /// Who wrote it.
    pub role: MessageRole,
    /// A string, an array of parts, or `None` (absent or `null`, as an assistant
    /// message with tool calls may have).
    pub content: Option<Content>,
    /// The participant's name (for a legacy `function` message, the function's).
    pub name: Option<String>,
    /// The tool calls of an assistant message (several for parallel calls).
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The legacy single function call of an assistant message.
    pub function_call: Option<FunctionCall>,
    /// The call a `tool` message answers.
    pub tool_call_id: Option<String>,
    /// An assistant message's refusal.
    pub refusal: Option<String>,
    /// The fields ctxbudget does not read, kept as they were.
    pub extra: Fields,
    /// The known fields that were `null`.
    pub nulls: NullFields,
}

impl RequestMessage {
    const KEYS: &'static [&'static str] = &[
        "role",
        "content",
        "name",
        "tool_calls",
        "function_call",
        "tool_call_id",
        "refusal",
    ];

    /// A message with a role and content, and no other field.
    pub fn new(role: MessageRole, content: impl Into<Content>) -> Self {
        Self {
            content: Some(content.into()),
            ..Self::empty(role)
        }
    }

    /// A message with a role and no other field.
    pub fn empty(role: MessageRole) -> Self {
        Self {
            role,
            content: None,
            name: None,
            tool_calls: None,
            function_call: None,
            tool_call_id: None,
            refusal: None,
            extra: Fields::new(),
            nulls: NullFields::default(),
        }
    }

    /// A `system` message.
    pub fn system(content: impl Into<Content>) -> Self {
        Self::new(MessageRole::System, content)
    }

    /// A `developer` message.
    pub fn developer(content: impl Into<Content>) -> Self {
        Self::new(MessageRole::Developer, content)
    }

    /// A `user` message.
    pub fn user(content: impl Into<Content>) -> Self {
        Self::new(MessageRole::User, content)
    }

    /// An `assistant` message.
    pub fn assistant(content: impl Into<Content>) -> Self {
        Self::new(MessageRole::Assistant, content)
    }

    /// An `assistant` message that makes tool calls, with `"content": null`.
    pub fn assistant_calls(calls: Vec<ToolCall>) -> Self {
        let mut message = Self::empty(MessageRole::Assistant);
        message.tool_calls = Some(calls);
        message.nulls.set(Self::KEYS, "content");
        message
    }

    /// A `tool` message answering the call `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<Content>) -> Self {
        Self {
            tool_call_id: Some(tool_call_id.into()),
            ..Self::new(MessageRole::Tool, content)
        }
    }

    /// Sets the participant name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The text of a plain string `content`.
    pub fn text(&self) -> Option<&str> {
        self.content.as_ref().and_then(Content::as_text)
    }

    /// The ids this message's `tool_calls` make (not the legacy `function_call`,
    /// which has none).
    pub fn call_ids(&self) -> impl Iterator<Item = &str> {
        self.tool_calls
            .iter()
            .flatten()
            .map(|call| call.id.as_deref().unwrap_or_default())
    }
}

/// `developer` → system, `function` → tool: see [`RequestMessage`].
impl ChatMessage for RequestMessage {
    fn role(&self) -> Role {
        self.role.chat_role()
    }

    fn content(&self) -> &str {
        self.text().unwrap_or_default()
    }

    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        let calls = self.tool_calls.iter().flatten().map(|call| ToolCallRef {
            id: call.id.as_deref().unwrap_or_default(),
            name: call.name().unwrap_or_default(),
            arguments: call.arguments().unwrap_or_default(),
        });
        let legacy = self.function_call.iter().map(|call| {
            let name = call.name.as_deref().unwrap_or_default();
            ToolCallRef {
                id: name,
                name,
                arguments: call.arguments.as_deref().unwrap_or_default(),
            }
        });
        calls.chain(legacy)
    }

    fn tool_call_id(&self) -> Option<&str> {
        match self.role {
            MessageRole::Tool => self.tool_call_id.as_deref(),
            MessageRole::Function => self.name.as_deref(),
            _ => None,
        }
    }

    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        let content = match &self.content {
            Some(Content::Text(text)) => counter.count(text),
            Some(Content::Parts(parts)) => parts.iter().fold(0usize, |sum, part| {
                sum.saturating_add(cost::part_tokens(counter, part))
            }),
            None => 0,
        };
        let refusal = self.refusal.as_deref().map_or(0, |r| counter.count(r));
        content.saturating_add(refusal)
    }
}

/// A ready-made [`Message`] as an OpenAI message: its role, content, name, tool
/// calls (as `function` calls) and tool call id. An assistant message with tool
/// calls and no text has `"content": null`.
impl From<&Message> for RequestMessage {
    fn from(message: &Message) -> Self {
        let mut out = if message.tool_calls.is_empty() || !message.content.is_empty() {
            RequestMessage::new(message.role.into(), message.content.as_str())
        } else {
            let mut out = RequestMessage::empty(message.role.into());
            out.nulls.set(Self::KEYS, "content");
            out
        };
        out.name.clone_from(&message.name);
        out.tool_call_id.clone_from(&message.tool_call_id);
        if !message.tool_calls.is_empty() {
            out.tool_calls = Some(
                message
                    .tool_calls
                    .iter()
                    .map(|c| ToolCall::function(&c.id, &c.name, &c.arguments))
                    .collect(),
            );
        }
        out
    }
}

impl From<Message> for RequestMessage {
    fn from(message: Message) -> Self {
        Self::from(&message)
    }
}

/// A message while its keys are read: the role comes last as often as first.
#[derive(Default)]
pub(crate) struct PartialMessage {
    role: Option<MessageRole>,
    message: Option<RequestMessage>,
}

impl PartialMessage {
    fn message(&mut self) -> &mut RequestMessage {
        self.message
            .get_or_insert_with(|| RequestMessage::empty(MessageRole::User))
    }
}

impl WireObject for RequestMessage {
    type Partial = PartialMessage;
    const EXPECTING: &'static str = "a message object with a `role`";

    fn read_field<'de, D: Deserializer<'de>>(
        partial: &mut PartialMessage,
        key: &str,
        value: D,
    ) -> Result<(), D::Error> {
        if key == "role" {
            if partial.role.is_some() {
                return Err(de::Error::duplicate_field("role"));
            }
            partial.role = Some(MessageRole::deserialize(value)?);
            return Ok(());
        }
        let m = partial.message();
        let keys = Self::KEYS;
        match key {
            "content" => read_optional(&mut m.content, &mut m.nulls, keys, "content", value),
            "name" => read_optional(&mut m.name, &mut m.nulls, keys, "name", value),
            "tool_calls" => {
                read_optional(&mut m.tool_calls, &mut m.nulls, keys, "tool_calls", value)
            }
            "function_call" => read_optional(
                &mut m.function_call,
                &mut m.nulls,
                keys,
                "function_call",
                value,
            ),
            "tool_call_id" => read_optional(
                &mut m.tool_call_id,
                &mut m.nulls,
                keys,
                "tool_call_id",
                value,
            ),
            "refusal" => read_optional(&mut m.refusal, &mut m.nulls, keys, "refusal", value),
            _ => {
                m.extra.push(key.to_owned(), RawJson::deserialize(value)?);
                Ok(())
            }
        }
    }

    fn finish<E: de::Error>(partial: PartialMessage) -> Result<Self, E> {
        let role = partial
            .role
            .ok_or_else(|| de::Error::missing_field("role"))?;
        let mut message = partial
            .message
            .unwrap_or_else(|| RequestMessage::empty(MessageRole::User));
        message.role = role;
        Ok(message)
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let (nulls, keys) = (self.nulls, Self::KEYS);
        map.serialize_entry("role", &self.role)?;
        write_optional(map, self.content.as_ref(), nulls, keys, "content")?;
        write_optional(map, self.name.as_ref(), nulls, keys, "name")?;
        write_optional(map, self.tool_calls.as_ref(), nulls, keys, "tool_calls")?;
        write_optional(
            map,
            self.function_call.as_ref(),
            nulls,
            keys,
            "function_call",
        )?;
        write_optional(map, self.tool_call_id.as_ref(), nulls, keys, "tool_call_id")?;
        write_optional(map, self.refusal.as_ref(), nulls, keys, "refusal")?;
        self.extra.write(map)
    }
}

impl<'de> Deserialize<'de> for RequestMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_object(deserializer)
    }
}

impl Serialize for RequestMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_object(self, &[], serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ToolCall as ChatToolCall;

    fn message(json: &str) -> RequestMessage {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn roles_map_to_the_chat_engine() {
        for (wire, role) in [
            ("system", Role::System),
            ("developer", Role::System),
            ("user", Role::User),
            ("assistant", Role::Assistant),
            ("tool", Role::Tool),
            ("function", Role::Tool),
            ("ipython", Role::Assistant),
        ] {
            let m = message(&format!(r#"{{"content": "x", "role": "{wire}"}}"#));
            assert_eq!(ChatMessage::role(&m), role, "{wire}");
            assert_eq!(m.role.as_str(), wire);
            let back = serde_json::to_value(&m).unwrap();
            assert_eq!(back["role"], wire);
        }
    }

    #[test]
    fn legacy_function_calls_pair_by_name() {
        let call = message(
            r#"{"role":"assistant","content":null,"function_call":{"name":"weather","arguments":"{}"}}"#,
        );
        let calls: Vec<_> = ChatMessage::tool_calls(&call).collect();
        assert_eq!((calls[0].id, calls[0].name), ("weather", "weather"));
        let result = message(r#"{"role":"function","name":"weather","content":"sunny"}"#);
        assert_eq!(ChatMessage::tool_call_id(&result), Some("weather"));
        // A stray tool_call_id on a user message does not make it a tool result.
        let user = message(r#"{"role":"user","content":"hi","tool_call_id":"x"}"#);
        assert_eq!(ChatMessage::tool_call_id(&user), None);
    }

    #[test]
    fn content_is_the_plain_text_only() {
        let parts = message(r#"{"role":"user","content":[{"type":"text","text":"hello"}]}"#);
        assert_eq!(ChatMessage::content(&parts), "");
        let words = |t: &str| t.split_whitespace().count();
        assert_eq!(parts.content_tokens(&words), 1);
        let refused = message(r#"{"role":"assistant","content":"a b","refusal":"c d e"}"#);
        assert_eq!(ChatMessage::content(&refused), "a b");
        assert_eq!(refused.content_tokens(&words), 5);
    }

    #[test]
    fn a_message_needs_a_role_and_known_fields_of_their_types() {
        for (json, expected) in [
            (r#"{"content":"x"}"#, "missing field `role`"),
            (r#"{"role":5}"#, "`role` as a string"),
            (r#"{"role":null}"#, "`role` as a string"),
            (r#"{"role":"user","role":"user"}"#, "duplicate field `role`"),
            (r#"{"role":"tool","tool_call_id":7}"#, "expected a string"),
            (
                r#"{"role":"assistant","tool_calls":{}}"#,
                "expected a sequence",
            ),
        ] {
            let err = serde_json::from_str::<RequestMessage>(json)
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{json}: {err}");
        }
    }

    #[test]
    fn null_and_absent_stay_apart() {
        for json in [
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}"#,
            r#"{"role":"assistant","tool_calls":[]}"#,
            r#"{"name":null,"role":"user","content":"x","refusal":null,"x-extra":{"k":[1]}}"#,
        ] {
            let value: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(
                serde_json::to_value(message(json)).unwrap(),
                value,
                "{json}"
            );
        }
    }

    #[test]
    fn from_a_chat_message() {
        let call = Message::assistant("")
            .with_tool_call(ChatToolCall::new("c1", "f", "{}"))
            .with_name("bot");
        let wire = serde_json::to_value(RequestMessage::from(&call)).unwrap();
        assert_eq!(
            wire,
            serde_json::json!({"role": "assistant", "content": null, "name": "bot",
                "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "f", "arguments": "{}"}}]})
        );
        let result = serde_json::to_value(RequestMessage::from(Message::tool("c1", "ok"))).unwrap();
        assert_eq!(
            result,
            serde_json::json!({"role": "tool", "content": "ok", "tool_call_id": "c1"})
        );
    }
}
