//! [`Precounted`]: a message with the content count an edit run made, so that the
//! dropping step after it counts nothing again; [`MessageCount`]: the counts an
//! edit run takes instead of counting, for a history that lives on.

use super::editable::{ContentSplit, EditableMessage};
use crate::chat::{ChatFormat, ChatMessage, Role, ToolCallRef};
use crate::count::TokenCounter;

/// What an edit run needs to know of a message, counted once: what it costs, its
/// content and thinking, and each tool result's share.
///
/// A history that lives on (a [`ChatSession`](crate::chat::ChatSession)) counts
/// each message when it arrives and hands the counts to
/// [`ContextEditor::edit_counted`](super::ContextEditor::edit_counted), which then
/// counts only what its edits write.
///
/// ```
/// use ctxbudget::Message;
/// use ctxbudget::chat::ChatFormat;
/// use ctxbudget::chat::edit::MessageCount;
///
/// let words = |t: &str| t.split_whitespace().count();
/// let count = MessageCount::of(&Message::tool("c1", "three words here"), &words, ChatFormat::openai());
/// assert_eq!((count.split.content, count.results.as_slice()), (3, &[3][..]));
/// assert_eq!(count.tokens, ChatFormat::openai().message_tokens(&words, &Message::tool("c1", "three words here")));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MessageCount {
    /// What the message costs, chat format overhead included.
    pub tokens: usize,
    /// Its content, and the thinking in it
    /// ([`EditableMessage::count_split`]).
    pub split: ContentSplit,
    /// Each tool result's share of the content, in order.
    pub results: Vec<usize>,
}

impl MessageCount {
    /// Counts `message` once, in `format`.
    pub fn of<M, C>(message: &M, counter: &C, format: ChatFormat) -> Self
    where
        M: EditableMessage,
        C: TokenCounter + ?Sized,
    {
        let mut results = Vec::new();
        let split = message.count_split(counter, &mut results);
        let tokens = format
            .message_overhead(counter, message)
            .saturating_add(split.content);
        Self {
            tokens,
            split,
            results,
        }
    }
}

/// A borrowed message whose [`content_tokens`](ChatMessage::content_tokens) is
/// the count an edit run already made ([`Edited::content_tokens`](super::Edited::content_tokens)):
/// trim a history of these with [`ChatTrimmer`](crate::ChatTrimmer) and only the
/// per-message overhead (role, name, calls) is counted again.
///
/// ```
/// use ctxbudget::{ChatTrimmer, Message};
/// use ctxbudget::chat::edit::{ContextEditor, Edits, Precounted};
///
/// let words = |t: &str| t.split_whitespace().count();
/// let mut history = vec![Message::user("one two three"), Message::assistant("four five")];
/// let edited = ContextEditor::new(words, 100).edit(&mut history);
/// let counted = Precounted::wrap(&history, edited.content_tokens());
/// let trimmed = ChatTrimmer::new(words, 100).trim(&counted)?;
/// assert_eq!(trimmed.tokens(), edited.tokens());
/// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Precounted<'m, M> {
    /// The message.
    pub message: &'m M,
    /// What its content costs.
    pub content_tokens: usize,
}

impl<'m, M> Precounted<'m, M> {
    /// Pairs each message with its count (`counts` as long as `messages`; a message
    /// without a count gets 0).
    pub fn wrap(messages: &'m [M], counts: &[usize]) -> Vec<Self> {
        messages
            .iter()
            .enumerate()
            .map(|(i, message)| Precounted {
                message,
                content_tokens: counts.get(i).copied().unwrap_or(0),
            })
            .collect()
    }
}

impl<M: ChatMessage> ChatMessage for Precounted<'_, M> {
    fn role(&self) -> Role {
        self.message.role()
    }
    fn content(&self) -> &str {
        self.message.content()
    }
    fn name(&self) -> Option<&str> {
        self.message.name()
    }
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.message.tool_calls()
    }
    fn tool_call_id(&self) -> Option<&str> {
        self.message.tool_call_id()
    }
    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.message.tool_result_ids()
    }
    fn carries_user_content(&self) -> bool {
        self.message.carries_user_content()
    }
    fn starts_with_thinking(&self) -> bool {
        self.message.starts_with_thinking()
    }
    fn content_tokens<C: TokenCounter + ?Sized>(&self, _counter: &C) -> usize {
        self.content_tokens
    }
}
