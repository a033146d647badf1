//! [`Item`]: one element of a Responses `input`, kept as the exact JSON text it was,
//! with what counting, pairing and editing read from it worked out once.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::request::image::{ImageSize, OpenAiDetail};
use crate::request::openai::RawJson;

/// What an [`Item`] is, as the chat engine sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ItemKind {
    /// A `message` (with or without `"type": "message"`) from the user, the
    /// system, the developer or the assistant.
    Message,
    /// A `reasoning` item: the model's thinking before what follows it.
    Reasoning,
    /// A call the model made: `function_call`, `custom_tool_call`, or another
    /// `*_call` type (`computer_call`, `web_search_call`, ...).
    Call,
    /// A call's result: `function_call_output`, `custom_tool_call_output`, or
    /// another `*_call_output` type.
    CallOutput,
    /// A `compaction` item: earlier history, compacted by the server into encrypted
    /// content.
    Compaction,
    /// An `item_reference`: an item stored by the server, named by its `id`.
    ItemReference,
    /// An item of another type, kept whole.
    Other,
}

/// Which side of the conversation an item is on, for grouping items into
/// messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The model's output: joins the assistant turn it is in.
    Assistant,
    /// A `system`, `developer` or `user` message (the role is in the view).
    Message,
    /// A call's result.
    Output,
    /// An item that stands alone (compaction, reference, unknown type).
    Alone,
}

/// An image part, as it is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ImageRef {
    /// The size read from a `data:` URL; `None` when remote or unreadable.
    pub(crate) size: Option<ImageSize>,
    /// Whether the image is at a remote URL or a `file_id` (its size unknown).
    pub(crate) remote: bool,
    /// The `detail`.
    pub(crate) detail: OpenAiDetail,
}

/// What ctxbudget reads from an item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct View {
    pub(crate) kind: Option<ItemKind>,
    /// The `type` field, when it is a string.
    pub(crate) item_type: Option<String>,
    /// The `role` of a message.
    pub(crate) role: Option<String>,
    /// The `call_id` of a call or of an output.
    pub(crate) call_id: Option<String>,
    /// The tool's `name` of a call.
    pub(crate) name: String,
    /// The call's `arguments` (a function call) or `input` (a custom tool call).
    pub(crate) arguments: String,
    /// The texts counted, in order (for an output: its text parts).
    pub(crate) texts: Vec<String>,
    /// The images.
    pub(crate) images: Vec<ImageRef>,
    /// The files (`input_file` parts).
    pub(crate) files: usize,
    /// Whether the texts hold JSON text of parts or an item ctxbudget does not read.
    pub(crate) as_json: bool,
    /// What is wrong with the item, for validation.
    pub(crate) problem: Option<String>,
}

/// One element of a Responses request's `input`: its exact JSON text, and what
/// ctxbudget reads from it.
///
/// An item is written back as the text it was read from, byte for byte, unless a
/// context edit changed it. Items of types ctxbudget does not know are kept whole
/// and counted as their JSON text.
///
/// ```
/// use ctxbudget::request::responses::{Item, ItemKind};
///
/// let item = Item::from_json(r#"{"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"}"#)?;
/// assert_eq!(item.kind(), ItemKind::Call);
/// assert_eq!(item.call_id(), Some("c1"));
/// assert_eq!(item.raw().get(), r#"{"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Item {
    raw: RawJson,
    pub(crate) view: View,
}

impl Item {
    /// Reads one item from its JSON text, which must be an object.
    ///
    /// # Errors
    ///
    /// When `json` is not a JSON object.
    pub fn from_json(json: impl Into<String>) -> Result<Self, serde_json::Error> {
        let raw = RawJson::from_json(json)?;
        if !raw.get().trim_start().starts_with('{') {
            return Err(de::Error::custom(
                "an input item must be a JSON object, such as {\"role\": \"user\", \"content\": \"Hi\"}",
            ));
        }
        Ok(Self::from_raw(raw))
    }

    /// A user message holding `text`.
    pub fn user(text: &str) -> Self {
        let raw = RawJson::from_value(&serde_json::json!({
            "type": "message",
            "role": "user",
            "content": text,
        }));
        // A map of strings always serializes.
        Self::from_raw(raw.unwrap_or_else(|_| empty_object()))
    }

    pub(crate) fn from_raw(raw: RawJson) -> Self {
        let view = View::read(raw.get());
        Self { raw, view }
    }

    /// The item's JSON text.
    pub fn raw(&self) -> &RawJson {
        &self.raw
    }

    /// What the item is.
    pub fn kind(&self) -> ItemKind {
        self.view.kind.unwrap_or(ItemKind::Other)
    }

    /// The `type` field, when it is a string.
    pub fn item_type(&self) -> Option<&str> {
        self.view.item_type.as_deref()
    }

