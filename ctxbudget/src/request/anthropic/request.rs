//! [`MessagesRequest`]: a whole Messages request body, read and written losslessly,
//! and its [`WireRequest`] impl.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::str::FromStr;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;

use super::blocks::Content;
use super::count::{
    SERVER_TOOL, TOKENIZER, UNKNOWN_MODEL, check_content, content_assumptions, content_tokens,
    tool_tokens,
};
use super::extras::{Extras, FieldValue, duplicate, missing, optional, required};
use super::message::{AnthropicMessage, AnthropicRole};
use super::model::{ThinkingRetention, tool_system_prompt};
use super::validate;
use crate::chat::ChatFormat;
use crate::count::TokenCounter;
use crate::request::json::{EXPECTED_OUTPUT_LIMIT, is_depth_limit, is_output_limit, output_limit};
use crate::request::wire::retain_kept;
use crate::request::{Assumption, RequestCost, RequestError, RequestFormat, WireRequest};

/// An Anthropic Messages request body (`POST /v1/messages`), read and written
/// losslessly.
///
/// The fields ctxbudget needs are typed; everything else (`temperature`,
/// `tool_choice`, `thinking`, `metadata`, `stream`, fields added later) is kept in
/// [`extra`](MessagesRequest::extra) as JSON text. A body that is read and written
/// back without changes gives an equal JSON value: no field or block is dropped, and
/// a field set to `null` stays `null`.
///
/// ```
/// use ctxbudget::request::{WireRequest, anthropic::MessagesRequest};
///
/// let body = r#"{
///   "model": "claude-sonnet-4-5",
///   "max_tokens": 1024,
///   "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
///   "messages": [{"role": "user", "content": "Hi"}],
///   "metadata": {"user_id": "42"}
/// }"#;
/// let request = MessagesRequest::from_json(body)?;
/// assert_eq!(request.model(), Some("claude-sonnet-4-5"));
/// assert_eq!(request.max_output_tokens(), Some(1024));
/// let again: serde_json::Value = serde_json::from_str(&request.to_json()).unwrap();
/// assert_eq!(again, serde_json::from_str::<serde_json::Value>(body).unwrap());
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
///
/// The messages are reached through [`messages`](WireRequest::messages) and
/// [`messages_mut`](MessagesRequest::messages_mut): whether a message's thinking
/// counts depends on the messages after it, which the request keeps up to date.
#[derive(Debug, Clone)]
pub struct MessagesRequest {
    /// The `model`.
    pub model: Option<String>,
    /// The `max_tokens`: the output limit.
    pub max_tokens: Option<u64>,
    /// The top-level `system` prompt: a string or `text` blocks (with
    /// `cache_control`).
    pub system: Option<Content>,
    messages: Vec<AnthropicMessage>,
    /// The `tools`, each kept as its JSON text.
    pub tools: Option<Vec<Box<RawValue>>>,
    /// Every other field, as JSON text.
    pub extra: Extras,
    thinking_retention: Option<ThinkingRetention>,
}

impl PartialEq for MessagesRequest {
    /// Equal when the bodies are (tools and other fields compared as JSON text) and
    /// the [`ThinkingRetention`] set with
    /// [`set_thinking_retention`](MessagesRequest::set_thinking_retention) is.
    fn eq(&self, other: &Self) -> bool {
        fn tools(r: &MessagesRequest) -> Option<Vec<&str>> {
            r.tools
                .as_ref()
                .map(|t| t.iter().map(|raw| raw.get()).collect())
        }
        self.model == other.model
            && self.max_tokens == other.max_tokens
            && self.system == other.system
            && self.messages == other.messages
            && tools(self) == tools(other)
            && self.extra == other.extra
            && self.thinking_retention == other.thinking_retention
    }
}

impl Eq for MessagesRequest {}

/// What ctxbudget expects of a body, for [`RequestError::Json`].
const EXPECTED: &str = "an Anthropic Messages request body: a JSON object whose `messages` is an array of `user` and `assistant` messages, each with `content` that is a string or an array of content blocks (`text`, `image`, `document`, `tool_use`, `tool_result`, `thinking`, ...) that each have a `type`";
const EXPECTED_SYNTAX: &str =
    "well-formed JSON: check the quotes, commas and brackets near that position";
const EXPECTED_EOF: &str = "a complete JSON document: the body ends too early (cut off?)";
const EXPECTED_DEPTH: &str = "content nested at most 128 levels deep where blocks are read: only a `tool_result` inside a `tool_result` nests so deep, and Anthropic rejects it";

