//! [`Entry`]: what a session remembers of each message of its prompt, and where the
//! message sits ([`Slot`]).

use crate::chat::message::{ChatMessage, Role};

/// Where a message of the prompt sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// In the window: the history from the cut on, in the order it was pushed.
    Window,
    /// In the head, carried past the cut: a system message, or the latest user
    /// message with what goes with it (see [`Marks`](super::marks::Marks)).
    Carried,
    /// In the head: the summary.
    Summary,
}

/// What the session remembers of a message of its prompt.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    /// Which message this is: pushes and summaries take the next number.
    pub(super) seq: u64,
    /// What it costs, chat format overhead included, counted when it arrived.
    pub(super) tokens: usize,
    /// The tokens of every message pushed before it: where the grid sees it.
    pub(super) offset: u128,
    pub(super) role: Role,
    /// It answers tool calls.
    pub(super) result: bool,
    /// A user message that carries something of the user's besides tool results
    /// ([`ChatMessage::carries_user_content`]): it can be the latest user message,
    /// whether or not it is also a result.
    pub(super) asks: bool,
    /// An assistant message that starts with thinking
    /// ([`ChatMessage::starts_with_thinking`]).
    pub(super) thinks: bool,
    pub(super) slot: Slot,
}

impl Entry {
    /// The entry of `message`, pushed as message `seq` after `offset` tokens; `result`
    /// says whether it answers calls.
    pub(super) fn of<M: ChatMessage>(
        message: &M,
        seq: u64,
        tokens: usize,
        offset: u128,
        result: bool,
        slot: Slot,
    ) -> Self {
        let role = message.role();
        Self {
            seq,
            tokens,
            offset,
            role,
            result,
            asks: role == Role::User && message.carries_user_content(),
            thinks: role == Role::Assistant && message.starts_with_thinking(),
            slot,
        }
    }

    /// A system message the session keeps in every prompt (the summary is not one,
    /// whatever its role).
    pub(super) fn is_system(&self) -> bool {
        self.role == Role::System && self.slot != Slot::Summary
    }

    /// A user message that is not the summary and carries more than tool results: a
    /// question of the user, which can share its message with tool results.
    pub(super) fn is_question(&self) -> bool {
        self.asks && self.slot != Slot::Summary
    }

    /// A user message that is not a tool result nor the summary: where a window may
    /// start with [`with_start_on_user`](super::ChatSession::with_start_on_user).
    pub(super) fn is_user_start(&self) -> bool {
        self.role == Role::User && !self.result && self.slot != Slot::Summary
    }
}
