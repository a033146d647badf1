//! Property tests over generated Anthropic Messages requests (with thinking on or
//! off, and questions that share a message with tool results): every valid request
//! round-trips to an equal JSON value and validates; trimmed with `ChatTrimmer` and
//! `retain_messages`, it still parses, round-trips, validates, fits, pairs every
//! tool call with its results, keeps the latest question and a thinking loop whole,
//! and keeps every field of every kept message.

use std::collections::HashSet;

use ctxbudget::chat::{ChatFormat, ChatStrategy, Role};
use ctxbudget::request::WireRequest;
use ctxbudget::request::anthropic::{AnthropicMessage, MessagesRequest};
use ctxbudget::{CharEstimate, ChatTrimmer};
use proptest::prelude::*;

use crate::request_fit::{check_fit, latest_user, thinking_loop};
use serde_json::{Map, Value, json};

const GIF: &str = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

fn words() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,8}( [a-z]{1,8}){0,8}",
        1 => "\\PC{1,30}",
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        words().prop_map(Value::from),
        prop::collection::vec(any::<u8>(), 0..4).prop_map(|v| json!(v)),
    ]
}

/// Fields ctxbudget does not model: `x_` names never clash with modelled ones.
fn unknown_fields() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec(("x_[a-z]{1,6}", leaf()), 0..2)
}

fn with_fields(mut object: Value, fields: Vec<(String, Value)>) -> Value {
    let map = object.as_object_mut().unwrap();
    for (key, value) in fields {
        map.insert(key, value);
    }
    object
}

fn cache_control() -> impl Strategy<Value = Option<Value>> {
    prop::option::weighted(0.2, Just(json!({"type": "ephemeral"})))
}

fn block(base: Value) -> impl Strategy<Value = Value> {
    (cache_control(), unknown_fields()).prop_map(move |(cache, fields)| {
        let mut block = with_fields(base.clone(), fields);
        if let Some(cache) = cache {
            block["cache_control"] = cache;
        }
        block
    })
}

fn text_block() -> impl Strategy<Value = Value> {
    words().prop_flat_map(|text| block(json!({"type": "text", "text": text})))
}

/// Blocks a user message may hold besides results.
fn user_block() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => text_block(),
        1 => block(json!({"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": GIF}})),
        1 => block(json!({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}})),
        1 => words().prop_flat_map(|text| block(json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": text}, "title": "t"}))),
        1 => leaf().prop_map(|v| json!({"type": "x_block_of_the_future", "payload": v})),
    ]
}

fn content(blocks: impl Strategy<Value = Value> + 'static) -> impl Strategy<Value = Value> {
    prop_oneof![
        words().prop_map(Value::from),
        prop::collection::vec(blocks, 1..4).prop_map(Value::from),
    ]
}

#[allow(clippy::needless_pass_by_value)] // called from `prop_map` closures with owned values
fn message(role: &'static str, content: Value, fields: Vec<(String, Value)>) -> Value {
    with_fields(json!({"role": role, "content": content}), fields)
}

fn thinking() -> impl Strategy<Value = Option<Value>> {
    prop::option::weighted(
        0.4,
        prop_oneof![
            3 => words().prop_map(|t| json!({"type": "thinking", "thinking": t, "signature": "c2ln"})),
            1 => Just(json!({"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"})),
        ],
    )
}

/// One round of tool use, its ids still to be given: the calls' inputs, the
/// results' contents, whether the results come in reverse order and spread over
/// two user messages.
#[derive(Debug, Clone)]
struct Round {
    thinking: Option<Value>,
    text: Option<String>,
    inputs: Vec<Value>,
    results: Vec<(Value, Option<Value>)>,
    reverse: bool,
    split: bool,
}

fn round() -> impl Strategy<Value = Round> {
    (1usize..4)
        .prop_flat_map(|n| {
            (
                thinking(),
                prop::option::of(words()),
                prop::collection::vec(
                    prop::collection::btree_map("[a-z]{1,5}", leaf(), 0..3)
                        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
                    n,
                ),
                prop::collection::vec((content(user_block()), cache_control()), n),
                any::<bool>(),
                any::<bool>(),
            )
        })
        .prop_map(|(thinking, text, inputs, results, reverse, split)| Round {
            thinking,
            text,
            inputs,
            results,
            reverse,
            split,
        })
}

