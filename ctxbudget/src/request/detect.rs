//! Which wire format a request body is in, read from the body itself.

use serde_json::Value;

use super::{RequestError, RequestFormat};

/// Which wire format `body` is in, judged by what only one of the formats has.
///
/// - Anthropic Messages: a top-level `system` field, or content blocks of the types
///   only Anthropic has (`tool_use`, `tool_result`, `thinking`, `redacted_thinking`,
///   `document`, `image` with a `source`).
/// - OpenAI Chat Completions: messages with the roles only OpenAI has (`system`,
///   `developer`, `tool`, `function`), assistant `tool_calls` or `function_call`,
///   content parts only OpenAI has (`image_url`, `input_audio`, `file`, `refusal`),
///   or `tools` given as `{"type": "function", ...}`.
///
/// A body with neither (plain user and assistant text) is valid in both formats and
/// is taken as OpenAI's; choose the format yourself when that matters.
///
/// ```
/// use ctxbudget::request::{RequestFormat, detect_format};
///
/// let anthropic = r#"{"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "Be brief.",
///     "messages": [{"role": "user", "content": "Hi"}]}"#;
/// assert_eq!(detect_format(anthropic)?, RequestFormat::AnthropicMessages);
/// let openai = r#"{"model": "gpt-4o", "messages": [{"role": "system", "content": "Be brief."}]}"#;
/// assert_eq!(detect_format(openai)?, RequestFormat::OpenAiChat);
/// assert!(detect_format("{\"messages\": [").is_err());
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
///
/// # Errors
///
/// [`RequestError::NotJson`] when `body` is not JSON.
pub fn detect_format(body: &str) -> Result<RequestFormat, RequestError> {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let value: Value =
        serde_json::from_str(body).map_err(|source| RequestError::NotJson { source })?;
    Ok(detect_value(&value))
}

/// [`detect_format`] for a body already parsed.
pub fn detect_value(body: &Value) -> RequestFormat {
    if body.get("system").is_some() {
        return RequestFormat::AnthropicMessages;
    }
    if let Some(tools) = body.get("tools").and_then(Value::as_array) {
        if tools.iter().any(|t| t.get("function").is_some()) {
            return RequestFormat::OpenAiChat;
        }
        if tools.iter().any(|t| t.get("input_schema").is_some()) {
            return RequestFormat::AnthropicMessages;
        }
    }
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for message in messages {
        if let Some("system" | "developer" | "tool" | "function") =
            message.get("role").and_then(Value::as_str)
        {
            return RequestFormat::OpenAiChat;
        }
        if message.get("tool_calls").is_some() || message.get("function_call").is_some() {
            return RequestFormat::OpenAiChat;
        }
        let parts = message
            .get("content")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for part in parts {
            match part.get("type").and_then(Value::as_str) {
                Some(
                    "tool_use" | "tool_result" | "thinking" | "redacted_thinking" | "document",
                ) => return RequestFormat::AnthropicMessages,
                Some("image") if part.get("source").is_some() => {
                    return RequestFormat::AnthropicMessages;
                }
                Some("image_url" | "input_audio" | "file" | "refusal") => {
                    return RequestFormat::OpenAiChat;
                }
                _ => {}
            }
        }
    }
    RequestFormat::OpenAiChat
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(body: &str) -> RequestFormat {
        detect_format(body).unwrap()
    }

    #[test]
    fn each_format_is_told_by_what_only_it_has() {
        use RequestFormat::{AnthropicMessages as A, OpenAiChat as O};
        let cases = [
            (
                r#"{"messages":[{"role":"tool","tool_call_id":"1","content":"x"}]}"#,
                O,
            ),
            (r#"{"messages":[{"role":"developer","content":"x"}]}"#, O),
            (r#"{"messages":[{"role":"assistant","tool_calls":[]}]}"#, O),
            (
                r#"{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"u"}}]}]}"#,
                O,
            ),
            (
                r#"{"tools":[{"type":"function","function":{"name":"f"}}],"messages":[]}"#,
                O,
            ),
            (
                r#"{"tools":[{"name":"f","input_schema":{}}],"messages":[]}"#,
                A,
            ),
            (
                r#"{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"1"}]}]}"#,
                A,
            ),
            (
                r#"{"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}"#,
                A,
            ),
            (
                r#"{"system":[{"type":"text","text":"x"}],"messages":[]}"#,
                A,
            ),
            (r#"{"messages":[{"role":"user","content":"plain"}]}"#, O),
            ("\u{feff}{}", O),
        ];
        for (body, expected) in cases {
            assert_eq!(format(body), expected, "{body}");
        }
    }

    #[test]
    fn malformed_json_has_its_position() {
        let err = detect_format("{\n  \"messages\": [}").unwrap_err();
        let message = err.to_string();
        assert!(message.contains("line 2"), "{message}");
        assert!(message.contains("request body is not JSON"), "{message}");
    }
}
