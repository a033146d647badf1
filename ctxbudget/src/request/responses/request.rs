//! [`ResponsesRequest`]: the body, read and written losslessly.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use super::item::Item;
use super::message::{ResponsesMessage, group};
use crate::request::error::RequestError;
use crate::request::json::output_limit;
use crate::request::lossless::{
    WireObject, deserialize_object, read_optional, serialize_object, write_optional,
};
use crate::request::openai::{Fields, NullFields, RawJson};
use crate::request::wire::RequestFormat;

/// What [`ResponsesRequest::from_json`] expects, as its errors say.
const EXPECTED: &str = "a JSON object whose `input` is a string or an array of item objects (messages, function_call, function_call_output, reasoning, ...)";

/// An OpenAI Responses request body (`POST /v1/responses`), kept losslessly.
///
/// `model`, `instructions`, `input`, `tools` and `previous_response_id` are read;
/// every other field (`reasoning`, `text`, `store`, `include`, `max_output_tokens`,
/// ...) is kept in [`extra`](Self::extra) as the JSON text it was. Each input
/// [`Item`] is kept as its exact JSON text, whatever its type, and so is each tool:
/// parsing a body and serializing it gives back an equal JSON value.
///
/// The items are held grouped as the chat engine sees them
/// ([`ResponsesMessage`]); [`items`](Self::items) walks them in order.
///
/// ```
/// use ctxbudget::request::responses::ResponsesRequest;
///
/// let body = r#"{"model": "gpt-5", "instructions": "Be brief.", "input": "Hi!", "store": false}"#;
/// let request = ResponsesRequest::from_json(body)?;
/// assert_eq!(request.items().count(), 1);
/// let back: serde_json::Value = serde_json::from_str(&request.to_json())?;
/// assert_eq!(back, serde_json::from_str::<serde_json::Value>(body)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResponsesRequest {
    /// The model (`None` when absent or `null`).
    pub model: Option<String>,
    /// The `instructions`: a system (developer) message before the input, kept as
    /// its JSON text (a string).
    pub instructions: Option<RawJson>,
    /// The tool definitions, each kept as its JSON text.
    pub tools: Option<Vec<RawJson>>,
    /// The response whose history the server puts before `input`.
    pub previous_response_id: Option<String>,
    /// Every other field of the body, kept as it was.
    pub extra: Fields,
    /// The known fields that were `null`.
    pub nulls: NullFields,
    /// The input items, grouped.
    pub(crate) messages: Vec<ResponsesMessage>,
    /// The `input` when it was a string.
    text_input: Option<String>,
    /// Whether `input` was given (as anything but `null`).
    has_input: bool,
}

impl ResponsesRequest {
    pub(crate) const KEYS: &'static [&'static str] = &[
        "model",
        "instructions",
        "input",
        "tools",
        "previous_response_id",
    ];

    /// A request for `model` with these input items and no other field.
    pub fn new(model: impl Into<String>, items: Vec<Item>) -> Self {
        Self {
            model: Some(model.into()),
            messages: group(items),
            has_input: true,
            ..Self::default()
        }
    }

    /// Reads a request body (a leading UTF-8 byte-order mark is skipped).
    ///
    /// # Errors
    ///
    /// [`RequestError::Json`] with serde's message and position (line and column)
    /// and what ctxbudget expected, when `json` is not JSON, not an object, its
    /// `input` is neither a string nor an array of objects, `model`,
    /// `previous_response_id` or `tools` has the wrong type, a known key is given
    /// twice, or `max_output_tokens` is not a plain unsigned integer. What is
    /// wrong inside an item is for [`validate`](crate::request::WireRequest::validate)
    /// to say.
    ///
    /// ```
    /// use ctxbudget::request::responses::ResponsesRequest;
    ///
    /// let err = ResponsesRequest::from_json("{\"input\": [\n  \"hi\",\n  {}\n]}").unwrap_err().to_string();
    /// assert!(err.contains("expected an input item object"), "{err}");
    /// assert!(err.contains("at line 3"), "{err}"); // just past the string
    /// ```
    pub fn from_json(json: &str) -> Result<Self, RequestError> {
        let json = json.strip_prefix('\u{feff}').unwrap_or(json);
        serde_json::from_str(json).map_err(json_error)
    }

    /// Reads a request body from bytes (a leading UTF-8 byte-order mark is skipped).
    ///
    /// # Errors
    ///
    /// As [`from_json`](Self::from_json), and when the bytes are not UTF-8.
    pub fn from_slice(json: &[u8]) -> Result<Self, RequestError> {
        let json = json.strip_prefix(b"\xef\xbb\xbf").unwrap_or(json);
        serde_json::from_slice(json).map_err(json_error)
    }

    /// The body as compact JSON.
    pub fn to_json(&self) -> String {
        // Keys are strings and raw values are valid JSON: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The body as indented JSON.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The input items, in order.
    pub fn items(&self) -> impl Iterator<Item = &Item> {
        self.messages.iter().flat_map(ResponsesMessage::items)
    }

    /// Replaces the input with `items` (written back as an array of them).
    ///
    /// ```
    /// use ctxbudget::request::responses::{Item, ResponsesRequest};
    ///
    /// let mut request = ResponsesRequest::from_json(r#"{"input": "Hi"}"#)?;
    /// let mut items: Vec<Item> = request.items().cloned().collect();
    /// items.push(Item::user("And bye."));
    /// request.set_items(items);
    /// assert_eq!(request.items().count(), 2);
    /// # Ok::<(), ctxbudget::request::RequestError>(())
    /// ```
    pub fn set_items(&mut self, items: Vec<Item>) {
        self.messages = group(items);
        self.text_input = None;
        self.has_input = true;
    }

    /// The `max_output_tokens` field, when it is a plain unsigned integer.
    pub fn max_output_tokens(&self) -> Option<u64> {
        output_limit(
            "max_output_tokens",
            self.extra.get("max_output_tokens")?.get(),
        )
        .ok()
    }

    /// Whether the input is still the string it was read from (one user message
    /// holding it): then it is written back as that string.
    fn input_is_text(&self) -> Option<&str> {
        let text = self.text_input.as_deref()?;
        match self.messages.as_slice() {
            [only] if only.items() == [Item::user(text)] => Some(text),
            _ => None,
        }
    }
}

