//! Chat sessions driven by arbitrary pushes, prepares, hooks and summaries: never
//! panics; a refused push, summary or prepare leaves the session as it was; every
//! prepared prompt fits the limit with the exact count reported, pairs every tool
//! result with its call (also for messages that answer several calls), keeps the
//! system messages the hook did not remove, and starts with what the previous prompt
//! sent up to the reported stable prefix, which is the whole previous prompt when
//! nothing was cut or removed in between.
//!
//! Input: 2 bytes of limit, 1 byte of options (policy, low-water mark and grid,
//! `keep_latest_user`, a counter that charges near `usize::MAX` for one text), then
//! 3-byte ops.
#![no_main]

use std::collections::HashSet;

use ctxbudget::{
    TokenCounter,
    chat::{
        ChatFormat, ChatMessage, ChatSession, CutPolicy, Prepared, Role, SessionError,
        ToolCallRef,
    },
};
use libfuzzer_sys::fuzz_target;

const TEXT: &str = "Lorem ipsum dolor. Sit amet, consectetur\nadipiscing elit sed do\n\neiusmod tempor incididunt ut labore et dolore magna aliqua";

/// A message that may answer several calls at once (Anthropic's `tool_result`
/// blocks) or one (a tool message).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Msg {
    role: Role,
    text: String,
    calls: Vec<String>,
    answers: Vec<String>,
}

impl ChatMessage for Msg {
    fn role(&self) -> Role {
        self.role
    }
    fn content(&self) -> &str {
        &self.text
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.calls.iter().map(|id| ToolCallRef {
            id,
            name: "f",
            arguments: "{}",
        })
    }
    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.answers.iter().map(String::as_str)
    }
}

/// Bytes, or near `usize::MAX` for a text that starts with `!`.
#[derive(Clone)]
struct Counter {
    huge: bool,
}

impl TokenCounter for Counter {
    fn count(&self, text: &str) -> usize {
        if self.huge && text.starts_with('!') {
            usize::MAX / 3
        } else {
            text.len().div_ceil(4)
        }
    }
}

fn assert_paired(prompt: &[Msg]) {
    let mut waiting: HashSet<&str> = HashSet::new();
    for m in prompt {
        let results: Vec<&str> = m.tool_result_ids().collect();
        if m.role == Role::Tool || !results.is_empty() {
            assert!(!results.is_empty());
            for id in results {
                assert!(waiting.remove(id), "orphan result {id}");
            }
        } else {
            assert!(waiting.is_empty(), "unanswered {waiting:?}");
            if m.role == Role::Assistant {
                waiting = m.calls.iter().map(String::as_str).collect();
            }
        }
    }
    assert!(waiting.is_empty(), "unanswered {waiting:?}");
}

struct Check {
    previous: Option<Vec<Msg>>,
    limit: usize,
    counter: Counter,
}

impl Check {
    fn prepared(&mut self, prompt: &Prepared<'_, Msg>, untouched: bool) {
        let messages = prompt.messages();
        assert!(prompt.tokens() <= self.limit);
        assert_eq!(
            prompt.tokens(),
            ChatFormat::openai().count_messages(&self.counter, messages)
        );
        assert_paired(messages);
        if let Some(previous) = &self.previous {
            if let Some(stable) = prompt.stable_prefix() {
                assert_eq!(messages[..=stable], previous[..=stable]);
            }
            let nothing_left = !prompt.cut_moved() && prompt.dropped().is_empty();
            if untouched && nothing_left && !previous.is_empty() {
                assert_eq!(prompt.stable_prefix(), Some(previous.len() - 1));
            }
        }
        let breakpoints = prompt.cache_breakpoints();
        assert!(breakpoints.len() <= 3 && breakpoints.windows(2).all(|w| w[0] < w[1]));
        assert!(breakpoints.iter().all(|&b| b < messages.len()));
        self.previous = Some(messages.to_vec());
    }
}

