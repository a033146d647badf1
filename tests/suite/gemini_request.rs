//! Gemini generateContent bodies: the shipped 159-content agent session reads and
//! writes back whole, counts as its parts say, checks, fits (with and without the
//! context edits) and keeps every thought signature where it was; malformed and
//! invalid bodies say where and what to fix.

use ctxbudget::CharEstimate;
use ctxbudget::chat::edit::{EditableMessage, Edits};
use ctxbudget::chat::{ChatMessage, Role};
use ctxbudget::request::gemini::{
    AS_JSON, CACHED_CONTENT, GeminiContent, GeminiRequest, IMAGES, MEDIA, THOUGHTS, TOKENIZER,
    TOOLS, chat_format,
};
use ctxbudget::request::{Assumption, RequestError, RequestFitter, RequestFormat, WireRequest};
use serde_json::{Value, json};

use crate::request_fit::check_fit;

const SESSION: &str = include_str!("../fixtures/gemini/agent_session.json");

fn session() -> GeminiRequest {
    GeminiRequest::from_json(SESSION).expect("the fixture parses")
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn value(json: &str) -> Value {
    serde_json::from_str(json).expect("JSON")
}

/// What each assumption says, without where.
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
fn the_session_round_trips_and_validates() {
    let request = session();
    assert_eq!(request.contents().len(), 159);
    assert_eq!(value(&request.to_json()), value(SESSION));
    assert_eq!(value(&request.to_json_pretty()), value(SESSION));
    // Every content is its input text, byte for byte.
    let input = value(SESSION);
    for (content, original) in request
        .contents()
        .iter()
        .zip(input["contents"].as_array().unwrap())
    {
        assert_eq!(value(content.raw().get()), *original);
    }
    request.validate().expect("the session is valid");
    assert_eq!(request.max_output_tokens(), Some(4096));
    assert_eq!(
        <GeminiRequest as WireRequest>::FORMAT,
        RequestFormat::GeminiGenerateContent
    );
    assert_eq!(
        ctxbudget::request::detect_format(SESSION).unwrap(),
        RequestFormat::GeminiGenerateContent
    );
}

#[test]
fn calls_pair_with_their_responses_by_id_or_by_name() {
    let request = session();
    let contents = request.contents();
    let mut calls = 0;
    for (index, content) in contents.iter().enumerate() {
        let ids: Vec<&str> = content.tool_calls().map(|c| c.id).collect();
        if ids.is_empty() {
            continue;
        }
        calls += ids.len();
        let next = &contents[index + 1];
        let mut answered: Vec<&str> = next.tool_result_ids().collect();
        let mut asked = ids.clone();
        answered.sort_unstable();
        asked.sort_unstable();
        assert_eq!(answered, asked, "content {index}");
        assert_eq!(next.role(), Role::User);
    }
    assert_eq!(calls, 2 * 60);
    // Calls with an `id` keep it; the others get a made-up one.
    let first = contents[1].tool_calls().next().unwrap();
    assert_eq!(
        (first.name, first.id.split('#').next()),
        ("read_file", Some("read_file"))
    );
    let named = contents[3].tool_calls().next().unwrap();
    assert_eq!(named.id, "call_0005");
}

#[test]
fn the_count_is_its_parts_with_every_assumption() {
    let request = session();
    let count = RequestFitter::new(words).count(&request);
    let cost = request.count(&words);
    assert_eq!(count.tokens, cost.tokens);
    let format = chat_format();
    assert_eq!(
        count.messages,
        format.count_messages(&words, request.messages())
    );
    assert_eq!(count.tokens, count.fixed + count.messages);
    assert_eq!(said(&count.assumptions), {
        let mut all = vec![TOKENIZER, TOOLS, THOUGHTS, MEDIA, AS_JSON, IMAGES];
        all.sort_unstable();
        all
    });
    // With the model known, images count by its rule and the report says less.
    let known = session().with_model("gemini-2.5-pro");
    let with_model = RequestFitter::new(words).count(&known);
    assert!(!said(&with_model.assumptions).contains(&IMAGES));
    assert!(
        with_model.tokens < count.tokens,
        "1x1 images are one tile, not 1,120"
    );
    // The system instruction and the tools are the fixed cost.
    let mut bare = value(SESSION);
    for key in ["systemInstruction", "tools", "toolConfig"] {
        bare.as_object_mut().unwrap().remove(key);
    }
    let bare = GeminiRequest::from_json(&bare.to_string()).unwrap();
    assert_eq!(RequestFitter::new(words).count(&bare).fixed, 0);
    assert!(count.fixed > 40, "{}", count.fixed);
}

#[test]
fn a_cached_content_is_reported_as_a_prefix_the_count_excludes() {
    let body = r#"{"cachedContent": "cachedContents/abc", "contents": [{"role": "user", "parts": [{"text": "And then?"}]}]}"#;
    let request = GeminiRequest::from_json(body).unwrap();
    request.validate().unwrap();
    let count = RequestFitter::new(words).count(&request);
    assert!(said(&count.assumptions).contains(&CACHED_CONTENT));
    assert!(CACHED_CONTENT.contains("cached prefix of unknown size comes first"));
    assert_eq!(
        request.cached_content().as_deref(),
        Some("cachedContents/abc")
    );
    let uncached = GeminiRequest::from_json(
        r#"{"contents": [{"role": "user", "parts": [{"text": "And then?"}]}]}"#,
    )
    .unwrap();
    assert_eq!(
        RequestFitter::new(words).count(&uncached).tokens,
        count.tokens
    );
    assert!(
        !said(&RequestFitter::new(words).count(&uncached).assumptions).contains(&CACHED_CONTENT)
    );
}

#[test]
fn snake_case_bodies_read_and_count_as_camel_case_ones() {
    let camel = r#"{"systemInstruction": {"parts": [{"text": "Be brief."}]},
      "contents": [
        {"role": "user", "parts": [{"text": "read it"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"p": "a"}}, "thoughtSignature": "c2ln"}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"output": "the text of a"}}}]}
      ],
      "generationConfig": {"maxOutputTokens": 99}}"#;
    let snake = camel
        .replace("systemInstruction", "system_instruction")
        .replace("functionCall", "function_call")
        .replace("functionResponse", "function_response")
        .replace("thoughtSignature", "thought_signature")
        .replace("generationConfig", "generation_config")
        .replace("maxOutputTokens", "max_output_tokens");
    let (camel, snake) = (
        GeminiRequest::from_json(camel).unwrap(),
        GeminiRequest::from_json(&snake).unwrap(),
    );
    snake.validate().unwrap();
    assert_eq!(snake.max_output_tokens(), Some(99));
    let fitter = RequestFitter::new(words);
    assert_eq!(fitter.count(&snake), fitter.count(&camel));
    assert!(snake.contents()[1].starts_with_thinking());
}

