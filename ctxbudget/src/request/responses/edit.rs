//! [`EditableMessage`] for [`ResponsesMessage`]: a `function_call_output` or
//! `custom_tool_call_output` answering a call is one tool result (its `output` a
//! string or parts); `reasoning` items are the thinking; a call's `arguments`
//! clear to `"{}"` (a custom tool call's `input` to `""`).

use serde_json::{Map, Value};

use super::count::thinking_tokens;
use super::item::{Item, ItemKind};
use super::message::ResponsesMessage;
use crate::chat::edit::{ContentSplit, EditableMessage, ToolResult};
use crate::chat::{ChatMessage, Role};
use crate::count::TokenCounter;

/// The text part types of an output.
const TEXT_PARTS: [&str; 3] = ["input_text", "output_text", "text"];
/// The media part types of an output.
const MEDIA_PARTS: [&str; 2] = ["input_image", "input_file"];

fn part_type(part: &Value) -> Option<&str> {
    part.get("type").and_then(Value::as_str)
}

impl ResponsesMessage {
    /// The output item, when this message is a result the engine can edit.
    fn result(&self) -> Option<&Item> {
        if self.role() != Role::Tool {
            return None;
        }
        let item = self.items().first()?;
        let editable = matches!(
            item.item_type(),
            Some("function_call_output" | "custom_tool_call_output")
        ) && !item.view.as_json;
        editable.then_some(item)
    }

    /// Edits the output item's JSON with `edit`.
    fn edit_result(
        &mut self,
        index: usize,
        edit: impl FnOnce(&mut Map<String, Value>) -> bool,
    ) -> bool {
        if index != 0 || self.result().is_none() {
            return false;
        }
        let changed = self
            .items_mut()
            .first_mut()
            .is_some_and(|item| item.edit_value(edit));
        if changed {
            self.refresh();
        }
        changed
    }
}

/// A call output answering a call carries one result; a summary is a user message.
impl EditableMessage for ResponsesMessage {
    fn tool_result_count(&self) -> usize {
        usize::from(self.result().is_some())
    }

    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        let item = self.result().filter(|_| index == 0)?;
        let view = &item.view;
        let texts = view.texts.iter().map(String::as_str).collect();
        let media = view.images.len().saturating_add(view.files);
        Some(ToolResult::new(item.call_id()?, texts, media))
    }

    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        if index != 0 || self.result().is_none() {
            return 0;
        }
        self.content_tokens(counter)
    }

    fn thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        thinking_tokens(self, counter)
    }

    fn count_split<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        results: &mut Vec<usize>,
    ) -> ContentSplit {
        let tokens = self.content_tokens(counter);
        if self.result().is_some() {
            results.push(tokens);
        }
        ContentSplit::new(tokens, thinking_tokens(self, counter))
    }

    /// Drops the `reasoning` items of an assistant turn that has other items.
    fn drop_thinking(&mut self) -> bool {
        if self.role() != Role::Assistant {
            return false;
        }
        let items = self.items_mut();
        let reasoning = items
            .iter()
            .filter(|i| i.kind() == ItemKind::Reasoning)
            .count();
        if reasoning == 0 || reasoning == items.len() {
            return false;
        }
        items.retain(|i| i.kind() != ItemKind::Reasoning);
        self.refresh();
        true
    }

    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        self.edit_result(index, |map| {
            if map.get("output").and_then(Value::as_str) == Some(text) {
                return false;
            }
            map.insert("output".to_owned(), Value::String(text.to_owned()));
            true
        })
    }

    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        self.edit_result(index, |map| {
            let slot = match map.get_mut("output") {
                Some(Value::String(s)) if part == 0 => s,
                Some(Value::Array(parts)) => {
                    let Some(Value::String(s)) = parts
                        .iter_mut()
                        .filter(|p| part_type(p).is_some_and(|t| TEXT_PARTS.contains(&t)))
                        .nth(part)
                        .and_then(|p| p.get_mut("text"))
                    else {
                        return false;
                    };
                    s
                }
                _ => return false,
            };
            if *slot == text {
                return false;
            }
            *slot = text;
            true
        })
    }

    fn replace_tool_result_media(&mut self, index: usize, text: &str) -> bool {
        self.edit_result(index, |map| {
            let Some(Value::Array(parts)) = map.get_mut("output") else {
                return false;
            };
            let mut replaced = false;
            for part in parts.iter_mut() {
                if part_type(part).is_some_and(|t| MEDIA_PARTS.contains(&t)) {
                    *part = serde_json::json!({"type": "input_text", "text": text});
                    replaced = true;
                }
            }
            replaced
        })
    }

    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        if self.role() != Role::Assistant {
            return false;
        }
        let mut cleared = false;
        for item in self.items_mut() {
            if item.kind() != ItemKind::Call || item.call_id() != Some(call_id) {
                continue;
            }
            let (key, empty) = match item.item_type() {
                Some("function_call") => ("arguments", "{}"),
                Some("custom_tool_call") => ("input", ""),
                _ => continue,
            };
            cleared |= item.edit_value(|map| {
                if map.get(key).and_then(Value::as_str) == Some(empty) {
                    return false;
                }
                map.insert(key.to_owned(), Value::String(empty.to_owned()));
                true
            });
        }
        if cleared {
            self.refresh();
        }
        cleared
    }

    fn summary(text: String) -> Self {
        ResponsesMessage::user(&text)
    }
}
