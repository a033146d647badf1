//! `ChatSession`: counting once, the cache-stable cut, summaries, the hook, bad
//! input, and the invariants of any sequence of pushes and prepares (fits, no
//! orphans, a stable prefix that is what the previous prompt sent).

use std::cell::Cell;
use std::collections::HashSet;

use ctxbudget::request::anthropic::AnthropicMessage;
use ctxbudget::{
    CharEstimate, ChatTrimmer, Message, TokenCounter,
    chat::{
        ChatFormat, ChatMessage, ChatSession, CutPolicy, Role, SessionError, ToolCall, ToolCallRef,
    },
};
use proptest::prelude::*;

/// A message type of the caller's own that answers several calls in one message,
/// as Anthropic's user messages of `tool_result` blocks do.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    role: Role,
    text: String,
    calls: Vec<String>,
    answers: Vec<String>,
}

impl Block {
    fn new(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            text: text.into(),
            calls: Vec::new(),
            answers: Vec::new(),
        }
    }

    fn calling(ids: &[&str]) -> Self {
        Self {
            calls: ids.iter().map(|&id| id.to_owned()).collect(),
            ..Self::new(Role::Assistant, "")
        }
    }

    fn answering(ids: &[&str], text: impl Into<String>) -> Self {
        Self {
            answers: ids.iter().map(|&id| id.to_owned()).collect(),
            ..Self::new(Role::User, text)
        }
    }
}

impl ChatMessage for Block {
    fn role(&self) -> Role {
        self.role
    }
    fn content(&self) -> &str {
        &self.text
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.calls.iter().map(|id| ToolCallRef {
            id,
            name: "tool",
            arguments: "{}",
        })
    }
    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.answers.iter().map(String::as_str)
    }
}

/// Every tool result follows its call with only results in between, and every
/// call has all its results.
fn assert_paired<M: ChatMessage>(prompt: &[M]) {
    let mut waiting: HashSet<String> = HashSet::new();
    for (i, m) in prompt.iter().enumerate() {
        let results: Vec<&str> = m.tool_result_ids().collect();
        if m.role() == Role::Tool || !results.is_empty() {
            assert!(!results.is_empty(), "result without id at {i}");
            for id in results {
                assert!(waiting.remove(id), "orphan result {id} at {i}");
            }
        } else {
            assert!(waiting.is_empty(), "calls {waiting:?} unanswered at {i}");
            if m.role() == Role::Assistant {
                waiting = m.tool_calls().map(|c| c.id.to_owned()).collect();
            }
        }
    }
    assert!(
        waiting.is_empty(),
        "calls {waiting:?} unanswered at the end"
    );
}

#[test]
fn each_message_is_counted_once_and_a_prompt_that_fits_costs_nothing() {
    let counted = Cell::new(0usize);
    let counting = |text: &str| {
        counted.set(counted.get() + 1);
        CharEstimate.count(text)
    };
    let mut session = ChatSession::new(&counting, 10_000).with_format(ChatFormat::content_only());
    session.push(Message::system("Be brief.")).unwrap();
    for i in 0..200 {
        session
            .push(Message::user(format!("question {i}")))
            .unwrap();
        // A role and a content per message.
        let before = counted.get();
        let prompt = session.prepare().unwrap();
        assert_eq!(counted.get(), before, "prepare counted again");
        assert!(prompt.tokens() <= 10_000);
    }
    assert_eq!(counted.get(), 2 * 201);
    // The hook sees remembered costs: nothing is counted either.
    let before = counted.get();
    let prompt = session
        .prepare_with(|ctx| {
            assert_eq!(ctx.elements().len(), 201);
            assert_eq!(ctx.elements()[1].tokens, 1 + 3); // "user" + "question 0"
            ctx.remove(1);
        })
        .unwrap();
    assert_eq!(prompt.messages().len(), 200);
    assert_eq!(counted.get(), before);
}

/// A long session with the cache-stable policy: the prompt always fits; while it
/// fits the cut stays and every prompt begins with the previous one; when the cut
/// moves, the prompt drops to the low-water mark at most.
#[test]
fn the_cut_stays_while_the_prompt_fits_and_then_drops_to_the_low_water_mark() {
    let limit = 2_000;
    let policy = CutPolicy::cache_stable()
        .with_low_water(0.5)
        .with_grid(0.05);
    let mut session = ChatSession::new(CharEstimate, limit).with_policy(policy);
    session
        .push(Message::system("You are a careful assistant."))
        .unwrap();
    let mut previous: Vec<Message> = Vec::new();
    let (mut cuts, mut turns_between) = (0, Vec::new());
    let mut since_cut = 0;
    for turn in 0..300 {
        session
            .push(Message::user(format!("Please look at item {turn}.")))
            .unwrap();
        let id = format!("call_{turn}");
        session
            .push(Message::assistant("").with_tool_call(ToolCall::new(&id, "read", "{}")))
            .unwrap();
        let output = "lorem ipsum ".repeat(5 + (turn * 7) % 40);
        session.push(Message::tool(id, output)).unwrap();

        let prompt = session.prepare().unwrap();
        let messages = prompt.messages();
        assert!(prompt.tokens() <= limit);
        assert_eq!(
            prompt.tokens(),
            ChatFormat::openai().count_messages(&CharEstimate, messages)
        );
        assert_paired(messages);
        assert_eq!(messages[0].role, Role::System);
        if let Some(stable) = prompt.stable_prefix() {
            assert_eq!(messages[..=stable], previous[..=stable]);
        }
        if prompt.cut_moved() {
            cuts += 1;
            turns_between.push(since_cut);
            since_cut = 0;
            assert!(
                prompt.tokens() <= limit / 2,
                "{} after a cut",
                prompt.tokens()
            );
            // Only the system message is where it was.
            assert_eq!(prompt.stable_prefix(), Some(0));
            assert_eq!(prompt.head_len(), 1);
        } else {
            since_cut += 1;
            if turn > 0 {
                assert_eq!(prompt.stable_prefix(), Some(previous.len() - 1));
            }
        }
        previous = messages.to_vec();
        session.push(Message::assistant("Noted.")).unwrap();
    }
    assert!(cuts >= 10, "{cuts} cuts");
    // Many turns pass between two cuts.
    let settled = &turns_between[1..];
    assert!(settled.iter().all(|&t| t >= 3), "{turns_between:?}");
}

/// With the minimal-fit policy and no latest-user protection, each prompt is what
/// `ChatTrimmer` keeps of the whole history.
#[test]
fn minimal_fit_keeps_what_the_trimmer_keeps_of_the_whole_history() {
    let limit = 700;
    let mut session = ChatSession::new(CharEstimate, limit)
        .with_policy(CutPolicy::minimal_fit())
        .with_keep_latest_user(false);
    let whole_history = ChatTrimmer::new(CharEstimate, limit).with_keep_latest_user(false);
    let mut history = vec![Message::system("Answer with care.")];
    session.push(history[0].clone()).unwrap();
    let mut cuts = 0;
    for turn in 0..120 {
        let mut turn_messages = vec![Message::user(format!("Turn {turn}: what next?"))];
        if turn % 3 == 0 {
            let (a, b) = (format!("a{turn}"), format!("b{turn}"));
            turn_messages.push(
                Message::assistant("")
                    .with_tool_call(ToolCall::new(&a, "f", "{}"))
                    .with_tool_call(ToolCall::new(&b, "g", "{}")),
            );
            turn_messages.push(Message::tool(a, "x".repeat(40 + turn % 17)));
            turn_messages.push(Message::tool(b, "y".repeat(10 + turn % 23)));
        }
        turn_messages.push(Message::assistant("z".repeat(20 + turn % 31)));
        for m in turn_messages {
            session.push(m.clone()).unwrap();
            history.push(m);
        }
        let prompt = session.prepare().unwrap();
        cuts += usize::from(prompt.cut_moved());
        let trimmed = whole_history.trim(&history).unwrap();
        let expected: Vec<&Message> = trimmed.messages();
        let got: Vec<&Message> = prompt.messages().iter().collect();
        assert_eq!(got, expected, "turn {turn}");
        assert_eq!(prompt.tokens(), trimmed.tokens());
    }
    // Minimal fit moves the cut on nearly every turn once at the limit.
    assert!(cuts > 80, "{cuts} cuts");
}

