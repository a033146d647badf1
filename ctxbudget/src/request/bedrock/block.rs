//! [`BlockView`]: what ctxbudget reads from one content block of a Bedrock
//! Converse message (a union: one key per block), worked out once from its JSON
//! text.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::request::image::ImageSize;
use crate::request::json::compact_json;

/// What a block is, as counting, pairing and editing see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// `text`.
    Text(String),
    /// `image`: its size when its `bytes` are base64 whose header could be read.
    Image(Option<ImageSize>),
    /// `document` or `video`: of a size the count does not read.
    Media,
    /// `toolUse`: its `toolUseId`, `name` and `input` as compact JSON.
    ToolUse {
        id: String,
        name: String,
        input: String,
    },
    /// `toolResult`: the `toolUseId` it answers and its content.
    ToolResult(ToolResult),
    /// `reasoningContent`: its reasoning text (or the text of its redacted
    /// content).
    Reasoning(String),
    /// `cachePoint`: a marker, costing nothing.
    CachePoint,
    /// A block of another kind (`guardContent`, `citationsContent`, kinds
    /// ctxbudget does not know): counted as its compact JSON text.
    Other(String),
}

/// A `toolResult`, as counted and edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolResult {
    /// The `toolUseId` it answers.
    pub(crate) id: String,
    /// Its text items (`text`, and `json` as compact JSON), in order.
    pub(crate) texts: Vec<String>,
    /// Its image, document and video items.
    pub(crate) media: usize,
    /// Its images whose size could be read.
    pub(crate) images: Vec<Option<ImageSize>>,
}

/// One block, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockView {
    pub(crate) kind: BlockKind,
}

/// A string value, or `None` for any other.
pub(crate) fn string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str(raw?.get()).ok()
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Keys<'a> {
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    image: Option<&'a RawValue>,
    #[serde(borrow)]
    document: Option<&'a RawValue>,
    #[serde(borrow)]
    video: Option<&'a RawValue>,
    #[serde(borrow, rename = "toolUse")]
    tool_use: Option<&'a RawValue>,
    #[serde(borrow, rename = "toolResult")]
    tool_result: Option<&'a RawValue>,
    #[serde(borrow, rename = "reasoningContent")]
    reasoning: Option<&'a RawValue>,
    #[serde(borrow, rename = "cachePoint")]
    cache_point: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolKeys<'a> {
    #[serde(borrow, rename = "toolUseId")]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

/// An image's size, from `{"format": ..., "source": {"bytes": base64}}`.
fn image_size(image: &RawValue) -> Option<ImageSize> {
    #[derive(Deserialize)]
    struct Image<'a> {
        #[serde(borrow)]
        source: Option<Source<'a>>,
    }
    #[derive(Deserialize)]
    struct Source<'a> {
        #[serde(borrow)]
        bytes: Option<std::borrow::Cow<'a, str>>,
    }
    let image: Image<'_> = serde_json::from_str(image.get()).ok()?;
    ImageSize::from_base64(&image.source?.bytes?)
}

/// Reads one block from its JSON text: the view, or what is wrong with it.
pub(crate) fn read_block(raw: &RawValue) -> Result<BlockView, String> {
    let json = raw.get();
    if !json.starts_with('{') {
        return Err(
            "is not an object; give each block as {\"text\": ...} or another block kind".to_owned(),
        );
    }
    let keys: Keys<'_> = serde_json::from_str(json)
        .map_err(|e| format!("cannot be read ({e}); send each key once"))?;
    let known = [
        keys.text,
        keys.image,
        keys.document,
        keys.video,
        keys.tool_use,
        keys.tool_result,
        keys.reasoning,
        keys.cache_point,
    ];
    if known.iter().filter(|k| k.is_some()).count() > 1 {
        return Err("holds more than one kind (text, image, toolUse, toolResult, ...); give each its own block".to_owned());
    }
    let kind = if let Some(text) = keys.text {
        BlockKind::Text(
            string(Some(text)).ok_or("has a `text` that is not a string; give it a string")?,
        )
    } else if let Some(image) = keys.image {
        BlockKind::Image(image_size(image))
    } else if keys.document.is_some() || keys.video.is_some() {
        BlockKind::Media
    } else if let Some(call) = keys.tool_use {
        let call: ToolKeys<'_> = serde_json::from_str(call.get())
            .map_err(|_| "has a `toolUse` that is not an object with `toolUseId`, `name` and `input`; fix its keys".to_owned())?;
        let id = string(call.id).ok_or(
            "has a `toolUse` without a string `toolUseId`; give it the id its result answers",
        )?;
        let name = string(call.name)
            .ok_or("has a `toolUse` without a string `name`; give it the tool's name")?;
        let input = call
            .input
            .filter(|i| i.get() != "null")
            .map_or_else(|| "{}".to_owned(), |i| compact_json(i.get()));
        BlockKind::ToolUse { id, name, input }
    } else if let Some(result) = keys.tool_result {
        BlockKind::ToolResult(read_result(result)?)
    } else if let Some(reasoning) = keys.reasoning {
        BlockKind::Reasoning(reasoning_text(reasoning))
    } else if keys.cache_point.is_some() {
        BlockKind::CachePoint
    } else {
        BlockKind::Other(compact_json(json))
    };
    Ok(BlockView { kind })
}

