//! [`EditableMessage`] for [`AnthropicMessage`]: each `tool_result` block is a
//! result (its `content` a string or blocks, `is_error` and `cache_control`
//! kept), `thinking` and `redacted_thinking` blocks are the droppable thinking, a
//! `tool_use` block's `input` clears to `{}`.

use serde_json::value::RawValue;

use super::blocks::{Content, ContentBlock, TextBlock, ToolResultBlock};
use super::count::block_tokens;
use super::message::{AnthropicMessage, AnthropicRole};
use crate::chat::edit::{ContentSplit, EditableMessage, ToolResult};
use crate::count::TokenCounter;

fn is_thinking(block: &ContentBlock) -> bool {
    matches!(
        block,
        ContentBlock::Thinking(_) | ContentBlock::RedactedThinking(_)
    )
}

fn is_media(block: &ContentBlock) -> bool {
    matches!(block, ContentBlock::Image(_) | ContentBlock::Document(_))
}

impl AnthropicMessage {
    /// The `tool_result` block at `index` among them, to change.
    fn tool_result_mut(&mut self, index: usize) -> Option<&mut ToolResultBlock> {
        match &mut self.content {
            Content::Text(_) => None,
            Content::Blocks(blocks) => blocks
                .iter_mut()
                .filter_map(|b| match b {
                    ContentBlock::ToolResult(result) => Some(result),
                    _ => None,
                })
                .nth(index),
        }
    }

    /// What its `thinking` and `redacted_thinking` blocks cost, whether they
    /// count in this request or not.
    fn all_thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        self.blocks()
            .iter()
            .filter(|b| is_thinking(b))
            .fold(0usize, |sum, b| {
                sum.saturating_add(block_tokens(b, counter, true))
            })
    }

    /// What its thinking would add to its count, were it counted: 0 when it
    /// already is.
    pub(super) fn uncounted_thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        if self.counts_thinking() {
            0
        } else {
            self.all_thinking_tokens(counter)
        }
    }
}

