//! The counting pass: each message counted once, split into what edits can touch
//! (its tool results, its thinking), and kept up to date as edits are made.

use std::collections::HashMap;

use super::editable::EditableMessage;
use super::precounted::MessageCount;
use crate::chat::{ChatFormat, ChatMessage, Role};
use crate::count::TokenCounter;

/// Whether `message` is a user message that opens a turn: it carries something
/// of the user's besides tool results ([`ChatMessage::carries_user_content`]), as
/// the trimmer's latest user message does.
pub(super) fn opens_user_turn<M: ChatMessage>(message: &M) -> bool {
    message.role() == Role::User && message.carries_user_content()
}

/// One tool result of the history.
#[derive(Debug, Clone)]
pub(super) struct Slot {
    /// The message that carries it.
    pub(super) message: usize,
    /// Its index among that message's results.
    pub(super) index: usize,
    /// Its call id.
    pub(super) call_id: String,
    /// The message of its call, when the call is in the history.
    pub(super) call: Option<usize>,
    /// The tool's name, when the call is in the history.
    pub(super) tool: Option<String>,
    /// What it adds to its message's content now.
    pub(super) share: usize,
    /// Its images and documents.
    pub(super) media: usize,
    /// Excluded by name, or carried by the pinned task: never edited.
    pub(super) frozen: bool,
    /// Cleared by this run.
    pub(super) cleared: bool,
}

/// What every message costs now, and the results and thinking edits can touch.
#[derive(Debug)]
pub(super) struct Ledger {
    /// What each message costs now: overhead plus content.
    pub(super) tokens: Vec<usize>,
    /// What each message's content costs now.
    pub(super) content: Vec<usize>,
    /// The droppable thinking of each message, now.
    pub(super) thinking: Vec<usize>,
    /// Where each message starts: the tokens of the messages before it, as they
    /// came in. The grid is laid over these.
    pub(super) offsets: Vec<u128>,
    /// Every tool result, in history order.
    pub(super) results: Vec<Slot>,
    /// The messages now, reply priming included.
    pub(super) total: u128,
    /// The messages as they came in, reply priming included.
    pub(super) before: u128,
    /// The first message that opens a user turn, when it is pinned.
    pub(super) task: Option<usize>,
    /// The last message that opens a user turn.
    pub(super) latest_turn: Option<usize>,
}

impl Ledger {
    /// Counts every message once, or takes its count from `counts` (used when it
    /// holds one count per message).
    pub(super) fn count<M, C>(
        messages: &[M],
        counts: Option<&[MessageCount]>,
        counter: &C,
        format: ChatFormat,
        pin_task: bool,
        excluded: impl Fn(&str) -> bool,
    ) -> Self
    where
        M: EditableMessage,
        C: TokenCounter + ?Sized,
    {
        let n = messages.len();
        let mut ledger = Ledger {
            tokens: Vec::with_capacity(n),
            content: Vec::with_capacity(n),
            thinking: Vec::with_capacity(n),
            offsets: Vec::with_capacity(n),
            results: Vec::new(),
            total: format.reply_priming() as u128,
            before: 0,
            task: None,
            latest_turn: None,
        };
        let mut calls: HashMap<&str, (usize, &str)> = HashMap::new();
        let mut shares = Vec::new();
        let mut running: u128 = 0;
        let counts = counts.filter(|c| c.len() == n);
        for (i, message) in messages.iter().enumerate() {
            shares.clear();
            let (tokens, split) = if let Some(count) = counts.and_then(|c| c.get(i)) {
                shares.extend_from_slice(&count.results);
                (count.tokens, count.split)
            } else {
                let overhead = format.message_overhead(counter, message);
                let split = message.count_split(counter, &mut shares);
                (overhead.saturating_add(split.content), split)
            };
            ledger.offsets.push(running);
            running += tokens as u128;
            ledger.tokens.push(tokens);
            ledger.content.push(split.content);
            ledger.thinking.push(split.thinking.min(split.content));
            if opens_user_turn(message) {
                if ledger.task.is_none() && pin_task {
                    ledger.task = Some(i);
                }
                ledger.latest_turn = Some(i);
            }
            if message.role() == Role::Assistant {
                for call in message.tool_calls() {
                    calls.entry(call.id).or_insert((i, call.name));
                }
            }
            let pinned = ledger.task == Some(i);
            for (index, &share) in shares.iter().enumerate() {
                let Some(result) = message.tool_result(index) else {
                    continue;
                };
                let call = calls.get(result.call_id).copied();
                let tool = call.map(|(_, name)| name);
                ledger.results.push(Slot {
                    message: i,
                    index,
                    call_id: result.call_id.to_owned(),
                    call: call.map(|(at, _)| at),
                    tool: tool.map(str::to_owned),
                    share: share.min(split.content),
                    media: result.media,
                    frozen: pinned || tool.is_some_and(&excluded),
                    cleared: false,
                });
            }
        }
        ledger.total += running;
        ledger.before = ledger.total;
        ledger
    }

    /// The results whose index in [`results`](Ledger::results) is at least this
    /// are among the `keep` most recent.
    pub(super) fn recent_from(&self, keep: usize) -> usize {
        self.results.len().saturating_sub(keep)
    }

    /// Records that message `at` now costs `tokens` in all, `content` of it its
    /// content.
    pub(super) fn set(&mut self, at: usize, content: usize, tokens: usize) {
        self.total = self
            .total
            .saturating_sub(self.tokens[at] as u128)
            .saturating_add(tokens as u128);
        self.tokens[at] = tokens;
        self.content[at] = content;
    }

    /// Records that a part of message `at`'s content went from `before` to `after`
    /// tokens.
    pub(super) fn reprice(&mut self, at: usize, before: usize, after: usize) {
        let content = self.content[at]
            .saturating_sub(before)
            .saturating_add(after);
        let overhead = self.tokens[at].saturating_sub(self.content[at]);
        self.set(at, content, overhead.saturating_add(content));
    }

    /// The tokens now, saturated to `usize`.
    pub(super) fn total_tokens(&self) -> usize {
        usize::try_from(self.total).unwrap_or(usize::MAX)
    }

    /// The tokens as they came in, saturated to `usize`.
    pub(super) fn before_tokens(&self) -> usize {
        usize::try_from(self.before).unwrap_or(usize::MAX)
    }
}
