//! JSON text as both formats read it: compact text for what is counted as JSON, the
//! output limit as a plain unsigned integer, and the words for serde's depth limit.

/// `json` without the whitespace between tokens (strings untouched).
pub(crate) fn compact_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}

/// The JSON object `json` without its member `key`, compact, its other members in
/// the order the text has them; `None` when `json` is not an object.
///
/// Counts read the text as the client wrote it: going through a
/// `serde_json::Value` would order the members by `serde_json`'s `preserve_order`
/// feature, which any crate in a program can turn on, and the count with them.
pub(crate) fn compact_object_without(json: &str, key: &str) -> Option<String> {
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde_json::value::RawValue;

    struct Members<'k>(&'k str);

    impl<'de> Visitor<'de> for Members<'_> {
        type Value = String;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
            let mut out = String::from("{");
            while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                let value: &'de RawValue = map.next_value()?;
                if name == self.0 {
                    continue;
                }
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(&name).unwrap_or_default());
                out.push(':');
                out.push_str(&compact_json(value.get()));
            }
            out.push('}');
            Ok(out)
        }
    }

    let mut de = serde_json::Deserializer::from_str(json);
    de.deserialize_map(Members(key)).ok()
}

/// Reads an output limit (`max_tokens`, `max_completion_tokens`) from its JSON text:
/// a plain unsigned integer that fits in 64 bits, as the providers take it.
///
/// # Errors
///
/// For anything else (`1.5`, `-1`, `1e3`, `"5000"`, `true`, 2^64), a message that
/// names `field`.
pub(crate) fn output_limit(field: &str, json: &str) -> Result<u64, String> {
    let text = json.trim();
    let plain = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let value = if plain {
        text.parse::<u64>().ok()
    } else {
        None
    };
    value.ok_or_else(|| {
        let shown: String = text.chars().take(40).collect();
        format!(
            "`{field}` is `{shown}`, not a whole number of tokens: give a plain integer such as 1024"
        )
    })
}

/// What a request body's reader expected where an output limit is not a plain
/// unsigned integer (the error's own words say which field).
pub(crate) const EXPECTED_OUTPUT_LIMIT: &str = "a plain unsigned integer";

/// Whether serde's error is one [`output_limit`] made.
pub(crate) fn is_output_limit(error: &serde_json::Error) -> bool {
    error
        .to_string()
        .contains(", not a whole number of tokens: ")
}

impl super::error::RequestError {
    /// serde's error reading a body of `format`, with what the reader expected: the
    /// output limit's own words when the error is [`output_limit`]'s, `expected`
    /// (the shape of the whole body) otherwise.
    pub(crate) fn json(
        format: super::wire::RequestFormat,
        expected: &'static str,
        source: serde_json::Error,
    ) -> Self {
        let expected = if is_output_limit(&source) {
            EXPECTED_OUTPUT_LIMIT
        } else {
            expected
        };
        Self::Json {
            format,
            expected,
            source,
        }
    }
}

/// Whether serde's error is its recursion limit: the input nests deeper than 128
/// arrays and objects where it is read into typed values.
pub(crate) fn is_depth_limit(error: &serde_json::Error) -> bool {
    error.to_string().starts_with("recursion limit exceeded")
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn compact_json_keeps_strings() {
        assert_eq!(
            compact_json("{ \"a b\" : [1, 2],\n \"c\": \"x \\\" y\" }"),
            r#"{"a b":[1,2],"c":"x \" y"}"#
        );
    }

    #[test]
    fn output_limits_are_plain_unsigned_integers() {
        assert_eq!(output_limit("max_tokens", "1024"), Ok(1024));
        assert_eq!(output_limit("max_tokens", " 0 "), Ok(0));
        assert_eq!(
            output_limit("max_tokens", "18446744073709551615"),
            Ok(u64::MAX)
        );
        for bad in [
            "18446744073709551616",
            "1e400",
            "-1",
            "1.5",
            "1e3",
            "\"5000\"",
            "true",
            "null",
            "",
            "[1]",
        ] {
            let err = output_limit("max_completion_tokens", bad).unwrap_err();
            assert!(err.starts_with("`max_completion_tokens` is"), "{err}");
            assert!(err.len() < 160, "{err}");
        }
    }

    #[test]
    fn the_depth_limit_is_told_apart() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let err = serde_json::from_str::<serde_json::Value>(&deep).unwrap_err();
        assert!(is_depth_limit(&err));
        let err = serde_json::from_str::<serde_json::Value>("[1,").unwrap_err();
        assert!(!is_depth_limit(&err));
    }

    #[test]
    fn an_object_without_a_member_keeps_the_text_order() {
        let json = r#"{ "type" : "json_schema", "zeta": [1, 2], "name": "a\"b", "schema": {"b": 1, "a": 2} }"#;
        assert_eq!(
            compact_object_without(json, "type").as_deref(),
            Some(r#"{"zeta":[1,2],"name":"a\"b","schema":{"b":1,"a":2}}"#)
        );
        assert_eq!(compact_object_without("[1]", "type"), None);
        assert_eq!(compact_object_without("{}", "type").as_deref(), Some("{}"));
    }
}
