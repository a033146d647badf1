//! Context edits in the chat-history layer of `assemble_messages`
//! (`AssembleOptions::with_edits`): a history of tool calls with long results keeps
//! every message where dropping alone loses turns, the prompt fits, the report's
//! edit totals add up on a recount, and without edits nothing changes.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use ctxbudget::assemble::{
    AssembleOptions, Assembled, LayerInput, LayerPolicy, LayerRole, PromptMessages,
};
use ctxbudget::budget::ContextUsage;
use ctxbudget::chat::edit::{EditKind, EditReport, Edits, Threshold};
use ctxbudget::chat::{ChatFormat, Role, ToolCall};
use ctxbudget::{ContextBudget, ContextLayers, Message, Tiktoken, TokenCounter};
use ctxbudget_tests::CODE;
use proptest::prelude::*;

static TIKTOKEN: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// An agent's history: the task, then `turns` tool calls, each with a result of
/// about `result_len` bytes of code and a short remark, and halfway a word from the
/// user.
fn tool_history(turns: usize, result_len: usize) -> Vec<Message> {
    let mut chat = vec![Message::user("Find why the parser stops at the header.")];
    for i in 0..turns {
        if i == turns / 2 {
            chat.push(Message::user("Look at the lexer too."));
        }
        let id = format!("call_{i}");
        chat.push(
            Message::assistant(format!("Reading step {i}.")).with_tool_call(ToolCall::new(
                &id,
                "read_file",
                format!(r#"{{"path":"src/step{i}.rs"}}"#),
            )),
        );
        let start = (i * 311) % (CODE.len() - result_len - 100);
        let start = ctxbudget_tests::floor_char_boundary(CODE, start);
        let end = ctxbudget_tests::floor_char_boundary(CODE, start + result_len);
        chat.push(Message::tool(&id, &CODE[start..end]));
    }
    chat
}

fn budget() -> ContextBudget {
    ContextBudget::new(
        6_000,
        [
            ("system", 200),
            ("history", 2_000),
            ("question", 200),
            ("output", 1_000),
        ],
    )
    .unwrap()
}

// A layer's content is a `&dyn LayerContent`: a slice, unsized, cannot be one.
#[allow(clippy::ptr_arg)]
fn assemble<'a>(
    budget: &'a ContextBudget,
    history: &'a Vec<Message>,
    counter: &dyn TokenCounter,
    options: &AssembleOptions,
) -> Assembled<'a, ContextUsage, PromptMessages> {
    budget
        .assemble_messages(
            &[
                LayerInput::new("system", &"You are a careful coding agent."),
                LayerInput::new("history", history),
                LayerInput::new("question", &"What did you find?"),
            ],
            counter,
            options,
        )
        .unwrap()
}

/// The edits of the history layer, and the messages the prompt took from it with
/// their indices in the history.
fn history_part<'r>(
    out: &'r Assembled<'_, ContextUsage, PromptMessages>,
) -> (Option<&'r EditReport>, Vec<(usize, &'r Message)>) {
    let layer = out.layers.iter().position(|l| l.name == "history").unwrap();
    let sent = out
        .prompt
        .messages
        .iter()
        .zip(&out.prompt.sources)
        .filter(|(_, s)| s.layer == layer && s.index.is_some())
        .map(|(m, s)| (s.index.unwrap(), m))
        .collect();
    (out.layers[layer].edits.as_ref(), sent)
}

