//! [`SessionError`]: why a [`ChatSession`](super::ChatSession) refused a message, a
//! summary or a turn, with the numbers and the fix.

use thiserror::Error;

/// Why a [`ChatSession`](super::ChatSession) refused a message, a summary or a turn.
///
/// After an error the session is as it was before the call: nothing was appended,
/// dropped or replaced. With [context edits](super::ChatSession#context-edits) on,
/// the edits a `prepare` made before it failed stay made: they are what the next
/// `prepare` would make first, and no message left.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SessionError {
    /// A tool result answers a call that is not waiting for a result: never made,
    /// made earlier than the last call, or already dropped from the session.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, Message, chat::{ChatSession, SessionError}};
    ///
    /// let mut session = ChatSession::new(CharEstimate, 1_000);
    /// session.push(Message::user("What's the time?"))?;
    /// let err = session.push(Message::tool("call_1", "12:00")).unwrap_err();
    /// assert_eq!(err, SessionError::UnknownToolCall { id: "call_1".into() });
    /// assert_eq!(session.len(), 1); // nothing was appended
    /// # Ok::<(), SessionError>(())
    /// ```
    #[error(
        "the message answers tool call `{id}`, but no call with that id waits for a result: push the call first, then its results right after it"
    )]
    UnknownToolCall {
        /// The id the result names.
        id: String,
    },
    /// A second result for a call that already has one.
    #[error(
        "tool call `{id}` already has a result: answer each call once (to send another result, make a new call with an id of its own)"
    )]
    DuplicateToolResult {
        /// The call id.
        id: String,
    },
    /// A tool call whose id a call in the session already uses (or that the same
    /// message repeats): results could not say which call they answer.
    #[error(
        "tool call id `{id}` is already used by a call in the session: give every call an id of its own"
    )]
    DuplicateToolCallId {
        /// The repeated id.
        id: String,
    },
    /// A [`Tool`](crate::chat::Role::Tool) message that names no call.
    #[error(
        "a tool message names no call: set its tool_call_id (for a message type of your own, implement `ChatMessage::tool_call_id`)"
    )]
    ToolResultWithoutId,
    /// A message that both makes tool calls and answers them.
    #[error(
        "a message cannot both make tool calls and answer them: push the results in a message of their own, then the next call"
    )]
    CallsAndResults,
    /// Calls without results yet, when the next message is not a result, or when a
    /// prompt is prepared: providers reject a call whose results are missing.
    #[error("{}", pending(ids))]
    PendingToolCalls {
        /// The calls still waiting for a result.
        ids: Vec<String>,
    },
    /// A message that does not fit in any prompt of the session: with what every
    /// prompt must keep (the system messages, the summary, the latest user message
    /// with what is carried with it, the tool call the message answers and its other
    /// results) and the reply priming, it is over the limit.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, Message, chat::{ChatSession, SessionError}};
    ///
    /// let mut session = ChatSession::new(CharEstimate, 100);
    /// session.push(Message::system("Be brief."))?; // 3 + 2 + 3 tokens
    /// let err = session.push(Message::user("x".repeat(400))).unwrap_err();
    /// // 3 per message + 1 ("user") + 100, with the system message and 3 to prime
    /// // the reply.
    /// assert_eq!(err, SessionError::MessageTooLarge { tokens: 104, needed: 115, limit: 100 });
    /// assert!(err.to_string().contains("15 over"));
    /// # Ok::<(), SessionError>(())
    /// ```
    ///
    /// A long tool output can be cut to fit with [`trim_with`](crate::trim::trim_with)
    /// before it is pushed.
    #[error("{}", too_large(*.tokens, *.needed, *.limit))]
    MessageTooLarge {
        /// What the message costs, chat format overhead included; `usize::MAX` when
        /// it is too large to count.
        tokens: usize,
        /// What the smallest prompt with it would cost, reply priming included;
        /// `usize::MAX` when the sum is too large to count.
        needed: usize,
        /// The session's limit.
        limit: usize,
    },
    /// A new limit ([`set_limit`](super::ChatSession::set_limit)) under what the
    /// smallest prompt of the session costs: the system messages, the summary, the
    /// latest user message, the last message or tool call with its results, and the
    /// reply priming.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, Message, chat::{ChatSession, SessionError}};
    ///
    /// let mut session = ChatSession::new(CharEstimate, 100);
    /// session.push(Message::system("Be brief."))?; // 3 + 2 + 3 tokens
    /// session.push(Message::user("What time is it?"))?; // 3 + 1 + 4 tokens
    /// let err = session.set_limit(10).unwrap_err();
    /// // Both messages, and 3 to prime the reply.
    /// assert_eq!(err, SessionError::LimitTooSmall { needed: 19, limit: 10 });
    /// assert!(err.to_string().contains("9 over the new limit of 10"));
    /// assert_eq!(session.limit(), 100); // unchanged
    /// # Ok::<(), SessionError>(())
    /// ```
    #[error("{}", limit_too_small(*.needed, *.limit))]
    LimitTooSmall {
        /// What the smallest prompt costs, reply priming included; `usize::MAX` when
        /// the sum is too large to count.
        needed: usize,
        /// The limit asked for.
        limit: usize,
    },
    /// A summary that does not fit in the prompt with what it must stay with.
    #[error(
        "the summary costs {tokens} tokens, but only {room} are left beside what the prompt must keep: ask for a shorter summary, or return None to keep the last one"
    )]
    SummaryTooLarge {
        /// What the summary costs, chat format overhead included.
        tokens: usize,
        /// What the prompt has room for.
        room: usize,
    },
    /// The latest turn (the messages after the latest user message, a tool-use loop)
    /// began with thinking, and with what every prompt keeps it no longer fits: a cut
    /// inside it would send a later step without the thinking that began it, which
    /// Anthropic rejects ("a final `assistant` message must start with a thinking
    /// block"). Returned by [`prepare`](super::ChatSession::prepare) and its kin,
    /// with the session unchanged.
    ///
    /// The loop ends with the next user message: [`pop`](super::ChatSession::pop)
    /// the last step and push shorter results (say, cut with
    /// [`trim_with`](crate::trim::trim_with)), or push the next user message, after
    /// which the loop may be cut like any earlier turn.
    #[error("{}", loop_does_not_fit(*.needed, *.limit))]
    ToolLoopDoesNotFit {
        /// What the smallest prompt with the whole loop costs, reply priming
        /// included; `usize::MAX` when the sum is too large to count.
        needed: usize,
        /// The session's limit.
        limit: usize,
    },
    /// The chat format's reply priming alone is over the limit, so no prompt fits.
    #[error(
        "the chat format primes every reply with {priming} tokens, more than the session's limit of {limit}: raise the limit to at least {priming}, or count with `ChatFormat::content_only()`"
    )]
    ReplyPriming {
        /// The format's [reply priming](crate::chat::ChatFormat::reply_priming).
        priming: usize,
        /// The session's limit.
        limit: usize,
    },
}