#[test]
fn the_session_fits_at_every_limit() {
    let request = session();
    let whole = RequestFitter::new(CharEstimate).count(&request).tokens;
    for limit in [whole, whole / 2, whole / 5, whole / 20, 600, 50] {
        check_fit(&request, CharEstimate, limit);
    }
    check_fit(
        &request.clone().with_model("gemini-3-pro-preview"),
        words,
        900,
    );
}

/// Regression: each content's result shares went into the fitter's one shared
/// list, which the content cut to its own length, so a fit saw no result to
/// clear and dropped whole turns instead.
#[test]
fn edits_keep_every_thought_signature_on_its_part() {
    let request = session();
    let whole = RequestFitter::new(words).count(&request).tokens;
    let fitted = RequestFitter::new(words)
        .with_max_input(whole / 3)
        .with_edits(Edits::default())
        .fit(request.clone())
        .unwrap();
    let report = fitted.report.edits.as_ref().expect("edits reported");
    assert!(report.edits.len() > 5, "{}", fitted.report);
    let signatures = |r: &GeminiRequest| {
        r.contents()
            .iter()
            .flat_map(|c| value(c.raw().get())["parts"].as_array().cloned().unwrap())
            .filter_map(|p| p.get("thoughtSignature").cloned())
            .count()
    };
    let kept: Vec<usize> = (0..request.contents().len())
        .filter(|i| !fitted.report.dropped.iter().any(|d| d.index == *i))
        .collect();
    let kept_signatures: usize = kept
        .iter()
        .map(|&i| {
            let parts = value(request.contents()[i].raw().get())["parts"].clone();
            parts
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p.get("thoughtSignature").is_some())
                .count()
        })
        .sum();
    assert_eq!(signatures(&fitted.request), kept_signatures);
    // Old thought parts went where they had no signature; a cleared response is
    // `{"output": placeholder}` with its name and id.
    let out = fitted.request.to_json();
    let placeholder = format!(
        r#""response":{{"output":"{}"}}"#,
        Edits::DEFAULT_PLACEHOLDER
    );
    assert!(out.contains(&placeholder), "{out}");
    fitted.request.validate().unwrap();
}

