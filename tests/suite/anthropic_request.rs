//! Anthropic Messages request bodies: lossless round trips on the fixtures, counting
//! (images, documents, tools, system, thinking), validation and repair, and trimming
//! with `ChatTrimmer` without breaking tool calls apart. Property tests over
//! generated requests live in `anthropic_request_props.rs`.

// Test code: fixtures are read by name, and long table-like tests read best whole.
#![allow(
    clippy::needless_raw_string_hashes,
    clippy::similar_names,
    clippy::case_sensitive_file_extension_comparisons,
    clippy::redundant_closure_for_method_calls,
    clippy::too_many_lines
)]

use std::io::Read;
use std::path::PathBuf;
use std::sync::LazyLock;

use ctxbudget::chat::edit::Edits;
use ctxbudget::chat::{ChatFormat, ChatMessage, Role};
use ctxbudget::count::HuggingFace;
use ctxbudget::request::anthropic::{
    AnthropicMessage, AnthropicRole, Content, ContentBlock, MessagesRequest, RepairReason,
    ThinkingRetention,
};
use ctxbudget::request::{Assumption, RequestError, RequestFitter, RequestFormat, WireRequest};
use ctxbudget::{CharEstimate, ChatTrimmer};
use serde_json::{Value, json};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixtures_dir().join("requests/anthropic").join(name)).unwrap()
}

