//! A message's `content`: a string, or an array of parts ([`Content`],
//! [`ContentPart`] and the objects inside parts).

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use crate::request::image::RuleStamp;
use crate::request::lossless::{
    Fields, KeySeed, NullFields, RawJson, WireObject, deserialize_object, read_optional,
    serialize_object, wire_struct, write_optional,
};

/// A message's `content`: a plain string, or an array of parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// `"content": "…"`.
    Text(String),
    /// `"content": [{"type": "text", …}, {"type": "image_url", …}, …]`.
    Parts(Vec<ContentPart>),
}

impl Content {
    /// The text, when the content is a plain string.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            Content::Parts(_) => None,
        }
    }

    /// The parts, when the content is an array (empty for a plain string).
    pub fn parts(&self) -> &[ContentPart] {
        match self {
            Content::Text(_) => &[],
            Content::Parts(parts) => parts,
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

impl From<Vec<ContentPart>> for Content {
    fn from(parts: Vec<ContentPart>) -> Self {
        Content::Parts(parts)
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(text) => serializer.serialize_str(text),
            Content::Parts(parts) => parts.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`content` as a string, an array of content parts or null")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
        Ok(Content::Text(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
        Ok(Content::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(part) = seq.next_element()? {
            parts.push(part);
        }
        Ok(Content::Parts(parts))
    }
}

wire_struct! {
    /// A `text` part: `{"type": "text", "text": "…"}`.
    pub struct TextPart("a text part") {
        /// The text.
        text: String = "text",
    }
}

/// An `image_url` part: `{"type": "image_url", "image_url": {"url": "…"}}`.
///
/// Its `image_url` is optional: `None` when the key is absent or `null` (a `null`
/// is written back as `null`). Other fields are kept in [`extra`](Self::extra).
///
/// What it costs depends on the request's model (see
/// [`ChatRequest`](super::ChatRequest)'s counting): the part remembers the rule of the
/// request that last counted it or handed it out, which is not part of its JSON or
/// of its equality. Counted on its own, it costs what gpt-4o bills.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImagePart {
    /// The image.
    pub image_url: Option<ImageUrl>,
    /// The fields ctxbudget does not read, kept as they were.
    pub extra: Fields,
    /// The known fields that were `null`.
    pub nulls: NullFields,
    /// The rule the part is counted by.
    pub(super) rule: RuleStamp,
}

impl ImagePart {
    const KEYS: &'static [&'static str] = &["image_url"];
}

impl WireObject for ImagePart {
    type Partial = Self;
    const EXPECTING: &'static str = "an image_url part";

    fn read_field<'de, D: Deserializer<'de>>(
        partial: &mut Self,
        key: &str,
        value: D,
    ) -> Result<(), D::Error> {
        if key == "image_url" {
            return read_optional(
                &mut partial.image_url,
                &mut partial.nulls,
                Self::KEYS,
                "image_url",
                value,
            );
        }
        partial
            .extra
            .push(key.to_owned(), RawJson::deserialize(value)?);
        Ok(())
    }

    fn finish<E: de::Error>(partial: Self) -> Result<Self, E> {
        Ok(partial)
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        write_optional(
            map,
            self.image_url.as_ref(),
            self.nulls,
            Self::KEYS,
            "image_url",
        )?;
        self.extra.write(map)
    }
}

impl<'de> Deserialize<'de> for ImagePart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_object(deserializer)
    }
}

impl Serialize for ImagePart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_object(self, &[], serializer)
    }
}

wire_struct! {
    /// The image of an `image_url` part: a URL (`https://…` or a `data:` URL with
    /// the image in base64) and the `detail` (`low`, `high` or `auto`).
    pub struct ImageUrl("an `image_url` object with a `url`") {
        /// `https://…`, or `data:image/png;base64,…`.
        url: String = "url",
        /// `"low"`, `"high"` or `"auto"` (the default).
        detail: String = "detail",
    }
}

wire_struct! {
    /// An `input_audio` part: `{"type": "input_audio", "input_audio": {"data": "…",
    /// "format": "wav"}}`.
    pub struct AudioPart("an input_audio part") {
        /// The audio.
        input_audio: InputAudio = "input_audio",
    }
}

wire_struct! {
    /// The audio of an `input_audio` part: base64 data and its format.
    pub struct InputAudio("an `input_audio` object with `data` and `format`") {
        /// The audio file, base64-encoded.
        data: String = "data",
        /// `"wav"` or `"mp3"`.
        format: String = "format",
    }
}