#[test]
fn a_message_answering_several_calls_goes_with_them() {
    let mut session = ChatSession::new(CharEstimate, 200).with_policy(CutPolicy::minimal_fit());
    session.push(Block::new(Role::User, "Check both.")).unwrap();
    session.push(Block::calling(&["a", "b"])).unwrap();
    // One user message answers both calls.
    session
        .push(Block::answering(&["a", "b"], "a: ok; b: ok"))
        .unwrap();
    assert!(session.pending_calls().is_empty());
    // Answering again is refused, as is a call id already used.
    assert_eq!(
        session.push(Block::answering(&["a"], "again")),
        Err(SessionError::DuplicateToolResult { id: "a".into() })
    );
    assert_eq!(
        session.push(Block::calling(&["b"])),
        Err(SessionError::DuplicateToolCallId { id: "b".into() })
    );
    for i in 0..20 {
        session
            .push(Block::new(Role::User, format!("question {i} ").repeat(3)))
            .unwrap();
        let prompt = session.prepare().unwrap();
        assert_paired(prompt.messages());
        assert!(prompt.tokens() <= 200);
    }
    // The unit left whole.
    assert!(
        session
            .messages()
            .iter()
            .all(|m| m.calls.is_empty() && m.answers.is_empty())
    );
}

#[test]
fn bad_input_is_refused_and_leaves_the_session_as_it_was() {
    let mut session = ChatSession::new(CharEstimate, 100);
    session.push(Message::system("Be brief.")).unwrap();
    session.push(Message::user("Time?")).unwrap();
    let snapshot = session.clone();
    let same = |s: &ChatSession<Message, CharEstimate>| {
        assert_eq!(s.messages(), snapshot.messages());
        assert_eq!(s.tokens(), snapshot.tokens());
        assert_eq!(s.pending_calls(), snapshot.pending_calls());
    };

    // A result with no call.
    let err = session.push(Message::tool("c9", "12:00")).unwrap_err();
    assert_eq!(err, SessionError::UnknownToolCall { id: "c9".into() });
    assert!(
        err.to_string()
            .ends_with("push the call first, then its results right after it"),
        "{err}"
    );
    same(&session);
    // A tool message that names no call.
    let nameless = Message {
        tool_call_id: None,
        ..Message::tool("", "12:00")
    };
    assert_eq!(
        session.push(nameless),
        Err(SessionError::ToolResultWithoutId)
    );
    same(&session);
    // A call repeating an id within the message.
    let twice = Message::assistant("")
        .with_tool_call(ToolCall::new("c1", "clock", "{}"))
        .with_tool_call(ToolCall::new("c1", "clock", "{}"));
    assert_eq!(
        session.push(twice),
        Err(SessionError::DuplicateToolCallId { id: "c1".into() })
    );
    same(&session);
    // Too large for any prompt.
    let err = session.push(Message::user("x".repeat(1_000))).unwrap_err();
    let SessionError::MessageTooLarge {
        tokens,
        needed,
        limit,
    } = err.clone()
    else {
        panic!("{err}");
    };
    assert_eq!((tokens, limit), (254, 100));
    assert_eq!(needed, 8 + 254 + 3); // the system message, the message, the priming
    assert!(err.to_string().contains("165 over"), "{err}");
    same(&session);

    // A call waiting for results blocks other messages and prepares.
    session
        .push(
            Message::assistant("")
                .with_tool_call(ToolCall::new("c1", "clock", "{}"))
                .with_tool_call(ToolCall::new("c2", "date", "{}")),
        )
        .unwrap();
    session.push(Message::tool("c2", "Monday")).unwrap();
    let snapshot = session.clone();
    let err = session.push(Message::user("Well?")).unwrap_err();
    assert_eq!(
        err,
        SessionError::PendingToolCalls {
            ids: vec!["c1".into()]
        }
    );
    assert!(
        err.to_string()
            .starts_with("tool call `c1` has no result yet")
    );
    assert_eq!(session.messages(), snapshot.messages());
    assert!(session.prepare().is_err());
    assert_eq!(
        session.push(Message::tool("c2", "Tuesday")),
        Err(SessionError::DuplicateToolResult { id: "c2".into() })
    );
    // A message making calls and answering them.
    let both = Message {
        tool_call_id: Some("c1".into()),
        ..Message::assistant("").with_tool_call(ToolCall::new("c3", "f", "{}"))
    };
    assert_eq!(session.push(both), Err(SessionError::CallsAndResults));
    assert_eq!(session.messages(), snapshot.messages());
    // A result too large once the call's other results are counted.
    let err = session
        .push(Message::tool("c1", "y".repeat(300)))
        .unwrap_err();
    assert!(matches!(err, SessionError::MessageTooLarge { .. }), "{err}");
    assert_eq!(session.messages(), snapshot.messages());
    session.push(Message::tool("c1", "12:00")).unwrap();
    session.prepare().unwrap();

    // The reply priming alone over the limit.
    let mut tiny = ChatSession::new(CharEstimate, 2);
    assert_eq!(
        tiny.push(Message::user("hi")),
        Err(SessionError::ReplyPriming {
            priming: 3,
            limit: 2
        })
    );
    assert!(tiny.prepare().is_err());
    assert!(tiny.is_empty());
}

#[test]
fn a_too_large_summary_is_refused_and_a_good_one_is_kept_in_the_head() {
    let policy = CutPolicy::cache_stable().with_low_water(0.5).with_grid(0.0);
    let mut session = ChatSession::new(CharEstimate, 150).with_policy(policy);
    session.push(Message::system("Be brief.")).unwrap();
    for i in 0..6 {
        session
            .push(Message::user(format!("question {i} about the design")))
            .unwrap();
        session.prepare().unwrap();
        session
            .push(Message::assistant("an answer of some length"))
            .unwrap();
    }
    session
        .push(Message::user("the question that overflows it"))
        .unwrap();
    let snapshot = session.clone();
    let err = session
        .prepare_summarizing(|_| Some(Message::user("w ".repeat(400))))
        .unwrap_err();
    assert!(matches!(err, SessionError::SummaryTooLarge { .. }), "{err}");
    assert_eq!(session.messages(), snapshot.messages());
    let prompt = session
        .prepare_summarizing(|input| {
            assert!(input.room() >= 75, "{}", input.room());
            assert!(input.previous().is_none());
            assert!(!input.dropped().is_empty());
            assert!(input.dropped().iter().all(|m| m.role != Role::System));
            Some(Message::user(format!(
                "[{} earlier messages]",
                input.dropped().len()
            )))
        })
        .unwrap();
    assert!(prompt.cut_moved());
    assert_eq!(prompt.head_len(), 2);
    assert!(prompt.messages()[1].content.starts_with('['));
    assert!(prompt.tokens() <= 150);
    let summary_len = prompt.messages().len();
    // The next turns keep the summary in place, in the stable prefix.
    session.push(Message::assistant("ok")).unwrap();
    let prompt = session.prepare().unwrap();
    assert!(!prompt.cut_moved());
    assert_eq!(prompt.stable_prefix(), Some(summary_len - 1));
    assert_eq!(
        prompt.cache_breakpoints(),
        [1, summary_len - 1, summary_len]
    );
    // A summary set by hand replaces it and is returned.
    let old = session.set_summary(Message::user("[short]")).unwrap();
    assert!(old.unwrap().content.starts_with('['));
    assert_eq!(session.summary().unwrap().content, "[short]");
    let prompt = session.prepare().unwrap();
    assert_eq!(prompt.stable_prefix(), Some(0));
    assert_eq!(
        session.set_summary(Message::tool("x", "result")),
        Err(SessionError::CallsAndResults)
    );
}