fn read_result(raw: &RawValue) -> Result<ToolResult, String> {
    let keys: ToolKeys<'_> = serde_json::from_str(raw.get()).map_err(|_| {
        "has a `toolResult` that is not an object with `toolUseId` and `content`; fix its keys"
            .to_owned()
    })?;
    let id = string(keys.id).ok_or(
        "has a `toolResult` without a string `toolUseId`; give it the id of the toolUse it answers",
    )?;
    let mut result = ToolResult {
        id,
        texts: Vec::new(),
        media: 0,
        images: Vec::new(),
    };
    let Some(content) = keys.content.filter(|c| c.get() != "null") else {
        return Ok(result);
    };
    let items: Vec<&RawValue> = serde_json::from_str(content.get()).map_err(|_| {
        "has a `toolResult.content` that is not an array; give an array such as [{\"text\": ...}]".to_owned()
    })?;
    for item in items {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Item<'a> {
            #[serde(borrow)]
            text: Option<&'a RawValue>,
            #[serde(borrow)]
            json: Option<&'a RawValue>,
            #[serde(borrow)]
            image: Option<&'a RawValue>,
        }
        let parsed: Item<'_> = serde_json::from_str(item.get()).unwrap_or_default();
        if let Some(text) = string(parsed.text) {
            result.texts.push(text);
        } else if let Some(json) = parsed.json {
            result.texts.push(compact_json(json.get()));
        } else if let Some(image) = parsed.image {
            result.media = result.media.saturating_add(1);
            result.images.push(image_size(image));
        } else {
            result.media = result.media.saturating_add(1);
            result.images.push(None);
        }
    }
    Ok(result)
}

/// The text of a `reasoningContent`: its `reasoningText.text`, or the base64 of
/// its `redactedContent`.
fn reasoning_text(raw: &RawValue) -> String {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Reasoning<'a> {
        #[serde(borrow, rename = "reasoningText")]
        text: Option<&'a RawValue>,
        #[serde(borrow, rename = "redactedContent")]
        redacted: Option<&'a RawValue>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Text {
        text: Option<String>,
    }
    let reasoning: Reasoning<'_> = serde_json::from_str(raw.get()).unwrap_or_default();
    if let Some(text) = reasoning.text {
        return serde_json::from_str::<Text>(text.get())
            .ok()
            .and_then(|t| t.text)
            .unwrap_or_default();
    }
    string(reasoning.redacted).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(json: &str) -> Result<BlockView, String> {
        let raw: Box<RawValue> = serde_json::from_str(json).unwrap();
        read_block(&raw)
    }

    #[test]
    fn blocks_are_read_by_their_one_key() {
        let call =
            block(r#"{"toolUse": {"toolUseId": "t1", "name": "ls", "input": {"a": 1}}}"#).unwrap();
        assert_eq!(
            call.kind,
            BlockKind::ToolUse {
                id: "t1".into(),
                name: "ls".into(),
                input: r#"{"a":1}"#.into()
            }
        );
        let result = block(r#"{"toolResult": {"toolUseId": "t1", "content": [{"text": "a"}, {"json": {"b": 2}}, {"image": {"format": "png", "source": {"bytes": "AAAA"}}}], "status": "error"}}"#).unwrap();
        let BlockKind::ToolResult(result) = result.kind else {
            panic!("a result")
        };
        assert_eq!(result.texts, ["a", r#"{"b":2}"#]);
        assert_eq!(result.media, 1);
        let thinking =
            block(r#"{"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "s"}}}"#)
                .unwrap();
        assert_eq!(thinking.kind, BlockKind::Reasoning("hmm".into()));
        assert_eq!(
            block(r#"{"cachePoint": {"type": "default"}}"#)
                .unwrap()
                .kind,
            BlockKind::CachePoint
        );
        assert!(matches!(
            block(r#"{"guardContent": {"text": {"text": "x"}}}"#)
                .unwrap()
                .kind,
            BlockKind::Other(_)
        ));
        assert!(block(r#"{"text": "a", "cachePoint": {}}"#).is_err());
        assert!(block(r#"{"toolUse": {"name": "ls"}}"#).is_err());
    }
}
