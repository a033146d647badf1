//! [`MustStay`]: the messages a fitted request keeps whatever the limit, beyond what
//! the trimmer protects itself, and the error that says what they need when they do
//! not fit.

use crate::chat::{ChatFormat, ChatMessage, Role, latest_user, thinking_loop};
use crate::count::TokenCounter;
use crate::request::RequestError;

/// What a fitted request must keep: the latest user message (the last one that
/// carries more than tool results), and an unfinished tool-use loop that started
/// with thinking, whole.
pub(super) struct MustStay {
    /// The latest user message.
    latest: Option<usize>,
    /// Where the loop that must stay whole starts; it runs to the end.
    thinking_loop: Option<usize>,
    /// Whether there is any message besides system messages.
    history: bool,
}

impl MustStay {
    pub(super) fn of<M: ChatMessage>(messages: &[M]) -> Self {
        Self {
            latest: latest_user(messages),
            thinking_loop: thinking_loop(messages),
            history: messages.iter().any(|m| m.role() != Role::System),
        }
    }

    /// The error for `needed` tokens over `limit`: `needed` is what the trim kept or
    /// needed, which the thinking loop is added to unless `kept(start)` says the trim
    /// kept it.
    pub(super) fn over<M: ChatMessage>(
        &self,
        format: ChatFormat,
        counter: &dyn TokenCounter,
        messages: &[M],
        needed: usize,
        kept: impl Fn(usize) -> bool,
        limit: usize,
    ) -> RequestError {
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
            messages[start..].iter().fold(needed, |sum, m| {
                sum.saturating_add(format.message_tokens(counter, m))
            })
        };
        RequestError::ToolLoopDoesNotFit {
            needed,
            limit,
            over: needed.saturating_sub(limit),
        }
    }

    /// Checks that a trim whose kept messages are `keep` (and cost `kept_tokens`,
    /// with `fixed` added) kept what must stay.
    ///
    /// # Errors
    ///
    /// [`RequestError::ToolLoopDoesNotFit`] when the thinking loop was dropped, and
    /// [`RequestError::DoesNotFit`] when the latest user message was, or every message
    /// but the system ones: with what they need.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check<M: ChatMessage>(
        &self,
        format: ChatFormat,
        counter: &dyn TokenCounter,
        messages: &[M],
        keep: &[bool],
        fixed: usize,
        kept_tokens: usize,
        limit: usize,
    ) -> Result<(), RequestError> {
        let kept = |i: usize| keep.get(i).copied().unwrap_or(false);
        if self.thinking_loop.is_some_and(|s| !kept(s)) {
            let needed = fixed.saturating_add(kept_tokens);
            return Err(self.over(format, counter, messages, needed, kept, limit));
        }
        let kept_history = messages
            .iter()
            .enumerate()
            .any(|(i, m)| kept(i) && m.role() != Role::System);
        let lost_latest = self.latest.is_some_and(|l| !kept(l));
        if lost_latest || (self.history && !kept_history) {
            let needed = fixed.saturating_add(self.latest_turn_tokens(format, counter, messages));
            return Err(self.over(format, counter, messages, needed, |_| true, limit));
        }
        Ok(())
    }

    /// What the latest turn costs with the system messages before it: from the
    /// latest user message to the end.
    fn latest_turn_tokens<M: ChatMessage>(
        &self,
        format: ChatFormat,
        counter: &dyn TokenCounter,
        messages: &[M],
    ) -> usize {
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
