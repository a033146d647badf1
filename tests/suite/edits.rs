//! The context-editing engine (`chat::edit`) on all three message types: the
//! shipped agent sessions fit 32,000 tokens by edits alone; generated sessions keep
//! their shape, their ids and every message the report does not name; the edge
//! cases (keep past the number of results, results shorter than the placeholder,
//! images, excluded tools, summarizers that return nothing or too much, counters
//! that lie).

use std::fmt::Write as _;

use ctxbudget::chat::edit::{
    ClearedResults, ContextEditor, EditError, EditKind, EditReport, EditableMessage, Edits,
    Precounted, Threshold,
};
use ctxbudget::chat::{ChatFormat, ChatMessage, Role, ToolCall};
use ctxbudget::request::anthropic::{AnthropicMessage, MessagesRequest, ToolResultBlock};
use ctxbudget::request::openai::{ChatRequest, RequestMessage};
use ctxbudget::request::{RequestFitter, WireRequest};
use ctxbudget::{CharEstimate, ChatTrimmer, Message, Tiktoken};
use proptest::prelude::*;
use serde::Serialize;
use serde_json::{Value, json};

const OPENAI_SESSION: &str = include_str!("../fixtures/requests/openai/coding_session.json");
const ANTHROPIC_SESSION: &str = include_str!("../fixtures/requests/anthropic/session.json");

/// A user message with something besides tool results: a turn of the user.
fn opens_user_turn<M: ChatMessage>(message: &M) -> bool {
    message.role() == Role::User && message.carries_user_content()
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn json_of<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

// ---------------------------------------------------------------------------------
// The shipped sessions.

/// What edits did to one shipped session at a 32,000-token limit.
struct Shipped {
    before: usize,
    after: usize,
    messages: (usize, usize),
    report: EditReport,
}

fn shipped<R>(
    mut request: R,
    edits: &Edits,
    edit: impl FnOnce(&mut R, &ContextEditor<&Tiktoken>) -> EditReport,
) -> (R, Shipped)
where
    R: WireRequest + Clone,
{
    const LIMIT: usize = 32_000;
    let counter = Tiktoken::o200k_base();
    let count = RequestFitter::new(&counter).count(&request);
    let budget = LIMIT - count.fixed;
    let editor = ContextEditor::new(&counter, budget)
        .with_format(request.chat_format())
        .with_edits(edits.clone());
    let messages_before = request.messages().len();
    let report = edit(&mut request, &editor);
    let after = RequestFitter::new(&counter).count(&request);
    assert_eq!(
        report.tokens_before, count.messages,
        "the report counts what the fitter counts"
    );
    assert_eq!(report.tokens_after, after.messages, "the report adds up");
    request.validate().expect("the edited request is valid");
    (
        request,
        Shipped {
            before: count.tokens,
            after: after.tokens,
            messages: (messages_before, 0),
            report,
        },
    )
}

fn print(name: &str, shipped: &Shipped) -> String {
    let t = &shipped.report.totals;
    let mut line = String::new();
    write!(
        line,
        "{name}: {} -> {} tokens (limit 32,000), messages {}/{} kept, {} results cleared ({} tokens), {} truncated, thinking dropped in {}, {} tokens saved",
        shipped.before,
        shipped.after,
        shipped.messages.1,
        shipped.messages.0,
        t.cleared_tool_uses,
        t.cleared_input_tokens,
        t.truncated,
        t.thinking_dropped,
        t.saved_tokens,
    )
    .unwrap();
    line
}

#[test]
fn the_shipped_sessions_fit_32k_by_edits_alone_keeping_every_message() {
    let configs = [
        ("default edits", Edits::default()),
        (
            "low water at the limit",
            Edits::default().low_water(Threshold::share(1.0)),
        ),
    ];
    for (config, edits) in &configs {
        let openai = ChatRequest::from_json(OPENAI_SESSION).unwrap();
        let (edited, mut stats) = shipped(openai.clone(), edits, |request, editor| {
            editor.edit(&mut request.messages).into_report()
        });
        stats.messages.1 = edited.messages.len();
        assert_eq!(edited.messages.len(), openai.messages.len());
        assert!(stats.after <= 32_000, "{}", print("openai", &stats));
        assert!(stats.before > 32_000);
        // Every user message is still there, word for word.
        for (before, after) in openai.messages.iter().zip(&edited.messages) {
            if before.role() == Role::User || before.role() == Role::System {
                assert_eq!(json_of(before), json_of(after));
            }
        }
        assert!(stats.report.totals.cleared_tool_uses > 0);
        println!(
            "{}",
            print(&format!("OpenAI coding_session.json, {config}"), &stats)
        );

        let anthropic = MessagesRequest::from_json(ANTHROPIC_SESSION).unwrap();
        let (edited, mut stats) = shipped(anthropic.clone(), edits, |request, editor| {
            editor.edit(&mut request.messages_mut()).into_report()
        });
        stats.messages.1 = edited.messages().len();
        assert_eq!(edited.messages().len(), anthropic.messages().len());
        assert!(stats.after <= 32_000, "{}", print("anthropic", &stats));
        assert!(stats.before > 32_000);
        for (before, after) in anthropic.messages().iter().zip(edited.messages()) {
            if opens_user_turn(before) {
                assert_eq!(json_of(before), json_of(after));
            }
        }
        println!(
            "{}",
            print(&format!("Anthropic session.json, {config}"), &stats)
        );
    }
}

// ---------------------------------------------------------------------------------
// Generated sessions, in the three message types.

/// One tool call of a generated turn and its result.
#[derive(Debug, Clone)]
struct CallSpec {
    tool: usize,
    arguments: usize,
    result: usize,
    /// The result as several text blocks (parts).
    blocks: bool,
    /// An image in the result (Anthropic only).
    image: bool,
    error: bool,
}

#[derive(Debug, Clone)]
struct TurnSpec {
    question: Option<usize>,
    thinking: Option<usize>,
    calls: Vec<CallSpec>,
    answer: Option<usize>,
}

#[derive(Debug, Clone)]
struct SessionSpec {
    system: bool,
    task: usize,
    turns: Vec<TurnSpec>,
}

const TOOLS: [&str; 3] = ["read_file", "run_tests", "search"];

/// `n` words with line breaks: a text the trim engine has boundaries in.
fn text(n: usize, seed: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        if i > 0 {
            out.push(if i % 9 == 0 { '\n' } else { ' ' });
        }
        write!(out, "w{}", (i * 7 + seed) % 101).unwrap();
    }
    out
}

