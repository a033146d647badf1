//! [`WireRequest`] for [`ResponsesRequest`]: what the request costs outside its
//! items, what counting assumed, and how items are kept, edited and checked.

use super::item::ItemKind;
use super::message::{ITEM_OVERHEAD, ResponsesMessage};
use super::request::ResponsesRequest;
use super::validate;
use crate::chat::{ChatFormat, ChatMessage};
use crate::count::TokenCounter;
use crate::request::error::RequestError;
use crate::request::image::CountRule;
use crate::request::json::{compact_json, compact_object_without};
use crate::request::openai::{FunctionDefinition, RawJson, Tool, ToolFormula};
use crate::request::wire::{Assumption, RequestCost, RequestFormat, WireRequest, retain_kept};

/// The assumption a request with `previous_response_id` rests on.
pub const SERVER_HISTORY: &str = "previous_response_id: the server holds earlier history this count cannot see; the request is larger than counted";
/// The assumption of built-in and custom tools.
pub const BUILT_IN_TOOLS: &str = "built-in and custom tools are counted as their JSON text; OpenAI does not publish how it bills them";
/// The assumption of a `reasoning` item: the model reads the reasoning itself
/// (from `encrypted_content`, or stored under its `id`), not the summary.
pub const REASONING: &str = "a reasoning item is counted as its summary text; the reasoning it carries is billed at a size OpenAI does not publish";
/// The assumption of a `compaction` item.
pub const COMPACTION: &str = "a compaction item stands for earlier history of a size OpenAI does not publish; counted as 0 tokens";
/// The assumption of an `item_reference`.
pub const ITEM_REFERENCE: &str = "an item_reference names an item the server holds, which this count cannot see; counted as 0 tokens";
/// The assumption of items and parts ctxbudget does not read.
pub const AS_JSON: &str = "an item or part of a type ctxbudget does not read (a built-in tool call, a screenshot, ...) is counted as its JSON text";
/// The assumption of `input_file` parts.
pub const FILES: &str = "an input_file is counted as one PDF page (PDF_PAGE_TOKENS); OpenAI bills files by pages this count does not read";
/// The assumption of a `text.format` JSON schema.
pub const TEXT_FORMAT: &str = "text.format: the JSON schema is counted as its JSON text; OpenAI does not publish how it is billed";
/// The assumption of image parts when the model's image rule is not published.
const IMAGE_RULE: &str =
    "images are counted by gpt-4o's tile rule; OpenAI publishes no image rule for this model";
/// The assumption of instructions that are not a string.
const INSTRUCTIONS_JSON: &str = "instructions that are not a string are counted as their JSON text";

impl ResponsesRequest {
    /// Sets the rule each image is counted by, from the `model`.
    fn stamp_images(&self) {
        let rule = CountRule::for_model(self.model.as_deref());
        for message in &self.messages {
            message.rule.set(rule);
        }
    }

    /// The whole request as [`RequestFitter::count`](crate::request::RequestFitter::count)
    /// counts it: [`fixed_cost`](WireRequest::fixed_cost), every message by
    /// [`ChatFormat::openai`] and the reply priming, with every assumption made.
    pub fn count<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let mut cost = self.fixed_cost(counter);
        let messages = self.chat_format().count_messages(counter, self.messages());
        cost.tokens = cost.tokens.saturating_add(messages);
        let mut assumptions = self.message_assumptions();
        assumptions.append(&mut cost.assumptions);
        cost.assumptions = assumptions;
        cost
    }
}

fn push(into: &mut Vec<Assumption>, assumption: Assumption) {
    if !into.contains(&assumption) {
        into.push(assumption);
    }
}

/// See [`WireRequest`]; the Responses specifics are in the method docs.
impl WireRequest for ResponsesRequest {
    type Message = ResponsesMessage;
    const FORMAT: RequestFormat = RequestFormat::OpenAiResponses;

