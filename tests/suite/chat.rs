//! Chat history: OpenAI counting, `TrimContext`, the trimming policy and its
//! invariants (no orphaned tool messages, ever).

use std::collections::{HashMap, HashSet};

use ctxbudget::{
    CharEstimate, ChatTrimmer, Message, chat::ChatFormat, chat::ChatMessage, chat::ChatStrategy,
    chat::ChatTrimError, chat::DropReason, chat::Role, chat::ToolCall, chat::ToolCallRef,
};
use proptest::prelude::*;

fn cl100k(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

fn o200k(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The example conversation of the OpenAI cookbook's "How to count tokens with
/// tiktoken".
fn cookbook_messages() -> Vec<Message> {
    vec![
        Message::system(
            "You are a helpful, pattern-following assistant that translates corporate jargon into plain English.",
        ),
        Message::system("New synergies will help drive top-line growth.").with_name("example_user"),
        Message::system("Things working well together will increase revenue.")
            .with_name("example_assistant"),
        Message::system(
            "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
        )
        .with_name("example_user"),
        Message::system("Let's talk later when we're less busy about how to do better.")
            .with_name("example_assistant"),
        Message::user(
            "This late pivot means we don't have time to boil the ocean for the client deliverable.",
        ),
    ]
}

#[test]
fn openai_cookbook_totals() {
    let messages = cookbook_messages();
    // The cookbook's published prompt-token counts: 129 for gpt-4-0613 / gpt-3.5-turbo
    // (cl100k_base), 124 for gpt-4o / gpt-4o-mini (o200k_base).
    assert_eq!(ChatFormat::openai().count_messages(&cl100k, &messages), 129);
    assert_eq!(ChatFormat::openai().count_messages(&o200k, &messages), 124);
}

fn to_tiktoken(message: &Message) -> tiktoken_rs::ChatCompletionRequestMessage {
    tiktoken_rs::ChatCompletionRequestMessage {
        role: message.role.as_str().to_owned(),
        content: Some(message.content.clone()),
        name: message.name.clone(),
        tool_calls: message
            .tool_calls
            .iter()
            .map(|c| tiktoken_rs::FunctionCall {
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn agrees_with_tiktoken_rs_including_tool_calls() {
    let mut messages = cookbook_messages();
    messages.push(
        Message::assistant("Let me look that up.")
            .with_tool_call(ToolCall::new(
                "c1",
                "lookup",
                r#"{"term":"boil the ocean"}"#,
            ))
            .with_tool_call(ToolCall::new("c2", "lookup", r#"{"term":"pivot"}"#)),
    );
    messages.push(Message::tool("c1", "to attempt an impossibly large task"));
    messages.push(Message::tool("c2", "a change of strategy"));
    let theirs: Vec<_> = messages.iter().map(to_tiktoken).collect();
    for (model, ours) in [
        (
            "gpt-4-0613",
            ChatFormat::openai().count_messages(&cl100k, &messages),
        ),
        (
            "gpt-4o",
            ChatFormat::openai().count_messages(&o200k, &messages),
        ),
    ] {
        let expected = tiktoken_rs::num_tokens_from_messages(model, &theirs).unwrap();
        assert_eq!(ours, expected, "{model}");
    }
}

#[test]
fn format_is_configurable() {
    let words = |t: &str| t.split_whitespace().count();
    let chat = [Message::user("one two three").with_name("bob")];
    // 3 + 1 (role) + 3 (content) + 1 (name) + 1 (per name) + 3 (priming)
    assert_eq!(ChatFormat::openai().count_messages(&words, &chat), 12);
    let custom = ChatFormat::content_only()
        .with_tokens_per_message(4)
        .with_tokens_per_name(2)
        .with_reply_priming(10);
    // 4 + 1 + 3 + 1 + 2 + 10
    assert_eq!(custom.count_messages(&words, &chat), 21);
    let call = [Message::assistant("").with_tool_call(ToolCall::new("id", "f", "a b"))];
    let with_calls = ChatFormat::content_only().with_tokens_per_tool_call(5);
    // role 1, content 0, call: 5 + name 1 + args 2
    assert_eq!(with_calls.count_messages(&words, &call), 9);
}

/// Ten short messages with distinct contents; each costs 3 + 1..3 + 1 tokens under
/// `CharEstimate`.
fn small_history() -> Vec<Message> {
    vec![
        Message::system("sys!"),    // 0
        Message::user("q0.."),      // 1
        Message::assistant("a0.."), // 2
        Message::user("q1.."),      // 3
        Message::assistant("") // 4
            .with_tool_call(ToolCall::new("x", "f", ""))
            .with_tool_call(ToolCall::new("y", "g", "")),
        Message::tool("x", "rx.."), // 5
        Message::tool("y", "ry.."), // 6
        Message::assistant("a1.."), // 7
        Message::user("q2.."),      // 8
        Message::assistant("a2.."), // 9
    ]
}

fn seqs<M>(trimmed: &ctxbudget::chat::TrimmedChat<'_, M>) -> Vec<usize> {
    trimmed.elements().iter().map(|e| e.seq).collect()
}

fn dropped_with(
    trimmed: &ctxbudget::chat::TrimmedChat<'_, Message>,
    reason: DropReason,
) -> Vec<usize> {
    trimmed
        .dropped()
        .iter()
        .filter(|d| d.reason == reason)
        .map(|d| d.seq)
        .collect()
}

#[test]
fn trim_context_shows_seqs_costs_and_budget() {
    let history = small_history();
    let chat_trimmer = ChatTrimmer::new(CharEstimate, 1_000);
    let mut calls = 0;
    let trimmed = chat_trimmer
        .trim_with(&history, |ctx| {
            calls += 1;
            let elements = ctx.message_elements();
            assert_eq!(elements.len(), 10);
            assert!(elements.iter().enumerate().all(|(i, e)| e.seq == i));
            assert!(
                elements
                    .iter()
                    .zip(&history)
                    .all(|(e, m)| std::ptr::eq(e.message, m))
            );
            assert_eq!(elements[4].role, Role::Assistant);
            let sum: usize = elements.iter().map(|e| e.tokens).sum();
            assert_eq!(ctx.total_tokens(), sum);
            assert_eq!(ctx.budget().limit(), 1_000);
            assert_eq!(ctx.budget().reserved(), 3);
            assert_eq!(ctx.budget().available(0), 997);
            assert_eq!(ctx.budget().available(sum), 997 - sum);

            // Removals accumulate, ignore unknown seqs and return the context.
            let removed = elements[2].tokens + elements[3].tokens;
            ctx.remove(2)
                .remove([3, 3, 99, usize::MAX])
                .remove(Vec::<usize>::new());
            assert_eq!(ctx.total_tokens(), sum - removed);
            assert_eq!(ctx.messages().len(), 8);
            // The snapshot taken before is unchanged.
            assert_eq!(elements.len(), 10);
            // Removing again changes nothing.
            ctx.remove(2..=3);
            assert_eq!(ctx.elements().len(), 8);
        })
        .unwrap();
    assert_eq!(calls, 1);
    assert_eq!(seqs(&trimmed), [0, 1, 4, 5, 6, 7, 8, 9]);
    assert_eq!(dropped_with(&trimmed, DropReason::Hook), [2, 3]);
}

#[test]
fn policy_drops_oldest_first_and_keeps_system_and_latest_user() {
    let history = small_history();
    let format = ChatFormat::openai();
    let cost = |seqs: &[usize]| {
        3 + seqs
            .iter()
            .map(|&s| format.message_tokens(&CharEstimate, &history[s]))
            .sum::<usize>()
    };
    // Exactly enough for 0, 7, 8, 9: everything older than 7 goes, the tool unit
    // 4-6 as a whole.
    let budget = cost(&[0, 7, 8, 9]);
    let trimmed = ChatTrimmer::new(CharEstimate, budget)
        .trim(&history)
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 7, 8, 9]);
    assert_eq!(
        dropped_with(&trimmed, DropReason::OverBudget),
        [1, 2, 3, 4, 5, 6]
    );
    assert_eq!(trimmed.tokens(), budget);

    // One token less: 7 goes, then 9; system and the latest user (8) stay.
    let trimmed = ChatTrimmer::new(CharEstimate, budget - 1)
        .trim(&history)
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 8, 9]);
    let trimmed = ChatTrimmer::new(CharEstimate, cost(&[0, 8]))
        .trim(&history)
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 8]);
}

#[test]
fn error_says_by_how_much() {
    let history = small_history();
    let format = ChatFormat::openai();
    let needed = 3
        + format.message_tokens(&CharEstimate, &history[0])
        + format.message_tokens(&CharEstimate, &history[8]);
    let err = ChatTrimmer::new(CharEstimate, needed - 2)
        .trim(&history)
        .unwrap_err();
    assert_eq!(
        err,
        ChatTrimError::OverBudget {
            needed,
            budget: needed - 2,
            over: 2
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "the messages that must stay need {needed} tokens with the reply priming, 2 over the budget of {}: raise the budget to at least {needed}, or shorten them",
            needed - 2
        )
    );
}

/// An empty history (or one the hook emptied) under a limit below the reply priming
/// used to fail with "system messages and the latest user message need 3 tokens":
/// there were none, and the 3 was not explained. The error now names the priming
/// and the two fixes.
#[test]
fn reply_priming_over_the_limit_says_what_it_is() {
    let expected = ChatTrimError::ReplyPriming {
        priming: 3,
        budget: 2,
    };
    let err = ChatTrimmer::new(CharEstimate, 2)
        .trim::<Message>(&[])
        .unwrap_err();
    assert_eq!(err, expected);
    assert_eq!(
        err.to_string(),
        "the chat format primes every reply with 3 tokens, more than the whole budget of 2: raise the budget to at least 3, or count with `ChatFormat::content_only()`"
    );
    let history = small_history();
    let err = ChatTrimmer::new(CharEstimate, 2)
        .trim_with(&history, |ctx| {
            ctx.remove(0..history.len());
        })
        .unwrap_err();
    assert_eq!(err, expected);
    // Without the priming, an empty history fits any limit.
    let trimmed = ChatTrimmer::new(CharEstimate, 0)
        .with_format(ChatFormat::content_only())
        .trim::<Message>(&[])
        .unwrap();
    assert_eq!(trimmed.tokens(), 0);
    // At exactly the priming, it fits.
    assert!(
        ChatTrimmer::new(CharEstimate, 3)
            .trim::<Message>(&[])
            .is_ok()
    );
}

/// Both messages say what went wrong, with the numbers, and how to fix it, in about
/// 160 characters (they ran to 220-300, naming builder methods in prose).
#[test]
fn trim_error_messages_are_one_sentence_of_what_and_one_of_how() {
    let errors = [
        ChatTrimError::OverBudget {
            needed: 130_000,
            budget: 120_000,
            over: 10_000,
        },
        ChatTrimError::OverBudget {
            needed: usize::MAX,
            budget: 120_000,
            over: usize::MAX - 120_000,
        },
        ChatTrimError::ReplyPriming {
            priming: 3,
            budget: 2,
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

#[test]
fn huge_budgets_and_counts_do_not_overflow() {
    let history = small_history();
    let all = ChatTrimmer::new(CharEstimate, usize::MAX)
        .trim(&history)
        .unwrap();
    assert_eq!(all.elements().len(), history.len());
    // Costs saturate instead of wrapping: the error carries usize::MAX, and its
    // message does not print it as a count.
    let enormous = |_: &str| usize::MAX;
    let err = ChatTrimmer::new(enormous, 1_000)
        .trim(&history)
        .unwrap_err();
    assert_eq!(
        err,
        ChatTrimError::OverBudget {
            needed: usize::MAX,
            budget: 1_000,
            over: usize::MAX - 1_000
        }
    );
    let message = err.to_string();
    assert!(!message.contains(&usize::MAX.to_string()), "{message}");
    assert!(
        !message.contains(&(usize::MAX - 1_000).to_string()),
        "{message}"
    );
    assert!(message.contains("too many tokens to count"), "{message}");
    assert!(message.contains("the budget is 1000"), "{message}");
    // Two system messages of usize::MAX / 2 + 1 overflow only in the sum.
    let half = |t: &str| if t == "q2.." { usize::MAX / 2 + 1 } else { 0 };
    let two = [Message::system("q2.."), Message::system("q2..")];
    let err = ChatTrimmer::new(half, 1_000).trim(&two).unwrap_err();
    assert!(matches!(
        err,
        ChatTrimError::OverBudget {
            needed: usize::MAX,
            ..
        }
    ));
    assert!(!err.to_string().contains(&usize::MAX.to_string()));

    let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
        .with_format(ChatFormat::openai().with_reply_priming(usize::MAX))
        .trim(&history);
    assert_eq!(
        trimmed.unwrap_err(),
        ChatTrimError::ReplyPriming {
            priming: usize::MAX,
            budget: 1_000
        }
    );
}

#[test]
fn hook_removing_one_parallel_result_drops_the_whole_call() {
    let history = small_history();
    let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
        .trim_with(&history, |ctx| {
            ctx.remove(6);
        })
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 1, 2, 3, 7, 8, 9]);
    assert_eq!(dropped_with(&trimmed, DropReason::Hook), [6]);
    assert_eq!(dropped_with(&trimmed, DropReason::Unpaired), [4, 5]);

    let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
        .trim_with(&history, |ctx| {
            ctx.remove(4);
        })
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 1, 2, 3, 7, 8, 9]);
    assert_eq!(dropped_with(&trimmed, DropReason::Unpaired), [5, 6]);
}

#[test]
fn broken_pairs_in_the_input_are_dropped() {
    let history = vec![
        Message::user("q"),
        Message::tool("nobody", "stray result"),
        Message::assistant("").with_tool_call(ToolCall::new("a", "f", "")),
        Message::user("no result for a"),
        Message::assistant("")
            .with_tool_call(ToolCall::new("b", "f", ""))
            .with_tool_call(ToolCall::new("c", "f", "")),
        Message::tool("b", "only b answered"),
        Message::user("last"),
    ];
    let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
        .trim(&history)
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 3, 6]);
    assert_eq!(dropped_with(&trimmed, DropReason::Unpaired), [1, 2, 4, 5]);
}

