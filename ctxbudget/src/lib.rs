#![doc = include_str!("../../README.md")]
#![cfg_attr(docsrs, feature(doc_auto_cfg))]
//!
//! # The pipeline
//!
//! 1. **Count** — [`TokenCounter`] says what a text costs: [`Tiktoken`] for exact
//!    OpenAI counts, [`CharEstimate`] for the chars/4 estimate, or any closure.
//! 2. **Trim** — [`trim_to_budget`] and [`trim_with`] cut one layer down to its
//!    reservation at the strongest boundary that does not waste the budget.
//! 3. **Budget** — [`ContextBudget`] and [`ContextUsage`] reserve and track tokens per
//!    layer at run time; [`#[derive(ContextLayers)]`](derive@ContextLayers) and
//!    [`budget!`] check the reservations in the compiler and generate typed trackers
//!    ([`TypedUsage`]) and builders; [`UsageLog`] writes the telemetry as JSON lines.
//! 4. **Disclose** — [`truncate_at_section_boundary`] and [`disclose_within`] cut a
//!    long Markdown document at a section boundary and add an omission note that says
//!    how to read the rest; [`disclose_within`] fits the text and the note together.
//! 5. **Chat history** — [`ChatTrimmer`] drops whole messages from a chat (oldest
//!    first, after an `on_trim` hook sees a [`TrimContext`]) and never leaves a tool
//!    result without its tool call or a call without its results.
//! 6. **Select** — [`select`] keeps the best-scored retrieval chunks that fit a
//!    budget, cuts the next one at a boundary to fill the rest, and counts the
//!    joined text so separators and the cut marker stay within the budget too.
//! 7. **Assemble** — [`LayerContent`] fits one layer's content (text, lists of texts,
//!    chat histories, ranked chunks, your own types) under a [`LayerPolicy`]; the derive's
//!    `assemble(&counter)` fits every layer, lets layers marked to grow use what the
//!    others left, joins them and checks the prompt against `total - output`
//!    ([`Assembled`], [`AssembleError`]).

mod assemble;
mod budget;
mod chat;
mod count;
mod disclosure;
mod error;
mod layers;
mod select;
#[cfg(feature = "serde")]
mod telemetry;
#[cfg(feature = "tiktoken")]
mod tiktoken;
mod trim;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use assemble::{
    AssembleError, Assembled, AssembledLayer, FitError, FittedLayer, LayerContent, LayerPolicy,
    fit_chat, fit_ranked, fit_text, render_chat,
};
pub use budget::{ContextBudget, ContextUsage};
pub use chat::{
    ChatElement, ChatFormat, ChatMessage, ChatStrategy, ChatTrimError, ChatTrimmer, DropReason,
    DroppedMessage, HistoryBudget, IntoSeqs, Message, Role, ToolCall, ToolCallRef, TrimContext,
    TrimmedChat,
};
pub use count::{CharEstimate, TokenCounter};
pub use ctxbudget_macros::{ContextLayers, budget};
pub use disclosure::{
    Disclosed, DisclosureError, Truncation, disclose_within, disclosure_trailer, estimate,
    heading_boundary_keep_count, truncate_at_section_boundary,
};
pub use error::BudgetError;
pub use layers::{ContextLayers, LayerSpec, TypedUsage};
pub use select::{
    Chosen, RankedChunk, RankedChunks, RankedText, SelectOptions, SelectStats, Selection, select,
    select_by,
};
#[cfg(feature = "serde")]
pub use telemetry::UsageLog;
#[cfg(feature = "tiktoken")]
pub use tiktoken::{Encoding, Tiktoken, UnknownModel};
pub use trim::{Boundary, Keep, TrimOptions, Trimmed, trim_to_budget, trim_with};