fn request(name: &str) -> MessagesRequest {
    MessagesRequest::from_json(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn value(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

/// Anthropic's public (pre-Claude-3) tokenizer, from the tokenizer fixtures.
static ANTHROPIC: LazyLock<HuggingFace> = LazyLock::new(|| {
    let path = fixtures_dir().join("tokenizers/anthropic-tokenizer.json.gz");
    let compressed = std::fs::read(path).unwrap();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut bytes)
        .unwrap();
    HuggingFace::from_bytes(bytes).unwrap()
});

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

const FIXTURES: [&str; 7] = [
    "blocks.json",
    "image.json",
    "nulls.json",
    "session.json",
    "system_blocks.json",
    "system_string.json",
    "tools.json",
];

#[test]
fn every_fixture_round_trips_to_an_equal_value() {
    let mut listed: Vec<String> = std::fs::read_dir(fixtures_dir().join("requests/anthropic"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    listed.sort();
    assert_eq!(listed, FIXTURES, "a fixture is not in the list");
    for name in FIXTURES {
        let json = fixture(name);
        let parsed = request(name);
        let written = parsed.to_json();
        assert_eq!(value(&written), value(&json), "{name}");
        assert_eq!(
            serde_json::to_value(&parsed).unwrap(),
            value(&json),
            "{name}"
        );
        // And again from what was written: a fixed point, equal as Rust values too.
        let again = MessagesRequest::from_json(&written).unwrap();
        assert_eq!(again, parsed, "{name}");
        assert_eq!(again.to_json(), written, "{name}");
    }
}

#[test]
fn the_session_is_a_tool_heavy_agent_run() {
    let session = request("session.json");
    let messages = session.messages();
    assert!(messages.len() >= 100, "{}", messages.len());
    session.validate().unwrap();
    let parallel = messages
        .iter()
        .filter(|m| m.tool_uses().count() >= 2)
        .count();
    assert!(parallel >= 5, "{parallel} messages with parallel calls");
    let thinking = messages
        .iter()
        .flat_map(AnthropicMessage::blocks)
        .filter(|b| matches!(b, ContentBlock::Thinking(_)))
        .count();
    assert!(thinking >= 10, "{thinking}");
    let results: usize = messages
        .iter()
        .flat_map(AnthropicMessage::tool_results)
        .filter_map(|r| match &r.content {
            Some(Content::Text(text)) => Some(text.len()),
            _ => None,
        })
        .sum();
    assert!(results > 60_000, "{results} bytes of tool results");
    assert_eq!(session.tools.as_ref().map(Vec::len), Some(5));
    assert_eq!(session.tool_choice(), "auto");
}

#[test]
fn modelled_fields_and_extras_are_reachable() {
    let blocks = request("blocks.json");
    let user = &blocks.messages()[0];
    assert_eq!(user.role, AnthropicRole::User);
    assert_eq!(
        user.blocks()
            .last()
            .unwrap()
            .cache_control()
            .map(|c| c.get()),
        Some(r#"{"type": "ephemeral", "ttl": "1h"}"#)
    );
    let assistant = &blocks.messages()[1];
    let kinds: Vec<&str> = assistant.blocks().iter().map(ContentBlock::kind).collect();
    assert_eq!(
        kinds,
        [
            "thinking",
            "redacted_thinking",
            "text",
            "server_tool_use",
            "web_search_tool_result",
            "tool_use",
            "tool_use"
        ]
    );
    let ContentBlock::Thinking(thinking) = &assistant.blocks()[0] else {
        panic!()
    };
    assert!(thinking.extra.get("signature").is_some());
    let last = &blocks.messages()[2];
    assert!(
        last.extra
            .contains_key("name_of_a_field_ctxbudget_does_not_know")
    );
    let results: Vec<_> = last.tool_results().collect();
    assert!(!results[0].is_error() && results[1].is_error());

    let nulls = request("nulls.json");
    assert_eq!(nulls.model(), None);
    assert!(nulls.system.is_none() && nulls.tools.is_none());
    assert_eq!(nulls.extra.get("model").map(|v| v.get()), Some("null"));
    assert_eq!(
        nulls.messages()[1].tool_calls().next().unwrap().arguments,
        r#"{"deep": {"list": [1, -0.5, 1e2, 12345678901234567890, true, null]}}"#
    );
    assert!(
        nulls.messages()[2]
            .tool_results()
            .next()
            .unwrap()
            .content
            .is_none()
    );
}

#[test]
fn setting_a_field_that_was_null_writes_it_once() {
    let mut nulls = request("nulls.json");
    nulls.model = Some("claude-haiku-4-5".to_owned());
    let written = value(&nulls.to_json());
    assert_eq!(written["model"], "claude-haiku-4-5");
    assert_eq!(written["system"], Value::Null);
    assert!(nulls.to_json().matches("\"model\"").count() == 1);
}

#[test]
fn chat_message_view() {
    let session = request("session.json");
    let messages = session.messages();
    assert_eq!(messages[0].role(), Role::User);
    assert!(!messages[0].content().is_empty());
    let call = &messages[3];
    assert_eq!(call.role(), Role::Assistant);
    let calls: Vec<_> = call.tool_calls().collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0].name, "read_file");
    assert!(calls[0].arguments.contains("\"path\""));
    let ids: Vec<&str> = messages[4].tool_result_ids().collect();
    assert_eq!(ids, calls.iter().map(|c| c.id).collect::<Vec<_>>());
    // Block content: no text to cut, so never kept in part.
    assert_eq!(call.content(), "");
    assert_eq!(messages[4].content(), "");

    let one_text = AnthropicMessage::user(vec![ContentBlock::text("only")]);
    assert_eq!(one_text.content(), "only");
    let two: AnthropicMessage = serde_json::from_str(
        r#"{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "t"}, {"type": "text", "text": "b"}]}"#,
    )
    .unwrap();
    assert_eq!(two.content(), "");
    assert_eq!(two.text(), "a\nb");
}

#[test]
fn published_token_counts_come_out_at_or_a_little_over() {
    // Anthropic's token-counting guide: a system prompt and one message, 14 tokens;
    // the get_weather tool and one question, 403 tokens (Claude 4 models).
    let hello = MessagesRequest::from_json(
        r#"{"model": "claude-sonnet-4-5", "system": "You are a scientist",
            "messages": [{"role": "user", "content": "Hello, Claude"}]}"#,
    )
    .unwrap();
    let weather = request("tools.json");
    let mut weather_only = weather.clone();
    weather_only.tools.as_mut().unwrap().truncate(1);
    weather_only.extra.remove("tool_choice");
    for (request, published) in [(&hello, 14), (&weather_only, 403)] {
        let counted = request.count(&*ANTHROPIC).tokens;
        assert!(
            (published..=published + published / 20).contains(&counted),
            "{counted} tokens for a request Anthropic counts at {published}"
        );
    }
}

#[test]
fn images_cost_their_size_and_urls_the_most() {
    let image = request("image.json");
    let message = &image.messages()[0];
    let text = "Which of these two images is a photo?";
    // 48 × 32 pixels: 1536 / 750, rounded up. The URL: the most an image costs.
    assert_eq!(message.content_tokens(&words), 3 + 1600 + words(text));
    assert_eq!(
        image.message_assumptions(),
        [Assumption::RemoteImage {
            message: 0,
            assumed_tokens: 1600
        }]
    );
    let cost = image.count(&words);
    let format = ChatFormat::anthropic();
    assert_eq!(
        cost.tokens,
        format.tokens_per_message()
            + words("user")
            + 3
            + 1600
            + words(text)
            + format.reply_priming()
    );
}

#[test]
fn documents_tool_results_and_unknown_blocks_are_counted() {
    let blocks = request("blocks.json");
    let messages = blocks.messages();
    let user = messages[0].content_tokens(&words);
    let expected = 2 * 4600 // the two-page PDF
        + words("Two blank pages")
        + words("The grass is green. The sky is blue.")
        + words("My Document")
        + words("This is a trustworthy document.")
        + words("First chunk") + words("Second chunk") + words("Custom chunks")
        + 4600 // the PDF at a URL: one page
        + 1 // the 1 × 1 GIF
        + 1600 // the image in the Files API
        + words("What color is the grass, and what is in the images?");
    assert_eq!(user, expected);
    let assumptions = blocks.message_assumptions();
    let what: Vec<String> = assumptions.iter().map(ToString::to_string).collect();
    assert!(
        what[0].contains("PDF") && what[0].contains("pages counted"),
        "{what:?}"
    );
    assert!(what[1].contains("could not be counted"), "{what:?}");
    assert!(matches!(
        assumptions[2],
        Assumption::RemoteImage { message: 0, .. }
    ));
    // The results: their ids and content, the GIF inside one of them.
    let results = messages[2].content_tokens(&words);
    // The `search_result` block: the JSON text of each field.
    let search = [
        r#""https://example.com/notes""#,
        r#""Notes""#,
        r#"[{"type": "text", "text": "Grass is usually green."}]"#,
        r#"{"enabled": true}"#,
    ];
    assert_eq!(
        results,
        1 + words("15 degrees")
            + 1
            + 1
            + words("ConnectionError: the time service is down")
            + search.iter().map(|s| words(s)).sum::<usize>()
            + words("Thanks. Summarise.")
    );
    assert!(assumptions.iter().any(|a| matches!(
        a,
        Assumption::UnpublishedRule {
            message: Some(2),
            ..
        }
    )));
}

#[test]
fn tools_cost_their_definitions_and_the_tool_use_system_prompt() {
    let tools = request("tools.json");
    let weather_schema = r#"{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"}},"required":["location"]}"#;
    let web_search = r#"{"type":"web_search_20250305","name":"web_search","max_uses":5,"allowed_domains":["example.com"]}"#;
    let time_schema = r#"{"type":"object","properties":{"tz":{"type":"string"}}}"#;
    let definitions = words("get_weather")
        + words("Get the current weather in a given location")
        + words(weather_schema)
        + 245 // bash
        + 700 // text editor
        + words(web_search)
        + words("get_time")
        + words("The time in a time zone.")
        + words(time_schema);
    let cost = tools.fixed_cost(&words);
    // `tool_choice` is `any`: 313 on Claude Opus 4.1.
    assert_eq!(cost.tokens, definitions + 313);
    let what: Vec<String> = cost.assumptions.iter().map(ToString::to_string).collect();
    assert_eq!(what.len(), 2, "{what:?}");
    assert!(what[0].contains("tokenizer"));
    assert!(what[1].contains("web search"));

    let mut auto = tools.clone();
    auto.extra.remove("tool_choice");
    assert_eq!(auto.tool_choice(), "auto");
    assert_eq!(auto.fixed_cost(&words).tokens, definitions + 346);
    let mut old = auto.clone();
    old.model = Some("claude-3-opus-20240229".to_owned());
    assert_eq!(old.fixed_cost(&words).tokens, definitions + 530);
    let mut unknown = auto.clone();
    unknown.model = Some("proxy/some-model".to_owned());
    let cost = unknown.fixed_cost(&words);
    assert_eq!(cost.tokens, definitions + 346);
    assert!(
        cost.assumptions
            .iter()
            .any(|a| a.to_string().contains("not one whose"))
    );
    let mut none = auto;
    none.tools = Some(Vec::new());
    assert_eq!(
        none.fixed_cost(&words).tokens,
        0,
        "no tools, no tool prompt"
    );
}

#[test]
fn the_system_prompt_counts_as_its_text() {
    let string = request("system_string.json");
    assert_eq!(
        string.fixed_cost(&words).tokens,
        words("You are a helpful assistant who answers in one sentence.")
    );
    let blocks = request("system_blocks.json");
    assert_eq!(
        blocks.fixed_cost(&words).tokens,
        words(
            "You are an AI assistant tasked with analyzing literary works. Your goal is to provide insightful commentary on themes, characters, and writing style.\n"
        ) + words("<the entire contents of a long novel would go here>")
    );
    assert!(request("nulls.json").fixed_cost(&words).tokens == 0);
}

/// The thinking tokens each message counts.
fn thinking_tokens(request: &MessagesRequest) -> Vec<usize> {
    request
        .messages()
        .iter()
        .map(|m| {
            let mut without = m.clone();
            without.set_counts_thinking(false);
            m.content_tokens(&words) - without.content_tokens(&words)
        })
        .collect()
}

#[test]
fn thinking_of_earlier_turns_counts_only_where_the_model_keeps_it() {
    let mut session = request("session.json");
    assert_eq!(
        session.thinking_retention(),
        ThinkingRetention::LastTurns(1)
    );
    let messages = session.messages();
    // The last turn starts at the last user message that is not only results.
    let turn_start = messages
        .iter()
        .rposition(|m| {
            m.role == AnthropicRole::User
                && (matches!(m.content, Content::Text(_))
                    || m.blocks()
                        .iter()
                        .any(|b| !matches!(b, ContentBlock::ToolResult(_))))
        })
        .unwrap();
    let counted = thinking_tokens(&session);
    for (i, tokens) in counted.iter().enumerate() {
        let has_thinking = messages[i]
            .blocks()
            .iter()
            .any(|b| matches!(b, ContentBlock::Thinking(_)));
        assert_eq!(*tokens > 0, has_thinking && i > turn_start, "message {i}");
    }
    let last_turn: usize = counted.iter().sum();
    session.set_thinking_retention(Some(ThinkingRetention::All));
    let all: usize = thinking_tokens(&session).iter().sum();
    assert!(all > 5 * last_turn, "{all} vs {last_turn}");
    session.set_thinking_retention(Some(ThinkingRetention::LastTurns(3)));
    let three: usize = thinking_tokens(&session).iter().sum();
    assert!(last_turn < three && three < all);
    session.set_thinking_retention(None);
    session.model = Some("claude-opus-4-5".to_owned());
    session.messages_mut(); // the guard re-marks when dropped
    assert_eq!(thinking_tokens(&session).iter().sum::<usize>(), all);
    // A context-management edit overrides the model's default.
    session.extra.insert(
        "context_management",
        serde_json::value::RawValue::from_string(
            r#"{"edits": [{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}]}"#.to_owned(),
        )
        .unwrap(),
    );
    session.messages_mut();
    assert_eq!(thinking_tokens(&session).iter().sum::<usize>(), last_turn);
}

/// A session whose last turn is a tool loop with a result too long to keep, after
/// a question asked with the result of a call whose turn began with thinking: that
/// turn's thinking, which the model strips, counts again once the loop is dropped.
/// Each word of the thinking and of the result is repeated `thinking` and
/// `result` times.
fn earlier_thinking(thinking: usize, result: usize) -> MessagesRequest {
    let words = |word: &str, n: usize| vec![word; n].join(" ");
    let body = json!({
        "model": "claude-3-5-haiku-latest",
        "max_tokens": 10,
        "thinking": {"type": "adaptive"},
        "messages": [
            {"role": "user", "content": "the task"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": words("hmm", thinking), "signature": "c2ln"},
                {"type": "tool_use", "id": "toolu_0", "name": "read", "input": {}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_0", "content": "a short result"},
                {"type": "text", "text": "and the next question"}
            ]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": words("line", result)}
            ]}
        ]
    });
    MessagesRequest::from_json(&body.to_string()).unwrap()
}

#[test]
fn dropping_later_turns_counts_earlier_thinking_again() {
    let request = earlier_thinking(40, 500);
    let whole = RequestFitter::new(words).count(&request).tokens;
    // The first three messages as a request of their own: the thinking counts.
    let mut first_three = request.clone();
    first_three.messages_mut().truncate(3);
    let first_three = RequestFitter::new(words).count(&first_three).tokens;
    assert!(first_three > whole - 500, "{first_three} {whole}");
    for edits in [
        Edits::none(),
        Edits::default().keep_thinking().no_truncation(),
    ] {
        // Room for them with their thinking: the loop goes, and the report counts
        // the thinking.
        let fitter = RequestFitter::new(words)
            .with_max_input(first_three)
            .with_count_dropped(true)
            .with_edits(edits.clone());
        let fitted = fitter.fit(request.clone()).unwrap();
        let report = &fitted.report;
        assert_eq!(fitted.request.messages().len(), 3, "{report}");
        assert_eq!(report.tokens_after, first_three, "{report}");
        assert_eq!(fitter.count(&fitted.request).tokens, first_three);
        if edits.is_none() {
            let dropped: usize = report.dropped.iter().filter_map(|d| d.tokens).sum();
            assert_eq!(report.tokens_before, Some(whole));
            assert_eq!(dropped + first_three - 40, whole, "{report}");
        }
        // Room for them without it only: they must stay, and do not fit.
        let fitter = fitter.with_max_input(first_three - 1);
        match fitter.fit(request.clone()) {
            Err(RequestError::DoesNotFit {
                needed,
                limit,
                over,
                ..
            }) => assert_eq!((needed, limit, over), (first_three, first_three - 1, 1)),
            other => panic!("{:?}", other.map(|f| f.report)),
        }
    }
}

fn bad(json: &str) -> RequestError {
    let request = MessagesRequest::from_json(json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    request.validate().expect_err(json)
}

fn body(messages: &str) -> String {
    format!(r#"{{"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{messages}]}}"#)
}

const ASK: &str = r#"{"role": "user", "content": "Go"}"#;
const CALLS: &str = r#"{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}, {"type": "tool_use", "id": "b", "name": "f", "input": {}}]}"#;

fn results(ids: &[&str]) -> String {
    let blocks: Vec<String> = ids
        .iter()
        .map(|id| format!(r#"{{"type": "tool_result", "tool_use_id": "{id}", "content": "ok"}}"#))
        .collect();
    format!(r#"{{"role": "user", "content": [{}]}}"#, blocks.join(", "))
}

#[test]
fn validation_errors_name_the_message_and_the_fix() {
    let ok = body(&format!("{ASK}, {CALLS}, {}", results(&["b", "a"])));
    MessagesRequest::from_json(&ok).unwrap().validate().unwrap();
    // Results spread over two user messages in a row: one turn for the API.
    let split = body(&format!(
        "{ASK}, {CALLS}, {}, {}",
        results(&["a"]),
        results(&["b"])
    ));
    MessagesRequest::from_json(&split)
        .unwrap()
        .validate()
        .unwrap();

    let cases: Vec<(String, &str)> = vec![
        (body(""), "`messages` is empty"),
        (
            body(&format!("{CALLS}, {}", results(&["a", "b"]))),
            "message 0: the request starts with an assistant message",
        ),
        (
            body(&format!("{ASK}, {CALLS}, {}", results(&["a"]))),
            "message 1: tool call `b` has no result",
        ),
        (
            body(&format!("{ASK}, {CALLS}")),
            "message 1: tool call `a` has no result",
        ),
        (
            body(&format!("{ASK}, {CALLS}, {}", results(&["a", "b", "zzz"]))),
            "message 2: a tool result answers call id `zzz`",
        ),
        (
            body(&format!("{}, {ASK}", results(&["a"]))),
            "message 0: a tool result answers call id `a`",
        ),
        (
            body(&format!(
                "{ASK}, {CALLS}, {}, {ASK}, {CALLS}, {}",
                results(&["a", "b"]),
                results(&["a", "b"])
            )),
            "messages 1 and 4: two tool calls share the id `a`",
        ),
        (
            body(&format!("{ASK}, {CALLS}, {}", results(&["a", "b", "a"]))),
            "message 2: two `tool_result` blocks answer `a`",
        ),
        (
            body(&format!(
                r#"{ASK}, {CALLS}, {{"role": "user", "content": [{{"type": "text", "text": "here"}}, {{"type": "tool_result", "tool_use_id": "a", "content": "1"}}, {{"type": "tool_result", "tool_use_id": "b", "content": "2"}}]}}"#
            )),
            "message 2: the `tool_result` block for `a` follows other content",
        ),
        (
            body(&format!("{ASK}, {CALLS}, {ASK}, {}", results(&["a", "b"]))),
            "message 3: the `tool_result` block for `a` follows the content of message 2",
        ),
        (
            body(r#"{"role": "user", "content": []}"#),
            "message 0: has empty content",
        ),
        (
            body(r#"{"role": "user", "content": ""}"#),
            "message 0: has empty content",
        ),
        (
            body(
                r#"{"role": "user", "content": [{"type": "tool_use", "id": "x", "name": "f", "input": {}}]}"#,
            ),
            "message 0: a user message holds the `tool_use` block `x`",
        ),
        (
            body(&format!(
                r#"{ASK}, {{"role": "assistant", "content": [{{"type": "tool_result", "tool_use_id": "x", "content": "1"}}]}}"#
            )),
            "message 1: an assistant message holds the `tool_result` block for `x`",
        ),
        (
            body(r#"{"role": "user", "content": [{"type": "thinking", "thinking": "hm"}]}"#),
            "message 0: a user message holds a `thinking` block",
        ),
        (
            body(&format!(
                r#"{ASK}, {{"role": "assistant", "content": [{{"type": "tool_use", "id": "x", "name": "f", "input": "go"}}]}}"#
            )),
            "message 1: the `input` of `tool_use` block `x` is `\"go\"`, not a JSON object",
        ),
        (
            body(&format!(
                r#"{ASK}, {{"role": "assistant", "content": [{{"type": "tool_use", "id": "x", "name": "f", "input": {{}}}}]}}, {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "x", "content": [{{"type": "tool_use", "id": "y", "name": "f", "input": {{}}}}]}}]}}"#
            )),
            "message 2: the `tool_result` block for `x` contains a `tool_use` block",
        ),
        (
            format!(
                r#"{{"system": [{{"type": "image", "source": {{"type": "url", "url": "u"}}}}], "messages": [{ASK}]}}"#
            ),
            "`system[0]` is a `image` block",
        ),
        (
            format!(
                r#"{{"tools": [{{"name": "ok", "input_schema": {{}}}}, {{"description": "no name"}}], "messages": [{ASK}]}}"#
            ),
            "`tools[1]` is not an object with a `name`",
        ),
    ];
    for (json, expected) in cases {
        let message = bad(&json).to_string();
        assert!(
            message.starts_with(expected),
            "{message}\nexpected: {expected}\n{json}"
        );
    }
    // A final assistant message may be empty (a prefill to continue).
    let prefill = body(&format!(r#"{ASK}, {{"role": "assistant", "content": ""}}"#));
    MessagesRequest::from_json(&prefill)
        .unwrap()
        .validate()
        .unwrap();
}

#[test]
fn malformed_bodies_get_serdes_position_and_what_was_expected() {
    let cases = [
        (
            r#"{"messages": [{"role": "user", "content": "hi"}"#,
            "EOF while parsing",
            "a complete JSON document",
        ),
        (
            r#"{"messages": [{"role": "user" "content": "hi"}]}"#,
            "expected `,` or `}`",
            "well-formed JSON",
        ),
        (
            r#"{"model": "x"}"#,
            "missing field `messages` in the request",
            "an Anthropic Messages request body",
        ),
        (
            r#"{"messages": [{"role": "system", "content": "be brief"}]}"#,
            "top-level `system` field",
            "an Anthropic Messages request body",
        ),
        (
            r#"{"messages": [{"role": "user", "content": [{"text": "no type"}]}]}"#,
            "missing field `type` in a content block",
            "an Anthropic Messages request body",
        ),
        (
            r#"{"messages": [{"role": "user", "content": [{"type": "tool_use", "id": "x", "input": {}}]}]}"#,
            "missing field `name` in a `tool_use` block",
            "an Anthropic Messages request body",
        ),
        (
            r#"{"messages": [{"role": "user", "content": "a", "content": "b"}]}"#,
            "duplicate field `content`",
            "an Anthropic Messages request body",
        ),
        (
            r#"{"messages": [], "temperature": 1, "temperature": 2}"#,
            "duplicate field `temperature`",
            "an Anthropic Messages request body",
        ),
        (
            r#"{"max_tokens": "many", "messages": []}"#,
            "`max_tokens` is `\"many\"`, not a whole number of tokens",
            "(a plain unsigned integer)",
        ),
        (
            r#"[1, 2]"#,
            "invalid type: sequence, expected a Messages request",
            "an Anthropic Messages request body",
        ),
    ];
    for (json, serde_says, we_expected) in cases {
        let error = MessagesRequest::from_json(json).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("Anthropic Messages request body: "),
            "{message}"
        );
        assert!(message.contains(serde_says), "{message}");
        assert!(message.contains(we_expected), "{message}");
        assert!(message.contains("line 1 column"), "{message}");
        let RequestError::Json { format, .. } = error else {
            panic!("{error:?}")
        };
        assert_eq!(format, RequestFormat::AnthropicMessages);
    }
    let with_bom = format!("\u{feff}{}", body(ASK));
    assert_eq!(
        MessagesRequest::from_json(&with_bom)
            .unwrap()
            .messages()
            .len(),
        1
    );
    assert!(body(ASK).parse::<MessagesRequest>().is_ok());
}

#[test]
fn repair_removes_what_breaks_the_pairing_and_says_so() {
    let json = body(&format!(
        r#"{ASK}, {CALLS}, {}, {{"role": "assistant", "content": [{{"type": "tool_use", "id": "a", "name": "again", "input": {{}}}}, {{"type": "text", "text": "kept"}}]}}, {}, {ASK}"#,
        results(&["a", "zzz", "a"]),
        results(&["a"]),
    ));
    let mut request = MessagesRequest::from_json(&json).unwrap();
    let before: Vec<Value> = request
        .messages()
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .collect();
    let repair = request.repair_tool_pairing();
    let removed: Vec<(usize, &str, RepairReason)> = repair
        .removed_blocks
        .iter()
        .map(|r| (r.message, r.id.as_str(), r.reason))
        .collect();
    assert_eq!(
        removed,
        [
            (1, "b", RepairReason::UnansweredCall),
            (2, "zzz", RepairReason::OrphanResult),
            (2, "a", RepairReason::DuplicateResult),
            (3, "a", RepairReason::DuplicateCall),
            (4, "a", RepairReason::OrphanResult),
        ]
    );
    // Message 4 had nothing else: it went.
    assert_eq!(repair.removed_messages, [4]);
    request.validate().unwrap();
    assert_eq!(request.messages().len(), 5);
    assert_eq!(
        serde_json::to_value(&request.messages()[0]).unwrap(),
        before[0]
    );
    assert_eq!(request.messages()[3].text(), "kept");
    assert_eq!(
        serde_json::to_value(&request.messages()[4]).unwrap(),
        before[5]
    );
    // A valid request is left as it is.
    let mut session = request_named_session();
    let copy = session.clone();
    assert!(session.repair_tool_pairing().is_empty());
    assert_eq!(session, copy);
}

fn request_named_session() -> MessagesRequest {
    request("session.json")
}

/// Trims `request` with `trimmer` and applies the result; `None` when the trimmer
/// says it cannot fit.
fn trim(request: &MessagesRequest, trimmer: &ChatTrimmer<CharEstimate>) -> Option<MessagesRequest> {
    let trimmed = trimmer.trim(request.messages()).ok()?;
    let mut keep = vec![false; request.messages().len()];
    for element in trimmed.elements() {
        keep[element.seq] = true;
    }
    let mut out = request.clone();
    out.retain_messages(&keep);
    Some(out)
}

#[test]
fn trimming_the_session_keeps_calls_with_results_and_every_kept_field() {
    let session = request("session.json");
    let originals: Vec<String> = session
        .messages()
        .iter()
        .map(|m| serde_json::to_string(m).unwrap())
        .collect();
    let whole = ChatFormat::anthropic().count_messages(&CharEstimate, session.messages());
    let mut sizes = Vec::new();
    let mut budget = 64;
    while budget < whole * 2 {
        let trimmer = ChatTrimmer::new(CharEstimate, budget)
            .with_format(session.chat_format())
            .with_start_on([Role::User]);
        if let Some(trimmed) = trim(&session, &trimmer) {
            let kept = trimmed.messages();
            sizes.push(kept.len());
            if !kept.is_empty() {
                trimmed
                    .validate()
                    .unwrap_or_else(|e| panic!("budget {budget}: {e}"));
                assert_eq!(kept[0].role, AnthropicRole::User);
            }
            // Every kept message is one of the originals, in order, unchanged.
            let mut from = 0;
            for message in kept {
                let json = serde_json::to_string(message).unwrap();
                let at = originals[from..].iter().position(|o| *o == json).unwrap();
                from += at + 1;
            }
            let reparsed = MessagesRequest::from_json(&trimmed.to_json()).unwrap();
            assert_eq!(reparsed, trimmed);
            assert!(
                ChatFormat::anthropic().count_messages(&CharEstimate, kept) <= budget,
                "budget {budget}"
            );
        }
        budget = budget * 3 / 2;
    }
    assert!(
        sizes.len() > 5 && sizes.windows(2).all(|w| w[0] <= w[1]),
        "{sizes:?}"
    );
    assert_eq!(sizes.last(), Some(&session.messages().len()));
}

#[test]
fn in_a_tool_loop_the_question_is_kept_and_a_turn_that_cannot_fit_is_an_error() {
    // The latest user message only carries a tool result: the protected message is
    // the question before it, so trimming never leaves an empty request.
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
        {"role": "user", "content": "an old question"},
        {"role": "assistant", "content": "an old answer"},
        {"role": "user", "content": "read the file and tell me what it does"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.rs"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1",
             "content": "fn main() { println!(\"hello\"); } and many more words of a long file"}]}
    ]});
    let request = MessagesRequest::from_json(&body.to_string()).unwrap();
    let fitter = |limit| RequestFitter::new(words).with_max_input(limit);
    let whole = fitter(0).count(&request).tokens;
    // Room for the question and its round, not the old exchange.
    let fitted = fitter(whole - 4).fit(request.clone()).unwrap();
    assert_eq!(fitted.request.messages().len(), 3);
    assert_eq!(
        fitted.request.messages()[0].content(),
        "read the file and tell me what it does"
    );
    // Room for less than the question and the round: an error with numbers, never a
    // request with no message.
    let question_alone = fitter(0).count(&{
        let mut only = request.clone();
        only.retain_messages(&[false, false, true, false, false]);
        only
    });
    match fitter(question_alone.tokens - 1).fit(request) {
        Err(RequestError::DoesNotFit {
            needed,
            limit,
            over,
        }) => {
            assert!(needed > limit);
            assert_eq!(over, needed - limit);
        }
        other => panic!("{other:?}"),
    }
}

/// Three rounds as LangChain's Anthropic serializer writes them: each tool result
/// and the next question in one user message. `thinking` is the block that starts
/// the loop after query 2, if any.
fn joined_session(thinking: Option<Value>) -> MessagesRequest {
    let mut call_b: Vec<Value> = thinking.into_iter().collect();
    call_b.push(json!({"type": "tool_use", "id": "toolu_b", "name": "search", "input": {"q": "second topic"}}));
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
        {"role": "user", "content": "query 1: look up the first topic for me please"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_a", "name": "search", "input": {"q": "first topic"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "result A with a few words"},
            {"type": "text", "text": "query 2: and now the second topic"}]},
        {"role": "assistant", "content": call_b},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "result B with a few more words in it"}]}
    ]});
    MessagesRequest::from_json(&body.to_string()).unwrap()
}