/// What every assembly with edits keeps: the prompt fits and is what the format
/// counts; every history message the report does not name is byte-identical to
/// yours, an edited one keeps its role, ids and calls; each result follows its
/// call; the totals are the edits' own, and the edited history recounts to the
/// report's `tokens_after`, the original to its `tokens_before`.
fn check(
    out: &Assembled<'_, ContextUsage, PromptMessages>,
    history: &[Message],
    format: ChatFormat,
    counter: &dyn TokenCounter,
) {
    assert_eq!(
        out.tokens,
        format.count_messages(counter, &out.prompt.to_chat())
    );
    assert!(out.tokens <= out.limit, "{} over {}", out.tokens, out.limit);
    let (report, sent) = history_part(out);
    let layer = out.layer("history").unwrap();
    let messages: Vec<Message> = sent.iter().map(|(_, m)| (*m).clone()).collect();
    let unprimed = format.with_reply_priming(0);
    assert_eq!(layer.tokens(), unprimed.count_messages(counter, &messages));
    assert_eq!(layer.fitted.kept, sent.len());
    for (index, message) in &sent {
        let original = &history[*index];
        let named = report.is_some_and(|r| r.edits_of(*index).next().is_some());
        if named {
            assert_eq!(message.role, original.role);
            assert_eq!(message.tool_call_id, original.tool_call_id);
            let ids = |m: &Message| {
                m.tool_calls
                    .iter()
                    .map(|c| c.id.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(ids(message), ids(original));
        } else {
            assert_eq!(
                *message, original,
                "message {index} is not named but changed"
            );
        }
    }
    for (i, (_, message)) in sent.iter().enumerate() {
        if let Some(id) = &message.tool_call_id {
            let call = sent[..i]
                .iter()
                .rev()
                .map(|(_, m)| m)
                .find(|m| m.role != Role::Tool)
                .expect("a tool result after a message");
            assert!(
                call.tool_calls.iter().any(|c| &c.id == id),
                "{id} without its call"
            );
        }
    }
    let Some(report) = report else { return };
    assert_eq!(report.limit, layer.granted);
    assert_eq!(
        report.tokens_before,
        unprimed.count_messages(counter, history)
    );
    let mut cleared = 0;
    let mut cleared_tokens = 0;
    let mut truncated = 0;
    let mut saved = 0;
    for edit in &report.edits {
        saved += edit.saved();
        match edit.kind {
            EditKind::ClearToolResult => {
                cleared += 1;
                cleared_tokens += edit.saved();
            }
            EditKind::ClearToolInput => cleared_tokens += edit.saved(),
            EditKind::TruncateToolResult | EditKind::ReplaceToolMedia => truncated += 1,
            _ => {}
        }
    }
    let totals = report.totals;
    assert_eq!(
        (
            totals.cleared_tool_uses,
            totals.cleared_input_tokens,
            totals.truncated
        ),
        (cleared, cleared_tokens, truncated)
    );
    assert_eq!(totals.saved_tokens, saved);
    assert_eq!(totals.summarized, 0, "assemble calls no summarizer");
    if sent.len() == history.len() {
        // Nothing dropped: the prompt's history is the whole edited history.
        assert_eq!(report.tokens_after, layer.tokens());
    }
}

#[test]
fn edits_keep_every_message_of_a_tool_history_that_dropping_alone_cuts() {
    let history = tool_history(20, 1_200);
    let budget = budget();
    let format = ChatFormat::openai();
    let counter = &*TIKTOKEN;

    let dropped = assemble(&budget, &history, counter, &AssembleOptions::new());
    let layer = dropped.layer("history").unwrap();
    assert!(layer.dropped() > 10, "{dropped}");
    assert!(layer.edits.is_none());
    // The task is not the latest user message: dropping alone loses it.
    assert_ne!(
        dropped.prompt.messages[0].content, history[0].content,
        "{dropped}"
    );

    let options = AssembleOptions::new().with_edits(Edits::default());
    let edited = assemble(&budget, &history, counter, &options);
    check(&edited, &history, format, counter);
    let layer = edited.layer("history").unwrap();
    assert_eq!(
        (layer.dropped(), layer.fitted.kept),
        (0, history.len()),
        "{edited}"
    );
    assert_eq!(
        edited.prompt.messages[0], history[0],
        "the task stays as it was"
    );
    let totals = layer.edits.as_ref().unwrap().totals;
    assert!(
        totals.cleared_tool_uses > 0 && totals.truncated > 0,
        "{totals:?}"
    );
    // The recent results are kept (cut to their head and tail at most).
    let last = edited.prompt.messages.len() - 2;
    assert_ne!(
        edited.prompt.messages[last].content,
        Edits::DEFAULT_PLACEHOLDER
    );
    assert!(
        edited.to_string().contains("tool results cleared"),
        "{edited}"
    );
}

#[test]
fn a_history_that_fits_is_not_edited() {
    let history = tool_history(3, 200);
    let budget = budget();
    let options = AssembleOptions::new().with_edits(Edits::default());
    let edited = assemble(&budget, &history, &*TIKTOKEN, &options);
    let plain = assemble(&budget, &history, &*TIKTOKEN, &AssembleOptions::new());
    let report = edited.layer("history").unwrap().edits.as_ref().unwrap();
    assert!(!report.edited());
    assert_eq!(edited.prompt, plain.prompt);
    assert_eq!(edited.tokens, plain.tokens);
}

#[test]
fn without_edits_nothing_changes() {
    assert_eq!(AssembleOptions::new().edits(), None);
    assert_eq!(
        AssembleOptions::new().with_edits(Edits::none()),
        AssembleOptions::new()
    );
    let history = tool_history(20, 1_200);
    let budget = budget();
    let plain = assemble(&budget, &history, &*TIKTOKEN, &AssembleOptions::new());
    let none = assemble(
        &budget,
        &history,
        &*TIKTOKEN,
        &AssembleOptions::new().with_edits(Edits::none()),
    );
    assert_eq!(plain, none);
    assert!(none.layers.iter().all(|l| l.edits.is_none()));
}

#[test]
fn a_history_never_to_be_cut_is_never_edited() {
    let history = tool_history(2, 300);
    let budget = budget();
    let options = AssembleOptions::new().with_edits(Edits::default());
    let layers = [LayerInput::new("history", &history).with_policy(LayerPolicy::Never)];
    let out = budget
        .assemble_messages(&layers, &*TIKTOKEN, &options)
        .unwrap();
    let (report, sent) = history_part(&out);
    assert!(report.is_none());
    assert!(sent.iter().all(|(i, m)| *m == &history[*i]));
}

#[test]
fn options_with_edits_compare_and_hash_as_they_print() {
    let hash = |o: &AssembleOptions| {
        let mut h = DefaultHasher::new();
        o.hash(&mut h);
        h.finish()
    };
    // A NaN share is equal to itself here, so `Eq` holds.
    let odd =
        AssembleOptions::new().with_edits(Edits::default().trigger(Threshold::share(f64::NAN)));
    assert_eq!(odd, odd.clone());
    assert_eq!(hash(&odd), hash(&odd.clone()));
    let keep_5 = AssembleOptions::new().with_edits(Edits::default().clear_tool_results(5));
    let keep_3 = AssembleOptions::new().with_edits(Edits::default());
    assert_ne!(keep_5, keep_3);
    assert_ne!(keep_3, AssembleOptions::new());
    assert_eq!(keep_3.edits(), Some(&Edits::default()));
}

/// The derive's `assemble_messages` takes the same option.
#[derive(ContextLayers)]
#[context(total = 4_000, output = 1_000)]
struct Agent {
    #[budget(tokens = 200, role = system)]
    system: String,
    #[budget(tokens = 1_500, grow)]
    history: Vec<Message>,
    #[budget(tokens = 200)]
    question: String,
}

#[test]
fn the_derive_edits_its_history_too() {
    let history = tool_history(20, 1_200);
    let agent = Agent {
        system: "You are a careful coding agent.".into(),
        history: history.clone(),
        question: "What did you find?".into(),
    };
    let counter = &*TIKTOKEN;
    let plain = agent
        .assemble_messages(counter, &AssembleOptions::new())
        .unwrap();
    let options = AssembleOptions::new().with_edits(Edits::default());
    let edited = agent.assemble_messages(counter, &options).unwrap();
    assert!(plain.layer("history").unwrap().dropped() > 0);
    let layer = edited.layer("history").unwrap();
    assert_eq!(layer.dropped(), 0, "{edited}");
    assert!(layer.edits.as_ref().unwrap().edited());
    assert!(edited.tokens <= edited.limit);
}

#[test]
fn the_json_report_carries_the_edit_totals() {
    let history = tool_history(20, 1_200);
    let budget = budget();
    let plain = assemble(&budget, &history, &*TIKTOKEN, &AssembleOptions::new());
    assert!(!plain.to_json().contains("\"edits\""));
    let options = AssembleOptions::new().with_edits(Edits::default());
    let edited = assemble(&budget, &history, &*TIKTOKEN, &options);
    let json: serde_json::Value = serde_json::from_str(&edited.to_json()).unwrap();
    let totals = edited
        .layer("history")
        .unwrap()
        .edits
        .as_ref()
        .unwrap()
        .totals;
    let entry = &json["layers"]["history"]["edits"];
    assert_eq!(entry["cleared_tool_uses"], totals.cleared_tool_uses);
    assert_eq!(entry["cleared_input_tokens"], totals.cleared_input_tokens);
    assert_eq!(entry["truncated"], totals.truncated);
    assert!(json["layers"]["question"].get("edits").is_none());
}

fn arb_history() -> impl Strategy<Value = Vec<Message>> {
    let turn = (0usize..3, 1usize..120, 0usize..3, any::<bool>());
    prop::collection::vec(turn, 1..16).prop_map(|turns| {
        let mut chat = vec![Message::user("the task at hand")];
        for (i, (calls, len, remark, user)) in turns.into_iter().enumerate() {
            if user {
                chat.push(Message::user(format!("and then step {i}")));
            }
            let mut assistant = Message::assistant("thinking about it ".repeat(remark));
            let ids: Vec<String> = (0..calls).map(|c| format!("call_{i}_{c}")).collect();
            for id in &ids {
                assistant = assistant.with_tool_call(ToolCall::new(id, "grep", "{}"));
            }
            chat.push(assistant);
            for (c, id) in ids.iter().enumerate() {
                chat.push(Message::tool(id, "match found here ".repeat(len + c)));
            }
        }
        chat
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Edits never keep fewer messages than dropping alone, the prompt fits, and the
    /// report adds up.
    #[test]
    fn edits_keep_at_least_what_dropping_keeps(
        history in arb_history(),
        reserved in 80usize..1_500,
        anthropic in any::<bool>(),
        keep in 0usize..5,
    ) {
        let format = if anthropic { ChatFormat::anthropic() } else { ChatFormat::openai() };
        let budget = ContextBudget::new(4_000, [("history", reserved), ("output", 500)]).unwrap();
        let layers = [LayerInput::new("history", &history).with_role(LayerRole::History)];
        let plain = budget.assemble_messages(
            &layers, &words, &AssembleOptions::new().with_chat_format(format),
        );
        let options = AssembleOptions::new()
            .with_chat_format(format)
            .with_edits(Edits::default().clear_tool_results(keep));
        let edited = budget.assemble_messages(&layers, &words, &options);
        match (plain, edited) {
            (Ok(plain), Ok(edited)) => {
                check(&edited, &history, format, &words);
                let kept = |o: &Assembled<'_, ContextUsage, PromptMessages>| {
                    o.layer("history").unwrap().fitted.kept
                };
                prop_assert!(kept(&edited) >= kept(&plain), "{plain}\n{edited}");
            }
            // Edits never touch the pinned messages: both fail alike.
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (Err(_), Ok(edited)) => check(&edited, &history, format, &words),
            (Ok(_), Err(err)) => prop_assert!(false, "edits made a fit fail: {err}"),
        }
    }
}
