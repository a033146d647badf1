//! What an `on_trim` hook sees: [`TrimContext`], its [`ChatElement`]s and the seqs
//! it may remove ([`IntoSeqs`]); and how a message kept in part is shown
//! ([`PartialContent`]).

use std::ops::Range;

use super::format::HistoryBudget;
use super::message::{ChatMessage, Role};
use crate::trim::Boundary;

/// One message of the history as a [`TrimContext`] and a [`TrimmedChat`](super::TrimmedChat) show it.
///
/// Send [`content()`](ChatElement::content) rather than the message's own content:
/// it is the kept part when [`with_allow_partial`](super::ChatTrimmer::with_allow_partial)
/// kept only part of the message.
#[derive(Debug)]
#[non_exhaustive]
pub struct ChatElement<'m, M> {
    /// Its position in the caller's history, 0-based in load order. Seqs never change:
    /// removing a message does not renumber the others.
    pub seq: usize,
    /// The caller's message, borrowed.
    pub message: &'m M,
    /// What it costs, chat format overhead included: for a message kept in part,
    /// what the kept part costs as a message.
    pub tokens: usize,
    /// Its role.
    pub role: Role,
    /// `Some` when only part of the content was kept (see
    /// [`with_allow_partial`](super::ChatTrimmer::with_allow_partial)); always `None`
    /// in a [`TrimContext`].
    pub partial: Option<PartialContent<'m>>,
}

impl<'m, M: ChatMessage> ChatElement<'m, M> {
    /// The content to send: the message's content, or for a message kept in part the
    /// kept part of it (a sub-slice, never a copy).
    ///
    /// ```
    /// use ctxbudget::{ChatTrimmer, Message, chat::ChatFormat};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let history = [Message::user("First line.\nSecond line.\nThird line, the last.")];
    /// let trimmed = ChatTrimmer::new(words, 8)
    ///     .with_format(ChatFormat::content_only())
    ///     .with_keep_latest_user(false)
    ///     .with_allow_partial(true)
    ///     .trim(&history)?;
    /// let element = &trimmed.elements()[0];
    /// // 7 words fit after the role's 1; the cut ends at the line break before them.
    /// assert_eq!(element.content(), "Second line.\nThird line, the last.");
    /// assert_eq!(element.tokens, 7);
    /// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
    /// ```
    pub fn content(&self) -> &'m str {
        let message: &'m M = self.message;
        match self.partial {
            Some(partial) => partial.text,
            None => message.content(),
        }
    }
}

/// The part of a message's content that [`ChatTrimmer`](super::ChatTrimmer) kept when
/// the whole message did not fit (see
/// [`with_allow_partial`](super::ChatTrimmer::with_allow_partial)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct PartialContent<'m> {
    /// The kept text: a suffix of the content when the latest messages are kept, a
    /// prefix when the earliest are; borrowed from the message.
    pub text: &'m str,
    /// Where `text` starts in the content, in bytes.
    pub start: usize,
    /// Where the cut was made: a paragraph, line, sentence or word boundary, or
    /// between graphemes when none of these keeps enough of the room.
    pub boundary: Boundary,
    /// What the whole message costs (what it would have cost had it been kept).
    pub whole_tokens: usize,
}

impl PartialContent<'_> {
    /// Where `text` lies in the content, in bytes.
    pub fn range(&self) -> Range<usize> {
        self.start..self.start + self.text.len()
    }
}

impl<M> Clone for ChatElement<'_, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for ChatElement<'_, M> {}

/// Seq numbers for [`TrimContext::remove`]: one `usize`, or a slice, array, `Vec`
/// or range of them.
pub trait IntoSeqs {
    /// The seqs, of a history of `len` messages: seqs at or past `len` are unknown
    /// and may be left out (a range such as `3..usize::MAX` is cut to `3..len`).
    fn into_seqs(self, len: usize) -> impl Iterator<Item = usize>;
}

impl IntoSeqs for usize {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        std::iter::once(self)
    }
}

impl IntoSeqs for &[usize] {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        self.iter().copied()
    }
}

impl<const N: usize> IntoSeqs for [usize; N] {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        self.into_iter()
    }
}

impl IntoSeqs for Vec<usize> {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        self.into_iter()
    }
}

