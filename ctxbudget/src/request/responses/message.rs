//! [`ResponsesMessage`]: the items of a Responses `input` grouped as the chat engine
//! sees them, and how each is counted.

use std::collections::HashSet;
use std::sync::OnceLock;

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use super::item::{Item, ItemKind, Side};
use crate::chat::{ChatMessage, Role, ToolCallRef};
use crate::count::TokenCounter;
use crate::request::image::{CountRule, RuleStamp};
use crate::request::openai::PDF_PAGE_TOKENS;

/// What each item after the first of a message adds, as the per-message overhead of
/// [`ChatFormat::openai`](crate::chat::ChatFormat::openai): every item is counted
/// as a Chat Completions message would be.
pub const ITEM_OVERHEAD: usize = 3;

/// Items of a Responses `input`, as the chat engine sees them: one message, or the
/// model's output items of one turn together.
///
/// - a run of the model's output items (`reasoning`, assistant `message`s,
///   `function_call`, `custom_tool_call` and the other `*_call` items) is one
///   [`Assistant`](Role::Assistant) message whose tool calls are the calls with a
///   `call_id`; a `reasoning` item after other output items starts a new one. A
///   `reasoning` item therefore always stays with the items after it, and starts
///   the message, which [starts with thinking](ChatMessage::starts_with_thinking);
/// - a `*_call_output` is a [`Tool`](Role::Tool) message answering its `call_id`, or,
///   when no earlier item makes that call (the call is in the server's history of
///   `previous_response_id`), a [`User`](Role::User) message the fit keeps as the
///   latest one;
/// - a `user`, `system` or `developer` message is a message of that role (a
///   `developer` message is a [`System`](Role::System) one);
/// - a `compaction` item, an `item_reference` and an item of another type is an
///   assistant message of its own, which a fit may drop like any old message; the
///   outputs right after an `item_reference` whose calls are not in the input
///   answer it (it names a stored call), and are kept or dropped with it.
///
/// It serializes as the JSON array of its items.
#[derive(Debug, Clone)]
pub struct ResponsesMessage {
    items: Vec<Item>,
    role: Role,
    /// For an `item_reference`: the ids of the calls it stands for, answered by
    /// the outputs right after it.
    refs: Vec<String>,
    /// The texts of every item, for [`ChatMessage::content`], joined when first
    /// asked for (a fit never asks).
    text: OnceLock<String>,
    /// The image rule of the request's model.
    pub(crate) rule: RuleStamp,
}

impl ResponsesMessage {
    fn new(items: Vec<Item>, role: Role) -> Self {
        Self {
            items,
            role,
            refs: Vec::new(),
            text: OnceLock::new(),
            rule: RuleStamp::default(),
        }
    }

    /// The items, in order.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// The items, to be changed in place by a context edit.
    pub(crate) fn items_mut(&mut self) -> &mut Vec<Item> {
        &mut self.items
    }

    /// Forgets the text after an edit: it is joined again when asked for.
    pub(crate) fn refresh(&mut self) {
        self.text = OnceLock::new();
    }

    fn join_texts(&self) -> String {
        let mut text = String::new();
        for piece in self.items.iter().flat_map(|i| &i.view.texts) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(piece);
        }
        text
    }

    /// The message a summary of dropped messages stands as: a user message.
    pub(crate) fn user(text: &str) -> Self {
        Self::new(vec![Item::user(text)], Role::User)
    }

    /// What `item` costs, its overhead aside.
    pub(crate) fn item_tokens<C: TokenCounter + ?Sized>(&self, item: &Item, counter: &C) -> usize {
        let rule = self.rule.get();
        let texts = item
            .view
            .texts
            .iter()
            .fold(0usize, |sum, t| sum.saturating_add(counter.count(t)));
        let images = item.view.images.iter().fold(0usize, |sum, image| {
            sum.saturating_add(image_tokens(rule, image))
        });
        texts
            .saturating_add(images)
            .saturating_add(item.view.files.saturating_mul(PDF_PAGE_TOKENS))
    }
}

/// What an image costs under `rule`: by its size when read from a `data:` URL,
/// else the most one image costs (or the fixed cost of a `low` detail).
pub(crate) fn image_tokens(rule: CountRule, image: &super::item::ImageRef) -> usize {
    match image.size {
        Some(size) => rule.tokens(size, image.detail),
        None => rule
            .sizeless(image.detail)
            .unwrap_or_else(|| rule.max_tokens()),
    }
}