/// The message of [`SessionError::PendingToolCalls`].
fn pending(ids: &[String]) -> String {
    let list = ids
        .iter()
        .map(|id| format!("`{id}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (calls, have) = if ids.len() == 1 {
        ("tool call", "has")
    } else {
        ("tool calls", "have")
    };
    format!(
        "{calls} {list} {have} no result yet: push a result for every call before another message or a prompt (providers reject a call without its results)"
    )
}

/// The message of [`SessionError::MessageTooLarge`]: a cost or a sum too large to
/// count is not printed as a number, nor a difference taken from it.
fn too_large(tokens: usize, needed: usize, limit: usize) -> String {
    if tokens == usize::MAX || needed == usize::MAX {
        let what = if tokens == usize::MAX {
            "the message costs"
        } else {
            "a prompt with the message needs"
        };
        return format!(
            "{what} too many tokens to count (usize::MAX or more), over the session's limit of {limit}: check the token counter, or shorten the message"
        );
    }
    format!(
        "the message costs {tokens} tokens; with what every prompt keeps a prompt needs {needed}, {} over the limit of {limit}: shorten the message or raise the limit",
        needed.saturating_sub(limit)
    )
}

/// The message of [`SessionError::LimitTooSmall`].
fn limit_too_small(needed: usize, limit: usize) -> String {
    if needed == usize::MAX {
        return format!(
            "what every prompt keeps costs too many tokens to count (usize::MAX or more), over the new limit of {limit}: check the token counter"
        );
    }
    format!(
        "what every prompt keeps (system messages, summary, latest user message, last unit) needs {needed} tokens, {} over the new limit of {limit}: set at least {needed}",
        needed.saturating_sub(limit)
    )
}

/// The message of [`SessionError::ToolLoopDoesNotFit`].
fn loop_does_not_fit(needed: usize, limit: usize) -> String {
    if needed == usize::MAX {
        return format!(
            "the tool-use loop that began with thinking needs too many tokens to count, over the limit of {limit}: check the token counter"
        );
    }
    format!(
        "the tool-use loop that began with thinking needs {needed} tokens with what the prompt keeps, {} over the limit of {limit}: pop a step or push a new question",
        needed.saturating_sub(limit)
    )
}