impl IntoSeqs for &Vec<usize> {
    fn into_seqs(self, _len: usize) -> impl Iterator<Item = usize> {
        self.iter().copied()
    }
}

impl IntoSeqs for std::ops::Range<usize> {
    fn into_seqs(self, len: usize) -> impl Iterator<Item = usize> {
        self.start.min(len)..self.end.min(len)
    }
}

impl IntoSeqs for std::ops::RangeInclusive<usize> {
    fn into_seqs(self, len: usize) -> impl Iterator<Item = usize> {
        let (start, end) = self.into_inner();
        start.min(len)..end.saturating_add(1).min(len)
    }
}

/// What an `on_trim` hook receives before the call (modelled on Phronomy's `TrimContext`): the
/// history's messages with their seq numbers and costs, the budget, and
/// [`remove`](TrimContext::remove) to drop messages by seq.
///
/// Removing only affects this trim: the caller's history is borrowed and never
/// modified. After the hook, [`ChatTrimmer`](super::ChatTrimmer) repairs tool-call pairing and applies its
/// policy to what is left.
///
/// ```
/// use ctxbudget::{CharEstimate, ChatTrimmer, Message};
///
/// let history: Vec<Message> = (0..6).map(|i| Message::user(format!("question {i}"))).collect();
/// let trimmed = ChatTrimmer::new(CharEstimate, 48).trim_with(&history, |ctx| {
///     // Drop the oldest two when over 90 % of what is available.
///     if ctx.total_tokens() > ctx.budget().available(0) * 9 / 10 {
///         let oldest: Vec<usize> = ctx.message_elements().iter().take(2).map(|e| e.seq).collect();
///         ctx.remove(oldest);
///     }
/// })?;
/// assert_eq!(trimmed.elements()[0].seq, 2);
/// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
/// ```
#[derive(Debug)]
pub struct TrimContext<'m, M> {
    elements: Vec<ChatElement<'m, M>>,
    pub(super) removed: Vec<bool>,
    total_tokens: usize,
    budget: HistoryBudget,
}

impl<'m, M> TrimContext<'m, M> {
    pub(super) fn new(elements: Vec<ChatElement<'m, M>>, budget: HistoryBudget) -> Self {
        let total_tokens = sum_tokens(&elements);
        Self {
            removed: vec![false; elements.len()],
            elements,
            total_tokens,
            budget,
        }
    }

    /// The budget of this trim; compare [`total_tokens`](TrimContext::total_tokens)
    /// with [`available(0)`](HistoryBudget::available).
    pub fn budget(&self) -> HistoryBudget {
        self.budget
    }

    /// What the current messages cost together (chat format overhead per message
    /// included; the reply priming is the budget's reserved part).
    pub fn total_tokens(&self) -> usize {
        self.total_tokens
    }

    /// A snapshot of the current elements, in seq order.
    pub fn message_elements(&self) -> Vec<ChatElement<'m, M>> {
        self.elements.clone()
    }

    /// The current elements, borrowed.
    pub fn elements(&self) -> &[ChatElement<'m, M>] {
        &self.elements
    }

    /// The current messages, without element metadata.
    pub fn messages(&self) -> Vec<&'m M> {
        self.elements.iter().map(|e| e.message).collect()
    }

    /// Whether the hook removed the message `seq`.
    pub(super) fn is_removed(&self, seq: usize) -> bool {
        self.removed.get(seq).copied().unwrap_or(false)
    }

    /// Removes the messages with these seqs. Calls accumulate; seqs that are unknown
    /// or already removed are ignored.
    pub fn remove(&mut self, seqs: impl IntoSeqs) -> &mut Self {
        let mut changed = false;
        for seq in seqs.into_seqs(self.removed.len()) {
            if let Some(flag) = self.removed.get_mut(seq) {
                changed |= !*flag;
                *flag = true;
            }
        }
        if changed {
            let removed = &self.removed;
            self.elements.retain(|e| !removed[e.seq]);
            self.total_tokens = sum_tokens(&self.elements);
        }
        self
    }
}

fn sum_tokens<M>(elements: &[ChatElement<'_, M>]) -> usize {
    elements
        .iter()
        .fold(0usize, |sum, e| sum.saturating_add(e.tokens))
}