#[derive(Debug, Clone)]
struct Exchange {
    user: (Value, Vec<(String, Value)>),
    rounds: Vec<Round>,
    reply: Option<Value>,
    /// The question goes in the message of the results before it, after them (as
    /// LangChain writes a tool result and the next question), when there is one.
    joined: bool,
}

fn exchange() -> impl Strategy<Value = Exchange> {
    (
        (content(user_block()), unknown_fields()),
        prop::collection::vec(round(), 0..3),
        prop::option::weighted(0.8, content(text_block())),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(user, rounds, reply, joined)| Exchange {
            user,
            rounds,
            reply,
            joined,
        })
}

/// The `thinking` setting: none, enabled or adaptive.
fn thinking_setting() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(json!({"type": "enabled", "budget_tokens": 2048}))),
        1 => Just(Some(json!({"type": "adaptive"}))),
        1 => Just(Some(json!({"type": "disabled"}))),
    ]
}

/// The blocks of a user message's content.
fn as_blocks(content: Value) -> Vec<Value> {
    match content {
        Value::Array(blocks) => blocks,
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        other => vec![other],
    }
}

/// A valid request body, as JSON.
fn request() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(exchange(), 1..6),
        prop::sample::select(vec!["claude-sonnet-4-5", "claude-opus-4-5", "claude-3-5-haiku-latest", "proxy-model"]),
        prop::option::of(prop_oneof![
            words().prop_map(Value::from),
            prop::collection::vec(text_block(), 1..3).prop_map(Value::from),
        ]),
        any::<bool>(),
        unknown_fields(),
        thinking_setting(),
    )
        .prop_map(|(exchanges, model, system, tools, fields, thinking)| {
            let enabled = thinking.as_ref().is_some_and(|t| t["type"] == "enabled");
            let mut messages: Vec<Value> = Vec::new();
            let mut next_id = 0;
            for (e, exchange) in exchanges.iter().enumerate() {
                let last = e + 1 == exchanges.len();
                let (user, fields) = exchange.user.clone();
                let after_results = messages.last().is_some_and(|m: &Value| {
                    m["content"].as_array().is_some_and(|b| b.iter().all(|b| b["type"] == "tool_result"))
                });
                if exchange.joined && after_results {
                    let results = messages.last_mut().unwrap()["content"].as_array_mut().unwrap();
                    results.extend(as_blocks(user));
                } else {
                    messages.push(message("user", user, fields));
                }
                for (r, round) in exchange.rounds.iter().enumerate() {
                    // With thinking enabled, the loop the request ends in starts with
                    // its thinking, as Anthropic requires.
                    let thinking = round.thinking.clone().or_else(|| {
                        (enabled && last && r == 0).then(|| json!({"type": "thinking", "thinking": "plan", "signature": "c2ln"}))
                    });
                    let ids: Vec<String> = round
                        .inputs
                        .iter()
                        .map(|_| {
                            next_id += 1;
                            format!("toolu_{next_id:04}")
                        })
                        .collect();
                    let mut calls: Vec<Value> = thinking.into_iter().collect();
                    calls.extend(round.text.iter().map(|t| json!({"type": "text", "text": t})));
                    calls.extend(ids.iter().zip(&round.inputs).map(|(id, input)| {
                        json!({"type": "tool_use", "id": id, "name": "tool", "input": input})
                    }));
                    messages.push(message("assistant", Value::from(calls), Vec::new()));
                    let mut results: Vec<Value> = ids
                        .iter()
                        .zip(&round.results)
                        .map(|(id, (content, cache))| {
                            let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": content});
                            if let Some(cache) = cache {
                                result["cache_control"] = cache.clone();
                            }
                            result
                        })
                        .collect();
                    if round.reverse {
                        results.reverse();
                    }
                    if round.split && results.len() > 1 {
                        let rest = results.split_off(1);
                        messages.push(message("user", Value::from(results), Vec::new()));
                        messages.push(message("user", Value::from(rest), Vec::new()));
                    } else {
                        messages.push(message("user", Value::from(results), Vec::new()));
                    }
                }
                // The last exchange may end on tool results: a request in the
                // middle of a tool-use loop.
                if let (Some(reply), false) = (&exchange.reply, last) {
                    messages.push(message("assistant", reply.clone(), Vec::new()));
                }
            }
            let mut body = json!({"model": model, "max_tokens": 1024, "messages": messages});
            if let Some(system) = system {
                body["system"] = system;
            }
            if tools {
                body["tools"] = json!([{"name": "tool", "description": "Does things.", "input_schema": {"type": "object"}}]);
                body["tool_choice"] = json!({"type": "auto"});
            }
            if let Some(thinking) = thinking {
                body["thinking"] = thinking;
            }
            with_fields(body, fields)
        })
}