impl MessagesRequest {
    /// A request for `model` with an output limit and messages, and no other field.
    pub fn new(model: impl Into<String>, max_tokens: u64, messages: Vec<AnthropicMessage>) -> Self {
        let mut request = Self {
            model: Some(model.into()),
            max_tokens: Some(max_tokens),
            system: None,
            messages,
            tools: None,
            extra: Extras::new(),
            thinking_retention: None,
        };
        request.mark_thinking();
        request
    }

    /// Reads a request body; a byte-order mark at the start is skipped.
    ///
    /// # Errors
    ///
    /// [`RequestError::Json`] when the body is not JSON, or not of the shape of a
    /// Messages request (a `messages` entry without `role`, content that is neither
    /// a string nor an array of blocks, a block without `type`, a `tool_use` without
    /// `id`, a role other than `user` and `assistant`, a field given twice, a
    /// `max_tokens` that is not a plain unsigned integer, blocks nested deeper than
    /// serde reads, ...): serde's message with the line and column, and what was
    /// expected.
    ///
    /// ```
    /// use ctxbudget::request::anthropic::MessagesRequest;
    ///
    /// let error = MessagesRequest::from_json(r#"{"messages": [{"role": "user", "content": 5}]}"#)
    ///     .unwrap_err();
    /// let message = error.to_string();
    /// assert!(message.contains("expected a string or an array of content blocks"), "{message}");
    /// assert!(message.contains("column"), "{message}");
    /// ```
    pub fn from_json(json: &str) -> Result<Self, RequestError> {
        let json = json.strip_prefix('\u{feff}').unwrap_or(json);
        serde_json::from_str(json).map_err(|source| {
            let expected = match source.classify() {
                _ if is_depth_limit(&source) => EXPECTED_DEPTH,
                _ if is_output_limit(&source) => EXPECTED_OUTPUT_LIMIT,
                serde_json::error::Category::Syntax => EXPECTED_SYNTAX,
                serde_json::error::Category::Eof => EXPECTED_EOF,
                _ => EXPECTED,
            };
            RequestError::Json {
                format: RequestFormat::AnthropicMessages,
                expected,
                source,
            }
        })
    }

    /// The body as compact JSON.
    pub fn to_json(&self) -> String {
        // Every map key is a string and no impl raises an error of its own: writing
        // to a `Vec` cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The messages, to change; when the returned guard is dropped, the request
    /// works out again whose thinking counts.
    pub fn messages_mut(&mut self) -> MessagesMut<'_> {
        MessagesMut { request: self }
    }

    /// The messages, taken out of the request.
    pub fn into_messages(self) -> Vec<AnthropicMessage> {
        self.messages
    }

    /// Which thinking blocks count: the one set with
    /// [`set_thinking_retention`](MessagesRequest::set_thinking_retention), else the
    /// `keep` of a `clear_thinking_20251015` edit in `context_management`, else the
    /// model's default ([`ThinkingRetention::for_model`]), else
    /// [`All`](ThinkingRetention::All).
    pub fn thinking_retention(&self) -> ThinkingRetention {
        self.thinking_retention
            .or_else(|| {
                self.extra
                    .get("context_management")
                    .and_then(ThinkingRetention::from_context_management)
            })
            .or_else(|| self.model.as_deref().map(ThinkingRetention::for_model))
            .unwrap_or(ThinkingRetention::All)
    }

    /// Sets which thinking blocks count (`None`: from the request, as
    /// [`thinking_retention`](MessagesRequest::thinking_retention) says).
    pub fn set_thinking_retention(&mut self, retention: Option<ThinkingRetention>) {
        self.thinking_retention = retention;
        self.mark_thinking();
    }

    /// The `type` of `tool_choice`: `auto` (the API's default) when absent or
    /// unreadable.
    pub fn tool_choice(&self) -> &str {
        #[derive(serde::Deserialize)]
        struct Choice<'a> {
            #[serde(rename = "type", borrow)]
            kind: Option<&'a str>,
        }
        let kind = self
            .extra
            .get("tool_choice")
            .and_then(|raw| serde_json::from_str::<Choice<'_>>(raw.get()).ok())
            .and_then(|c| c.kind);
        match kind {
            Some("any") => "any",
            Some("tool") => "tool",
            Some("none") => "none",
            _ => "auto",
        }
    }

    /// What the whole request costs with `counter`: [`fixed_cost`](WireRequest::fixed_cost)
    /// plus the messages in [`ChatFormat::anthropic`], and every assumption of both.
    pub fn count<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let mut cost = self.fixed_cost(counter);
        let messages = self.chat_format().count_messages(counter, &self.messages);
        cost.tokens = cost.tokens.saturating_add(messages);
        cost.assumptions.extend(self.message_assumptions());
        cost
    }

    /// Sets each message's [`counts_thinking`](AnthropicMessage::counts_thinking)
    /// from the retention: an assistant message counts its thinking when it belongs
    /// to one of the last `n` assistant turns.
    pub(super) fn mark_thinking(&mut self) {
        let mut turns = LatestTurns::new(self.thinking_retention());
        for message in self.messages.iter_mut().rev() {
            let counts = turns.counts_thinking(message);
            message.set_counts_thinking(counts);
        }
    }
}

