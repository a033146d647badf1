//! [`Counts`]: every message of a request counted once, as it came in, and
//! [`Counted`]: a message lent to the editing engine with that count, so that the
//! engine counts its content no second time.

use crate::chat::edit::{ContentSplit, EditableMessage, ToolResult};
use crate::chat::{ChatFormat, ChatMessage, Role, ToolCallRef};
use crate::count::TokenCounter;

/// What every message costs as it came in, as the editing engine's counting pass
/// would count it.
#[derive(Debug)]
pub(super) struct Counts {
    /// What each message costs: overhead plus content.
    pub(super) tokens: Vec<usize>,
    /// Each message's content, split into its thinking.
    pub(super) splits: Vec<ContentSplit>,
    /// Every tool result's share of its message's content, message after message.
    shares: Vec<usize>,
    /// Where each message's shares start in `shares` (one more entry than messages).
    share_starts: Vec<usize>,
    /// Where each message starts: the tokens of the messages before it.
    pub(super) offsets: Vec<u128>,
    /// The messages, reply priming included.
    pub(super) total: u128,
    /// The reply priming.
    pub(super) priming: usize,
}

impl Counts {
    /// Counts each of `messages` once, with `counter`, in `format`.
    pub(super) fn of<M: EditableMessage>(
        messages: &[M],
        counter: &dyn TokenCounter,
        format: ChatFormat,
    ) -> Self {
        let n = messages.len();
        let mut counts = Counts {
            tokens: Vec::with_capacity(n),
            splits: Vec::with_capacity(n),
            shares: Vec::new(),
            share_starts: Vec::with_capacity(n.saturating_add(1)),
            offsets: Vec::with_capacity(n),
            total: 0,
            priming: format.reply_priming(),
        };
        let mut running: u128 = 0;
        for message in messages {
            counts.share_starts.push(counts.shares.len());
            let split = message.count_split(counter, &mut counts.shares);
            let tokens = format
                .message_overhead(counter, message)
                .saturating_add(split.content);
            counts.offsets.push(running);
            running += tokens as u128;
            counts.tokens.push(tokens);
            counts.splits.push(split);
        }
        counts.share_starts.push(counts.shares.len());
        counts.total = running + format.reply_priming() as u128;
        counts
    }

    /// The shares of message `i`'s tool results.
    pub(super) fn shares(&self, i: usize) -> &[usize] {
        let start = self.share_starts.get(i).copied().unwrap_or(0);
        let end = self.share_starts.get(i + 1).copied().unwrap_or(start);
        self.shares.get(start..end).unwrap_or_default()
    }
}

/// A message lent to the editing engine, with its content counted already: the
/// engine's counting pass ([`EditableMessage::count_split`]) reads the count
/// instead of counting again; every edit goes to the message.
#[derive(Debug)]
pub(super) struct Counted<'a, M> {
    message: Held<'a, M>,
    split: ContentSplit,
    shares: &'a [usize],
}

/// The message: the request's own, or a summary the engine made (the fitter plans
/// no compaction, so it never does; the type must offer it).
#[derive(Debug)]
enum Held<'a, M> {
    Lent(&'a mut M),
    Owned(M),
}

impl<'a, M> Counted<'a, M> {
    /// Lends each of `messages` that `keep` keeps (all, when `None`) with its
    /// count in `counts` (which counted exactly these messages).
    pub(super) fn lend(
        messages: &'a mut [M],
        counts: &'a Counts,
        keep: Option<&[bool]>,
    ) -> Vec<Self> {
        messages
            .iter_mut()
            .enumerate()
            .filter(|&(i, _)| keep.is_none_or(|keep| keep.get(i).copied().unwrap_or(true)))
            .map(|(i, message)| Counted {
                message: Held::Lent(message),
                split: counts.splits.get(i).copied().unwrap_or_default(),
                shares: counts.shares(i),
            })
            .collect()
    }

    fn get(&self) -> &M {
        match &self.message {
            Held::Lent(message) => message,
            Held::Owned(message) => message,
        }
    }

    fn get_mut(&mut self) -> &mut M {
        match &mut self.message {
            Held::Lent(message) => message,
            Held::Owned(message) => message,
        }
    }
}

impl<M: ChatMessage> ChatMessage for Counted<'_, M> {
    fn role(&self) -> Role {
        self.get().role()
    }
    fn content(&self) -> &str {
        self.get().content()
    }
    fn name(&self) -> Option<&str> {
        self.get().name()
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.get().tool_calls()
    }
    fn tool_call_id(&self) -> Option<&str> {
        self.get().tool_call_id()
    }
    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.get().tool_result_ids()
    }
    fn carries_user_content(&self) -> bool {
        self.get().carries_user_content()
    }
    fn starts_with_thinking(&self) -> bool {
        self.get().starts_with_thinking()
    }
    // Counted again: the engine asks only after an edit.
    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        self.get().content_tokens(counter)
    }
}

impl<M: EditableMessage> EditableMessage for Counted<'_, M> {
    fn tool_result_count(&self) -> usize {
        self.get().tool_result_count()
    }
    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        self.get().tool_result(index)
    }
    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        self.get().tool_result_tokens(index, counter)
    }
    fn tool_result_tokens_with<C: TokenCounter + ?Sized>(
        &self,
        index: usize,
        text_tokens: usize,
        counter: &C,
    ) -> usize {
        self.get()
            .tool_result_tokens_with(index, text_tokens, counter)
    }
    fn thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        self.get().thinking_tokens(counter)
    }
    /// The count made as the message came in: the engine asks before any edit.
    fn count_split<C: TokenCounter + ?Sized>(
        &self,
        _counter: &C,
        results: &mut Vec<usize>,
    ) -> ContentSplit {
        results.extend_from_slice(self.shares);
        self.split
    }
    fn drop_thinking(&mut self) -> bool {
        self.get_mut().drop_thinking()
    }
    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        self.get_mut().replace_tool_result(index, text)
    }
    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        self.get_mut().set_tool_result_text(index, part, text)
    }
    fn replace_tool_result_media(&mut self, index: usize, text: &str) -> bool {
        self.get_mut().replace_tool_result_media(index, text)
    }
    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        self.get_mut().clear_tool_input(call_id)
    }
    fn summary(text: String) -> Self {
        Counted {
            message: Held::Owned(M::summary(text)),
            split: ContentSplit::default(),
            shares: &[],
        }
    }
    fn prepend_summary(&mut self, text: &str) -> bool {
        self.get_mut().prepend_summary(text)
    }
}
