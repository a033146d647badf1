//! OpenAI Responses request bodies: read and written losslessly, counted as Chat
//! Completions counts the same conversation, checked, detected and fitted.

use ctxbudget::chat::edit::Edits;
use ctxbudget::chat::{ChatMessage, Role};
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::responses::{
    AS_JSON, BUILT_IN_TOOLS, COMPACTION, FILES, ITEM_REFERENCE, ItemKind, REASONING,
    ResponsesRequest, SERVER_HISTORY, TEXT_FORMAT,
};
use ctxbudget::request::{
    Assumption, RequestError, RequestFitter, RequestFormat, WireRequest, detect_format,
};
use ctxbudget::{CharEstimate, Tiktoken};
use serde_json::{Value, json};

use crate::request_fit::check_fit;

const SESSION: &str = include_str!("../fixtures/responses/agent_session.json");
/// A 1 × 1 GIF.
const GIF: &str = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

fn value(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn request(body: &Value) -> ResponsesRequest {
    ResponsesRequest::from_json(&body.to_string()).unwrap()
}

fn has(assumptions: &[Assumption], what: &str) -> bool {
    assumptions.iter().any(|a| a.to_string().ends_with(what))
}

#[test]
fn the_session_round_trips_and_validates() {
    let request = ResponsesRequest::from_json(SESSION).unwrap();
    assert_eq!(request.items().count(), 166);
    assert_eq!(value(&request.to_json()), value(SESSION));
    assert_eq!(value(&request.to_json_pretty()), value(SESSION));
    request.validate().unwrap();
    assert_eq!(
        detect_format(SESSION).unwrap(),
        RequestFormat::OpenAiResponses
    );
    assert_eq!(request.max_output_tokens(), Some(4096));
    // Every reasoning item opens the assistant turn of the calls after it.
    for message in request.messages() {
        let items = message.items();
        if items.iter().any(|i| i.kind() == ItemKind::Reasoning) {
            assert_eq!(message.role(), Role::Assistant);
            assert_eq!(items[0].kind(), ItemKind::Reasoning);
            assert!(message.starts_with_thinking());
        }
    }
}

#[test]
fn unknown_items_and_encrypted_content_are_kept_byte_for_byte() {
    let odd = r#"{"type":"x_future","n":1e400,"deep":[[[{"a" : 1}]]],"type2":"\u00e9"}"#;
    let reasoning = r#"{"type":"reasoning","summary":[],"encrypted_content":"gAAA+/==","x":null}"#;
    let body = format!(
        r#"{{"model":"gpt-5","input":[{odd},{reasoning},{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"ok"}}]}},{{"role":"user","content":"go"}}],"x-extra":{{"k" : [1, 2]}}}}"#
    );
    let request = ResponsesRequest::from_json(&body).unwrap();
    let out = request.to_json();
    assert!(out.contains(odd), "{out}");
    assert!(out.contains(reasoning), "{out}");
    assert!(out.contains(r#""x-extra":{"k" : [1, 2]}"#), "{out}");
    // A string input is written back as the string; a null field as null.
    let body = r#"{"input":"Hi","instructions":null,"tools":null}"#;
    let out = ResponsesRequest::from_json(body).unwrap().to_json();
    assert_eq!(value(&out), value(body));
    let body = r#"{"model":"gpt-5","input":[]}"#;
    assert_eq!(ResponsesRequest::from_json(body).unwrap().to_json(), body);
}

/// The Chat Completions body of the same conversation: what a Responses body is
/// counted as.
fn as_chat() -> (Value, Value) {
    let parameters = json!({
        "type": "object",
        "properties": {"path": {"type": "string", "description": "A path"}, "mode": {"type": "string", "enum": ["a", "b"]}},
        "required": ["path"]
    });
    let responses = json!({
        "model": "gpt-4o",
        "text": {"format": {"type": "json_schema", "name": "answer", "schema": {"type": "object"}}},
        "instructions": "Be brief.",
        "tools": [{"type": "function", "name": "read", "description": "Read a file.", "parameters": parameters}],
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "Read the README, please."}, {"type": "input_image", "image_url": GIF, "detail": "high"}]},
            {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{\"path\":\"README.md\"}"},
            {"type": "function_call_output", "call_id": "c1", "output": "# ctxbudget\nFits prompts into windows."},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It fits prompts."}]},
            {"role": "user", "content": "Thanks!"}
        ]
    });
    let chat = json!({
        "model": "gpt-4o",
        "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}}},
        "tools": [{"type": "function", "function": {"name": "read", "description": "Read a file.", "parameters": parameters}}],
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Read the README, please."}, {"type": "image_url", "image_url": {"url": GIF, "detail": "high"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"README.md\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "# ctxbudget\nFits prompts into windows."},
            {"role": "assistant", "content": "It fits prompts."},
            {"role": "user", "content": "Thanks!"}
        ]
    });
    (responses, chat)
}