/// Groups `items` into messages (see [`ResponsesMessage`]).
pub(crate) fn group(items: Vec<Item>) -> Vec<ResponsesMessage> {
    let mut messages = Vec::new();
    let mut run: Vec<Item> = Vec::new();
    let mut calls: HashSet<String> = HashSet::new();
    // The message of the `item_reference` that outputs after it may answer.
    let mut open_reference: Option<usize> = None;
    for item in items {
        let side = item.side();
        if side == Side::Assistant {
            open_reference = None;
            // A reasoning item opens the turn of what follows it.
            let opens = item.kind() == ItemKind::Reasoning
                && run.iter().any(|i: &Item| i.kind() != ItemKind::Reasoning);
            if opens {
                messages.push(ResponsesMessage::new(
                    std::mem::take(&mut run),
                    Role::Assistant,
                ));
            }
            if item.kind() == ItemKind::Call {
                if let Some(id) = item.call_id() {
                    calls.insert(id.to_owned());
                }
            }
            run.push(item);
            continue;
        }
        if !run.is_empty() {
            messages.push(ResponsesMessage::new(
                std::mem::take(&mut run),
                Role::Assistant,
            ));
        }
        let answered = item.call_id().is_some_and(|id| calls.contains(id));
        // An output right after an `item_reference` (or after such outputs) answers
        // the call the reference names: the reference stands for that call.
        if let (Side::Output, false, Some(at), Some(id)) =
            (side, answered, open_reference, item.call_id())
        {
            if let Some(reference) = messages.get_mut(at) {
                let reference: &mut ResponsesMessage = reference;
                reference.refs.push(id.to_owned());
            }
            calls.insert(id.to_owned());
            messages.push(ResponsesMessage::new(vec![item], Role::Tool));
            continue;
        }
        open_reference = (item.kind() == ItemKind::ItemReference).then_some(messages.len());
        let role = match side {
            Side::Output if answered => Role::Tool,
            Side::Output => Role::User,
            Side::Message => match item.role() {
                Some("system" | "developer") => Role::System,
                _ => Role::User,
            },
            Side::Assistant | Side::Alone => Role::Assistant,
        };
        messages.push(ResponsesMessage::new(vec![item], role));
    }
    if !run.is_empty() {
        messages.push(ResponsesMessage::new(run, Role::Assistant));
    }
    messages
}

/// As the chat engine sees the items: see [`ResponsesMessage`].
impl ChatMessage for ResponsesMessage {
    fn role(&self) -> Role {
        self.role
    }

    /// The texts of the items, one a line: message text, call names and arguments,
    /// outputs, reasoning summaries, and the JSON text of items ctxbudget does not
    /// read.
    fn content(&self) -> &str {
        self.text.get_or_init(|| self.join_texts())
    }

    /// The calls with a `call_id`, and for an `item_reference` followed by
    /// outputs of calls not in the input, those calls (with no name or
    /// arguments): the reference names an item the server holds, such a call.
    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        let assistant = self.role == Role::Assistant;
        let calls = self
            .items
            .iter()
            .filter(move |i| assistant && i.kind() == ItemKind::Call)
            .filter_map(|i| {
                Some(ToolCallRef {
                    id: i.call_id()?,
                    name: &i.view.name,
                    arguments: &i.view.arguments,
                })
            });
        let refs = self.refs.iter().map(|id| ToolCallRef {
            id,
            name: "",
            arguments: "",
        });
        calls.chain(refs)
    }

    fn tool_call_id(&self) -> Option<&str> {
        if self.role != Role::Tool {
            return None;
        }
        self.items.first()?.call_id()
    }

    fn starts_with_thinking(&self) -> bool {
        self.role == Role::Assistant
            && self
                .items
                .first()
                .is_some_and(|i| i.kind() == ItemKind::Reasoning)
    }

    /// Every item's texts, images (by the image rule of the request's model, as
    /// Chat Completions counts them) and files ([`PDF_PAGE_TOKENS`] each), plus
    /// [`ITEM_OVERHEAD`] for each item after the first.
    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        let overhead = ITEM_OVERHEAD.saturating_mul(self.items.len().saturating_sub(1));
        self.items.iter().fold(overhead, |sum, item| {
            sum.saturating_add(self.item_tokens(item, counter))
        })
    }
}

/// Equal when the items, the role and the calls a reference stands for are.
impl PartialEq for ResponsesMessage {
    fn eq(&self, other: &Self) -> bool {
        self.role == other.role && self.items == other.items && self.refs == other.refs
    }
}

impl Eq for ResponsesMessage {}

/// The JSON array of the items.
impl Serialize for ResponsesMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.items.len()))?;
        for item in &self.items {
            seq.serialize_element(item)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(json: &str) -> Item {
        Item::from_json(json).unwrap()
    }

    #[test]
    fn reasoning_stays_with_the_call_after_it() {
        let messages = group(vec![
            item(r#"{"role": "user", "content": "go"}"#),
            item(r#"{"type": "reasoning", "summary": []}"#),
            item(r#"{"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}"#),
            item(r#"{"type": "function_call_output", "call_id": "a", "output": "1"}"#),
            item(r#"{"type": "function_call_output", "call_id": "z", "output": "2"}"#),
        ]);
        let roles: Vec<Role> = messages.iter().map(ChatMessage::role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::User]);
        assert!(messages[1].starts_with_thinking());
        assert_eq!(messages[1].tool_calls().count(), 1);
        assert_eq!(messages[2].tool_call_id(), Some("a"));
        assert_eq!(messages[3].tool_call_id(), None);
        assert_eq!(messages[2].content(), "1");
    }
}
