//! [`PartView`]: what ctxbudget reads from one element of a Gemini content's
//! `parts`, worked out once from its JSON text. Field names are read in the REST
//! API's camelCase and in the protobuf's `snake_case`, as the API takes both.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::media::Resolution;
use crate::request::image::ImageSize;
use crate::request::json::compact_json;

/// What a part is, as counting, pairing and editing see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PartKind {
    /// A `text` part (a thought summary when `thought` is true).
    Text(String),
    /// An `inlineData` part: its MIME type, and its size when it is an image
    /// whose header could be read.
    Inline {
        image: bool,
        size: Option<ImageSize>,
    },
    /// A `fileData` part: a file by URI, its size unknown.
    File,
    /// A `functionCall`: the tool's name, its `args` as compact JSON, its `id`.
    Call {
        name: String,
        args: String,
        id: Option<String>,
    },
    /// A `functionResponse` (see [`Response`]).
    Response(Response),
    /// A part of another kind (`executableCode`, `codeExecutionResult`, a kind
    /// ctxbudget does not know): counted as its compact JSON text.
    Other(String),
}

/// A `functionResponse`, as counted and edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Response {
    /// The function's `name`.
    pub(crate) name: String,
    /// The `id` of the call it answers, when given.
    pub(crate) id: Option<String>,
    /// The key of `response` whose string is the result text (`output`, or
    /// `error` when there is no `output`), when there is one.
    pub(crate) key: Option<&'static str>,
    /// The result text: that string, or the compact JSON of the whole
    /// `response` when no such key holds a string.
    pub(crate) text: String,
    /// The compact JSON of the rest of `response` (empty when `key` is `None`
    /// or the key is all there is).
    pub(crate) rest: String,
    /// How many `inlineData` / `fileData` parts the response carries.
    pub(crate) media: usize,
}

/// One part, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartView {
    pub(crate) kind: PartKind,
    /// `thought: true`: a thought summary.
    pub(crate) thought: bool,
    /// Whether the part carries a `thoughtSignature`.
    pub(crate) signature: bool,
    /// The part's own `mediaResolution.level` (Gemini 3), if it gives one.
    pub(crate) resolution: Resolution,
}

impl PartView {
    /// Whether a context edit may drop the part as old thinking: a thought with no
    /// signature (a signature is kept with its part, always).
    pub(crate) fn droppable_thought(&self) -> bool {
        self.thought && !self.signature
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Keys<'a> {
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    thought: Option<&'a RawValue>,
    #[serde(borrow, rename = "thoughtSignature", alias = "thought_signature")]
    signature: Option<&'a RawValue>,
    #[serde(borrow, rename = "inlineData", alias = "inline_data")]
    inline: Option<&'a RawValue>,
    #[serde(borrow, rename = "fileData", alias = "file_data")]
    file: Option<&'a RawValue>,
    #[serde(borrow, rename = "functionCall", alias = "function_call")]
    call: Option<&'a RawValue>,
    #[serde(borrow, rename = "functionResponse", alias = "function_response")]
    response: Option<&'a RawValue>,
    #[serde(borrow, rename = "mediaResolution", alias = "media_resolution")]
    resolution: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Blob<'a> {
    #[serde(borrow, rename = "mimeType", alias = "mime_type")]
    mime: Option<&'a RawValue>,
    #[serde(borrow)]
    data: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CallKeys<'a> {
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    response: Option<&'a RawValue>,
    #[serde(borrow)]
    parts: Option<&'a RawValue>,
}

/// A media resolution given as `{"level": "MEDIA_RESOLUTION_LOW"}` (or as the
/// string alone); the default for anything else.
pub(crate) fn resolution(json: &str) -> Resolution {
    #[derive(Deserialize)]
    struct Level {
        level: String,
    }
    let level = serde_json::from_str::<Level>(json)
        .map(|l| l.level)
        .or_else(|_| serde_json::from_str::<String>(json));
    level
        .ok()
        .and_then(|level| Resolution::parse(&level))
        .unwrap_or_default()
}

/// A string value, or `None` for any other.
pub(crate) fn string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str(raw?.get()).ok()
}

/// Reads one part from its JSON text: the view, or what is wrong with it.
pub(crate) fn read_part(raw: &RawValue) -> Result<PartView, String> {
    let json = raw.get();
    if !json.starts_with('{') {
        return Err(
            "is not an object; give each part as {\"text\": ...} or another part kind".to_owned(),
        );
    }
    let keys: Keys<'_> = serde_json::from_str(json)
        .map_err(|e| format!("cannot be read ({e}); send each key once"))?;
    let thought = keys.thought.is_some_and(|t| t.get() == "true");
    let signature = keys.signature.is_some_and(|s| s.get() != "null");
    let kinds = [keys.text, keys.inline, keys.file, keys.call, keys.response]
        .iter()
        .filter(|k| k.is_some_and(|v| v.get() != "null"))
        .count();
    if kinds > 1 {
        return Err(
            "holds more than one of text, inlineData, fileData, functionCall and functionResponse; give each its own part"
                .to_owned(),
        );
    }
    let kind = if let Some(text) = keys.text.filter(|v| v.get() != "null") {
        PartKind::Text(
            string(Some(text)).ok_or("has a `text` that is not a string; give it a string")?,
        )
    } else if let Some(call) = keys.call.filter(|v| v.get() != "null") {
        read_call(call)?
    } else if let Some(response) = keys.response.filter(|v| v.get() != "null") {
        read_response(response)?
    } else if let Some(inline) = keys.inline.filter(|v| v.get() != "null") {
        let blob: Blob<'_> = serde_json::from_str(inline.get()).map_err(|_| {
            "has an `inlineData` that is not an object with `mimeType` and `data`; fix its keys"
                .to_owned()
        })?;
        let mime = string(blob.mime).unwrap_or_default();
        let image = mime.starts_with("image/");
        let size = string(blob.data)
            .filter(|_| image)
            .and_then(|data| ImageSize::from_base64(&data));
        PartKind::Inline { image, size }
    } else if keys.file.is_some_and(|v| v.get() != "null") {
        PartKind::File
    } else {
        PartKind::Other(compact_json(json))
    };
    Ok(PartView {
        kind,
        thought,
        signature,
        resolution: keys
            .resolution
            .map_or(Resolution::Default, |r| resolution(r.get())),
    })
}