wire_struct! {
    /// A `file` part: `{"type": "file", "file": {"file_id": "…"}}` or with
    /// `file_data`.
    pub struct FilePart("a file part") {
        /// The file.
        file: FileData = "file",
    }
}

wire_struct! {
    /// The file of a `file` part: an uploaded file's id, or the file itself as a
    /// `data:` URL.
    pub struct FileData("a `file` object") {
        /// The file as a `data:` URL (`data:application/pdf;base64,…`).
        file_data: String = "file_data",
        /// The id of a file uploaded through the Files API.
        file_id: String = "file_id",
        /// The file's name.
        filename: String = "filename",
    }
}

wire_struct! {
    /// A `refusal` part of an assistant message: `{"type": "refusal", "refusal": "…"}`.
    pub struct RefusalPart("a refusal part") {
        /// The refusal text.
        refusal: String = "refusal",
    }
}

/// One part of an array `content`, by its `type`.
///
/// A part of a type ctxbudget does not know (or with no `type`) is kept whole, as
/// [`Other`](ContentPart::Other), and written back as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentPart {
    /// `"type": "text"`.
    Text(TextPart),
    /// `"type": "image_url"`.
    ImageUrl(ImagePart),
    /// `"type": "input_audio"`.
    InputAudio(AudioPart),
    /// `"type": "file"`.
    File(FilePart),
    /// `"type": "refusal"`.
    Refusal(RefusalPart),
    /// Any other part, every field (`type` included) kept as it was.
    Other(Fields),
}

impl ContentPart {
    /// A `text` part.
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart::Text(TextPart {
            text: Some(text.into()),
            ..TextPart::default()
        })
    }

    /// An `image_url` part with the `url` (`https://…` or a `data:` URL) and no
    /// `detail`.
    pub fn image_url(url: impl Into<String>) -> Self {
        ContentPart::ImageUrl(ImagePart {
            image_url: Some(ImageUrl {
                url: Some(url.into()),
                ..ImageUrl::default()
            }),
            ..ImagePart::default()
        })
    }

    /// A `refusal` part.
    pub fn refusal(refusal: impl Into<String>) -> Self {
        ContentPart::Refusal(RefusalPart {
            refusal: Some(refusal.into()),
            ..RefusalPart::default()
        })
    }

    /// The part's `type`: `"text"`, `"image_url"`, …; for
    /// [`Other`](ContentPart::Other), its `type` when that is a plain string.
    pub fn kind(&self) -> Option<&str> {
        match self {
            ContentPart::Text(_) => Some("text"),
            ContentPart::ImageUrl(_) => Some("image_url"),
            ContentPart::InputAudio(_) => Some("input_audio"),
            ContentPart::File(_) => Some("file"),
            ContentPart::Refusal(_) => Some("refusal"),
            ContentPart::Other(fields) => fields
                .get("type")
                .and_then(|raw| raw.get().strip_prefix('"')?.strip_suffix('"'))
                .filter(|kind| !kind.contains('\\')),
        }
    }

    /// The text of a `text` part.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentPart::Text(part) => part.text.as_deref(),
            _ => None,
        }
    }
}

impl Serialize for ContentPart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentPart::Text(part) => serialize_object(part, &[("type", "text")], serializer),
            ContentPart::ImageUrl(part) => {
                serialize_object(part, &[("type", "image_url")], serializer)
            }
            ContentPart::InputAudio(part) => {
                serialize_object(part, &[("type", "input_audio")], serializer)
            }
            ContentPart::File(part) => serialize_object(part, &[("type", "file")], serializer),
            ContentPart::Refusal(part) => {
                serialize_object(part, &[("type", "refusal")], serializer)
            }
            ContentPart::Other(fields) => fields.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ContentPart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(PartVisitor)
    }
}

impl ContentPart {
    /// The empty part of the type whose JSON text (quotes included) is `kind`.
    fn of_kind(kind: RawJson) -> Self {
        match kind.get() {
            r#""text""# => ContentPart::Text(TextPart::default()),
            r#""image_url""# => ContentPart::ImageUrl(ImagePart::default()),
            r#""input_audio""# => ContentPart::InputAudio(AudioPart::default()),
            r#""file""# => ContentPart::File(FilePart::default()),
            r#""refusal""# => ContentPart::Refusal(RefusalPart::default()),
            _ => {
                let mut fields = Fields::new();
                fields.push("type".to_owned(), kind);
                ContentPart::Other(fields)
            }
        }
    }