#[test]
fn keep_first_drops_the_newest() {
    let history = small_history();
    let format = ChatFormat::openai();
    let cost: usize = 3 + [0, 1, 2, 3, 8]
        .iter()
        .map(|&s| format.message_tokens(&CharEstimate, &history[s]))
        .sum::<usize>();
    let trimmed = ChatTrimmer::new(CharEstimate, cost)
        .with_strategy(ChatStrategy::KeepFirst)
        .trim(&history)
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 1, 2, 3, 8]);
}

#[test]
fn start_on_user_drops_leading_assistant_and_tool_messages() {
    let history = vec![
        Message::system("s"),
        Message::assistant("").with_tool_call(ToolCall::new("a", "f", "")),
        Message::tool("a", "r"),
        Message::assistant("said"),
        Message::user("u"),
        Message::assistant("reply"),
    ];
    let plain = ChatTrimmer::new(CharEstimate, 1_000)
        .trim(&history)
        .unwrap();
    assert_eq!(seqs(&plain), [0, 1, 2, 3, 4, 5]);
    let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
        .with_start_on([Role::User])
        .trim(&history)
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 4, 5]);
    assert_eq!(dropped_with(&trimmed, DropReason::StartOnUser), [1, 2, 3]);
}

/// A message type of the caller's own, with tool calls in its own shape.
#[derive(Debug, PartialEq, Eq)]
struct Turn {
    who: &'static str,
    text: String,
    calls: Vec<(String, String)>,
    answers: Option<String>,
}