    /// The input items grouped as the chat engine sees them (see
    /// [`ResponsesMessage`]), each image set to be counted by the rule of the
    /// request's `model`.
    fn messages(&self) -> &[ResponsesMessage] {
        self.stamp_images();
        &self.messages
    }

    /// [`ChatFormat::openai`]: OpenAI publishes no per-item accounting for this
    /// format, so items cost what Chat Completions messages do.
    fn chat_format(&self) -> ChatFormat {
        ChatFormat::openai()
    }

    /// The `instructions` (as a developer message: its text, the per-message
    /// tokens and the role), the function tools by [`ToolFormula::for_model`] of the `model`
    /// (a Responses function tool is the Chat Completions `function` flattened),
    /// and built-in and custom tools as their compact JSON text
    /// ([`BUILT_IN_TOOLS`]); a `text.format` JSON schema as its compact JSON text
    /// without its `type` ([`TEXT_FORMAT`], as Chat Completions counts the
    /// `json_schema` of a `response_format`); and
    /// [`SERVER_HISTORY`] when the request continues from `previous_response_id`.
    fn fixed_cost<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let mut cost = RequestCost::default();
        if let Some(instructions) = &self.instructions {
            let tokens = if let Ok(text) = instructions.parse::<String>() {
                counter.count(&text)
            } else {
                push(
                    &mut cost.assumptions,
                    Assumption::UnpublishedRule {
                        message: None,
                        what: INSTRUCTIONS_JSON,
                    },
                );
                counter.count(&compact_json(instructions.get()))
            };
            let frame = ChatFormat::openai()
                .tokens_per_message()
                .saturating_add(counter.count("developer"));
            cost.tokens = tokens.saturating_add(frame);
        }
        let mut functions = Vec::new();
        let mut others = 0usize;
        for tool in self.tools.iter().flatten() {
            let function = tool
                .parse::<FunctionDefinition>()
                .ok()
                .filter(|_| is_function(tool));
            if let Some(function) = function {
                functions.push(Tool::function(function));
            } else {
                others = others.saturating_add(counter.count(&compact_json(tool.get())));
                push(
                    &mut cost.assumptions,
                    Assumption::UnpublishedRule {
                        message: None,
                        what: BUILT_IN_TOOLS,
                    },
                );
            }
        }
        cost.tokens = cost.tokens.saturating_add(others);
        if !functions.is_empty() {
            let formula = ToolFormula::for_model(self.model.as_deref().unwrap_or_default());
            let tools = formula.count_tools(counter, &functions);
            cost.tokens = cost.tokens.saturating_add(tools.tokens);
            for assumption in tools.assumptions {
                push(&mut cost.assumptions, assumption);
            }
        }
        if let Some(schema) = self.json_schema() {
            cost.tokens = cost.tokens.saturating_add(counter.count(&schema));
            push(
                &mut cost.assumptions,
                Assumption::UnpublishedRule {
                    message: None,
                    what: TEXT_FORMAT,
                },
            );
        }
        if self.previous_response_id.is_some() {
            push(
                &mut cost.assumptions,
                Assumption::UnpublishedRule {
                    message: None,
                    what: SERVER_HISTORY,
                },
            );
        }
        cost
    }

    /// Per message (an index into [`messages`](WireRequest::messages)): remote
    /// images ([`Assumption::RemoteImage`]), images whose size could not be read
    /// ([`Assumption::UnreadableImage`]), and [`REASONING`],
    /// [`COMPACTION`], [`ITEM_REFERENCE`], [`AS_JSON`] and [`FILES`].
    fn message_assumptions(&self) -> Vec<Assumption> {
        self.stamp_images();
        let mut out = Vec::new();
        for (index, message) in self.messages.iter().enumerate() {
            let rule = message.rule.get();
            for item in message.items() {
                let view = &item.view;
                for image in &view.images {
                    let assumed_tokens = super::message::image_tokens(rule, image);
                    if image.remote {
                        out.push(Assumption::RemoteImage {
                            message: index,
                            assumed_tokens,
                        });
                    } else if image.size.is_none() {
                        out.push(Assumption::UnreadableImage {
                            message: index,
                            assumed_tokens,
                        });
                    }
                    if !rule.published {
                        push(&mut out, unpublished(index, IMAGE_RULE));
                    }
                }
                let what = match item.kind() {
                    ItemKind::Reasoning => Some(REASONING),
                    ItemKind::Compaction => Some(COMPACTION),
                    ItemKind::ItemReference => Some(ITEM_REFERENCE),
                    _ if view.as_json => Some(AS_JSON),
                    _ => None,
                };
                if let Some(what) = what {
                    push(&mut out, unpublished(index, what));
                }
                if view.files > 0 {
                    push(&mut out, unpublished(index, FILES));
                }
            }
        }
        out
    }

    /// See [`validate`](super#checks).
    fn validate(&self) -> Result<(), RequestError> {
        validate::validate(self)
    }

    fn edit_messages<T>(&mut self, edit: impl FnOnce(&mut [ResponsesMessage]) -> T) -> T {
        self.stamp_images();
        let out = edit(&mut self.messages);
        for message in &mut self.messages {
            message.refresh();
        }
        out
    }

    /// Messages past the end of `keep` are kept.
    fn retain_messages(&mut self, keep: &[bool]) {
        retain_kept(&mut self.messages, keep);
    }

    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// `max_output_tokens`.
    fn max_output_tokens(&self) -> Option<u64> {
        ResponsesRequest::max_output_tokens(self)
    }
}

