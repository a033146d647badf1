//! Chat history: count a conversation as the provider does and trim it to a budget
//! without ever breaking a tool call apart from its results.
//!
//! - [`Message`] is a ready-made message; [`ChatMessage`] lets your own message type
//!   be trimmed in place, borrowed, never copied.
//! - [`ChatFormat`] adds the chat format's overhead to each message (OpenAI's by
//!   default, as tiktoken-rs's `num_tokens_from_messages` and the OpenAI cookbook
//!   count it).
//! - [`ChatTrimmer`] hands a [`TrimContext`] to your `on_trim` hook (the `TrimContext` of
//!   Phronomy's agents), then drops whole messages until the history fits.
//!
//! How tool calls and their results are kept together is described on [`ChatTrimmer`].

mod context;
mod format;
mod message;
mod trimmer;

pub use context::{ChatElement, IntoSeqs, TrimContext};
pub use format::{ChatFormat, HistoryBudget};
pub use message::{ChatMessage, Message, Role, ToolCall, ToolCallRef};
pub use trimmer::{
    ChatStrategy, ChatTrimError, ChatTrimmer, DropReason, DroppedMessage, TrimmedChat,
};