fn call_spec() -> impl Strategy<Value = CallSpec> {
    (
        0..TOOLS.len(),
        0usize..12,
        prop_oneof![3 => 0usize..40, 2 => 40usize..400],
        prop::bool::weighted(0.25),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(tool, arguments, result, blocks, image, error)| CallSpec {
            tool,
            arguments,
            result,
            blocks,
            image,
            error,
        })
}

fn turn_spec() -> impl Strategy<Value = TurnSpec> {
    (
        prop::option::weighted(0.3, 1usize..30),
        prop::option::weighted(0.4, 1usize..60),
        prop::collection::vec(call_spec(), 0..4),
        prop::option::weighted(0.4, 1usize..40),
    )
        .prop_map(|(question, thinking, calls, answer)| TurnSpec {
            question,
            thinking,
            calls,
            answer,
        })
}

fn session_spec() -> impl Strategy<Value = SessionSpec> {
    (
        any::<bool>(),
        1usize..40,
        prop::collection::vec(turn_spec(), 0..14),
    )
        .prop_map(|(system, task, turns)| SessionSpec {
            system,
            task,
            turns,
        })
}

fn call_id(turn: usize, call: usize) -> String {
    format!("call_{turn}_{call}")
}

fn arguments(n: usize, seed: usize) -> String {
    json!({ "query": text(n, seed) }).to_string()
}

impl SessionSpec {
    fn messages(&self) -> Vec<Message> {
        let mut out = Vec::new();
        if self.system {
            out.push(Message::system("You are a careful coding agent."));
        }
        out.push(Message::user(text(self.task, 1)));
        for (t, turn) in self.turns.iter().enumerate() {
            if let Some(q) = turn.question {
                out.push(Message::user(text(q, t)));
            }
            let mut call =
                Message::assistant(turn.thinking.map_or(String::new(), |n| text(n, t + 3)));
            for (c, spec) in turn.calls.iter().enumerate() {
                call = call.with_tool_call(ToolCall::new(
                    call_id(t, c),
                    TOOLS[spec.tool],
                    arguments(spec.arguments, c),
                ));
            }
            if !turn.calls.is_empty() || turn.thinking.is_some() {
                out.push(call);
            }
            for (c, spec) in turn.calls.iter().enumerate() {
                out.push(Message::tool(call_id(t, c), text(spec.result, t * 5 + c)));
            }
            if let Some(a) = turn.answer {
                out.push(Message::assistant(text(a, t + 7)));
            }
        }
        out
    }

    fn openai(&self) -> ChatRequest {
        let mut messages = Vec::new();
        if self.system {
            messages
                .push(json!({"role": "developer", "content": "You are a careful coding agent."}));
        }
        messages.push(json!({"role": "user", "content": text(self.task, 1)}));
        for (t, turn) in self.turns.iter().enumerate() {
            if let Some(q) = turn.question {
                messages.push(json!({"role": "user", "content": text(q, t), "x_client": t}));
            }
            if !turn.calls.is_empty() {
                let calls: Vec<Value> = turn
                    .calls
                    .iter()
                    .enumerate()
                    .map(|(c, spec)| {
                        json!({"id": call_id(t, c), "type": "function", "function": {
                            "name": TOOLS[spec.tool], "arguments": arguments(spec.arguments, c)}})
                    })
                    .collect();
                let content = turn
                    .thinking
                    .map_or(Value::Null, |n| Value::from(text(n, t + 3)));
                messages
                    .push(json!({"role": "assistant", "content": content, "tool_calls": calls}));
            }
            for (c, spec) in turn.calls.iter().enumerate() {
                let body = text(spec.result, t * 5 + c);
                let content = if spec.blocks {
                    let half = body.len() / 2;
                    let cut = (0..=half)
                        .rev()
                        .find(|&i| body.is_char_boundary(i))
                        .unwrap_or(0);
                    json!([{"type": "text", "text": &body[..cut]}, {"type": "text", "text": &body[cut..]}])
                } else {
                    Value::from(body)
                };
                messages.push(
                    json!({"role": "tool", "tool_call_id": call_id(t, c), "content": content}),
                );
            }
            if let Some(a) = turn.answer {
                messages.push(json!({"role": "assistant", "content": text(a, t + 7)}));
            }
        }
        ChatRequest::from_json(&json!({"model": "gpt-4o", "messages": messages}).to_string())
            .unwrap()
    }