#[test]
fn the_latest_user_message_is_carried_past_the_cut() {
    let mut session = ChatSession::new(CharEstimate, 300);
    session.push(Message::system("You are an agent.")).unwrap();
    session
        .push(Message::user("Fix the failing build, please."))
        .unwrap();
    for step in 0..40 {
        let id = format!("s{step}");
        session
            .push(Message::assistant("").with_tool_call(ToolCall::new(&id, "run", "{}")))
            .unwrap();
        session
            .push(Message::tool(id, "output line ".repeat(3 + step % 5)))
            .unwrap();
        let prompt = session.prepare().unwrap();
        let messages = prompt.messages();
        assert_paired(messages);
        assert!(
            messages
                .iter()
                .any(|m| m.content == "Fix the failing build, please.")
        );
    }
    // It sits in the head, after the system message.
    assert_eq!(session.head_len(), 2);
    assert_eq!(session.messages()[1].role, Role::User);
    // A new request replaces it; the next cut drops the old one.
    session.push(Message::user("Now run the tests.")).unwrap();
    for step in 0..40 {
        let id = format!("t{step}");
        session
            .push(Message::assistant("").with_tool_call(ToolCall::new(&id, "run", "{}")))
            .unwrap();
        session.push(Message::tool(id, "ok ".repeat(20))).unwrap();
        session.prepare().unwrap();
    }
    let contents: Vec<&str> = session
        .messages()
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert!(!contents.contains(&"Fix the failing build, please."));
    assert!(contents.contains(&"Now run the tests."));
}

#[test]
fn the_hook_removes_for_good_and_takes_tool_partners_along() {
    let mut session = ChatSession::new(CharEstimate, 10_000);
    session.push(Message::user("Weather?")).unwrap();
    session
        .push(
            Message::assistant("")
                .with_tool_call(ToolCall::new("p", "weather", "{}"))
                .with_tool_call(ToolCall::new("r", "weather", "{}")),
        )
        .unwrap();
    session.push(Message::tool("p", "sunny")).unwrap();
    session.push(Message::tool("r", "rain")).unwrap();
    session.push(Message::assistant("Sunny and rain.")).unwrap();
    let first = session.prepare().unwrap().messages().to_vec();
    assert_eq!(first.len(), 5);
    let prompt = session
        .prepare_with(|ctx| {
            ctx.remove(3); // one result: the call and the other result go too
        })
        .unwrap();
    assert_eq!(prompt.messages().len(), 2);
    assert_eq!(prompt.dropped().len(), 3);
    assert_eq!(prompt.stable_prefix(), Some(0));
    assert_paired(prompt.messages());
    // For good: the next prompt does not bring them back.
    session.push(Message::user("Thanks.")).unwrap();
    let prompt = session.prepare().unwrap();
    assert_eq!(prompt.messages().len(), 3);
    assert_eq!(prompt.stable_prefix(), Some(1));
    // The ids of the removed call are free again.
    session
        .push(Message::assistant("").with_tool_call(ToolCall::new("p", "weather", "{}")))
        .unwrap();
}

#[test]
fn the_grid_puts_the_cut_on_the_same_places_whatever_the_turn() {
    // Two sessions with the same messages, one prepared every turn and one every
    // third turn: their cuts land on the same messages (without the grid, 4 of 30
    // did).
    let policy = CutPolicy::cache_stable()
        .with_low_water(0.7)
        .with_grid(0.25);
    let make = || ChatSession::new(CharEstimate, 1_000).with_policy(policy);
    let (mut every, mut sparse) = (make(), make());
    let mut starts_every = HashSet::new();
    let mut starts_sparse = HashSet::new();
    for turn in 0..600 {
        let m = Message::user(format!("{turn} ").repeat(5 + turn % 20));
        every.push(m.clone()).unwrap();
        sparse.push(m).unwrap();
        let p = every.prepare().unwrap();
        if p.cut_moved() {
            starts_every.insert(p.messages()[0].content.clone());
        }
        if turn % 3 == 0 {
            let p = sparse.prepare().unwrap();
            if p.cut_moved() {
                starts_sparse.insert(p.messages()[0].content.clone());
            }
        }
    }
    assert!(starts_sparse.len() > 10, "{} cuts", starts_sparse.len());
    let shared = starts_sparse.intersection(&starts_every).count();
    assert!(
        shared * 10 >= starts_sparse.len() * 9,
        "{shared} of {} cuts shared",
        starts_sparse.len()
    );
}

#[test]
fn a_limit_can_change_when_what_must_stay_fits() {
    let mut session = ChatSession::new(CharEstimate, 1_000);
    session.push(Message::system("s".repeat(200))).unwrap();
    for i in 0..30 {
        session
            .push(Message::user(format!("{i}").repeat(40)))
            .unwrap();
    }
    // The system message (3 + 2 + 50), the latest user message (3 + 1 + 20), and 3
    // to prime the reply.
    let err = session.set_limit(50).unwrap_err();
    assert_eq!(
        err,
        SessionError::LimitTooSmall {
            needed: 55 + 24 + 3,
            limit: 50
        }
    );
    // No message was pushed: the error names none (it said "the message costs 0
    // tokens").
    let message = err.to_string();
    assert!(!message.contains("message costs"), "{message}");
    assert!(message.contains("32 over the new limit of 50"), "{message}");
    assert_eq!(session.limit(), 1_000);
    session.set_limit(200).unwrap();
    let prompt = session.prepare().unwrap();
    assert!(prompt.cut_moved() && prompt.tokens() <= 200);
}

/// 100,000 parallel calls: the call, its results one message each (the last call
/// answered first), a pop that rebuilds the ledger, and a cut that drops them all.
/// Each result is a hash lookup now; the open calls were searched one by one (30,000
/// calls took 1.44 s in a release build, and 100,000 take minutes in a test build).
#[test]
fn a_hundred_thousand_parallel_calls_push_pop_and_cut_in_linear_time() {
    const CALLS: usize = 100_000;
    let mut session = ChatSession::new(CharEstimate, usize::MAX / 2)
        .with_format(ChatFormat::content_only())
        .with_policy(CutPolicy::minimal_fit());
    session.push(Message::user("Read every file.")).unwrap();
    let call = (0..CALLS).fold(Message::assistant(""), |message, i| {
        message.with_tool_call(ToolCall::new(format!("call_{i}"), "read", "{}"))
    });
    session.push(call).unwrap();
    for i in (0..CALLS).rev() {
        session
            .push(Message::tool(format!("call_{i}"), "ok"))
            .unwrap();
    }
    assert!(session.pending_calls().is_empty());
    assert_eq!(
        session.push(Message::tool("call_5", "again")),
        Err(SessionError::DuplicateToolResult {
            id: "call_5".into()
        })
    );
    let last = session.pop().expect("the last result");
    assert_eq!(session.pending_calls(), ["call_0"]);
    session.push(last).unwrap();
    session.push(Message::user("Now sum them up.")).unwrap();
    session.set_limit(100).unwrap();
    let prompt = session.prepare().unwrap();
    assert!(prompt.cut_moved());
    assert_eq!(prompt.messages(), [Message::user("Now sum them up.")]);
    assert_eq!(prompt.dropped().len(), CALLS + 2);
    // The dropped call's ids stay unanswerable.
    assert_eq!(
        session.push(Message::tool("call_1", "late")),
        Err(SessionError::UnknownToolCall {
            id: "call_1".into()
        })
    );
}