/// Walks a request's messages from the last to the first and says whose thinking
/// counts under a [`ThinkingRetention`]: user messages always (they have none),
/// assistant messages when they belong to one of the last `n` assistant turns.
struct LatestTurns {
    retention: ThinkingRetention,
    /// The assistant turns met so far.
    turns: usize,
    /// Whether the walk is inside an assistant turn (no user message that opens a
    /// turn since the last assistant message).
    in_turn: bool,
}

impl LatestTurns {
    fn new(retention: ThinkingRetention) -> Self {
        Self {
            retention,
            turns: 0,
            in_turn: false,
        }
    }

    /// Whether `message`, the one before the last one given, counts its thinking.
    fn counts_thinking(&mut self, message: &AnthropicMessage) -> bool {
        match (message.role, self.retention) {
            (AnthropicRole::User, _) => {
                if message.opens_turn() {
                    self.in_turn = false;
                }
                true
            }
            (AnthropicRole::Assistant, ThinkingRetention::All) => true,
            (AnthropicRole::Assistant, ThinkingRetention::LastTurns(n)) => {
                if !self.in_turn {
                    self.in_turn = true;
                    self.turns = self.turns.saturating_add(1);
                }
                self.turns <= n
            }
        }
    }
}

impl FromStr for MessagesRequest {
    type Err = RequestError;

    fn from_str(json: &str) -> Result<Self, RequestError> {
        Self::from_json(json)
    }
}

/// The messages of a [`MessagesRequest`], borrowed to change (a `Vec` through
/// `Deref`); dropping it updates whose thinking counts.
pub struct MessagesMut<'a> {
    request: &'a mut MessagesRequest,
}

impl Deref for MessagesMut<'_> {
    type Target = Vec<AnthropicMessage>;

    fn deref(&self) -> &Self::Target {
        &self.request.messages
    }
}

impl DerefMut for MessagesMut<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.request.messages
    }
}

impl Drop for MessagesMut<'_> {
    fn drop(&mut self) {
        self.request.mark_thinking();
    }
}

impl fmt::Debug for MessagesMut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.request.messages.iter())
            .finish()
    }
}

impl WireRequest for MessagesRequest {
    type Message = AnthropicMessage;

    const FORMAT: RequestFormat = RequestFormat::AnthropicMessages;

    fn messages(&self) -> &[AnthropicMessage] {
        &self.messages
    }

    /// Through [`messages_mut`](MessagesRequest::messages_mut): whose thinking counts
    /// is worked out again afterwards.
    fn edit_messages<T>(&mut self, edit: impl FnOnce(&mut [AnthropicMessage]) -> T) -> T {
        edit(&mut self.messages_mut())
    }

    fn chat_format(&self) -> ChatFormat {
        self.model
            .as_deref()
            .map_or_else(ChatFormat::anthropic, ChatFormat::anthropic_for_model)
    }

