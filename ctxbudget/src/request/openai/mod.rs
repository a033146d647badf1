//! OpenAI Chat Completions request bodies (`POST /v1/chat/completions`), read and
//! written losslessly, counted as OpenAI bills them, trimmed by whole messages.
//!
//! [`ChatRequest`] is the body: `model`, `messages` ([`RequestMessage`]), `tools`
//! ([`Tool`]) and the legacy `functions` ([`FunctionDefinition`]) are typed; every
//! other field (`temperature`, `max_completion_tokens`, `response_format`, fields of
//! providers that speak this format, ...) is kept in [`ChatRequest::extra`] as the
//! JSON text it was. Messages, content parts, tool calls and tool definitions keep
//! their unknown fields the same way, parts of unknown types are kept whole, and a
//! field that is `null` is written back as `null`: parsing a body and serializing it
//! gives back an equal JSON value.
//!
//! ```
//! use ctxbudget::{ChatTrimmer, Tiktoken};
//! use ctxbudget::request::WireRequest;
//! use ctxbudget::request::openai::ChatRequest;
//!
//! let mut request = ChatRequest::from_json(r#"{
//!   "model": "gpt-4o",
//!   "temperature": 0.2,
//!   "messages": [
//!     {"role": "developer", "content": "Answer in one line."},
//!     {"role": "user", "content": "What is the capital of France? Explain the history."},
//!     {"role": "assistant", "content": "Paris, since the 10th century, when the Capetians made it their seat."},
//!     {"role": "user", "content": "And of Italy?"}
//!   ]
//! }"#)?;
//! request.validate()?;
//!
//! // Trim the messages to 40 tokens, then keep exactly what the trimmer kept.
//! let counter = Tiktoken::o200k_base();
//! let trimmed = ChatTrimmer::new(&counter, 40)
//!     .with_format(request.chat_format())
//!     .trim(request.messages())?;
//! let mut keep = vec![false; request.messages().len()];
//! for element in trimmed.elements() {
//!     keep[element.seq] = true;
//! }
//! request.retain_messages(&keep);
//!
//! // The developer message and the latest user message stay; nothing else changed.
//! let body: serde_json::Value = serde_json::from_str(&request.to_json())?;
//! assert_eq!(body["messages"].as_array().map(Vec::len), Some(2));
//! assert_eq!(body["messages"][0]["role"], "developer");
//! assert_eq!(body["temperature"], 0.2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Counting
//!
//! Messages cost what [`ChatFormat::openai`] says (the OpenAI cookbook's per-message
//! accounting), with their content as [`RequestMessage`]'s [`ChatMessage`] impl
//! counts it: text, images by the rule OpenAI publishes for the body's `model` (the
//! catalogue's [`ImageRule`](crate::models::ImageRule): 512-px tiles with the
//! model's figures, or 32-px patches with its multiplier; see
//! [`request::image`](crate::request::image)) with sizes read from `data:` URLs,
//! audio and files by documented estimates. The request sets each image part's rule
//! from its `model` whenever it counts or hands out its messages
//! ([`WireRequest::messages`]). Tool definitions cost what the
//! cookbook's `num_tokens_for_tools` says ([`ToolFormula`]). Every count that rests
//! on an estimate (a remote image, audio, a file, a model the cookbook did not check)
//! is listed by [`WireRequest::message_assumptions`] and
//! [`WireRequest::fixed_cost`].
//!
//! [`ChatMessage`]: crate::chat::ChatMessage

mod content;
mod cost;
mod edit;
mod message;
mod tools;
mod validate;

pub use super::lossless::{Fields, NullFields, RawJson};
pub use content::{
    AudioPart, Content, ContentPart, FileData, FilePart, ImagePart, ImageUrl, InputAudio,
    RefusalPart, TextPart,
};
pub use cost::{
    ASSUMED_AUDIO_BYTES_PER_SECOND, AUDIO_TOKENS_PER_SECOND, OPENAI_MAX_PDF_PAGES, PDF_PAGE_TOKENS,
};
pub use message::{MessageRole, RequestMessage};
pub use tools::{CustomCall, FunctionCall, FunctionDefinition, Tool, ToolCall, ToolFormula};

use std::str::FromStr;

use serde::de::{self, Deserializer};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use super::error::RequestError;
use super::image::CountRule;
use super::json::{compact_json, output_limit};
use super::lossless::{
    WireObject, deserialize_object, read_optional, serialize_object, write_optional,
};
use super::wire::{Assumption, RequestCost, RequestFormat, WireRequest, retain_kept};
use crate::chat::ChatFormat;
use crate::count::TokenCounter;

