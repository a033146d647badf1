//! [`EditableMessage`] for [`GeminiContent`]: each `functionResponse` part of a
//! user content is one tool result, its text the `output` (or `error`) string of
//! its `response`, or the whole `response` as JSON; droppable thinking is the
//! thought parts without a `thoughtSignature`; a call's `args` clear to `{}`.
//!
//! A cleared or truncated result keeps its `name`, `id` and every other field
//! of its part; its `response` becomes `{"output": text}` (`{"error": text}` for
//! an error), and a cleared one loses its media `parts`. A `thoughtSignature` is
//! never dropped nor moved: the part that carries it stays whole.

use serde_json::{Map, Value};

use super::content::{GeminiContent, part_tokens, response_tokens};
use super::count::thinking_tokens;
use super::media::media_tokens;
use super::part::{PartKind, Response};
use crate::chat::edit::{ContentSplit, EditableMessage, ToolResult};
use crate::count::TokenCounter;

const RESPONSE_KEYS: [&str; 2] = ["functionResponse", "function_response"];
const CALL_KEYS: [&str; 2] = ["functionCall", "function_call"];

impl GeminiContent {
    /// The `index`-th `functionResponse` of a user content.
    fn response(&self, index: usize) -> Option<&Response> {
        if self.is_model() {
            return None;
        }
        self.view
            .parts
            .iter()
            .filter_map(|p| match &p.kind {
                PartKind::Response(r) => Some(r),
                _ => None,
            })
            .nth(index)
    }

    /// Edits the object of the `index`-th `functionResponse` part with `edit`.
    fn edit_response(
        &mut self,
        index: usize,
        edit: impl FnOnce(&mut Map<String, Value>) -> bool,
    ) -> bool {
        if self.response(index).is_none() {
            return false;
        }
        self.edit_value(|parts| {
            let Some(object) = parts
                .iter_mut()
                .filter_map(|p| {
                    let part = p.as_object_mut()?;
                    let found = RESPONSE_KEYS
                        .iter()
                        .find(|k| part.get(**k).is_some_and(Value::is_object))?;
                    part.get_mut(*found)?.as_object_mut()
                })
                .nth(index)
            else {
                return false;
            };
            edit(object)
        })
    }

    /// Sets the result text of the `index`-th response to `text`: its `output`
    /// (or `error`) string, or, when it has none, a `response` of
    /// `{"output": text}`; with `only`, the rest of `response` and its media
    /// `parts` go too.
    fn set_response_text(&mut self, index: usize, text: &str, only: bool) -> bool {
        let Some(key) = self.response(index).map(|r| r.key) else {
            return false;
        };
        self.edit_response(index, |object| {
            let mut changed = false;
            let mut body = match object.remove("response") {
                Some(Value::Object(body)) if key.is_some() && !only => body,
                Some(Value::Object(mut body)) if key.is_some() => {
                    changed |= body.len() > 1;
                    body.retain(|k, _| Some(k.as_str()) == key);
                    body
                }
                Some(_) | None => {
                    changed = true;
                    Map::new()
                }
            };
            let slot = key.unwrap_or("output");
            if body.get(slot).and_then(Value::as_str) != Some(text) {
                body.insert(slot.to_owned(), Value::String(text.to_owned()));
                changed = true;
            }
            object.insert("response".to_owned(), Value::Object(body));
            if only && object.remove("parts").is_some() {
                changed = true;
            }
            changed
        })
    }
}

/// A user content carries one result per `functionResponse` part; a summary is a
/// user content of one text part.
impl EditableMessage for GeminiContent {
    fn tool_result_count(&self) -> usize {
        if self.is_model() {
            return 0;
        }
        self.results.len()
    }

    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        let response = self.response(index)?;
        let id = self.results.get(index)?;
        Some(ToolResult::new(
            id,
            vec![response.text.as_str()],
            response.media,
        ))
    }

    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        self.response(index)
            .map_or(0, |r| response_tokens(r, counter.count(&r.text), counter))
    }

    /// The name and the text, as a cleared result is `{"output": text}`.
    fn tool_result_tokens_with<C: TokenCounter + ?Sized>(
        &self,
        index: usize,
        text_tokens: usize,
        counter: &C,
    ) -> usize {
        self.response(index).map_or(text_tokens, |r| {
            counter.count(&r.name).saturating_add(text_tokens)
        })
    }

    fn thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        thinking_tokens(self, counter)
    }

    /// Counts each part once.
    fn count_split<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        results: &mut Vec<usize>,
    ) -> ContentSplit {
        let rule = self.rule.get();
        let user = !self.is_model();
        // One share per result the content answers (a response that could not be
        // read is no result).
        let mut shares = self.results.len();
        let mut content = 0usize;
        let mut thinking = 0usize;
        let parts = &self.view.parts;
        let droppable = parts.iter().filter(|p| p.droppable_thought()).count();
        let drops = self.is_model() && droppable > 0 && droppable < parts.len();
        for part in parts {
            let tokens = part_tokens(part, counter, &|p| media_tokens(rule, p));
            content = content.saturating_add(tokens);
            if user && shares > 0 && matches!(part.kind, PartKind::Response(_)) {
                results.push(tokens);
                shares -= 1;
            }
            if drops && part.droppable_thought() {
                thinking = thinking.saturating_add(tokens);
            }
        }
        ContentSplit::new(content, thinking)
    }

    /// Drops the thought parts without a `thoughtSignature` of a model content
    /// that has other parts.
    fn drop_thinking(&mut self) -> bool {
        if thinking_tokens(self, &|_: &str| 1) == 0 {
            return false;
        }
        self.edit_value(|parts| {
            let before = parts.len();
            parts.retain(|p| {
                let thought = p.get("thought").and_then(Value::as_bool) == Some(true);
                let signed = ["thoughtSignature", "thought_signature"]
                    .iter()
                    .any(|k| p.get(*k).is_some_and(|v| !v.is_null()));
                !thought || signed
            });
            parts.len() != before
        })
    }

    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        self.set_response_text(index, text, true)
    }

    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        part == 0 && self.set_response_text(index, &text, false)
    }

    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        if !self.is_model() {
            return false;
        }
        let Some(at) = self.calls.iter().position(|id| id == call_id) else {
            return false;
        };
        self.edit_value(|parts| {
            let Some(call) = parts
                .iter_mut()
                .filter_map(|p| {
                    let part = p.as_object_mut()?;
                    let found = CALL_KEYS
                        .iter()
                        .find(|k| part.get(**k).is_some_and(Value::is_object))?;
                    part.get_mut(*found)?.as_object_mut()
                })
                .nth(at)
            else {
                return false;
            };
            if call
                .get("args")
                .is_some_and(|a| a.as_object().is_some_and(Map::is_empty))
            {
                return false;
            }
            call.insert("args".to_owned(), Value::Object(Map::new()));
            true
        })
    }

    fn summary(text: String) -> Self {
        GeminiContent::user(&text)
    }
}
