//! Content blocks: [`Content`] (a string or blocks), [`ContentBlock`] and the block
//! types, with hand-written serde impls that keep every field they do not model.
//!
//! The impls are written by hand rather than derived: serde's `flatten` and untagged
//! enums buffer their input, which loses `RawValue`s and costs time on every block.
//! A block is read in one pass when its `type` comes first, as the SDKs write it;
//! fields before the `type` are kept as JSON text and read once the type is known.
//!
//! A request keeps a custom-content document's `content` as JSON text. Counting
//! reads it into blocks, and the documents inside it too, [`Depth`] levels down in
//! one pass, so that documents nested in documents cost one read of their text, not
//! one per level.

use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;

use super::extras::{Extras, FieldValue, duplicate, missing, optional, required};

/// How many levels of custom-content documents a read turns into blocks: 0 keeps a
/// document's `content` as JSON text in its source's [`extra`](Source::extra) (how a
/// request is read); `n` reads it into blocks, and the documents in those `n − 1`
/// levels further (how counting reads a document).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Depth(pub(super) usize);

impl Depth {
    /// The depth of the documents inside a document read at this depth.
    fn inner(self) -> Depth {
        Depth(self.0.saturating_sub(1))
    }
}

/// Content as Anthropic takes it: a string, or an array of content blocks. Used for
/// a message's `content`, a `tool_result`'s `content` and the top-level `system`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// A plain string.
    Text(String),
    /// An array of blocks.
    Blocks(Vec<ContentBlock>),
}

impl Content {
    /// The blocks, or an empty slice for string content.
    pub fn blocks(&self) -> &[ContentBlock] {
        match self {
            Content::Text(_) => &[],
            Content::Blocks(blocks) => blocks,
        }
    }

    /// Whether the content is an empty string or an empty array.
    pub fn is_empty(&self) -> bool {
        match self {
            Content::Text(text) => text.is_empty(),
            Content::Blocks(blocks) => blocks.is_empty(),
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_owned())
    }
}

impl From<Vec<ContentBlock>> for Content {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        Content::Blocks(blocks)
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(text) => serializer.serialize_str(text),
            Content::Blocks(blocks) => blocks.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ContentReader(Depth(0)).deserialize(deserializer)
    }
}

/// Reads [`Content`] with the documents in it read to a [`Depth`].
#[derive(Clone, Copy)]
pub(super) struct ContentReader(pub(super) Depth);

impl<'de> DeserializeSeed<'de> for ContentReader {
    type Value = Content;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Content, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ContentReader {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or an array of content blocks")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Content, E> {
        Ok(Content::Text(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Content, E> {
        Ok(Content::Text(text))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(block) = seq.next_element_seed(BlockReader(self.0))? {
            blocks.push(block);
        }
        Ok(Content::Blocks(blocks))
    }
}

/// One block of a message's content.
///
/// Every block keeps the fields ctxbudget does not model (`cache_control`,
/// `citations`, `signature`, `is_error`, ...) in its [`Extras`], and a block of a
/// type ctxbudget does not know is kept whole as [`ContentBlock::Other`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `{"type": "text", "text": ...}`.
    Text(TextBlock),
    /// `{"type": "image", "source": ...}`.
    Image(ImageBlock),
    /// `{"type": "document", "source": ...}`: a PDF, plain text or custom content.
    Document(DocumentBlock),
    /// `{"type": "tool_use", "id": ..., "name": ..., "input": {...}}`: a tool call,
    /// in an assistant message.
    ToolUse(ToolUseBlock),
    /// `{"type": "tool_result", "tool_use_id": ..., "content": ...}`: the result of
    /// a call, in the user message right after it.
    ToolResult(ToolResultBlock),
    /// `{"type": "thinking", "thinking": ..., "signature": ...}`.
    Thinking(ThinkingBlock),
    /// `{"type": "redacted_thinking", "data": ...}`.
    RedactedThinking(RedactedThinkingBlock),
    /// A block of any other type (`server_tool_use`, `web_search_tool_result`,
    /// `search_result`, types added later), kept as it was.
    Other(OtherBlock),
}

impl ContentBlock {
    /// The block's `type`.
    pub fn kind(&self) -> &str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Document(_) => "document",
            ContentBlock::ToolUse(_) => "tool_use",
            ContentBlock::ToolResult(_) => "tool_result",
            ContentBlock::Thinking(_) => "thinking",
            ContentBlock::RedactedThinking(_) => "redacted_thinking",
            ContentBlock::Other(block) => &block.kind,
        }
    }

