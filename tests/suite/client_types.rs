//! Requests and histories as Rust clients build them: async-openai's request types
//! fit through `RequestFitter::fit_serde` and come back as values of their type;
//! rig's and genai's messages are trimmed and edited in place.

use async_openai::types::chat::CreateChatCompletionRequest;
use async_openai::types::responses::CreateResponse;
use ctxbudget::chat::edit::{ContextEditor, Edits};
use ctxbudget::chat::{ChatFormat, ChatMessage};
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::responses::ResponsesRequest;
use ctxbudget::request::{RequestError, RequestFitter};
use ctxbudget::{ChatTrimmer, Tiktoken, TokenCounter};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::HashSet;

const OPENAI_SESSION: &str = include_str!("../fixtures/requests/openai/coding_session.json");
const RESPONSES_SESSION: &str = include_str!("../fixtures/responses/agent_session.json");

fn o200k() -> Tiktoken {
    Tiktoken::o200k_base()
}

/// `value` without the array under `key`, and that array.
fn split_off(mut value: Value, key: &str) -> (Value, Vec<Value>) {
    let items = value
        .as_object_mut()
        .and_then(|o| o.remove(key))
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    (value, items)
}

/// Every call in `history` has its result and every result its call.
fn assert_pairs<M: ChatMessage>(history: &[M]) {
    let calls: HashSet<&str> = history
        .iter()
        .flat_map(ChatMessage::tool_calls)
        .map(|c| c.id)
        .collect();
    let results: HashSet<&str> = history
        .iter()
        .flat_map(ChatMessage::tool_result_ids)
        .collect();
    assert_eq!(
        calls, results,
        "a call without its result or a result without its call"
    );
}

#[test]
fn async_openai_chat_request_fits_and_comes_back_as_its_type() {
    let original: CreateChatCompletionRequest =
        serde_json::from_str(OPENAI_SESSION).expect("async-openai reads the session");
    let limited = RequestFitter::new(o200k()).with_max_input(8_000);

    let fitted = limited.fit_serde(&original).expect("the session fits");
    let request: CreateChatCompletionRequest = fitted.request;

    let (rest_before, before) = split_off(serde_json::to_value(&original).unwrap(), "messages");
    let (rest_after, after) = split_off(serde_json::to_value(&request).unwrap(), "messages");
    // Every field outside `messages` survives, and the kept messages are a
    // subsequence of the original's, unchanged.
    assert_eq!(rest_before, rest_after);
    assert!(after.len() < before.len(), "nothing was dropped");
    assert_eq!(before.len() - after.len(), fitted.report.dropped.len());
    let mut originals = before.iter();
    for kept in &after {
        assert!(
            originals.any(|m| m == kept),
            "a kept message changed: {kept}"
        );
    }
    // What it sends is a valid request within the limit.
    let reread = ChatRequest::from_json(&serde_json::to_string(&request).unwrap()).unwrap();
    assert!(limited.count(&reread).tokens <= 8_000);
    ctxbudget::request::WireRequest::validate(&reread).expect("no orphaned tool message");
}

#[test]
fn async_openai_chat_request_that_fits_comes_back_equal() {
    let original: CreateChatCompletionRequest = serde_json::from_str(OPENAI_SESSION).unwrap();
    let fitted = RequestFitter::new(o200k())
        .with_max_input(1_000_000)
        .fit_serde(&original)
        .unwrap();
    assert_eq!(
        serde_json::to_value(&fitted.request).unwrap(),
        serde_json::to_value(&original).unwrap()
    );
    assert!(fitted.report.dropped.is_empty());
}

#[test]
fn async_openai_responses_request_fits_and_keeps_its_fields() {
    // async-openai requires a custom tool's `format`, which the API defaults to text.
    let mut body: Value = serde_json::from_str(RESPONSES_SESSION).unwrap();
    for tool in body["tools"].as_array_mut().unwrap() {
        if tool["type"] == "custom" {
            tool["format"] = serde_json::json!({"type": "text"});
        }
    }
    let original: CreateResponse =
        serde_json::from_value(body).expect("async-openai reads the Responses session");
    let as_json = serde_json::to_string(&original).unwrap();
    let whole = RequestFitter::new(o200k()).count(&ResponsesRequest::from_json(&as_json).unwrap());
    let limit = whole.tokens / 2;

    let fitted = RequestFitter::new(o200k())
        .with_max_input(limit)
        .fit_serde(&original)
        .expect("half the session fits");
    let request: CreateResponse = fitted.request;

    let (rest_before, before) = split_off(serde_json::to_value(&original).unwrap(), "input");
    let (rest_after, after) = split_off(serde_json::to_value(&request).unwrap(), "input");
    assert_eq!(rest_before, rest_after);
    assert!(after.len() < before.len());
    let mut originals = before.iter();
    for kept in &after {
        assert!(
            originals.any(|item| item == kept),
            "a kept item changed: {kept}"
        );
    }
    assert!(fitted.report.tokens_after <= limit);
}

