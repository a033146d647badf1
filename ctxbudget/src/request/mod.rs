//! Provider requests in and out: count a whole request body as the provider bills it
//! and trim it to the model's window by removing whole messages, never touching a
//! kept one.
//!
//! - [`openai`]: OpenAI Chat Completions request bodies.
//! - [`anthropic`]: Anthropic Messages request bodies.
//! - [`responses`]: OpenAI Responses request bodies.
//! - [`gemini`]: Gemini `generateContent` request bodies.
//! - [`bedrock`]: Amazon Bedrock Converse request bodies.
//!
//! All parse losslessly: a body that is not trimmed serializes back to an equal JSON
//! value, with fields and block types ctxbudget does not know kept as they were.
//! Their messages implement [`ChatMessage`](crate::chat::ChatMessage), so
//! [`ChatTrimmer`](crate::ChatTrimmer), its `on_trim` hook and its tool-pairing
//! guarantee work on them directly. [`WireRequest`] is what the formats have in
//! common: what the request costs outside its messages, how it is checked and how
//! messages are removed.
//!
//! When a provider rejects a fitted request anyway (an estimate under-counted),
//! [`ContextOverflow`] reads its error body and [`RequestFitter::refit`] fits the
//! request again into the limit it implies, in one call. A [`Calibration`] learns
//! from the provider's `usage` ([`InputUsage`]) how far an estimate is off, and
//! [`RequestFitter::with_calibration`] fits with what it learned.
//!
//! # Requests of Rust clients
//!
//! A client's request type that serializes to one of these wire formats, such as
//! async-openai's `CreateChatCompletionRequest` or `CreateResponse`, fits in one call:
//! [`RequestFitter::fit_serde`] gives back a value of the client's own type, ready to
//! send, at the cost of one serde round trip. (A `serde_json::Value` stands in for
//! the client's type here; with async-openai, write its type instead.)
//!
//! ```
//! use ctxbudget::request::RequestFitter;
//!
//! # type CreateChatCompletionRequest = serde_json::Value;
//! let req: CreateChatCompletionRequest = serde_json::from_str(r#"{"model": "gpt-4o", "messages": [
//!     {"role": "system", "content": "Be brief."},
//!     {"role": "user", "content": "An old question, far too long to keep in a small window."},
//!     {"role": "assistant", "content": "An old answer, just as long as the old question was."},
//!     {"role": "user", "content": "What is 2 + 2?"}
//! ]}"#)?;
//!
//! let words = |t: &str| t.split_whitespace().count();
//! let fitted = RequestFitter::new(words).with_max_input(40).fit_serde(&req)?;
//! let req: CreateChatCompletionRequest = fitted.request;
//!
//! assert_eq!(req["messages"].as_array().map(Vec::len), Some(2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Provider-neutral histories that serialize to no wire format, `rig-core`'s
//! `Message` and `genai`'s `ChatMessage`, are chat messages themselves behind the
//! features `rig` and `genai` (see [`chat`](crate::chat)).

pub mod anthropic;
mod any;
pub mod bedrock;
mod calibration;
mod client;
mod detect;
mod error;
mod fit;
pub mod gemini;
pub mod image;
mod json;
mod lossless;
pub mod openai;
mod overflow;
mod prompt;
mod report;
pub mod responses;
mod wire;

pub use any::AnyRequest;
pub use calibration::{
    CALIBRATION_MIN, CALIBRATION_WINDOW, Calibration, InputUsage, Observation, UsageError,
    UsageProvider,
};
pub use detect::{Detection, FormatClue, detect, detect_format, detect_value};
pub use error::RequestError;
pub use fit::{DEFAULT_OUTPUT, FittedRequest, InputLimit, RequestCount, RequestFitter};
pub use overflow::{ContextOverflow, OverflowError, OverflowProvider};
pub use report::{DroppedRequestMessage, OutputReservation, RequestReport};
pub use wire::{Assumption, RequestCost, RequestFormat, WireRequest};