/// What [`ChatRequest::from_json`] expects, as its errors say.
const EXPECTED: &str = "a JSON object with a `messages` array of message objects, each with a `role` and a `content` string or array of parts";

const RESPONSE_FORMAT: &str = "response_format: the JSON schema is counted as its JSON text; OpenAI does not publish how it is billed";
/// The output limits, which must be plain unsigned integers.
const OUTPUT_LIMITS: [&str; 2] = ["max_tokens", "max_completion_tokens"];

/// An OpenAI Chat Completions request body, kept losslessly.
///
/// See the [module](self) for what is typed and what is kept as it was, and
/// [`WireRequest`] for counting, checking and trimming it.
///
/// ```
/// use ctxbudget::request::openai::{ChatRequest, RequestMessage};
///
/// let request = ChatRequest::new("gpt-4o-mini", vec![
///     RequestMessage::system("You are terse."),
///     RequestMessage::user("Hi!"),
/// ]);
/// assert_eq!(
///     request.to_json(),
///     r#"{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Hi!"}]}"#
/// );
/// assert_eq!(ChatRequest::from_json(&request.to_json())?, request);
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatRequest {
    /// The model (`None` when absent or `null`).
    pub model: Option<String>,
    /// The messages, in order.
    pub messages: Vec<RequestMessage>,
    /// The tool definitions.
    pub tools: Option<Vec<Tool>>,
    /// The legacy function definitions.
    pub functions: Option<Vec<FunctionDefinition>>,
    /// Every other field of the body, kept as it was.
    pub extra: Fields,
    /// The known fields that were `null`.
    pub nulls: NullFields,
}

impl ChatRequest {
    const KEYS: &'static [&'static str] = &["model", "messages", "tools", "functions"];

    /// A request for `model` with `messages` and no other field.
    pub fn new(model: impl Into<String>, messages: Vec<RequestMessage>) -> Self {
        Self {
            model: Some(model.into()),
            messages,
            ..Self::default()
        }
    }

    /// Reads a request body (a leading UTF-8 byte-order mark is skipped).
    ///
    /// # Errors
    ///
    /// [`RequestError::Json`] with serde's message and position (line and column)
    /// and what ctxbudget expected, when `json` is not JSON, not an object with a
    /// `messages` array, or a known field has the wrong type (`"role": 5`, a
    /// `content` that is neither a string nor an array, a tool call that is not an
    /// object, a key given twice, a `max_tokens` or `max_completion_tokens` that is
    /// not a plain unsigned integer, ...).
    ///
    /// ```
    /// use ctxbudget::request::openai::ChatRequest;
    ///
    /// let err = ChatRequest::from_json("{\"messages\": [\n  {\"role\": \"user\", \"content\": 42}\n]}")
    ///     .unwrap_err()
    ///     .to_string();
    /// assert!(err.contains("expected `content` as a string, an array of content parts or null"), "{err}");
    /// assert!(err.contains("line 2 column"), "{err}");
    /// ```
    pub fn from_json(json: &str) -> Result<Self, RequestError> {
        let json = json.strip_prefix('\u{feff}').unwrap_or(json);
        serde_json::from_str(json).map_err(json_error)
    }

    /// Reads a request body from bytes (a leading UTF-8 byte-order mark is skipped).
    ///
    /// # Errors
    ///
    /// As [`from_json`](ChatRequest::from_json), and when the bytes are not UTF-8.
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

    /// The `max_tokens` field, when it is a plain unsigned integer (a body read with
    /// [`from_json`](ChatRequest::from_json) has no other, or `null`).
    pub fn max_tokens(&self) -> Option<u64> {
        output_limit("max_tokens", self.extra.get("max_tokens")?.get()).ok()
    }

    /// The `max_completion_tokens` field, when it is a plain unsigned integer.
    pub fn max_completion_tokens(&self) -> Option<u64> {
        output_limit(
            "max_completion_tokens",
            self.extra.get("max_completion_tokens")?.get(),
        )
        .ok()
    }

    /// Sets the rule each image part is counted by, from the `model`.
    fn stamp_images(&self) {
        cost::stamp_images(&self.messages, CountRule::for_model(self.model.as_deref()));
    }
}

fn json_error(source: serde_json::Error) -> RequestError {
    RequestError::json(RequestFormat::OpenAiChat, EXPECTED, source)
}

impl FromStr for ChatRequest {
    type Err = RequestError;

    fn from_str(json: &str) -> Result<Self, RequestError> {
        Self::from_json(json)
    }
}

/// See [`WireRequest`]; the OpenAI specifics are in the method docs.
impl WireRequest for ChatRequest {
    type Message = RequestMessage;
    const FORMAT: RequestFormat = RequestFormat::OpenAiChat;

