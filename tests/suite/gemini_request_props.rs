//! Property tests of Gemini generateContent bodies: any valid body round-trips and
//! validates, and any fit of it parses, round-trips, fits, keeps every kept
//! content as it was and leaves no call without its response (see `check_fit`).

use ctxbudget::CharEstimate;
use ctxbudget::chat::ChatMessage;
use ctxbudget::chat::edit::Edits;
use ctxbudget::request::gemini::GeminiRequest;
use ctxbudget::request::{RequestFitter, WireRequest};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::request_fit::check_fit;

/// One round: the user's text, then maybe a tool step (a thought first or not,
/// signed or not, one to three calls with or without ids, their responses with
/// the next question in the same content or not), then maybe an answer.
type Round = (String, usize, bool, bool, bool, Vec<String>, bool, bool);

fn text() -> impl Strategy<Value = String> {
    "[a-z ]{0,30}"
}

fn round() -> impl Strategy<Value = Round> {
    (
        text(),
        0usize..4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(text(), 3),
        any::<bool>(),
        any::<bool>(),
    )
}

fn body() -> impl Strategy<Value = (Value, bool)> {
    (
        prop::collection::vec(round(), 1..7),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(rounds, system, image, snake)| {
            let mut contents = Vec::new();
            let mut next = 0usize;
            for (i, (question, calls, ids, thought, signed, outputs, answer, image_result)) in
                rounds.iter().enumerate()
            {
                let mut parts = vec![json!({"text": question})];
                if image && i == 0 {
                    parts.push(json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAACAAFUok9dAAAAAElFTkSuQmCC"}}));
                }
                contents.push(json!({"role": "user", "parts": parts}));
                if *calls > 0 {
                    let mut model = Vec::new();
                    if *thought {
                        model.push(json!({"text": "thinking it over", "thought": true}));
                    }
                    let mut responses = Vec::new();
                    for k in 0..*calls {
                        let name = if k % 2 == 0 { "read" } else { "grep" };
                        let mut call = json!({"name": name, "args": {"n": k}});
                        let mut response = json!({"name": name, "response": {"output": outputs[k % 3].repeat(k + 1)}});
                        if *ids {
                            call["id"] = json!(format!("c{next}"));
                            response["id"] = json!(format!("c{next}"));
                        }
                        if *image_result && k == 0 {
                            response["parts"] = json!([{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]);
                        }
                        next += 1;
                        let mut part = json!({"functionCall": call});
                        if *signed && k == 0 {
                            part["thoughtSignature"] = json!("c2lnbmF0dXJl");
                        }
                        model.push(part);
                        responses.push(json!({"functionResponse": response}));
                    }
                    contents.push(json!({"role": "model", "parts": model}));
                    contents.push(json!({"role": "user", "parts": responses}));
                }
                if *answer {
                    contents.push(json!({"role": "model", "parts": [{"text": format!("answer {i}")}]}));
                }
            }
            let mut body = json!({"contents": contents, "generationConfig": {"temperature": 0.5}});
            if system {
                body["systemInstruction"] = json!({"parts": [{"text": "Be brief."}]});
                body["tools"] = json!([{"functionDeclarations": [{"name": "read", "description": "Read."}, {"name": "grep"}]}]);
            }
            let mut text = body.to_string();
            if snake {
                text = text
                    .replace("functionCall", "function_call")
                    .replace("functionResponse", "function_response")
                    .replace("inlineData", "inline_data")
                    .replace("mimeType", "mime_type")
                    .replace("thoughtSignature", "thought_signature")
                    .replace("systemInstruction", "system_instruction");
            }
            (serde_json::from_str(&text).expect("JSON"), snake)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn valid_bodies_round_trip_and_validate((body, _) in body()) {
        let text = body.to_string();
        let request = GeminiRequest::from_json(&text).unwrap();
        let back: Value = serde_json::from_str(&request.to_json()).unwrap();
        prop_assert_eq!(back, body);
        request.validate().unwrap();
        prop_assert_eq!(GeminiRequest::from_json(&request.to_json()).unwrap(), request.clone());
        // Every call has its responses right after it.
        let contents = request.contents();
        for (i, content) in contents.iter().enumerate() {
            for call in content.tool_calls() {
                prop_assert!(contents[i + 1].tool_result_ids().any(|id| id == call.id));
            }
        }
    }

    #[test]
    fn fits_keep_contents_whole_and_pairs_together((body, _) in body(), share in 0.05f64..1.2) {
        let request = GeminiRequest::from_json(&body.to_string()).unwrap();
        let whole = RequestFitter::new(CharEstimate).count(&request).tokens;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let limit = (whole as f64 * share) as usize;
        check_fit(&request, CharEstimate, limit);
        // The fitted body parses, round-trips and validates, with the edits too.
        for edits in [Edits::none(), Edits::default()] {
            let fitter = RequestFitter::new(CharEstimate).with_max_input(limit).with_edits(edits);
            if let Ok(fitted) = fitter.fit(request.clone()) {
                let json = fitted.request.to_json();
                let again = GeminiRequest::from_json(&json).unwrap();
                prop_assert_eq!(again.to_json(), json);
                again.validate().unwrap();
                prop_assert!(fitter.count(&again).tokens <= limit);
            }
        }
    }
}
