//! What `RequestFitter::fit` promises for any valid request of either format, checked
//! by the property tests of `openai_request.rs` and `anthropic_request_props.rs`.

use std::collections::HashSet;
use std::fmt::Debug;

use ctxbudget::TokenCounter;
use ctxbudget::chat::edit::{AppliedEdit, EditKind, Edits};
use ctxbudget::chat::{ChatMessage, Role};
use ctxbudget::request::{RequestError, RequestFitter, WireRequest};
use serde::Serialize;
use serde_json::Value;

/// Fits `request` to `limit` tokens and checks the result:
///
/// - a fitted request recounts to the report's `tokens_after`, which is within the
///   limit, and validates;
/// - its messages are the input's, in order, each unchanged, and the report's dropped
///   messages are the rest, so that `tokens_before` is the whole request's count;
/// - a request that already fits comes back whole;
/// - the latest user message (the last that carries more than tool results) is kept,
///   and a tool-use loop after it that starts with thinking is kept whole;
/// - a request that cannot fit is `DoesNotFit` (`ToolLoopDoesNotFit` when such a
///   loop must stay) with the limit and the excess.
pub fn check_fit<R, C>(request: &R, counter: C, limit: usize)
where
    R: WireRequest + Clone + Debug,
    R::Message: Serialize,
    C: TokenCounter + Clone,
{
    let request_fitter = RequestFitter::new(counter)
        .with_max_input(limit)
        .with_count_dropped(true);
    let whole = request_fitter.count(request).tokens;
    let dropping = request_fitter.fit(request.clone());
    check_uncounted(request, &request_fitter, &dropping);
    // The defaults, and a setting that edits more of these small requests: one
    // kept result, a short placeholder and marker, results of more than 3
    // tokens truncated, the cleared results' arguments cleared too, the task
    // not pinned.
    for edits in [
        Edits::default(),
        Edits::default()
            .clear_tool_results(1)
            .placeholder("-")
            .truncation_marker("~")
            .truncate_tool_results(3)
            .clear_tool_inputs(true)
            .pin_task(false),
    ] {
        check_edited(
            request,
            &request_fitter,
            &edits,
            limit,
            whole,
            dropping.is_ok(),
        );
    }
    match dropping {
        Ok(fitted) => {
            let report = &fitted.report;
            let recount = request_fitter.count(&fitted.request);
            assert_eq!(recount.tokens, report.tokens_after, "{report}");
            assert!(report.tokens_after <= limit, "{report}");
            assert_eq!(report.limit, limit);
            assert_eq!(report.tokens_before, Some(whole), "{report}");
            fitted
                .request
                .validate()
                .expect("a fitted request is valid");

            let original = request.messages();
            let kept = fitted.request.messages();
            assert_eq!(kept.len(), report.kept);
            assert_eq!(kept.len() + report.dropped.len(), original.len());
            let mut dropped = report.dropped.iter().map(|d| d.index).peekable();
            let mut kept_iter = kept.iter();
            for (index, message) in original.iter().enumerate() {
                if dropped.peek() == Some(&index) {
                    dropped.next();
                    continue;
                }
                let next = kept_iter.next().expect("every message not dropped is kept");
                assert_eq!(json(next), json(message), "message {index} changed");
            }
            assert!(
                dropped.next().is_none(),
                "dropped indices in order, in range"
            );
            if whole <= limit {
                assert!(report.dropped.is_empty(), "{report}");
            }
            let dropped = |index: usize| report.dropped.iter().any(|d| d.index == index);
            if let Some(latest) = latest_user(original) {
                assert!(!dropped(latest), "the latest user message {latest} is kept");
            }
            if let Some(start) = thinking_loop(original) {
                assert!(
                    (start..original.len()).all(|i| !dropped(i)),
                    "the thinking loop from {start} is kept whole: {report}"
                );
            }
        }
        Err(RequestError::DoesNotFit {
            needed,
            limit: said,
            over,
        }) => {
            assert!(thinking_loop(request.messages()).is_none());
            assert_eq!(said, limit);
            assert!(needed > limit, "needed {needed} within {limit}");
            assert_eq!(over, needed - limit);
            assert!(whole > limit);
        }
        Err(RequestError::ToolLoopDoesNotFit {
            needed,
            limit: said,
            over,
        }) => {
            assert!(thinking_loop(request.messages()).is_some());
            assert_eq!(said, limit);
            assert!(needed > limit, "needed {needed} within {limit}");
            assert!(
                needed <= whole,
                "needed {needed}, the whole request {whole}"
            );
            assert_eq!(over, needed - limit);
        }
        Err(other) => panic!("a valid request with a limit: {other}"),
    }
}