/// A hostile counter that prices a message near `usize::MAX`, in a session whose limit
/// is `usize::MAX`: the sum is too large to count, and the message says so instead of
/// "0 over the limit".
#[test]
fn a_message_too_large_to_count_is_not_zero_over_the_limit() {
    let huge = |t: &str| {
        if t == "huge" {
            usize::MAX - 20
        } else {
            t.len()
        }
    };
    let mut session = ChatSession::new(huge, usize::MAX);
    session.push(Message::user("hello")).unwrap();
    let err = session.push(Message::assistant("huge")).unwrap_err();
    let SessionError::MessageTooLarge {
        tokens,
        needed,
        limit,
    } = err
    else {
        panic!("{err}");
    };
    assert_eq!((needed, limit), (usize::MAX, usize::MAX));
    // The message alone still counts: 3 per message, "assistant", its content.
    assert_eq!(tokens, usize::MAX - 20 + 3 + 9);
    let message = err.to_string();
    assert!(!message.contains(" 0 over"), "{message}");
    // usize::MAX is printed once: as the limit, not as what the prompt needs.
    assert_eq!(
        message.matches(&usize::MAX.to_string()).count(),
        1,
        "{message}"
    );
    assert!(
        message.starts_with("a prompt with the message needs too many tokens to count"),
        "{message}"
    );
    // A message whose own cost saturates says that.
    let err = session
        .push(Message::assistant("huge").with_name("huge"))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the message costs too many tokens to count"),
        "{err}"
    );
    assert_eq!(session.len(), 1);
}

/// Every message says what went wrong, with the numbers, and how to fix it, in about
/// 160 characters (they ran to 200-300, naming builder methods in prose).
#[test]
fn session_error_messages_are_one_sentence_of_what_and_one_of_how() {
    let id = || "call_7Xk2pQ".to_owned();
    let errors = [
        SessionError::UnknownToolCall { id: id() },
        SessionError::DuplicateToolResult { id: id() },
        SessionError::DuplicateToolCallId { id: id() },
        SessionError::ToolResultWithoutId,
        SessionError::CallsAndResults,
        SessionError::PendingToolCalls { ids: vec![id()] },
        SessionError::MessageTooLarge {
            tokens: 12_345,
            needed: 130_000,
            limit: 120_000,
        },
        SessionError::LimitTooSmall {
            needed: 130_000,
            limit: 120_000,
        },
        SessionError::SummaryTooLarge {
            tokens: 12_345,
            room: 10_000,
        },
        SessionError::ReplyPriming {
            priming: 3,
            limit: 2,
        },
        SessionError::ToolLoopDoesNotFit {
            needed: 1_234_567,
            limit: 1_100_000,
        },
        SessionError::ToolLoopDoesNotFit {
            needed: usize::MAX,
            limit: 1_100_000,
        },
    ];
    for err in errors {
        let message = err.to_string();
        assert!(
            message.len() <= 160,
            "{} characters: {message}",
            message.len()
        );
        assert!(message.contains(": "), "no fix: {message}");
    }
}

// ---------------------------------------------------------------------------
// Any sequence of pushes and prepares
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Op {
    /// A plain message of this role and length.
    Say(u8, usize),
    /// A tool call with `n` parallel calls; results of these lengths, answered one
    /// tool message each or all in one user message.
    Call(Vec<usize>, bool),
    Prepare,
    /// A hook that removes these positions (modulo the prompt's length).
    Hook(Vec<usize>),
    Summarize(usize),
    /// Bad input: a result for an unknown call, or a duplicate call id.
    Stray,
    Duplicate,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..4, 0usize..300).prop_map(|(r, n)| Op::Say(r, n)),
        4 => (prop::collection::vec(0usize..400, 1..4), any::<bool>()).prop_map(|(v, one)| Op::Call(v, one)),
        5 => Just(Op::Prepare),
        1 => prop::collection::vec(0usize..64, 0..3).prop_map(Op::Hook),
        1 => (0usize..200).prop_map(Op::Summarize),
        1 => Just(Op::Stray),
        1 => Just(Op::Duplicate),
    ]
}

fn text(len: usize, salt: usize) -> String {
    format!("{salt} ").repeat(len / 3 + 1)
}

/// Checks what a session must always be: it fits once prepared, never orphans, and
/// reports a stable prefix that is what the previous prompt had.
struct Checker<M> {
    previous: Option<Vec<M>>,
    limit: usize,
    format: ChatFormat,
}

impl<M: ChatMessage + Clone + PartialEq + std::fmt::Debug> Checker<M> {
    fn new(limit: usize, format: ChatFormat) -> Self {
        Self {
            previous: None,
            limit,
            format,
        }
    }

    fn prepared(
        &mut self,
        prompt: &ctxbudget::chat::Prepared<'_, M>,
        untouched: bool,
    ) -> Result<(), TestCaseError> {
        let messages = prompt.messages();
        prop_assert!(prompt.tokens() <= self.limit);
        prop_assert_eq!(
            prompt.tokens(),
            self.format.count_messages(&CharEstimate, messages)
        );
        let costs: Vec<usize> = prompt.message_tokens().collect();
        let counted: Vec<usize> = messages
            .iter()
            .map(|m| self.format.message_tokens(&CharEstimate, m))
            .collect();
        prop_assert_eq!(costs, counted);
        assert_paired(messages);
        if let (Some(previous), Some(stable)) = (&self.previous, prompt.stable_prefix()) {
            prop_assert!(stable < previous.len() && stable < messages.len());
            prop_assert_eq!(&messages[..=stable], &previous[..=stable]);
        }
        if let Some(previous) = &self.previous {
            let nothing_left = !prompt.cut_moved() && prompt.dropped().is_empty();
            if untouched && nothing_left && !previous.is_empty() {
                prop_assert_eq!(prompt.stable_prefix(), Some(previous.len() - 1));
            }
        }
        self.previous = Some(messages.to_vec());
        Ok(())
    }
}

/// Pushes a tool call and its results; when a result is refused, takes the call
/// back. Returns whether the call was accepted.
fn push_call(
    session: &mut ChatSession<Block, CharEstimate>,
    lens: &[usize],
    one: bool,
    next_id: &mut usize,
    salt: usize,
) -> Result<bool, TestCaseError> {
    let ids: Vec<String> = lens
        .iter()
        .map(|_| {
            *next_id += 1;
            format!("id{next_id}")
        })
        .collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    if session.push(Block::calling(&refs)).is_err() {
        return Ok(false);
    }
    let results: Vec<Block> = if one {
        vec![Block::answering(&refs, text(lens.iter().sum(), salt))]
    } else {
        refs.iter()
            .zip(lens)
            .map(|(id, &len)| Block {
                role: Role::Tool,
                ..Block::answering(&[id], text(len, salt))
            })
            .collect()
    };
    for result in results {
        let snapshot = session.clone();
        if session.push(result).is_err() {
            prop_assert_eq!(session.messages(), snapshot.messages());
            // Take the call back, with the results pushed so far.
            while !session.pending_calls().is_empty() {
                prop_assert!(session.pop().is_some());
            }
            break;
        }
    }
    Ok(true)
}