fn read_call(raw: &RawValue) -> Result<PartKind, String> {
    let keys: CallKeys<'_> = serde_json::from_str(raw.get()).map_err(|_| {
        "has a `functionCall` that is not an object with `name` and `args`; fix its keys".to_owned()
    })?;
    let name = string(keys.name)
        .ok_or("has a `functionCall` without a string `name`; give it the function's name")?;
    let args = keys
        .args
        .filter(|a| a.get() != "null")
        .map_or_else(|| "{}".to_owned(), |a| compact_json(a.get()));
    Ok(PartKind::Call {
        name,
        args,
        id: string(keys.id),
    })
}

fn read_response(raw: &RawValue) -> Result<PartKind, String> {
    let keys: CallKeys<'_> = serde_json::from_str(raw.get()).map_err(|_| {
        "has a `functionResponse` that is not an object with `name` and `response`; fix its keys"
            .to_owned()
    })?;
    let name = string(keys.name).ok_or(
        "has a `functionResponse` without a string `name`; give it the name of the function it answers",
    )?;
    let media = keys
        .parts
        .and_then(|p| serde_json::from_str::<Vec<&RawValue>>(p.get()).ok())
        .map_or(0, |parts| parts.len());
    let body = keys.response.filter(|r| r.get() != "null");
    let (key, text, rest) = match body {
        None => (None, String::new(), String::new()),
        Some(body) => split_response(body.get())?,
    };
    Ok(PartKind::Response(Response {
        name,
        id: string(keys.id),
        key,
        text,
        rest,
        media,
    }))
}

/// Splits a `response` object into its result text and the rest.
fn split_response(json: &str) -> Result<(Option<&'static str>, String, String), String> {
    if !json.starts_with('{') {
        return Err(
            "has a `functionResponse.response` that is not an object; give it as {\"output\": ...}"
                .to_owned(),
        );
    }
    let Some(fields) = fields(json) else {
        // Too deep or odd to split: the whole object is the text.
        return Ok((None, compact_json(json), String::new()));
    };
    let find = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| string(Some(v)))
    };
    let (key, text) = match (find("output"), find("error")) {
        (Some(text), _) => ("output", text),
        (None, Some(text)) if fields.iter().all(|(k, _)| k != "output") => ("error", text),
        _ => return Ok((None, compact_json(json), String::new())),
    };
    let rest: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k != key)
        .map(|(k, v)| {
            format!(
                "{}:{}",
                serde_json::Value::from(k.as_str()),
                compact_json(v.get())
            )
        })
        .collect();
    let rest = if rest.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", rest.join(","))
    };
    Ok((Some(key), text, rest))
}

/// An object's fields in order (duplicates kept), each value as its JSON text.
fn fields(json: &str) -> Option<Vec<(String, &RawValue)>> {
    struct Fields;
    impl<'de> serde::de::Visitor<'de> for Fields {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                out.push((k, v));
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(json);
    serde::Deserializer::deserialize_map(&mut de, Fields).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(json: &str) -> Result<PartView, String> {
        let raw: Box<RawValue> = serde_json::from_str(json).unwrap();
        read_part(&raw)
    }

    #[test]
    fn parts_are_read_in_both_spellings() {
        let call = part(
            r#"{"function_call": {"name": "ls", "args": {"a": 1}}, "thought_signature": "c2ln"}"#,
        )
        .unwrap();
        assert!(call.signature);
        assert_eq!(
            call.kind,
            PartKind::Call {
                name: "ls".into(),
                args: r#"{"a":1}"#.into(),
                id: None
            }
        );
        let thought = part(r#"{"text": "hmm", "thought": true}"#).unwrap();
        assert!(thought.droppable_thought());
        let response = part(r#"{"functionResponse": {"name": "ls", "id": "c1", "response": {"output": "a b", "n": 2}}}"#).unwrap();
        let PartKind::Response(r) = response.kind else {
            panic!("a response")
        };
        assert_eq!(
            (r.key, r.text.as_str(), r.rest.as_str()),
            (Some("output"), "a b", r#"{"n":2}"#)
        );
        assert_eq!(r.id.as_deref(), Some("c1"));
        let odd = part(r#"{"executableCode": {"language": "PYTHON", "code": "1"}}"#).unwrap();
        assert!(matches!(odd.kind, PartKind::Other(_)));
        assert!(part(r#"{"text": "a", "functionCall": {"name": "f"}}"#).is_err());
        assert!(part(r#"{"functionCall": {"args": {}}}"#).is_err());
        assert!(part("[1]").is_err());
    }
}
