//! Property tests of OpenAI Responses bodies: any valid body round-trips and
//! validates, and any fit of it parses, round-trips, fits, keeps every kept item
//! as it was and leaves no call without its output (see `check_fit`).

use ctxbudget::CharEstimate;
use ctxbudget::request::responses::{Item, ItemKind, ResponsesRequest};
use ctxbudget::request::{RequestFitter, WireRequest};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::request_fit::check_fit;

/// One round of a session: the user's text (as a string or parts), then maybe a
/// tool step (reasoning first or not, one to three calls, custom or function),
/// then maybe an answer.
type Round = (String, bool, usize, bool, Vec<String>, bool, bool);

fn text() -> impl Strategy<Value = String> {
    "[a-z ]{0,30}"
}

fn round() -> impl Strategy<Value = Round> {
    (
        text(),
        any::<bool>(),
        0usize..4,
        any::<bool>(),
        prop::collection::vec(text(), 3),
        any::<bool>(),
        any::<bool>(),
    )
}

fn user(text: &str, parts: bool) -> Value {
    if parts {
        json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": text},
            {"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "low"}
        ]})
    } else {
        json!({"role": "user", "content": text})
    }
}

/// Pushes a tool step: `calls` calls (none when 0), each answered.
fn tool_step(
    items: &mut Vec<Value>,
    next_id: &mut usize,
    calls: usize,
    reasoning: bool,
    custom: bool,
    outputs: &[String],
) {
    if calls == 0 {
        return;
    }
    if reasoning {
        items.push(json!({"type": "reasoning", "id": format!("rs_{next_id}"), "summary": [{"type": "summary_text", "text": "think"}], "encrypted_content": "gAAAAB+/=="}));
    }
    if custom {
        // A built-in tool's call: no output item, counted as its JSON.
        items.push(json!({"type": "web_search_call", "id": format!("ws_{next_id}"), "status": "completed", "action": {"type": "search", "query": "q"}}));
    }
    let first = *next_id;
    for k in 0..calls {
        let id = format!("call_{}", first + k);
        if custom && k == 0 {
            items.push(json!({"type": "custom_tool_call", "call_id": id, "name": "patch", "input": outputs[k % outputs.len()]}));
        } else {
            items.push(json!({"type": "function_call", "call_id": id, "name": "read", "arguments": format!("{{\"n\":{k}}}")}));
        }
    }
    for k in 0..calls {
        let id = format!("call_{}", first + k);
        let kind = if custom && k == 0 {
            "custom_tool_call_output"
        } else {
            "function_call_output"
        };
        let text = outputs[k % outputs.len()].repeat(k + 1);
        let output = if k % 2 == 0 {
            json!(text)
        } else {
            json!([{"type": "input_text", "text": text}])
        };
        items.push(json!({"type": kind, "call_id": id, "output": output}));
    }
    *next_id += calls;
}

fn body() -> impl Strategy<Value = Value> {
    (prop::collection::vec(round(), 1..10), any::<bool>(), 0usize..3, any::<bool>(), 0usize..3).prop_map(|(rounds, instructions, open_loop, continued, referenced)| {
        let mut items = vec![json!({"role": "developer", "content": "rules"})];
        if referenced > 0 {
            // A stored call, named by reference, and its outputs.
            items.push(json!({"type": "item_reference", "id": "fc_stored"}));
            for k in 0..referenced {
                items.push(json!({"type": "function_call_output", "call_id": format!("stored_{k}"), "output": "from before"}));
            }
        }
        if continued {
            // The output of a call made in the server's history.
            items.push(json!({"type": "function_call_output", "call_id": "call_on_server", "output": "done"}));
        }
        let mut next_id = 0;
        for (text, parts, calls, reasoning, outputs, custom, answer) in &rounds {
            items.push(user(text, *parts));
            tool_step(&mut items, &mut next_id, *calls, *reasoning, *custom, outputs);
            if *answer {
                items.push(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": outputs[0]}]}));
            }
        }
        // A tool loop still running after the latest user message, started by
        // reasoning: kept whole by a fit, or the fit fails.
        let outputs = vec!["x".to_owned(), "yy".to_owned()];
        tool_step(&mut items, &mut next_id, open_loop, true, false, &outputs);
        let mut body = json!({"model": "gpt-5", "input": items, "store": false,
            "tools": [{"type": "function", "name": "read", "parameters": {"type": "object"}}, {"type": "web_search"}]});
        if instructions {
            body["instructions"] = json!("Be brief.");
        }
        if continued {
            body["previous_response_id"] = json!("resp_1");
        }
        body
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn valid_bodies_round_trip_and_validate(body in body(), pretty in any::<bool>()) {
        let json = if pretty { serde_json::to_string_pretty(&body).unwrap() } else { body.to_string() };
        let request = ResponsesRequest::from_json(&json).unwrap();
        prop_assert_eq!(serde_json::from_str::<Value>(&request.to_json()).unwrap(), body);
        request.validate().unwrap();
        let count = RequestFitter::new(CharEstimate).count(&request);
        prop_assert_eq!(count.tokens, request.count(&CharEstimate).tokens);
    }

    #[test]
    fn fits_keep_the_limit_every_kept_item_and_every_pair(body in body(), share in 0.0f64..1.2) {
        let request = ResponsesRequest::from_json(&body.to_string()).unwrap();
        let whole = RequestFitter::new(CharEstimate).count(&request).tokens;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let limit = (whole as f64 * share) as usize;
        check_fit(&request, CharEstimate, limit);
        // The fitted body, read again: the same items, valid, and every reasoning
        // item still right before the item it came with.
        if let Ok(fitted) = RequestFitter::new(CharEstimate).with_max_input(limit).fit(request.clone()) {
            let again = ResponsesRequest::from_json(&fitted.request.to_json()).unwrap();
            prop_assert!(again.items().eq(fitted.request.items()));
            again.validate().unwrap();
            let kinds: Vec<ItemKind> = again.items().map(Item::kind).collect();
            for pair in kinds.windows(2) {
                if pair[0] == ItemKind::Reasoning {
                    prop_assert!(matches!(pair[1], ItemKind::Call | ItemKind::Other));
                }
            }
        }
    }
}