#[test]
fn a_cleared_response_keeps_its_name_id_and_error_flag() {
    let body = json!({"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "a", "id": "x", "args": {"q": "long long long"}}}, {"functionCall": {"name": "b", "args": {}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "a", "id": "x", "response": {"error": "it failed in a long way, with many words about it", "code": 7}}},
            {"functionResponse": {"name": "b", "response": {"rows": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}, "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}}
        ]},
        {"role": "model", "parts": [{"text": "done"}]},
        {"role": "user", "parts": [{"text": "next"}]}
    ]});
    let mut request = GeminiRequest::from_json(&body.to_string()).unwrap();
    request.validate().unwrap();
    let cleared = request.edit_messages(|contents| {
        let results = &mut contents[2];
        assert_eq!(results.tool_result_count(), 2);
        let first = results.tool_result(0).unwrap();
        assert_eq!(
            (first.call_id, first.texts.clone()),
            (
                "x",
                vec!["it failed in a long way, with many words about it"]
            )
        );
        assert_eq!(results.tool_result(1).unwrap().media, 1);
        let a = results.replace_tool_result(0, "[cleared]");
        let b = results.replace_tool_result(1, "[cleared]");
        let c = contents[1].clear_tool_input("x");
        a && b && c
    });
    assert!(cleared);
    let out = value(&request.to_json());
    assert_eq!(
        out["contents"][2]["parts"][0],
        json!({"functionResponse": {"name": "a", "id": "x", "response": {"error": "[cleared]"}}})
    );
    assert_eq!(
        out["contents"][2]["parts"][1],
        json!({"functionResponse": {"name": "b", "response": {"output": "[cleared]"}}})
    );
    assert_eq!(
        out["contents"][1]["parts"][0]["functionCall"]["args"],
        json!({})
    );
    request.validate().unwrap();
}