    fn anthropic(&self) -> MessagesRequest {
        let mut messages: Vec<Value> = vec![json!({"role": "user", "content": text(self.task, 1)})];
        let last_role = |messages: &Vec<Value>| messages.last().map(|m: &Value| m["role"].clone());
        for (t, turn) in self.turns.iter().enumerate() {
            if let Some(q) = turn.question {
                if last_role(&messages) == Some(json!("user")) {
                    messages.push(json!({"role": "assistant", "content": "Noted."}));
                }
                messages.push(json!({"role": "user", "content": text(q, t)}));
            }
            let mut blocks = Vec::new();
            if let Some(n) = turn.thinking {
                blocks.push(
                    json!({"type": "thinking", "thinking": text(n, t + 3), "signature": "sig"}),
                );
            }
            for (c, spec) in turn.calls.iter().enumerate() {
                blocks.push(
                    json!({"type": "tool_use", "id": call_id(t, c), "name": TOOLS[spec.tool],
                    "input": {"query": text(spec.arguments, c)}}),
                );
            }
            if turn.calls.is_empty() {
                blocks.push(json!({"type": "text", "text": "Thinking it over."}));
            }
            if last_role(&messages) == Some(json!("assistant")) {
                messages.push(json!({"role": "user", "content": "Go on."}));
            }
            messages.push(json!({"role": "assistant", "content": blocks}));
            if !turn.calls.is_empty() {
                let results: Vec<Value> = turn
                    .calls
                    .iter()
                    .enumerate()
                    .map(|(c, spec)| {
                        let body = text(spec.result, t * 5 + c);
                        let content = if spec.blocks || spec.image {
                            let mut parts = vec![json!({"type": "text", "text": body})];
                            if spec.image {
                                parts.push(json!({"type": "image", "source": {"type": "url", "url": "https://example.com/screen.png"}}));
                            }
                            if spec.blocks {
                                parts.push(json!({"type": "text", "text": text(spec.result / 2, c)}));
                            }
                            Value::from(parts)
                        } else {
                            Value::from(body)
                        };
                        let mut block = json!({"type": "tool_result", "tool_use_id": call_id(t, c), "content": content});
                        if spec.error {
                            block["is_error"] = json!(true);
                        }
                        block
                    })
                    .collect();
                messages.push(json!({"role": "user", "content": results}));
            }
            if let Some(a) = turn.answer {
                messages.push(json!({"role": "assistant", "content": text(a, t + 7)}));
            }
        }
        MessagesRequest::from_json(
            &json!({"model": "claude-opus-4-5", "max_tokens": 1024, "messages": messages})
                .to_string(),
        )
        .unwrap()
    }
}

fn edits_strategy() -> impl Strategy<Value = Edits> {
    (
        prop::option::of(0usize..6),
        prop::option::of(5usize..200),
        any::<bool>(),
        any::<bool>(),
        prop::option::weighted(0.2, 0..TOOLS.len()),
        prop_oneof![Just(0.0), Just(0.05), Just(0.2)],
        0usize..60,
        any::<bool>(),
    )
        .prop_map(
            |(keep, max, thinking, inputs, exclude, grid, at_least, pin)| {
                let mut edits = Edits::default()
                    .clear_tool_inputs(inputs)
                    .grid(grid)
                    .clear_at_least(at_least)
                    .pin_task(pin);
                edits = match keep {
                    Some(keep) => edits.clear_tool_results(keep),
                    None => edits.no_clearing(),
                };
                edits = match max {
                    Some(max) => edits.truncate_tool_results(max),
                    None => edits.no_truncation(),
                };
                if !thinking {
                    edits = edits.keep_thinking();
                }
                if let Some(tool) = exclude {
                    edits = edits.exclude_tools([TOOLS[tool]]);
                }
                edits
            },
        )
}

