//! Chat trimming on arbitrary histories and hooks: never panics, the result fits
//! its budget, and no tool result is kept without its call or a call without all
//! its results.
//!
//! Input: 2 bytes of budget, 1 byte of options, then 3-byte ops that build the
//! history (role, tool-call ids, content length) or, after a 0xFF byte, seqs for the
//! hook to remove.
#![no_main]

use std::collections::HashSet;

use ctxbudget::{chat::ChatFormat, chat::ChatStrategy, chat::ChatTrimError, ChatTrimmer, Message, chat::Role, chat::ToolCall};
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

fn assert_paired(kept: &[&Message]) {
    let mut open: Option<HashSet<&str>> = None;
    let mut answered: HashSet<&str> = HashSet::new();
    for m in kept {
        if m.role == Role::Tool {
            let id = m.tool_call_id.as_deref().unwrap_or("");
            assert!(open.as_ref().is_some_and(|ids| ids.contains(id)), "orphan result");
            answered.insert(id);
            continue;
        }
        if let Some(ids) = &open {
            assert!(ids.iter().all(|id| answered.contains(id)), "unanswered call");
        }
        answered.clear();
        open = (m.role == Role::Assistant && !m.tool_calls.is_empty())
            .then(|| m.tool_calls.iter().map(|c| c.id.as_str()).collect());
    }
    if let Some(ids) = &open {
        assert!(ids.iter().all(|id| answered.contains(id)), "unanswered last call");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes([head[0], head[1]]));
    let (ops, hook) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let history = build(ops);
    let before = history.clone();
    // Some texts cost nearly usize::MAX, so totals must not saturate and then shrink.
    let huge = head[2] & 4 != 0;
    let counter = move |t: &str| {
        if huge && t.contains("elit") {
            usize::MAX - 1
        } else {
            t.split_whitespace().count()
        }
    };
    let strategy = if head[2] & 1 == 0 { ChatStrategy::KeepLast } else { ChatStrategy::KeepFirst };
    let trimmer = ChatTrimmer::new(counter, budget)
        .with_strategy(strategy)
        .with_start_on_user(head[2] & 2 != 0);
    let result = trimmer.trim_with(&history, |ctx| {
        ctx.remove(hook.iter().map(|&b| usize::from(b)).collect::<Vec<_>>());
    });
    assert_eq!(history, before);
    match result {
        Ok(trimmed) => {
            let kept = trimmed.messages();
            let owned: Vec<Message> = kept.iter().map(|m| (*m).clone()).collect();
            let tokens = ChatFormat::openai().count_messages(&counter, &owned);
            assert_eq!(tokens, trimmed.tokens());
            assert!(tokens <= budget);
            assert_paired(&kept);
            assert_eq!(kept.len() + trimmed.dropped().len(), history.len());
        }
        Err(ChatTrimError::OverBudget { needed, budget: b, over }) => {
            assert_eq!(b, budget);
            assert!(needed > budget);
            assert_eq!(over, needed - budget);
        }
        Err(err) => panic!("unexpected error: {err}"),
    }
});