    /// The system prompt's text, the tool definitions (see
    /// [the module docs](super#counting)) and, when there are tools, the system
    /// prompt Anthropic adds for them, by model and `tool_choice`. Always assumes
    /// that texts count as the counter says ([`Assumption::UnpublishedRule`]):
    /// Anthropic publishes no tokenizer.
    fn fixed_cost<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let mut assumptions = vec![Assumption::UnpublishedRule {
            message: None,
            what: TOKENIZER,
        }];
        let mut tokens = self
            .system
            .as_ref()
            .map_or(0, |system| content_tokens(system, counter, true));
        let tools = self.tools.as_deref().unwrap_or_default();
        if !tools.is_empty() {
            let mut unpublished = false;
            for tool in tools {
                let (cost, assumed) = tool_tokens(tool, counter);
                tokens = tokens.saturating_add(cost);
                unpublished |= assumed;
            }
            if unpublished {
                assumptions.push(Assumption::UnpublishedRule {
                    message: None,
                    what: SERVER_TOOL,
                });
            }
            let (prompt, known) = tool_system_prompt(self.model.as_deref(), self.tool_choice());
            tokens = tokens.saturating_add(prompt);
            if !known {
                assumptions.push(Assumption::UnpublishedRule {
                    message: None,
                    what: UNKNOWN_MODEL,
                });
            }
        }
        RequestCost {
            tokens,
            assumptions,
        }
    }

    fn message_assumptions(&self) -> Vec<Assumption> {
        let mut out = Vec::new();
        for (i, message) in self.messages.iter().enumerate() {
            content_assumptions(&message.content, i, message.counts_thinking(), &mut out);
        }
        out
    }

    /// See [`validate`](super#validation) in the module docs; and then that images
    /// and PDFs are ones Anthropic takes ([`RequestError::InvalidContent`]): base64
    /// images that decode to the size their header claims, in the format their
    /// `media_type` names, within Anthropic's limits of pixels and bytes (see
    /// [`request::image`](crate::request::image#checks)), and base64 PDFs of at most
    /// 600 pages in all (the PDF guide's limit; 100 for models with a window under a
    /// million tokens, which ctxbudget does not check).
    fn validate(&self) -> Result<(), RequestError> {
        validate::validate(self)?;
        check_content(&self.messages)
    }

    /// Keeps the messages whose `keep[i]` is true; a message past the end of `keep`
    /// is kept. Then works out again whose thinking counts.
    /// The thinking of earlier turns: on a model that keeps only the last turns'
    /// thinking ([`ThinkingRetention::LastTurns`]), dropping later turns brings an
    /// earlier turn into the last ones, and its thinking counts again.
    fn count_rises<C: TokenCounter + ?Sized>(
        &self,
        keep: Option<&[bool]>,
        counter: &C,
    ) -> Option<Vec<usize>> {
        if self.thinking_retention() == ThinkingRetention::All {
            return None;
        }
        let mut rises = vec![0; self.messages.len()];
        let mut turns = LatestTurns::new(self.thinking_retention());
        for (i, message) in self.messages.iter().enumerate().rev() {
            let kept = keep.is_none_or(|keep| keep.get(i).copied().unwrap_or(true));
            if !kept {
                continue;
            }
            // Without `keep`, the most it can rise by: every thinking block counts.
            let counts = keep.is_none() || turns.counts_thinking(message);
            if counts && !message.counts_thinking() {
                rises[i] = message.uncounted_thinking_tokens(counter);
            }
        }
        Some(rises)
    }

    fn retain_messages(&mut self, keep: &[bool]) {
        retain_kept(&mut self.messages, keep);
        self.mark_thinking();
    }

    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    fn max_output_tokens(&self) -> Option<u64> {
        self.max_tokens
    }
}

impl Serialize for MessagesRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let mut set = ["messages", "", "", "", ""];
        if let Some(model) = &self.model {
            map.serialize_entry("model", model)?;
            set[1] = "model";
        }
        if let Some(max_tokens) = &self.max_tokens {
            map.serialize_entry("max_tokens", max_tokens)?;
            set[2] = "max_tokens";
        }
        if let Some(system) = &self.system {
            map.serialize_entry("system", system)?;
            set[3] = "system";
        }
        map.serialize_entry("messages", &self.messages)?;
        if let Some(tools) = &self.tools {
            map.serialize_entry("tools", tools)?;
            set[4] = "tools";
        }
        self.extra.serialize_into(&mut map, &set)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for MessagesRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RequestVisitor;

        impl<'de> Visitor<'de> for RequestVisitor {
            type Value = MessagesRequest;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Messages request: an object with `messages`")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut model = None;
                let mut max_tokens = None;
                let mut system = None;
                let mut messages = None;
                let mut tools = None;
                let mut extra = Extras::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value = FieldValue::Live(&mut map);
                    match key.as_str() {
                        "model" => optional(&mut model, &key, value, &mut extra)?,
                        "max_tokens" => {
                            if max_tokens.is_some() || extra.contains_key(&key) {
                                return Err(duplicate(&key));
                            }
                            let raw = value.raw()?;
                            if raw.get() == "null" {
                                extra.push_read(key, raw)?;
                            } else {
                                let limit = output_limit("max_tokens", raw.get());
                                max_tokens =
                                    Some(limit.map_err(<A::Error as serde::de::Error>::custom)?);
                            }
                        }
                        "system" => optional(&mut system, &key, value, &mut extra)?,
                        "messages" => required(&mut messages, &key, value)?,
                        "tools" => optional(&mut tools, &key, value, &mut extra)?,
                        _ => {
                            let raw = value.raw()?;
                            extra.push_read(key, raw)?;
                        }
                    }
                }
                let mut request = MessagesRequest {
                    model,
                    max_tokens,
                    system,
                    messages: messages
                        .ok_or_else(|| missing::<A::Error>("messages", "the request"))?,
                    tools,
                    extra,
                    thinking_retention: None,
                };
                request.mark_thinking();
                Ok(request)
            }
        }

        deserializer.deserialize_map(RequestVisitor)
    }
}
