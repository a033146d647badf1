//! [`ChatMessage`] and [`EditableMessage`] for `rig-core`'s `Message` (feature
//! `rig`): its content blocks are counted, its tool calls and results paired by
//! call id, its tool results cleared and truncated by the context edits.

use rig::completion::message::{
    AssistantContent, AssistantMessage, CallId, DocumentSourceKind, Message as RigMessage,
    ProviderCallId, Text, ToolResultContent, UserContent,
};

use super::MEDIA_TOKENS;
use crate::chat::edit::{EditableMessage, ToolResult};
use crate::chat::{ChatMessage, Role, ToolCallRef};
use crate::count::TokenCounter;

/// The id a call and its result share: the provider's. A call rig gave an id of its
/// own (the provider sent none) pairs with nothing: such ids are not text rig
/// stores, and no provider replays them.
fn call_id(id: &CallId) -> Option<&str> {
    id.provider().map(ProviderCallId::as_str)
}

/// What a media source costs when it is not an image: its text (a URL, a file id,
/// base64 data or the document's own text), [`MEDIA_TOKENS`] for raw bytes.
fn source_tokens<C: TokenCounter + ?Sized>(source: &DocumentSourceKind, counter: &C) -> usize {
    match source {
        DocumentSourceKind::Url(text)
        | DocumentSourceKind::Base64(text)
        | DocumentSourceKind::FileId(text)
        | DocumentSourceKind::String(text) => counter.count(text),
        DocumentSourceKind::Raw(bytes) => MEDIA_TOKENS.max(bytes.len() / 3),
        DocumentSourceKind::Unknown => MEDIA_TOKENS,
    }
}

fn result_part_tokens<C: TokenCounter + ?Sized>(part: &ToolResultContent, counter: &C) -> usize {
    match part {
        ToolResultContent::Text(text) => counter.count(&text.text),
        ToolResultContent::Image(_) => MEDIA_TOKENS,
        ToolResultContent::Json { value } => counter.count(&value.to_string()),
    }
}

fn result_tokens<C: TokenCounter + ?Sized>(parts: &[ToolResultContent], counter: &C) -> usize {
    parts.iter().fold(0, |sum, part| {
        sum.saturating_add(result_part_tokens(part, counter))
    })
}

fn user_tokens<C: TokenCounter + ?Sized>(part: &UserContent, counter: &C) -> usize {
    match part {
        UserContent::Text(text) => counter.count(&text.text),
        UserContent::ToolResult(result) => result_tokens(&result.content, counter),
        UserContent::Image(_) => MEDIA_TOKENS,
        UserContent::Audio(audio) => source_tokens(&audio.data, counter),
        UserContent::Video(video) => source_tokens(&video.data, counter),
        UserContent::Document(document) => source_tokens(&document.data, counter),
    }
}

fn assistant_tokens<C: TokenCounter + ?Sized>(part: &AssistantContent, counter: &C) -> usize {
    match part {
        AssistantContent::Text(text) => counter.count(&text.text),
        AssistantContent::ToolCall(call) => {
            counter.count(&serde_json::Value::Object(call.function.arguments.clone()).to_string())
        }
        AssistantContent::Reasoning(reasoning) => counter.count(&reasoning.text),
        AssistantContent::Image(_) => MEDIA_TOKENS,
        // Opaque provider items, and blocks of later rig versions: their JSON.
        other => counter.count(&serde_json::to_string(other).unwrap_or_default()),
    }
}

fn results(message: &RigMessage) -> impl Iterator<Item = &rig::completion::message::ToolResult> {
    let parts: &[UserContent] = match message {
        RigMessage::User { content } => content,
        _ => &[],
    };
    parts.iter().filter_map(|part| match part {
        UserContent::ToolResult(result) => Some(result),
        _ => None,
    })
}

/// `System`, `User` (a user message whose blocks are all tool results reads as
/// tool results) and `Assistant`.
impl ChatMessage for RigMessage {
    fn role(&self) -> Role {
        match self {
            RigMessage::System { .. } => Role::System,
            RigMessage::User { .. } => Role::User,
            RigMessage::Assistant(_) => Role::Assistant,
        }
    }

    /// The system text, or the first text block.
    fn content(&self) -> &str {
        match self {
            RigMessage::System { content } => content,
            RigMessage::User { content } => content
                .iter()
                .find_map(|part| match part {
                    UserContent::Text(text) => Some(text.text.as_str()),
                    _ => None,
                })
                .unwrap_or(""),
            RigMessage::Assistant(turn) => turn
                .content
                .iter()
                .find_map(|part| match part {
                    AssistantContent::Text(text) => Some(text.text.as_str()),
                    _ => None,
                })
                .unwrap_or(""),
        }
    }

