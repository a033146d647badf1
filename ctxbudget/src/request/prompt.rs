//! An assembled prompt as a provider request: [`PromptMessages`] (what
//! [`ContextBudget::assemble_messages`](crate::budget::ContextBudget::assemble_messages)
//! and the derive's messages assembly give) to an OpenAI Chat Completions or an
//! Anthropic Messages request body.

use serde_json::value::RawValue;

use super::anthropic::{
    self, AnthropicMessage, AnthropicRole, ContentBlock, MessagesRequest, TextBlock,
    ToolResultBlock, ToolUseBlock,
};
use super::openai::{ChatRequest, RequestMessage};
use crate::assemble::PromptMessages;
use crate::chat::Role;
use crate::chat::format::anthropic_tool_input;

impl PromptMessages {
    /// The prompt as an OpenAI Chat Completions request for `model`: the system text
    /// as a leading `system` message, then the history and the final user message,
    /// tool calls and results included ([`to_chat`](Self::to_chat) as
    /// [`RequestMessage`]s). Set other fields (`tools`, `max_completion_tokens`, ...)
    /// on the result.
    ///
    /// The assembly counted these messages with the chat format it was given
    /// ([`ChatFormat::openai`](crate::chat::ChatFormat::openai) by default), so the
    /// request's messages cost what the assembly reported.
    ///
    /// ```
    /// use ctxbudget::assemble::{AssembleOptions, LayerInput};
    /// use ctxbudget::request::RequestFitter;
    /// use ctxbudget::{CharEstimate, ContextBudget, Message};
    ///
    /// let budget = ContextBudget::new(
    ///     2000,
    ///     [("system", 100), ("history", 1000), ("user", 100), ("output", 500)],
    /// )?;
    /// let history = vec![Message::user("Hi"), Message::assistant("Hello!")];
    /// let out = budget.assemble_messages(
    ///     &[
    ///         LayerInput::new("system", &"Be brief."),
    ///         LayerInput::new("history", &history),
    ///         LayerInput::new("user", &"Bye?"),
    ///     ],
    ///     &CharEstimate,
    ///     &AssembleOptions::new(),
    /// )?;
    /// let request = out.prompt.to_openai("gpt-4o");
    /// assert_eq!(request.messages.len(), 4);
    /// // The provider-side count of the request is the assembly's.
    /// assert_eq!(RequestFitter::new(CharEstimate).count(&request).tokens, out.tokens);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_openai(&self, model: impl Into<String>) -> ChatRequest {
        let messages = self.to_chat().iter().map(RequestMessage::from).collect();
        ChatRequest::new(model, messages)
    }

    /// The prompt as an Anthropic Messages request for `model` with an output limit
    /// of `max_tokens`:
    ///
    /// - the system text (and the text of any system message in a history, after
    ///   it) as the top-level `system`;
    /// - user messages as `user` messages; assistant messages as `text` blocks then a
    ///   `tool_use` block per call; a tool result as a `tool_result` block, the
    ///   results that follow one another gathered in one `user` message, as Anthropic
    ///   requires for parallel calls.
    ///
    /// A user or assistant message with no text and no call is left out, since
    /// Anthropic rejects empty content.
    ///
    /// A call's arguments become the `tool_use` block's `input` as they are when they
    /// are a JSON object; empty arguments become `{}`, and any other text is passed as
    /// `{"arguments": "<the text>"}`, since Anthropic takes only an object.
    ///
    /// Assemble with [`ChatFormat::anthropic`](crate::chat::ChatFormat::anthropic) in
    /// the options so that the fit is checked on the request as this method makes it:
    /// that format counts the system text as the top-level field, each tool result as
    /// a `tool_result` block with its call id, and each call's `input` as sent. The
    /// request then costs what the assembly reported, less `3 + "user"` tokens for
    /// each result after the first of a parallel call (the results share one message
    /// here, the assembly counted a message each), so it never costs more.
    ///
    /// ```
    /// use ctxbudget::assemble::PromptMessages;
    /// use ctxbudget::chat::{ChatMessage, ToolCall};
    /// use ctxbudget::request::WireRequest;
    /// use ctxbudget::Message;
    ///
    /// let mut prompt = PromptMessages::default();
    /// prompt.system = "Use the tools.".into();
    /// prompt.messages = vec![
    ///     Message::user("Weather in Paris and Rome?"),
    ///     Message::assistant("")
    ///         .with_tool_call(ToolCall::new("toolu_1", "weather", r#"{"city":"Paris"}"#))
    ///         .with_tool_call(ToolCall::new("toolu_2", "weather", r#"{"city":"Rome"}"#)),
    ///     Message::tool("toolu_1", "18°C"),
    ///     Message::tool("toolu_2", "24°C"),
    /// ];
    /// let request = prompt.to_anthropic("claude-sonnet-4-5", 1024);
    /// // Both results answer in one user message, right after the calls.
    /// assert_eq!(request.messages().len(), 3);
    /// assert_eq!(request.messages()[2].tool_result_ids().count(), 2);
    /// assert!(request.validate().is_ok());
    /// ```
    pub fn to_anthropic(&self, model: impl Into<String>, max_tokens: u64) -> MessagesRequest {
        let mut system = self.system.clone();
        let mut messages: Vec<AnthropicMessage> = Vec::with_capacity(self.messages.len());
        for message in &self.messages {
            match message.role {
                Role::System => {
                    if !system.is_empty() && !message.content.is_empty() {
                        system.push_str("\n\n");
                    }
                    system.push_str(&message.content);
                }
                // Anthropic rejects empty content: a message with no text is left out.
                Role::User if message.content.is_empty() => {}
                Role::User => messages.push(AnthropicMessage::user(message.content.as_str())),
                Role::Assistant => {
                    let mut blocks = Vec::with_capacity(1 + message.tool_calls.len());
                    if !message.content.is_empty() {
                        blocks.push(ContentBlock::Text(TextBlock::new(message.content.as_str())));
                    }
                    blocks.extend(message.tool_calls.iter().map(|call| {
                        ContentBlock::ToolUse(ToolUseBlock::new(
                            call.id.as_str(),
                            call.name.as_str(),
                            tool_input(&call.arguments),
                        ))
                    }));
                    match blocks.as_slice() {
                        [] => {}
                        [ContentBlock::Text(_)] => {
                            messages.push(AnthropicMessage::assistant(message.content.as_str()));
                        }
                        _ => messages.push(AnthropicMessage::assistant(blocks)),
                    }
                }
                Role::Tool => {
                    let result = ContentBlock::ToolResult(ToolResultBlock::new(
                        message.tool_call_id.as_deref().unwrap_or_default(),
                        message.content.as_str(),
                    ));
                    match messages.last_mut() {
                        Some(last) if only_tool_results(last) => {
                            if let anthropic::Content::Blocks(blocks) = &mut last.content {
                                blocks.push(result);
                            }
                        }
                        _ => messages.push(AnthropicMessage::user(vec![result])),
                    }
                }
            }
        }
        let mut request = MessagesRequest::new(model, max_tokens, messages);
        if !system.is_empty() {
            request.system = Some(anthropic::Content::Text(system));
        }
        request
    }
}

/// A user message made only of `tool_result` blocks, which the next result joins.
fn only_tool_results(message: &AnthropicMessage) -> bool {
    message.role == AnthropicRole::User
        && matches!(&message.content, anthropic::Content::Blocks(blocks)
            if !blocks.is_empty() && blocks.iter().all(|b| matches!(b, ContentBlock::ToolResult(_))))
}

/// A call's arguments as a `tool_use` input, which must be a JSON object.
fn tool_input(arguments: &str) -> Box<RawValue> {
    RawValue::from_string(anthropic_tool_input(arguments).into_owned())
        .expect("a JSON object or serde_json's own output")
}
