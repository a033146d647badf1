//! Amazon Bedrock Converse request bodies, read and written losslessly, counted
//! per model family, checked, and trimmed by whole units.
//!
//! [`BedrockRequest`] is the body: its `messages` are [`BedrockMessage`]s, each
//! kept as its exact JSON text whatever its blocks (`text`, `image`, `document`,
//! `video`, `toolUse`, `toolResult`, `reasoningContent`, `cachePoint`,
//! `guardContent`, kinds ctxbudget does not know); every other field (`system`,
//! `toolConfig`, `inferenceConfig`, `additionalModelRequestFields`, ...) is kept
//! as the JSON text it was: parsing a body and serializing it gives back an equal
//! JSON value.
//!
//! The chat engine sees each message as a message: an assistant message's
//! `toolUse` blocks are its tool calls, the `toolResult` blocks of the user
//! message right after it their results (paired by `toolUseId`). A fit drops
//! whole units and leaves every kept message as it was, unless the context edits
//! say otherwise (old results cleared or truncated, old `reasoningContent`
//! dropped); a tool loop after the latest user message that starts with
//! `reasoningContent` is kept whole.
//!
//! ```
//! use ctxbudget::request::{RequestFitter, WireRequest};
//! use ctxbudget::request::bedrock::BedrockRequest;
//!
//! let request = BedrockRequest::from_json(r#"{
//!   "system": [{"text": "Answer in one line."}],
//!   "messages": [
//!     {"role": "user", "content": [{"text": "List the files, with every detail you can find."}]},
//!     {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "ls", "input": {}}}]},
//!     {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "a.txt b.txt c.txt d.txt e.txt f.txt"}]}}]},
//!     {"role": "assistant", "content": [{"text": "Six text files."}]},
//!     {"role": "user", "content": [{"text": "Which is newest?"}]}
//!   ]
//! }"#)?.with_model("anthropic.claude-sonnet-4-5-20250929-v1:0");
//! request.validate()?;
//!
//! let words = |t: &str| t.split_whitespace().count();
//! let fitted = RequestFitter::new(words).with_max_input(30).fit(request)?;
//! assert_eq!(fitted.request.messages().len(), 1); // the question alone
//! # Ok::<(), ctxbudget::request::RequestError>(())
//! ```
//!
//! # Counting
//!
//! Bedrock bills with each model's own tokenizer, so a count is an estimate with
//! the counter you give, per model family ([`is_claude`] reads the model id):
//!
//! - Claude models: the counter given (the catalogue's Claude counter, or the
//!   Claude estimate) with [`ChatFormat::anthropic`](crate::chat::ChatFormat::anthropic)'s
//!   framing, images by Anthropic's rule from their size ([`CLAUDE`]);
//! - other models (or none named): an estimated framing of 4 tokens a message and
//!   images at 1,600 tokens ([`OTHER_MODEL`]);
//! - text, `reasoningContent` ([`REASONING`]) and the texts and `json` of a
//!   `toolResult` (with its `toolUseId`) are counted as text, a `toolUse` as a
//!   tool call (name and `input` as compact JSON); documents and videos as one
//!   PDF page ([`MEDIA`]); `cachePoint`s cost nothing; other blocks their JSON
//!   text ([`AS_JSON`]);
//! - `system` blocks are counted as text joined by blank lines, each
//!   `toolConfig.tools[].toolSpec` as its compact JSON text ([`TOOLS`]); a Claude
//!   model with tools also pays the tool-use system prompt Anthropic adds, by
//!   `toolConfig.toolChoice` as in Anthropic Messages (346 tokens for `auto`, 313
//!   for `any` and `tool` on Claude 4 models);
//! - every turn's `reasoningContent` counts: Claude models that drop earlier
//!   turns' thinking bill less, so the count is an upper bound there.
//!
//! # Checks
//!
//! [`WireRequest::validate`](crate::request::WireRequest::validate) reports the
//! first problem as [`RequestError::InvalidField`](crate::request::RequestError::InvalidField)
//! with its place: a message or block that cannot be read (no `content`, a block
//! with two kinds, a `toolUse` without `toolUseId` or `name`), a role other than
//! `user` and `assistant`, a first message that is not the user's, a `toolUse` in
//! a user message or a `toolResult` in an assistant one, a result with no
//! `toolUse` of its id in the assistant message right before, a `toolUse` with no
//! result in the message right after, an id given twice, two results for one
//! `toolUse`, `messages` empty, and a tool without a `toolSpec` name.

mod block;
mod count;
mod edit;
mod message;
mod request;
mod validate;

pub use count::{AS_JSON, CLAUDE, MEDIA, OTHER_MODEL, REASONING, TOOLS, chat_format, is_claude};
pub use message::BedrockMessage;
pub use request::BedrockRequest;