impl ChatMessage for Turn {
    fn role(&self) -> Role {
        match self.who {
            "sys" => Role::System,
            "bot" => Role::Assistant,
            "tool" => Role::Tool,
            _ => Role::User,
        }
    }
    fn content(&self) -> &str {
        &self.text
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.calls.iter().map(|(id, name)| ToolCallRef {
            id,
            name,
            arguments: "{}",
        })
    }
    fn tool_call_id(&self) -> Option<&str> {
        self.answers.as_deref()
    }
}

#[test]
fn own_message_type_is_borrowed_not_copied() {
    let turn = |who, text: &str| Turn {
        who,
        text: text.into(),
        calls: vec![],
        answers: None,
    };
    let history = vec![
        turn("sys", "be brief"),
        turn("user", "hi"),
        Turn {
            calls: vec![("k".into(), "clock".into())],
            ..turn("bot", "")
        },
        Turn {
            answers: Some("k".into()),
            ..turn("tool", "12:00")
        },
        turn("user", "thanks"),
    ];
    let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
        .trim_with(&history, |ctx| {
            ctx.remove(3);
        })
        .unwrap();
    let kept = trimmed.messages();
    assert!(std::ptr::eq(kept[0], std::ptr::from_ref(&history[0])));
    assert_eq!(seqs(&trimmed), [0, 1, 4]);
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

/// A piece of a generated history.
#[derive(Debug, Clone)]
enum Piece {
    System(String),
    User(String),
    Assistant(String),
    /// An assistant message with `calls` parallel calls, then the results in
    /// `order` (indices into the calls; missing or repeated ones make broken pairs).
    Calls {
        calls: usize,
        order: Vec<usize>,
        text: String,
    },
    StrayResult(String),
}

fn text() -> impl Strategy<Value = String> {
    "[a-z ]{0,40}"
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        1 => text().prop_map(Piece::System),
        4 => text().prop_map(Piece::User),
        4 => text().prop_map(Piece::Assistant),
        3 => (1usize..4, prop::collection::vec(0usize..4, 0..5), text())
            .prop_map(|(calls, order, text)| Piece::Calls { calls, order, text }),
        1 => text().prop_map(Piece::StrayResult),
    ]
}