/// A message's JSON with the parts edits may change blanked: results' content,
/// calls' arguments, thinking blocks.
fn blank(mut value: Value) -> Value {
    if matches!(value["role"].as_str(), Some("tool" | "function")) {
        value["content"] = Value::Null;
    }
    if let Some(calls) = value["tool_calls"].as_array_mut() {
        for call in calls {
            call["function"]["arguments"] = Value::Null;
        }
    }
    if let Some(blocks) = value["content"].as_array_mut() {
        blocks.retain(|b| !matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking")));
        for block in blocks {
            match block["type"].as_str() {
                Some("tool_result") => block["content"] = Value::Null,
                Some("tool_use") => block["input"] = Value::Null,
                _ => {}
            }
        }
    }
    value
}

/// The checks every edit run must pass, whatever the message type.
fn check_edit_run<M>(
    before: &[M],
    after: &[M],
    report: &EditReport,
    format: ChatFormat,
    edits: &Edits,
    to_json: impl Fn(&M) -> Value,
) -> Result<(), TestCaseError>
where
    M: EditableMessage + std::fmt::Debug,
{
    prop_assert_eq!(before.len(), after.len(), "edits never remove a message");
    prop_assert_eq!(report.tokens_before, format.count_messages(&words, before));
    prop_assert_eq!(
        report.tokens_after,
        format.count_messages(&words, after),
        "the report adds up"
    );
    prop_assert!(report.tokens_after <= report.tokens_before);
    let saved: usize = report
        .edits
        .iter()
        .map(|e| e.tokens_before - e.tokens_after)
        .sum();
    prop_assert_eq!(saved, report.tokens_before - report.tokens_after);
    for (i, (b, a)) in before.iter().zip(after).enumerate() {
        prop_assert_eq!(b.role(), a.role(), "order kept");
        let named = report.edits_of(i).next().is_some();
        if !named {
            prop_assert_eq!(
                to_json(b).to_string(),
                to_json(a).to_string(),
                "message {} is not named but changed",
                i
            );
            continue;
        }
        // Never larger; only the edited parts differ; ids stay.
        prop_assert!(format.message_tokens(&words, a) < format.message_tokens(&words, b));
        let (bv, av) = (to_json(b), to_json(a));
        prop_assert_eq!(
            blank(bv),
            blank(av),
            "message {} changed outside the edited parts",
            i
        );
        prop_assert_eq!(
            b.tool_result_ids().collect::<Vec<_>>(),
            a.tool_result_ids().collect::<Vec<_>>()
        );
        prop_assert_eq!(
            b.tool_calls().map(|c| c.id).collect::<Vec<_>>(),
            a.tool_calls().map(|c| c.id).collect::<Vec<_>>()
        );
    }
    for edit in &report.edits {
        prop_assert!(edit.tokens_after < edit.tokens_before, "{:?}", edit);
        if let Some(tool) = &edit.tool {
            prop_assert!(
                !edits.excluded_tools().contains(tool),
                "an excluded tool was edited"
            );
        }
        if edit.kind == EditKind::ClearToolResult {
            let message = &after[edit.message];
            let index = message
                .tool_result_ids()
                .position(|id| Some(id) == edit.call_id.as_deref())
                .unwrap();
            let result = message.tool_result(index).unwrap();
            prop_assert_eq!(result.texts, vec![edits.placeholder_text()]);
        }
    }
    // The pinned task is untouched.
    if edits.pins_task() {
        if let Some(task) = before.iter().position(opens_user_turn) {
            prop_assert!(report.edits_of(task).next().is_none());
        }
    }
    // The turn in progress keeps its thinking.
    if let Some(latest) = before.iter().rposition(opens_user_turn) {
        prop_assert!(
            report
                .edits
                .iter()
                .all(|e| e.kind != EditKind::DropThinking || e.message < latest)
        );
    }
    Ok(())
}

/// The limit for a case: `share` of what the messages cost.
fn limit_of(total: usize, share: f64) -> usize {
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let limit = (total as f64 * share) as usize;
    limit.max(3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn plain_messages_keep_shape_ids_and_every_unnamed_message(
        spec in session_spec(),
        edits in edits_strategy(),
        share in 0.2f64..1.2,
    ) {
        let before = spec.messages();
        let format = ChatFormat::openai();
        let limit = limit_of(format.count_messages(&words, &before), share);
        let mut after = before.clone();
        let editor = ContextEditor::new(words, limit).with_edits(edits.clone());
        let edited = editor.edit(&mut after);
        check_edit_run(&before, &after, edited.report(), format, &edits, |m| {
            serde_json::to_value(RequestMessage::from(m)).unwrap()
        })?;
        prop_assert_eq!(edited.message_tokens().len(), after.len());
        // The counts the run hands on are the counts of the edited messages.
        for (m, &tokens) in after.iter().zip(edited.message_tokens()) {
            prop_assert_eq!(tokens, format.message_tokens(&words, m));
        }
    }

    #[test]
    fn openai_requests_stay_valid_and_parse_after_edits(
        spec in session_spec(),
        edits in edits_strategy(),
        share in 0.2f64..1.2,
    ) {
        let request = spec.openai();
        request.validate().unwrap();
        let format = request.chat_format();
        let limit = limit_of(format.count_messages(&words, &request.messages), share);
        let mut edited_request = request.clone();
        let editor = ContextEditor::new(words, limit).with_format(format).with_edits(edits.clone());
        let edited = editor.edit(&mut edited_request.messages);
        check_edit_run(&request.messages, &edited_request.messages, edited.report(), format, &edits, to_value)?;
        let again = ChatRequest::from_json(&edited_request.to_json()).unwrap();
        prop_assert_eq!(&again, &edited_request);
        again.validate().unwrap();
    }

    #[test]
    fn anthropic_requests_stay_valid_and_parse_after_edits(
        spec in session_spec(),
        edits in edits_strategy(),
        share in 0.2f64..1.2,
    ) {
        let request = spec.anthropic();
        request.validate().unwrap();
        let format = request.chat_format();
        let limit = limit_of(format.count_messages(&words, request.messages()), share);
        let mut edited_request = request.clone();
        let editor = ContextEditor::new(words, limit).with_format(format).with_edits(edits.clone());
        let edited = editor.edit(&mut edited_request.messages_mut());
        check_edit_run(request.messages(), edited_request.messages(), edited.report(), format, &edits, to_value)?;
        let again = MessagesRequest::from_json(&edited_request.to_json()).unwrap();
        prop_assert_eq!(&again, &edited_request);
        again.validate().unwrap();
        // A result that was an error stays one.
        for (b, a) in request.messages().iter().zip(edited_request.messages()) {
            let flags = |m: &AnthropicMessage| m.tool_results().map(ToolResultBlock::is_error).collect::<Vec<_>>();
            prop_assert_eq!(flags(b), flags(a));
        }
    }

    #[test]
    fn a_summary_in_place_of_the_planned_span_fits_and_keeps_pairs(
        spec in session_spec(),
        share in 0.1f64..0.8,
        clearing in any::<bool>(),
        summary_words in 0usize..60,
    ) {
        let request = spec.anthropic();
        let format = request.chat_format();
        let limit = limit_of(format.count_messages(&words, request.messages()), share);
        let edits = if clearing { Edits::default() } else { Edits::default().no_clearing() };
        let editor = ContextEditor::new(words, limit).with_format(format).with_edits(edits);
        let mut messages = request.clone().into_messages();
        let mut given = None;
        let edited = editor.edit_summarizing(&mut messages, |span, plan| {
            assert!(!span.is_empty());
            assert_eq!(span.len(), plan.span().len());
            // The summary message costs its words, the prefix's 5 and 4 of framing.
            let n = summary_words % (plan.room().saturating_sub(9) + 1);
            given = Some(n);
            Some(text(n, 3))
        });
        let edited = match edited {
            Ok(edited) => edited,
            Err(err) => return Err(TestCaseError::fail(err.to_string())),
        };
        let report = edited.report();
        prop_assert_eq!(report.tokens_after, format.count_messages(&words, &messages));
        prop_assert_eq!(edited.message_tokens().len(), messages.len());
        let mut body: Value = serde_json::from_str(&request.to_json()).unwrap();
        body["messages"] = serde_json::to_value(&messages).unwrap();
        let after = MessagesRequest::from_json(&body.to_string()).unwrap();
        after.validate().unwrap();
        if let Some(compaction) = &report.compaction {
                prop_assert!(given.is_some_and(|n| n > 0));
                prop_assert!(report.fits(), "{}", report);
                let summary = &messages[compaction.summary_index];
                prop_assert!(summary.text().starts_with(Edits::DEFAULT_SUMMARY_PREFIX));
                // The task is the first message still.
                prop_assert_eq!(json_of(&messages[0]), json_of(&request.messages()[0]));
                prop_assert_eq!(report.totals.summarized, compaction.span.len());
                prop_assert_eq!(
                    messages.len(),
                    request.messages().len() - compaction.span.len() + usize::from(!compaction.merged)
                );
                // Every message after the span is the input's, moved.
                for i in compaction.span.end..request.messages().len() {
                    let out = report.output_index(i).unwrap();
                    if report.edits_of(i).next().is_none() && !(compaction.merged && out == compaction.summary_index) {
                        prop_assert_eq!(json_of(&messages[out]), json_of(&request.messages()[i]));
                    }
                }
        } else {
            // No plan, or an empty summary: nothing was removed.
            prop_assert!(given.is_none_or(|n| n == 0));
            prop_assert_eq!(messages.len(), request.messages().len());
        }
    }
}

// ---------------------------------------------------------------------------------
// Edge cases.

fn agent(results: usize, words_each: usize) -> Vec<Message> {
    let mut history = vec![Message::system("Be terse."), Message::user("Find the bug.")];
    for i in 0..results {
        let id = format!("c{i}");
        history.push(Message::assistant("").with_tool_call(ToolCall::new(
            &id,
            TOOLS[i % 2],
            r#"{"path": "a.rs", "line": 12}"#,
        )));
        history.push(Message::tool(&id, text(words_each, i)));
    }
    history
}

#[test]
fn keep_past_the_number_of_results_clears_nothing() {
    let before = agent(4, 100);
    let mut after = before.clone();
    let editor = ContextEditor::new(words, 100).with_edits(
        Edits::default()
            .clear_tool_results(10)
            .no_truncation()
            .compact(false),
    );
    let edited = editor.edit(&mut after);
    assert!(edited.report().edits.is_empty());
    assert_eq!(after, before);
    assert!(!edited.fits());
    assert!(edited.compaction().is_none());
}

#[test]
fn a_result_shorter_than_its_placeholder_is_left_as_it_is() {
    let before = agent(6, 3);
    let mut after = before.clone();
    let editor = ContextEditor::new(words, 10).with_edits(Edits::default().clear_tool_results(0));
    let edited = editor.edit(&mut after);
    assert_eq!(after, before);
    assert!(edited.report().edits.is_empty());
    // With a placeholder shorter than the results, they are cleared.
    let editor = ContextEditor::new(words, 10)
        .with_edits(Edits::default().clear_tool_results(0).placeholder("[x]"));
    let edited = editor.edit(&mut after);
    assert_eq!(edited.report().totals.cleared_tool_uses, 6);
    assert!(
        after
            .iter()
            .filter(|m| m.role == Role::Tool)
            .all(|m| m.content == "[x]")
    );
}

#[test]
fn excluded_tools_only_are_never_touched() {
    let mut history = vec![Message::user("Watch the logs.")];
    for i in 0..6 {
        let id = format!("c{i}");
        history.push(Message::assistant("").with_tool_call(ToolCall::new(&id, "tail_log", "{}")));
        history.push(Message::tool(&id, text(300, i)));
    }
    let before = history.clone();
    let editor =
        ContextEditor::new(words, 200).with_edits(Edits::default().exclude_tools(["tail_log"]));
    let edited = editor.edit(&mut history);
    assert_eq!(history, before);
    assert!(edited.report().edits.is_empty());
}

#[test]
fn images_in_old_results_become_text_and_recent_ones_stay() {
    let results: Vec<Value> = (0..5)
        .map(|i| {
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{i}"), "content": [
                {"type": "text", "text": format!("screenshot {i}")},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/s.png"}}]}]})
        })
        .collect();
    let mut messages = vec![json!({"role": "user", "content": "Check the page."})];
    for (i, result) in results.into_iter().enumerate() {
        messages.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": format!("t{i}"), "name": "screenshot", "input": {}}]}));
        messages.push(result);
    }
    let mut request = MessagesRequest::from_json(
        &json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": messages}).to_string(),
    )
    .unwrap();
    let format = request.chat_format();
    let total = format.count_messages(&words, request.messages());
    // Just under what the messages cost: the media step alone brings them in.
    let editor = ContextEditor::new(words, total - 1).with_format(format);
    let edited = editor.edit(&mut request.messages_mut());
    let report = edited.report();
    assert!(report.fits());
    assert!(
        report
            .edits
            .iter()
            .all(|e| e.kind == EditKind::ReplaceToolMedia)
    );
    assert_eq!(report.totals.truncated, 2, "{report}");
    let has_image = |m: &AnthropicMessage| m.to_owned_json().contains("\"image\"");
    let flags: Vec<bool> = request
        .messages()
        .iter()
        .skip(2)
        .step_by(2)
        .map(has_image)
        .collect();
    assert_eq!(flags, [false, false, true, true, true]);
    request.validate().unwrap();
}

trait ToJson {
    fn to_owned_json(&self) -> String;
}

impl<T: Serialize> ToJson for T {
    fn to_owned_json(&self) -> String {
        json_of(self)
    }
}

#[test]
fn summarizers_that_return_nothing_or_too_much() {
    let before = agent(30, 60);
    let editor = ContextEditor::new(words, 400);
    let mut messages = before.clone();
    let edited = editor.edit_summarizing(&mut messages, |_, _| None).unwrap();
    assert!(edited.compaction().is_none());
    assert!(edited.report().compaction.is_none());
    let edits_only = messages.clone();
    let mut messages = before.clone();
    let edited = editor
        .edit_summarizing(&mut messages, |_, _| Some("  ".to_owned()))
        .unwrap();
    assert!(edited.report().compaction.is_none());
    assert_eq!(messages, edits_only, "an empty summary changes nothing");

    let mut messages = before.clone();
    let mut edited = editor.edit(&mut messages);
    let plan = edited
        .compaction()
        .cloned()
        .expect("edits alone are not enough");
    let long = "word ".repeat(plan.room() + 10);
    let err = editor
        .apply_summary(&mut messages, &mut edited, &long)
        .unwrap_err();
    match err {
        EditError::SummaryOverRoom { tokens, room, over } => {
            assert_eq!(room, plan.room());
            assert_eq!(over, tokens - room);
            assert!(over >= 10);
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().len() < 160, "{err}");
    assert_eq!(
        messages, edits_only,
        "an error leaves the messages as the edits left them"
    );
    // The plan stays for a shorter summary.
    assert!(
        editor
            .apply_summary(&mut messages, &mut edited, "They read files.")
            .unwrap()
    );
    assert!(edited.fits());
    let compaction = edited.report().compaction.clone().unwrap();
    assert_eq!(messages[compaction.summary_index].role, Role::User);
    assert_eq!(messages[1].content, "Find the bug.");
    // A stale plan is refused.
    let mut messages = before.clone();
    let mut edited = editor.edit(&mut messages);
    messages.pop();
    assert!(matches!(
        editor.apply_summary(&mut messages, &mut edited, "x"),
        Err(EditError::StalePlan { .. })
    ));
}

#[test]
fn anthropic_summaries_merge_into_the_next_user_message() {
    let mut messages = vec![json!({"role": "user", "content": "Write the report."})];
    for i in 0..12 {
        messages.push(json!({"role": "assistant", "content": text(80, i)}));
        messages.push(json!({"role": "user", "content": format!("Now part {i}.")}));
    }
    let request = MessagesRequest::from_json(
        &json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": messages}).to_string(),
    )
    .unwrap();
    let format = request.chat_format();
    let editor = ContextEditor::new(words, 500).with_format(format);
    let mut edited_messages = request.clone().into_messages();
    let edited = editor
        .edit_summarizing(&mut edited_messages, |_, _| {
            Some("The first parts are written.".to_owned())
        })
        .unwrap();
    let compaction = edited.report().compaction.clone().unwrap();
    assert!(!compaction.merged || edited_messages[compaction.summary_index].blocks().len() == 2);
    // Roles still alternate after the task.
    let roles: Vec<_> = edited_messages.iter().map(|m| m.role).collect();
    for pair in roles.windows(2).skip(1) {
        assert_ne!(pair[0], pair[1], "{roles:?}");
    }
    assert!(edited.fits());
}

#[test]
fn old_thinking_goes_first_and_the_turn_in_progress_keeps_its_own() {
    let request = MessagesRequest::from_json(
        &json!({"model": "claude-opus-4-5", "max_tokens": 100, "messages": [
            {"role": "user", "content": "Task."},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": text(200, 1), "signature": "a"},
                {"type": "text", "text": "Done with the first part."}]},
            {"role": "user", "content": "Next."},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": text(200, 2), "signature": "b"},
                {"type": "tool_use", "id": "t1", "name": "run", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
        ]})
        .to_string(),
    )
    .unwrap();
    let format = request.chat_format();
    let total = format.count_messages(&words, request.messages());
    let mut edited_request = request.clone();
    let editor = ContextEditor::new(words, total - 50).with_format(format);
    let edited = editor.edit(&mut edited_request.messages_mut());
    let report = edited.report();
    assert_eq!(report.totals.thinking_dropped, 1);
    assert_eq!(report.edits[0].message, 1);
    assert!(report.fits());
    assert_eq!(edited_request.messages()[1].blocks().len(), 1);
    assert_eq!(edited_request.messages()[3], request.messages()[3]);
    // Asked for more than thinking can give, the signed thinking still stays.
    let mut edited_request = request.clone();
    let editor = ContextEditor::new(words, 20).with_format(format);
    editor.edit(&mut edited_request.messages_mut());
    assert_eq!(edited_request.messages()[3], request.messages()[3]);
}

#[test]
fn a_growing_session_keeps_its_edited_prefix_until_the_boundary_jumps() {
    // Turn after turn of one agent loop, the same limit: how often does the edited
    // prefix change?
    let full = agent(120, 150);
    let editor = ContextEditor::new(words, 6_000).with_edits(Edits::default().no_truncation());
    let mut previous: Option<(Vec<Message>, usize)> = None;
    let (mut same, mut jumps) = (0, 0);
    for end in (40..=full.len()).step_by(2) {
        let mut messages = full[..end].to_vec();
        let edited = editor.edit(&mut messages);
        assert!(edited.fits());
        let cleared = edited.report().totals.cleared_tool_uses;
        if let Some((before, cleared_before)) = &previous {
            if messages[..before.len()] == before[..] {
                same += 1;
            } else {
                // The prefix changes only when the boundary jumps to clear more.
                assert!(
                    cleared > *cleared_before,
                    "at {end}: {cleared} vs {cleared_before}"
                );
                jumps += 1;
            }
        }
        previous = Some((messages, cleared));
    }
    println!("growing session: prefix unchanged on {same} turns, boundary jumped on {jumps}");
    assert!(same > 3 * jumps, "{same} vs {jumps}");
}

#[test]
fn sticky_clears_stay_cleared_when_the_trigger_is_not_reached() {
    let mut messages = agent(10, 100);
    let mut cleared = ClearedResults::new();
    let editor = ContextEditor::new(words, 600).with_edits(Edits::default().no_truncation());
    let first = editor.edit_sticky(&mut messages, &mut cleared);
    let cleared_first = first.report().totals.cleared_tool_uses;
    assert!(cleared_first > 0);
    assert_eq!(cleared.len(), cleared_first);
    // Later, with a higher limit (the session dropped messages elsewhere, say): no
    // new edit is needed, yet the cleared results stay cleared.
    let mut later = agent(10, 100);
    let roomy = ContextEditor::new(words, 100_000);
    let again = roomy.edit_sticky(&mut later, &mut cleared);
    assert_eq!(later, messages);
    assert!(again.report().edits.iter().all(|e| e.sticky));
    assert_eq!(again.report().totals.cleared_tool_uses, cleared_first);
}

#[test]
fn clear_at_least_skips_batches_too_small_for_a_cache_break() {
    let before = agent(10, 100);
    let total = ChatFormat::openai().count_messages(&words, &before);
    // Just over: one cleared result would do, but a batch must save 500 tokens.
    let editor = ContextEditor::new(words, total - 10).with_edits(
        Edits::default()
            .no_truncation()
            .grid(0.0)
            .clear_at_least(500),
    );
    let mut messages = before.clone();
    let edited = editor.edit(&mut messages);
    assert!(edited.report().totals.cleared_input_tokens >= 500);
    assert!(edited.report().totals.cleared_tool_uses >= 5);
    // More than clearing everything could save: nothing is cleared.
    let editor = ContextEditor::new(words, total - 10).with_edits(
        Edits::default()
            .no_truncation()
            .clear_at_least(100_000)
            .compact(false),
    );
    let mut messages = before.clone();
    let edited = editor.edit(&mut messages);
    assert!(edited.report().edits.is_empty());
    assert_eq!(messages, before);
}

#[test]
fn clearing_inputs_clears_the_calls_of_cleared_results() {
    let mut messages = agent(8, 100);
    let editor = ContextEditor::new(words, 700)
        .with_edits(Edits::default().no_truncation().clear_tool_inputs(true));
    let edited = editor.edit(&mut messages);
    let report = edited.report();
    let inputs: Vec<_> = report
        .edits
        .iter()
        .filter(|e| e.kind == EditKind::ClearToolInput)
        .collect();
    assert_eq!(inputs.len(), report.totals.cleared_tool_uses);
    for edit in inputs {
        let call = messages[edit.message]
            .tool_calls
            .iter()
            .find(|c| Some(&c.id) == edit.call_id.as_ref())
            .unwrap();
        assert_eq!(call.arguments, "{}");
    }
    assert_eq!(
        report.tokens_after,
        ChatFormat::openai().count_messages(&words, &messages)
    );
}

#[test]
fn precounted_messages_trim_to_the_same_result_without_counting_again() {
    let mut messages = agent(40, 100);
    let counter = CharEstimate;
    let editor = ContextEditor::new(counter, 2_000);
    let edited = editor.edit(&mut messages);
    let precounted = Precounted::wrap(&messages, edited.content_tokens());
    let fast = ChatTrimmer::new(counter, 2_000).trim(&precounted).unwrap();
    let slow = ChatTrimmer::new(counter, 2_000).trim(&messages).unwrap();
    let fast_seqs: Vec<usize> = fast.elements().iter().map(|e| e.seq).collect();
    let slow_seqs: Vec<usize> = slow.elements().iter().map(|e| e.seq).collect();
    assert_eq!(fast_seqs, slow_seqs);
    assert_eq!(fast.tokens(), slow.tokens());
}

#[test]
fn counters_that_lie_cannot_make_the_engine_panic() {
    let liars: [&dyn Fn(&str) -> usize; 4] = [
        &|_: &str| usize::MAX,
        &|t: &str| t.len() % 7,
        &|t: &str| if t.contains('[') { usize::MAX } else { t.len() },
        &|t: &str| usize::MAX - t.len(),
    ];
    for liar in liars {
        for limit in [0, 1, 50, 5_000, usize::MAX] {
            let mut messages = agent(12, 80);
            let editor = ContextEditor::new(liar, limit).with_edits(
                Edits::default()
                    .clear_tool_inputs(true)
                    .truncate_tool_results(Threshold::share(0.1)),
            );
            let edited = editor.edit(&mut messages);
            let _ = editor.apply_summary(&mut messages, &mut edited.clone(), "summary");
            assert_eq!(messages.len(), 26);
        }
    }
}

#[test]
fn edits_load_from_a_config_file_and_reports_serialize() {
    let edits: Edits = serde_json::from_str(
        r#"{"keep_tool_results": 5, "max_tool_result_tokens": {"share": 0.25},
            "exclude_tools": ["memory"], "trigger": {"tokens": 90000}, "pin_task": false}"#,
    )
    .unwrap();
    assert_eq!(
        edits,
        Edits::default()
            .clear_tool_results(5)
            .truncate_tool_results(Threshold::share(0.25))
            .exclude_tools(["memory"])
            .trigger(90_000)
            .pin_task(false)
    );
    let back: Edits = serde_json::from_str(&serde_json::to_string(&edits).unwrap()).unwrap();
    assert_eq!(back, edits);
    let none: Edits = serde_json::from_str(
        r#"{"keep_tool_results": null, "max_tool_result_tokens": null,
        "drop_old_thinking": false, "compact": false}"#,
    )
    .unwrap();
    assert!(none.is_none());
    let typo = serde_json::from_str::<Edits>(r#"{"keep_tool_result": 5}"#).unwrap_err();
    assert!(typo.to_string().contains("unknown field"), "{typo}");

    let mut messages = agent(10, 100);
    let report = ContextEditor::new(words, 600)
        .edit(&mut messages)
        .into_report();
    let json = serde_json::to_value(&report).unwrap();
    for key in [
        "cleared_tool_uses",
        "cleared_input_tokens",
        "truncated",
        "thinking_dropped",
        "summarized",
    ] {
        assert!(json["totals"][key].is_u64(), "{key}: {json}");
    }
    let kinds: Vec<&str> = json["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"clear_tool_result"), "{kinds:?}");
    let table = report.to_string();
    assert!(table.starts_with("edits: "), "{table}");
}

/// One task, then a tool loop of `steps` steps, each opening with thinking when
/// `thinking` is set.
fn thinking_loop(steps: usize, thinking: bool) -> MessagesRequest {
    let mut messages = vec![json!({"role": "user", "content": "Migrate the database."})];
    for i in 0..steps {
        let mut blocks = Vec::new();
        if thinking {
            blocks.push(json!({"type": "thinking", "thinking": text(30, i), "signature": "sig"}));
        }
        blocks.push(
            json!({"type": "tool_use", "id": format!("t{i}"), "name": "sql", "input": {"q": i}}),
        );
        messages.push(json!({"role": "assistant", "content": blocks}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("t{i}"), "content": text(120, i)}]}));
    }
    MessagesRequest::from_json(
        &json!({"model": "claude-opus-4-5", "max_tokens": 100, "messages": messages,
            "thinking": {"type": "enabled", "budget_tokens": 2000}})
        .to_string(),
    )
    .unwrap()
}

