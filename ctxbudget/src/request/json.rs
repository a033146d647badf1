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
}
