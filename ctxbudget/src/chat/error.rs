//! [`ChatTrimError`]: why a history could not be trimmed, with the numbers and the fix.

use thiserror::Error;

/// Why a history could not be trimmed to its budget.
///
/// Every message says what the numbers are and what to change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ChatTrimError {
    /// Even after dropping every message the trimmer may drop, what must stay is over
    /// the limit: the system messages (unless
    /// [`with_include_system(false)`](super::ChatTrimmer::with_include_system)) and the
    /// latest user message (unless
    /// [`with_keep_latest_user(false)`](super::ChatTrimmer::with_keep_latest_user)),
    /// minus what the hook removed, plus the reply priming. To let the trimmer drop
    /// them instead, turn those protections off (add
    /// [`with_allow_partial(true)`](super::ChatTrimmer::with_allow_partial) to keep
    /// part of a message that does not fit).
    ///
    /// ```
    /// use ctxbudget::{ChatTrimmer, Message, chat::ChatTrimError};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let history = [Message::system("Be brief."), Message::user("Hello there.")];
    /// // (3 + 1 + 2) + (3 + 1 + 2) + 3 to prime the reply.
    /// let err = ChatTrimmer::new(words, 10).trim(&history).unwrap_err();
    /// assert_eq!(err, ChatTrimError::OverBudget { needed: 15, budget: 10, over: 5 });
    /// assert!(err.to_string().contains("raise the budget to at least 15"));
    /// ```
    #[error("{}", over_budget(*.needed, *.budget, *.over))]
    OverBudget {
        /// What the messages that must stay cost, reply priming included;
        /// `usize::MAX` when the sum is too large to count.
        needed: usize,
        /// The budget's limit.
        budget: usize,
        /// `needed - budget`.
        over: usize,
    },
    /// The chat format's reply priming alone is over the limit, so not even an empty
    /// history fits: every request is primed for the reply (OpenAI's chat format adds
    /// `<|start|>assistant<|message|>`, 3 tokens).
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, ChatTrimmer, Message, chat::ChatTrimError};
    ///
    /// let err = ChatTrimmer::new(CharEstimate, 2).trim::<Message>(&[]).unwrap_err();
    /// assert_eq!(err, ChatTrimError::ReplyPriming { priming: 3, budget: 2 });
    /// assert!(err.to_string().contains("ChatFormat::content_only()"));
    /// ```
    #[error(
        "the chat format primes every reply with {priming} tokens, more than the whole budget of {budget}: raise the budget to at least {priming}, or count with `ChatFormat::content_only()`"
    )]
    ReplyPriming {
        /// The format's [reply priming](super::ChatFormat::reply_priming).
        priming: usize,
        /// The budget's limit.
        budget: usize,
    },
}

/// The message of [`ChatTrimError::OverBudget`]; a saturated sum is not printed as a
/// number.
fn over_budget(needed: usize, budget: usize, over: usize) -> String {
    if needed == usize::MAX {
        format!(
            "the messages that must stay cost too many tokens to count (usize::MAX or more), and the budget is {budget}: check the token counter"
        )
    } else {
        format!(
            "the messages that must stay need {needed} tokens with the reply priming, {over} over the budget of {budget}: raise the budget to at least {needed}, or shorten them"
        )
    }
}
