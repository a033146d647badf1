//! [`WireRequest`] for [`BedrockRequest`]: what the request costs outside its
//! messages, per model family, what counting assumed, and how messages are kept,
//! edited and checked.

use std::sync::atomic::Ordering;

use super::block::BlockKind;
use super::message::{BedrockMessage, block_tokens};
use super::request::BedrockRequest;
use super::validate;
use crate::chat::ChatFormat;
use crate::count::TokenCounter;
use crate::request::anthropic::{UNKNOWN_MODEL, tool_system_prompt};
use crate::request::error::RequestError;
use crate::request::json::compact_json;
use crate::request::wire::{Assumption, RequestCost, RequestFormat, WireRequest, retain_kept};

/// The assumption of a count for a Claude model on Bedrock.
pub const CLAUDE: &str = "a Claude model on Bedrock: texts are counted with the counter given (the catalogue's Claude counter or estimate), messages with ChatFormat::anthropic_for_model()'s estimated framing";
/// The assumption of a count for any other model on Bedrock (or none named).
pub const OTHER_MODEL: &str = "a model other than Claude (or none named): texts are counted with the counter given, each message with an estimated 4 tokens of framing; Bedrock bills by the model's own tokenizer";
/// The assumption of tool specifications.
pub const TOOLS: &str = "toolConfig: each toolSpec is counted as its JSON text; Bedrock does not publish how the model renders tools";
/// The assumption of documents, videos and images whose size is unknown.
pub const MEDIA: &str = "a document or video is counted as one PDF page (4,600 tokens), an image of unknown size or for a model other than Claude at 1,600; their real cost depends on what this count does not read";
/// The assumption of reasoning blocks.
pub const REASONING: &str = "reasoningContent is counted as its text (redacted reasoning as its encrypted bytes); models that drop earlier turns' reasoning bill less";
/// The assumption of blocks ctxbudget does not read.
pub const AS_JSON: &str = "a block of a kind ctxbudget does not read (guardContent, citationsContent, ...) is counted as its JSON text";

/// Whether `model` is a Claude model (`anthropic.claude-...`, with or without a
/// region prefix such as `us.` or an inference-profile ARN).
pub fn is_claude(model: Option<&str>) -> bool {
    model.is_some_and(|m| m.contains("anthropic.claude") || m.contains("claude-"))
}

/// The chat format of a model family: [`ChatFormat::anthropic_for_model`] for Claude, an
/// estimate (4 tokens a message, 3 a tool use, 3 to prime the reply) for others.
pub fn chat_format(model: Option<&str>) -> ChatFormat {
    if let (true, Some(model)) = (is_claude(model), model) {
        ChatFormat::anthropic_for_model(model)
    } else {
        ChatFormat::content_only()
            .with_tokens_per_message(4)
            .with_tokens_per_tool_call(3)
            .with_reply_priming(3)
    }
}

impl BedrockRequest {
    fn stamp(&self) {
        let claude = is_claude(self.model());
        for message in &self.messages {
            message.claude.store(claude, Ordering::Relaxed);
        }
    }

    /// The whole request as [`RequestFitter::count`](crate::request::RequestFitter::count)
    /// counts it.
    pub fn count<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let mut cost = self.fixed_cost(counter);
        let messages = self
            .chat_format()
            .count_messages(counter, WireRequest::messages(self));
        cost.tokens = cost.tokens.saturating_add(messages);
        cost.assumptions.append(&mut self.message_assumptions());
        cost
    }
}

/// The kind of a Bedrock `toolChoice` (`{"auto": {}}`, `{"any": {}}` or
/// `{"tool": {"name": ...}}`), as Anthropic's `tool_choice` names it; `auto` for
/// anything else.
fn tool_choice(raw: &str) -> &'static str {
    #[derive(serde::Deserialize)]
    struct Choice<'a> {
        #[serde(borrow)]
        any: Option<&'a serde_json::value::RawValue>,
        #[serde(borrow)]
        tool: Option<&'a serde_json::value::RawValue>,
    }
    match serde_json::from_str::<Choice<'_>>(raw) {
        Ok(Choice { tool: Some(_), .. }) => "tool",
        Ok(Choice { any: Some(_), .. }) => "any",
        _ => "auto",
    }
}

fn push(into: &mut Vec<Assumption>, assumption: Assumption) {
    if !into.contains(&assumption) {
        into.push(assumption);
    }
}

fn unpublished(message: Option<usize>, what: &'static str) -> Assumption {
    Assumption::UnpublishedRule { message, what }
}

/// See [`WireRequest`]; the Bedrock specifics are in the method docs.
impl WireRequest for BedrockRequest {
    type Message = BedrockMessage;
    const FORMAT: RequestFormat = RequestFormat::BedrockConverse;

    /// The messages, each set to count images by the model family's rule.
    fn messages(&self) -> &[BedrockMessage] {
        self.stamp();
        &self.messages
    }

    /// [`chat_format`] of the model.
    fn chat_format(&self) -> ChatFormat {
        chat_format(self.model())
    }