#[test]
fn a_conversation_counts_as_its_chat_completions_body_does() {
    let (responses, chat) = as_chat();
    let responses = request(&responses);
    let chat = ChatRequest::from_json(&chat.to_string()).unwrap();
    for counter in [Tiktoken::o200k_base(), Tiktoken::cl100k_base()] {
        let fitter = RequestFitter::new(&counter);
        assert_eq!(fitter.count(&responses).tokens, fitter.count(&chat).tokens);
        assert_eq!(
            responses.count(&counter).tokens,
            chat.count(&counter).tokens
        );
    }
    // gpt-4o is a model the cookbook checked its tool formula on: only the
    // schema's billing is assumed, as for Chat Completions.
    let assumptions = responses.count(&Tiktoken::o200k_base()).assumptions;
    assert_eq!(assumptions.len(), 1, "{assumptions:?}");
    assert!(has(&assumptions, TEXT_FORMAT));
}

#[test]
fn what_the_body_cannot_show_is_said() {
    let session = ResponsesRequest::from_json(SESSION).unwrap();
    let cost = session.count(&Tiktoken::o200k_base());
    for what in [
        REASONING,
        COMPACTION,
        ITEM_REFERENCE,
        AS_JSON,
        FILES,
        BUILT_IN_TOOLS,
    ] {
        assert!(
            has(&cost.assumptions, what),
            "{what}: {:?}",
            cost.assumptions
        );
    }
    assert!(!has(&cost.assumptions, SERVER_HISTORY));
    let count = RequestFitter::new(Tiktoken::o200k_base()).count(&session);
    assert_eq!(count.tokens, cost.tokens);
    assert_eq!(count.tokens, count.fixed + count.messages);

    let continued = request(&json!({
        "model": "gpt-5",
        "previous_response_id": "resp_123",
        "input": [{"type": "function_call_output", "call_id": "call_on_server", "output": "42"}]
    }));
    continued.validate().unwrap();
    let cost = continued.count(&Tiktoken::o200k_base());
    assert!(
        has(&cost.assumptions, SERVER_HISTORY),
        "{:?}",
        cost.assumptions
    );
    // The output of a call the server holds is the latest message, kept by a fit.
    assert_eq!(continued.messages()[0].role(), Role::User);
    let fitted = RequestFitter::new(CharEstimate)
        .with_max_input(cost.tokens)
        .fit(continued.clone())
        .unwrap();
    assert_eq!(fitted.request, continued);
}

fn problem(body: &Value) -> String {
    let err = request(body).validate().unwrap_err();
    assert!(matches!(err, RequestError::InvalidField { .. }), "{err:?}");
    err.to_string()
}