fn json_error(source: serde_json::Error) -> RequestError {
    RequestError::json(RequestFormat::OpenAiResponses, EXPECTED, source)
}

impl FromStr for ResponsesRequest {
    type Err = RequestError;

    fn from_str(json: &str) -> Result<Self, RequestError> {
        Self::from_json(json)
    }
}

/// An `input` as read: a string, or items.
enum Input {
    Text(String),
    Items(Vec<Item>),
}

impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(InputVisitor)
    }
}

struct InputVisitor;

impl<'de> Visitor<'de> for InputVisitor {
    type Value = Input;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`input` as a string or an array of input item objects")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Input, E> {
        Ok(Input::Text(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Input, E> {
        Ok(Input::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Input, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element::<Item>()? {
            items.push(item);
        }
        Ok(Input::Items(items))
    }
}

impl WireObject for ResponsesRequest {
    type Partial = Self;
    const EXPECTING: &'static str = EXPECTED;

    fn read_field<'de, D: Deserializer<'de>>(
        r: &mut Self,
        key: &str,
        value: D,
    ) -> Result<(), D::Error> {
        let keys = Self::KEYS;
        match key {
            "input" => {
                if r.has_input || r.nulls.has(keys, "input") {
                    return Err(de::Error::duplicate_field("input"));
                }
                let mut input = None;
                read_optional(&mut input, &mut r.nulls, keys, "input", value)?;
                match input {
                    Some(Input::Text(text)) => {
                        r.messages = group(vec![Item::user(&text)]);
                        r.text_input = Some(text);
                        r.has_input = true;
                    }
                    Some(Input::Items(items)) => {
                        r.messages = group(items);
                        r.has_input = true;
                    }
                    None => {}
                }
                Ok(())
            }
            "model" => read_optional(&mut r.model, &mut r.nulls, keys, "model", value),
            "instructions" => read_optional(
                &mut r.instructions,
                &mut r.nulls,
                keys,
                "instructions",
                value,
            ),
            "tools" => read_tools(r, value),
            "previous_response_id" => read_optional(
                &mut r.previous_response_id,
                &mut r.nulls,
                keys,
                "previous_response_id",
                value,
            ),
            _ => {
                let raw = RawJson::deserialize(value)?;
                if key == "max_output_tokens" && raw.get() != "null" {
                    output_limit(key, raw.get()).map_err(<D::Error as de::Error>::custom)?;
                }
                r.extra.push(key.to_owned(), raw);
                Ok(())
            }
        }
    }

    fn finish<E: de::Error>(partial: Self) -> Result<Self, E> {
        Ok(partial)
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let (nulls, keys) = (self.nulls, Self::KEYS);
        write_optional(map, self.model.as_ref(), nulls, keys, "model")?;
        write_optional(map, self.instructions.as_ref(), nulls, keys, "instructions")?;
        if let Some(text) = self.input_is_text() {
            map.serialize_entry("input", text)?;
        } else if self.has_input || !self.messages.is_empty() {
            map.serialize_entry("input", &AllItems(&self.messages))?;
        } else {
            write_optional::<_, ()>(map, None, nulls, keys, "input")?;
        }
        write_optional(map, self.tools.as_ref(), nulls, keys, "tools")?;
        write_optional(
            map,
            self.previous_response_id.as_ref(),
            nulls,
            keys,
            "previous_response_id",
        )?;
        self.extra.write(map)
    }
}

/// Reads `tools`: `null`, or an array of objects.
fn read_tools<'de, D: Deserializer<'de>>(
    r: &mut ResponsesRequest,
    value: D,
) -> Result<(), D::Error> {
    let keys = ResponsesRequest::KEYS;
    read_optional(&mut r.tools, &mut r.nulls, keys, "tools", value)?;
    if let Some(tool) = r.tools.iter().flatten().find(|t| !t.get().starts_with('{')) {
        let shown: String = tool.get().chars().take(20).collect();
        return Err(de::Error::custom(format!(
            "a tool is `{shown}`, not an object: give each tool as {{\"type\": \"function\", \"name\": ...}}"
        )));
    }
    Ok(())
}

/// Every item of the messages, as one JSON array.
struct AllItems<'a>(&'a [ResponsesMessage]);

impl Serialize for AllItems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().flat_map(ResponsesMessage::items))
    }
}

impl<'de> Deserialize<'de> for ResponsesRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_object(deserializer)
    }
}

impl Serialize for ResponsesRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_object(self, &[], serializer)
    }
}