/// Without counting what it drops (the default, and `--drop-only` in the CLI), a
/// fit keeps exactly what the fit that counts every message kept: the same
/// messages, the same tokens after, the same dropped indexes, each dropped
/// message's tokens the full count's or not counted; and fails where it fails.
fn check_uncounted<R, C>(
    request: &R,
    counting: &RequestFitter<C>,
    counted: &Result<ctxbudget::request::FittedRequest<R>, RequestError>,
) where
    R: WireRequest + Clone + Debug,
    R::Message: Serialize,
    C: TokenCounter + Clone,
{
    let lean = counting
        .clone()
        .with_count_dropped(false)
        .fit(request.clone());
    match (counted, &lean) {
        (Ok(counted), Ok(lean)) => {
            let messages = |r: &R| r.messages().iter().map(json).collect::<Vec<_>>();
            assert_eq!(messages(&lean.request), messages(&counted.request));
            let (a, b) = (&lean.report, &counted.report);
            assert_eq!(a.tokens_after, b.tokens_after, "{a}\n{b}");
            assert_eq!(
                (a.kept, a.system_kept, a.fixed),
                (b.kept, b.system_kept, b.fixed)
            );
            assert_eq!(a.dropped.len(), b.dropped.len(), "{a}\n{b}");
            for (lean, full) in a.dropped.iter().zip(&b.dropped) {
                assert_eq!((lean.index, lean.reason), (full.index, full.reason));
                assert!(
                    lean.tokens.is_none() || lean.tokens == full.tokens,
                    "{a}\n{b}"
                );
            }
            if a.tokens_before.is_some() {
                assert_eq!(a.tokens_before, b.tokens_before);
            }
        }
        (Err(counted), Err(lean)) => assert_eq!(
            std::mem::discriminant(lean),
            std::mem::discriminant(counted),
            "{lean} against {counted}"
        ),
        (counted, lean) => panic!(
            "counting what it drops changed the outcome: {:?} against {:?}",
            counted.as_ref().map(|f| &f.report),
            lean.as_ref().map(|f| &f.report)
        ),
    }
}

