//! `ChatSession::with_edits`: the task in every prompt of a long agent session,
//! sticky edits and a prefix that changes only where the report says, prompts
//! that fit with no orphaned call or result, in order; and the same invariants
//! over random sessions.

use std::collections::HashSet;

use ctxbudget::chat::edit::{EditKind, Edits};
use ctxbudget::{
    Message,
    chat::{ChatFormat, ChatMessage, ChatSession, Prepared, Role, ToolCall},
};
use proptest::prelude::*;

type Words = fn(&str) -> usize;

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

const TASK: &str = "turn 0: fix the flaky test in parser.rs and make the build green";

/// The push order of a message: the number in `turn N:`, `call_N`, or the call
/// id it answers.
fn order(message: &Message) -> u64 {
    let number = |text: &str| -> u64 {
        text.chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(0)
    };
    match message.role {
        Role::Tool => number(message.tool_call_id.as_deref().unwrap_or("")),
        Role::Assistant => message.tool_calls.first().map_or(0, |c| number(&c.id)),
        _ => number(&message.content),
    }
}

/// Every call has its results right after it, every result its call before it.
fn assert_no_orphans(messages: &[Message]) {
    let mut open: Vec<&str> = Vec::new();
    for message in messages {
        if message.role == Role::Tool {
            let id = message.tool_call_id.as_deref().unwrap();
            assert!(open.contains(&id), "result {id} without its call");
            open.retain(|&o| o != id);
        } else {
            assert!(open.is_empty(), "calls {open:?} without results");
            open = message.tool_calls.iter().map(|c| c.id.as_str()).collect();
        }
    }
    assert!(open.is_empty(), "calls {open:?} without results");
}

/// What every prompt must be: within the limit, counted right, no orphan, in
/// push order.
fn assert_prompt(prompt: &Prepared<'_, Message>, limit: usize) {
    let messages = prompt.messages();
    assert!(prompt.tokens() <= limit, "{} over {limit}", prompt.tokens());
    assert_eq!(
        ChatFormat::openai().count_messages(&(words as Words), messages),
        prompt.tokens(),
        "the session's counts are the counts of what it sends"
    );
    assert_no_orphans(messages);
    let orders: Vec<u64> = messages.iter().map(order).collect();
    assert!(orders.is_sorted(), "order lost: {orders:?}");
}

/// The call ids whose result is the placeholder.
fn cleared(messages: &[Message]) -> HashSet<String> {
    messages
        .iter()
        .filter(|m| m.role == Role::Tool && m.content == Edits::DEFAULT_PLACEHOLDER)
        .filter_map(|m| m.tool_call_id.clone())
        .collect()
}

