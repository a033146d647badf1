//! OpenAI Responses request bodies (`POST /v1/responses`), read and written
//! losslessly, counted with the model's tiktoken encoding, trimmed by whole units.
//!
//! [`ResponsesRequest`] is the body: `model`, `instructions`, `input` (a string or
//! [`Item`]s), `tools` and `previous_response_id` are read; every other field is
//! kept as the JSON text it was. Every item is kept as its exact JSON text, whatever
//! its type (messages with `input_text` / `input_image` / `input_file` /
//! `output_text` parts, `function_call` and `function_call_output`,
//! `custom_tool_call` and its output, `reasoning` with its `encrypted_content`,
//! `compaction`, `item_reference`, built-in tool calls, types ctxbudget does not
//! know): parsing a body and serializing it gives back an equal JSON value.
//!
//! The chat engine sees the items as [`ResponsesMessage`]s: the model's output
//! items of one turn together (so a `reasoning` item never leaves the call after it,
//! and starts the unit of that call), each call output a tool result paired with its
//! call by `call_id`. A fit drops whole units and leaves every kept item as it was,
//! unless the context edits say otherwise (old outputs cleared or truncated, old
//! reasoning dropped). OpenAI discards the reasoning of turns before the latest user
//! message anyway, but a stored `function_call` (one with the `id` of an item the
//! server keeps) may be rejected without the reasoning it came with: fit such
//! bodies with [`Edits::keep_thinking`](crate::chat::edit::Edits::keep_thinking).
//!
//! ```
//! use ctxbudget::request::{RequestFitter, WireRequest};
//! use ctxbudget::request::responses::ResponsesRequest;
//!
//! let request = ResponsesRequest::from_json(r#"{
//!   "model": "gpt-4o",
//!   "instructions": "Answer in one line.",
//!   "input": [
//!     {"role": "user", "content": "List the files, with every detail you can find."},
//!     {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
//!     {"type": "function_call_output", "call_id": "c1", "output": "a.txt b.txt c.txt d.txt e.txt f.txt"},
//!     {"role": "assistant", "content": [{"type": "output_text", "text": "Six text files."}]},
//!     {"role": "user", "content": "Which is newest?"}
//!   ]
//! }"#)?;
//! request.validate()?;
//!
//! let fitter = RequestFitter::new(ctxbudget::Tiktoken::o200k_base()).with_max_input(45);
//! let fitted = fitter.fit(request)?;
//! let items: Vec<_> = fitted.request.items().collect();
//! // The old turn went; the latest question stays, untouched.
//! assert_eq!(items.last().map(|i| i.raw().get()), Some(r#"{"role": "user", "content": "Which is newest?"}"#));
//! assert!(fitted.report.tokens_after <= 45);
//! # Ok::<(), ctxbudget::request::RequestError>(())
//! ```
//!
//! # Counting
//!
//! OpenAI publishes no token accounting for this format; ctxbudget counts it as
//! Chat Completions is counted ([`ChatFormat::openai`](crate::chat::ChatFormat::openai)),
//! with the model's tiktoken encoding:
//!
//! - each message costs the per-message tokens and its role, and each item after
//!   the first of an assistant turn [`ITEM_OVERHEAD`] more; a call with a `call_id`
//!   costs what a Chat Completions tool call does (its name and `arguments`, or a
//!   custom tool call's `input`);
//! - text parts, refusals, outputs and reasoning summaries are counted as text;
//!   images by the image rule of the `model` (sizes read from `data:` URLs, else
//!   the most one image costs, said as [`Assumption::RemoteImage`]); each
//!   `input_file` as one PDF page ([`FILES`]);
//! - reasoning, counted as its summary ([`REASONING`]), `compaction` items
//!   ([`COMPACTION`]) and `item_reference`s ([`ITEM_REFERENCE`]) are of a size the
//!   body does not show: the count leaves it out and says so; items and parts of
//!   other types are counted as their JSON text ([`AS_JSON`]);
//! - `instructions` as a developer message; function tools by
//!   [`ToolFormula`](crate::request::openai::ToolFormula) as Chat Completions
//!   tools; built-in and custom tools as their JSON text ([`BUILT_IN_TOOLS`]); a
//!   `text.format` JSON schema as its JSON text ([`TEXT_FORMAT`]);
//! - with `previous_response_id`, the server adds history the body does not hold:
//!   the count is of the body only, and says so ([`SERVER_HISTORY`]).
//!
//! Indices in assumptions and fit reports (`message 12`) are of
//! [`WireRequest::messages`](crate::request::WireRequest::messages), the items as
//! grouped; [`ResponsesMessage::items`] lists the items of each.
//!
//! # Checks
//!
//! [`WireRequest::validate`](crate::request::WireRequest::validate) reports the
//! first problem as [`RequestError::InvalidField`](crate::request::RequestError::InvalidField)
//! with its place (`input[12]`, `tools[0]`, `instructions`): an item that cannot
//! be read, a message without a known `role` or without
//! `content`, content that is neither a string nor parts, a call or output without
//! a `call_id`, two calls with one id, a second output for a call, an output whose
//! call is not before it (allowed with `previous_response_id`, and right after an
//! `item_reference`, as the call is then in the server's history), a
//! `function_call` or `custom_tool_call` with no output, a `reasoning` item not
//! followed by an output item, a tool without a string `type` or a function tool
//! without a `name`, and `instructions` that are neither a string nor an array.
//!
//! [`Assumption::RemoteImage`]: crate::request::Assumption::RemoteImage

mod count;
mod edit;
mod item;
mod message;
mod request;
mod validate;

pub use count::{
    AS_JSON, BUILT_IN_TOOLS, COMPACTION, FILES, ITEM_REFERENCE, REASONING, SERVER_HISTORY,
    TEXT_FORMAT,
};
pub use item::{Item, ItemKind};
pub use message::{ITEM_OVERHEAD, ResponsesMessage};
pub use request::ResponsesRequest;
