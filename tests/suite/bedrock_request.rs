//! Bedrock Converse bodies: the shipped 159-message agent session reads and writes
//! back whole, counts per model family, checks, fits (with and without the
//! context edits); invalid and malformed bodies say where and what to fix; any
//! generated body round-trips and fits through `check_fit`.

use ctxbudget::CharEstimate;
use ctxbudget::chat::edit::{EditableMessage, Edits};
use ctxbudget::chat::{ChatFormat, ChatMessage};
use ctxbudget::request::bedrock::{
    AS_JSON, BedrockMessage, BedrockRequest, CLAUDE, MEDIA, OTHER_MODEL, REASONING, TOOLS,
    chat_format, is_claude,
};
use ctxbudget::request::{Assumption, RequestError, RequestFitter, RequestFormat, WireRequest};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::request_fit::check_fit;

const SESSION: &str = include_str!("../fixtures/bedrock/agent_session.json");
const SONNET: &str = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

fn session() -> BedrockRequest {
    BedrockRequest::from_json(SESSION).expect("the fixture parses")
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn value(json: &str) -> Value {
    serde_json::from_str(json).expect("JSON")
}

fn said(assumptions: &[Assumption]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = assumptions
        .iter()
        .filter_map(|a| match a {
            Assumption::UnpublishedRule { what, .. } => Some(*what),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
fn the_session_round_trips_validates_and_is_detected() {
    let request = session();
    assert_eq!(request.messages().len(), 159);
    assert_eq!(value(&request.to_json()), value(SESSION));
    request.validate().expect("the session is valid");
    assert_eq!(request.max_output_tokens(), Some(4096));
    assert_eq!(
        ctxbudget::request::detect_format(SESSION).unwrap(),
        RequestFormat::BedrockConverse
    );
    let calls: usize = request
        .messages()
        .iter()
        .map(|m| m.tool_calls().count())
        .sum();
    let results: usize = request
        .messages()
        .iter()
        .map(|m| m.tool_result_ids().count())
        .sum();
    assert_eq!((calls, results), (120, 120));
}

#[test]
fn the_count_follows_the_model_family() {
    let claude = session().with_model(SONNET);
    assert!(is_claude(claude.model()));
    assert_eq!(chat_format(claude.model()), ChatFormat::anthropic());
    let count = RequestFitter::new(words).count(&claude);
    assert_eq!(count.tokens, count.fixed + count.messages);
    assert_eq!(count.tokens, claude.count(&words).tokens);
    let mut expected = vec![CLAUDE, TOOLS, MEDIA, REASONING];
    expected.sort_unstable();
    assert_eq!(said(&count.assumptions), expected);
    let other = session().with_model("amazon.nova-pro-v1:0");
    let count = RequestFitter::new(words).count(&other);
    assert!(said(&count.assumptions).contains(&OTHER_MODEL));
    assert!(!said(&count.assumptions).contains(&CLAUDE));
    // A 1x1 image costs 1 token by Claude's rule, 1,600 for another model.
    let one = r#"{"messages": [{"role": "user", "content": [{"image": {"format": "png", "source": {"bytes": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAACAAFUok9dAAAAAElFTkSuQmCC"}}}]}]}"#;
    let image = |model: &str| {
        RequestFitter::new(words)
            .count(&BedrockRequest::from_json(one).unwrap().with_model(model))
            .messages
    };
    assert_eq!(
        image("amazon.nova-pro-v1:0") - image(SONNET),
        1_600 - 1 + 4 - 3
    );
    let blocks = r#"{"messages": [{"role": "user", "content": [{"guardContent": {"text": {"text": "x"}}}]}]}"#;
    let count = RequestFitter::new(words).count(&BedrockRequest::from_json(blocks).unwrap());
    assert!(said(&count.assumptions).contains(&AS_JSON));
}

#[test]
fn claude_with_tools_pays_anthropics_tool_use_system_prompt() {
    let body = |choice: &str| {
        format!(
            r#"{{"messages": [{{"role": "user", "content": [{{"text": "hi"}}]}}],
               "toolConfig": {{"tools": [{{"toolSpec": {{"name": "f", "inputSchema": {{"json": {{}}}}}}}}]{choice}}}}}"#
        )
    };
    let fixed = |model: &str, choice: &str| {
        let request = BedrockRequest::from_json(&body(choice))
            .unwrap()
            .with_model(model);
        RequestFitter::new(words).count(&request).fixed
    };
    let spec = words(r#"{"name":"f","inputSchema":{"json":{}}}"#);
    // Claude 4 models: 346 tokens for `auto` (also when no choice is given), 313
    // for `any` and `tool`, as in Anthropic Messages.
    assert_eq!(fixed(SONNET, ""), spec + 346);
    assert_eq!(fixed(SONNET, r#", "toolChoice": {"auto": {}}"#), spec + 346);
    assert_eq!(fixed(SONNET, r#", "toolChoice": {"any": {}}"#), spec + 313);
    assert_eq!(
        fixed(SONNET, r#", "toolChoice": {"tool": {"name": "f"}}"#),
        spec + 313
    );
    // Claude 3 Opus has figures of its own.
    assert_eq!(
        fixed("anthropic.claude-3-opus-20240229-v1:0", ""),
        spec + 530
    );
    // Other families are not Claude: no Anthropic prompt.
    assert_eq!(fixed("amazon.nova-pro-v1:0", ""), spec);
    // No tools, no prompt.
    let bare = r#"{"messages": [{"role": "user", "content": [{"text": "hi"}]}], "toolConfig": {"tools": []}}"#;
    let request = BedrockRequest::from_json(bare).unwrap().with_model(SONNET);
    assert_eq!(RequestFitter::new(words).count(&request).fixed, 0);
}

#[test]
fn the_session_fits_at_every_limit() {
    let request = session().with_model(SONNET);
    let whole = RequestFitter::new(CharEstimate).count(&request).tokens;
    for limit in [whole, whole / 2, whole / 5, whole / 20, 900, 50] {
        check_fit(&request, CharEstimate, limit);
    }
    check_fit(&session(), words, 1_200);
}

#[test]
fn edits_clear_results_keep_status_and_drop_old_reasoning() {
    let request = session().with_model(SONNET);
    let whole = RequestFitter::new(words).count(&request).tokens;
    let fitted = RequestFitter::new(words)
        .with_max_input(whole * 3 / 4)
        .with_edits(Edits::default())
        .fit(request)
        .unwrap();
    let report = fitted.report.edits.as_ref().expect("edits reported");
    assert!(report.edits.len() > 5, "{}", fitted.report);
    // A cleared result keeps its id and its status: an error stays one.
    let out = value(&fitted.request.to_json());
    let results: Vec<&Value> = out["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap())
        .filter_map(|b| b.get("toolResult"))
        .collect();
    let cleared = json!([{"text": Edits::DEFAULT_PLACEHOLDER}]);
    assert!(
        results
            .iter()
            .any(|r| r["content"] == cleared && r["status"] == "success")
    );
    assert!(results.iter().all(|r| r["toolUseId"].is_string()));
    fitted.request.validate().unwrap();
}

#[test]
fn a_result_is_edited_in_its_content_only() {
    let body = json!({"messages": [
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "a", "input": {"q": 1}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "status": "error", "content": [
            {"text": "long text"}, {"json": {"rows": [1, 2]}}, {"image": {"format": "png", "source": {"bytes": "AAAA"}}}]}}]}
    ]});
    let mut request = BedrockRequest::from_json(&body.to_string()).unwrap();
    request.edit_messages(|messages| {
        let result = messages[2].tool_result(0).unwrap();
        assert_eq!(result.texts, ["long text", r#"{"rows":[1,2]}"#]);
        assert_eq!(result.media, 1);
        assert!(messages[2].set_tool_result_text(0, 1, "cut".to_owned()));
        assert!(messages[2].replace_tool_result_media(0, "[image]"));
        assert!(messages[1].clear_tool_input("t1"));
    });
    let out = value(&request.to_json());
    assert_eq!(
        out["messages"][2]["content"][0]["toolResult"],
        json!({"toolUseId": "t1", "status": "error", "content": [{"text": "long text"}, {"text": "cut"}, {"text": "[image]"}]})
    );
    assert_eq!(
        out["messages"][1]["content"][0]["toolUse"]["input"],
        json!({})
    );
    // Cleared, an error stays an error.
    request.edit_messages(|messages| assert!(messages[2].replace_tool_result(0, "[cleared]")));
    assert_eq!(
        value(&request.to_json())["messages"][2]["content"][0]["toolResult"],
        json!({"toolUseId": "t1", "status": "error", "content": [{"text": "[cleared]"}]})
    );
    let summary = BedrockMessage::summary("earlier".to_owned());
    assert_eq!(
        value(summary.raw().get()),
        json!({"role": "user", "content": [{"text": "earlier"}]})
    );
}

#[test]
fn invalid_bodies_say_where_and_what_to_fix() {
    let user = json!({"role": "user", "content": [{"text": "go"}]});
    let call = json!({"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "ls", "input": {}}}]});
    let result = json!({"role": "user", "content": [{"toolResult": {"toolUseId": "t", "content": [{"text": "a"}]}}]});
    let cases = [
        (
            json!([user, result]),
            "messages[1].content[0]",
            "no toolUse of that id",
        ),
        (
            json!([user, call]),
            "messages[1]",
            "no toolResult in the message right after it",
        ),
        (
            json!([call, result]),
            "messages[0]",
            "first message from the user",
        ),
        (
            json!([user, call, result, call, result]),
            "messages[3].content[0]",
            "repeats the toolUseId",
        ),
        (
            json!([{"role": "system", "content": [{"text": "x"}]}]),
            "messages[0]",
            "role `system`",
        ),
        (
            json!([{"role": "user", "content": "plain"}]),
            "messages[0]",
            "not an array",
        ),
        (
            json!([{"role": "user", "content": [{"text": "a", "image": {}}]}]),
            "messages[0].content[0]",
            "more than one kind",
        ),
        (json!([]), "messages", "is empty"),
    ];
    for (messages, field, problem) in cases {
        let body = json!({"messages": messages}).to_string();
        let request = BedrockRequest::from_json(&body).unwrap();
        match request.validate() {
            Err(RequestError::InvalidField {
                field: f,
                problem: p,
            }) => {
                assert_eq!(f, field, "{body}: {p}");
                assert!(p.contains(problem), "{body}: {p}");
            }
            other => panic!("{body}: {other:?}"),
        }
        assert!(
            RequestFitter::new(words)
                .with_max_input(1000)
                .fit(request)
                .is_err()
        );
    }
    let tools = r#"{"messages": [{"role": "user", "content": [{"text": "x"}]}], "toolConfig": {"tools": [{"toolSpec": {"description": "no name"}}]}}"#;
    let err = BedrockRequest::from_json(tools)
        .unwrap()
        .validate()
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("`toolConfig.tools[0]` has no toolSpec"),
        "{err}"
    );
}

#[test]
fn malformed_json_gets_its_position_and_what_was_expected() {
    let err =
        BedrockRequest::from_json("{\"messages\": [\n  {\"role\": \"user\",\n  ]\n}").unwrap_err();
    let message = err.to_string();
    assert!(matches!(
        err,
        RequestError::Json {
            format: RequestFormat::BedrockConverse,
            ..
        }
    ));
    assert!(message.contains("line 3"), "{message}");
    assert!(message.contains("an array of message objects"), "{message}");
    let err =
        BedrockRequest::from_json(r#"{"messages": [], "inferenceConfig": {"maxTokens": 1.5}}"#)
            .unwrap_err()
            .to_string();
    assert!(err.contains("`maxTokens` is `1.5`"), "{err}");
    let err = BedrockRequest::from_json(r#"{"messages": [], "system": "Be brief."}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("`system` is not an array of blocks"), "{err}");
}

/// A generated session: rounds of a question, maybe a tool step (reasoning first
/// or not, one to three tool uses, their results, one an error), maybe an answer.
fn body() -> impl Strategy<Value = Value> {
    let round = (
        "[a-z ]{0,30}",
        0usize..4,
        any::<bool>(),
        prop::collection::vec("[a-z ]{0,30}", 3),
        any::<bool>(),
    );
    (prop::collection::vec(round, 1..7), any::<bool>()).prop_map(|(rounds, system)| {
        let mut messages = Vec::new();
        let mut next = 0usize;
        for (i, (question, calls, reasoning, outputs, answer)) in rounds.iter().enumerate() {
            messages.push(json!({"role": "user", "content": [{"text": question}]}));
            if *calls > 0 {
                let mut uses = Vec::new();
                if *reasoning {
                    uses.push(json!({"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "sig"}}}));
                }
                let mut results = Vec::new();
                for k in 0..*calls {
                    let id = format!("t{next}");
                    next += 1;
                    uses.push(json!({"toolUse": {"toolUseId": id, "name": "read", "input": {"n": k}}}));
                    results.push(json!({"toolResult": {"toolUseId": id, "content": [{"text": outputs[k % 3].repeat(k + 1)}], "status": if k == 1 { "error" } else { "success" }}}));
                }
                messages.push(json!({"role": "assistant", "content": uses}));
                messages.push(json!({"role": "user", "content": results}));
            }
            if *answer {
                messages.push(json!({"role": "assistant", "content": [{"text": format!("answer {i}")}]}));
            }
        }
        let mut body = json!({"messages": messages});
        if system {
            body["system"] = json!([{"text": "Be brief."}, {"cachePoint": {"type": "default"}}]);
            body["toolConfig"] = json!({"tools": [{"toolSpec": {"name": "read", "inputSchema": {"json": {"type": "object"}}}}]});
        }
        body
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn generated_bodies_round_trip_validate_and_fit(body in body(), share in 0.05f64..1.2) {
        let request = BedrockRequest::from_json(&body.to_string()).unwrap().with_model(SONNET);
        prop_assert_eq!(value(&request.to_json()), body);
        request.validate().unwrap();
        let whole = RequestFitter::new(CharEstimate).count(&request).tokens;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let limit = (whole as f64 * share) as usize;
        check_fit(&request, CharEstimate, limit);
    }
}
