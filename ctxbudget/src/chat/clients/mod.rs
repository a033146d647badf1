//! Chat histories of Rust LLM clients, trimmed and edited where they are: with the
//! feature `rig`, `rig-core`'s `completion::Message` is a [`ChatMessage`] and an
//! [`EditableMessage`]; with the feature `genai`, `genai`'s `chat::ChatMessage` is.
//! So [`ChatTrimmer`](crate::ChatTrimmer), [`ChatSession`](super::ChatSession)
//! and the [context edits](super::edit) work on a `Vec` of their messages, and what
//! they keep is still the client's own value, ready to send.
//!
//! How their content is counted: text blocks as text; a tool call's arguments and
//! a JSON tool result as their compact JSON; an image as [`MEDIA_TOKENS`] (these
//! types do not carry its size); other media (audio, video, documents) as the text
//! of their source (base64 data counts above what providers bill for it). Tool
//! calls and results pair by their call id: the provider's in rig (a call rig gave
//! an id of its own pairs with nothing), `call_id` in genai.
//!
//! ```
//! # #[cfg(feature = "genai")] {
//! use ctxbudget::{ChatTrimmer, CharEstimate};
//! use genai::chat::{ChatMessage, ToolCall, ToolResponse};
//!
//! let call = ToolCall {
//!     call_id: "call_1".into(),
//!     fn_name: "read_file".into(),
//!     fn_arguments: serde_json::json!({"path": "src/main.rs"}),
//!     thought_signatures: None,
//! };
//! let history = vec![
//!     ChatMessage::system("You are a coding agent."),
//!     ChatMessage::user("Read the main file."),
//!     ChatMessage::from(vec![call]),
//!     ChatMessage::from(ToolResponse::new("call_1", "fn main() {}\n".repeat(200))),
//!     ChatMessage::user("Now say hello."),
//! ];
//! let kept = ChatTrimmer::new(CharEstimate, 100).trim(&history)?;
//! // The old call went with its result; the kept messages are genai's own.
//! let kept: Vec<ChatMessage> = kept.messages().into_iter().cloned().collect();
//! assert_eq!(kept.len(), 2);
//! # }
//! # Ok::<(), ctxbudget::chat::ChatTrimError>(())
//! ```
//!
//! [`ChatMessage`]: super::ChatMessage
//! [`EditableMessage`]: super::edit::EditableMessage

#[cfg(feature = "genai")]
mod genai;
#[cfg(feature = "rig")]
mod rig;

/// What an image in a client's message counts for: 1,600 tokens, the most one
/// image costs Anthropic (a 1.15-megapixel image), above OpenAI's most at high
/// detail (1,445) and Gemini's (1,120 at its highest resolution).
pub const MEDIA_TOKENS: usize = 1_600;
