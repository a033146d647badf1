//! One line of a JSON-lines data set: a JSON string, or an object whose other fields
//! pass through unchanged, in their order, byte for byte.
//!
//! A key the object has twice means its last value, as JSON readers (`serde_json`
//! among them) take it: that is the text read, and a field written replaces the
//! last one and drops the earlier ones.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A JSON object whose values are kept as they were written: parsing and writing it
/// back changes nothing but the whitespace between fields.
#[derive(Debug)]
pub struct RawObject<'a> {
    fields: Vec<(String, &'a RawValue)>,
}

impl<'de> serde::Deserialize<'de> for RawObject<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = RawObject<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    fields.push(entry);
                }
                Ok(RawObject { fields })
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl RawObject<'_> {
    /// The raw JSON of the field named `name`: the last one, when the object has the
    /// key more than once.
    pub fn get(&self, name: &str) -> Option<&RawValue> {
        self.fields
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| *value)
    }

    /// The object written back with the fields in `set` (name, raw JSON) replaced
    /// where the last of their name is (earlier ones of that name are left out), and
    /// added at the end where the object has none. The first value of a name in
    /// `set` wins.
    pub fn with(&self, set: &[(&str, &str)]) -> String {
        let mut out = String::with_capacity(
            self.fields
                .iter()
                .map(|(k, v)| k.len() + v.get().len() + 4)
                .sum::<usize>()
                + 2,
        );
        out.push('{');
        let mut first = true;
        let mut push = |out: &mut String, key: &str, raw: &str| {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&json_string(key));
            out.push(':');
            out.push_str(raw);
        };
        for (at, (key, value)) in self.fields.iter().enumerate() {
            let raw = match set.iter().find(|(name, _)| name == key) {
                None => value.get(),
                // An earlier field of a name being set: the value it had is not read,
                // and writing both would leave a reader two answers.
                Some(_) if self.fields[at + 1..].iter().any(|(later, _)| later == key) => {
                    continue;
                }
                Some((_, raw)) => *raw,
            };
            push(&mut out, key, raw);
        }
        for (name, raw) in set {
            if self.get(name).is_none() {
                push(&mut out, name, raw);
            }
        }
        out.push('}');
        out
    }
}

/// `text` as a JSON string.
pub fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

/// A line of the data set, parsed.
#[derive(Debug)]
pub enum Line<'a> {
    /// A JSON string: the text itself.
    Text(String),
    /// A JSON object, with the text in one of its fields.
    Object(RawObject<'a>),
}

/// Why a line could not be used: the message for the summary.
pub type LineError = String;

/// Parses a line as a JSON string or object.
///
/// # Errors
///
/// Invalid JSON with its column, or JSON that is neither a string nor an object.
pub fn parse_line(line: &str) -> Result<Line<'_>, LineError> {
    match line.trim_start().as_bytes().first() {
        Some(b'"') => serde_json::from_str(line)
            .map(Line::Text)
            .map_err(|e| json_error(&e)),
        Some(b'{') => serde_json::from_str(line)
            .map(Line::Object)
            .map_err(|e| json_error(&e)),
        _ => match serde_json::from_str::<serde::de::IgnoredAny>(line) {
            Err(e) => Err(json_error(&e)),
            Ok(_) => Err(format!(
                "a line must be a JSON object or a JSON string, not {}",
                kind_of(line)
            )),
        },
    }
}

/// serde's message for a JSON error on one line: the column, what was wrong.
pub fn json_error(error: &serde_json::Error) -> LineError {
    let message = error.to_string();
    let message = message
        .rfind(" at line ")
        .map_or(message.as_str(), |at| &message[..at]);
    format!("invalid JSON at column {}: {message}", error.column())
}

