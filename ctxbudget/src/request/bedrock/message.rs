//! [`BedrockMessage`]: one element of a Converse request's `messages`, kept as the
//! exact JSON text it was, with what counting, pairing and editing read from it
//! worked out once; and the [`ChatMessage`] view of it.

use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use super::block::{BlockKind, BlockView, read_block, string};
use crate::chat::{ChatMessage, Role, ToolCallRef};
use crate::count::TokenCounter;
use crate::request::anthropic::ANTHROPIC_PDF_PAGE_TOKENS;
use crate::request::image::{ANTHROPIC_MAX_IMAGE_TOKENS, ImageSize, anthropic_image_tokens};
use crate::request::openai::RawJson;

/// What ctxbudget reads from a message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct View {
    /// The `role`, when it is a string.
    pub(crate) role: Option<String>,
    /// The blocks, in order.
    pub(crate) blocks: Vec<BlockView>,
    /// What is wrong with the message: the block's index (or `None` for the
    /// message itself) and the problem.
    pub(crate) problem: Option<(Option<usize>, String)>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Keys<'a> {
    #[serde(borrow)]
    role: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

impl View {
    pub(crate) fn read(json: &str) -> View {
        let mut view = View::default();
        let keys: Keys<'_> = match serde_json::from_str(json) {
            Ok(keys) => keys,
            Err(e) => {
                view.problem = Some((None, format!("cannot be read ({e}); send each key once")));
                return view;
            }
        };
        view.role = string(keys.role);
        let Some(content) = keys.content.filter(|c| c.get() != "null") else {
            view.problem = Some((
                None,
                "has no `content`; give it an array of blocks such as [{\"text\": \"Hi\"}]"
                    .to_owned(),
            ));
            return view;
        };
        let Ok(blocks) = serde_json::from_str::<Vec<&RawValue>>(content.get()) else {
            view.problem = Some((
                None,
                "has `content` that is not an array; give an array of blocks such as [{\"text\": \"Hi\"}]".to_owned(),
            ));
            return view;
        };
        view.blocks.reserve(blocks.len());
        for (index, block) in blocks.into_iter().enumerate() {
            match read_block(block) {
                Ok(block) => view.blocks.push(block),
                Err(problem) => {
                    if view.problem.is_none() {
                        view.problem = Some((Some(index), problem));
                    }
                    view.blocks.push(BlockView {
                        kind: BlockKind::Other(crate::request::json::compact_json(block.get())),
                    });
                }
            }
        }
        view
    }
}

/// One element of a Bedrock Converse request's `messages`: its exact JSON text,
/// and what ctxbudget reads from it.
///
/// A message is written back as the text it was read from, byte for byte, unless
/// a context edit changed it. As a [`ChatMessage`]: an `assistant` message's
/// [tool calls](ChatMessage::tool_calls) are its `toolUse` blocks, a `user`
/// message's [results](ChatMessage::tool_result_ids) its `toolResult` blocks
/// (paired by `toolUseId`); an assistant message whose first block is
/// `reasoningContent` [starts with thinking](ChatMessage::starts_with_thinking).
///
/// ```
/// use ctxbudget::chat::{ChatMessage, Role};
/// use ctxbudget::request::bedrock::BedrockMessage;
///
/// let call = BedrockMessage::from_json(r#"{"role": "assistant", "content": [
///     {"toolUse": {"toolUseId": "t1", "name": "ls", "input": {"dir": "."}}}]}"#)?;
/// assert_eq!(call.role(), Role::Assistant);
/// assert_eq!(call.tool_calls().next().map(|c| c.id), Some("t1"));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub struct BedrockMessage {
    raw: RawJson,
    pub(crate) view: View,
    /// The texts, for [`ChatMessage::content`], joined when first asked for.
    text: OnceLock<String>,
    /// Whether images are counted by Claude's rule (set by the request).
    pub(crate) claude: AtomicBool,
}

impl BedrockMessage {
    /// Reads one message from its JSON text, which must be an object.
    ///
    /// # Errors
    ///
    /// When `json` is not a JSON object.
    pub fn from_json(json: impl Into<String>) -> Result<Self, serde_json::Error> {
        let raw = RawJson::from_json(json)?;
        if !raw.get().trim_start().starts_with('{') {
            return Err(de::Error::custom(
                "a message must be a JSON object, such as {\"role\": \"user\", \"content\": [{\"text\": \"Hi\"}]}",
            ));
        }
        Ok(Self::from_raw(raw))
    }

    /// A `user` message of one text block.
    pub fn user(text: &str) -> Self {
        let value = serde_json::json!({"role": "user", "content": [{"text": text}]});
        let raw = RawJson::from_value(&value)
            .unwrap_or_else(|_| RawJson::from(RawValue::NULL.to_owned()));
        Self::from_raw(raw)
    }

    pub(crate) fn from_raw(raw: RawJson) -> Self {
        let view = View::read(raw.get());
        Self {
            raw,
            view,
            text: OnceLock::new(),
            claude: AtomicBool::new(true),
        }
    }

    /// The message's JSON text.
    pub fn raw(&self) -> &RawJson {
        &self.raw
    }

    /// The `role`, when it is a string.
    pub fn role_name(&self) -> Option<&str> {
        self.view.role.as_deref()
    }

    /// Whether the message is the model's (`"role": "assistant"`).
    pub fn is_assistant(&self) -> bool {
        self.view.role.as_deref() == Some("assistant")
    }