    fn read_field<'de, D: Deserializer<'de>>(
        &mut self,
        key: &str,
        value: D,
    ) -> Result<(), D::Error> {
        match self {
            ContentPart::Text(part) => TextPart::read_field(part, key, value),
            ContentPart::ImageUrl(part) => ImagePart::read_field(part, key, value),
            ContentPart::InputAudio(part) => AudioPart::read_field(part, key, value),
            ContentPart::File(part) => FilePart::read_field(part, key, value),
            ContentPart::Refusal(part) => RefusalPart::read_field(part, key, value),
            ContentPart::Other(fields) => Fields::read_field(fields, key, value),
        }
    }
}

/// Reads a part in one pass when `type` comes first (as every SDK writes it); keys
/// before `type` are kept raw and read once the type is known.
struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = ContentPart;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content part object with a `type`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentPart, A::Error> {
        let mut early: Vec<(String, RawJson)> = Vec::new();
        let mut part: Option<ContentPart> = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if let Some(part) = part.as_mut() {
                map.next_value_seed(PartFieldSeed { part, key: &key })?;
            } else if key == "type" {
                let mut known = ContentPart::of_kind(map.next_value()?);
                for (key, raw) in early.drain(..) {
                    known
                        .read_field(&key, &*raw)
                        .map_err(|e| de::Error::custom(format_args!("field `{key}`: {e}")))?;
                }
                part = Some(known);
            } else {
                early.push((key.into_owned(), map.next_value()?));
            }
        }
        Ok(part.unwrap_or_else(|| {
            let mut fields = Fields::new();
            for (key, raw) in early {
                fields.push(key, raw);
            }
            ContentPart::Other(fields)
        }))
    }
}

struct PartFieldSeed<'a> {
    part: &'a mut ContentPart,
    key: &'a str,
}

impl<'de> de::DeserializeSeed<'de> for PartFieldSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.part.read_field(self.key, deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(json: &str) -> serde_json::Value {
        let content: Content = serde_json::from_str(json).unwrap();
        serde_json::to_value(&content).unwrap()
    }

    #[test]
    fn parts_round_trip_whatever_the_key_order() {
        for json in [
            r#""plain""#,
            r#"[{"type": "text", "text": "hi", "cache": {"a": 1}}]"#,
            r#"[{"text": "hi", "type": "text"}]"#,
            r#"[{"image_url": {"url": "https://x/y.png", "detail": null}, "type": "image_url"}]"#,
            r#"[{"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]"#,
            r#"[{"type": "file", "file": {"file_id": "file-1", "filename": "a.pdf"}}]"#,
            r#"[{"type": "refusal", "refusal": "no"}]"#,
            r#"[{"type": "video", "video": {"url": 1}}, {"no_type": true}, {"type": 5}]"#,
            r#"[{"type": "te\u0078t", "text": "escaped type"}]"#,
            "[]",
        ] {
            let value: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(round_trip(json), value, "{json}");
        }
    }

    #[test]
    fn parts_are_typed_by_their_type() {
        let content: Content = serde_json::from_str(
            r#"[{"text": "before type", "type": "text"}, {"type": "video"}, {"type": "te\u0078t"}]"#,
        )
        .unwrap();
        let parts = content.parts();
        assert_eq!(parts[0].as_text(), Some("before type"));
        assert_eq!(parts[1].kind(), Some("video"));
        assert!(matches!(parts[1], ContentPart::Other(_)));
        // An escaped type is not recognised, and kept as it was.
        assert_eq!(parts[2].kind(), None);
    }

    #[test]
    fn wrong_shapes_are_errors_that_say_what_was_expected() {
        for (json, expected) in [
            ("5", "`content` as a string"),
            (r#"[{"type": "text", "text": 5}]"#, "expected a string"),
            (r#"[{"text": 5, "type": "text"}]"#, "field `text`"),
            (
                r#"[{"type": "image_url", "image_url": "https://x"}]"#,
                "`image_url` object",
            ),
            ("[5]", "a content part object"),
        ] {
            let err = serde_json::from_str::<Content>(json)
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{json}: {err}");
        }
    }
}
