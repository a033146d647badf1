//! [`GeminiRequest`]: the body, read and written losslessly, and the pairing of
//! calls with their responses across its contents.

use std::str::FromStr;

use serde::de::{self, Deserializer};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use super::content::{GeminiContent, first_word, pair};
use crate::request::error::RequestError;
use crate::request::json::output_limit;
use crate::request::lossless::{
    ArrayElement, JsonArray, WireObject, deserialize_object, serialize_object,
};
use crate::request::openai::{Fields, RawJson};
use crate::request::wire::RequestFormat;

/// What [`GeminiRequest::from_json`] expects, as its errors say.
const EXPECTED: &str = "a JSON object whose `contents` is an array of content objects ({\"role\": \"user\", \"parts\": [...]})";

/// The top-level keys ctxbudget reads, each in its camelCase and `snake_case`
/// spelling.
pub(crate) const SYSTEM_INSTRUCTION: [&str; 2] = ["systemInstruction", "system_instruction"];
pub(crate) const CACHED_CONTENT: [&str; 2] = ["cachedContent", "cached_content"];
const GENERATION_CONFIG: [&str; 2] = ["generationConfig", "generation_config"];

/// A Gemini `generateContent` request body (`POST .../models/{model}:generateContent`,
/// and `streamGenerateContent` and `countTokens`' `generateContentRequest`), kept
/// losslessly.
///
/// `contents` is read into [`GeminiContent`]s, each kept as its exact JSON text;
/// every other field (`systemInstruction`, `tools`, `toolConfig`, `cachedContent`,
/// `generationConfig`, `safetySettings`, ...) is kept in [`extra`](Self::extra)
/// as the JSON text it was, and read from there when counting: parsing a body and
/// serializing it gives back an equal JSON value. Keys are read in the REST API's
/// camelCase and in `snake_case`.
///
/// The model is not in the body (it is in the URL): give it with
/// [`with_model`](Self::with_model) for images to be counted by its rule. A
/// `model` field in the body (as batch files have) is read too.
///
/// ```
/// use ctxbudget::request::gemini::GeminiRequest;
///
/// let body = r#"{"contents": [{"role": "user", "parts": [{"text": "Hi!"}]}],
///     "generationConfig": {"maxOutputTokens": 256, "temperature": 0.2}}"#;
/// let request = GeminiRequest::from_json(body)?;
/// assert_eq!(request.contents().len(), 1);
/// assert_eq!(request.max_output_tokens(), Some(256));
/// let back: serde_json::Value = serde_json::from_str(&request.to_json())?;
/// assert_eq!(back, serde_json::from_str::<serde_json::Value>(body)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GeminiRequest {
    /// Every field but `contents`, kept as it was.
    pub extra: Fields,
    /// The contents.
    pub(crate) contents: Vec<GeminiContent>,
    /// Whether `contents` was given (`Some(true)`), given as `null`
    /// (`Some(false)`) or absent.
    given: Option<bool>,
    /// The model named by the caller, when the body has no `model`.
    model: Option<String>,
}

impl GeminiRequest {
    /// A request with these contents and no other field.
    pub fn new(contents: Vec<GeminiContent>) -> Self {
        let mut request = Self {
            given: Some(true),
            ..Self::default()
        };
        request.set_contents(contents);
        request
    }

    /// Reads a request body (a leading UTF-8 byte-order mark is skipped).
    ///
    /// # Errors
    ///
    /// [`RequestError::Json`] with serde's message and position (line and column)
    /// and what ctxbudget expected, when `json` is not JSON, not an object, its
    /// `contents` is not an array of objects, `contents` is given twice,
    /// `systemInstruction` or `generationConfig` is not an object, `tools` is
    /// not an array of objects, `cachedContent` is not a string, or
    /// `generationConfig.maxOutputTokens` is not a plain unsigned integer. What
    /// is wrong inside a content is for
    /// [`validate`](crate::request::WireRequest::validate) to say.
    ///
    /// ```
    /// use ctxbudget::request::gemini::GeminiRequest;
    ///
    /// let err = GeminiRequest::from_json("{\"contents\": [\n  \"hi\"\n]}").unwrap_err().to_string();
    /// assert!(err.contains("expected a content object"), "{err}");
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