#[test]
fn fit_serde_reports_a_value_that_is_not_json() {
    // A map with non-string keys has no JSON form.
    let mut map = std::collections::HashMap::new();
    map.insert((1, 2), "x".to_owned());
    let error = RequestFitter::new(o200k())
        .with_max_input(100)
        .fit_serde(&map)
        .unwrap_err();
    assert!(matches!(error, RequestError::Serialize { .. }), "{error}");
    assert!(error.to_string().contains("string keys"), "{error}");
}

#[test]
fn fit_serde_reports_a_type_the_fitted_body_does_not_fit() {
    /// A type that insists on four messages.
    #[derive(Debug, serde::Serialize, serde::Deserialize)]
    struct FourMessages {
        model: String,
        messages: [Value; 4],
    }
    let body = FourMessages {
        model: "gpt-4o".into(),
        messages: [
            serde_json::json!({"role": "user", "content": "an old question ".repeat(40)}),
            serde_json::json!({"role": "assistant", "content": "an old answer ".repeat(40)}),
            serde_json::json!({"role": "user", "content": "a question"}),
            serde_json::json!({"role": "assistant", "content": "an answer"}),
        ],
    };
    let words = |t: &str| t.split_whitespace().count();
    let error = RequestFitter::new(words)
        .with_max_input(60)
        .fit_serde(&body)
        .unwrap_err();
    assert!(matches!(error, RequestError::Deserialize { .. }), "{error}");
    assert!(
        error.to_string().contains("fit its JSON instead"),
        "{error}"
    );
}

mod genai_history {
    use super::*;
    use genai::chat::{ChatMessage as Genai, ToolCall, ToolResponse};

    fn call(id: &str, path: &str) -> ToolCall {
        ToolCall {
            call_id: id.into(),
            fn_name: "read_file".into(),
            fn_arguments: serde_json::json!({ "path": path }),
            thought_signatures: None,
        }
    }

    /// A coding session: a task, then `turns` reads of a long file, each a call and
    /// its response, then a question.
    pub(super) fn session(turns: usize) -> Vec<Genai> {
        let mut history = vec![
            Genai::system("You are a coding agent."),
            Genai::user("Fix the failing test in src/lib.rs."),
        ];
        for turn in 0..turns {
            let id = format!("call_{turn}");
            history.push(Genai::from(vec![call(&id, &format!("src/file_{turn}.rs"))]));
            history.push(Genai::from(ToolResponse::new(
                id,
                format!("fn f{turn}() {{ /* body */ }}\n").repeat(60),
            )));
        }
        history.push(Genai::user("What did you find?"));
        history
    }

    #[test]
    fn trimming_keeps_genai_messages_and_their_pairs() {
        let history = session(8);
        let counter = o200k();
        let trimmed = ChatTrimmer::new(&counter, 1_500).trim(&history).unwrap();
        let kept: Vec<Genai> = trimmed.messages().into_iter().cloned().collect();
        assert!(kept.len() < history.len());
        assert_pairs(&kept);
        // The kept messages are the history's own, unchanged.
        let last = serde_json::to_value(kept.last().unwrap()).unwrap();
        assert_eq!(last, serde_json::to_value(history.last().unwrap()).unwrap());
        assert!(ChatFormat::openai().count_messages(&counter, &kept) <= 1_500);
    }

