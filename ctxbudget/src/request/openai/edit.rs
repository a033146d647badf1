//! [`EditableMessage`] for [`RequestMessage`]: a `tool` (or legacy `function`)
//! message is one tool result, its `content` a string or parts; a call's
//! `function.arguments` clear to `"{}"`.

use super::content::{Content, ContentPart};
use super::message::{MessageRole, RequestMessage};
use crate::chat::ChatMessage;
use crate::chat::edit::{ContentSplit, EditableMessage, ToolResult};
use crate::count::TokenCounter;

impl RequestMessage {
    /// Whether this is a tool result the engine can pair with its call: a `tool`
    /// message with a `tool_call_id`, or a `function` message with a `name`.
    fn is_result(&self) -> bool {
        matches!(self.role, MessageRole::Tool | MessageRole::Function)
            && ChatMessage::tool_call_id(self).is_some()
    }

    /// What the `refusal` field adds to the content's count.
    fn refusal_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        self.refusal.as_deref().map_or(0, |r| counter.count(r))
    }

    /// The `n`th text part (or the string content, as part 0).
    fn text_part_mut(&mut self, n: usize) -> Option<&mut String> {
        match self.content.as_mut()? {
            Content::Text(text) => (n == 0).then_some(text),
            Content::Parts(parts) => parts
                .iter_mut()
                .filter_map(|p| match p {
                    ContentPart::Text(t) => t.text.as_mut(),
                    _ => None,
                })
                .nth(n),
        }
    }
}

/// Whether `part` is an image, a file or audio: what an old result loses first.
fn is_media(part: &ContentPart) -> bool {
    matches!(
        part,
        ContentPart::ImageUrl(_) | ContentPart::File(_) | ContentPart::InputAudio(_)
    )
}

/// A `tool` message answering a call (or a legacy `function` message) carries one
/// result: its `content`, the `refusal` field aside. A summary is a `user`
/// message.
impl EditableMessage for RequestMessage {
    fn tool_result_count(&self) -> usize {
        usize::from(self.is_result())
    }

    fn tool_result(&self, index: usize) -> Option<ToolResult<'_>> {
        if index != 0 || !self.is_result() {
            return None;
        }
        let id = ChatMessage::tool_call_id(self)?;
        let (texts, media) = match &self.content {
            None => (Vec::new(), 0),
            Some(Content::Text(text)) => (vec![text.as_str()], 0),
            Some(Content::Parts(parts)) => (
                parts.iter().filter_map(ContentPart::as_text).collect(),
                parts.iter().filter(|p| is_media(p)).count(),
            ),
        };
        Some(ToolResult::new(id, texts, media))
    }

    fn tool_result_tokens<C: TokenCounter + ?Sized>(&self, index: usize, counter: &C) -> usize {
        if index != 0 || !self.is_result() {
            return 0;
        }
        self.content_tokens(counter)
            .saturating_sub(self.refusal_tokens(counter))
    }

    fn count_split<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        results: &mut Vec<usize>,
    ) -> ContentSplit {
        let tokens = self.content_tokens(counter);
        if self.is_result() {
            results.push(tokens.saturating_sub(self.refusal_tokens(counter)));
        }
        ContentSplit::new(tokens, 0)
    }

    fn replace_tool_result(&mut self, index: usize, text: &str) -> bool {
        if index != 0 || !self.is_result() || self.text() == Some(text) {
            return false;
        }
        self.content = Some(Content::Text(text.to_owned()));
        true
    }

    fn set_tool_result_text(&mut self, index: usize, part: usize, text: String) -> bool {
        if index != 0 || !self.is_result() {
            return false;
        }
        match self.text_part_mut(part) {
            Some(slot) if *slot != text => {
                *slot = text;
                true
            }
            _ => false,
        }
    }

    fn replace_tool_result_media(&mut self, index: usize, text: &str) -> bool {
        if index != 0 || !self.is_result() {
            return false;
        }
        let Some(Content::Parts(parts)) = self.content.as_mut() else {
            return false;
        };
        let mut replaced = false;
        for part in parts.iter_mut().filter(|p| is_media(p)) {
            *part = ContentPart::text(text);
            replaced = true;
        }
        replaced
    }

    fn clear_tool_input(&mut self, call_id: &str) -> bool {
        let mut cleared = false;
        let calls = self.tool_calls.iter_mut().flatten();
        for call in calls.filter(|c| c.id.as_deref() == Some(call_id)) {
            if let Some(arguments) = call.function.as_mut().and_then(|f| f.arguments.as_mut()) {
                if arguments != "{}" {
                    "{}".clone_into(arguments);
                    cleared = true;
                }
            }
        }
        // A legacy `function_call` is answered by the function's name.
        if let Some(call) = self.function_call.as_mut() {
            if call.name.as_deref() == Some(call_id) {
                if let Some(arguments) = call.arguments.as_mut() {
                    if arguments != "{}" {
                        "{}".clone_into(arguments);
                        cleared = true;
                    }
                }
            }
        }
        cleared
    }

    fn summary(text: String) -> Self {
        RequestMessage::user(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(json: &str) -> RequestMessage {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_tool_message_is_one_result_and_other_fields_stay() {
        let mut result = message(
            r#"{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"a b c"},{"type":"image_url","image_url":{"url":"https://x/y.png"}},{"type":"text","text":"d e"}],"x-trace":1}"#,
        );
        let view = result.tool_result(0).unwrap();
        assert_eq!(
            (view.call_id, view.texts.clone(), view.media),
            ("c1", vec!["a b c", "d e"], 1)
        );
        assert!(result.tool_result(1).is_none());
        assert!(result.set_tool_result_text(0, 1, "e".to_owned()));
        assert!(result.replace_tool_result_media(0, "[image]"));
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"role":"tool","tool_call_id":"c1","content":[
                {"type":"text","text":"a b c"},{"type":"text","text":"[image]"},{"type":"text","text":"e"}],"x-trace":1})
        );
        assert!(result.replace_tool_result(0, "[cleared]"));
        assert!(!result.replace_tool_result(0, "[cleared]"));
        assert_eq!(result.text(), Some("[cleared]"));
        let user = message(r#"{"role":"user","content":"hi","tool_call_id":"x"}"#);
        assert_eq!(user.tool_result_count(), 0);
    }

    #[test]
    fn arguments_clear_to_an_empty_object() {
        let mut call = message(
            r#"{"role":"assistant","content":null,"tool_calls":[
                {"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}},
                {"id":"b","type":"function","function":{"name":"f","arguments":"{\"y\":2}"}}]}"#,
        );
        assert!(call.clear_tool_input("a"));
        assert!(!call.clear_tool_input("a"));
        let calls: Vec<_> = ChatMessage::tool_calls(&call)
            .map(|c| c.arguments)
            .collect();
        assert_eq!(calls, ["{}", r#"{"y":2}"#]);
        let mut legacy = message(
            r#"{"role":"assistant","content":null,"function_call":{"name":"w","arguments":"{\"c\":1}"}}"#,
        );
        assert!(legacy.clear_tool_input("w"));
        assert_eq!(
            legacy.function_call.unwrap().arguments.as_deref(),
            Some("{}")
        );
    }
}