    /// The same request, its images counted by the rule of `model` (a Gemini
    /// model id such as `gemini-2.5-pro`); the body is unchanged.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The body's `model` field, or else the model given to
    /// [`with_model`](Self::with_model).
    pub fn model(&self) -> Option<&str> {
        self.extra
            .get("model")
            .and_then(|raw| serde_json::from_str::<&str>(raw.get()).ok())
            .or(self.model.as_deref())
    }

    /// The contents, in order.
    pub fn contents(&self) -> &[GeminiContent] {
        &self.contents
    }

    /// Replaces the contents, pairing their calls and responses again.
    pub fn set_contents(&mut self, contents: Vec<GeminiContent>) {
        self.contents = contents;
        self.given = Some(true);
        let mut made = 0usize;
        pair(&mut self.contents, &mut made);
    }

    /// The value of the first of `keys` the body has (not `null`).
    pub(crate) fn get(&self, keys: [&str; 2]) -> Option<&RawJson> {
        keys.iter()
            .find_map(|k| self.extra.get(k))
            .filter(|raw| raw.get() != "null")
    }

    /// `systemInstruction`, as its JSON text.
    pub fn system_instruction(&self) -> Option<&RawJson> {
        self.get(SYSTEM_INSTRUCTION)
    }

    /// `tools`, each as its JSON text (empty when there are none or they cannot
    /// be read).
    pub fn tools(&self) -> Vec<&RawValueRef> {
        self.extra
            .get("tools")
            .and_then(|raw| serde_json::from_str::<Vec<&RawValueRef>>(raw.get()).ok())
            .unwrap_or_default()
    }

    /// `cachedContent`: the name of a cache whose contents come before these.
    pub fn cached_content(&self) -> Option<String> {
        self.get(CACHED_CONTENT)
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
    }

    /// `generationConfig.maxOutputTokens`, when it is a plain unsigned integer.
    pub fn max_output_tokens(&self) -> Option<u64> {
        let config = self.get(GENERATION_CONFIG)?;
        let limit = max_output_field(config.get()).ok()??;
        output_limit("maxOutputTokens", limit.get()).ok()
    }
}

impl GeminiRequest {
    /// `generationConfig.mediaResolution`, the default when absent or unreadable.
    pub(crate) fn media_resolution(&self) -> super::media::Resolution {
        #[derive(Deserialize)]
        struct Config<'a> {
            #[serde(
                borrow,
                default,
                rename = "mediaResolution",
                alias = "media_resolution"
            )]
            resolution: Option<&'a RawValueRef>,
        }
        self.get(GENERATION_CONFIG)
            .and_then(|config| serde_json::from_str::<Config<'_>>(config.get()).ok())
            .and_then(|config| config.resolution)
            .map_or_else(Default::default, |r| super::part::resolution(r.get()))
    }
}

/// A borrowed JSON value's text, as [`GeminiRequest::tools`] lists them.
pub type RawValueRef = serde_json::value::RawValue;

/// The `maxOutputTokens` (or `max_output_tokens`) of a `generationConfig`'s JSON
/// text, not `null`; an error when the config is not an object or gives it twice.
fn max_output_field(config: &str) -> Result<Option<&RawValueRef>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Config<'a> {
        #[serde(
            borrow,
            default,
            rename = "maxOutputTokens",
            alias = "max_output_tokens"
        )]
        limit: Option<&'a RawValueRef>,
    }
    let config: Config<'_> = serde_json::from_str(config)?;
    Ok(config.limit.filter(|l| l.get() != "null"))
}

fn json_error(source: serde_json::Error) -> RequestError {
    RequestError::json(RequestFormat::GeminiGenerateContent, EXPECTED, source)
}

impl FromStr for GeminiRequest {
    type Err = RequestError;

    fn from_str(json: &str) -> Result<Self, RequestError> {
        Self::from_json(json)
    }
}

impl ArrayElement for GeminiContent {
    const ARRAY: &'static str = "`contents` as an array of content objects";
}

impl WireObject for GeminiRequest {
    type Partial = Self;
    const EXPECTING: &'static str = EXPECTED;

