//! Anthropic Messages request bodies (`POST /v1/messages`): read and write them
//! losslessly, count them as Anthropic bills them, check them, trim their messages.
//!
//! [`MessagesRequest`] is the body; its [`messages`](crate::request::WireRequest::messages)
//! are [`AnthropicMessage`]s, which implement [`ChatMessage`](crate::chat::ChatMessage),
//! so [`ChatTrimmer`](crate::ChatTrimmer) trims them in place:
//!
//! ```
//! use ctxbudget::chat::Role;
//! use ctxbudget::request::{WireRequest, anthropic::MessagesRequest};
//! use ctxbudget::{CharEstimate, ChatTrimmer};
//!
//! let mut request = MessagesRequest::from_json(r#"{
//!   "model": "claude-sonnet-4-5", "max_tokens": 1024,
//!   "messages": [
//!     {"role": "user", "content": "Read the config and the notes."},
//!     {"role": "assistant", "content": [
//!       {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "config.toml"}},
//!       {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "NOTES.md"}}]},
//!     {"role": "user", "content": [
//!       {"type": "tool_result", "tool_use_id": "toolu_1", "content": "[server]\nport = 8080\nworkers = 4\nlog = \"debug\""},
//!       {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Deploy on Fridays only after the canary has been green for an hour."}]},
//!     {"role": "assistant", "content": "The server listens on 8080 with 4 workers."},
//!     {"role": "user", "content": "Which port?"}
//!   ]
//! }"#)?;
//!
//! let trimmer = ChatTrimmer::new(CharEstimate, 60)
//!     .with_format(request.chat_format())
//!     .with_start_on([Role::User]);
//! let keep: Vec<bool> = {
//!     let trimmed = trimmer.trim(request.messages())?;
//!     let mut keep = vec![false; request.messages().len()];
//!     for element in trimmed.elements() {
//!         keep[element.seq] = true;
//!     }
//!     keep
//! };
//! request.retain_messages(&keep);
//! // The calls went with both their results; the request still starts with a user
//! // message and still validates.
//! assert!(request.messages().iter().all(|m| m.tool_uses().next().is_none()));
//! request.validate()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Lossless
//!
//! Parse then serialize gives an equal JSON value. The fields ctxbudget reads are
//! typed (`model`, `max_tokens`, `system`, `messages`, `tools`; a message's `role`
//! and `content`; each block's own fields); every other field, at every level, is
//! kept in an [`Extras`] as its JSON text, and blocks of types ctxbudget does not
//! know are kept whole ([`ContentBlock::Other`]). A `tool_use`'s `input` and each
//! tool definition are kept as JSON text, never re-formatted. A modelled field set
//! to `null` is written back as `null`, an absent one stays absent. A field given
//! twice in one object is an error, as in serde's derived impls. The types read and
//! write JSON (through `serde_json`) only.
//!
//! # Counting
//!
//! Anthropic publishes neither its tokenizer nor its per-message overhead, so a
//! count is an estimate with the counter you give (see
//! [`ChatFormat::anthropic_for_model`](crate::chat::ChatFormat::anthropic_for_model):
//! the frame of a one-message request follows the model's tokenizer generation, 11
//! tokens on Claude Opus 4.7), and says so in its
//! [`Assumption`](crate::request::Assumption)s. What each part costs:
//!
//! | part | counted as |
//! | --- | --- |
//! | `text` block, string content | its text |
//! | `tool_use` | a tool call of the chat format: name, `input` as written, and the format's per-call tokens |
//! | `tool_result` | its `tool_use_id` and its content (text, images, documents) |
//! | `image` | `width × height / 750` after Anthropic's resizing ([`anthropic_image_tokens`](crate::request::image::anthropic_image_tokens)), the size read from the base64 data; a URL, a file id or data that fails [the checks](crate::request::image#checks): [`ANTHROPIC_MAX_IMAGE_TOKENS`](crate::request::image::ANTHROPIC_MAX_IMAGE_TOKENS), reported |
//! | `document` | plain text: its text; custom content: its blocks (read in one pass, 32 levels of documents down; deeper ones as their JSON text, reported); a base64 PDF: [`ANTHROPIC_PDF_PAGE_TOKENS`] a page, pages counted in the file (at most 600), reported; anything else: one PDF page, reported; plus its `title` and `context` |
//! | `thinking` | its text, when its turn's thinking is kept ([`ThinkingRetention`]), else nothing |
//! | `redacted_thinking` | the text of its encrypted `data`, when kept, reported |
//! | other block types | the JSON text of their fields, reported |
//! | `system` | its text |
//! | each tool you define | its name, description and `input_schema` as compact JSON |
//! | Anthropic's bash, text editor and computer tools | 245, 700 and 735 tokens (pricing page) |
//! | Anthropic's other tools | their JSON text, reported |
//! | tools at all | the tool-use system prompt of the pricing page: 346 tokens for `auto` and `none`, 313 for `any` and `tool` on Claude 4 models (other figures for Claude 3 models) |
//!
//! # Validation
//!
//! [`validate`](crate::request::WireRequest::validate) rejects, with the message
//! index and the fix, what Anthropic answers with a 400 and what trimming depends
//! on: no messages; a first message that is not a user message; empty content
//! (except a final assistant message); `tool_use` or thinking blocks in a user
//! message, `tool_result` in an assistant message; a `tool_use` whose `input` is
//! not an object; a `tool_result` holding calls or thinking; duplicate call ids; a
//! call without a result in the user turn right after it; a result whose call is
//! not in the assistant turn right before it, or answered twice; a `tool_result`
//! after other content of its user turn; a system block that is not text; a tool
//! without a `name`; with thinking enabled, a tool-use loop after the latest user
//! message whose first assistant message does not start with a thinking block. Then,
//! naming the message and block
//! ([`RequestError::InvalidContent`](crate::request::RequestError::InvalidContent)):
//! a base64 image that fails [the checks](crate::request::image#checks) (data that
//! does not hold the size its header claims, a `media_type` that is not the data's
//! format, a side over 8,000 px, or 2,000 px with more than 20 images, data over
//! 5 MB), and base64 PDFs of more than 600 pages in all.
//!
//! Consecutive messages of one role are one turn, as the API joins them ("Consecutive
//! `user` or `assistant` turns in your request will be combined into a single turn",
//! Messages API reference): results may be spread over several user messages in a
//! row. [`ChatTrimmer`](crate::ChatTrimmer) pairs a call with the result messages
//! right after its own message, so a call split from its results by a second
//! assistant message is dropped as unpaired there: the request stays valid, with
//! less in it.
//!
//! [`MessagesRequest::repair_tool_pairing`] is the one repair offered: it removes
//! the blocks that break the pairing and says what it removed. Nothing is repaired
//! silently.

mod blocks;
mod count;
mod edit;
mod extras;
mod message;
mod model;
mod request;
mod validate;

pub use blocks::{
    Content, ContentBlock, DocumentBlock, ImageBlock, OtherBlock, RedactedThinkingBlock, Source,
    TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock,
};
pub use count::ANTHROPIC_PDF_PAGE_TOKENS;
pub use extras::Extras;
pub use message::{AnthropicMessage, AnthropicRole};
pub use model::ThinkingRetention;
pub use request::{MessagesMut, MessagesRequest};
pub use validate::{RemovedBlock, RepairReason, ToolPairingRepair};

/// For Claude on other platforms (Bedrock): the tool-use system prompt Anthropic adds.
pub(crate) use count::UNKNOWN_MODEL;
pub(crate) use model::tool_system_prompt;
