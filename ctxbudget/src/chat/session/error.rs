//! [`SessionError`]: why a [`ChatSession`](super::ChatSession) refused a message, a
//! summary or a turn, with the numbers and the fix.

use thiserror::Error;

/// Why a [`ChatSession`](super::ChatSession) refused a message, a summary or a turn.
///
/// After an error the session is as it was before the call: nothing was appended,
/// dropped or replaced.
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
        "the message answers tool call `{id}`, but no call with that id is waiting for a result: push the assistant message that makes the call first, and its results right after it (a result cannot follow other messages, nor answer a call the session has dropped)"
    )]
    UnknownToolCall {
        /// The id the result names.
        id: String,
    },
    /// A second result for a call that already has one.
    #[error(
        "tool call `{id}` already has a result: each call is answered once (to send a result again, make a new call with an id of its own)"
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
        "a tool message must name the call it answers: set its tool_call_id (for a message type of your own, implement `ChatMessage::tool_call_id` or `ChatMessage::tool_result_ids`)"
    )]
    ToolResultWithoutId,
    /// A message that both makes tool calls and answers them.
    #[error(
        "a message cannot both make tool calls and answer them: push the results in their own message (a tool message, or a user message of tool_result blocks), then the next call"
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
    /// prompt must keep (the system messages, the summary, the latest user message,
    /// the tool call the message answers and its other results) and the reply
    /// priming, it is over the limit.
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
    #[error(
        "the message costs {tokens} tokens, and with what every prompt must keep (system messages, the summary, the latest user message, the tool call it answers) and the reply priming a prompt would need {needed}, {} over the session's limit of {limit}: shorten the message (cut a long tool output with `trim_with`), or raise the limit",
        needed.saturating_sub(*limit)
    )]
    MessageTooLarge {
        /// What the message costs, chat format overhead included.
        tokens: usize,
        /// What the smallest prompt with it would cost, reply priming included.
        needed: usize,
        /// The session's limit.
        limit: usize,
    },
    /// A summary that does not fit in the prompt with what it must stay with.
    #[error(
        "the summary costs {tokens} tokens, but only {room} are left beside what the prompt must keep: ask for a shorter summary (or return None to keep the previous one)"
    )]
    SummaryTooLarge {
        /// What the summary costs, chat format overhead included.
        tokens: usize,
        /// What the prompt has room for.
        room: usize,
    },
    /// The chat format's reply priming alone is over the limit, so no prompt fits.
    #[error(
        "the chat format primes every reply with {priming} tokens, more than the session's limit of {limit}: raise the limit, or count with `ChatFormat::content_only()` (or `with_reply_priming(0)`) if the priming is accounted for elsewhere"
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
        "{calls} {list} {have} no result yet: push a result for every call before any other message and before preparing a prompt (providers reject a call without its results)"
    )
}
