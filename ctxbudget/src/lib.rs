#![doc = include_str!("../../README.md")]
#![cfg_attr(docsrs, feature(doc_auto_cfg))]
//!
//! # The pipeline
//!
//! 1. **Count** — [`TokenCounter`] says what a text costs: [`Tiktoken`] for exact
//!    OpenAI counts, [`CharEstimate`] for the chars/4 estimate, or any closure.
//! 2. **Trim** — [`trim_to_budget`] and [`trim_with`] cut one layer down to its
//!    reservation at the strongest boundary that does not waste the budget.
//! 3. **Disclose** — [`truncate_at_section_boundary`] and [`disclose_within`] cut a
//!    long Markdown document at a section boundary and add an omission note that says
//!    how to read the rest; [`disclose_within`] fits the text and the note together.
//! 4. **Chat history** — [`ChatTrimmer`] drops whole messages from a chat (oldest
//!    first, after an `on_trim` hook sees a [`TrimContext`]) and never leaves a tool
//!    result without its tool call or a call without its results.

mod chat;
mod count;
mod disclosure;

pub use chat::{
    ChatBudget, ChatElement, ChatFormat, ChatMessage, ChatStrategy, ChatTrimError, ChatTrimmer,
    DropReason, DroppedMessage, IntoSeqs, Message, Role, ToolCall, ToolCallRef, TrimContext,
    TrimmedChat,
};
pub use count::{CharEstimate, TokenCounter};
pub use disclosure::{
    Disclosed, DisclosureError, Truncation, disclose_within, disclosure_trailer, estimate,
    heading_boundary_keep_count, truncate_at_section_boundary,
};