/// With `edits`: the fitted request recounts to the report, fits, validates and
/// keeps its order; a kept message no edit names is byte for byte the input's, an
/// edited one differs from it only in the parts its edits name (see [`mask`]);
/// no call or result is left without its partner; what must stay stays; a
/// request that fits by dropping fits with edits too; an error says by how much.
fn check_edited<R, C>(
    request: &R,
    fitter: &RequestFitter<C>,
    edits: &Edits,
    limit: usize,
    whole: usize,
    drop_only_fits: bool,
) where
    R: WireRequest + Clone + Debug,
    R::Message: Serialize,
    C: TokenCounter + Clone,
{
    let fitter = fitter.clone().with_edits(edits.clone());
    let result = match fitter.fit(request.clone()) {
        Ok(result) => result,
        Err(
            RequestError::DoesNotFit { needed, over, .. }
            | RequestError::ToolLoopDoesNotFit { needed, over, .. },
        ) => {
            assert!(!drop_only_fits, "drop-only fits, edited needs {needed}");
            assert_eq!(over, needed - limit);
            return;
        }
        Err(other) => panic!("a valid request with a limit: {other}"),
    };
    let report = &result.report;
    let edits = report.edits.as_ref().expect("edits are reported");
    assert_eq!(
        fitter.count(&result.request).tokens,
        report.tokens_after,
        "{report}"
    );
    assert!(report.tokens_after <= limit, "{report}");
    assert_eq!(report.tokens_before, Some(whole), "{report}");
    result
        .request
        .validate()
        .expect("an edited request is valid");
    let original = request.messages();
    let kept = result.request.messages();
    assert_eq!(kept.len() + report.dropped.len(), original.len());
    let dropped = |index: usize| report.dropped.iter().any(|d| d.index == index);
    let mut kept_iter = kept.iter();
    for (index, message) in original.iter().enumerate() {
        if dropped(index) {
            continue;
        }
        let next = kept_iter.next().expect("every message not dropped is kept");
        if edits.edits_of(index).next().is_none() {
            assert_eq!(
                serde_json::to_string(next).expect("serializes"),
                serde_json::to_string(message).expect("serializes"),
                "message {index} changed unreported"
            );
        } else {
            assert_eq!(next.role(), message.role(), "message {index}");
            let ids = |m: &R::Message| {
                let calls: Vec<String> = m.tool_calls().map(|c| c.id.to_owned()).collect();
                let results: Vec<String> = m.tool_result_ids().map(str::to_owned).collect();
                (calls, results)
            };
            assert_eq!(ids(next), ids(message), "message {index} kept its ids");
            let (mut after, mut before) = (json(next), json(message));
            for edit in edits.edits_of(index) {
                mask(&mut after, edit);
                mask(&mut before, edit);
            }
            assert_eq!(after, before, "message {index} changed beyond {edits}");
        }
    }
    // No orphan: every result kept answers a kept call, and every kept call that
    // was answered still is.
    let ids = |messages: &[R::Message]| {
        let calls: HashSet<String> = (messages.iter())
            .flat_map(|m| m.tool_calls().map(|c| c.id.to_owned()))
            .collect();
        let results: HashSet<String> = (messages.iter())
            .flat_map(|m| m.tool_result_ids().map(str::to_owned))
            .collect();
        (calls, results)
    };
    let (calls_in, results_in) = ids(original);
    let (calls_out, results_out) = ids(kept);
    assert!(results_out.is_subset(&calls_out), "{report}");
    for call in &calls_out {
        assert!(
            !results_in.contains(call) || results_out.contains(call),
            "call {call} lost its result: {report}"
        );
    }
    assert!(calls_out.is_subset(&calls_in));
    if let Some(latest) = latest_user(original) {
        assert!(!dropped(latest), "the latest user message {latest} is kept");
    }
    if let Some(start) = thinking_loop(original) {
        assert!((start..original.len()).all(|i| !dropped(i)), "{report}");
    }
}

/// The latest user message: the last user message that carries more than tool
/// results.
pub fn latest_user<M: ChatMessage>(messages: &[M]) -> Option<usize> {
    messages
        .iter()
        .rposition(|m| m.role() == Role::User && m.carries_user_content())
}

/// Where the tool-use loop after the latest user message starts, when its first
/// message starts with thinking and it makes a call.
pub fn thinking_loop<M: ChatMessage>(messages: &[M]) -> Option<usize> {
    let start = latest_user(messages)? + 1;
    let first = messages.get(start)?;
    let calls = messages[start..]
        .iter()
        .any(|m| m.tool_calls().next().is_some());
    (first.starts_with_thinking() && calls).then_some(start)
}

fn json<T: Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).expect("messages serialize")
}

/// Stands for an edited part in both the input and the output message.
const SENTINEL: &str = "<edited>";