fn text(byte: u8) -> String {
    let len = usize::from(byte) % TEXT.len();
    let start = if byte & 0x80 != 0 { len / 2 } else { 0 };
    TEXT[start..len].to_owned()
}

fn msg(role: Role, text: String) -> Msg {
    Msg {
        role,
        text,
        calls: Vec::new(),
        answers: Vec::new(),
    }
}

fuzz_target!(|data: &[u8]| {
    let [l0, l1, options, ops @ ..] = data else {
        return;
    };
    let limit = usize::from(u16::from_le_bytes([*l0, *l1]));
    let policy = if options & 1 != 0 {
        CutPolicy::minimal_fit()
    } else {
        CutPolicy::cache_stable()
            .with_low_water(f64::from(options >> 4) / 15.0)
            .with_grid(f64::from((options >> 1) & 3) / 8.0)
    };
    let counter = |huge| Counter { huge };
    let mut session = ChatSession::new(counter(options & 8 != 0), limit)
        .with_policy(policy)
        .with_keep_latest_user(options & 0x40 == 0);
    let mut check = Check {
        previous: None,
        limit,
        counter: counter(options & 8 != 0),
    };
    let mut untouched = true;
    let mut systems = 0usize;
    for op in ops.chunks_exact(3) {
        let before = session.clone();
        let id = |n: u8| format!("id{}", n % 8);
        let unchanged = |s: &ChatSession<Msg, Counter>| {
            assert_eq!(s.messages(), before.messages());
            assert_eq!(s.tokens(), before.tokens());
            assert_eq!(s.pending_calls(), before.pending_calls());
        };
        let pushed = match op[0] % 10 {
            0 => Some(msg(Role::System, text(op[2]))),
            1 | 2 => Some(msg(Role::User, text(op[2]))),
            3 => Some(msg(Role::Assistant, format!("!{}", text(op[2])))),
            4 => Some(Msg {
                calls: (0..1 + op[1] % 3).map(|c| id(op[1].wrapping_add(c))).collect(),
                ..msg(Role::Assistant, text(op[2]))
            }),
            5 => Some(Msg {
                answers: vec![id(op[1])],
                ..msg(Role::Tool, text(op[2]))
            }),
            6 => Some(Msg {
                answers: (0..1 + op[1] % 3).map(|c| id(op[1].wrapping_add(c))).collect(),
                ..msg(Role::User, text(op[2]))
            }),
            _ => None,
        };
        if let Some(m) = pushed {
            let system = m.role == Role::System;
            match session.push(m) {
                Ok(_) => systems += usize::from(system),
                Err(_) => unchanged(&session),
            }
            if op[1] & 0xC0 == 0xC0 {
                session.pop();
                // What pop took may have been a system message.
                systems = session.messages().iter().filter(|m| m.role == Role::System).count();
                untouched = false;
            }
            continue;
        }
        let result = match op[0] % 10 {
            7 => session.prepare(),
            8 => session.prepare_with(|ctx| {
                let n = ctx.elements().len().max(1);
                ctx.remove([usize::from(op[1]) % n, usize::from(op[2]) % (n + 2)]);
            }),
            _ => session.prepare_summarizing(|input| {
                assert!(!input.dropped().is_empty());
                Some(msg(Role::User, text(op[1] ^ op[2])))
            }),
        };
        match result {
            Ok(prompt) => {
                let hook = op[0] % 10 == 8;
                check.prepared(&prompt, untouched && !hook);
                let gone = prompt.dropped().iter().filter(|m| m.role == Role::System).count();
                assert!(hook || gone == 0, "a system message was cut");
                systems -= gone;
                untouched = true;
            }
            Err(
                SessionError::PendingToolCalls { .. }
                | SessionError::SummaryTooLarge { .. }
                | SessionError::ReplyPriming { .. },
            ) => unchanged(&session),
            Err(err) => panic!("unexpected: {err}"),
        }
        let kept = session.messages().iter().filter(|m| m.role == Role::System).count();
        assert_eq!(kept, systems);
    }
});