/// A coding agent's session of `turns` turns: the user speaks every 100 turns,
/// every other turn is a tool call and its result of `result_words` words.
fn agent_turn(turn: usize, result_words: usize) -> Vec<Message> {
    if turn % 100 == 0 {
        let text = if turn == 0 {
            TASK.to_owned()
        } else {
            format!("turn {turn}: now look at module {turn} as well")
        };
        return vec![Message::user(text)];
    }
    let id = format!("call_{turn}");
    let call = ToolCall::new(&id, "read_file", format!(r#"{{"path": "src/m{turn}.rs"}}"#));
    let body = format!("line {turn} of the file ").repeat(result_words / 5);
    vec![
        Message::assistant(format!("turn {turn}: reading")).with_tool_call(call),
        Message::tool(&id, body),
    ]
}

/// Runs the 1,000-turn agent session and returns how many prompts held the
/// task; checks every prompt, and with edits on that edits are sticky and the
/// prefix is what the previous prompt sent up to where the report says.
fn run_agent_session(edits: Option<&Edits>, limit: usize) -> usize {
    let mut session = ChatSession::new(words as Words, limit);
    if let Some(edits) = edits {
        session = session.with_edits(edits.clone());
    }
    session
        .push(Message::system("You are a coding agent."))
        .unwrap();
    let mut with_task = 0;
    let mut previous: Vec<Message> = Vec::new();
    let mut ever_cleared: HashSet<String> = HashSet::new();
    let mut edited_prompts = 0;
    for turn in 0..1_000 {
        session.extend(agent_turn(turn, 120)).unwrap();
        let prompt = session.prepare().unwrap();
        assert_prompt(&prompt, limit);
        let messages = prompt.messages();
        if messages.iter().any(|m| m.content == TASK) {
            with_task += 1;
        }
        if edits.is_some() {
            // Sticky: a result cleared once is cleared wherever it still is.
            for m in messages.iter().filter(|m| m.role == Role::Tool) {
                let id = m.tool_call_id.as_deref().unwrap();
                if ever_cleared.contains(id) {
                    assert_eq!(m.content, Edits::DEFAULT_PLACEHOLDER, "{id} came back");
                }
            }
            ever_cleared.extend(cleared(messages));
            // The prefix is the previous prompt, up to the first edited message.
            let report = prompt.edits();
            let edited = report.is_some_and(|r| !r.edits.is_empty());
            edited_prompts += usize::from(edited);
            if !prompt.cut_moved() && !previous.is_empty() {
                let first_edit = report
                    .and_then(|r| r.edits.iter().map(|e| e.message).min())
                    .unwrap_or(usize::MAX);
                let same = previous.len().min(first_edit);
                assert_eq!(&messages[..same], &previous[..same], "turn {turn}");
                assert_eq!(prompt.stable_prefix(), same.checked_sub(1), "turn {turn}");
                if !edited {
                    assert_eq!(&messages[..previous.len()], &previous[..]);
                }
            }
        }
        previous = messages.to_vec();
    }
    if edits.is_some() {
        assert!(edited_prompts > 0 && !ever_cleared.is_empty());
        let totals = session.edit_totals();
        assert_eq!(totals.cleared_tool_uses, ever_cleared.len());
    }
    with_task
}

#[test]
fn the_task_is_in_every_one_of_1000_prompts_with_edits_on() {
    let with_edits = run_agent_session(Some(&Edits::default()), 4_000);
    assert_eq!(with_edits, 1_000);
    // Dropping whole turns loses the task once the session fills its window.
    let drop_only = run_agent_session(None, 4_000);
    eprintln!("task in {with_edits} prompts with edits, {drop_only} drop-only");
    assert!(
        drop_only < 200,
        "drop-only kept the task in {drop_only} prompts"
    );
}

#[test]
fn without_pin_task_the_task_goes_like_any_message() {
    let unpinned = run_agent_session(Some(&Edits::default().pin_task(false)), 4_000);
    assert!(unpinned < 1_000, "{unpinned}");
}

#[test]
fn edits_come_before_the_cut_and_the_cut_moves_only_when_they_are_not_enough() {
    let limit = 3_000;
    let mut edited = ChatSession::new(words as Words, limit).with_edits(Edits::default());
    let mut dropping = ChatSession::new(words as Words, limit);
    for turn in 0..40 {
        for message in agent_turn(turn, 100) {
            edited.push(message.clone()).unwrap();
            dropping.push(message).unwrap();
        }
        let e = edited.prepare().unwrap();
        if let Some(report) = e.edits() {
            // The edits of a prepare that moved no cut brought the prompt within
            // the limit by themselves.
            if !e.cut_moved() {
                assert!(report.tokens_after <= limit && report.fits());
            }
            assert!(report.tokens_after < report.tokens_before || report.edits.is_empty());
        }
        dropping.prepare().unwrap();
    }
    // 40 turns of results: all of them are still there, most cleared, where the
    // drop-only session forgot the oldest.
    assert_eq!(edited.len(), 1 + 39 * 2);
    assert!(dropping.len() < edited.len());
    let totals = edited.edit_totals();
    assert!(totals.cleared_tool_uses > 0 && totals.saved_tokens > 0);
}

#[test]
fn a_session_whose_every_prompt_needs_edits() {
    // Every result is 90% of the limit: once there are two, each prompt is over
    // until the new one is truncated.
    let limit = 1_000;
    let mut session = ChatSession::new(words as Words, limit).with_edits(Edits::default());
    session.push(Message::user(TASK)).unwrap();
    session.extend(agent_turn(1, 900)).unwrap();
    assert!(session.prepare().unwrap().edits().is_none());
    for turn in 2..60 {
        session.extend(agent_turn(turn, 900)).unwrap();
        let prompt = session.prepare().unwrap();
        assert_prompt(&prompt, limit);
        let report = prompt.edits().expect("every prompt is over the limit");
        let new_call = format!("call_{turn}");
        assert!(
            report
                .edits
                .iter()
                .any(|e| e.kind == EditKind::TruncateToolResult
                    && e.call_id.as_deref() == Some(new_call.as_str())),
            "turn {turn}: the new result was truncated"
        );
        assert!(prompt.messages().iter().any(|m| m.content == TASK));
    }
}

#[test]
fn keep_larger_than_the_number_of_results_clears_nothing() {
    let limit = 2_000;
    let mut session = ChatSession::new(words as Words, limit)
        .with_edits(Edits::default().clear_tool_results(1_000).no_truncation());
    for turn in 0..50 {
        session.extend(agent_turn(turn, 150)).unwrap();
        let prompt = session.prepare().unwrap();
        assert_prompt(&prompt, limit);
        assert!(cleared(prompt.messages()).is_empty());
        assert!(prompt.messages().iter().any(|m| m.content == TASK));
        if let Some(report) = prompt.edits() {
            assert!(report.edits.is_empty(), "{:?}", report.edits);
        }
    }
    // Nothing could be cleared, so the cut moved: the task stayed all the same.
    assert!(session.len() < 1 + 49 * 2);
}

#[test]
fn edits_off_is_the_drop_only_session() {
    let session: ChatSession<Message, Words> =
        ChatSession::new(words as Words, 100).with_edits(Edits::none());
    assert!(session.edits().is_none());
    let session = session.with_edits(Edits::default());
    assert_eq!(session.edits(), Some(&Edits::default()));
}

/// One step of a random session.
#[derive(Debug, Clone)]
enum Step {
    User(usize),
    Tools(Vec<usize>),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        1 => (1usize..40).prop_map(Step::User),
        4 => prop::collection::vec(1usize..200, 1..4).prop_map(Step::Tools),
    ];
    prop::collection::vec(step, 1..80)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_sessions_fit_keep_the_task_and_stay_edited(
        steps in steps(),
        limit in 900usize..3_000,
        keep in 0usize..5,
        pin in any::<bool>(),
        truncate in any::<bool>(),
    ) {
        let mut edits = Edits::default().clear_tool_results(keep).pin_task(pin);
        if !truncate {
            edits = edits.no_truncation();
        }
        let mut session = ChatSession::new(words as Words, limit).with_edits(edits);
        session.push(Message::system("Agent.")).unwrap();
        session.push(Message::user(TASK)).unwrap();
        let mut ever_cleared: HashSet<String> = HashSet::new();
        for (i, step) in steps.iter().enumerate() {
            let n = i + 1;
            // Pushes never fail here: the largest unit with the task, the
            // latest question and the system message is under the smallest limit.
            match step {
                Step::User(len) => {
                    session.push(Message::user(format!("turn {n}: {}", "ask ".repeat(*len)))).unwrap();
                }
                Step::Tools(results) => {
                    let ids: Vec<String> = (0..results.len()).map(|k| format!("call_{n}_{k}")).collect();
                    let call = ids.iter().fold(Message::assistant(format!("turn {n}: calling")), |m, id| {
                        m.with_tool_call(ToolCall::new(id, "grep", "{}"))
                    });
                    session.push(call).unwrap();
                    for (id, len) in ids.iter().zip(results) {
                        session.push(Message::tool(id, "match ".repeat(*len))).unwrap();
                    }
                }
            }
            let prompt = session.prepare().unwrap();
            assert_prompt(&prompt, limit);
            let messages = prompt.messages();
            if pin {
                prop_assert!(messages.iter().any(|m| m.content == TASK), "task lost at step {}", n);
            }
            for m in messages.iter().filter(|m| m.role == Role::Tool) {
                let id = m.tool_call_id.as_deref().unwrap();
                if ever_cleared.contains(id) {
                    prop_assert_eq!(&m.content, Edits::DEFAULT_PLACEHOLDER);
                }
            }
            ever_cleared.extend(cleared(messages));
            prop_assert!(messages.iter().map(ChatMessage::role).next() == Some(Role::System));
        }
    }
}

#[test]
fn edits_count_no_unedited_message_again() {
    use std::cell::RefCell;

    // The texts the counter sees, from the first prepare that edits on.
    let seen: RefCell<Vec<String>> = RefCell::new(Vec::new());
    let counter = |text: &str| {
        seen.borrow_mut().push(text.to_owned());
        words(text)
    };
    let mut session = ChatSession::new(&counter, 2_000).with_edits(Edits::default());
    let mut edited = false;
    for turn in 0..60 {
        session.extend(agent_turn(turn, 150)).unwrap();
        seen.borrow_mut().clear();
        let prompt = session.prepare().unwrap();
        let Some(report) = prompt.edits() else {
            assert!(
                seen.borrow().is_empty(),
                "a prompt that fits counts nothing"
            );
            continue;
        };
        let named: HashSet<usize> = report.edits.iter().map(|e| e.message).collect();
        edited |= !named.is_empty();
        if prompt.cut_moved() {
            continue;
        }
        // Only what the edits wrote, and the messages they edited, were counted.
        let seen = seen.borrow();
        for (p, message) in prompt.messages().iter().enumerate() {
            if !named.contains(&p) && message.content.len() > 100 {
                assert!(
                    !seen.contains(&message.content),
                    "message {p} counted again"
                );
            }
        }
    }
    assert!(edited);
}

#[test]
fn a_hook_and_edits_together_fit() {
    let limit = 2_500;
    let mut session = ChatSession::new(words as Words, limit).with_edits(Edits::default());
    for turn in 0..80 {
        session.extend(agent_turn(turn, 150)).unwrap();
        let prompt = session
            .prepare_with(|ctx| {
                // Forget every tenth turn's call, with its result.
                let noise: Vec<usize> = ctx
                    .elements()
                    .iter()
                    .filter(|e| {
                        e.message
                            .tool_calls
                            .first()
                            .is_some_and(|c| c.id.ends_with('0'))
                    })
                    .map(|e| e.seq)
                    .collect();
                ctx.remove(noise);
            })
            .unwrap();
        assert_prompt(&prompt, limit);
        assert!(prompt.messages().iter().any(|m| m.content == TASK));
        assert!(
            !prompt
                .messages()
                .iter()
                .any(|m| m.tool_calls.first().is_some_and(|c| c.id.ends_with('0')))
        );
    }
}

#[test]
fn summaries_with_edits_cover_what_the_cut_drops() {
    let limit = 1_500;
    let mut session = ChatSession::new(words as Words, limit).with_edits(Edits::default());
    let mut summarized = 0;
    for turn in 0..300 {
        session.extend(agent_turn(turn, 100)).unwrap();
        let prompt = session
            .prepare_summarizing(|input| {
                summarized += input.dropped().len();
                // The dropped messages come as the edits left them.
                assert!(input.dropped().iter().all(|m| m.content != TASK));
                Some(Message::user("a summary of the earlier turns"))
            })
            .unwrap();
        assert_prompt(&prompt, limit);
        assert!(prompt.messages().iter().any(|m| m.content == TASK));
    }
    assert!(summarized > 0);
}

/// Anthropic messages: parallel calls after thinking, their results in one user
/// message, and a request Anthropic takes.
mod anthropic {
    use super::{Words, words};
    use ctxbudget::chat::edit::Edits;
    use ctxbudget::chat::{ChatFormat, ChatSession};
    use ctxbudget::request::WireRequest;
    use ctxbudget::request::anthropic::{AnthropicMessage, MessagesRequest};
    use serde_json::{Value, json};

    fn message(value: Value) -> AnthropicMessage {
        serde_json::from_value(value).unwrap()
    }

    fn call(ids: &[String], thinking: bool) -> AnthropicMessage {
        let mut blocks = Vec::new();
        if thinking {
            blocks.push(json!({"type": "thinking", "thinking": "Look at the files first. ".repeat(20), "signature": "c2ln"}));
        }
        for id in ids {
            blocks.push(json!({"type": "tool_use", "id": id, "name": "read", "input": {"path": "src/lib.rs"}}));
        }
        message(json!({"role": "assistant", "content": blocks}))
    }

    fn results(ids: &[String], words: usize) -> AnthropicMessage {
        let blocks: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "fn read() {} ".repeat(words / 3)}))
            .collect();
        message(json!({"role": "user", "content": blocks}))
    }

    fn validate(prompt: &[AnthropicMessage]) -> Result<(), String> {
        let body = json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 16000,
            "thinking": {"type": "enabled", "budget_tokens": 8000},
            "tools": [{"name": "read", "input_schema": {"type": "object"}}],
            "messages": prompt,
        });
        let request = MessagesRequest::from_json(&body.to_string()).map_err(|e| e.to_string())?;
        request.validate().map_err(|e| e.to_string())
    }

    #[test]
    fn an_anthropic_session_with_thinking_stays_valid_and_keeps_its_task() {
        let limit = 3_000;
        let task = "Port the parser to the new lexer.";
        let mut session: ChatSession<AnthropicMessage, Words> =
            ChatSession::new(words as Words, limit)
                .with_format(ChatFormat::anthropic())
                .with_edits(Edits::default());
        session
            .push(message(json!({"role": "user", "content": task})))
            .unwrap();
        let mut thinking_dropped = 0;
        for turn in 1..300 {
            if turn % 10 == 0 {
                session
                    .push(message(
                        json!({"role": "assistant", "content": "Done with this part."}),
                    ))
                    .unwrap();
                session
                    .push(message(
                        json!({"role": "user", "content": format!("Now part {turn}.")}),
                    ))
                    .unwrap();
            }
            let ids: Vec<String> = (0..2).map(|k| format!("toolu_{turn}_{k}")).collect();
            session
                .push(call(&ids, turn % 10 == 0 || turn == 1))
                .unwrap();
            session.push(results(&ids, 90)).unwrap();
            let prompt = session.prepare().unwrap();
            assert!(prompt.tokens() <= limit);
            assert_eq!(
                ChatFormat::anthropic().count_messages(&(words as Words), prompt.messages()),
                prompt.tokens()
            );
            if let Err(e) = validate(prompt.messages()) {
                panic!("turn {turn}: {e}");
            }
            assert!(
                prompt.messages().iter().any(|m| m.text() == task),
                "turn {turn}"
            );
            thinking_dropped += prompt.edits().map_or(0, |r| r.totals.thinking_dropped);
        }
        let totals = session.edit_totals();
        assert!(totals.cleared_tool_uses > 0, "{totals:?}");
        assert_eq!(totals.thinking_dropped, thinking_dropped);
    }
}