    /// The fields ctxbudget does not model.
    pub fn extra(&self) -> &Extras {
        match self {
            ContentBlock::Text(b) => &b.extra,
            ContentBlock::Image(b) => &b.extra,
            ContentBlock::Document(b) => &b.extra,
            ContentBlock::ToolUse(b) => &b.extra,
            ContentBlock::ToolResult(b) => &b.extra,
            ContentBlock::Thinking(b) => &b.extra,
            ContentBlock::RedactedThinking(b) => &b.extra,
            ContentBlock::Other(b) => &b.fields,
        }
    }

    /// The fields ctxbudget does not model, to change.
    pub fn extra_mut(&mut self) -> &mut Extras {
        match self {
            ContentBlock::Text(b) => &mut b.extra,
            ContentBlock::Image(b) => &mut b.extra,
            ContentBlock::Document(b) => &mut b.extra,
            ContentBlock::ToolUse(b) => &mut b.extra,
            ContentBlock::ToolResult(b) => &mut b.extra,
            ContentBlock::Thinking(b) => &mut b.extra,
            ContentBlock::RedactedThinking(b) => &mut b.extra,
            ContentBlock::Other(b) => &mut b.fields,
        }
    }

    /// The block's `cache_control` (a prompt-caching breakpoint), as JSON text.
    pub fn cache_control(&self) -> Option<&RawValue> {
        self.extra().get("cache_control")
    }

    /// A `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextBlock::new(text))
    }
}

/// A `text` block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TextBlock {
    /// The text.
    pub text: String,
    /// Other fields (`cache_control`, `citations`, ...).
    pub extra: Extras,
}

impl TextBlock {
    /// A text block with no other field.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            extra: Extras::new(),
        }
    }
}

/// An `image` block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImageBlock {
    /// Where the image is: base64 data, a URL or a file id.
    pub source: Source,
    /// Other fields (`cache_control`, ...).
    pub extra: Extras,
}

/// A `document` block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DocumentBlock {
    /// The document: a base64 PDF, plain text, custom content, a URL or a file id.
    pub source: Source,
    /// Other fields (`title`, `context`, `citations`, `cache_control`, ...).
    pub extra: Extras,
}

/// A `tool_use` block: a tool call.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolUseBlock {
    /// The call id (`toolu_...`) that the `tool_result` block answers.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as the JSON text the model wrote (never re-formatted).
    pub input: Box<RawValue>,
    /// Other fields (`cache_control`, ...).
    pub extra: Extras,
}

impl ToolUseBlock {
    /// A call of `name` with `input` (JSON text).
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Box<RawValue>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
            extra: Extras::new(),
        }
    }
}

impl PartialEq for ToolUseBlock {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.name == other.name
            && self.input.get() == other.input.get()
            && self.extra == other.extra
    }
}

impl Eq for ToolUseBlock {}

/// A `tool_result` block: what a call returned.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolResultBlock {
    /// The id of the `tool_use` block it answers.
    pub tool_use_id: String,
    /// The result: a string or blocks (text, images, documents); `None` when the
    /// field is absent (or `null`, which is kept and written back).
    pub content: Option<Content>,
    /// Other fields (`is_error`, `cache_control`, ...).
    pub extra: Extras,
}

impl ToolResultBlock {
    /// A result for the call `tool_use_id`.
    pub fn new(tool_use_id: impl Into<String>, content: impl Into<Content>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: Some(content.into()),
            extra: Extras::new(),
        }
    }

    /// Whether the block has `"is_error": true`.
    pub fn is_error(&self) -> bool {
        self.extra
            .get("is_error")
            .is_some_and(|v| v.get() == "true")
    }
}