/// Results are the `tool_result` blocks, in order; thinking is dropped from an
/// assistant message only when other blocks remain (the engine never asks for the
/// turn in progress); a summary merges into a user message that answers no call.
impl EditableMessage for AnthropicMessage {
    fn tool_result_count(&self) -> usize {
        self.tool_results().count()
    }

    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        let result = self.tool_results().nth(index)?;
        let (texts, media) = match &result.content {
            None => (Vec::new(), 0),
            Some(Content::Text(text)) => (vec![text.as_str()], 0),
            Some(Content::Blocks(blocks)) => (
                blocks
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect(),
                blocks.iter().filter(|b| is_media(b)).count(),
            ),
        };
        Some(ToolResult::new(&result.tool_use_id, texts, media))
    }

    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        self.blocks()
            .iter()
            .filter(|b| matches!(b, ContentBlock::ToolResult(_)))
            .nth(index)
            .map_or(0, |b| block_tokens(b, counter, self.counts_thinking()))
    }

    /// The call id, as a `tool_result` block counts it, and the text.
    fn tool_result_tokens_with<C: TokenCounter + ?Sized>(
        &self,
        index: usize,
        text_tokens: usize,
        counter: &C,
    ) -> usize {
        self.tool_results()
            .nth(index)
            .map_or(0, |r| counter.count(&r.tool_use_id))
            .saturating_add(text_tokens)
    }

    fn thinking_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        if !self.counts_thinking() {
            return 0;
        }
        self.all_thinking_tokens(counter)
    }

    fn count_split<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        results: &mut Vec<usize>,
    ) -> ContentSplit {
        let blocks = match &self.content {
            Content::Text(text) => return ContentSplit::new(counter.count(text), 0),
            Content::Blocks(blocks) => blocks,
        };
        let mut content = 0usize;
        let mut thinking = 0usize;
        for block in blocks {
            let tokens = block_tokens(block, counter, self.counts_thinking());
            content = content.saturating_add(tokens);
            if matches!(block, ContentBlock::ToolResult(_)) {
                results.push(tokens);
            } else if is_thinking(block) {
                thinking = thinking.saturating_add(tokens);
            }
        }
        ContentSplit::new(content, thinking)
    }

    fn drop_thinking(&mut self) -> bool {
        if self.role != AnthropicRole::Assistant {
            return false;
        }
        let Content::Blocks(blocks) = &mut self.content else {
            return false;
        };
        let thinking = blocks.iter().filter(|b| is_thinking(b)).count();
        if thinking == 0 || thinking == blocks.len() {
            return false;
        }
        blocks.retain(|b| !is_thinking(b));
        true
    }

    /// The `content` becomes the string `text`; `is_error`, `cache_control` and
    /// any other field stay.
    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        let Some(result) = self.tool_result_mut(index) else {
            return false;
        };
        if matches!(&result.content, Some(Content::Text(t)) if t == text) {
            return false;
        }
        result.content = Some(Content::Text(text.to_owned()));
        true
    }

    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        let Some(result) = self.tool_result_mut(index) else {
            return false;
        };
        let slot = match result.content.as_mut() {
            Some(Content::Text(t)) => (part == 0).then_some(t),
            Some(Content::Blocks(blocks)) => blocks
                .iter_mut()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) => Some(&mut t.text),
                    _ => None,
                })
                .nth(part),
            None => None,
        };
        match slot {
            Some(slot) if *slot != text => {
                *slot = text;
                true
            }
            _ => false,
        }
    }

    /// Each `image` and `document` block becomes a `text` block, with the block's
    /// `cache_control` (a breakpoint stays where it was).
    fn replace_tool_result_media(&mut self, index: usize, text: &str) -> bool {
        let Some(result) = self.tool_result_mut(index) else {
            return false;
        };
        let Some(Content::Blocks(blocks)) = result.content.as_mut() else {
            return false;
        };
        let mut replaced = false;
        for block in blocks.iter_mut().filter(|b| is_media(b)) {
            let mut placeholder = TextBlock::new(text);
            if let Some(cache) = block.cache_control() {
                placeholder.extra.insert("cache_control", cache.to_owned());
            }
            *block = ContentBlock::Text(placeholder);
            replaced = true;
        }
        replaced
    }

    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        let Content::Blocks(blocks) = &mut self.content else {
            return false;
        };
        let mut cleared = false;
        for block in blocks {
            if let ContentBlock::ToolUse(call) = block {
                if call.id == call_id && call.input.get().trim() != "{}" {
                    if let Ok(empty) = RawValue::from_string("{}".to_owned()) {
                        call.input = empty;
                        cleared = true;
                    }
                }
            }
        }
        cleared
    }

    fn summary(text: String) -> Self {
        AnthropicMessage::user(text)
    }

    /// Into a user message that opens a turn and answers no call: the summary
    /// becomes its first `text` block (string content becomes blocks).
    fn prepend_summary(&mut self, text: &str) -> bool {
        if self.role != AnthropicRole::User || self.tool_results().next().is_some() {
            return false;
        }
        let summary = ContentBlock::text(text);
        match &mut self.content {
            Content::Text(existing) => {
                let existing = std::mem::take(existing);
                self.content = Content::Blocks(vec![summary, ContentBlock::text(existing)]);
            }
            Content::Blocks(blocks) => blocks.insert(0, summary),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ChatMessage;

    fn message(json: &str) -> AnthropicMessage {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn results_are_blocks_and_keep_their_flags() {
        let mut m = message(
            r#"{"role":"user","content":[
                {"type":"tool_result","tool_use_id":"a","content":"one two","is_error":true},
                {"type":"tool_result","tool_use_id":"b","content":[
                    {"type":"text","text":"three"},
                    {"type":"image","source":{"type":"url","url":"https://x/y.png"},"cache_control":{"type":"ephemeral"}}]}]}"#,
        );
        assert_eq!(m.tool_result_count(), 2);
        let b = m.tool_result(1).unwrap();
        assert_eq!(
            (b.call_id, b.texts.clone(), b.media),
            ("b", vec!["three"], 1)
        );
        let words = |t: &str| t.split_whitespace().count();
        let mut shares = Vec::new();
        let split = m.count_split(&words, &mut shares);
        assert_eq!(split.content, m.content_tokens(&words));
        assert_eq!(shares.len(), 2);
        assert_eq!(shares[0], m.tool_result_tokens(0, &words));
        assert!(m.replace_tool_result(0, "[cleared]"));
        assert!(m.replace_tool_result_media(1, "[image]"));
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"role":"user","content":[
                {"type":"tool_result","tool_use_id":"a","content":"[cleared]","is_error":true},
                {"type":"tool_result","tool_use_id":"b","content":[
                    {"type":"text","text":"three"},
                    {"type":"text","text":"[image]","cache_control":{"type":"ephemeral"}}]}]})
        );
        assert!(!m.prepend_summary("s"));
    }

    #[test]
    fn thinking_drops_only_beside_other_blocks_and_inputs_clear() {
        let mut m = message(
            r#"{"role":"assistant","content":[
                {"type":"thinking","thinking":"hmm","signature":"sig"},
                {"type":"redacted_thinking","data":"xyz"},
                {"type":"tool_use","id":"t1","name":"read","input":{"path":"a"}}]}"#,
        );
        let words = |t: &str| t.split_whitespace().count();
        assert_eq!(m.thinking_tokens(&words), 2);
        assert!(m.clear_tool_input("t1"));
        assert!(!m.clear_tool_input("t1"));
        assert!(m.drop_thinking());
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            serde_json::json!({"role":"assistant","content":[
                {"type":"tool_use","id":"t1","name":"read","input":{}}]})
        );
        let mut only =
            message(r#"{"role":"assistant","content":[{"type":"thinking","thinking":"x"}]}"#);
        assert!(!only.drop_thinking());
    }

    #[test]
    fn a_summary_merges_into_a_user_turn() {
        let mut m = message(r#"{"role":"user","content":"next question"}"#);
        assert!(m.prepend_summary("[summary] earlier"));
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            serde_json::json!({"role":"user","content":[
                {"type":"text","text":"[summary] earlier"},{"type":"text","text":"next question"}]})
        );
        let mut a = message(r#"{"role":"assistant","content":"hi"}"#);
        assert!(!a.prepend_summary("s"));
    }
}