/// Replaces what `edit` may change in `message` (either format, as JSON) with
/// [`SENTINEL`]: a result's content (a `tool` or legacy `function` message's, a
/// `tool_result` block's), a call's arguments (`function.arguments`,
/// `function_call.arguments`, a `tool_use` block's `input`); thinking blocks are
/// removed. What is left must be equal.
fn mask(message: &mut Value, edit: &AppliedEdit) {
    let id = edit.call_id.as_deref().map(Value::from);
    let id = id.as_ref();
    let sentinel = || Value::from(SENTINEL);
    if let Some(items) = message.as_array_mut() {
        return mask_items(items, edit, id);
    }
    if let Some(parts) = message.get_mut("parts").and_then(Value::as_array_mut) {
        return mask_parts(parts, edit, id);
    }
    let role = message["role"].as_str().unwrap_or_default().to_owned();
    let blocks = message
        .get_mut("content")
        .and_then(Value::as_array_mut)
        .map(std::mem::take);
    let mut blocks = blocks.unwrap_or_default();
    match edit.kind {
        EditKind::ClearToolResult | EditKind::TruncateToolResult | EditKind::ReplaceToolMedia => {
            let answers = message.get("tool_call_id") == id
                || (role == "function" && message.get("name") == id);
            if (role == "tool" || role == "function") && answers {
                message["content"] = sentinel();
            }
            for block in &mut blocks {
                if block["type"] == "tool_result" && block.get("tool_use_id") == id {
                    block["content"] = sentinel();
                }
                // Bedrock Converse: blocks keyed by their kind.
                if let Some(result) = block.get_mut("toolResult") {
                    if result.get("toolUseId") == id {
                        result["content"] = sentinel();
                    }
                }
            }
        }
        EditKind::ClearToolInput => {
            if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
                for call in calls.iter_mut().filter(|c| c.get("id") == id) {
                    call["function"]["arguments"] = sentinel();
                }
            }
            if let Some(call) = message.get_mut("function_call") {
                if call.get("name") == id {
                    call["arguments"] = sentinel();
                }
            }
            for block in &mut blocks {
                if block["type"] == "tool_use" && block.get("id") == id {
                    block["input"] = sentinel();
                }
                if let Some(call) = block.get_mut("toolUse") {
                    if call.get("toolUseId") == id {
                        call["input"] = sentinel();
                    }
                }
            }
        }
        EditKind::DropThinking => {
            blocks.retain(|b| {
                b["type"] != "thinking"
                    && b["type"] != "redacted_thinking"
                    && b.get("reasoningContent").is_none()
            });
        }
        _ => panic!("the fitter makes no {} edit", edit.kind),
    }
    if let Some(content) = message.get_mut("content").filter(|c| c.is_array()) {
        *content = Value::Array(blocks);
    }
}

/// [`mask`] for an OpenAI Responses message: the array of its items.
fn mask_items(items: &mut Vec<Value>, edit: &AppliedEdit, id: Option<&Value>) {
    let ours = |item: &Value| item.get("call_id") == id;
    match edit.kind {
        EditKind::ClearToolResult | EditKind::TruncateToolResult | EditKind::ReplaceToolMedia => {
            for item in items.iter_mut().filter(|i| ours(i)) {
                if item.get("output").is_some() {
                    item["output"] = Value::from(SENTINEL);
                }
            }
        }
        EditKind::ClearToolInput => {
            for item in items.iter_mut().filter(|i| ours(i)) {
                for key in ["arguments", "input"] {
                    if item.get(key).is_some() {
                        item[key] = Value::from(SENTINEL);
                    }
                }
            }
        }
        EditKind::DropThinking => items.retain(|i| i["type"] != "reasoning"),
        _ => panic!("the fitter makes no {} edit", edit.kind),
    }
}