/// Makes a call with the last id handed out: refused while that call is in the
/// session, accepted (and answered) once it has left. Returns whether the session
/// changed.
fn reuse_last_id(session: &mut ChatSession<Block, CharEstimate>, next_id: usize) -> bool {
    if next_id == 0 || !session.pending_calls().is_empty() {
        return false;
    }
    let id = format!("id{next_id}");
    if session.push(Block::calling(&[&id])).is_err() {
        return false;
    }
    if session.push(Block::answering(&[&id], "late")).is_err() {
        session.pop();
    }
    true
}

fn run_ops(
    ops: &[Op],
    limit: usize,
    policy: CutPolicy,
    keep_user: bool,
) -> Result<(), TestCaseError> {
    let mut session = ChatSession::new(CharEstimate, limit)
        .with_policy(policy)
        .with_keep_latest_user(keep_user);
    let mut checker = Checker::new(limit, ChatFormat::openai());
    let mut next_id = 0usize;
    let mut systems = 0usize;
    // Whether anything but appends happened since the last prepare.
    let mut untouched = true;
    for (i, op) in ops.iter().enumerate() {
        let before = session.clone();
        let unchanged = |s: &ChatSession<Block, CharEstimate>| -> Result<(), TestCaseError> {
            prop_assert_eq!(s.messages(), before.messages());
            prop_assert_eq!(s.tokens(), before.tokens());
            prop_assert_eq!(s.pending_calls(), before.pending_calls());
            Ok(())
        };
        match op {
            Op::Say(role, len) => {
                let role =
                    [Role::System, Role::User, Role::Assistant, Role::User][usize::from(*role)];
                match session.push(Block::new(role, text(*len, i))) {
                    Ok(_) => systems += usize::from(role == Role::System),
                    Err(_) => unchanged(&session)?,
                }
            }
            Op::Call(lens, one) => {
                if !push_call(&mut session, lens, *one, &mut next_id, i)? {
                    unchanged(&session)?;
                }
            }
            Op::Prepare => {
                let result = session.prepare();
                match result {
                    Ok(prompt) => checker.prepared(&prompt, untouched)?,
                    Err(err) => prop_assert!(false, "prepare failed: {err}"),
                }
                untouched = true;
            }
            Op::Hook(positions) => {
                let prompt = session
                    .prepare_with(|ctx| {
                        let n = ctx.elements().len().max(1);
                        ctx.remove(positions.iter().map(|p| p % n).collect::<Vec<_>>());
                    })
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                checker.prepared(&prompt, false)?;
                let gone = prompt
                    .dropped()
                    .iter()
                    .filter(|m| m.role == Role::System)
                    .count();
                systems -= gone;
                untouched = true;
            }
            Op::Summarize(len) => {
                let result = session.prepare_summarizing(|input| {
                    Some(Block::new(
                        Role::User,
                        text(*len + input.dropped().len(), i),
                    ))
                });
                match result {
                    Ok(prompt) => checker.prepared(&prompt, untouched)?,
                    Err(SessionError::SummaryTooLarge { .. }) => unchanged(&session)?,
                    Err(err) => prop_assert!(false, "prepare failed: {err}"),
                }
                untouched = true;
            }
            Op::Stray => {
                let err = session.push(Block::answering(&["nobody"], "stray"));
                prop_assert!(err.is_err());
                unchanged(&session)?;
            }
            Op::Duplicate => {
                if !reuse_last_id(&mut session, next_id) {
                    unchanged(&session)?;
                }
            }
        }
        // System messages are never dropped but by the hook.
        let kept = session
            .messages()
            .iter()
            .filter(|m| m.role == Role::System)
            .count();
        prop_assert_eq!(kept, systems);
    }
    if session.pending_calls().is_empty() {
        let prompt = session
            .prepare()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        checker.prepared(&prompt, untouched)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_sequence_fits_never_orphans_and_keeps_its_stable_prefix(
        ops in prop::collection::vec(op(), 0..80),
        limit in 60usize..1_500,
        low_water in 0.0f64..1.0,
        grid in 0.0f64..0.5,
        minimal in any::<bool>(),
        keep_user in any::<bool>(),
    ) {
        let policy = if minimal {
            CutPolicy::minimal_fit()
        } else {
            CutPolicy::cache_stable().with_low_water(low_water).with_grid(grid)
        };
        run_ops(&ops, limit, policy, keep_user)?;
    }
}

/// Plays a shipped provider session into a `ChatSession` of the wire format's own
/// messages, and checks the prompt prepared after every message that leaves no call
/// waiting (mid-loop too) as a request body: it validates (no orphan, no split
/// parallel call, a loop that keeps its thinking), fits, and while the cut stays,
/// begins with the previous prompt.
fn play_wire_session<M>(
    body: &str,
    parse: impl Fn(&str) -> Result<(), String>,
    messages: Vec<M>,
    format: ChatFormat,
    limit: usize,
    start_on_user: bool,
) -> usize
where
    M: ChatMessage + Clone + serde::Serialize + PartialEq + std::fmt::Debug,
{
    let counter = ctxbudget::Tiktoken::o200k_base();
    let mut session = ChatSession::new(&counter, limit)
        .with_format(format)
        .with_start_on_user(start_on_user);
    let mut previous: Vec<M> = Vec::new();
    let mut cuts = 0;
    for (i, message) in messages.into_iter().enumerate() {
        session
            .push(message)
            .unwrap_or_else(|e| panic!("message {i}: {e}"));
        if !session.pending_calls().is_empty() {
            continue;
        }
        let prompt = session.prepare().unwrap();
        assert!(prompt.tokens() <= limit);
        let sent = prompt.messages().to_vec();
        if prompt.cut_moved() {
            cuts += 1;
        } else if !previous.is_empty() {
            assert_eq!(
                &sent[..previous.len()],
                &previous[..],
                "the prefix moved at message {i}"
            );
        }
        let mut request: serde_json::Value = serde_json::from_str(body).unwrap();
        request["messages"] = serde_json::to_value(&sent).unwrap();
        parse(&request.to_string()).unwrap_or_else(|e| panic!("turn ending at {i}: {e}"));
        previous = sent;
    }
    cuts
}

#[test]
fn provider_messages_play_in_a_session_and_every_prompt_is_a_valid_request() {
    use ctxbudget::request::WireRequest;
    use ctxbudget::request::anthropic::MessagesRequest;
    use ctxbudget::request::openai::ChatRequest;

    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/requests");
    let openai = std::fs::read_to_string(format!("{dir}/openai/coding_session.json")).unwrap();
    let request = ChatRequest::from_json(&openai).unwrap();
    let full = ctxbudget::request::RequestFitter::new(ctxbudget::Tiktoken::o200k_base())
        .count(&request)
        .tokens;
    let cuts = play_wire_session(
        &openai,
        |json| {
            let r = ChatRequest::from_json(json).map_err(|e| e.to_string())?;
            r.validate().map_err(|e| e.to_string())
        },
        request.messages.clone(),
        request.chat_format(),
        full / 3,
        false,
    );
    assert!(cuts > 0, "a third of the session's tokens cuts it");

    let anthropic = std::fs::read_to_string(format!("{dir}/anthropic/session.json")).unwrap();
    let request = MessagesRequest::from_json(&anthropic).unwrap();
    let full = ctxbudget::request::RequestFitter::new(ctxbudget::Tiktoken::o200k_base())
        .count(&request)
        .tokens;
    // At a fifth, the cut moves inside tool-use loops; it used to land after their
    // thinking step (issue 16.10).
    for share in [3, 5] {
        let cuts = play_wire_session(
            &anthropic,
            |json| {
                // Thinking is on in this body: a prompt whose tool-use loop lost its
                // thinking step is refused.
                let r = MessagesRequest::from_json(json).map_err(|e| e.to_string())?;
                r.validate().map_err(|e| e.to_string())
            },
            request.messages().to_vec(),
            request.chat_format(),
            full / share,
            true,
        );
        assert!(cuts > 0, "1/{share} of the session's tokens cuts it");
    }
}

// ---------------------------------------------------------------------------
// Anthropic: the latest question beside tool results, and thinking loops
// ---------------------------------------------------------------------------

mod wire {
    //! Anthropic messages as a client writes them, and the check that a prompt is a
    //! request Anthropic takes.

    use ctxbudget::chat::{ChatMessage, Role};
    use ctxbudget::request::WireRequest;
    use ctxbudget::request::anthropic::{AnthropicMessage, MessagesRequest};
    use serde_json::{Value, json};

    fn message(value: Value) -> AnthropicMessage {
        serde_json::from_value(value).unwrap()
    }

    /// A question of `len` characters or more.
    pub fn ask(text: &str) -> AnthropicMessage {
        message(json!({"role": "user", "content": text}))
    }

    /// A step of a tool-use loop: calls with these ids, after a thinking block when
    /// `thinking`.
    pub fn call(ids: &[&str], thinking: bool) -> AnthropicMessage {
        let mut blocks = Vec::new();
        if thinking {
            blocks.push(json!({
                "type": "thinking",
                "thinking": "I should look at the files first.",
                "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
            }));
        }
        for id in ids {
            blocks.push(json!({"type": "tool_use", "id": id, "name": "read", "input": {}}));
        }
        message(json!({"role": "assistant", "content": blocks}))
    }

    /// The results of the calls `ids`, each `len` characters, followed by `question`
    /// in the same user message when there is one (as LangChain writes them).
    pub fn results(ids: &[&str], len: usize, question: Option<&str>) -> AnthropicMessage {
        let mut blocks: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "r".repeat(len)}))
            .collect();
        if let Some(question) = question {
            blocks.push(json!({"type": "text", "text": question}));
        }
        message(json!({"role": "user", "content": blocks}))
    }

    /// A final answer, after a thinking block when `thinking`.
    pub fn answer(text: &str, thinking: bool) -> AnthropicMessage {
        let mut blocks = Vec::new();
        if thinking {
            blocks.push(json!({"type": "thinking", "thinking": "Done.", "signature": "c2ln"}));
        }
        blocks.push(json!({"type": "text", "text": text}));
        message(json!({"role": "assistant", "content": blocks}))
    }

    /// Whether `prompt` holds a message whose text contains `text`.
    pub fn holds(prompt: &[AnthropicMessage], text: &str) -> bool {
        prompt.iter().any(|m| m.text().contains(text))
    }

    /// Checks `prompt` as the messages of an Anthropic request, with extended thinking
    /// on when `thinking`. A prompt that starts with an assistant message (the session's cut may
    /// land there unless `with_start_on_user`) gets a user message in front, as a
    /// client sending it to Anthropic would add: the check then sees every message
    /// of the prompt as one turn, whose tool-use loop must start with thinking.
    pub fn validate(prompt: &[AnthropicMessage], thinking: bool) -> Result<(), String> {
        let mut messages = prompt.to_vec();
        if messages
            .first()
            .is_some_and(|m| m.role() == Role::Assistant)
        {
            messages.insert(0, ask("(earlier messages were dropped)"));
        }
        let mut body = json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 16000,
            "tools": [{"name": "read", "input_schema": {"type": "object"}}],
            "messages": messages,
        });
        if thinking {
            body["thinking"] = json!({"type": "enabled", "budget_tokens": 8000});
        }
        let request = MessagesRequest::from_json(&body.to_string()).map_err(|e| e.to_string())?;
        request.validate().map_err(|e| e.to_string())
    }
}