/// The text of every message kept, for assertions that read.
fn texts(request: &MessagesRequest) -> Vec<String> {
    request
        .messages()
        .iter()
        .map(|m| {
            m.blocks()
                .iter()
                .map(|b| match b {
                    ContentBlock::Text(t) => t.text.clone(),
                    ContentBlock::ToolUse(c) => format!("call {}", c.id),
                    ContentBlock::ToolResult(r) => format!("result {}", r.tool_use_id),
                    other => other.kind().to_owned(),
                })
                .chain((m.blocks().is_empty()).then(|| m.content().to_owned()))
                .collect::<Vec<_>>()
                .join(" + ")
        })
        .collect()
}

#[test]
fn a_question_after_tool_results_in_one_message_is_the_latest_user_message() {
    let request = joined_session(None);
    let message = &request.messages()[2];
    assert!(message.carries_user_content() && message.tool_result_ids().count() == 1);
    assert!(!request.messages()[4].carries_user_content());
    let fitter = |limit| RequestFitter::new(words).with_max_input(limit);
    let whole = fitter(0).count(&request).tokens;
    // One token under the whole request: query 2 stays with call A (its results
    // answer it) and with query 1 (Anthropic's requests start on a user message);
    // the unfinished round of call B goes.
    let fitted = fitter(whole - 1).fit(request.clone()).unwrap();
    assert_eq!(
        texts(&fitted.request),
        [
            "query 1: look up the first topic for me please",
            "call toolu_a",
            "result toolu_a + query 2: and now the second topic"
        ]
    );
    fitted.request.validate().unwrap();
    assert!(fitted.report.tokens_after < whole);
    // Under what those three need: an error, never a body without query 2.
    let needed = fitter(0).count(&fitted.request).tokens;
    match fitter(needed - 1).fit(request) {
        Err(RequestError::DoesNotFit {
            needed: said,
            limit,
            over,
        }) => {
            assert_eq!((said, limit, over), (needed, needed - 1, 1));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_trimmer_keeps_a_question_that_follows_tool_results_and_starts_on_a_user_message() {
    let request = joined_session(None);
    let format = request.chat_format();
    let whole = format.count_messages(&CharEstimate, request.messages());
    for budget in (0..=whole).rev() {
        let trimmer = ChatTrimmer::new(CharEstimate, budget)
            .with_format(format)
            .with_start_on([Role::User]);
        let Ok(trimmed) = trimmer.trim(request.messages()) else {
            break;
        };
        let kept: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
        assert!(kept.starts_with(&[0, 1, 2]), "budget {budget}: {kept:?}");
    }
}

#[test]
fn a_tool_loop_that_starts_with_thinking_stays_whole_or_does_not_fit() {
    let thinking = json!({"type": "thinking", "thinking": "Search the second topic, then compare.", "signature": "c2ln"});
    let request = joined_session(Some(thinking));
    let fitter = |limit| RequestFitter::new(words).with_max_input(limit);
    let whole = fitter(0).count(&request).tokens;
    fitter(whole).fit(request.clone()).unwrap();
    // Without the thinking, the round of call B could go (see above); with it, the
    // loop stays with query 2 whatever the limit, so one token short is an error
    // that says why and needs the whole request.
    for limit in [whole - 1, whole / 2, 0] {
        match fitter(limit).fit(request.clone()) {
            Err(
                err @ RequestError::ToolLoopDoesNotFit {
                    needed,
                    limit: said,
                    over,
                },
            ) => {
                assert_eq!((needed, said, over), (whole, limit, whole - limit));
                assert!(
                    err.to_string()
                        .contains("tool loop whole with its thinking"),
                    "{err}"
                );
            }
            other => panic!("limit {limit}: {other:?}"),
        }
    }
}

#[test]
fn the_trimmer_keeps_a_tool_loop_with_its_first_step_or_drops_it_whole() {
    // The loop after the question: its first step carries the thinking, its later
    // steps do not (no interleaved thinking).
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": [
        {"role": "user", "content": "read both files and compare them"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "First a.rs, then b.rs, then compare the two of them.", "signature": "c2ln"},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.rs"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn a() {}"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "b.rs"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "fn b() {}"}]}
    ]});
    let request = MessagesRequest::from_json(&body.to_string()).unwrap();
    request.validate().unwrap();
    let format = request.chat_format();
    let whole = format.count_messages(&CharEstimate, request.messages());
    let mut shapes = std::collections::BTreeSet::new();
    for budget in 0..=whole {
        let trimmer = ChatTrimmer::new(CharEstimate, budget)
            .with_format(format)
            .with_start_on([Role::User]);
        let Ok(trimmed) = trimmer.trim(request.messages()) else {
            continue;
        };
        let keep: Vec<bool> = (0..5)
            .map(|i| trimmed.elements().iter().any(|e| e.seq == i))
            .collect();
        let mut kept = request.clone();
        kept.retain_messages(&keep);
        kept.validate()
            .unwrap_or_else(|e| panic!("budget {budget}: {keep:?}: {e}"));
        shapes.insert(keep);
    }
    assert_eq!(
        shapes.into_iter().collect::<Vec<_>>(),
        [vec![true, false, false, false, false], vec![true; 5]]
    );
}