/// A `thinking` block: the model's reasoning, with its `signature` in
/// [`extra`](ThinkingBlock::extra).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThinkingBlock {
    /// The reasoning text.
    pub thinking: String,
    /// Other fields (`signature`, ...).
    pub extra: Extras,
}

/// A `redacted_thinking` block: reasoning the API returned encrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RedactedThinkingBlock {
    /// The encrypted reasoning.
    pub data: String,
    /// Other fields.
    pub extra: Extras,
}

/// A block of a type ctxbudget does not model, kept field by field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OtherBlock {
    /// Its `type`.
    pub kind: String,
    /// Every other field.
    pub fields: Extras,
}

/// Where an image's or a document's bytes are: the `source` object.
///
/// `{"type": "base64", "media_type": ..., "data": ...}`, `{"type": "url", "url":
/// ...}`, `{"type": "text", "media_type": "text/plain", "data": ...}` (a plain text
/// document), `{"type": "content", "content": [...]}` (a custom-content document,
/// its `content` in [`extra`](Source::extra)) or `{"type": "file", "file_id": ...}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Source {
    /// The source's `type`.
    pub kind: Option<String>,
    /// The `media_type` (`image/png`, `application/pdf`, `text/plain`, ...).
    pub media_type: Option<String>,
    /// The `data`: base64 for `base64` sources, the text for `text` sources.
    pub data: Option<String>,
    /// The `url`, for `url` sources.
    pub url: Option<String>,
    /// Other fields (`file_id`, `content`, ...).
    pub extra: Extras,
    /// A custom-content document's `content`, when counting read it into blocks
    /// (then it is not in `extra`).
    pub(super) blocks: Option<Box<Content>>,
}

impl Source {
    /// A `base64` source.
    pub fn base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self {
            kind: Some("base64".to_owned()),
            media_type: Some(media_type.into()),
            data: Some(data.into()),
            ..Self::default()
        }
    }

    /// A `url` source.
    pub fn url(url: impl Into<String>) -> Self {
        Self {
            kind: Some("url".to_owned()),
            url: Some(url.into()),
            ..Self::default()
        }
    }

    /// The source's `type`, or `""` when it has none.
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    /// A custom-content document's `content` as counting read it into blocks, if it
    /// did.
    pub(super) fn read_blocks(&self) -> Option<&Content> {
        self.blocks.as_deref()
    }
}

impl Serialize for Source {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let mut set: [&str; 4] = [""; 4];
        for (i, (key, value)) in [
            ("type", &self.kind),
            ("media_type", &self.media_type),
            ("data", &self.data),
            ("url", &self.url),
        ]
        .into_iter()
        .enumerate()
        {
            if let Some(value) = value {
                map.serialize_entry(key, value)?;
                set[i] = key;
            }
        }
        if let Some(blocks) = &self.blocks {
            map.serialize_entry("content", blocks)?;
        }
        self.extra.serialize_into(&mut map, &set)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        SourceReader(Depth(0)).deserialize(deserializer)
    }
}

/// Reads a [`Source`], its `content` into blocks when the [`Depth`] is not 0.
#[derive(Clone, Copy)]
struct SourceReader(Depth);