/// LangChain's Anthropic serializer (and any client that answers tool results and asks
/// the next question in one turn) writes one user message of `tool_result` blocks and
/// text. That message is the latest user message: it stays in every prompt, carried
/// with the call its results answer (issue 16.9). The session carried the last
/// results-free user message instead, and its cut dropped the question.
#[test]
fn a_question_beside_tool_results_is_the_latest_user_message_and_stays() {
    use wire::{answer, ask, call, holds, results};

    for start_on_user in [false, true] {
        let mut session = ChatSession::new(CharEstimate, 400)
            .with_format(ChatFormat::anthropic())
            .with_start_on_user(start_on_user);
        session.push(ask("Set the project up.")).unwrap();
        session.push(call(&["c0"], false)).unwrap();
        session.push(results(&["c0"], 80, None)).unwrap();
        session.push(answer("It is set up.", false)).unwrap();
        session.push(call(&["c1"], false)).unwrap();
        let question = "Now fix the failing test in parser.rs.";
        session.push(results(&["c1"], 40, Some(question))).unwrap();
        let mut cuts = 0;
        for step in 2..40 {
            let id = format!("c{step}");
            session.push(call(&[&id], false)).unwrap();
            session.push(results(&[&id], 120, None)).unwrap();
            let prompt = session.prepare().unwrap();
            cuts += usize::from(prompt.cut_moved());
            let messages = prompt.messages();
            assert!(prompt.tokens() <= 400);
            assert_paired(messages);
            assert!(
                holds(messages, question),
                "step {step}: the question was cut"
            );
            if start_on_user {
                // The first user message leads, then the question with its call.
                assert_eq!(messages[0].role(), Role::User, "step {step}");
                assert!(holds(&messages[..1], "Set the project up."), "step {step}");
                if let Err(e) = wire::validate(messages, false) {
                    panic!("step {step}: {e}");
                }
            }
        }
        assert!(cuts > 3, "{cuts} cuts");
        // A newer question replaces it; the next cut drops the old one.
        session.push(ask("Thanks. Now the lexer.")).unwrap();
        for step in 40..60 {
            let id = format!("c{step}");
            session.push(call(&[&id], false)).unwrap();
            session.push(results(&[&id], 120, None)).unwrap();
            session.prepare().unwrap();
        }
        assert!(!holds(session.messages(), question));
        assert!(holds(session.messages(), "Thanks. Now the lexer."));
    }
}