    #[test]
    fn content_counts_every_part() {
        let counter = o200k();
        let message = Genai::from(vec![call("c1", "src/main.rs")]);
        // The arguments are counted with the content (the call's name by the format).
        let arguments = counter.count(r#"{"path":"src/main.rs"}"#);
        assert_eq!(message.content_tokens(&counter), arguments);
        let response = Genai::from(ToolResponse::new("c1", "fn main() {}"));
        assert_eq!(
            response.content_tokens(&counter),
            counter.count("fn main() {}")
        );
        assert_eq!(response.tool_call_id(), Some("c1"));
        assert!(!response.carries_user_content());
    }

    #[test]
    fn edits_clear_old_genai_tool_responses_in_place() {
        let mut history = session(8);
        let counter = o200k();
        let before = ChatFormat::openai().count_messages(&counter, &history);
        let editor = ContextEditor::new(&counter, before / 3)
            .with_format(ChatFormat::openai())
            .with_edits(Edits::default().grid(0.0).placeholder("[cleared]"));
        let edited = editor.edit(&mut history);
        assert!(edited.report().fits(), "{:?}", edited.report());
        let responses: Vec<&str> = history
            .iter()
            .flat_map(|m| m.content.tool_responses())
            .map(|r| r.content.as_str())
            .collect();
        assert_eq!(responses.len(), 8, "edits keep every response");
        assert_eq!(responses[0], "[cleared]");
        assert_ne!(responses[7], "[cleared]", "the newest response stays");
        assert_pairs(&history);
    }

    #[test]
    fn a_session_of_genai_messages_keeps_its_prefix_and_its_pairs() {
        let counter = o200k();
        let mut chat = ctxbudget::chat::ChatSession::new(&counter, 2_000);
        for message in session(10) {
            chat.push(message).unwrap();
        }
        let prepared = chat.prepare().unwrap();
        let kept = prepared.messages();
        assert!(prepared.tokens() <= 2_000);
        assert!(kept.len() < 23);
        assert_eq!(kept[0].role(), ctxbudget::chat::Role::System);
        assert_pairs(kept);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the limit, a trimmed genai history has no orphan.
        #[test]
        fn genai_trimming_never_orphans(turns in 0usize..12, limit in 10usize..4_000) {
            let history = session(turns);
            let counter = o200k();
            if let Ok(trimmed) = ChatTrimmer::new(&counter, limit).trim(&history) {
                let kept: Vec<Genai> = trimmed.messages().into_iter().cloned().collect();
                assert_pairs(&kept);
                prop_assert!(ChatFormat::openai().count_messages(&counter, &kept) <= limit);
            }
        }
    }
}

mod rig_history {
    use super::*;
    use rig::completion::message::{
        AssistantContent, CallId, Message as Rig, ToolName, ToolResultContent, UserContent,
    };

    fn read_call(id: &str, path: &str) -> Rig {
        Rig::Assistant(rig::completion::message::AssistantMessage::new(vec![
            AssistantContent::tool_call(
                id,
                ToolName::new("read_file").unwrap(),
                serde_json::json!({ "path": path }),
            ),
        ]))
    }

    fn read_result(id: &str, text: String) -> Rig {
        Rig::tool_result(
            CallId::from_wire(id),
            ToolName::new("read_file").unwrap(),
            text,
        )
    }

    fn session(turns: usize) -> Vec<Rig> {
        let mut history = vec![
            Rig::system("You are a coding agent."),
            Rig::user("Fix the failing test in src/lib.rs."),
        ];
        for turn in 0..turns {
            let id = format!("call_{turn}");
            history.push(read_call(&id, &format!("src/file_{turn}.rs")));
            history.push(read_result(
                &id,
                format!("fn f{turn}() {{ /* body */ }}\n").repeat(60),
            ));
        }
        history.push(Rig::user("What did you find?"));
        history
    }

    #[test]
    fn trimming_keeps_rig_messages_and_their_pairs() {
        let history = session(8);
        let counter = o200k();
        let trimmed = ChatTrimmer::new(&counter, 1_500).trim(&history).unwrap();
        let kept: Vec<Rig> = trimmed.messages().into_iter().cloned().collect();
        assert!(kept.len() < history.len());
        assert_pairs(&kept);
        assert_eq!(kept.last(), history.last());
        assert_eq!(kept.first(), history.first(), "the system message stays");
    }

    #[test]
    fn rig_tool_results_read_as_results() {
        let result = read_result("call_1", "fn main() {}".into());
        assert_eq!(result.tool_call_id(), Some("call_1"));
        assert!(!result.carries_user_content());
        let counter = o200k();
        assert_eq!(
            result.content_tokens(&counter),
            counter.count("fn main() {}")
        );
        let call = read_call("call_1", "src/main.rs");
        let calls: Vec<_> = call.tool_calls().collect();
        assert_eq!((calls[0].id, calls[0].name), ("call_1", "read_file"));
        assert_eq!(
            call.content_tokens(&counter),
            counter.count(r#"{"path":"src/main.rs"}"#)
        );
    }

    #[test]
    fn edits_clear_old_rig_tool_results_in_place() {
        let mut history = session(8);
        let counter = o200k();
        let before = ChatFormat::openai().count_messages(&counter, &history);
        let editor = ContextEditor::new(&counter, before / 3)
            .with_format(ChatFormat::openai())
            .with_edits(Edits::default().grid(0.0).placeholder("[cleared]"));
        let edited = editor.edit(&mut history);
        assert!(edited.report().fits(), "{:?}", edited.report());
        let texts: Vec<String> = history
            .iter()
            .filter_map(|m| match m {
                Rig::User { content } => match content.first() {
                    Some(UserContent::ToolResult(result)) => match result.content.first() {
                        Some(ToolResultContent::Text(text)) => Some(text.text.clone()),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(texts.len(), 8);
        assert_eq!(texts[0], "[cleared]");
        assert_ne!(texts[7], "[cleared]");
        assert_pairs(&history);
    }
}
