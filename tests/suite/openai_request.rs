//! OpenAI Chat Completions request bodies: lossless round trips on every fixture,
//! counts against the OpenAI cookbook's published totals, trimming that keeps tool
//! calls with their results, validation, and property tests.

use std::collections::{HashMap, HashSet};

use ctxbudget::chat::{ChatMessage, Role};
use ctxbudget::request::image::{ImageSize, OpenAiDetail, openai_image_tokens};
use ctxbudget::request::openai::{ChatRequest, MessageRole, RawJson, RequestMessage, ToolFormula};
use ctxbudget::request::{Assumption, RequestError, WireRequest};
use ctxbudget::{CharEstimate, ChatTrimmer, Tiktoken, TokenCounter};
use proptest::prelude::*;

use crate::request_fit::check_fit;
use serde_json::{Value, json};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/requests/openai"
);

fn fixture(name: &str) -> String {
    let path = format!("{DIR}/{name}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fixtures() -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| {
            std::path::Path::new(name)
                .extension()
                .is_some_and(|ext| ext == "json")
        })
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    names.into_iter().map(|n| (fixture(&n), n)).collect()
}

fn value(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn request(json: &str) -> ChatRequest {
    ChatRequest::from_json(json).unwrap()
}

#[test]
fn every_fixture_round_trips_to_an_equal_value() {
    for (json, name) in fixtures() {
        let parsed = request(&json);
        assert_eq!(value(&parsed.to_json()), value(&json), "{name}");
        assert_eq!(value(&parsed.to_json_pretty()), value(&json), "{name}");
        assert_eq!(
            ChatRequest::from_slice(json.as_bytes()).unwrap(),
            parsed,
            "{name}"
        );
        // And again: the output parses to the same request.
        assert_eq!(request(&parsed.to_json()), parsed, "{name}");
    }
}

#[test]
fn every_fixture_is_valid() {
    for (json, name) in fixtures() {
        if let Err(err) = request(&json).validate() {
            panic!("{name}: {err}");
        }
    }
}

#[test]
fn unknown_fields_parts_and_roles_are_kept() {
    let r = request(&fixture("unknown_fields.json"));
    assert!(r.extra.contains_key("x_gateway") && r.extra.contains_key("stream_options"));
    assert_eq!(
        r.extra.get("seed").map(RawJson::get),
        Some("18446744073709551615")
    );
    assert_eq!(r.messages[2].role, MessageRole::Other("ipython".into()));
    assert_eq!(ChatMessage::role(&r.messages[2]), Role::Assistant);
    let parts = r.messages[1].content.as_ref().unwrap().parts();
    let kinds: Vec<Option<&str>> = parts.iter().map(|p| p.kind()).collect();
    assert_eq!(
        kinds,
        [
            Some("text"),
            Some("text"),
            Some("input_video"),
            None,
            Some("image_url")
        ]
    );
    assert_eq!(parts[1].as_text(), Some("type comes last"));
}

#[test]
fn messages_match_the_cookbook_counts() {
    // "How to count tokens with tiktoken", section 6: 129 prompt tokens for
    // gpt-3.5-turbo and gpt-4 (cl100k_base), 124 for gpt-4o and gpt-4o-mini.
    let r = request(&fixture("cookbook_messages.json"));
    assert_eq!(r.message_tokens(&Tiktoken::cl100k_base()), 129);
    assert_eq!(r.message_tokens(&Tiktoken::o200k_base()), 124);
    assert_eq!(r.fixed_cost(&Tiktoken::o200k_base()).tokens, 0);
}

#[test]
fn tools_match_the_cookbook_totals() {
    // Section 7: 105 prompt tokens for gpt-3.5-turbo and gpt-4, 101 for gpt-4o and
    // gpt-4o-mini, counted by the API.
    let mut r = request(&fixture("cookbook_tools.json"));
    for (model, counter, total) in [
        ("gpt-4o", Tiktoken::o200k_base(), 101),
        ("gpt-4o-mini", Tiktoken::o200k_base(), 101),
        ("gpt-4", Tiktoken::cl100k_base(), 105),
        ("gpt-3.5-turbo", Tiktoken::cl100k_base(), 105),
    ] {
        r.model = Some(model.into());
        let cost = r.count(&counter);
        assert_eq!(cost.tokens, total, "{model}");
        assert!(
            cost.assumptions.is_empty(),
            "{model}: {:?}",
            cost.assumptions
        );
    }
    // The same tools as legacy `functions` cost the same.
    let mut legacy = value(&fixture("cookbook_tools.json"));
    let function = legacy["tools"][0]["function"].clone();
    legacy.as_object_mut().unwrap().remove("tools");
    legacy["functions"] = json!([function]);
    let legacy = request(&legacy.to_string());
    assert_eq!(legacy.count(&Tiktoken::o200k_base()).tokens, 101);
    // A model the cookbook did not check is counted with the gpt-4o figures, and
    // the count says so.
    r.model = Some("gpt-4.1".into());
    let cost = r.count(&Tiktoken::o200k_base());
    assert_eq!(cost.tokens, 101);
    assert_eq!(cost.assumptions.len(), 1);
    assert!(cost.assumptions[0].to_string().contains("gpt-4o"));
    assert_eq!(ToolFormula::for_model("gpt-4.1"), ToolFormula::gpt_4o());
}

#[test]
fn images_cost_their_tiles() {
    let r = request(&fixture("image.json"));
    let counter = Tiktoken::o200k_base();
    let question = "What does this chart show, and what is the logo next to it?";
    // The PNG is 742 × 466 (2 × 1 tiles, detail unset: counted as high), the JPEG
    // 16 × 16 (1 tile at high, 85 at low).
    let png = openai_image_tokens(ImageSize::new(742, 466), OpenAiDetail::Auto);
    assert_eq!(png, 85 + 2 * 170);
    let expected = counter.count(question) + png + (85 + 170) + 85;
    assert_eq!(r.messages[1].content_tokens(&counter), expected);
    assert!(r.message_assumptions().is_empty());
    let format = r.chat_format();
    assert_eq!(
        r.message_tokens(&counter),
        3 + format.message_tokens(&counter, &r.messages[0])
            + format.message_tokens(&counter, &r.messages[1])
    );
}

#[test]
fn audio_files_and_remote_images_are_reported() {
    let r = request(&fixture("parts.json"));
    let assumptions = r.message_assumptions();
    let what: Vec<String> = assumptions.iter().map(ToString::to_string).collect();
    // gpt-4o-audio-preview is not in the catalogue: its images are counted by
    // gpt-4o's rule, and the report says so.
    assert_eq!(assumptions.len(), 6, "{what:#?}");
    assert!(assumptions.iter().all(|a| match a {
        Assumption::RemoteImage { message, .. } => *message == 1,
        Assumption::UnpublishedRule { message, .. } => *message == Some(1),
        _ => false,
    }));
    assert!(what[0].contains("input_audio") && what[1].contains("text file"));
    assert!(what[2].contains("PDF") && what[3].contains("by id"));
    assert!(what[4].contains("remote URL"));
    assert!(what[5].contains("gpt-4o's 512-px tiles"));
    let words = |t: &str| t.split_whitespace().count();
    let text = words("Transcribe the clip, then compare the two files.");
    // 0.5 s of audio: 5 tokens; the text file: 7 words; the PDF: 2 pages; the file
    // by id: one page; the remote image: the most an image costs.
    let expected = text
        + 5
        + 7
        + 2 * ctxbudget::request::openai::PDF_PAGE_TOKENS
        + ctxbudget::request::openai::PDF_PAGE_TOKENS
        + ctxbudget::request::image::OPENAI_MAX_IMAGE_TOKENS;
    assert_eq!(r.messages[1].content_tokens(&words), expected);
}

/// `keep[seq]` for the kept elements of a trim.
fn kept_mask<M>(trimmed: &ctxbudget::chat::TrimmedChat<'_, M>, len: usize) -> Vec<bool> {
    let mut keep = vec![false; len];
    for element in trimmed.elements() {
        keep[element.seq] = true;
    }
    keep
}

/// Trims `r` to `budget`, retains what was kept, and checks the result: it parses
/// back, validates, costs what the trim said, and every kept message is unchanged.
fn trim_and_check(
    r: &ChatRequest,
    counter: &dyn TokenCounter,
    budget: usize,
) -> Option<ChatRequest> {
    let trimmed = ChatTrimmer::new(counter, budget)
        .with_format(r.chat_format())
        .trim(r.messages())
        .ok()?;
    let keep = kept_mask(&trimmed, r.messages.len());
    let mut out = r.clone();
    out.retain_messages(&keep);
    let reparsed = ChatRequest::from_json(&out.to_json()).expect("the trimmed request parses");
    assert_eq!(reparsed, out);
    assert_eq!(
        value(&out.to_json())["messages"].as_array().unwrap().len(),
        trimmed.elements().len()
    );
    // A trim may keep no message, a request OpenAI refuses.
    if out.messages.is_empty() {
        assert!(out.validate().is_err());
    } else {
        out.validate().expect("the trimmed request is valid");
    }
    assert!(trimmed.tokens() <= budget);
    assert_eq!(out.message_tokens(counter), trimmed.tokens());
    // Every field of every kept message, and of the body, as it was.
    let kept_seqs: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
    for (message, &seq) in out.messages.iter().zip(&kept_seqs) {
        assert_eq!(
            serde_json::to_value(message).unwrap(),
            serde_json::to_value(&r.messages[seq]).unwrap()
        );
    }
    let mut before = value(&r.to_json());
    let mut after = value(&out.to_json());
    before.as_object_mut().unwrap().remove("messages");
    after.as_object_mut().unwrap().remove("messages");
    assert_eq!(before, after);
    Some(out)
}

#[test]
fn trimming_the_coding_session_keeps_calls_with_their_results() {
    let r = request(&fixture("coding_session.json"));
    assert!(r.messages.len() >= 100);
    let counter = Tiktoken::o200k_base();
    let total = r.message_tokens(&counter);
    let mut kept_counts = Vec::new();
    for budget in [
        total,
        total * 3 / 4,
        total / 2,
        total / 4,
        total / 10,
        2_000,
    ] {
        let out = trim_and_check(&r, &counter, budget)
            .expect("system, developer and the last question fit");
        // System and developer messages and the last user message stay.
        assert_eq!(out.messages[0].role, MessageRole::System);
        assert_eq!(out.messages[1].role, MessageRole::Developer);
        assert_eq!(out.messages.last(), r.messages.last());
        // Each kept call has all its results right after it.
        for (i, m) in out.messages.iter().enumerate() {
            let ids: HashSet<&str> = m.call_ids().collect();
            if ids.is_empty() {
                continue;
            }
            let results: HashSet<&str> = out.messages[i + 1..]
                .iter()
                .take_while(|m| m.role == MessageRole::Tool)
                .filter_map(|m| m.tool_call_id.as_deref())
                .collect();
            assert_eq!(ids, results);
        }
        kept_counts.push(out.messages.len());
    }
    assert_eq!(kept_counts[0], r.messages.len());
    assert!(
        kept_counts.windows(2).all(|w| w[0] >= w[1]),
        "{kept_counts:?}"
    );
    // Exactly what must stay: the system and developer messages and the question.
    let format = r.chat_format();
    let must = 3 + [&r.messages[0], &r.messages[1], r.messages.last().unwrap()]
        .iter()
        .map(|m| format.message_tokens(&counter, *m))
        .sum::<usize>();
    assert_eq!(
        trim_and_check(&r, &counter, must).unwrap().messages.len(),
        3
    );
    assert!(trim_and_check(&r, &counter, must - 1).is_none());
}

#[test]
fn legacy_function_calls_are_trimmed_with_their_results() {
    let r = request(&fixture("legacy_functions.json"));
    let counter = Tiktoken::cl100k_base();
    let total = r.message_tokens(&counter);
    let mut seen = HashSet::new();
    for budget in 0..=total {
        if let Some(out) = trim_and_check(&r, &counter, budget) {
            let roles: Vec<&str> = out.messages.iter().map(|m| m.role.as_str()).collect();
            seen.insert(roles.join(","));
        }
    }
    assert!(seen.contains("system,assistant,user"), "{seen:?}");
    assert!(
        seen.contains("system,user,assistant,function,assistant,user"),
        "{seen:?}"
    );
    assert!(
        !seen
            .iter()
            .any(|s| s.contains("user,function") || s.contains("system,function"))
    );
}

#[test]
fn the_trimmer_reports_the_kept_parallel_calls_as_one_unit() {
    let r = request(&fixture("roles.json"));
    let counter = Tiktoken::o200k_base();
    let mut seen = HashSet::new();
    for budget in 0..=r.message_tokens(&counter) {
        if let Some(out) = trim_and_check(&r, &counter, budget) {
            let calls = out
                .messages
                .iter()
                .filter(|m| m.tool_calls.is_some())
                .count();
            let results = out
                .messages
                .iter()
                .filter(|m| m.role == MessageRole::Tool)
                .count();
            seen.insert((calls, results));
        }
    }
    // Both units, the custom call's alone, or neither; never a part of the three
    // parallel weather and fare calls.
    assert_eq!(seen, HashSet::from([(0, 0), (1, 1), (2, 4)]));
}

#[test]
fn broken_requests_are_errors_with_the_message_index() {
    let mut body = value(&fixture("roles.json"));
    body["messages"].as_array_mut().unwrap().remove(6);
    let err = request(&body.to_string()).validate().unwrap_err();
    assert!(
        matches!(err, RequestError::UnansweredToolCall { message: 5, ref id } if id == "call_weather_rome"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("add the result or remove the call")
    );

    let mut body = value(&fixture("roles.json"));
    body["messages"][8]["tool_call_id"] = json!("call_nobody_made");
    let err = request(&body.to_string()).validate().unwrap_err();
    assert!(
        matches!(err, RequestError::OrphanToolResult { message: 8, .. }),
        "{err}"
    );

    let mut body = value(&fixture("roles.json"));
    body["messages"][10]["tool_calls"][0]["id"] = json!("call_fare");
    body["messages"][11]["tool_call_id"] = json!("call_fare");
    let err = request(&body.to_string()).validate().unwrap_err();
    assert!(
        matches!(
            err,
            RequestError::DuplicateCallId {
                first: 5,
                second: 10,
                ..
            }
        ),
        "{err}"
    );

    let mut body = value(&fixture("image.json"));
    body["messages"][0]["content"] = body["messages"][1]["content"].clone();
    let err = request(&body.to_string()).validate().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("message 0: a `system` message takes only text parts"),
        "{err}"
    );
}

#[test]
fn validate_refuses_no_messages_and_two_results_for_one_call() {
    let err = request(r#"{"model": "gpt-4o", "messages": []}"#)
        .validate()
        .unwrap_err();
    assert!(
        matches!(err, RequestError::InvalidField { ref field, .. } if field == "messages"),
        "{err}"
    );
    assert!(err.to_string().contains("is empty"), "{err}");

    // The result of `call_weather_rome` (message 6) given a second time.
    let mut body = value(&fixture("roles.json"));
    let messages = body["messages"].as_array_mut().unwrap();
    assert_eq!(messages[6]["tool_call_id"], "call_weather_rome");
    let again = messages[6].clone();
    messages.insert(8, again);
    let err = request(&body.to_string()).validate().unwrap_err();
    assert!(
        matches!(err, RequestError::InvalidMessage { message: 8, .. }),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("a second `tool` message answers `call_weather_rome`"),
        "{err}"
    );
}

#[test]
fn malformed_json_says_where_and_what_was_expected() {
    let json = fixture("roles.json").replacen(
        "\"tool_call_id\": \"call_weather_rome\"",
        "\"tool_call_id\": 7",
        1,
    );
    let line = json
        .lines()
        .position(|l| l.contains("\"tool_call_id\": 7"))
        .unwrap()
        + 1;
    let err = ChatRequest::from_json(&json).unwrap_err();
    let RequestError::Json {
        source, expected, ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(source.line(), line);
    assert!(expected.contains("`messages` array"));
    assert!(err.to_string().contains(&format!("line {line}")), "{err}");
    assert!(err.to_string().contains("expected a string"), "{err}");
}

// ---------------------------------------------------------------- property tests

/// One step of a generated conversation.
#[derive(Debug, Clone)]
enum Turn {
    User(Vec<Part>, bool),
    Assistant(String, bool),
    /// Parallel calls: their number and the order their results come in.
    Calls(usize, Vec<usize>, bool),
    Legacy(String),
    Unknown(String),
}

#[derive(Debug, Clone)]
enum Part {
    Text(String),
    RemoteImage,
    DataImage(bool),
    Audio,
    File,
    Unknown(String),
}

fn text() -> impl Strategy<Value = String> {
    "[a-z]{1,8}( [a-z]{1,8}){0,12}"
}

fn extra() -> impl Strategy<Value = Option<(String, Value)>> {
    prop::option::of((
        "x_[a-z]{1,5}",
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[ -~]{0,10}".prop_map(Value::from),
            prop::collection::vec(any::<u8>(), 0..4).prop_map(|v| json!(v)),
        ],
    ))
}

fn part() -> impl Strategy<Value = Part> {
    prop_oneof![
        4 => text().prop_map(Part::Text),
        1 => Just(Part::RemoteImage),
        1 => any::<bool>().prop_map(Part::DataImage),
        1 => Just(Part::Audio),
        1 => Just(Part::File),
        1 => "[a-z_]{1,10}".prop_map(Part::Unknown),
    ]
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        3 => (prop::collection::vec(part(), 0..4), any::<bool>()).prop_map(|(p, s)| Turn::User(p, s)),
        2 => (text(), any::<bool>()).prop_map(|(t, r)| Turn::Assistant(t, r)),
        3 => (1usize..5).prop_flat_map(|n| (Just(n), Just((0..n).collect::<Vec<_>>()).prop_shuffle(), any::<bool>()))
            .prop_map(|(n, order, text)| Turn::Calls(n, order, text)),
        1 => "[a-z_]{1,8}".prop_map(Turn::Legacy),
        1 => text().prop_map(Turn::Unknown),
    ]
}

/// A 1 × 1 PNG.
const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn body(
    system: bool,
    developer: bool,
    turns: &[Turn],
    extras: &[Option<(String, Value)>],
) -> Value {
    let mut messages = Vec::new();
    let mut extras = extras.iter().cycle();
    let mut with_extra = |mut m: Value| {
        if let Some(Some((k, v))) = extras.next() {
            m[k] = v.clone();
        }
        m
    };
    if system {
        messages.push(with_extra(json!({"role": "system", "content": "be brief"})));
    }
    if developer {
        messages.push(with_extra(
            json!({"role": "developer", "content": [{"type": "text", "text": "use tools"}]}),
        ));
    }
    let mut next_id = 0usize;
    for turn in turns {
        match turn {
            Turn::User(parts, string) => {
                let content = if *string || parts.is_empty() {
                    json!("question")
                } else {
                    Value::Array(parts.iter().map(|p| match p {
                        Part::Text(t) => json!({"type": "text", "text": t}),
                        Part::RemoteImage => json!({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}),
                        Part::DataImage(low) => json!({"type": "image_url", "image_url": {"url": PNG, "detail": if *low { "low" } else { "high" }}}),
                        Part::Audio => json!({"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}),
                        Part::File => json!({"type": "file", "file": {"file_id": "file-1"}}),
                        Part::Unknown(kind) => json!({"type": kind, "payload": [1, 2]}),
                    }).collect())
                };
                messages.push(with_extra(json!({"role": "user", "content": content})));
            }
            Turn::Assistant(t, refusal_null) => {
                let mut m = json!({"role": "assistant", "content": t});
                if *refusal_null {
                    m["refusal"] = Value::Null;
                }
                messages.push(with_extra(m));
            }
            Turn::Calls(n, order, with_text) => {
                let ids: Vec<String> = (0..*n).map(|i| format!("call_{}", next_id + i)).collect();
                next_id += n;
                let calls: Vec<Value> = ids
                    .iter()
                    .map(|id| {
                        json!({"id": id, "type": "function",
                    "function": {"name": "read", "arguments": format!("{{\"path\":\"{id}\"}}")}})
                    })
                    .collect();
                let content = if *with_text {
                    json!("let me look")
                } else {
                    Value::Null
                };
                messages.push(with_extra(
                    json!({"role": "assistant", "content": content, "tool_calls": calls}),
                ));
                for &i in order {
                    messages.push(with_extra(json!({"role": "tool", "tool_call_id": ids[i], "content": format!("contents of {}", ids[i])})));
                }
            }
            Turn::Legacy(name) => {
                messages.push(with_extra(json!({"role": "assistant", "content": null,
                    "function_call": {"name": name, "arguments": "{}"}})));
                messages.push(with_extra(
                    json!({"role": "function", "name": name, "content": "done"}),
                ));
            }
            Turn::Unknown(t) => messages.push(with_extra(json!({"role": "ipython", "content": t}))),
        }
    }
    // OpenAI takes no request without messages.
    if messages.is_empty() {
        messages.push(json!({"role": "user", "content": "question"}));
    }
    json!({"model": "gpt-4o", "messages": messages, "temperature": 0.5, "x_top": {"k": [true, null]}})
}

fn requests() -> impl Strategy<Value = (Value, usize)> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(turn(), 0..12),
        prop::collection::vec(extra(), 1..6),
        0usize..400,
    )
        .prop_map(|(system, developer, turns, extras, budget)| {
            (body(system, developer, &turns, &extras), budget)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_requests_round_trip_and_validate((body, _) in requests()) {
        let r = ChatRequest::from_json(&body.to_string()).unwrap();
        prop_assert_eq!(value(&r.to_json()), body);
        prop_assert!(r.validate().is_ok(), "{:?}", r.validate());
    }

    #[test]
    fn trimmed_requests_parse_round_trip_validate_and_keep_every_field((body, budget) in requests()) {
        let r = ChatRequest::from_json(&body.to_string()).unwrap();
        let words = |t: &str| t.split_whitespace().count();
        if let Some(out) = trim_and_check(&r, &words, budget) {
            // What was dropped went as whole units: no id is left half-kept.
            let calls: HashMap<&str, usize> = out.messages.iter().enumerate()
                .flat_map(|(i, m)| m.call_ids().map(move |id| (id, i))).collect();
            for m in out.messages.iter().filter(|m| m.role == MessageRole::Tool) {
                prop_assert!(calls.contains_key(m.tool_call_id.as_deref().unwrap()));
            }
        }
        // CharEstimate too, whose counts differ.
        let _ = trim_and_check(&r, &CharEstimate, budget * 4);
    }

    #[test]
    fn fitting_keeps_the_limit_and_every_kept_message((body, budget) in requests()) {
        let r = ChatRequest::from_json(&body.to_string()).unwrap();
        check_fit(&r, |t: &str| t.split_whitespace().count(), budget);
        check_fit(&r, CharEstimate, budget * 4);
    }
}

#[test]
fn generated_messages_build_from_the_typed_api() {
    // The constructors write the same shapes the wire format has.
    let r = ChatRequest::new(
        "gpt-4o",
        vec![
            RequestMessage::developer("rules"),
            RequestMessage::user("q"),
            RequestMessage::assistant_calls(vec![ctxbudget::request::openai::ToolCall::function(
                "c", "f", "{}",
            )]),
            RequestMessage::tool("c", "r"),
        ],
    );
    r.validate().unwrap();
    assert_eq!(
        value(&r.to_json()),
        json!({"model": "gpt-4o", "messages": [
            {"role": "developer", "content": "rules"},
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "content": "r", "tool_call_id": "c"}
        ]})
    );
}