/// With extended thinking, the tool-use loop after the latest question starts with
/// the thinking that began it, or Anthropic rejects the request (issue 16.10): the
/// cut never lands inside that loop, and when the question and the loop no longer
/// fit, prepare says so, with the session unchanged. The session cut into the loop
/// and sent its later steps without the thinking.
#[test]
fn a_tool_loop_that_started_with_thinking_is_never_cut_and_says_when_it_does_not_fit() {
    use wire::{answer, ask, call, results};

    for keep_user in [true, false] {
        let limit = 600;
        let mut session = ChatSession::new(CharEstimate, limit)
            .with_format(ChatFormat::anthropic())
            .with_policy(CutPolicy::minimal_fit())
            .with_keep_latest_user(keep_user);
        // An earlier turn, finished, and the question of this one.
        session.push(ask("Where is the config read?")).unwrap();
        session.push(call(&["a0"], true)).unwrap();
        session.push(results(&["a0"], 200, None)).unwrap();
        session.push(answer("In config.rs.", true)).unwrap();
        session.push(ask("Find the bug in the parser.")).unwrap();
        session.push(call(&["t1"], true)).unwrap();
        session.push(results(&["t1"], 200, None)).unwrap();
        let mut step = 2;
        let err = loop {
            let id = format!("t{step}");
            session.push(call(&[&id], false)).unwrap();
            session.push(results(&[&id], 200, None)).unwrap();
            let snapshot = session.clone();
            match session.prepare() {
                Ok(prompt) => {
                    assert!(prompt.tokens() <= limit);
                    let messages = prompt.messages();
                    wire::validate(messages, true)
                        .unwrap_or_else(|e| panic!("keep {keep_user}, step {step}: {e}"));
                    // The loop is whole: its first step, with the thinking, is here.
                    let first = messages.iter().position(ChatMessage::starts_with_thinking);
                    assert!(first.is_some(), "step {step}: the thinking step was cut");
                }
                Err(err) => {
                    assert_eq!(session.messages(), snapshot.messages());
                    break err;
                }
            }
            step += 1;
            assert!(step < 100, "the loop never outgrew the limit");
        };
        let SessionError::ToolLoopDoesNotFit { needed, limit: l } = err.clone() else {
            panic!("{err}");
        };
        assert_eq!(l, limit);
        assert!(needed > limit, "{err}");
        let message = err.to_string();
        assert!(
            message.len() <= 160,
            "{} characters: {message}",
            message.len()
        );
        assert!(
            message.contains(&format!("{} over", needed - limit)),
            "{message}"
        );
        // A new question ends the loop: it may be cut now.
        session.push(ask("Stop there; what did you find?")).unwrap();
        let prompt = session.prepare().unwrap();
        wire::validate(prompt.messages(), true).unwrap();
        assert!(prompt.tokens() <= limit);
    }
}

/// A session cuts for good, before it knows whether the turn will call a tool: a
/// turn that began with thinking stays whole from its first message even before its
/// first call, or a call made after the cut would leave the loop without its
/// thinking (a case the property test below found).
#[test]
fn a_turn_that_began_with_thinking_stays_whole_before_its_first_call() {
    use wire::{answer, ask, call, results};

    let policy = CutPolicy::cache_stable().with_low_water(0.0).with_grid(0.0);
    let mut session = ChatSession::new(CharEstimate, 300)
        .with_format(ChatFormat::anthropic())
        .with_policy(policy);
    session.push(ask("Where is the config read?")).unwrap();
    session.push(answer(&"c".repeat(800), true)).unwrap();
    session.push(ask("Fix the parser.")).unwrap();
    session.push(answer("Let me look.", true)).unwrap();
    session.push(answer(&"a".repeat(200), false)).unwrap();
    session.push(answer(&"b".repeat(200), false)).unwrap();
    let prompt = session.prepare().unwrap();
    assert!(prompt.cut_moved());
    // The cut went as far as it may: to the turn's first message.
    assert!(prompt.messages()[1].starts_with_thinking());
    session.push(call(&["t1"], false)).unwrap();
    session.push(results(&["t1"], 100, None)).unwrap();
    let prompt = session.prepare().unwrap();
    wire::validate(prompt.messages(), true).unwrap();
}

/// Only the final assistant turn must start with thinking ("you can omit thinking
/// blocks from prior assistant role turns", Anthropic's extended-thinking docs): a
/// cut into an earlier, finished loop is taken, even when the first message it keeps
/// is an assistant step without thinking.
#[test]
fn a_cut_may_land_inside_an_earlier_finished_loop() {
    use wire::{answer, ask, call, results};

    let mut session = ChatSession::new(CharEstimate, 250)
        .with_format(ChatFormat::anthropic())
        .with_policy(CutPolicy::minimal_fit());
    session.push(ask("Where is the config read?")).unwrap();
    session.push(call(&["a0"], true)).unwrap();
    session.push(results(&["a0"], 400, None)).unwrap();
    session.push(call(&["a1"], false)).unwrap();
    session.push(results(&["a1"], 100, None)).unwrap();
    session.push(answer("In config.rs.", true)).unwrap();
    session.push(ask("Find the bug in the parser.")).unwrap();
    session.push(call(&["t1"], true)).unwrap();
    session.push(results(&["t1"], 300, None)).unwrap();
    let prompt = session.prepare().unwrap();
    assert!(prompt.cut_moved());
    let messages = prompt.messages();
    // The earlier loop's second step leads, without thinking.
    assert_eq!(messages[0], call(&["a1"], false));
    wire::validate(messages, true).unwrap();
}

// ---------------------------------------------------------------------------
// Any Anthropic session, with and without extended thinking
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum WireOp {
    /// A question of this length.
    Ask(usize),
    /// A step of a tool-use loop: calls with results of these lengths, answered in
    /// one user message, followed there by a question of this length when `Some`
    /// (as LangChain writes it); the step starts with thinking when it is the first
    /// of its turn and thinking is on, or when `thinks` (interleaved thinking).
    Step(Vec<usize>, Option<usize>, bool),
    /// A final answer of this length.
    Answer(usize, bool),
    Prepare,
    /// A hook that removes these positions (modulo the prompt's length), but never
    /// the latest question: a caller that removes it gives its turn to the one
    /// before, which the session cannot check.
    Hook(Vec<usize>),
    Summarize(usize),
    /// A new limit, as a fraction of the first.
    Limit(f64),
}

fn wire_op() -> impl Strategy<Value = WireOp> {
    prop_oneof![
        3 => (1usize..200).prop_map(WireOp::Ask),
        6 => (
            prop::collection::vec(0usize..500, 1..4),
            prop::option::weighted(0.3, 1usize..150),
            prop::bool::weighted(0.2),
        )
            .prop_map(|(lens, question, thinks)| WireOp::Step(lens, question, thinks)),
        2 => (1usize..200, prop::bool::weighted(0.2)).prop_map(|(n, t)| WireOp::Answer(n, t)),
        5 => Just(WireOp::Prepare),
        1 => prop::collection::vec(0usize..64, 1..3).prop_map(WireOp::Hook),
        1 => (1usize..200).prop_map(WireOp::Summarize),
        1 => (0.3f64..1.5).prop_map(WireOp::Limit),
    ]
}

type WireSession<'c> = ChatSession<AnthropicMessage, &'c dyn TokenCounter>;

/// Where the latest question sits in the session (the summary, a user message
/// too, counts as one on the wire, but it is not the session's to carry).
fn latest_question(session: &WireSession<'_>) -> Option<usize> {
    let summary = session.summary();
    let is_summary = |m: &AnthropicMessage| summary.is_some_and(|s| std::ptr::eq(m, s));
    session
        .messages()
        .iter()
        .rposition(|m| m.role() == Role::User && m.carries_user_content() && !is_summary(m))
}

/// Whether the next assistant message opens its turn: no assistant message since
/// the last message that asks something (the summary included, as on the wire).
fn opens_turn(session: &WireSession<'_>) -> bool {
    session
        .messages()
        .iter()
        .rev()
        .take_while(|m| !(m.role() == Role::User && m.carries_user_content()))
        .all(|m| m.role() != Role::Assistant)
}