impl ResponsesRequest {
    /// A `text.format` of type `json_schema`, without its `type`: the fields a
    /// Chat Completions `response_format.json_schema` has (`name`, `schema`,
    /// `strict`, ...), as compact JSON text.
    fn json_schema(&self) -> Option<String> {
        #[derive(serde::Deserialize)]
        struct Kind<'a> {
            #[serde(rename = "type", borrow)]
            kind: Option<std::borrow::Cow<'a, str>>,
        }
        #[derive(serde::Deserialize)]
        struct Text {
            format: Option<RawJson>,
        }
        let text: Text = self.extra.get("text")?.parse().ok()?;
        let format = text.format?;
        match serde_json::from_str::<Kind<'_>>(format.get()) {
            Ok(kind) => (kind.kind.as_deref() == Some("json_schema"))
                .then(|| compact_object_without(format.get(), "type"))
                .flatten(),
            // Nested too deep for serde: its text, if it says json_schema.
            Err(_) if format.get().contains("\"json_schema\"") => Some(compact_json(format.get())),
            Err(_) => None,
        }
    }
}

fn unpublished(index: usize, what: &'static str) -> Assumption {
    Assumption::UnpublishedRule {
        message: Some(index),
        what,
    }
}

/// Whether a tool's `type` is `function`.
fn is_function(tool: &RawJson) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<std::borrow::Cow<'a, str>>,
    }
    tool.parse::<Kind<'_>>()
        .is_ok_and(|k| k.kind.as_deref() == Some("function"))
}

/// What the reasoning items of `message` add to its count, with their overhead,
/// when dropping them would leave something: 0 otherwise.
pub(crate) fn thinking_tokens<C: TokenCounter + ?Sized>(
    message: &ResponsesMessage,
    counter: &C,
) -> usize {
    let items = message.items();
    let reasoning = items
        .iter()
        .filter(|i| i.kind() == ItemKind::Reasoning)
        .count();
    if reasoning == 0 || reasoning == items.len() || message.role() != crate::chat::Role::Assistant
    {
        return 0;
    }
    items
        .iter()
        .filter(|i| i.kind() == ItemKind::Reasoning)
        .fold(ITEM_OVERHEAD.saturating_mul(reasoning), |sum, item| {
            sum.saturating_add(message.item_tokens(item, counter))
        })
}
