//! [`ChatMessage`] and [`EditableMessage`] for `genai`'s `ChatMessage` (feature
//! `genai`): its parts are counted, its tool calls and responses paired by
//! `call_id`, its tool responses cleared and truncated by the context edits.

use genai::chat::{
    BinarySource, ChatMessage as GenaiMessage, ChatRole, ContentPart, MessageContent,
};

use super::MEDIA_TOKENS;
use crate::chat::edit::{EditableMessage, ToolResult};
use crate::chat::{ChatMessage, Role, ToolCallRef};
use crate::count::TokenCounter;

/// What one part costs: its text, the JSON of a call's arguments or of a custom
/// part, [`MEDIA_TOKENS`] for an image and the text of any other binary's source.
fn part_tokens<C: TokenCounter + ?Sized>(part: &ContentPart, counter: &C) -> usize {
    match part {
        ContentPart::Text(text)
        | ContentPart::ThoughtSignature(text)
        | ContentPart::ReasoningContent(text) => counter.count(text),
        ContentPart::ToolCall(call) => counter.count(&call.fn_arguments.to_string()),
        ContentPart::ToolResponse(response) => counter.count(&response.content),
        ContentPart::Binary(binary) if binary.is_image() => MEDIA_TOKENS,
        ContentPart::Binary(binary) => match &binary.source {
            BinarySource::Url(text) => counter.count(text),
            BinarySource::Base64(text) => counter.count(text),
        },
        ContentPart::Custom(custom) => counter.count(&custom.data.to_string()),
    }
}

/// Its role; `genai`'s roles are the four of [`Role`].
impl ChatMessage for GenaiMessage {
    fn role(&self) -> Role {
        match self.role {
            ChatRole::System => Role::System,
            ChatRole::User => Role::User,
            ChatRole::Assistant => Role::Assistant,
            ChatRole::Tool => Role::Tool,
        }
    }

    /// The first text part, or `""`.
    fn content(&self) -> &str {
        self.content.first_text().unwrap_or("")
    }

    /// Each `ToolCall` part, its arguments counted with the content (they are a
    /// JSON value, not text).
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        self.content.parts().iter().filter_map(|part| match part {
            ContentPart::ToolCall(call) => Some(ToolCallRef {
                id: &call.call_id,
                name: &call.fn_name,
                arguments: "",
            }),
            _ => None,
        })
    }

    fn tool_call_id(&self) -> Option<&str> {
        self.tool_result_ids().next()
    }

    /// Every `ToolResponse` part's `call_id`.
    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.content.parts().iter().filter_map(|part| match part {
            ContentPart::ToolResponse(response) => Some(response.call_id.as_str()),
            _ => None,
        })
    }

    /// Whether it holds a part besides tool responses.
    fn carries_user_content(&self) -> bool {
        self.content
            .parts()
            .iter()
            .any(|part| !matches!(part, ContentPart::ToolResponse(_)))
    }

    /// Whether an assistant message opens with reasoning or a thought signature.
    fn starts_with_thinking(&self) -> bool {
        self.role == ChatRole::Assistant
            && matches!(
                self.content.parts().first(),
                Some(ContentPart::ReasoningContent(_) | ContentPart::ThoughtSignature(_))
            )
    }

    /// Every part: see the module's notes.
    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        self.content.parts().iter().fold(0, |sum, part| {
            sum.saturating_add(part_tokens(part, counter))
        })
    }
}

impl EditableMessage for GenaiMessage {
    fn tool_result_count(&self) -> usize {
        self.tool_result_ids().count()
    }

    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        self.content
            .tool_responses()
            .into_iter()
            .nth(index)
            .map(|response| ToolResult::new(&response.call_id, vec![&response.content], 0))
    }

    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        self.content
            .tool_responses()
            .into_iter()
            .nth(index)
            .map_or(0, |response| counter.count(&response.content))
    }

    /// Reasoning is dropped; thought signatures stay (Gemini rejects a later call
    /// without the signature of the one before).
    fn thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        self.content
            .parts()
            .iter()
            .filter(|part| matches!(part, ContentPart::ReasoningContent(_)))
            .fold(0, |sum, part| {
                sum.saturating_add(part_tokens(part, counter))
            })
    }

    fn drop_thinking(&mut self) -> bool {
        let parts = self.content.parts();
        let reasoning = parts
            .iter()
            .filter(|part| matches!(part, ContentPart::ReasoningContent(_)))
            .count();
        if reasoning == 0 || reasoning == parts.len() {
            return false;
        }
        let kept: Vec<ContentPart> = std::mem::take(&mut self.content)
            .into_parts()
            .into_iter()
            .filter(|part| !matches!(part, ContentPart::ReasoningContent(_)))
            .collect();
        self.content = MessageContent::from_parts(kept);
        true
    }

    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        self.set_tool_result_text(index, 0, text.to_owned())
    }

    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        if part != 0 {
            return false;
        }
        let response = self
            .content
            .iter_mut()
            .filter_map(|part| match part {
                ContentPart::ToolResponse(response) => Some(response),
                _ => None,
            })
            .nth(index);
        match response {
            Some(response) if response.content != text => {
                response.content = text;
                true
            }
            _ => false,
        }
    }

    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        let mut cleared = false;
        for part in &mut self.content {
            if let ContentPart::ToolCall(call) = part {
                let empty = call
                    .fn_arguments
                    .as_object()
                    .is_some_and(serde_json::Map::is_empty);
                if call.call_id == call_id && !empty {
                    call.fn_arguments = serde_json::Value::Object(serde_json::Map::new());
                    cleared = true;
                }
            }
        }
        cleared
    }

    fn summary(text: String) -> Self {
        GenaiMessage::user(text)
    }
}