impl<'de> DeserializeSeed<'de> for SourceReader {
    type Value = Source;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Source, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SourceReader {
    type Value = Source;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a source object (`{\"type\": \"base64\", ...}`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Source, A::Error> {
        let mut source = Source::default();
        while let Some(key) = map.next_key::<String>()? {
            if key == "content" && self.0.0 > 0 {
                if source.blocks.is_some() || source.extra.contains_key(&key) {
                    return Err(duplicate(&key));
                }
                let blocks = map.next_value_seed(ContentReader(self.0.inner()))?;
                source.blocks = Some(Box::new(blocks));
                continue;
            }
            let value = FieldValue::Live(&mut map);
            match key.as_str() {
                "type" => optional(&mut source.kind, &key, value, &mut source.extra)?,
                "media_type" => {
                    optional(&mut source.media_type, &key, value, &mut source.extra)?;
                }
                "data" => optional(&mut source.data, &key, value, &mut source.extra)?,
                "url" => optional(&mut source.url, &key, value, &mut source.extra)?,
                _ => {
                    let raw = value.raw()?;
                    source.extra.push_read(key, raw)?;
                }
            }
        }
        Ok(source)
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.kind())?;
        match self {
            ContentBlock::Text(b) => {
                map.serialize_entry("text", &b.text)?;
                b.extra.serialize_into(&mut map, &["type", "text"])?;
            }
            ContentBlock::Image(b) => {
                map.serialize_entry("source", &b.source)?;
                b.extra.serialize_into(&mut map, &["type", "source"])?;
            }
            ContentBlock::Document(b) => {
                map.serialize_entry("source", &b.source)?;
                b.extra.serialize_into(&mut map, &["type", "source"])?;
            }
            ContentBlock::ToolUse(b) => {
                map.serialize_entry("id", &b.id)?;
                map.serialize_entry("name", &b.name)?;
                map.serialize_entry("input", &b.input)?;
                b.extra
                    .serialize_into(&mut map, &["type", "id", "name", "input"])?;
            }
            ContentBlock::ToolResult(b) => {
                map.serialize_entry("tool_use_id", &b.tool_use_id)?;
                let content = if let Some(content) = &b.content {
                    map.serialize_entry("content", content)?;
                    "content"
                } else {
                    ""
                };
                b.extra
                    .serialize_into(&mut map, &["type", "tool_use_id", content])?;
            }
            ContentBlock::Thinking(b) => {
                map.serialize_entry("thinking", &b.thinking)?;
                b.extra.serialize_into(&mut map, &["type", "thinking"])?;
            }
            ContentBlock::RedactedThinking(b) => {
                map.serialize_entry("data", &b.data)?;
                b.extra.serialize_into(&mut map, &["type", "data"])?;
            }
            ContentBlock::Other(b) => b.fields.serialize_into(&mut map, &["type"])?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BlockReader(Depth(0)).deserialize(deserializer)
    }
}

/// Reads a [`ContentBlock`] with the documents in it read to a [`Depth`].
#[derive(Clone, Copy)]
struct BlockReader(Depth);

impl<'de> DeserializeSeed<'de> for BlockReader {
    type Value = ContentBlock;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<ContentBlock, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BlockReader {
    type Value = ContentBlock;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block (an object with a `type`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentBlock, A::Error> {
        // The SDKs write `type` first; anything before it waits as JSON text.
        let mut before = Vec::new();
        let kind = loop {
            let Some(key) = map.next_key::<String>()? else {
                return Err(missing("type", "a content block"));
            };
            if key == "type" {
                break map.next_value::<String>()?;
            }
            before.push((key, map.next_value::<Box<RawValue>>()?));
        };
        let mut builder = BlockBuilder::new(kind, self.0);
        for (key, raw) in before {
            builder.field::<A>(key, FieldValue::Raw(raw))?;
        }
        while let Some(key) = map.next_key::<String>()? {
            if key == "type" {
                return Err(duplicate("type"));
            }
            builder.field(key, FieldValue::Live(&mut map))?;
        }
        builder.finish()
    }
}

/// A block being read: its type, the modelled fields seen so far, the others, and
/// how deep the documents in it are read.
struct BlockBuilder {
    kind: String,
    fields: Fields,
    extra: Extras,
    depth: Depth,
}

enum Fields {
    Text {
        text: Option<String>,
    },
    Image {
        source: Option<Source>,
    },
    Document {
        source: Option<Source>,
    },
    ToolUse {
        id: Option<String>,
        name: Option<String>,
        input: Option<Box<RawValue>>,
    },
    ToolResult {
        tool_use_id: Option<String>,
        content: Option<Content>,
    },
    Thinking {
        thinking: Option<String>,
    },
    RedactedThinking {
        data: Option<String>,
    },
    Other,
}

impl BlockBuilder {
    fn new(kind: String, depth: Depth) -> Self {
        let fields = match kind.as_str() {
            "text" => Fields::Text { text: None },
            "image" => Fields::Image { source: None },
            "document" => Fields::Document { source: None },
            "tool_use" => Fields::ToolUse {
                id: None,
                name: None,
                input: None,
            },
            "tool_result" => Fields::ToolResult {
                tool_use_id: None,
                content: None,
            },
            "thinking" => Fields::Thinking { thinking: None },
            "redacted_thinking" => Fields::RedactedThinking { data: None },
            _ => Fields::Other,
        };
        Self {
            kind,
            fields,
            extra: Extras::new(),
            depth,
        }
    }

    fn field<'de, A: MapAccess<'de>>(
        &mut self,
        key: String,
        value: FieldValue<'_, A>,
    ) -> Result<(), A::Error> {
        match &mut self.fields {
            Fields::Text { text } if key == "text" => required(text, &key, value),
            Fields::Image { source } | Fields::Document { source } if key == "source" => {
                if source.is_some() {
                    return Err(duplicate(&key));
                }
                *source = Some(value.parse_with(SourceReader(self.depth))?);
                Ok(())
            }
            Fields::ToolUse { id, .. } if key == "id" => required(id, &key, value),
            Fields::ToolUse { name, .. } if key == "name" => required(name, &key, value),
            Fields::ToolUse { input, .. } if key == "input" => {
                if input.is_some() {
                    return Err(duplicate(&key));
                }
                *input = Some(value.raw()?);
                Ok(())
            }
            Fields::ToolResult { tool_use_id, .. } if key == "tool_use_id" => {
                required(tool_use_id, &key, value)
            }
            Fields::ToolResult { content, .. } if key == "content" => {
                if content.is_some() || self.extra.contains_key(&key) {
                    return Err(duplicate(&key));
                }
                match value.parse_with(OrNull(ContentReader(self.depth)))? {
                    Some(read) => *content = Some(read),
                    None => self.extra.push_read(key, super::extras::null())?,
                }
                Ok(())
            }
            Fields::Thinking { thinking } if key == "thinking" => required(thinking, &key, value),
            Fields::RedactedThinking { data } if key == "data" => required(data, &key, value),
            _ => {
                let raw = value.raw()?;
                self.extra.push_read(key, raw)
            }
        }
    }

    fn finish<E: de::Error>(self) -> Result<ContentBlock, E> {
        let BlockBuilder {
            kind,
            fields,
            extra,
            ..
        } = self;
        Ok(match fields {
            Fields::Text { text } => ContentBlock::Text(TextBlock {
                text: text.ok_or_else(|| missing("text", "a `text` block"))?,
                extra,
            }),
            Fields::Image { source } => ContentBlock::Image(ImageBlock {
                source: source.ok_or_else(|| missing("source", "an `image` block"))?,
                extra,
            }),
            Fields::Document { source } => ContentBlock::Document(DocumentBlock {
                source: source.ok_or_else(|| missing("source", "a `document` block"))?,
                extra,
            }),
            Fields::ToolUse { id, name, input } => ContentBlock::ToolUse(ToolUseBlock {
                id: id.ok_or_else(|| missing("id", "a `tool_use` block"))?,
                name: name.ok_or_else(|| missing("name", "a `tool_use` block"))?,
                input: input.ok_or_else(|| missing("input", "a `tool_use` block"))?,
                extra,
            }),
            Fields::ToolResult {
                tool_use_id,
                content,
            } => ContentBlock::ToolResult(ToolResultBlock {
                tool_use_id: tool_use_id
                    .ok_or_else(|| missing("tool_use_id", "a `tool_result` block"))?,
                content,
                extra,
            }),
            Fields::Thinking { thinking } => ContentBlock::Thinking(ThinkingBlock {
                thinking: thinking.ok_or_else(|| missing("thinking", "a `thinking` block"))?,
                extra,
            }),
            Fields::RedactedThinking { data } => {
                ContentBlock::RedactedThinking(RedactedThinkingBlock {
                    data: data.ok_or_else(|| missing("data", "a `redacted_thinking` block"))?,
                    extra,
                })
            }
            Fields::Other => ContentBlock::Other(OtherBlock {
                kind,
                fields: extra,
            }),
        })
    }
}

/// Reads `null` as `None`, anything else through the inner reader.
struct OrNull<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for OrNull<S> {
    type Value = Option<S::Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for OrNull<S> {
    type Value = Option<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(deserializer).map(Some)
    }
}