#[test]
fn requests_the_api_rejects_say_where_and_what_to_fix() {
    let user = json!({"role": "user", "content": "go"});
    let fc =
        |id: &str| json!({"type": "function_call", "call_id": id, "name": "f", "arguments": "{}"});
    let out = |id: &str| json!({"type": "function_call_output", "call_id": id, "output": "x"});
    let cases = [
        (
            json!([user, out("a")]),
            "`input[1]` answers call id `a`, which no earlier item calls",
        ),
        (
            json!([user, fc("a")]),
            "`input[1]` call `a` has no output after it",
        ),
        (
            json!([user, fc("a"), fc("a"), out("a")]),
            "`input[2]` repeats the call id `a` of input[1]",
        ),
        (
            json!([user, fc("a"), out("a"), out("a")]),
            "`input[3]` is a second output for call `a`",
        ),
        (
            json!([user, {"type": "reasoning", "summary": []}]),
            "`input[1]` is a reasoning item without the output item",
        ),
        (
            json!([{"content": "no role", "role": "robot"}]),
            "`input[0]` is a message without a `role`",
        ),
        (
            json!([{"type": "message", "role": "user"}]),
            "`input[0]` is a message without `content`",
        ),
        (
            json!([{"role": "user", "content": 5}]),
            "`input[0]` has content that is neither",
        ),
        (
            json!([user, {"type": "function_call", "name": "f", "arguments": "{}"}]),
            "`input[1]` is a call without a `call_id`",
        ),
    ];
    for (input, expected) in cases {
        let message = problem(&json!({"model": "gpt-5", "input": input}));
        assert!(message.starts_with(expected), "{message}");
        assert!(message.len() < 200, "{message}");
    }
    let message = problem(&json!({"input": "x", "tools": [{"type": "function"}]}));
    assert!(
        message.starts_with("`tools[0]` is a function tool without a string `name`"),
        "{message}"
    );
    let message = problem(&json!({"input": "x", "tools": [{"name": "f"}]}));
    assert!(
        message.starts_with("`tools[0]` has no string `type`"),
        "{message}"
    );
    let message = problem(&json!({"input": "x", "instructions": 5}));
    assert!(
        message.starts_with("`instructions` is neither"),
        "{message}"
    );
}

#[test]
fn malformed_json_gets_the_position_and_what_was_expected() {
    for (body, position) in [
        (
            "{\"input\": [\n  {\"role\": \"user\",}\n]}",
            "line 2 column",
        ),
        ("{\"input\": 5}", "line 1 column"),
        (
            "{\"input\": \"a\", \"input\": \"b\"}",
            "duplicate field `input`",
        ),
        (
            "{\"input\": \"a\",\n \"max_output_tokens\": 1.5}",
            "line 2 column",
        ),
        ("{\"tools\": [1]}", "not an object"),
        ("[]", "line 1 column"),
    ] {
        let err = ResponsesRequest::from_json(body).unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(
                err,
                RequestError::Json {
                    format: RequestFormat::OpenAiResponses,
                    ..
                }
            ),
            "{message}"
        );
        assert!(message.contains(position), "{body}: {message}");
        assert!(
            message.contains("(a JSON object whose `input`")
                || message.contains("(a plain unsigned integer)"),
            "{message}"
        );
    }
    assert!(ResponsesRequest::from_slice(b"\xef\xbb\xbf{\"input\": \"hi\"}").is_ok());
    assert!(ResponsesRequest::from_slice(b"{\"input\": \"\xff\"}").is_err());
}

#[test]
fn the_session_fits_at_every_limit() {
    let request = ResponsesRequest::from_json(SESSION).unwrap();
    let whole = RequestFitter::new(CharEstimate).count(&request).tokens;
    for share in [0.0, 0.05, 0.2, 0.5, 0.8, 0.99, 1.0, 1.5] {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let limit = (whole as f64 * share) as usize;
        check_fit(&request, CharEstimate, limit);
    }
    let counter = Tiktoken::o200k_base();
    let whole = RequestFitter::new(&counter).count(&request).tokens;
    check_fit(&request, &counter, whole / 3);
}

