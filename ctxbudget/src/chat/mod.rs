//! Chat history: count a conversation as the provider does and trim it to a budget
//! without ever breaking a tool call apart from its results.
//!
//! - [`Message`] is a ready-made message; [`ChatMessage`] lets your own message type
//!   be trimmed in place, borrowed, never copied.
//! - [`ChatFormat`] adds the chat format's overhead to each message (OpenAI's by
//!   default, as tiktoken-rs's `num_tokens_from_messages` and the OpenAI cookbook
//!   count it).
//! - [`ChatTrimmer`] hands a [`TrimContext`] to your `on_trim` hook (modelled on
//!   Phronomy's `TrimContext`), then drops whole messages until the history fits,
//!   with the options of LangChain's `trim_messages` (`strategy`, `include_system`,
//!   `start_on`, `end_on`, `allow_partial`); without a hook it counts only the
//!   messages it keeps.
//! - [`ChatSession`] is a history that lives as long as a conversation: each message
//!   is counted once when it is pushed, each prompt costs what the new messages
//!   cost, and its [`CutPolicy`] keeps the prompt's prefix still for the providers'
//!   prompt caches, moving the cut rarely and far (with summaries of what it drops,
//!   if you want them).
//! - [`edit`] sheds the bulk of a history before any turn is dropped: old thinking,
//!   oversized and old tool results (cleared to a placeholder, their calls kept),
//!   and a compaction plan for a summary of yours, with the prompt cache in mind.
//!
//! How tool calls and their results are kept together, and how the options map to
//! LangChain's, is described on [`ChatTrimmer`].

#[cfg(any(feature = "rig", feature = "genai"))]
pub mod clients;
mod context;
pub mod edit;
mod error;
pub(crate) mod format;
mod message;
mod pass;
mod report;
mod session;
mod trimmer;
mod units;

pub use context::{ChatElement, IntoSeqs, PartialContent, TrimContext};
pub use error::ChatTrimError;
pub use format::{ChatFormat, HistoryBudget};
pub use message::{ChatMessage, Message, Role, ToolCall, ToolCallRef};
pub use report::{DropReason, DroppedMessage, TrimmedChat};
pub use session::{ChatSession, CutPolicy, Prepared, SessionError, SummaryInput};
pub use trimmer::{ChatStrategy, ChatTrimmer};
#[cfg(feature = "requests")]
pub(crate) use units::{latest_user, thinking_loop};
