//! [`BedrockRequest`]: the body, read and written losslessly.

use std::str::FromStr;

use serde::de::{self, Deserializer};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use super::message::BedrockMessage;
use crate::request::error::RequestError;
use crate::request::json::output_limit;
use crate::request::lossless::{
    ArrayElement, JsonArray, WireObject, deserialize_object, serialize_object,
};
use crate::request::openai::{Fields, RawJson};
use crate::request::wire::RequestFormat;

/// What [`BedrockRequest::from_json`] expects, as its errors say.
const EXPECTED: &str = "a JSON object whose `messages` is an array of message objects ({\"role\": \"user\", \"content\": [{\"text\": ...}]})";

/// An Amazon Bedrock Converse request body (`POST /model/{modelId}/converse`, and
/// `converse-stream`), kept losslessly.
///
/// `messages` is read into [`BedrockMessage`]s, each kept as its exact JSON text;
/// every other field (`system`, `toolConfig`, `inferenceConfig`,
/// `additionalModelRequestFields`, `guardrailConfig`, ...) is kept in
/// [`extra`](Self::extra) as the JSON text it was, and read from there when
/// counting: parsing a body and serializing it gives back an equal JSON value.
///
/// The model is in the URL, not the body: give it with
/// [`with_model`](Self::with_model) (a Bedrock model id such as
/// `anthropic.claude-sonnet-4-5-20250929-v1:0`); a `modelId` field in the body
/// (as the SDKs' request objects have) is read too.
///
/// ```
/// use ctxbudget::request::bedrock::BedrockRequest;
///
/// let body = r#"{"messages": [{"role": "user", "content": [{"text": "Hi!"}]}],
///     "system": [{"text": "Be brief."}], "inferenceConfig": {"maxTokens": 256}}"#;
/// let request = BedrockRequest::from_json(body)?;
/// assert_eq!(request.messages().len(), 1);
/// assert_eq!(request.max_output_tokens(), Some(256));
/// let back: serde_json::Value = serde_json::from_str(&request.to_json())?;
/// assert_eq!(back, serde_json::from_str::<serde_json::Value>(body)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BedrockRequest {
    /// Every field but `messages`, kept as it was.
    pub extra: Fields,
    /// The messages.
    pub(crate) messages: Vec<BedrockMessage>,
    /// Whether `messages` was given (`Some(true)`), given as `null`
    /// (`Some(false)`) or absent.
    given: Option<bool>,
    /// The model named by the caller, when the body has no `modelId`.
    model: Option<String>,
}

impl BedrockRequest {
    /// A request with these messages and no other field.
    pub fn new(messages: Vec<BedrockMessage>) -> Self {
        Self {
            messages,
            given: Some(true),
            ..Self::default()
        }
    }

    /// Reads a request body (a leading UTF-8 byte-order mark is skipped).
    ///
    /// # Errors
    ///
    /// [`RequestError::Json`] with serde's message and position (line and column)
    /// and what ctxbudget expected, when `json` is not JSON, not an object, its
    /// `messages` is not an array of objects or is given twice, `system` is not an
    /// array of objects, `toolConfig` or `inferenceConfig` is not an object, or
    /// `inferenceConfig.maxTokens` is not a plain unsigned integer. What is wrong
    /// inside a message is for [`validate`](crate::request::WireRequest::validate)
    /// to say.
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
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The body as indented JSON.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The same request for `model` (a Bedrock model id); the body is unchanged.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The body's `modelId`, or else the model given to
    /// [`with_model`](Self::with_model).
    pub fn model(&self) -> Option<&str> {
        self.extra
            .get("modelId")
            .and_then(|raw| serde_json::from_str::<&str>(raw.get()).ok())
            .or(self.model.as_deref())
    }

    /// The messages, in order.
    pub fn messages(&self) -> &[BedrockMessage] {
        &self.messages
    }

    /// Replaces the messages.
    pub fn set_messages(&mut self, messages: Vec<BedrockMessage>) {
        self.messages = messages;
        self.given = Some(true);
    }

