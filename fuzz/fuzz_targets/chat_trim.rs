//! Chat trimming on arbitrary histories, hooks and options: never panics, the result
//! fits its budget with exact counts (a message kept in part counted as sent), no
//! tool result is kept without its call or a call without all its results, the
//! shape asked for with `start_on` / `end_on` holds, protected messages stay, and
//! only a plain message next to the kept ones is kept in part.
//!
//! Input: 2 bytes of budget, 1 byte of options (strategy, `start_on_user`, a huge
//! counter, `include_system(false)`, `keep_latest_user(false)`, `allow_partial`),
//! 1 byte of role masks (`start_on` in the low nibble, `end_on` in the high one),
//! then 3-byte ops that build the history (role, tool-call ids, content length) or,
//! after a 0xFF byte, seqs for the hook to remove.
#![no_main]

use std::collections::HashSet;

use ctxbudget::{
    ChatTrimmer, Message,
    chat::{ChatFormat, ChatStrategy, ChatTrimError, DropReason, Role, ToolCall},
};
use libfuzzer_sys::fuzz_target;

const TEXT: &str = "Lorem ipsum dolor. Sit amet, consectetur\nadipiscing elit sed do\n\neiusmod tempor incididunt ut labore";
const ROLES: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

fn build(ops: &[u8]) -> Vec<Message> {
    let mut history = Vec::new();
    for op in ops.chunks_exact(3) {
        let len = usize::from(op[2]) % TEXT.len();
        // Start some texts mid-way so that cuts land in different places.
        let start = if op[2] & 0x80 != 0 { len / 2 } else { 0 };
        let text = &TEXT[start..len];
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

fn roles(mask: u8) -> Vec<Role> {
    ROLES
        .into_iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, role)| role)
        .collect()
}

fn assert_paired(kept: &[Message]) {
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
    let Some((head, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes([head[0], head[1]]));
    let options = head[2];
    let (start_on, end_on) = (roles(head[3] & 0xF), roles(head[3] >> 4));
    let (ops, hook) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let history = build(ops);
    let before = history.clone();
    // Some texts cost nearly usize::MAX, so totals must not saturate and then shrink.
    let huge = options & 4 != 0;
    let counter = move |t: &str| {
        if huge && t.contains("elit") {
            usize::MAX - 1
        } else {
            t.split_whitespace().count()
        }
    };
    let keep_first = options & 1 != 0;
    let include_system = options & 8 == 0;
    let keep_latest_user = options & 16 == 0;
    let allow_partial = options & 32 != 0;
    let strategy = if keep_first { ChatStrategy::KeepFirst } else { ChatStrategy::KeepLast };
    let mut trimmer = ChatTrimmer::new(counter, budget)
        .with_strategy(strategy)
        .with_start_on((options & 2 != 0).then_some(Role::User))
        .with_include_system(include_system)
        .with_keep_latest_user(keep_latest_user)
        .with_end_on(end_on.clone())
        .with_allow_partial(allow_partial);
    let start_on = if start_on.is_empty() {
        if options & 2 != 0 { vec![Role::User] } else { vec![] }
    } else {
        trimmer = trimmer.with_start_on(start_on.clone());
        start_on
    };
    let result = trimmer.trim_with(&history, |ctx| {
        ctx.remove(hook.iter().map(|&b| usize::from(b)).collect::<Vec<_>>());
    });
    assert_eq!(history, before);

    let format = ChatFormat::openai();
    let latest_user = history.iter().rposition(|m| m.role == Role::User);
    let protected = |seq: usize| {
        (include_system && history[seq].role == Role::System)
            || (keep_latest_user && Some(seq) == latest_user)
    };
    match result {
        Ok(trimmed) => {
            let elements = trimmed.elements();
            let sent: Vec<Message> = elements
                .iter()
                .map(|e| Message { content: e.content().to_owned(), ..e.message.clone() })
                .collect();
            for (e, m) in elements.iter().zip(&sent) {
                assert_eq!(e.tokens, format.message_tokens(&counter, m));
            }
            let tokens = format.count_messages(&counter, &sent);
            assert_eq!(tokens, trimmed.tokens());
            assert!(tokens <= budget);
            assert_paired(&sent);
            assert_eq!(elements.len() + trimmed.dropped().len(), history.len());

            let partials = elements.iter().filter(|e| e.partial.is_some()).count();
            assert!(partials <= usize::from(allow_partial));
            if let Some(e) = trimmed.partial() {
                let part = e.partial.expect("partial() returns a partial element");
                let whole = &e.message.content;
                assert!(e.role != Role::Tool && e.message.tool_calls.is_empty());
                assert!(!protected(e.seq));
                assert!(!part.text.is_empty() && part.text.len() < whole.len());
                assert_eq!(whole.get(part.range()), Some(part.text));
                if keep_first {
                    assert_eq!(part.start, 0);
                } else {
                    assert_eq!(part.range().end, whole.len());
                }
            }

            let shaped = |m: &&Message| !(include_system && m.role == Role::System);
            if let (false, Some(first)) = (start_on.is_empty(), sent.iter().find(shaped)) {
                assert!(start_on.contains(&first.role), "starts on {}", first.role);
            }
            if let (false, Some(last)) = (end_on.is_empty(), sent.iter().rev().find(shaped)) {
                assert!(end_on.contains(&last.role), "ends on {}", last.role);
            }
            for d in trimmed.dropped() {
                assert_eq!(d.tokens, Some(format.message_tokens(&counter, &history[d.seq])));
                if protected(d.seq) {
                    assert!(!matches!(d.reason, DropReason::OverBudget | DropReason::Unpaired));
                }
                if include_system && history[d.seq].role == Role::System {
                    assert_eq!(d.reason, DropReason::Hook);
                }
            }
        }
        Err(err @ ChatTrimError::OverBudget { needed, budget: b, over }) => {
            assert_eq!(b, budget);
            assert!(budget >= 3 && needed > budget);
            assert_eq!(over, needed - budget);
            assert!(include_system || keep_latest_user);
            let message = err.to_string();
            assert!(!message.contains(&usize::MAX.to_string()), "{message}");
            assert!(!message.contains(&(usize::MAX - budget).to_string()), "{message}");
        }
        Err(ChatTrimError::ReplyPriming { priming, budget: b }) => {
            assert_eq!((priming, b), (3, budget));
            assert!(budget < 3);
        }
        Err(err) => panic!("unexpected error: {err}"),
    }
});
