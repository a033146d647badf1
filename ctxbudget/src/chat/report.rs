//! What [`ChatTrimmer`](super::ChatTrimmer) reports: the kept messages
//! ([`TrimmedChat`]) and the dropped ones ([`DroppedMessage`], [`DropReason`]).

use std::fmt;

use super::context::ChatElement;
use super::format::HistoryBudget;

/// Why [`ChatTrimmer`](super::ChatTrimmer) dropped a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DropReason {
    /// The `on_trim` hook removed it.
    Hook,
    /// It belonged to a tool call and its results, and a partner was missing (removed
    /// by the hook or absent from the history), so it would have been an orphan.
    Unpaired,
    /// The history was over budget, and this was the next message (or tool-call unit)
    /// in drop order.
    OverBudget,
    /// It came before the first user message and
    /// [`with_start_on`](super::ChatTrimmer::with_start_on) is set to
    /// [`Role::User`](super::Role::User) alone.
    StartOnUser,
    /// It came before the first message of a role given to
    /// [`with_start_on`](super::ChatTrimmer::with_start_on) (when that is not
    /// [`Role::User`](super::Role::User) alone, which reports
    /// [`StartOnUser`](DropReason::StartOnUser)).
    StartOn,
    /// It came after the last message of a role given to
    /// [`with_end_on`](super::ChatTrimmer::with_end_on).
    EndOn,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            DropReason::Hook => "removed by the on_trim hook",
            DropReason::Unpaired => "tool call and results must stay together",
            DropReason::OverBudget => "over budget",
            DropReason::StartOnUser => "before the first user message",
            DropReason::StartOn => "before the first message of a start_on role",
            DropReason::EndOn => "after the last message of an end_on role",
        })
    }
}

/// A message [`ChatTrimmer`](super::ChatTrimmer) dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DroppedMessage {
    /// Its seq (index in the caller's history).
    pub seq: usize,
    /// What it cost, or `None` when it was dropped without being counted:
    /// [`ChatTrimmer::trim`](super::ChatTrimmer::trim) does not count the messages
    /// beyond the first unit that did not fit, nor those dropped before the budget
    /// step (broken tool-call pairs, `end_on`).
    pub tokens: Option<usize>,
    /// Why it was dropped.
    pub reason: DropReason,
}

/// What [`ChatTrimmer`](super::ChatTrimmer) kept and dropped.
///
/// With [`with_allow_partial`](super::ChatTrimmer::with_allow_partial), one kept
/// message may be kept only in part: [`partial`](TrimmedChat::partial) returns it, and
/// its element's [`content()`](ChatElement::content) is the text to send.
/// [`messages`](TrimmedChat::messages) returns the caller's messages as they are, so
/// build the request from [`elements`](TrimmedChat::elements) when partial messages
/// are allowed.
#[derive(Debug)]
pub struct TrimmedChat<'m, M> {
    pub(super) kept: Vec<ChatElement<'m, M>>,
    pub(super) dropped: Vec<DroppedMessage>,
    pub(super) tokens: usize,
    pub(super) budget: HistoryBudget,
}

impl<'m, M> TrimmedChat<'m, M> {
    /// The kept messages, in history order, as the caller's messages: whole, even the
    /// one kept only in part (see [`partial`](TrimmedChat::partial)).
    pub fn messages(&self) -> Vec<&'m M> {
        self.kept.iter().map(|e| e.message).collect()
    }

    /// The kept elements (seq, message, tokens, role, and the kept part of a message
    /// kept in part), in history order.
    pub fn elements(&self) -> &[ChatElement<'m, M>] {
        &self.kept
    }

    /// The element kept only in part, if any (at most one: see
    /// [`with_allow_partial`](super::ChatTrimmer::with_allow_partial)).
    pub fn partial(&self) -> Option<&ChatElement<'m, M>> {
        self.kept.iter().find(|e| e.partial.is_some())
    }

    /// The dropped messages, in seq order, with the reason for each.
    pub fn dropped(&self) -> &[DroppedMessage] {
        &self.dropped
    }

    /// What the kept messages cost as a request, reply priming included (for a
    /// message kept in part, its kept part); never more than the budget's limit.
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// The budget that was applied.
    pub fn budget(&self) -> HistoryBudget {
        self.budget
    }
}
