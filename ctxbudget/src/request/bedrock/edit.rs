//! [`EditableMessage`] for [`BedrockMessage`]: each `toolResult` block of a user
//! message is one tool result, its texts the `text` (and `json`, as JSON text)
//! items of its `content`; the thinking is the `reasoningContent` blocks; a
//! `toolUse`'s `input` clears to `{}`.
//!
//! A cleared result keeps its `toolUseId` and its `status` (an error stays one);
//! its `content` becomes `[{"text": placeholder}]`.

use serde_json::{Map, Value};

use super::block::{BlockKind, ToolResult as Result_};
use super::count::thinking_tokens;
use super::message::{BedrockMessage, block_tokens, result_tokens};
use crate::chat::edit::{ContentSplit, EditableMessage, ToolResult};
use crate::count::TokenCounter;

impl BedrockMessage {
    /// The `index`-th `toolResult` of a user message.
    fn result(&self, index: usize) -> Option<&Result_> {
        if self.is_assistant() {
            return None;
        }
        self.view
            .blocks
            .iter()
            .filter_map(|b| match &b.kind {
                BlockKind::ToolResult(r) => Some(r),
                _ => None,
            })
            .nth(index)
    }

    /// Edits the object of the `index`-th `toolResult` block with `edit`.
    fn edit_result(
        &mut self,
        index: usize,
        edit: impl FnOnce(&mut Map<String, Value>) -> bool,
    ) -> bool {
        if self.result(index).is_none() {
            return false;
        }
        self.edit_blocks(|blocks| {
            let Some(result) = blocks
                .iter_mut()
                .filter_map(|b| b.get_mut("toolResult").and_then(Value::as_object_mut))
                .nth(index)
            else {
                return false;
            };
            edit(result)
        })
    }

    fn claude(&self) -> bool {
        self.claude.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The text items of a result's `content` (`text`, and `json` as its text), in
/// order, as the view reads them.
fn text_items(content: &mut [Value]) -> impl Iterator<Item = &mut Value> {
    content
        .iter_mut()
        .filter(|item| item.get("text").is_some_and(Value::is_string) || item.get("json").is_some())
}

/// A user message carries one result per `toolResult` block; a summary is a user
/// message of one text block.
impl EditableMessage for BedrockMessage {
    fn tool_result_count(&self) -> usize {
        if self.is_assistant() {
            return 0;
        }
        self.result_ids().count()
    }

    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        let result = self.result(index)?;
        let texts = result.texts.iter().map(String::as_str).collect();
        Some(ToolResult::new(&result.id, texts, result.media))
    }

    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        self.result(index)
            .map_or(0, |r| result_tokens(r, counter, self.claude()))
    }

    /// The `toolUseId` and the text.
    fn tool_result_tokens_with<C: TokenCounter + ?Sized>(
        &self,
        index: usize,
        text_tokens: usize,
        counter: &C,
    ) -> usize {
        self.result(index).map_or(text_tokens, |r| {
            counter.count(&r.id).saturating_add(text_tokens)
        })
    }

    fn thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        thinking_tokens(self, counter)
    }

    /// Counts each block once.
    fn count_split<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        results: &mut Vec<usize>,
    ) -> ContentSplit {
        let claude = self.claude();
        let user = !self.is_assistant();
        let mut content = 0usize;
        let mut reasoning = 0usize;
        for block in &self.view.blocks {
            let tokens = block_tokens(block, counter, claude);
            content = content.saturating_add(tokens);
            match block.kind {
                BlockKind::ToolResult(_) if user => results.push(tokens),
                BlockKind::Reasoning(_) => reasoning = reasoning.saturating_add(tokens),
                _ => {}
            }
        }
        let thinking = if thinking_tokens(self, &|_: &str| 1) == 0 {
            0
        } else {
            reasoning
        };
        ContentSplit::new(content, thinking)
    }

    /// Drops the `reasoningContent` blocks of an assistant message that has other
    /// blocks.
    fn drop_thinking(&mut self) -> bool {
        if thinking_tokens(self, &|_: &str| 1) == 0 {
            return false;
        }
        self.edit_blocks(|blocks| {
            let before = blocks.len();
            blocks.retain(|b| b.get("reasoningContent").is_none());
            blocks.len() != before
        })
    }

    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        self.edit_result(index, |result| {
            let cleared = serde_json::json!([{"text": text}]);
            if result.get("content") == Some(&cleared) {
                return false;
            }
            result.insert("content".to_owned(), cleared);
            true
        })
    }

    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        self.edit_result(index, |result| {
            let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) else {
                return false;
            };
            let Some(item) = text_items(content).nth(part) else {
                return false;
            };
            let replaced = serde_json::json!({"text": text});
            if *item == replaced {
                return false;
            }
            *item = replaced;
            true
        })
    }

    fn replace_tool_result_media(&mut self, index: usize, text: &str) -> bool {
        self.edit_result(index, |result| {
            let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) else {
                return false;
            };
            let mut replaced = false;
            for item in content.iter_mut() {
                let text_like =
                    item.get("text").is_some_and(Value::is_string) || item.get("json").is_some();
                if !text_like {
                    *item = serde_json::json!({"text": text});
                    replaced = true;
                }
            }
            replaced
        })
    }

    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        if !self.is_assistant() {
            return false;
        }
        self.edit_blocks(|blocks| {
            let Some(call) = blocks
                .iter_mut()
                .filter_map(|b| b.get_mut("toolUse").and_then(Value::as_object_mut))
                .find(|c| c.get("toolUseId").and_then(Value::as_str) == Some(call_id))
            else {
                return false;
            };
            if call
                .get("input")
                .is_some_and(|i| i.as_object().is_some_and(Map::is_empty))
            {
                return false;
            }
            call.insert("input".to_owned(), Value::Object(Map::new()));
            true
        })
    }

    fn summary(text: String) -> Self {
        BedrockMessage::user(&text)
    }
}