    /// The `role` of a message.
    pub fn role(&self) -> Option<&str> {
        self.view.role.as_deref()
    }

    /// The `call_id` of a call or of a call's output.
    pub fn call_id(&self) -> Option<&str> {
        self.view.call_id.as_deref()
    }

    /// Which side of the conversation the item is on.
    pub(crate) fn side(&self) -> Side {
        match self.kind() {
            ItemKind::Reasoning | ItemKind::Call => Side::Assistant,
            ItemKind::Message if self.role() == Some("assistant") => Side::Assistant,
            ItemKind::Message => Side::Message,
            ItemKind::CallOutput => Side::Output,
            ItemKind::Other
                if matches!(
                    self.item_type(),
                    Some("mcp_list_tools" | "mcp_approval_request")
                ) =>
            {
                Side::Assistant
            }
            _ => Side::Alone,
        }
    }

    /// Changes the item's JSON through `edit` (on its value as a tree), then reads
    /// it again. Returns whether the text changed; an item that does not parse into
    /// a tree, or an edit that returns false, changes nothing.
    pub(crate) fn edit_value(
        &mut self,
        edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>) -> bool,
    ) -> bool {
        let Ok(serde_json::Value::Object(mut map)) = self.raw.to_value() else {
            return false;
        };
        if !edit(&mut map) {
            return false;
        }
        let Ok(raw) = RawJson::from_value(&map) else {
            return false;
        };
        if raw == self.raw {
            return false;
        }
        *self = Self::from_raw(raw);
        true
    }
}

/// What stands in if serializing a JSON map ever failed (it cannot).
fn empty_object() -> RawJson {
    RawJson::from(RawValue::NULL.to_owned())
}

impl fmt::Debug for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw.get())
    }
}

/// Written as the JSON text it was read from.
impl Serialize for Item {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

/// Read from any JSON object.
impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(deserializer)?;
        if !raw.get().starts_with('{') {
            return Err(de::Error::invalid_type(
                de::Unexpected::Other(first_word(raw.get())),
                &"an input item object",
            ));
        }
        Ok(Self::from_raw(raw))
    }
}

/// What a JSON value that is not an object is, for an error message.
fn first_word(json: &str) -> &'static str {
    match json.as_bytes().first() {
        Some(b'"') => "a string",
        Some(b'[') => "an array",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// The keys of an item that ctxbudget reads, each as its JSON text.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Keys<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    role: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    call_id: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
}

/// A string value, or `None` for any other.
fn string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str(raw?.get()).ok()
}

/// One content part, as far as it is read.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    refusal: Option<&'a RawValue>,
    #[serde(borrow)]
    image_url: Option<&'a RawValue>,
    #[serde(borrow)]
    file_id: Option<&'a RawValue>,
    #[serde(borrow)]
    detail: Option<&'a RawValue>,
}

