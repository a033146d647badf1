//! Chat histories fitted to arbitrary budgets under every policy and under counters
//! that misbehave: never panics, stops, the fitted text's count is the reported
//! count and within the budget, the pinned messages (system and latest user) are
//! kept, no tool result is kept without its call nor a call without all its results,
//! and the errors carry real counts.
//!
//! Input: 2 bytes of budget (little endian; `0xFFFF` means `usize::MAX`), 1 byte of
//! options (counter, policy), then 3-byte ops that build the history (role, tool-call
//! ids, content length).
#![no_main]

use std::collections::HashSet;

use ctxbudget::assemble::{FitError, LayerPolicy, fit_chat, render_chat};
use ctxbudget::chat::{Role, ToolCall};
use ctxbudget::{CharEstimate, Message, TokenCounter};
use libfuzzer_sys::fuzz_target;

const TEXT: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod";

fn build(ops: &[u8]) -> Vec<Message> {
    let mut history = Vec::new();
    for op in ops.chunks_exact(3) {
        let text = &TEXT[..usize::from(op[2]) % TEXT.len()];
        // Ids come from a small set so calls and results collide and pair up.
        let id = |n: u8| format!("id{}", n % 8);
        history.push(match op[0] % 6 {
            0 => Message::system(text),
            1 => Message::user(text),
            2 => Message::assistant(text),
            3 => Message::tool(id(op[1]), text),
            _ => {
                let calls = 1 + op[1] % 3;
                (0..calls).fold(Message::assistant(text), |m, c| {
                    m.with_tool_call(ToolCall::new(id(op[1].wrapping_add(c)), "f", "{}"))
                })
            }
        });
    }
    history
}

/// Checks the rendered lines: every `tool [id]` line answers a call of the latest
/// assistant message, and every call is answered before the next other message.
fn assert_paired(text: &str) {
    let mut open: HashSet<&str> = HashSet::new();
    let mut answered: HashSet<&str> = HashSet::new();
    let mut in_call = false;
    for line in text.lines() {
        if let Some(call) = line.strip_prefix("  -> ") {
            let id = &call[call.rfind('[').unwrap() + 1..call.len() - 1];
            open.insert(id);
            continue;
        }
        if let Some(rest) = line.strip_prefix("tool [") {
            let id = &rest[..rest.find(']').unwrap()];
            assert!(in_call && open.contains(id), "orphan result {id}");
            answered.insert(id);
            continue;
        }
        assert!(open.iter().all(|id| answered.contains(id)), "unanswered call");
        open.clear();
        answered.clear();
        in_call = line.starts_with("assistant");
    }
    assert!(open.iter().all(|id| answered.contains(id)), "unanswered last call");
}

fuzz_target!(|data: &[u8]| {
    let Some((head, ops)) = data.split_first_chunk::<3>() else {
        return;
    };
    let budget = match u16::from_le_bytes([head[0], head[1]]) {
        u16::MAX => usize::MAX,
        b => usize::from(b),
    };
    let flags = head[2];
    let history = build(ops);

    let words = |t: &str| t.split_whitespace().count();
    // Near `usize::MAX` for any text with "elit": sums that must not overflow.
    let huge = |t: &str| if t.contains("elit") { usize::MAX - 1 } else { words(t) };
    // Several rendered lines always cost one more than the budget: refits that are
    // over again by one, every time.
    let adversarial =
        move |t: &str| if t.contains('\n') { budget.saturating_add(1) } else { words(t) };
    // Charges for line breaks: rendered texts cost more than the estimate.
    let lines = |t: &str| words(t) + 4 * t.matches('\n').count();
    let counter: &dyn TokenCounter = match flags % 5 {
        0 => &CharEstimate,
        1 => &words,
        2 => &huge,
        3 => &adversarial,
        _ => &lines,
    };
    let policy = match (flags >> 3) % 4 {
        0 => LayerPolicy::Tail,
        1 => LayerPolicy::Head,
        2 => LayerPolicy::HeadAndTail,
        _ => LayerPolicy::Never,
    };
    let latest_user = history.iter().rposition(|m| m.role == Role::User);
    let pinned: Vec<&Message> = history
        .iter()
        .enumerate()
        .filter(|&(seq, m)| m.role == Role::System || Some(seq) == latest_user)
        .map(|(_, m)| m)
        .collect();

    match fit_chat(&history, budget, counter, &policy) {
        Ok(fitted) => {
            assert!(fitted.tokens <= budget);
            assert_eq!(fitted.tokens, counter.count(&fitted.text));
            assert_eq!(fitted.total, history.len());
            assert!(fitted.kept <= fitted.total);
            if policy == LayerPolicy::Never {
                assert_eq!(fitted.kept, history.len());
            }
            for message in &pinned {
                assert!(fitted.text.contains(&render_chat([*message])));
            }
            if policy != LayerPolicy::Never {
                assert_paired(&fitted.text);
            }
        }
        Err(FitError::NeverCut { tokens, budget: b, over }) => {
            assert_eq!(policy, LayerPolicy::Never);
            assert_eq!(b, budget);
            assert!(tokens > budget);
            assert_eq!(over, tokens - budget);
        }
        Err(FitError::PinnedMessages { tokens: needed, budget: b, over }) => {
            assert_ne!(policy, LayerPolicy::Never);
            assert_eq!(b, budget);
            assert_eq!(needed, counter.count(&render_chat(pinned.iter().copied())));
            assert!(needed > budget);
            assert_eq!(over, needed - budget);
        }
        Err(err) => panic!("unexpected error: {err}"),
    }
});
