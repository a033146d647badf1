//! [`EditableMessage`] for the ready-made [`Message`]: a [`Tool`](Role::Tool)
//! message with a call id is one tool result, its content one text.

use super::editable::{ContentSplit, EditableMessage, ToolResult};
use crate::chat::{Message, Role};
use crate::count::TokenCounter;

impl Message {
    /// Whether this is a tool result the engine can pair with its call.
    fn is_result(&self) -> bool {
        self.role == Role::Tool && self.tool_call_id.is_some()
    }
}

/// A [`Tool`](Role::Tool) message with a `tool_call_id` is one result, its content
/// one text; calls' arguments clear to `{}`; a summary is a user message.
impl EditableMessage for Message {
    fn tool_result_count(&self) -> usize {
        usize::from(self.is_result())
    }

    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        let id = self
            .tool_call_id
            .as_deref()
            .filter(|_| index == 0 && self.is_result())?;
        Some(ToolResult::new(id, vec![&self.content], 0))
    }

    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        if index == 0 && self.is_result() {
            counter.count(&self.content)
        } else {
            0
        }
    }

    fn count_split<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        results: &mut Vec<usize>,
    ) -> ContentSplit {
        let tokens = counter.count(&self.content);
        if self.is_result() {
            results.push(tokens);
        }
        ContentSplit::new(tokens, 0)
    }

    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        if index != 0 || !self.is_result() || self.content == text {
            return false;
        }
        text.clone_into(&mut self.content);
        true
    }

    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        if part != 0 {
            return false;
        }
        if index != 0 || !self.is_result() || self.content == text {
            return false;
        }
        self.content = text;
        true
    }

    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        let mut cleared = false;
        for call in self.tool_calls.iter_mut().filter(|c| c.id == call_id) {
            if call.arguments != "{}" {
                "{}".clone_into(&mut call.arguments);
                cleared = true;
            }
        }
        cleared
    }

    fn summary(text: String) -> Self {
        Message::user(text)
    }
}