impl View {
    /// Reads what ctxbudget needs from an item's JSON text; never fails (what is
    /// wrong is kept in `problem`).
    fn read(json: &str) -> View {
        let mut view = View::default();
        let keys: Keys<'_> = match serde_json::from_str(json) {
            Ok(keys) => keys,
            Err(e) => {
                view.problem = Some(format!("cannot be read ({e}); fix the item's keys"));
                return view;
            }
        };
        view.item_type = string(keys.kind);
        view.role = string(keys.role);
        view.call_id = string(keys.call_id);
        let kind = match (view.item_type.as_deref(), keys.kind) {
            (Some("message"), _) => ItemKind::Message,
            (None, None) if keys.role.is_some() => ItemKind::Message,
            (None, None) if keys.id.is_some() => ItemKind::ItemReference,
            (Some("item_reference"), _) => ItemKind::ItemReference,
            (Some("reasoning"), _) => ItemKind::Reasoning,
            (Some("compaction"), _) => ItemKind::Compaction,
            (Some(t), _) if t.ends_with("_call_output") => ItemKind::CallOutput,
            (Some(t), _) if t.ends_with("_call") => ItemKind::Call,
            _ => ItemKind::Other,
        };
        view.kind = Some(kind);
        match kind {
            ItemKind::Message => {
                match view.role.as_deref() {
                    Some("user" | "system" | "developer" | "assistant") => {}
                    _ => {
                        view.problem = Some(
                            "is a message without a `role` of user, assistant, system or developer; give it one".to_owned(),
                        );
                    }
                }
                match keys.content {
                    Some(content) => view.read_content(content),
                    None => {
                        view.problem = Some(
                            "is a message without `content`; give it a string or an array of parts"
                                .to_owned(),
                        );
                    }
                }
            }
            ItemKind::Reasoning => {
                for raw in [keys.summary, keys.content].into_iter().flatten() {
                    if raw.get() != "null" {
                        view.read_content(raw);
                    }
                }
            }
            ItemKind::Call => match view.item_type.as_deref() {
                Some("function_call" | "custom_tool_call") => {
                    view.name = string(keys.name).unwrap_or_default();
                    let arguments = if view.item_type.as_deref() == Some("function_call") {
                        keys.arguments
                    } else {
                        keys.input
                    };
                    view.arguments = string(arguments).unwrap_or_default();
                    if view.call_id.is_none() {
                        view.problem = Some(
                            "is a call without a `call_id`; give it the id its output answers"
                                .to_owned(),
                        );
                    }
                    // With a call id, the chat format counts the name and the
                    // arguments as the tool call's.
                    if view.call_id.is_none() {
                        view.texts = vec![view.name.clone(), view.arguments.clone()];
                    }
                }
                _ => view.whole_json(json),
            },
            ItemKind::CallOutput => {
                if view.call_id.is_none() {
                    view.problem = Some(
                        "is a call output without a `call_id`; give it the id of the call it answers"
                            .to_owned(),
                    );
                }
                match keys.output {
                    Some(output) if is_known_output(view.item_type.as_deref()) => {
                        view.read_content(output);
                    }
                    _ => view.whole_json(json),
                }
            }
            ItemKind::Compaction | ItemKind::ItemReference => {}
            ItemKind::Other => view.whole_json(json),
        }
        view
    }

    /// Counts the whole item as its JSON text.
    fn whole_json(&mut self, json: &str) {
        self.texts.push(crate::request::json::compact_json(json));
        self.as_json = true;
    }

    /// Reads a `content`, `output` or `summary`: a string, or an array of parts.
    fn read_content(&mut self, raw: &RawValue) {
        if let Some(text) = string(Some(raw)) {
            self.texts.push(text);
            return;
        }
        let Ok(parts) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) else {
            self.problem = Some(
                "has content that is neither a string nor an array of parts; fix its type"
                    .to_owned(),
            );
            return;
        };
        for part in parts {
            self.read_part(part);
        }
    }

    fn read_part(&mut self, raw: &RawValue) {
        let Ok(part) = serde_json::from_str::<Part<'_>>(raw.get()) else {
            self.texts
                .push(crate::request::json::compact_json(raw.get()));
            self.as_json = true;
            return;
        };
        match string(part.kind).as_deref() {
            Some("input_text" | "output_text" | "text" | "summary_text" | "reasoning_text") => {
                self.texts.push(string(part.text).unwrap_or_default());
            }
            Some("refusal") => self.texts.push(string(part.refusal).unwrap_or_default()),
            Some("input_image") => {
                let url = string(part.image_url);
                let size = url.as_deref().and_then(ImageSize::from_data_url);
                let remote = url.as_deref().is_none_or(|u| !u.starts_with("data:"))
                    || part.file_id.is_some();
                self.images.push(ImageRef {
                    size,
                    remote,
                    detail: OpenAiDetail::parse(string(part.detail).as_deref()),
                });
            }
            Some("input_file") => self.files = self.files.saturating_add(1),
            _ => {
                self.texts
                    .push(crate::request::json::compact_json(raw.get()));
                self.as_json = true;
            }
        }
    }
}

/// Whether the output of this `*_call_output` type is a string or parts, read as
/// text (others, such as a `computer_call_output`'s screenshot object, are counted
/// as JSON).
fn is_known_output(kind: Option<&str>) -> bool {
    matches!(
        kind,
        Some("function_call_output" | "custom_tool_call_output")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_read_whatever_their_shape() {
        let message = Item::from_json(r#"{"role": "user", "content": [{"type": "input_text", "text": "hi"}, {"type": "input_image", "image_url": "https://x/y.png"}]}"#).unwrap();
        assert_eq!(message.kind(), ItemKind::Message);
        assert_eq!(message.view.texts, ["hi"]);
        assert!(message.view.images[0].remote);
        let reference = Item::from_json(r#"{"id": "msg_1"}"#).unwrap();
        assert_eq!(reference.kind(), ItemKind::ItemReference);
        let odd = Item::from_json(r#"{"type": "future", "call_id": 5, "content": 7}"#).unwrap();
        assert_eq!(odd.kind(), ItemKind::Other);
        assert!(odd.view.as_json);
        let bare = Item::from_json(r#"{"type": "message"}"#).unwrap();
        assert!(bare.view.problem.is_some());
        assert!(Item::from_json("[1]").is_err());
    }

    #[test]
    fn edits_rewrite_the_text_and_read_it_again() {
        let mut item = Item::from_json(
            r#"{"type": "function_call_output", "call_id": "c", "output": "long"}"#,
        )
        .unwrap();
        assert!(item.edit_value(|m| {
            m.insert("output".into(), "short".into());
            true
        }));
        assert_eq!(item.view.texts, ["short"]);
        assert!(!item.edit_value(|_| true));
    }
}