/// The text of a line: the line itself when it is a string, else the string in its
/// field `field` (the last one, when the object has the key twice). `source` is the
/// line `line` was parsed from, for the column of a bad string.
///
/// # Errors
///
/// An object without the field, whose field is not a string, or whose string is not
/// text (an escape of a lone UTF-16 surrogate, `"\ud800"`).
pub fn text_of<'l>(
    line: &'l Line<'_>,
    source: &str,
    field: &str,
) -> Result<std::borrow::Cow<'l, str>, LineError> {
    match line {
        Line::Text(text) => Ok(std::borrow::Cow::Borrowed(text)),
        Line::Object(object) => {
            let raw = object.get(field).ok_or_else(|| {
                format!("the object has no `{field}` field: name the text's field with `--field`")
            })?;
            serde_json::from_str::<String>(raw.get())
                .map(std::borrow::Cow::Owned)
                .map_err(|error| match kind_of(raw.get()) {
                    "a string" => {
                        // Where the field's value starts in the line, for the column.
                        let start = (raw.get().as_ptr() as usize)
                            .checked_sub(source.as_ptr() as usize)
                            .filter(|&start| start <= source.len())
                            .unwrap_or(0);
                        let message = error.to_string();
                        let message = message
                            .rfind(" at line ")
                            .map_or(message.as_str(), |at| &message[..at]);
                        format!(
                            "the `{field}` string has an escape that is no character at \
                             column {} ({message}): write the character, or both halves of \
                             a surrogate pair",
                            start.saturating_add(error.column())
                        )
                    }
                    kind => format!(
                        "the `{field}` field is {kind}, not a string: name the text's field with `--field`"
                    ),
                })
        }
    }
}

/// What kind of JSON value `raw` is, for messages.
fn kind_of(raw: &str) -> &'static str {
    match raw.trim_start().as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_keep_their_fields_in_order() {
        let line = r#"{"id": 7, "text": "a\u00e9b", "meta": {"z": 1.50, "a": [1]}}"#;
        let parsed = parse_line(line).unwrap();
        assert_eq!(text_of(&parsed, line, "text").unwrap(), "aéb");
        let Line::Object(object) = parsed else {
            panic!("an object");
        };
        assert_eq!(
            object.with(&[("text", "\"x\""), ("tokens", "3")]),
            r#"{"id":7,"text":"x","meta":{"z": 1.50, "a": [1]},"tokens":3}"#
        );
    }

    #[test]
    fn a_key_given_twice_means_its_last_value_and_is_written_once() {
        let line = r#"{"text": "first", "id": 1, "text": "second", "tokens": 0, "tokens": 9}"#;
        let parsed = parse_line(line).unwrap();
        assert_eq!(text_of(&parsed, line, "text").unwrap(), "second");
        let Line::Object(object) = parsed else {
            panic!("an object");
        };
        assert_eq!(
            object.with(&[("text", "\"2nd\""), ("tokens", "1")]),
            r#"{"id":1,"text":"2nd","tokens":1}"#
        );
        // Keys not written pass through as they are, twice if they were.
        assert_eq!(
            object.with(&[("other", "3")]),
            r#"{"text":"first","id":1,"text":"second","tokens":0,"tokens":9,"other":3}"#
        );
    }

    #[test]
    fn a_lone_surrogate_is_not_text_and_says_where() {
        for (line, column) in [
            (r#"{"id": 1, "text": "ab\ud800cd"}"#, 28),
            (r#"{"text": "\ud800", "id": 1}"#, 17),
            (r#"{"text": "ab\udc00"}"#, 18),
        ] {
            let parsed = parse_line(line).unwrap();
            let message = text_of(&parsed, line, "text").unwrap_err();
            assert!(!message.contains("not a string"), "{message}");
            let expected = format!(
                "the `text` string has an escape that is no character at column {column} ("
            );
            assert!(message.starts_with(&expected), "{line}: {message}");
        }
    }

    #[test]
    fn bad_lines_say_why() {
        assert_eq!(
            parse_line(r#"{"text": "a",}"#).unwrap_err(),
            "invalid JSON at column 14: trailing comma"
        );
        assert_eq!(
            parse_line("[1, 2]").unwrap_err(),
            "a line must be a JSON object or a JSON string, not an array"
        );
        let line = r#"{"body": 3}"#;
        let object = parse_line(line).unwrap();
        assert!(
            text_of(&object, line, "text")
                .unwrap_err()
                .contains("no `text` field")
        );
        assert!(
            text_of(&object, line, "body")
                .unwrap_err()
                .contains("is a number")
        );
    }
}