/// Pushes a step and its results; takes the step back when the results are refused.
fn push_step(
    session: &mut WireSession<'_>,
    lens: &[usize],
    question: Option<&str>,
    thinks: bool,
    next_id: &mut usize,
) -> Result<(), TestCaseError> {
    let ids: Vec<String> = lens
        .iter()
        .map(|_| {
            *next_id += 1;
            format!("toolu_{next_id}")
        })
        .collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let before = session.clone();
    if session.push(wire::call(&refs, thinks)).is_err() {
        prop_assert_eq!(session.messages(), before.messages());
        return Ok(());
    }
    let len = lens.iter().copied().max().unwrap_or(0);
    if session.push(wire::results(&refs, len, question)).is_err() {
        prop_assert!(session.pop().is_some());
        prop_assert_eq!(session.messages(), before.messages());
        prop_assert!(session.pending_calls().is_empty());
    }
    Ok(())
}

/// What a `ToolLoopDoesNotFit` must be true of: the turn after the latest question
/// (or the whole prompt, when none is left) starts with thinking, and with what is
/// kept it is over the limit.
fn loop_is_real(session: &WireSession<'_>, needed: usize) -> Result<(), TestCaseError> {
    let messages = session.messages();
    let asks = |m: &AnthropicMessage| m.role() == Role::User && m.carries_user_content();
    let start = messages.iter().rposition(asks).map_or(0, |q| q + 1);
    let turn = &messages[start..];
    prop_assert!(turn.first().is_some_and(ChatMessage::starts_with_thinking));
    let format = ChatFormat::anthropic();
    prop_assert!(needed >= format.count_messages(&CharEstimate, turn));
    prop_assert!(needed > session.limit());
    Ok(())
}

#[allow(clippy::too_many_lines)]
fn run_wire_ops(
    ops: &[WireOp],
    limit: usize,
    policy: CutPolicy,
    keep_user: bool,
    start_on_user: bool,
    thinking: bool,
) -> Result<(), TestCaseError> {
    let calls = Cell::new(0usize);
    let counting = |text: &str| {
        calls.set(calls.get() + 1);
        CharEstimate.count(text)
    };
    let counter: &dyn TokenCounter = &counting;
    let mut session: WireSession<'_> = ChatSession::new(counter, limit)
        .with_format(ChatFormat::anthropic())
        .with_policy(policy)
        .with_keep_latest_user(keep_user)
        .with_start_on_user(start_on_user);
    let mut checker = Checker::new(limit, ChatFormat::anthropic());
    let mut next_id = 0usize;
    let mut untouched = true;
    // Every session opens with a question.
    session.push(wire::ask("Look at the repository.")).unwrap();
    for (i, op) in ops.iter().enumerate() {
        let before = session.clone();
        let question = latest_question(&session).map(|q| session.messages()[q].clone());
        let thinks = |extra: bool| thinking && (extra || opens_turn(&session));
        let mut prepared = None;
        match op {
            WireOp::Ask(len) => {
                if session.push(wire::ask(&text(*len, i))).is_err() {
                    prop_assert_eq!(session.messages(), before.messages());
                }
            }
            WireOp::Step(lens, asks, extra) => {
                let asks = asks.map(|len| text(len, i));
                let thinks = thinks(*extra);
                push_step(&mut session, lens, asks.as_deref(), thinks, &mut next_id)?;
            }
            WireOp::Answer(len, extra) => {
                let answer = wire::answer(&text(*len, i), thinks(*extra));
                if session.push(answer).is_err() {
                    prop_assert_eq!(session.messages(), before.messages());
                }
            }
            WireOp::Prepare => {
                let calls_before = calls.get();
                prepared = Some(session.prepare().map(|p| {
                    let ok = checker.prepared(&p, untouched);
                    (ok, p.messages().to_vec())
                }));
                // Preparing counts nothing: every cost was counted at its push.
                prop_assert_eq!(calls.get(), calls_before);
            }
            WireOp::Hook(positions) => {
                let keep: Vec<usize> = match latest_question(&session) {
                    Some(q) if session.messages()[q].tool_result_ids().next().is_some() => {
                        vec![q - 1, q]
                    }
                    Some(q) => vec![q],
                    None => Vec::new(),
                };
                let calls_before = calls.get();
                prepared = Some(
                    session
                        .prepare_with(|ctx| {
                            let n = ctx.elements().len().max(1);
                            let remove: Vec<usize> = positions
                                .iter()
                                .map(|p| p % n)
                                .filter(|p| !keep.contains(p))
                                .collect();
                            ctx.remove(remove);
                        })
                        .map(|p| {
                            let ok = checker.prepared(&p, false);
                            (ok, p.messages().to_vec())
                        }),
                );
                prop_assert_eq!(calls.get(), calls_before);
            }
            WireOp::Summarize(len) => {
                let result = session.prepare_summarizing(|input| {
                    Some(wire::ask(&format!(
                        "[{} dropped] {}",
                        input.dropped().len(),
                        text(*len, i)
                    )))
                });
                match result {
                    Err(SessionError::SummaryTooLarge { .. }) => {
                        prop_assert_eq!(session.messages(), before.messages());
                    }
                    other => {
                        prepared = Some(other.map(|p| {
                            let ok = checker.prepared(&p, untouched);
                            (ok, p.messages().to_vec())
                        }));
                    }
                }
            }
            WireOp::Limit(fraction) => {
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    clippy::cast_precision_loss
                )]
                let new = (limit as f64 * fraction) as usize;
                if session.set_limit(new).is_ok() {
                    checker.limit = new;
                } else {
                    prop_assert_eq!(session.limit(), before.limit());
                }
            }
        }
        match prepared {
            None => {}
            Some(Ok((ok, messages))) => {
                ok?;
                untouched = true;
                if messages.is_empty() {
                    // Only a hook can remove every message.
                    prop_assert!(matches!(op, WireOp::Hook(_)) || before.is_empty());
                    continue;
                }
                if let Err(e) = wire::validate(&messages, thinking) {
                    prop_assert!(false, "op {i}: {e}\n{messages:#?}");
                }
                // The latest question is in every prompt, unless the session may drop
                // it.
                if let (true, Some(question)) = (keep_user, &question) {
                    prop_assert!(messages.contains(question), "op {i}: the question left");
                }
            }
            Some(Err(SessionError::ToolLoopDoesNotFit { needed, .. })) => {
                prop_assert!(thinking);
                prop_assert_eq!(session.messages(), before.messages());
                loop_is_real(&session, needed)?;
            }
            Some(Err(err)) => prop_assert!(false, "op {i}: {err}"),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any session of Anthropic messages (questions alone or beside tool results,
    /// loops that start with thinking, summaries, hooks, new limits): every prompt
    /// is a request Anthropic takes, with thinking on or off, the latest question
    /// stays, preparing counts nothing, and a loop that does not fit is said so.
    #[test]
    fn any_anthropic_session_gives_requests_anthropic_takes(
        ops in prop::collection::vec(wire_op(), 0..80),
        limit in 150usize..2_000,
        low_water in 0.0f64..1.0,
        grid in 0.0f64..0.5,
        minimal in any::<bool>(),
        keep_user in any::<bool>(),
        start_on_user in any::<bool>(),
        thinking in any::<bool>(),
    ) {
        let policy = if minimal {
            CutPolicy::minimal_fit()
        } else {
            CutPolicy::cache_stable().with_low_water(low_water).with_grid(grid)
        };
        run_wire_ops(&ops, limit, policy, keep_user, start_on_user, thinking)?;
    }
}
