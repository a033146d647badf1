use super::*;
use crate::chat::ChatMessage;
use crate::chat::Role;

fn request(json: &str) -> ChatRequest {
    ChatRequest::from_json(json).unwrap()
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn problem(json: &str) -> RequestError {
    request(json).validate().unwrap_err()
}

#[test]
fn bodies_round_trip_with_nulls_and_unknown_fields() {
    for json in [
        r#"{"messages": []}"#,
        r#"{"model": null, "messages": [], "tools": null, "functions": null, "n": null}"#,
        r#"{"messages": [{"role": "user", "content": "hi", "x": {"deep": [1, 2.50, "é"]}}],
            "stream_options": {"include_usage": true}, "request_id": 12345678901234567890}"#,
        r#"{"messages": [], "tools": [{"type": "function", "function": {"name": "f",
            "strict": true, "parameters": {"type": "object"}}, "x": 1},
            {"type": "custom", "custom": {"name": "grep", "format": {"type": "text"}}}]}"#,
    ] {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        let back: serde_json::Value = serde_json::from_str(&request(json).to_json()).unwrap();
        assert_eq!(back, value, "{json}");
    }
}

#[test]
fn errors_say_where_and_what_was_expected() {
    for (json, expected) in [
        ("", "EOF"),
        ("[]", "a JSON object with a `messages` array"),
        (r#"{"model": "gpt-4o"}"#, "missing field `messages`"),
        (r#"{"messages": null}"#, "expected a sequence"),
        (
            r#"{"messages": [], "messages": []}"#,
            "duplicate field `messages`",
        ),
        (r#"{"messages": [], "model": 4}"#, "expected a string"),
        (r#"{"messages": [], "tools": [1]}"#, "a tool object"),
        (r#"{"messages": [5]}"#, "a message object with a `role`"),
    ] {
        let err = ChatRequest::from_json(json).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(expected), "{json}: {text}");
        assert!(
            text.starts_with("OpenAI Chat Completions request body: "),
            "{text}"
        );
        assert!(text.contains(EXPECTED), "{text}");
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let json = "\u{feff}{\"messages\": []}";
    assert!(ChatRequest::from_json(json).is_ok());
    assert!(ChatRequest::from_slice(json.as_bytes()).is_ok());
    assert!(ChatRequest::from_slice(b"{\"messages\": [], \"x\": \"\xff\"}").is_err());
    assert!("{\"messages\": []}".parse::<ChatRequest>().is_ok());
}

#[test]
fn output_limits_and_model() {
    let r = request(r#"{"model": "gpt-4o", "messages": [], "max_tokens": 100}"#);
    assert_eq!(r.max_output_tokens(), Some(100));
    assert_eq!(r.model(), Some("gpt-4o"));
    let r = request(r#"{"messages": [], "max_tokens": 100, "max_completion_tokens": 50}"#);
    assert_eq!(r.max_output_tokens(), Some(50));
    assert_eq!(r.model(), None);
    let r = request(r#"{"messages": [], "max_tokens": null}"#);
    assert_eq!(r.max_output_tokens(), None);
    // An output limit that is not a plain unsigned integer is refused, by name.
    for (json, field) in [
        (
            r#"{"messages": [], "max_tokens": -1}"#,
            "`max_tokens` is `-1`",
        ),
        (
            r#"{"messages": [], "max_completion_tokens": "x"}"#,
            "`max_completion_tokens` is `\"x\"`",
        ),
    ] {
        let err = ChatRequest::from_json(json).unwrap_err().to_string();
        assert!(err.contains(field), "{err}");
    }
}

#[test]
fn retain_keeps_exactly_what_it_is_told() {
    let mut r = request(
        r#"{"messages": [{"role":"system","content":"s"},{"role":"user","content":"a"},
        {"role":"user","content":"b"},{"role":"user","content":"c"}]}"#,
    );
    r.retain_messages(&[true, false, true]);
    let texts: Vec<_> = r.messages.iter().filter_map(RequestMessage::text).collect();
    assert_eq!(texts, ["s", "b", "c"], "past the end of keep: kept");
    r.retain_messages(&[false; 10]);
    assert!(r.messages.is_empty());
}

#[test]
fn fixed_cost_counts_tools_functions_and_schemas() {
    let r = request(
        r#"{"model": "gpt-4o", "messages": [],
        "tools": [{"type": "function", "function": {"name": "f", "description": "a b"}}],
        "functions": [{"name": "g", "description": "c"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "x"}}}"#,
    );
    let cost = r.fixed_cost(&words);
    // Tools: 7 + "f:a b" (2) + 12. Functions: 7 + "g:c" (1) + 12. Schema: 1 word.
    assert_eq!(cost.tokens, 21 + 20 + 1);
    assert_eq!(
        cost.assumptions,
        [Assumption::UnpublishedRule {
            message: None,
            what: RESPONSE_FORMAT
        }]
    );
    let mut unknown_model = r.clone();
    unknown_model.model = Some("o3".into());
    assert_eq!(unknown_model.fixed_cost(&words).assumptions.len(), 2);
    assert_eq!(
        request(r#"{"messages": []}"#).fixed_cost(&words),
        RequestCost::default()
    );
}

#[test]
fn message_assumptions_name_the_message() {
    let png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let r = request(&format!(
        r#"{{"model": "gpt-4o", "messages": [
        {{"role":"user","content":[{{"type":"image_url","image_url":{{"url":"{png}"}}}},
            {{"type":"image_url","image_url":{{"url":"https://example.com/a.png","detail":"low"}}}}]}},
        {{"role":"user","content":[{{"type":"image_url","image_url":{{"url":"https://example.com/a.png"}}}},
            {{"type":"image_url","image_url":{{"url":"data:image/png;base64,AAAA"}}}},
            {{"type":"input_audio","input_audio":{{"data":"AAAA","format":"wav"}}}},
            {{"type":"file","file":{{"file_id":"file-1"}}}},
            {{"type":"video","video":{{}}}}]}},
        {{"role":"assistant","audio":{{"id":"audio_1"}}}}]}}"#
    ));
    let assumptions = r.message_assumptions();
    assert_eq!(assumptions.len(), 6, "{assumptions:#?}");
    assert!(matches!(
        assumptions[0],
        Assumption::RemoteImage { message: 1, assumed_tokens } if assumed_tokens == crate::request::image::OPENAI_MAX_IMAGE_TOKENS
    ));
    assert!(matches!(
        assumptions[1],
        Assumption::UnreadableImage { message: 1, .. }
    ));
    assert!(assumptions[2..].iter().all(|a| matches!(
        a,
        Assumption::UnpublishedRule {
            message: Some(1 | 2),
            ..
        }
    )));
    // The 1 × 1 PNG costs one tile, the low-detail image 85.
    assert_eq!(r.messages[0].content_tokens(&words), 255 + 85);
    assert_eq!(ChatMessage::role(&r.messages[2]), Role::Assistant);
}

#[test]
fn valid_requests_pass() {
    let r = request(
        r#"{"messages": [
        {"role":"developer","content":[{"type":"text","text":"rules"}]},
        {"role":"user","content":[{"type":"text","text":"q"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]},
        {"role":"assistant","content":null,"tool_calls":[
            {"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},
            {"id":"b","type":"function","function":{"name":"f","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"b","content":"2"},
        {"role":"tool","tool_call_id":"a","content":[{"type":"text","text":"1"}]},
        {"role":"assistant","content":null,"function_call":{"name":"g","arguments":"{}"}},
        {"role":"function","name":"g","content":"3"},
        {"role":"assistant","content":[{"type":"refusal","refusal":"no"}]},
        {"role":"assistant","refusal":"no"},
        {"role":"ipython","whatever":true}
        ]}"#,
    );
    r.validate().unwrap();
}

#[test]
fn invalid_requests_say_which_message_and_what_to_do() {
    let call = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}"#;
    for (json, index, needle) in [
        (
            r#"{"messages":[{"role":"system","content":[{"type":"image_url","image_url":{"url":"https://x"}}]}]}"#,
            0,
            "takes only text parts, not `image_url`",
        ),
        (r#"{"messages":[{"role":"user"}]}"#, 0, "has no `content`"),
        (
            r#"{"messages":[{"role":"tool","content":"x"}]}"#,
            0,
            "no `tool_call_id`",
        ),
        (
            r#"{"messages":[{"role":"user","content":[{"type":"refusal","refusal":"x"}]}]}"#,
            0,
            "refusals belong in assistant messages",
        ),
        (
            r#"{"messages":[{"role":"assistant","content":[{"type":"image_url","image_url":{"url":"u"}}]}]}"#,
            0,
            "only text and refusal parts",
        ),
        (
            r#"{"messages":[{"role":"assistant"}]}"#,
            0,
            "no `content`, `tool_calls`",
        ),
        (
            r#"{"messages":[{"role":"assistant","tool_calls":[]}]}"#,
            0,
            "empty `tool_calls`",
        ),
        (
            r#"{"messages":[{"role":"assistant","tool_calls":[{"type":"function"}]},{"role":"tool","tool_call_id":"a","content":"x"}]}"#,
            0,
            "tool call 0 has no `id`",
        ),
        (
            r#"{"messages":[{"role":"user","content":"x","tool_calls":[]}]}"#,
            0,
            "only assistant messages make tool calls",
        ),
        (
            r#"{"messages":[{"role":"function","content":"x"}]}"#,
            0,
            "no `name`",
        ),
        (
            r#"{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]}"#,
            0,
            "has no `url`",
        ),
        (
            r#"{"messages":[{"role":"function","name":"g","content":"x"}]}"#,
            0,
            "does not call",
        ),
        (
            r#"{"messages":[{"role":"assistant","function_call":{"name":"g","arguments":"{}"}},{"role":"user","content":"x"}]}"#,
            0,
            "has no `function` message right after it",
        ),
    ] {
        let err = problem(json);
        let RequestError::InvalidMessage { message, problem } = &err else {
            panic!("{json}: {err}");
        };
        assert_eq!(*message, index, "{json}");
        assert!(problem.contains(needle), "{json}: {problem}");
    }

    let err = problem(&format!(
        r#"{{"messages":[{call},{{"role":"tool","tool_call_id":"zzz","content":"x"}}]}}"#
    ));
    assert!(matches!(err, RequestError::OrphanToolResult { message: 1, ref id } if id == "zzz"));
    let err = problem(
        r#"{"messages":[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"a","content":"x"}]}"#,
    );
    assert!(matches!(
        err,
        RequestError::OrphanToolResult { message: 1, .. }
    ));
    let err = problem(&format!(
        r#"{{"messages":[{call},{{"role":"user","content":"x"}}]}}"#
    ));
    assert!(matches!(err, RequestError::UnansweredToolCall { message: 0, ref id } if id == "a"));
    let answered = r#"{"role":"tool","tool_call_id":"a","content":"x"}"#;
    let err = problem(&format!(
        r#"{{"messages":[{call},{answered},{call},{answered}]}}"#
    ));
    assert!(
        matches!(err, RequestError::DuplicateCallId { first: 0, second: 2, ref id } if id == "a")
    );
    // A tool result after a user message in between is an orphan.
    let err = problem(&format!(
        r#"{{"messages":[{call},{answered},{{"role":"user","content":"x"}},{answered}]}}"#
    ));
    assert!(matches!(
        err,
        RequestError::OrphanToolResult { message: 3, .. }
    ));
}