fn build(pieces: &[Piece]) -> Vec<Message> {
    let mut history = Vec::new();
    for (n, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::System(t) => history.push(Message::system(t.clone())),
            Piece::User(t) => history.push(Message::user(t.clone())),
            Piece::Assistant(t) => history.push(Message::assistant(t.clone())),
            Piece::Calls { calls, order, text } => {
                let mut call = Message::assistant(text.clone());
                for c in 0..*calls {
                    call = call.with_tool_call(ToolCall::new(format!("{n}-{c}"), "tool", "{}"));
                }
                history.push(call);
                for &c in order {
                    history.push(Message::tool(format!("{n}-{c}"), text.clone()));
                }
            }
            Piece::StrayResult(t) => history.push(Message::tool("nobody", t.clone())),
        }
    }
    history
}

/// Checks, independently of the library, that a kept list would be accepted: every
/// tool message directly follows (through tool messages) an assistant message that
/// made its call, and every call of a kept assistant message is answered right after.
fn assert_no_orphans(kept: &[&Message]) -> Result<(), TestCaseError> {
    let mut open: Option<HashSet<&str>> = None;
    let mut answered: HashSet<&str> = HashSet::new();
    let close = |open: &Option<HashSet<&str>>, answered: &HashSet<&str>| match open {
        Some(ids) => ids.iter().all(|id| answered.contains(id)),
        None => true,
    };
    for m in kept {
        if m.role == Role::Tool {
            let id = m.tool_call_id.as_deref().unwrap_or("");
            let ids = open.as_ref();
            prop_assert!(
                ids.is_some_and(|ids| ids.contains(id)),
                "tool result {id:?} without its call"
            );
            answered.insert(id);
            continue;
        }
        prop_assert!(close(&open, &answered), "tool call without all its results");
        answered.clear();
        open = (m.role == Role::Assistant && !m.tool_calls.is_empty())
            .then(|| m.tool_calls.iter().map(|c| c.id.as_str()).collect());
    }
    prop_assert!(
        close(&open, &answered),
        "last tool call without all its results"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn trimming_never_orphans_and_fits(
        pieces in prop::collection::vec(piece(), 0..30),
        hook_removes in prop::collection::vec(0usize..80, 0..8),
        budget in 0usize..400,
        keep_first in any::<bool>(),
        start_on_user in any::<bool>(),
    ) {
        let history = build(&pieces);
        let before = history.clone();
        let format = ChatFormat::openai();
        let strategy = if keep_first { ChatStrategy::KeepFirst } else { ChatStrategy::KeepLast };
        let trimmer = ChatTrimmer::new(CharEstimate, budget)
            .with_strategy(strategy)
            .with_start_on(start_on_user.then_some(Role::User));
        let result = trimmer.trim_with(&history, |ctx| {
            ctx.remove(hook_removes.clone());
        });
        prop_assert_eq!(&history, &before, "the caller's history changed");

        let hook: HashSet<usize> = hook_removes.iter().copied().collect();
        let latest_user = history.iter().rposition(|m| m.role == Role::User);
        let must_stay: Vec<usize> = (0..history.len())
            .filter(|&s| (history[s].role == Role::System || Some(s) == latest_user) && !hook.contains(&s))
            .collect();
        match result {
            Ok(trimmed) => {
                let kept = trimmed.messages();
                let kept_seqs: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
                prop_assert!(kept_seqs.windows(2).all(|w| w[0] < w[1]), "order kept");
                prop_assert!(kept_seqs.iter().all(|s| !hook.contains(s)), "hook removal ignored");
                let owned: Vec<Message> = kept.iter().map(|m| (*m).clone()).collect();
                let tokens = format.count_messages(&CharEstimate, &owned);
                prop_assert_eq!(tokens, trimmed.tokens());
                prop_assert!(tokens <= budget, "{} tokens over budget {}", tokens, budget);
                assert_no_orphans(&kept)?;
                if start_on_user {
                    let first = kept.iter().find(|m| m.role != Role::System);
                    prop_assert!(first.is_none_or(|m| m.role == Role::User), "starts on {:?}", first);
                }
                for s in &must_stay {
                    prop_assert!(kept_seqs.contains(s), "seq {} ({:?}) was dropped", s, history[*s].role);
                }
                // Every message is either kept or dropped with a reason, once.
                let mut all: Vec<usize> = kept_seqs.clone();
                all.extend(trimmed.dropped().iter().map(|d| d.seq));
                all.sort_unstable();
                prop_assert_eq!(all, (0..history.len()).collect::<Vec<_>>());
            }
            Err(ChatTrimError::ReplyPriming { priming, budget: b }) => {
                prop_assert_eq!(priming, 3);
                prop_assert_eq!(b, budget);
                prop_assert!(budget < 3);
            }
            Err(ChatTrimError::OverBudget { needed, budget: b, over }) => {
                prop_assert!(budget >= 3, "the priming alone is over {}", budget);
                let floor = 3 + must_stay
                    .iter()
                    .map(|&s| format.message_tokens(&CharEstimate, &history[s]))
                    .sum::<usize>();
                prop_assert_eq!(b, budget);
                prop_assert_eq!(needed, floor);
                prop_assert!(needed > budget);
                prop_assert_eq!(over, needed - budget);
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    #[test]
    fn more_budget_never_keeps_fewer_tokens(
        pieces in prop::collection::vec(piece(), 0..20),
        budget in 0usize..300,
        extra in 0usize..300,
    ) {
        let history = build(&pieces);
        let small = ChatTrimmer::new(CharEstimate, budget).trim(&history);
        let large = ChatTrimmer::new(CharEstimate, budget + extra).trim(&history);
        if let Ok(small) = small {
            let large = large.expect("a larger budget cannot fail where a smaller one fits");
            prop_assert!(large.tokens() >= small.tokens());
        }
    }
}

/// The roles whose bits are set in `mask`, for `start_on` and `end_on`.
fn roles_of(mask: u8) -> Vec<Role> {
    [Role::System, Role::User, Role::Assistant, Role::Tool]
        .into_iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, role)| role)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The LangChain-style options together: the result fits with exact counts
    /// (the message kept in part counted as sent), never orphans, has the shape
    /// `start_on` and `end_on` ask for, and keeps what is protected.
    #[test]
    fn every_option_keeps_its_promises(
        pieces in prop::collection::vec(piece(), 0..30),
        hook_removes in prop::collection::vec(0usize..80, 0..4),
        budget in 0usize..400,
        keep_first in any::<bool>(),
        include_system in any::<bool>(),
        keep_latest_user in any::<bool>(),
        start_mask in 0u8..16,
        end_mask in 0u8..16,
        allow_partial in any::<bool>(),
    ) {
        let history = build(&pieces);
        let before = history.clone();
        let format = ChatFormat::openai();
        let (start_on, end_on) = (roles_of(start_mask), roles_of(end_mask));
        let strategy = if keep_first { ChatStrategy::KeepFirst } else { ChatStrategy::KeepLast };
        let trimmer = ChatTrimmer::new(CharEstimate, budget)
            .with_strategy(strategy)
            .with_include_system(include_system)
            .with_keep_latest_user(keep_latest_user)
            .with_start_on(start_on.clone())
            .with_end_on(end_on.clone())
            .with_allow_partial(allow_partial);
        let result = trimmer.trim_with(&history, |ctx| {
            ctx.remove(hook_removes.clone());
        });
        prop_assert_eq!(&history, &before, "the caller's history changed");

        let latest_user = history.iter().rposition(|m| m.role == Role::User);
        let protected = |seq: usize| {
            (include_system && history[seq].role == Role::System)
                || (keep_latest_user && Some(seq) == latest_user)
        };
        match result {
            Ok(trimmed) => {
                let elements = trimmed.elements();
                let kept_seqs: Vec<usize> = elements.iter().map(|e| e.seq).collect();
                prop_assert!(kept_seqs.windows(2).all(|w| w[0] < w[1]), "order kept");
                prop_assert!(kept_seqs.iter().all(|s| !hook_removes.contains(s)));
                let sent: Vec<Message> = elements
                    .iter()
                    .map(|e| Message { content: e.content().to_owned(), ..e.message.clone() })
                    .collect();
                for (e, m) in elements.iter().zip(&sent) {
                    prop_assert_eq!(e.tokens, format.message_tokens(&CharEstimate, m));
                }
                let tokens = format.count_messages(&CharEstimate, &sent);
                prop_assert_eq!(tokens, trimmed.tokens());
                prop_assert!(tokens <= budget, "{} tokens over budget {}", tokens, budget);
                assert_no_orphans(&sent.iter().collect::<Vec<_>>())?;

                let partials: Vec<_> = elements.iter().filter(|e| e.partial.is_some()).collect();
                prop_assert!(partials.len() <= usize::from(allow_partial));
                prop_assert_eq!(trimmed.partial().map(|e| e.seq), partials.first().map(|e| e.seq));
                for e in partials {
                    let Some(part) = e.partial else { unreachable!() };
                    let whole = &e.message.content;
                    prop_assert!(e.role != Role::Tool && e.message.tool_calls.is_empty());
                    prop_assert!(!protected(e.seq), "protected seq {} was cut", e.seq);
                    prop_assert!(!part.text.is_empty() && part.text.len() < whole.len());
                    prop_assert_eq!(whole.get(part.range()), Some(part.text));
                    if keep_first {
                        prop_assert_eq!(part.start, 0);
                    } else {
                        prop_assert_eq!(part.range().end, whole.len());
                    }
                    prop_assert_eq!(part.whole_tokens, format.message_tokens(&CharEstimate, e.message));
                }

                let shaped = |m: &&Message| !(include_system && m.role == Role::System);
                if let (false, Some(first)) = (start_on.is_empty(), sent.iter().find(shaped)) {
                    prop_assert!(start_on.contains(&first.role), "starts on {:?}", first.role);
                }
                if let (false, Some(last)) = (end_on.is_empty(), sent.iter().rev().find(shaped)) {
                    prop_assert!(end_on.contains(&last.role), "ends on {:?}", last.role);
                }

                for d in trimmed.dropped() {
                    let role = history[d.seq].role;
                    // With a hook every message is counted first.
                    prop_assert_eq!(d.tokens, Some(format.message_tokens(&CharEstimate, &history[d.seq])));
                    if include_system && role == Role::System {
                        prop_assert_eq!(d.reason, DropReason::Hook);
                    }
                    if protected(d.seq) {
                        prop_assert!(
                            d.reason != DropReason::OverBudget && d.reason != DropReason::Unpaired,
                            "protected seq {} dropped: {}", d.seq, d.reason
                        );
                    }
                }
                let mut all: Vec<usize> = kept_seqs.clone();
                all.extend(trimmed.dropped().iter().map(|d| d.seq));
                all.sort_unstable();
                prop_assert_eq!(all, (0..history.len()).collect::<Vec<_>>());
            }
            Err(ChatTrimError::ReplyPriming { priming, budget: b }) => {
                prop_assert_eq!((priming, b), (3, budget));
                prop_assert!(budget < 3);
            }
            Err(ChatTrimError::OverBudget { needed, budget: b, over }) => {
                prop_assert_eq!(b, budget);
                prop_assert!(budget >= 3 && needed > budget);
                prop_assert_eq!(over, needed - budget);
                prop_assert!(include_system || keep_latest_user, "nothing was protected");
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `trim`, which counts only what it must, keeps what `trim_with` (which counts
    /// every message for its hook) keeps with a hook that removes nothing, with the
    /// same costs, the same reasons and the same errors; it counts each message at
    /// most once (the message kept in part aside), and what it leaves uncounted was
    /// dropped.
    #[test]
    fn lazy_trim_keeps_what_the_counting_trim_keeps(
        pieces in prop::collection::vec(piece(), 0..30),
        budget in 0usize..400,
        keep_first in any::<bool>(),
        include_system in any::<bool>(),
        keep_latest_user in any::<bool>(),
        start_mask in 0u8..16,
        end_mask in 0u8..16,
        allow_partial in any::<bool>(),
    ) {
        let history = build(&pieces);
                let strategy = if keep_first { ChatStrategy::KeepFirst } else { ChatStrategy::KeepLast };
        let seen = std::cell::RefCell::new(HashMap::<*const u8, usize>::new());
        let counting = |text: &str| {
            *seen.borrow_mut().entry(text.as_ptr()).or_default() += 1;
            ctxbudget::TokenCounter::count(&CharEstimate, text)
        };
        let trimmer = |counter| {
            ChatTrimmer::new(counter, budget)
                .with_strategy(strategy)
                .with_include_system(include_system)
                .with_keep_latest_user(keep_latest_user)
                .with_start_on(roles_of(start_mask))
                .with_end_on(roles_of(end_mask))
                .with_allow_partial(allow_partial)
        };
        let lazy = trimmer(&counting as &dyn ctxbudget::TokenCounter).trim(&history);
        let counting_all = trimmer(&CharEstimate as &dyn ctxbudget::TokenCounter)
            .trim_with(&history, |_| {});
        match (lazy, counting_all) {
            (Ok(lazy), Ok(all)) => {
                let shape = |t: &ctxbudget::chat::TrimmedChat<'_, Message>| -> Vec<(usize, usize, Option<String>)> {
                    t.elements()
                        .iter()
                        .map(|e| (e.seq, e.tokens, e.partial.map(|p| p.text.to_owned())))
                        .collect()
                };
                prop_assert_eq!(shape(&lazy), shape(&all));
                prop_assert_eq!(lazy.tokens(), all.tokens());
                prop_assert_eq!(lazy.dropped().len(), all.dropped().len());
                for (l, a) in lazy.dropped().iter().zip(all.dropped()) {
                    prop_assert_eq!((l.seq, l.reason), (a.seq, a.reason));
                    prop_assert!(l.tokens.is_none_or(|t| Some(t) == a.tokens));
                }
                // Contents are counted at most once, except the one cut in part (which
                // `start_on` or `end_on` may drop afterwards).
                let mut again = 0;
                for (seq, m) in history.iter().enumerate() {
                    let times = seen.borrow().get(&m.content.as_ptr()).copied().unwrap_or(0);
                    if times > 1 && !m.content.is_empty() {
                        again += 1;
                        prop_assert!(allow_partial, "seq {} counted {} times", seq, times);
                    }
                    let kept = lazy.elements().iter().any(|e| e.seq == seq);
                    if kept && !m.content.is_empty() {
                        prop_assert!(times >= 1, "kept seq {} was not counted", seq);
                    }
                }
                prop_assert!(again <= 1, "{} messages counted more than once", again);
            }
            (Err(l), Err(a)) => prop_assert_eq!(l, a),
            (l, a) => prop_assert!(false, "trim gave {:?}, trim_with {:?}", l.map(|t| t.tokens()), a.map(|t| t.tokens())),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Without protection, LangChain's picture: the kept messages are the latest
    /// (or earliest) ones, the message kept in part is their neighbour, the counts
    /// are exact, and a larger budget never keeps fewer tokens.
    #[test]
    fn the_message_kept_in_part_is_the_neighbour_of_the_kept_ones(
        turns in prop::collection::vec((any::<bool>(), "[a-z .\n]{0,160}"), 1..12),
        budget in 3usize..200,
        extra in 0usize..40,
        keep_first in any::<bool>(),
    ) {
        let history: Vec<Message> = turns
            .iter()
            .map(|(user, text)| if *user { Message::user(text.clone()) } else { Message::assistant(text.clone()) })
            .collect();
        let format = ChatFormat::openai();
        let strategy = if keep_first { ChatStrategy::KeepFirst } else { ChatStrategy::KeepLast };
        let trimmer = |budget| {
            ChatTrimmer::new(CharEstimate, budget)
                .with_strategy(strategy)
                .with_keep_latest_user(false)
                .with_allow_partial(true)
        };
        let trimmed = trimmer(budget).trim(&history).expect("nothing is protected");
        let kept: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
        let expected: Vec<usize> = if keep_first {
            (0..kept.len()).collect()
        } else {
            (history.len() - kept.len()..history.len()).collect()
        };
        prop_assert_eq!(&kept, &expected);
        if let Some(partial) = trimmed.partial() {
            let edge = if keep_first { kept.last() } else { kept.first() };
            prop_assert_eq!(Some(&partial.seq), edge);
        }
        let sent: Vec<Message> = trimmed
            .elements()
            .iter()
            .map(|e| Message { content: e.content().to_owned(), ..e.message.clone() })
            .collect();
        prop_assert_eq!(format.count_messages(&CharEstimate, &sent), trimmed.tokens());
        prop_assert!(trimmed.tokens() <= budget);
        let larger = trimmer(budget + extra).trim(&history).expect("nothing is protected");
        prop_assert!(larger.tokens() >= trimmed.tokens());
    }
}

#[test]
fn generator_makes_parallel_calls_and_broken_pairs() {
    // Guard the property test's generator: it must produce the shapes it claims.
    let history = build(&[
        Piece::Calls {
            calls: 3,
            order: vec![2, 0, 1],
            text: "t".into(),
        },
        Piece::Calls {
            calls: 2,
            order: vec![0],
            text: "t".into(),
        },
        Piece::StrayResult("s".into()),
    ]);
    let by_role: HashMap<Role, usize> = history.iter().fold(HashMap::new(), |mut m, msg| {
        *m.entry(msg.role).or_default() += 1;
        m
    });
    assert_eq!(by_role[&Role::Assistant], 2);
    assert_eq!(by_role[&Role::Tool], 5);
    assert_eq!(history[0].tool_calls.len(), 3);
    let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
        .trim(&history)
        .unwrap();
    assert_eq!(seqs(&trimmed), [0, 1, 2, 3]);
}

#[test]
fn histories_of_pointers_trim_like_histories_of_messages() {
    let history = small_history();
    let format = ChatFormat::openai();
    let budget = 3 + [0, 7, 8, 9]
        .iter()
        .map(|&s| format.message_tokens(&CharEstimate, &history[s]))
        .sum::<usize>();
    let trimmer = ChatTrimmer::new(CharEstimate, budget);
    let expected = seqs(&trimmer.trim(&history).unwrap());
    assert_eq!(expected, [0, 7, 8, 9]);
    let shared: Vec<std::sync::Arc<Message>> =
        history.iter().cloned().map(std::sync::Arc::new).collect();
    assert_eq!(seqs(&trimmer.trim(&shared).unwrap()), expected);
    let borrowed: Vec<&Message> = history.iter().collect();
    assert_eq!(seqs(&trimmer.trim(&borrowed).unwrap()), expected);
}

/// A range past the end of the history is cut to the history, not walked seq by
/// seq (which would take about 2^64 steps).
#[test]
fn removing_an_open_ended_range_is_immediate() {
    let history: Vec<Message> = (0..6)
        .map(|i| Message::user(format!("question {i}")))
        .collect();
    let trimmed = ChatTrimmer::new(CharEstimate, 10_000)
        .trim_with(&history, |ctx| {
            ctx.remove(3..usize::MAX).remove(1..=1).remove(usize::MAX);
        })
        .unwrap();
    let kept: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
    // The latest user message is protected only from the policy, not from the hook.
    assert_eq!(kept, [0, 2]);
}