#[test]
fn invalid_bodies_say_where_and_what_to_fix() {
    let user = json!({"role": "user", "parts": [{"text": "go"}]});
    let call = json!({"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]});
    let answer = json!({"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a"}}}]});
    let cases = [
        (
            json!([user, answer]),
            "contents[1].parts[0]",
            "no call before it",
        ),
        (
            json!([user, call]),
            "contents[1]",
            "no functionResponse in the content right after it",
        ),
        (
            json!([user, call, user, answer]),
            "contents[1]",
            "no functionResponse",
        ),
        (
            json!([user, {"role": "model", "parts": [{"functionResponse": {"name": "ls", "response": {}}}]}]),
            "contents[1].parts[0]",
            "in a model content",
        ),
        (
            json!([{"role": "user", "parts": [{"functionCall": {"name": "ls"}}]}]),
            "contents[0].parts[0]",
            "in a user content",
        ),
        (
            json!([user, {"role": "model", "parts": [{"functionCall": {"name": "a", "id": "d"}}, {"functionCall": {"name": "b", "id": "d"}}]},
                   {"role": "user", "parts": [{"functionResponse": {"name": "a", "id": "d", "response": {}}}]}]),
            "contents[1].parts[1]",
            "repeats the call id `d`",
        ),
        (
            json!([{"role": "system", "parts": [{"text": "x"}]}]),
            "contents[0]",
            "role `system`",
        ),
        (json!([{"role": "user"}]), "contents[0]", "has no `parts`"),
        (
            json!([{"role": "user", "parts": [{"text": 5}]}]),
            "contents[0].parts[0]",
            "not a string",
        ),
        (json!([]), "contents", "is empty"),
    ];
    for (contents, field, problem) in cases {
        let body = json!({"contents": contents}).to_string();
        let request = GeminiRequest::from_json(&body).unwrap();
        match request.validate() {
            Err(RequestError::InvalidField {
                field: f,
                problem: p,
            }) => {
                assert_eq!(f, field, "{body}: {p}");
                assert!(p.contains(problem), "{body}: {p}");
                let message = RequestError::InvalidField {
                    field: f,
                    problem: p,
                }
                .to_string();
                assert!(message.len() < 200, "{message}");
            }
            other => panic!("{body}: {other:?}"),
        }
        // A fit refuses it too, rather than trimming it into another invalid body.
        assert!(
            RequestFitter::new(words)
                .with_max_input(1000)
                .fit(request)
                .is_err()
        );
    }
    let tools = r#"{"contents": [{"parts": [{"text": "x"}]}], "tools": [{"functionDeclarations": [{"description": "no name"}]}]}"#;
    let err = GeminiRequest::from_json(tools)
        .unwrap()
        .validate()
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("`tools[0].functionDeclarations[0]` has no string `name`"),
        "{err}"
    );
}

#[test]
fn malformed_json_gets_its_position_and_what_was_expected() {
    let err =
        GeminiRequest::from_json("{\"contents\": [\n  {\"role\": \"user\",\n  ]\n}").unwrap_err();
    let message = err.to_string();
    assert!(matches!(
        err,
        RequestError::Json {
            format: RequestFormat::GeminiGenerateContent,
            ..
        }
    ));
    assert!(message.contains("line 3"), "{message}");
    assert!(message.contains("an array of content objects"), "{message}");
    let err = GeminiRequest::from_json(
        r#"{"contents": [], "generationConfig": {"maxOutputTokens": -1}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("`maxOutputTokens` is `-1`, not a whole number of tokens"),
        "{err}"
    );
    assert!(err.contains("a plain unsigned integer"), "{err}");
    assert!(GeminiRequest::from_slice(b"\xef\xbb\xbf{\"contents\": []}").is_ok());
}

#[test]
fn a_summary_is_a_user_content_of_one_text_part() {
    let summary = GeminiContent::summary("earlier: x".to_owned());
    assert_eq!(
        value(summary.raw().get()),
        json!({"role": "user", "parts": [{"text": "earlier: x"}]})
    );
    assert_eq!(summary.role(), Role::User);
    assert!(summary.carries_user_content());
}

