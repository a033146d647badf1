#![doc = include_str!("../../README.md")]
#![cfg_attr(docsrs, feature(doc_auto_cfg))]
//!
//! # The pipeline
//!
//! Each step is a module; the items most programs need are also at the crate root and
//! in the [`prelude`].
//!
//! 1. [`count`] — [`TokenCounter`] says what a text costs: [`Tiktoken`] for exact
//!    OpenAI counts, [`count::ModelEstimate`] for Claude and Gemini, [`CharEstimate`]
//!    for the chars/4 estimate, or any closure; [`models`] gives each model's window
//!    and counter.
//! 2. [`trim`] — [`trim_to_budget`] and [`trim_with`] cut one text down to its
//!    reservation at the strongest boundary that does not waste the budget.
//! 3. [`budget`](mod@budget) — [`#[derive(ContextLayers)]`](derive@ContextLayers) and [`budget!`](macro@budget)
//!    check the reservations in the compiler and generate typed usage trackers and
//!    builders; [`ContextBudget`] does the same checks at run time, for windows read
//!    from a config file; [`budget::UsageLog`] writes the telemetry as JSON lines.
//! 4. [`disclosure`] — [`disclose_within`] cuts a long Markdown document at a section
//!    boundary and adds a note that says how to read the rest, the two together within
//!    the budget.
//! 5. [`chat`] — [`ChatTrimmer`] drops whole [`Message`]s from a chat history (after
//!    an `on_trim` hook had its say) and never leaves a tool result without its tool
//!    call or a call without its results; [`chat::ChatSession`] does it for a
//!    conversation that grows turn by turn, counting each message once and keeping
//!    the prompt's prefix stable for the providers' prompt caches.
//! 6. [`select`](mod@select) — [`select()`] keeps the best-scored retrieval chunks
//!    that fit a budget and cuts the next one at a boundary to fill the rest.
//! 7. [`assemble`] — [`LayerContent`] fits one layer's content under a
//!    [`LayerPolicy`](assemble::LayerPolicy); the derive's `assemble(&counter)` fits
//!    every layer, lets layers marked to grow use what the others left, joins them and
//!    checks the prompt against `total - output`.

pub mod assemble;
pub mod budget;
pub mod chat;
pub mod count;
pub mod disclosure;
#[cfg(feature = "tiktoken")]
pub mod models;
#[cfg(feature = "requests")]
pub mod request;
pub mod select;
pub mod trim;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use assemble::{AssembleError, LayerContent};
pub use budget::{BudgetError, ContextBudget, ContextLayers};
pub use chat::{ChatTrimmer, Message};
#[cfg(feature = "tiktoken")]
pub use count::Tiktoken;
pub use count::{CharEstimate, TokenCounter};
pub use ctxbudget_macros::{ContextLayers, budget};
pub use disclosure::disclose_within;
#[cfg(feature = "tiktoken")]
pub use models::Model;
pub use select::select;
pub use trim::{Keep, TrimOptions, trim_to_budget, trim_with};

/// The traits and types most programs use, in one import: `use ctxbudget::prelude::*;`.
///
/// ```
/// use ctxbudget::prelude::*;
///
/// let kept = trim_to_budget("One sentence. Another one.", 4, &CharEstimate);
/// assert_eq!(kept, "One sentence.");
/// ```
pub mod prelude {
    pub use crate::assemble::{AssembleError, LayerContent, LayerPolicy};
    pub use crate::budget::{BudgetError, ContextBudget, ContextLayers, ContextUsage};
    pub use crate::chat::{ChatMessage, ChatTrimmer, Message, Role, ToolCall};
    pub use crate::count::{CharEstimate, Exactness, ModelEstimate, TokenCounter};
    #[cfg(feature = "tiktoken")]
    pub use crate::count::{Encoding, Tiktoken};
    pub use crate::disclosure::disclose_within;
    #[cfg(feature = "tiktoken")]
    pub use crate::models::{Catalogue, Model};
    pub use crate::select::{RankedChunks, SelectOptions, select};
    pub use crate::trim::{Keep, TrimOptions, trim_to_budget, trim_with};
    pub use ctxbudget_macros::{ContextLayers, budget};
}