#[test]
fn with_thinking_enabled_a_tool_loop_without_its_thinking_is_refused() {
    let body = |thinking: Value, first_step: Value| {
        json!({"model": "claude-sonnet-4-5", "max_tokens": 4096, "thinking": thinking, "messages": [
            {"role": "user", "content": "an old question"},
            {"role": "assistant", "content": "an old answer, without thinking"},
            {"role": "user", "content": "read the file"},
            {"role": "assistant", "content": first_step},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn a() {}"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "read", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "fn b() {}"}]}
        ]})
    };
    let call = json!({"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}});
    let enabled = json!({"type": "enabled", "budget_tokens": 2048});
    let check = |body: Value| {
        MessagesRequest::from_json(&body.to_string())
            .unwrap()
            .validate()
    };
    let err = check(body(enabled.clone(), json!([call.clone()]))).unwrap_err();
    assert!(
        matches!(err, RequestError::InvalidMessage { message: 3, .. }),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("must start with a `thinking` block"),
        "{message}"
    );
    assert!(
        message.len() < 200,
        "{} characters: {message}",
        message.len()
    );
    // With its thinking (or redacted thinking) first, it is what Anthropic takes.
    for first in [
        json!({"type": "thinking", "thinking": "read it", "signature": "c2ln"}),
        json!({"type": "redacted_thinking", "data": "ZW5j"}),
    ] {
        check(body(enabled.clone(), json!([first, call.clone()]))).unwrap();
    }
    // Thinking off, or adaptive (the model may skip thinking): no such rule.
    for thinking in [json!({"type": "disabled"}), json!({"type": "adaptive"})] {
        check(body(thinking, json!([call.clone()]))).unwrap();
    }
}

#[test]
fn the_frame_follows_the_tokenizer_generation() {
    let count = |model: &str| {
        let body = format!(
            r#"{{"model": "{model}", "max_tokens": 10, "messages": [{{"role": "user", "content": "Hello there"}}]}}"#
        );
        let request = MessagesRequest::from_json(&body).expect("parses");
        ctxbudget::request::RequestFitter::new(|t: &str| t.split_whitespace().count())
            .count(&request)
            .tokens
    };
    // One user message: its text (2 words) and the frame count_tokens adds: 7 on
    // Claude 3 to 4.6, 11 on Opus 4.7, 6 after it.
    assert_eq!(count("claude-opus-4-6"), 2 + 7);
    assert_eq!(count("claude-opus-4-7"), 2 + 11);
    assert_eq!(count("claude-opus-4-8"), 2 + 6);
    assert_eq!(count("my-proxy-model"), 2 + 7);
}