/// `fit_serde` takes a value that serializes to a Gemini or a Converse body too,
/// and gives back a value of its own type.
#[test]
fn fit_serde_takes_gemini_and_bedrock_values() {
    let gemini: Value = json!({"contents": [
        {"role": "user", "parts": [{"text": "An old question, far too long to keep in a small window."}]},
        {"role": "model", "parts": [{"text": "An old answer, just as long as the old question was."}]},
        {"role": "user", "parts": [{"text": "What is 2 + 2?"}]}
    ], "generationConfig": {"temperature": 0.1}});
    let fitted = RequestFitter::new(words)
        .with_max_input(30)
        .fit_serde(&gemini)
        .unwrap();
    assert_eq!(fitted.report.format, RequestFormat::GeminiGenerateContent);
    assert_eq!(fitted.request["contents"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        fitted.request["generationConfig"],
        gemini["generationConfig"]
    );
    let bedrock: Value = json!({"messages": [
        {"role": "user", "content": [{"text": "An old question, far too long to keep in a small window."}]},
        {"role": "assistant", "content": [{"text": "An old answer, just as long as the old question was."}]},
        {"role": "user", "content": [{"text": "What is 2 + 2?"}]}
    ], "inferenceConfig": {"maxTokens": 100}});
    let fitted = RequestFitter::new(words)
        .with_max_input(30)
        .fit_serde(&bedrock)
        .unwrap();
    assert_eq!(fitted.report.format, RequestFormat::BedrockConverse);
    assert_eq!(fitted.request["messages"].as_array().map(Vec::len), Some(1));
}

#[test]
fn images_cost_what_their_media_resolution_asks() {
    const PNG: &str =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAACAAFUok9dAAAAAElFTkSuQmCC";
    let media = |model: &str, part_level: &str, global: &str| {
        let part = if part_level.is_empty() {
            String::new()
        } else {
            format!(r#", "mediaResolution": {{"level": "{part_level}"}}"#)
        };
        let config = if global.is_empty() {
            String::new()
        } else {
            format!(r#", "generationConfig": {{"mediaResolution": "{global}"}}"#)
        };
        let body = format!(
            r#"{{"contents": [{{"role": "user", "parts": [{{"inlineData": {{"mimeType": "image/png", "data": "{PNG}"}}{part}}}]}}]{config}}}"#
        );
        let with = GeminiRequest::from_json(&body).unwrap().with_model(model);
        let without = GeminiRequest::from_json(r#"{"contents": [{"role": "user", "parts": []}]}"#)
            .unwrap()
            .with_model(model);
        let fitter = RequestFitter::new(words);
        fitter.count(&with).messages - fitter.count(&without).messages
    };
    // Gemini 3: high by default, the request's resolution, then the part's own.
    assert_eq!(media("gemini-3-pro-preview", "", ""), 1_120);
    assert_eq!(
        media("gemini-3-pro-preview", "", "MEDIA_RESOLUTION_LOW"),
        280
    );
    assert_eq!(
        media("gemini-3-pro-preview", "", "MEDIA_RESOLUTION_MEDIUM"),
        560
    );
    assert_eq!(
        media(
            "gemini-3-pro-preview",
            "MEDIA_RESOLUTION_ULTRA_HIGH",
            "MEDIA_RESOLUTION_LOW"
        ),
        2_240
    );
    assert_eq!(
        media(
            "gemini-3-pro-preview",
            "MEDIA_RESOLUTION_UNSPECIFIED",
            "MEDIA_RESOLUTION_LOW"
        ),
        280
    );
    // Gemini 2 counts tiles whatever the resolution (an upper bound at low).
    assert_eq!(media("gemini-2.5-pro", "", "MEDIA_RESOLUTION_LOW"), 258);
    // No model: the more of the two rules, the part's ultra high included.
    assert_eq!(media("", "MEDIA_RESOLUTION_ULTRA_HIGH", ""), 2_240);
    // snake_case keys read the same.
    let snake = format!(
        r#"{{"contents": [{{"role": "user", "parts": [{{"inline_data": {{"mime_type": "image/png", "data": "{PNG}"}}, "media_resolution": {{"level": "MEDIA_RESOLUTION_LOW"}}}}]}}]}}"#
    );
    let request = GeminiRequest::from_json(&snake)
        .unwrap()
        .with_model("gemini-3-flash-preview");
    let empty =
        GeminiRequest::from_json(r#"{"contents": [{"role": "user", "parts": []}]}"#).unwrap();
    assert_eq!(
        RequestFitter::new(words).count(&request).messages
            - RequestFitter::new(words).count(&empty).messages,
        280
    );
}