    /// Changes the message's blocks through `edit` (on their values as trees),
    /// then reads it again. Returns whether the text changed.
    pub(crate) fn edit_blocks(
        &mut self,
        edit: impl FnOnce(&mut Vec<serde_json::Value>) -> bool,
    ) -> bool {
        let Ok(serde_json::Value::Object(mut map)) = self.raw.to_value() else {
            return false;
        };
        let Some(blocks) = map
            .get_mut("content")
            .and_then(serde_json::Value::as_array_mut)
        else {
            return false;
        };
        if !edit(blocks) {
            return false;
        }
        let Ok(raw) = RawJson::from_value(&map) else {
            return false;
        };
        if raw.get() == self.raw.get() {
            return false;
        }
        self.view = View::read(raw.get());
        self.raw = raw;
        self.text = OnceLock::new();
        true
    }

    /// The ids of its `toolResult` blocks, in order.
    pub(crate) fn result_ids(&self) -> impl Iterator<Item = &str> {
        self.view.blocks.iter().filter_map(|b| match &b.kind {
            BlockKind::ToolResult(r) => Some(r.id.as_str()),
            _ => None,
        })
    }

    fn join_texts(&self) -> String {
        let mut text = String::new();
        for block in &self.view.blocks {
            let pieces: Vec<&str> = match &block.kind {
                BlockKind::Text(t) | BlockKind::Reasoning(t) | BlockKind::Other(t) => vec![t],
                BlockKind::ToolResult(r) => r.texts.iter().map(String::as_str).collect(),
                _ => continue,
            };
            for piece in pieces {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(piece);
            }
        }
        text
    }
}

/// What an image costs: by Claude's rule from its size, or the most a Claude
/// image costs when its size is unknown or the model is not Claude's.
pub(crate) fn image_tokens(size: Option<ImageSize>, claude: bool) -> usize {
    match size {
        Some(size) if claude => anthropic_image_tokens(size),
        _ => ANTHROPIC_MAX_IMAGE_TOKENS,
    }
}

/// What a block costs as content (a `toolUse` is counted as a tool call by the
/// chat format): see [the module docs](super#counting).
pub(crate) fn block_tokens<C: TokenCounter + ?Sized>(
    block: &BlockView,
    counter: &C,
    claude: bool,
) -> usize {
    match &block.kind {
        BlockKind::Text(text) | BlockKind::Reasoning(text) | BlockKind::Other(text) => {
            counter.count(text)
        }
        BlockKind::Image(size) => image_tokens(*size, claude),
        BlockKind::Media => ANTHROPIC_PDF_PAGE_TOKENS,
        BlockKind::ToolUse { .. } | BlockKind::CachePoint => 0,
        BlockKind::ToolResult(result) => result_tokens(result, counter, claude),
    }
}

/// What a `toolResult` costs: its id, its texts and its media.
pub(crate) fn result_tokens<C: TokenCounter + ?Sized>(
    result: &super::block::ToolResult,
    counter: &C,
    claude: bool,
) -> usize {
    let texts = result
        .texts
        .iter()
        .fold(0usize, |sum, t| sum.saturating_add(counter.count(t)));
    let media = result.images.iter().fold(0usize, |sum, size| {
        sum.saturating_add(image_tokens(*size, claude))
    });
    counter
        .count(&result.id)
        .saturating_add(texts)
        .saturating_add(media)
}

impl Clone for BedrockMessage {
    fn clone(&self) -> Self {
        Self {
            raw: self.raw.clone(),
            view: self.view.clone(),
            text: self.text.clone(),
            claude: AtomicBool::new(self.claude.load(Ordering::Relaxed)),
        }
    }
}

impl PartialEq for BedrockMessage {
    fn eq(&self, other: &Self) -> bool {
        self.raw.get() == other.raw.get()
    }
}

impl Eq for BedrockMessage {}

impl fmt::Debug for BedrockMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw.get())
    }
}

/// Written as the JSON text it was read from.
impl Serialize for BedrockMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

/// Read from any JSON object.
impl<'de> Deserialize<'de> for BedrockMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(deserializer)?;
        if !raw.get().starts_with('{') {
            return Err(de::Error::invalid_type(
                de::Unexpected::Other("a value that is not an object"),
                &"a message object with `role` and `content`",
            ));
        }
        Ok(Self::from_raw(raw))
    }
}

/// As the chat engine sees the message: see [`BedrockMessage`].
impl ChatMessage for BedrockMessage {
    fn role(&self) -> Role {
        if self.is_assistant() {
            Role::Assistant
        } else {
            Role::User
        }
    }

    fn content(&self) -> &str {
        self.text.get_or_init(|| self.join_texts())
    }

    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        let assistant = self.is_assistant();
        self.view.blocks.iter().filter_map(move |b| match &b.kind {
            BlockKind::ToolUse { id, name, input } if assistant => Some(ToolCallRef {
                id,
                name,
                arguments: input,
            }),
            _ => None,
        })
    }

    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        let user = !self.is_assistant();
        self.result_ids().filter(move |_| user)
    }

    fn carries_user_content(&self) -> bool {
        !self.is_assistant()
            && (self.result_ids().next().is_none()
                || self
                    .view
                    .blocks
                    .iter()
                    .any(|b| !matches!(b.kind, BlockKind::ToolResult(_) | BlockKind::CachePoint)))
    }

    fn starts_with_thinking(&self) -> bool {
        self.is_assistant()
            && matches!(
                self.view.blocks.first().map(|b| &b.kind),
                Some(BlockKind::Reasoning(_))
            )
    }

    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        let claude = self.claude.load(Ordering::Relaxed);
        self.view.blocks.iter().fold(0usize, |sum, block| {
            sum.saturating_add(block_tokens(block, counter, claude))
        })
    }
}