    /// Each `ToolCall` block with a provider id, its arguments counted with the
    /// content (they are a JSON object, not text).
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        let parts: &[AssistantContent] = match self {
            RigMessage::Assistant(turn) => &turn.content,
            _ => &[],
        };
        parts.iter().filter_map(|part| match part {
            AssistantContent::ToolCall(call) => Some(ToolCallRef {
                id: call_id(&call.id)?,
                name: call.function.name.as_str(),
                arguments: "",
            }),
            _ => None,
        })
    }

    fn tool_call_id(&self) -> Option<&str> {
        self.tool_result_ids().next()
    }

    /// Every `ToolResult` block's provider call id.
    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        results(self).filter_map(|result| call_id(&result.call))
    }

    /// Whether a user message holds a block besides tool results.
    fn carries_user_content(&self) -> bool {
        match self {
            RigMessage::User { content } => content
                .iter()
                .any(|part| !matches!(part, UserContent::ToolResult(_))),
            _ => true,
        }
    }

    /// Whether an assistant turn opens with reasoning.
    fn starts_with_thinking(&self) -> bool {
        matches!(self, RigMessage::Assistant(turn)
            if matches!(turn.content.first(), Some(AssistantContent::Reasoning(_))))
    }

    /// Every block: text as text, a call's arguments and JSON results as JSON,
    /// [`MEDIA_TOKENS`] for an image, other media by their source's text.
    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        match self {
            RigMessage::System { content } => counter.count(content),
            RigMessage::User { content } => content.iter().fold(0, |sum, part| {
                sum.saturating_add(user_tokens(part, counter))
            }),
            RigMessage::Assistant(turn) => turn.content.iter().fold(0, |sum, part| {
                sum.saturating_add(assistant_tokens(part, counter))
            }),
        }
    }
}

impl EditableMessage for RigMessage {
    fn tool_result_count(&self) -> usize {
        results(self).count()
    }

    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        let result = results(self).nth(index)?;
        let texts = result
            .content
            .iter()
            .filter_map(ToolResultContent::as_text)
            .collect();
        let media = result
            .content
            .iter()
            .filter(|part| matches!(part, ToolResultContent::Image(_)))
            .count();
        // A result rig gave its own id pairs with nothing the engine can name.
        Some(ToolResult::new(
            call_id(&result.call).unwrap_or(""),
            texts,
            media,
        ))
    }

    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        results(self)
            .nth(index)
            .map_or(0, |result| result_tokens(&result.content, counter))
    }

    fn thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        match self {
            RigMessage::Assistant(turn) => turn
                .content
                .iter()
                .filter(|part| matches!(part, AssistantContent::Reasoning(_)))
                .fold(0, |sum, part| {
                    sum.saturating_add(assistant_tokens(part, counter))
                }),
            _ => 0,
        }
    }

    fn drop_thinking(&mut self) -> bool {
        let RigMessage::Assistant(AssistantMessage { content, .. }) = self else {
            return false;
        };
        let reasoning = content
            .iter()
            .filter(|part| matches!(part, AssistantContent::Reasoning(_)))
            .count();
        if reasoning == 0 || reasoning == content.len() {
            return false;
        }
        content.retain(|part| !matches!(part, AssistantContent::Reasoning(_)));
        true
    }

    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        let Some(result) = results_mut(self).nth(index) else {
            return false;
        };
        if let [ToolResultContent::Text(only)] = result.content.as_slice() {
            if only.text == text {
                return false;
            }
        }
        result.content = vec![ToolResultContent::Text(Text::new(text))];
        true
    }

    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        let Some(result) = results_mut(self).nth(index) else {
            return false;
        };
        let target = result
            .content
            .iter_mut()
            .filter_map(|content| match content {
                ToolResultContent::Text(text) => Some(text),
                _ => None,
            })
            .nth(part);
        match target {
            Some(target) if target.text != text => {
                *target = Text::new(text);
                true
            }
            _ => false,
        }
    }

    fn replace_tool_result_media(&mut self, index: usize, text: &str) -> bool {
        let Some(result) = results_mut(self).nth(index) else {
            return false;
        };
        let mut replaced = false;
        for part in &mut result.content {
            if matches!(part, ToolResultContent::Image(_)) {
                *part = ToolResultContent::Text(Text::new(text));
                replaced = true;
            }
        }
        replaced
    }

    fn clear_tool_input(&mut self, id: &str) -> bool {
        let RigMessage::Assistant(turn) = self else {
            return false;
        };
        let mut cleared = false;
        for part in &mut turn.content {
            if let AssistantContent::ToolCall(call) = part {
                if call_id(&call.id) == Some(id) && !call.function.arguments.is_empty() {
                    call.function.arguments.clear();
                    cleared = true;
                }
            }
        }
        cleared
    }

    fn summary(text: String) -> Self {
        RigMessage::user(text)
    }
}

fn results_mut(
    message: &mut RigMessage,
) -> impl Iterator<Item = &mut rig::completion::message::ToolResult> {
    let parts: &mut [UserContent] = match message {
        RigMessage::User { content } => content,
        _ => &mut [],
    };
    parts.iter_mut().filter_map(|part| match part {
        UserContent::ToolResult(result) => Some(result),
        _ => None,
    })
}