    /// The `system` blocks (their texts, joined by blank lines), each
    /// `toolConfig.tools[].toolSpec` as its compact JSON text ([`TOOLS`]), for a
    /// Claude model with tools the tool-use system prompt Anthropic adds (as in
    /// Anthropic Messages, by `toolConfig.toolChoice`: 346 tokens for `auto`, 313 for
    /// `any` and `tool` on Claude 4 models), and [`CLAUDE`] or [`OTHER_MODEL`].
    fn fixed_cost<C: TokenCounter + ?Sized>(&self, counter: &C) -> RequestCost {
        let claude = is_claude(self.model());
        let mut cost = RequestCost {
            tokens: 0,
            assumptions: vec![unpublished(None, if claude { CLAUDE } else { OTHER_MODEL })],
        };
        if let Some(system) = self.get("system") {
            let blocks: Vec<&serde_json::value::RawValue> =
                serde_json::from_str(system.get()).unwrap_or_default();
            for (i, raw) in blocks.into_iter().enumerate() {
                let Ok(block) = super::block::read_block(raw) else {
                    continue;
                };
                if i > 0 {
                    cost.tokens = cost.tokens.saturating_add(counter.count("\n\n"));
                }
                cost.tokens = cost
                    .tokens
                    .saturating_add(block_tokens(&block, counter, claude));
            }
        }
        if let Some(config) = self.get("toolConfig") {
            #[derive(serde::Deserialize)]
            struct Config<'a> {
                #[serde(borrow, default)]
                tools: Vec<&'a serde_json::value::RawValue>,
                #[serde(borrow, default, rename = "toolChoice")]
                choice: Option<&'a serde_json::value::RawValue>,
            }
            if let Ok(config) = serde_json::from_str::<Config<'_>>(config.get()) {
                if claude && !config.tools.is_empty() {
                    // Bedrock hands Claude its tools through Anthropic's API, which
                    // adds its tool-use system prompt.
                    let choice = config.choice.map_or("auto", |c| tool_choice(c.get()));
                    let (prompt, known) = tool_system_prompt(self.model(), choice);
                    cost.tokens = cost.tokens.saturating_add(prompt);
                    if !known {
                        push(&mut cost.assumptions, unpublished(None, UNKNOWN_MODEL));
                    }
                }
                for tool in config.tools {
                    #[derive(serde::Deserialize)]
                    struct Tool<'a> {
                        #[serde(borrow, rename = "toolSpec")]
                        spec: Option<&'a serde_json::value::RawValue>,
                    }
                    if let Ok(Tool { spec: Some(spec) }) = serde_json::from_str(tool.get()) {
                        cost.tokens = cost
                            .tokens
                            .saturating_add(counter.count(&compact_json(spec.get())));
                        push(&mut cost.assumptions, unpublished(None, TOOLS));
                    }
                }
            }
        }
        cost
    }

    /// Per message: [`MEDIA`], [`REASONING`] and [`AS_JSON`].
    fn message_assumptions(&self) -> Vec<Assumption> {
        let claude = is_claude(self.model());
        let mut out = Vec::new();
        for (index, message) in self.messages.iter().enumerate() {
            let at = Some(index);
            for block in &message.view.blocks {
                match &block.kind {
                    BlockKind::Image(size) if size.is_none() || !claude => {
                        push(&mut out, unpublished(at, MEDIA));
                    }
                    BlockKind::Media => push(&mut out, unpublished(at, MEDIA)),
                    BlockKind::ToolResult(r) if r.media > 0 => {
                        push(&mut out, unpublished(at, MEDIA));
                    }
                    BlockKind::Reasoning(_) => push(&mut out, unpublished(at, REASONING)),
                    BlockKind::Other(_) => push(&mut out, unpublished(at, AS_JSON)),
                    _ => {}
                }
            }
        }
        out
    }

    /// See [`validate`](super#checks).
    fn validate(&self) -> Result<(), RequestError> {
        validate::validate(self)
    }

    fn edit_messages<T>(&mut self, edit: impl FnOnce(&mut [BedrockMessage]) -> T) -> T {
        self.stamp();
        edit(&mut self.messages)
    }

    /// Messages past the end of `keep` are kept.
    fn retain_messages(&mut self, keep: &[bool]) {
        retain_kept(&mut self.messages, keep);
    }

    fn model(&self) -> Option<&str> {
        BedrockRequest::model(self)
    }

    /// `inferenceConfig.maxTokens`.
    fn max_output_tokens(&self) -> Option<u64> {
        BedrockRequest::max_output_tokens(self)
    }
}

/// What the reasoning blocks of an assistant message add to its count, when
/// dropping them would leave a block: 0 otherwise.
pub(crate) fn thinking_tokens<C: TokenCounter + ?Sized>(
    message: &BedrockMessage,
    counter: &C,
) -> usize {
    let blocks = &message.view.blocks;
    let reasoning = blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::Reasoning(_)))
        .count();
    if !message.is_assistant() || reasoning == 0 || reasoning == blocks.len() {
        return 0;
    }
    blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::Reasoning(_)))
        .fold(0usize, |sum, b| {
            sum.saturating_add(block_tokens(b, counter, true))
        })
}
