//! [`MustStay`]: the messages a fitted request keeps whatever the limit, beyond what
//! the trimmer protects itself, and the error that says what they need when they do
//! not fit.

use crate::chat::{ChatFormat, ChatMessage, Role, latest_user, thinking_loop};
use crate::count::TokenCounter;
use crate::request::RequestError;

/// What a fitted request must keep: the latest user message (the last one that
/// carries more than tool results), and an unfinished tool-use loop that started
/// with thinking, whole.
pub(super) struct MustStay<'a, M> {
    messages: &'a [M],
    format: ChatFormat,
    counter: &'a dyn TokenCounter,
    limit: usize,
    /// The latest user message.
    latest: Option<usize>,
    /// Where the loop that must stay whole starts; it runs to the end.
    thinking_loop: Option<usize>,
}

impl<'a, M: ChatMessage> MustStay<'a, M> {
    /// What `messages`, counted in `format` with `counter`, must keep under `limit`.
    pub(super) fn of(
        messages: &'a [M],
        format: ChatFormat,
        counter: &'a dyn TokenCounter,
        limit: usize,
    ) -> Self {
        Self {
            messages,
            format,
            counter,
            limit,
            latest: latest_user(messages),
            thinking_loop: thinking_loop(messages),
        }
    }

    /// The error for `needed` tokens over the limit: `needed` is what the trim kept
    /// or needed, which the thinking loop is added to unless `kept(start)` says the
    /// trim kept it.
    pub(super) fn over(&self, needed: usize, kept: impl Fn(usize) -> bool) -> RequestError {
        let limit = self.limit;
        let Some(start) = self.thinking_loop else {
            return RequestError::DoesNotFit {
                needed,
                limit,
                over: needed.saturating_sub(limit),
            };
        };
        let needed = if kept(start) {
            needed
        } else {
            self.messages[start..].iter().fold(needed, |sum, m| {
                sum.saturating_add(self.format.message_tokens(self.counter, m))
            })
        };
        RequestError::ToolLoopDoesNotFit {
            needed,
            limit,
            over: needed.saturating_sub(limit),
        }
    }

    /// Checks that a trim that kept the messages of `keep`, for `tokens` in all (the
    /// fixed cost included), kept what must stay.
    ///
    /// # Errors
    ///
    /// [`RequestError::ToolLoopDoesNotFit`] when the thinking loop was dropped, and
    /// [`RequestError::DoesNotFit`] when the latest user message was, or every message
    /// but the system ones: with what they need.
    pub(super) fn check(
        &self,
        keep: &[bool],
        fixed: usize,
        tokens: usize,
    ) -> Result<(), RequestError> {
        let kept = |i: usize| keep.get(i).copied().unwrap_or(false);
        if self.thinking_loop.is_some_and(|s| !kept(s)) {
            return Err(self.over(tokens, kept));
        }
        let history = |kept_only: bool| {
            (self.messages.iter().enumerate())
                .any(|(i, m)| (!kept_only || kept(i)) && m.role() != Role::System)
        };
        let lost_latest = self.latest.is_some_and(|l| !kept(l));
        if lost_latest || (history(false) && !history(true)) {
            let needed = fixed.saturating_add(self.latest_turn_tokens());
            return Err(self.over(needed, |_| true));
        }
        Ok(())
    }

    /// What the latest turn costs with the system messages before it: from the
    /// latest user message to the end.
    fn latest_turn_tokens(&self) -> usize {
        let (format, counter, messages) = (self.format, self.counter, self.messages);
        let start = self.latest.unwrap_or(0);
        messages[..start]
            .iter()
            .filter(|m| m.role() == Role::System)
            .fold(
                format.count_messages(counter, &messages[start..]),
                |sum, m| sum.saturating_add(format.message_tokens(counter, m)),
            )
    }
}