    /// The messages, with each image part set to be counted by the rule of the
    /// request's `model` (see [the module docs](self#counting)).
    fn messages(&self) -> &[RequestMessage] {
        self.stamp_images();
        &self.messages
    }

    fn edit_messages<T>(&mut self, edit: impl FnOnce(&mut [RequestMessage]) -> T) -> T {
        edit(&mut self.messages)
    }

    /// [`ChatFormat::openai`].
    fn chat_format(&self) -> ChatFormat {
        ChatFormat::openai()
    }

    /// The `tools` and legacy `functions`, by [`ToolFormula::for_model`] of the
    /// `model`; and a `response_format` JSON schema, as its compact JSON text (a
    /// schema that cannot be read into a tree, nested too deep or with a number out
    /// of `f64` range, as its text without whitespace).
    fn fixed_cost<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        self.stamp_images();
        let formula = ToolFormula::for_model(self.model.as_deref().unwrap_or_default());
        let tools = self.tools.as_deref().unwrap_or_default();
        let functions = self.functions.as_deref().unwrap_or_default();
        let mut cost = formula.count_tools(counter, tools);
        let legacy = formula.count_functions(counter, functions);
        cost.tokens = cost.tokens.saturating_add(legacy.tokens);
        merge(&mut cost.assumptions, legacy.assumptions);
        if !tools.is_empty() || !functions.is_empty() {
            merge(
                &mut cost.assumptions,
                tools::model_assumption(self.model.as_deref()),
            );
        }
        if let Some(schema) = self.json_schema() {
            // Compact, whatever the client's formatting, in the text's own order.
            let compact = compact_json(schema.get());
            cost.tokens = cost.tokens.saturating_add(counter.count(&compact));
            merge(
                &mut cost.assumptions,
                Some(Assumption::UnpublishedRule {
                    message: None,
                    what: RESPONSE_FORMAT,
                }),
            );
        }
        cost
    }

    /// Remote images ([`Assumption::RemoteImage`]), images whose size could not be
    /// read ([`Assumption::UnreadableImage`]), and audio, files, parts of unknown
    /// types and assistant `audio` ([`Assumption::UnpublishedRule`], whose text says
    /// how each was counted).
    fn message_assumptions(&self) -> Vec<Assumption> {
        self.stamp_images();
        let mut assumptions = Vec::new();
        for (index, message) in self.messages.iter().enumerate() {
            for part in message.content.iter().flat_map(Content::parts) {
                cost::part_assumptions(part, index, &mut assumptions);
            }
            if message.extra.contains_key("audio") {
                assumptions.push(Assumption::UnpublishedRule {
                    message: Some(index),
                    what: cost::ASSISTANT_AUDIO,
                });
            }
        }
        assumptions
    }

    /// Checks, in this order:
    ///
    /// - `messages` is not empty ([`RequestError::InvalidField`]);
    /// - each message: a `system`, `developer`, `user` or `tool` message has
    ///   `content`; `system`, `developer` and `tool` content is text (parts of type
    ///   `text` only); `user` content has no `refusal` part; `assistant` content has
    ///   only `text` and `refusal` parts (and parts of unknown types), and an
    ///   assistant message has content, tool calls, a function call, a refusal or
    ///   `audio`; `tool_calls` is not empty and every call has an `id`; only
    ///   assistant messages make calls; a `tool` message has a `tool_call_id`, a
    ///   `function` message a `name`; an `image_url` part has a `url`
    ///   ([`RequestError::InvalidMessage`]);
    /// - call ids are unique in the request ([`RequestError::DuplicateCallId`]);
    /// - the messages right after an assistant message with `tool_calls` are `tool`
    ///   messages answering its ids, exactly one for each
    ///   ([`RequestError::OrphanToolResult`], [`RequestError::UnansweredToolCall`],
    ///   [`RequestError::InvalidMessage`] for a second result),
    ///   and a legacy `function_call` is followed by the `function` message of that
    ///   name ([`RequestError::InvalidMessage`]);
    /// - images in `data:` URLs decode to an image OpenAI takes, of the size their
    ///   header claims (see [`request::image`](crate::request::image#checks)), and
    ///   PDF files have at most [`OPENAI_MAX_PDF_PAGES`] pages in all
    ///   ([`RequestError::InvalidContent`]).
    ///
    /// Messages of roles ctxbudget does not know are not checked.
    fn validate(&self) -> Result<(), RequestError> {
        validate::validate(self)?;
        cost::check_parts(&self.messages)
    }

    /// Messages past the end of `keep` are kept.
    fn retain_messages(&mut self, keep: &[bool]) {
        retain_kept(&mut self.messages, keep);
    }

    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// `max_completion_tokens`, else the older `max_tokens`.
    fn max_output_tokens(&self) -> Option<u64> {
        self.max_completion_tokens().or_else(|| self.max_tokens())
    }
}