#[test]
fn context_edits_clear_old_outputs_and_drop_old_reasoning() {
    let request = ResponsesRequest::from_json(SESSION).unwrap();
    let counter = Tiktoken::o200k_base();
    let whole = RequestFitter::new(&counter).count(&request).tokens;
    let fitted = RequestFitter::new(&counter)
        .with_max_input(whole * 2 / 3)
        .with_edits(Edits::default())
        .fit(request.clone())
        .unwrap();
    fitted.request.validate().unwrap();
    let before = request
        .items()
        .filter(|i| i.kind() == ItemKind::Reasoning)
        .count();
    let after = fitted
        .request
        .items()
        .filter(|i| i.kind() == ItemKind::Reasoning)
        .count();
    assert!(after < before, "{after} of {before} reasoning items left");
    let report = fitted.report.to_string();
    assert!(fitted.report.tokens_after <= whole * 2 / 3, "{report}");
    // Encrypted content that stays is the original text.
    let out = fitted.request.to_json();
    for item in fitted
        .request
        .items()
        .filter(|i| i.kind() == ItemKind::Reasoning)
    {
        assert!(out.contains(item.raw().get()));
        assert!(
            SESSION.contains(
                &value(item.raw().get())["encrypted_content"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            )
        );
    }
}

#[test]
fn edits_change_only_the_output_input_or_reasoning_they_name() {
    use ctxbudget::chat::edit::EditableMessage;
    let body = json!({"input": [
        {"role": "user", "content": "go"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}]},
        {"type": "custom_tool_call", "call_id": "a", "name": "patch", "input": "*** Begin Patch"},
        {"type": "custom_tool_call_output", "call_id": "a", "output": [
            {"type": "input_text", "text": "one"},
            {"type": "input_image", "image_url": "https://example.com/x.png"}
        ]},
        {"type": "reasoning", "summary": []}
    ]});
    let mut messages = request(&body).messages().to_vec();
    let output = |m: &ctxbudget::request::responses::ResponsesMessage| {
        value(m.items()[0].raw().get())["output"].clone()
    };

    let result = messages[2].tool_result(0).unwrap();
    assert_eq!(
        (result.call_id, result.texts.clone(), result.media),
        ("a", vec!["one"], 1)
    );
    assert!(messages[2].replace_tool_result_media(0, "[image]"));
    assert_eq!(
        output(&messages[2]),
        json!([{"type": "input_text", "text": "one"}, {"type": "input_text", "text": "[image]"}])
    );
    assert!(messages[2].set_tool_result_text(0, 1, "[gone]".to_owned()));
    assert_eq!(output(&messages[2])[1]["text"], "[gone]");
    assert!(messages[2].replace_tool_result(0, "[cleared]"));
    assert_eq!(output(&messages[2]), json!("[cleared]"));
    assert!(!messages[2].replace_tool_result(0, "[cleared]"));
    assert_eq!(messages[2].items()[0].call_id(), Some("a"));

    assert!(messages[1].clear_tool_input("a"));
    let call = value(messages[1].items()[1].raw().get());
    assert_eq!(
        call,
        json!({"type": "custom_tool_call", "call_id": "a", "name": "patch", "input": ""})
    );
    assert!(!messages[1].clear_tool_input("b"));
    assert!(messages[1].drop_thinking());
    assert_eq!(messages[1].items().len(), 1);
    // A turn of reasoning alone keeps it: nothing would be left.
    assert!(!messages[3].drop_thinking());
    assert_eq!(
        messages[0].tool_result_count() + messages[1].tool_result_count(),
        0
    );
}

#[test]
fn outputs_after_an_item_reference_stay_with_it() {
    // Found by the fuzz target: the output of a call named by an item_reference was
    // kept while the reference went, leaving an output no call answers.
    let body = json!({"model": "gpt-5", "input": [
        {"role": "user", "content": "An old question, far too long to keep in a small window."},
        {"type": "item_reference", "id": "fc_stored"},
        {"type": "function_call_output", "call_id": "call_stored", "output": "a long output that must go with its call"},
        {"role": "assistant", "content": "An old answer, just as long as the old question."},
        {"role": "user", "content": "What now?"}
    ]});
    let request = request(&body);
    request.validate().unwrap();
    let messages = request.messages();
    assert_eq!(
        messages[1].tool_calls().map(|c| c.id).collect::<Vec<_>>(),
        ["call_stored"]
    );
    assert_eq!(messages[2].role(), Role::Tool);
    let whole = RequestFitter::new(CharEstimate).count(&request).tokens;
    for limit in (0..=whole).step_by(5) {
        check_fit(&request, CharEstimate, limit);
    }
    // Not right after the reference, the output has no call.
    let mut input = body["input"].as_array().unwrap().clone();
    input.swap(2, 3);
    let message = problem(&json!({"input": input}));
    assert!(
        message.starts_with("`input[3]` answers call id `call_stored`"),
        "{message}"
    );
}
