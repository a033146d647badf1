//! [`EditableMessage`]: what a message type exposes to the editing engine, and the
//! view of one tool result ([`ToolResult`]).

use crate::chat::ChatMessage;
use crate::count::TokenCounter;

/// One tool result carried by a message, as the editing engine sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolResult<'a> {
    /// The id of the call it answers.
    pub call_id: &'a str,
    /// Its text parts, in order (the whole content, when that is one string).
    pub texts: Vec<&'a str>,
    /// How many images and documents it holds.
    pub media: usize,
}

impl<'a> ToolResult<'a> {
    /// A result answering `call_id`, with its text parts and its number of images
    /// and documents.
    pub fn new(call_id: &'a str, texts: Vec<&'a str>, media: usize) -> Self {
        Self {
            call_id,
            texts,
            media,
        }
    }
}

/// What a message's content costs, as [`EditableMessage::count_split`] counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ContentSplit {
    /// The whole content: [`ChatMessage::content_tokens`].
    pub content: usize,
    /// The part of it that is thinking the engine may drop.
    pub thinking: usize,
}

impl ContentSplit {
    /// Content of `content` tokens, `thinking` of them thinking.
    pub fn new(content: usize, thinking: usize) -> Self {
        Self { content, thinking }
    }
}

/// A chat message the [editing engine](super) can edit in place: it says which
/// tool results and thinking it carries, and changes them when asked.
///
/// Implemented for [`Message`](crate::Message) and for the provider request
/// messages (`request::openai::RequestMessage`, `request::anthropic::AnthropicMessage`).
/// Every method but [`summary`](EditableMessage::summary) has a default that
/// carries nothing and edits nothing, so a type of your own opts in to what it
/// supports.
///
/// The contract the engine relies on, which the implementations keep:
///
/// - the `index` of a result is its place among the message's results, in order;
///   a result answers the call [`ToolResult::call_id`] names;
/// - [`tool_result_tokens`](EditableMessage::tool_result_tokens) is what the
///   result adds to [`content_tokens`](ChatMessage::content_tokens), and
///   [`tool_result_tokens_with`](EditableMessage::tool_result_tokens_with) what it
///   would add with its content replaced by a text of `text_tokens`;
/// - an edit method changes only what it says (the result's content, never its
///   call id, its error flag or the message's other fields) and returns whether
///   it changed anything.
///
/// ```
/// use ctxbudget::chat::edit::{ContextEditor, EditableMessage, Edits, ToolResult};
/// use ctxbudget::chat::{ChatMessage, Role};
///
/// /// A log line from a tool, or a line of the conversation.
/// #[derive(Debug)]
/// struct Line { role: Role, text: String, call: Option<String> }
///
/// impl ChatMessage for Line {
///     fn role(&self) -> Role { self.role }
///     fn content(&self) -> &str { &self.text }
///     fn tool_call_id(&self) -> Option<&str> { self.call.as_deref() }
/// }
///
/// impl EditableMessage for Line {
///     fn tool_result_count(&self) -> usize { usize::from(self.call.is_some()) }
///     fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
///         let call = self.call.as_deref().filter(|_| index == 0)?;
///         Some(ToolResult::new(call, vec![&self.text], 0))
///     }
///     fn tool_result_tokens<C: ctxbudget::TokenCounter + ?Sized>(&self, _: usize, c: &C) -> usize {
///         c.count(&self.text)
///     }
///     fn replace_tool_result(&mut self, _: usize, text: &str) -> bool {
///         self.text = text.to_owned();
///         true
///     }
///     fn summary(text: String) -> Self {
///         Line { role: Role::User, text, call: None }
///     }
/// }
///
/// let mut lines = vec![Line { role: Role::User, text: "Count the errors.".into(), call: None }];
/// for i in 0..6 {
///     lines.push(Line { role: Role::Tool, text: "error ".repeat(50), call: Some(format!("c{i}")) });
/// }
/// let words = |t: &str| t.split_whitespace().count();
/// let editor = ContextEditor::new(words, 200)
///     .with_format(ctxbudget::chat::ChatFormat::content_only())
///     .with_edits(Edits::default().no_truncation().grid(0.0).placeholder("[cleared]"));
/// let edited = editor.edit(&mut lines);
/// assert!(edited.report().fits());
/// assert_eq!(lines[1].text, "[cleared]");
/// assert_eq!(lines[6].text.len(), 300); // the 3 most recent results stay
/// ```
pub trait EditableMessage: ChatMessage {
    /// How many tool results the message carries. Default: none.
    fn tool_result_count(&self) -> usize {
        0
    }

    /// The result at `index` (`0..tool_result_count()`).
    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        let _ = index;
        None
    }

    /// What the result at `index` adds to [`content_tokens`](ChatMessage::content_tokens).
    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        let _ = (index, counter);
        0
    }

    /// What the result at `index` would add with its content replaced by a text
    /// of `text_tokens` tokens (its call id, when the format counts it, and the
    /// text). Default: `text_tokens`.
    fn tool_result_tokens_with<C: TokenCounter + ?Sized>(
        &self,
        index: usize,
        text_tokens: usize,
        counter: &C,
    ) -> usize {
        let _ = (index, counter);
        text_tokens
    }

    /// What the thinking the engine may drop adds to
    /// [`content_tokens`](ChatMessage::content_tokens) (0 when it is not counted).
    fn thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        let _ = counter;
        0
    }

    /// Counts the content once: pushes each result's share to `results` (in
    /// order) and returns the whole and the thinking. The default counts the
    /// results and the thinking apart from the whole; override it to count once.
    fn count_split<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        results: &mut Vec<usize>,
    ) -> ContentSplit {
        results.extend((0..self.tool_result_count()).map(|i| self.tool_result_tokens(i, counter)));
        ContentSplit::new(self.content_tokens(counter), self.thinking_tokens(counter))
    }

    /// Drops the message's thinking, unless nothing would be left. Default: no.
    fn drop_thinking(&mut self) -> bool {
        false
    }

    /// Replaces the content of the result at `index` with `text`, keeping its call
    /// id and its other fields (an error flag stays). Default: no.
    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        let _ = (index, text);
        false
    }

    /// Replaces the text part `part` (an index into [`ToolResult::texts`]) of the
    /// result at `index` with `text`. Default: no.
    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        let _ = (index, part, text);
        false
    }

    /// Replaces each image and document of the result at `index` with a text part
    /// `text`. Default: no.
    fn replace_tool_result_media(&mut self, index: usize, text: &str) -> bool {
        let _ = (index, text);
        false
    }

    /// Clears the arguments of this (assistant) message's call `call_id`: `{}`, or
    /// the provider's equivalent. Default: no.
    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        let _ = call_id;
        false
    }

    /// A user message holding `text`, to stand for the messages a summary
    /// replaces.
    fn summary(text: String) -> Self
    where
        Self: Sized;

    /// Puts `text` at the start of this message, as its own block, when the
    /// format wants a summary merged into the next user turn (Anthropic, whose
    /// user turns alternate with the assistant's). Default: no.
    fn prepend_summary(&mut self, text: &str) -> bool {
        let _ = text;
        false
    }
}