/// [`mask`] for a Gemini content: its parts. A call or response without an `id`
/// is named by the id ctxbudget makes up for it, `name#n`: it is masked when the
/// edit's id is one of its name's.
fn mask_parts(parts: &mut Vec<Value>, edit: &AppliedEdit, id: Option<&Value>) {
    fn key(part: &Value, keys: [&'static str; 2]) -> Option<&'static str> {
        keys.into_iter().find(|k| part.get(*k).is_some())
    }
    let ours = |object: &Value| match object.get("id") {
        Some(given) => Some(given) == id,
        None => id
            .and_then(Value::as_str)
            .zip(object["name"].as_str())
            .is_some_and(|(id, name)| id.starts_with(&format!("{name}#"))),
    };
    match edit.kind {
        EditKind::ClearToolResult | EditKind::TruncateToolResult | EditKind::ReplaceToolMedia => {
            for part in parts.iter_mut() {
                if let Some(k) = key(part, ["functionResponse", "function_response"]) {
                    if ours(&part[k]) {
                        part[k]["response"] = Value::from(SENTINEL);
                        if let Some(response) = part[k].as_object_mut() {
                            response.remove("parts");
                        }
                    }
                }
            }
        }
        EditKind::ClearToolInput => {
            for part in parts.iter_mut() {
                if let Some(k) = key(part, ["functionCall", "function_call"]) {
                    if ours(&part[k]) {
                        part[k]["args"] = Value::from(SENTINEL);
                    }
                }
            }
        }
        EditKind::DropThinking => parts.retain(|p| {
            p["thought"] != true
                || p.get("thoughtSignature")
                    .or(p.get("thought_signature"))
                    .is_some()
        }),
        _ => panic!("the fitter makes no {} edit", edit.kind),
    }
}

#[test]
fn gpt_4_is_fitted_to_its_own_window() {
    use ctxbudget::models::Model;
    use ctxbudget::request::openai::ChatRequest;
    use ctxbudget::request::{DEFAULT_OUTPUT, InputLimit, OutputReservation};

    // gpt-4's maximum output is its whole 8,192-token window: with no `max_tokens`
    // in the body, the default output is reserved, not the window.
    let gpt_4 = Model::lookup("gpt-4").unwrap();
    assert_eq!(gpt_4.max_output_tokens(), Some(gpt_4.context_window()));
    let body = r#"{"model": "gpt-4", "messages": [{"role": "user", "content": "Say hello in three languages."}]}"#;
    let request = ChatRequest::from_json(body).unwrap();
    let gpt_4_fitter = RequestFitter::for_model(gpt_4).unwrap();
    assert_eq!(
        gpt_4_fitter.input_limit(&request).unwrap(),
        (8_192 - DEFAULT_OUTPUT, DEFAULT_OUTPUT)
    );
    let fitted = gpt_4_fitter.fit(request.clone()).unwrap();
    assert_eq!(fitted.request, request);
    assert_eq!(fitted.report.output, OutputReservation::Default);
    let table = fitted.report.to_string();
    assert!(
        table.contains("4096 reserved for output: the default, the body sets no limit"),
        "{table}"
    );
    // The body's own limit is reserved as it is; one that leaves no input is an
    // error that says so, never a limit of 0.
    let own =
        ChatRequest::from_json(&body.replace("\"messages\"", "\"max_tokens\": 1000, \"messages\""))
            .unwrap();
    let fitted = gpt_4_fitter.fit(own).unwrap();
    assert_eq!(
        (fitted.report.limit, fitted.report.output),
        (7_192, OutputReservation::Body)
    );
    let all =
        ChatRequest::from_json(&body.replace("\"messages\"", "\"max_tokens\": 8192, \"messages\""))
            .unwrap();
    let err = gpt_4_fitter.fit(all).unwrap_err();
    assert!(
        matches!(
            err,
            RequestError::OutputOverWindow {
                output: 8_192,
                window: 8_192
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("leaves no input"), "{err}");
    // Models whose output shares the window keep at least half of it for input.
    for (window, max_output, input) in [
        (8_192, None, 4_096),
        (2_048, None, 1_024),
        (2_048, Some(2_048), 1_024),
        (128_000, Some(16_384), 111_616),
        (200_000, None, 200_000 - DEFAULT_OUTPUT),
        (1, None, 1),
    ] {
        let model = gpt_4
            .clone()
            .with_context_window(window)
            .with_max_output_tokens(max_output);
        let InputLimit::Window {
            window: w,
            default_output,
        } = InputLimit::for_model(&model)
        else {
            panic!("a window");
        };
        assert_eq!(
            (w, w - default_output),
            (window, input),
            "{window} {max_output:?}"
        );
    }
}