impl ChatRequest {
    /// The `json_schema` of a `response_format` of that type.
    fn json_schema(&self) -> Option<RawJson> {
        #[derive(Deserialize)]
        struct ResponseFormat {
            #[serde(rename = "type")]
            kind: Option<String>,
            json_schema: Option<RawJson>,
        }
        let format: ResponseFormat = self.extra.get("response_format")?.parse().ok()?;
        format
            .json_schema
            .filter(|_| format.kind.as_deref() == Some("json_schema"))
    }

    /// The tokens of every message, as [`ChatFormat::openai`] counts the request
    /// (reply priming included), without the tools.
    pub fn message_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        self.stamp_images();
        let format = self.chat_format();
        self.messages.iter().fold(format.reply_priming(), |sum, m| {
            sum.saturating_add(format.message_tokens(counter, m))
        })
    }

    /// The whole request: [`message_tokens`](ChatRequest::message_tokens) plus
    /// [`fixed_cost`](WireRequest::fixed_cost), with every assumption either made.
    ///
    /// ```
    /// use ctxbudget::Tiktoken;
    /// use ctxbudget::request::openai::ChatRequest;
    ///
    /// // The OpenAI cookbook's example ("How to count tokens with tiktoken"):
    /// // gpt-4o counts 124 prompt tokens.
    /// let request = ChatRequest::from_json(include_str!(
    ///     "../../../../tests/fixtures/requests/openai/cookbook_messages.json"
    /// ))?;
    /// assert_eq!(request.count(&Tiktoken::o200k_base()).tokens, 124);
    /// assert_eq!(request.count(&Tiktoken::cl100k_base()).tokens, 129);
    /// # Ok::<(), ctxbudget::request::RequestError>(())
    /// ```
    pub fn count<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let mut cost = self.fixed_cost(counter);
        cost.tokens = cost.tokens.saturating_add(self.message_tokens(counter));
        let mut assumptions = self.message_assumptions();
        assumptions.append(&mut cost.assumptions);
        cost.assumptions = assumptions;
        cost
    }
}

fn merge(into: &mut Vec<Assumption>, from: impl IntoIterator<Item = Assumption>) {
    for assumption in from {
        if !into.contains(&assumption) {
            into.push(assumption);
        }
    }
}

/// A request while its keys are read: `messages` is required.
#[derive(Default)]
pub(crate) struct PartialRequest {
    messages: Option<Vec<RequestMessage>>,
    request: ChatRequest,
}

impl WireObject for ChatRequest {
    type Partial = PartialRequest;
    const EXPECTING: &'static str = EXPECTED;

    fn read_field<'de, D: Deserializer<'de>>(
        partial: &mut PartialRequest,
        key: &str,
        value: D,
    ) -> Result<(), D::Error> {
        let r = &mut partial.request;
        let keys = Self::KEYS;
        match key {
            "messages" => {
                if partial.messages.is_some() {
                    return Err(de::Error::duplicate_field("messages"));
                }
                partial.messages = Some(Vec::deserialize(value)?);
                Ok(())
            }
            "model" => read_optional(&mut r.model, &mut r.nulls, keys, "model", value),
            "tools" => read_optional(&mut r.tools, &mut r.nulls, keys, "tools", value),
            "functions" => read_optional(&mut r.functions, &mut r.nulls, keys, "functions", value),
            _ => {
                let raw = RawJson::deserialize(value)?;
                if OUTPUT_LIMITS.contains(&key) && raw.get() != "null" {
                    output_limit(key, raw.get()).map_err(<D::Error as de::Error>::custom)?;
                }
                r.extra.push(key.to_owned(), raw);
                Ok(())
            }
        }
    }

    fn finish<E: de::Error>(partial: PartialRequest) -> Result<Self, E> {
        let messages = partial
            .messages
            .ok_or_else(|| de::Error::missing_field("messages"))?;
        Ok(ChatRequest {
            messages,
            ..partial.request
        })
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let (nulls, keys) = (self.nulls, Self::KEYS);
        write_optional(map, self.model.as_ref(), nulls, keys, "model")?;
        map.serialize_entry("messages", &self.messages)?;
        write_optional(map, self.tools.as_ref(), nulls, keys, "tools")?;
        write_optional(map, self.functions.as_ref(), nulls, keys, "functions")?;
        self.extra.write(map)
    }
}

impl<'de> Deserialize<'de> for ChatRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_object(deserializer)
    }
}

impl Serialize for ChatRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_object(self, &[], serializer)
    }
}

#[cfg(test)]
mod tests;