    fn read_field<'de, D: Deserializer<'de>>(
        r: &mut Self,
        key: &str,
        value: D,
    ) -> Result<(), D::Error> {
        if key == "contents" {
            if r.given.is_some() {
                return Err(de::Error::duplicate_field("contents"));
            }
            match Option::<JsonArray<GeminiContent>>::deserialize(value)? {
                Some(JsonArray(contents)) => {
                    r.contents = contents;
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

    fn finish<E: de::Error>(mut partial: Self) -> Result<Self, E> {
        let mut made = 0usize;
        pair(&mut partial.contents, &mut made);
        Ok(partial)
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        match (self.given, self.contents.is_empty()) {
            (Some(false), true) => map.serialize_entry("contents", &())?,
            (None, true) => {}
            _ => map.serialize_entry("contents", &self.contents)?,
        }
        self.extra.write(map)
    }
}

/// Checks the type of a top-level field ctxbudget reads: an error message (which
/// serde gives its position) when it is not what the API takes.
fn check_field(key: &str, json: &str) -> Result<(), String> {
    if json == "null" {
        return Ok(());
    }
    let is_object = json.starts_with('{');
    let wrong = |what: &str| {
        Err(format!(
            "`{key}` is {}, not {what}",
            first_word_or_object(json)
        ))
    };
    match key {
        "systemInstruction" | "system_instruction" if !is_object => {
            wrong("a content object such as {\"parts\": [{\"text\": \"Be brief.\"}]}")
        }
        "cachedContent" | "cached_content" if !json.starts_with('"') => {
            wrong("a string such as \"cachedContents/abc123\"")
        }
        "tools" => {
            let Ok(tools) = serde_json::from_str::<Vec<&RawValueRef>>(json) else {
                return wrong("an array of tool objects");
            };
            match tools.iter().find(|t| !t.get().starts_with('{')) {
                Some(_) => Err(
                    "a tool is not an object: give each tool as {\"functionDeclarations\": [...]}"
                        .to_owned(),
                ),
                None => Ok(()),
            }
        }
        "generationConfig" | "generation_config" => {
            if !is_object {
                return wrong("an object");
            }
            match max_output_field(json) {
                Ok(Some(limit)) => output_limit("maxOutputTokens", limit.get()).map(|_| ()),
                Ok(None) => Ok(()),
                Err(e) => Err(format!("`{key}` cannot be read ({e}); send each key once")),
            }
        }
        _ => Ok(()),
    }
}

fn first_word_or_object(json: &str) -> &'static str {
    if json.starts_with('{') {
        "an object"
    } else {
        first_word(json)
    }
}

impl<'de> Deserialize<'de> for GeminiRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_object(deserializer)
    }
}

impl Serialize for GeminiRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_object(self, &[], serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ChatMessage;

    #[test]
    fn calls_without_ids_pair_by_name_in_order() {
        let request = GeminiRequest::from_json(
            r#"{"contents": [
              {"role": "user", "parts": [{"text": "go"}]},
              {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}, {"functionCall": {"name": "b"}}, {"functionCall": {"name": "a", "args": {"x": 1}}}]},
              {"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {}}}, {"functionResponse": {"name": "a", "response": {}}}, {"functionResponse": {"name": "b", "response": {}}}]},
              {"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {}}}]}
            ]}"#,
        )
        .unwrap();
        let calls: Vec<&str> = request.contents[1].tool_calls().map(|c| c.id).collect();
        assert_eq!(calls, ["a#1", "b#2", "a#3"]);
        let results: Vec<&str> = request.contents[2].tool_result_ids().collect();
        assert_eq!(results, ["a#1", "a#3", "b#2"]);
        assert_eq!(request.contents[3].results, ["a#?"]);
    }

    #[test]
    fn top_level_types_are_checked_with_their_position() {
        for (body, said) in [
            (
                r#"{"contents": [], "systemInstruction": "x"}"#,
                "`systemInstruction` is a string",
            ),
            (
                r#"{"contents": [], "tools": [1]}"#,
                "a tool is not an object",
            ),
            (
                r#"{"contents": [], "cachedContent": 5}"#,
                "`cachedContent` is a number",
            ),
            (
                r#"{"contents": [], "generationConfig": {"maxOutputTokens": 1.5}}"#,
                "`maxOutputTokens` is `1.5`",
            ),
            (r#"{"contents": 5}"#, "expected `contents` as an array"),
            (
                r#"{"contents": [], "contents": []}"#,
                "duplicate field `contents`",
            ),
        ] {
            let err = GeminiRequest::from_json(body).unwrap_err().to_string();
            assert!(err.contains(said), "{err}");
            assert!(err.contains("line 1"), "{err}");
        }
    }
}