/// The call ids of the kept `tool_use` and `tool_result` blocks.
fn pairing(request: &MessagesRequest) -> (HashSet<String>, HashSet<String>) {
    let messages = request.messages();
    let calls = messages
        .iter()
        .flat_map(AnthropicMessage::tool_uses)
        .map(|c| c.id.clone())
        .collect();
    let results = messages
        .iter()
        .flat_map(AnthropicMessage::tool_results)
        .map(|r| r.tool_use_id.clone())
        .collect();
    (calls, results)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn valid_requests_round_trip_and_validate(body in request(), pretty in any::<bool>()) {
        let json = if pretty {
            serde_json::to_string_pretty(&body).unwrap()
        } else {
            serde_json::to_string(&body).unwrap()
        };
        let request = MessagesRequest::from_json(&json).unwrap();
        // Compared with the value read from the same text: serde_json's float
        // parsing does not give back every generated `f64` bit for bit.
        let body: Value = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(serde_json::from_str::<Value>(&request.to_json()).unwrap(), body);
        request.validate().unwrap();
        let cost = request.count(&CharEstimate);
        prop_assert!(cost.tokens >= request.fixed_cost(&CharEstimate).tokens);
    }

    #[test]
    fn fitting_keeps_the_limit_and_every_kept_message(body in request(), share in 0.0f64..1.2) {
        let request = MessagesRequest::from_json(&serde_json::to_string(&body).unwrap()).unwrap();
        let whole = ctxbudget::request::RequestFitter::new(CharEstimate).count(&request).tokens;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let limit = (whole as f64 * share) as usize;
        check_fit(&request, CharEstimate, limit);
    }

    #[test]
    fn trimmed_requests_stay_valid_and_untouched(
        body in request(),
        share in 0.0f64..1.2,
        keep_first in any::<bool>(),
    ) {
        let json = serde_json::to_string(&body).unwrap();
        let request = MessagesRequest::from_json(&json).unwrap();
        let body: Value = serde_json::from_str(&json).unwrap();
        let format = ChatFormat::anthropic();
        let whole = format.count_messages(&CharEstimate, request.messages());
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let budget = (whole as f64 * share) as usize;
        let trimmer = ChatTrimmer::new(CharEstimate, budget)
            .with_format(format)
            .with_start_on([Role::User])
            .with_strategy(if keep_first { ChatStrategy::KeepFirst } else { ChatStrategy::KeepLast });
        let Ok(trimmed) = trimmer.trim(request.messages()) else {
            return Ok(());
        };
        prop_assert!(trimmed.tokens() <= budget);
        let mut keep = vec![false; request.messages().len()];
        for element in trimmed.elements() {
            keep[element.seq] = true;
        }
        let mut out = request.clone();
        out.retain_messages(&keep);

        let written = out.to_json();
        let again = MessagesRequest::from_json(&written).unwrap();
        prop_assert_eq!(&again, &out);
        prop_assert_eq!(serde_json::from_str::<Value>(&again.to_json()).unwrap(), serde_json::from_str::<Value>(&written).unwrap());
        // Every field outside the messages, and every kept message, as it was.
        let written: Value = serde_json::from_str(&written).unwrap();
        let originals = body["messages"].as_array().unwrap();
        let kept: Vec<&Value> = keep.iter().zip(originals).filter(|(k, _)| **k).map(|(_, m)| m).collect();
        prop_assert_eq!(written["messages"].as_array().unwrap().iter().collect::<Vec<_>>(), kept);
        for (key, value) in body.as_object().unwrap() {
            if key != "messages" {
                prop_assert_eq!(&written[key], value);
            }
        }
        // The latest question stays, and a tool-use loop that starts with thinking
        // is kept whole or dropped whole.
        if let Some(latest) = latest_user(request.messages()) {
            prop_assert!(keep[latest], "the latest user message {} is kept", latest);
        }
        if let Some(start) = thinking_loop(request.messages()) {
            prop_assert!(keep[start..].iter().all(|&k| k == keep[start]), "{:?}", keep);
        }
        // Calls and results together; a request with messages is one Anthropic takes.
        let (calls, results) = pairing(&out);
        prop_assert_eq!(calls, results);
        if !out.messages().is_empty() {
            out.validate().unwrap();
        }
    }
}