#[test]
fn a_tool_loop_that_starts_with_thinking_is_never_cut_by_a_compaction() {
    for thinking in [false, true] {
        let request = thinking_loop(12, thinking);
        let format = request.chat_format();
        let editor = ContextEditor::new(words, 400)
            .with_format(format)
            .with_edits(Edits::default().no_clearing().no_truncation());
        let mut messages = request.clone().into_messages();
        let edited = editor.edit(&mut messages);
        assert!(!edited.fits());
        // Without thinking the loop's first steps can be summarized; with it, the
        // loop is one unit and the dropping step decides.
        assert_eq!(
            edited.compaction().is_some(),
            !thinking,
            "thinking: {thinking}"
        );

        // The precounted messages trim as the messages themselves do: the wrapper
        // keeps the loop whole as the trimmer would.
        let precounted = Precounted::wrap(&messages, edited.content_tokens());
        let fast = ChatTrimmer::new(words, 1_200)
            .with_format(format)
            .trim(&precounted);
        let slow = ChatTrimmer::new(words, 1_200)
            .with_format(format)
            .trim(&messages);
        match (fast, slow) {
            (Ok(fast), Ok(slow)) => {
                let seqs = |e: &[usize]| e.to_vec();
                let fast: Vec<usize> = fast.elements().iter().map(|e| e.seq).collect();
                let slow: Vec<usize> = slow.elements().iter().map(|e| e.seq).collect();
                assert_eq!(seqs(&fast), seqs(&slow));
            }
            (Err(fast), Err(slow)) => assert_eq!(fast, slow),
            (fast, slow) => panic!("{fast:?} vs {slow:?}"),
        }
    }
}
