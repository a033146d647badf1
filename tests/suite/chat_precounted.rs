//! `ChatFormat::precounted`: messages whose whole cost the caller counted (LangChain's
//! `token_counter` over messages, which the Python binding's `trim_messages` takes).

use std::cell::Cell;

use ctxbudget::{
    ChatTrimmer, TokenCounter,
    chat::{ChatFormat, ChatMessage, ChatStrategy, Role, ToolCallRef},
};
use proptest::prelude::*;

/// A message with a cost counted elsewhere, role, name and tool calls included.
#[derive(Debug, Clone)]
struct Counted {
    role: Role,
    text: String,
    cost: usize,
    call: Option<&'static str>,
    answers: Option<&'static str>,
}

impl Counted {
    fn new(role: Role, text: &str, cost: usize) -> Self {
        Self {
            role,
            text: text.to_owned(),
            cost,
            call: None,
            answers: None,
        }
    }
}

impl ChatMessage for Counted {
    fn role(&self) -> Role {
        self.role
    }
    fn content(&self) -> &str {
        &self.text
    }
    fn name(&self) -> Option<&str> {
        Some("a name the format must not count")
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.call
            .map(|id| ToolCallRef {
                id,
                name: "lookup",
                arguments: r#"{"q": "a long argument the format must not count"}"#,
            })
            .into_iter()
    }
    fn tool_call_id(&self) -> Option<&str> {
        self.answers
    }
    fn content_tokens<C: TokenCounter + ?Sized>(&self, _: &C) -> usize {
        self.cost
    }
}

/// Words, and how many times it was asked.
struct CountingWords<'a>(&'a Cell<usize>);

impl TokenCounter for CountingWords<'_> {
    fn count(&self, text: &str) -> usize {
        self.0.set(self.0.get() + 1);
        text.split_whitespace().count()
    }
}

#[test]
fn precounted_messages_cost_their_count_alone() {
    let asked = Cell::new(0);
    let history = [
        Counted::new(Role::System, "be brief", 7),
        Counted::new(Role::User, "first question", 20),
        Counted::new(Role::Assistant, "first answer", 30),
        Counted::new(Role::User, "second question", 11),
    ];
    // 7 + 11 + 30 + 2 = 50: the first question does not fit.
    let trimmed = ChatTrimmer::new(CountingWords(&asked), 50)
        .with_format(ChatFormat::precounted().with_reply_priming(2))
        .trim(&history)
        .unwrap();
    let kept: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
    assert_eq!(kept, [0, 2, 3]);
    assert_eq!(trimmed.tokens(), 50);
    // Without a message to cut, the counter is never asked: roles, names and tool
    // calls are in the caller's counts.
    assert_eq!(asked.get(), 0);
}

#[test]
fn a_precounted_message_kept_in_part_costs_its_kept_text() {
    let asked = Cell::new(0);
    let history = [
        Counted::new(Role::User, "one two three.\n\nfour five six.", 40),
        Counted::new(Role::Assistant, "seven", 5),
    ];
    let trimmed = ChatTrimmer::new(CountingWords(&asked), 8)
        .with_format(ChatFormat::precounted())
        .with_keep_latest_user(false)
        .with_allow_partial(true)
        .trim(&history)
        .unwrap();
    let partial = trimmed
        .partial()
        .expect("the first message is kept in part");
    assert_eq!(partial.content(), "four five six.");
    // Its kept text, 3 words, and nothing for its role or name.
    assert_eq!(partial.tokens, 3);
    assert_eq!(trimmed.tokens(), 8);
    assert!(asked.get() > 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// With precounted costs, the trim keeps the latest messages whose costs add up
    /// within the budget, and a tool call stays with its result.
    #[test]
    fn precounted_trim_sums_the_callers_costs(
        costs in prop::collection::vec((0usize..50, 0u8..4), 0..20),
        budget in 0usize..300,
        priming in 0usize..5,
        keep_first in any::<bool>(),
    ) {
        let mut history: Vec<Counted> = Vec::new();
        for (i, &(cost, kind)) in costs.iter().enumerate() {
            match kind {
                0 => history.push(Counted::new(Role::User, "q", cost)),
                1 => history.push(Counted::new(Role::Assistant, "a", cost)),
                // A call and its result: ids are unique per position.
                _ => {
                    let id: &'static str = Box::leak(format!("call{i}").into_boxed_str());
                    let mut call = Counted::new(Role::Assistant, "", cost);
                    call.call = Some(id);
                    let mut result = Counted::new(Role::Tool, "r", cost / 2);
                    result.answers = Some(id);
                    history.push(call);
                    history.push(result);
                }
            }
        }
        let strategy = if keep_first { ChatStrategy::KeepFirst } else { ChatStrategy::KeepLast };
        let asked = Cell::new(0);
        let trimmed = ChatTrimmer::new(CountingWords(&asked), budget)
            .with_format(ChatFormat::precounted().with_reply_priming(priming))
            .with_strategy(strategy)
            .with_keep_latest_user(false)
            .trim(&history);
        let Ok(trimmed) = trimmed else {
            prop_assert!(budget < priming);
            return Ok(());
        };
        prop_assert_eq!(asked.get(), 0);
        let kept: Vec<&Counted> = trimmed.messages();
        let sum = kept.iter().map(|m| m.cost).sum::<usize>() + priming;
        prop_assert_eq!(trimmed.tokens(), sum);
        prop_assert!(sum <= budget);
        for (e, m) in trimmed.elements().iter().zip(&kept) {
            prop_assert_eq!(e.tokens, m.cost);
            if let Some(id) = m.answers {
                prop_assert!(kept.iter().any(|c| c.call == Some(id)), "result {} without its call", id);
            }
            if let Some(id) = m.call {
                prop_assert!(kept.iter().any(|r| r.answers == Some(id)), "call {} without its result", id);
            }
        }
    }
}