    /// The value of `key`, not `null`.
    pub(crate) fn get(&self, key: &str) -> Option<&RawJson> {
        self.extra.get(key).filter(|raw| raw.get() != "null")
    }

    /// `inferenceConfig.maxTokens`, when it is a plain unsigned integer.
    pub fn max_output_tokens(&self) -> Option<u64> {
        let config = self.get("inferenceConfig")?;
        let limit = max_tokens_field(config.get()).ok()??;
        output_limit("maxTokens", limit.get()).ok()
    }
}

/// The `maxTokens` of an `inferenceConfig`'s JSON text, not `null`.
fn max_tokens_field(config: &str) -> Result<Option<&RawValue>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Config<'a> {
        #[serde(borrow, default, rename = "maxTokens")]
        limit: Option<&'a RawValue>,
    }
    let config: Config<'_> = serde_json::from_str(config)?;
    Ok(config.limit.filter(|l| l.get() != "null"))
}

fn json_error(source: serde_json::Error) -> RequestError {
    RequestError::json(RequestFormat::BedrockConverse, EXPECTED, source)
}

impl FromStr for BedrockRequest {
    type Err = RequestError;

    fn from_str(json: &str) -> Result<Self, RequestError> {
        Self::from_json(json)
    }
}

impl ArrayElement for BedrockMessage {
    const ARRAY: &'static str = "`messages` as an array of message objects";
}

impl WireObject for BedrockRequest {
    type Partial = Self;
    const EXPECTING: &'static str = EXPECTED;

    fn read_field<'de, D: Deserializer<'de>>(
        r: &mut Self,
        key: &str,
        value: D,
    ) -> Result<(), D::Error> {
        if key == "messages" {
            if r.given.is_some() {
                return Err(de::Error::duplicate_field("messages"));
            }
            match Option::<JsonArray<BedrockMessage>>::deserialize(value)? {
                Some(JsonArray(messages)) => {
                    r.messages = messages;
                    r.given = Some(true);
                }
                None => r.given = Some(false),
            }
            return Ok(());
        }
        let raw = RawJson::deserialize(value)?;
        check_field(key, raw.get()).map_err(<D::Error as de::Error>::custom)?;
        r.extra.push(key.to_owned(), raw);
        Ok(())
    }

    fn finish<E: de::Error>(partial: Self) -> Result<Self, E> {
        Ok(partial)
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        match self.given {
            Some(false) if self.messages.is_empty() => map.serialize_entry("messages", &())?,
            None if self.messages.is_empty() => {}
            _ => map.serialize_entry("messages", &self.messages)?,
        }
        self.extra.write(map)
    }
}

/// Checks the type of a top-level field ctxbudget reads.
fn check_field(key: &str, json: &str) -> Result<(), String> {
    if json == "null" {
        return Ok(());
    }
    match key {
        "system" => match serde_json::from_str::<Vec<&RawValue>>(json) {
            Ok(blocks) if blocks.iter().all(|b| b.get().starts_with('{')) => Ok(()),
            _ => Err(
                "`system` is not an array of blocks: give it as [{\"text\": \"Be brief.\"}]"
                    .to_owned(),
            ),
        },
        "toolConfig" if !json.starts_with('{') => Err(
            "`toolConfig` is not an object: give it as {\"tools\": [{\"toolSpec\": ...}]}"
                .to_owned(),
        ),
        "inferenceConfig" => {
            if !json.starts_with('{') {
                return Err(
                    "`inferenceConfig` is not an object: give it as {\"maxTokens\": 1024}"
                        .to_owned(),
                );
            }
            match max_tokens_field(json) {
                Ok(Some(limit)) => output_limit("maxTokens", limit.get()).map(|_| ()),
                Ok(None) => Ok(()),
                Err(e) => Err(format!(
                    "`inferenceConfig` cannot be read ({e}); send each key once"
                )),
            }
        }
        _ => Ok(()),
    }
}

impl<'de> Deserialize<'de> for BedrockRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_object(deserializer)
    }
}

impl Serialize for BedrockRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_object(self, &[], serializer)
    }
}
