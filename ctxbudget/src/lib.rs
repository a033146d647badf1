#![doc = include_str!("../../README.md")]
#![cfg_attr(docsrs, feature(doc_auto_cfg))]
//!
//! # The pipeline
//!
//! 1. **Count** — [`TokenCounter`] says what a text costs: [`Tiktoken`] for exact
//!    OpenAI counts, [`CharEstimate`] for the chars/4 estimate, or any closure.
//! 2. **Trim** — [`trim_to_budget`] and [`trim_with`] cut one layer down to its
//!    reservation at the strongest boundary that does not waste the budget.

mod count;
#[cfg(feature = "tiktoken")]
mod tiktoken;
mod trim;

pub use count::{CharEstimate, TokenCounter};
#[cfg(feature = "tiktoken")]
pub use tiktoken::{Encoding, Tiktoken, UnknownModel};
pub use trim::{Boundary, Keep, TrimOptions, Trimmed, trim_to_budget, trim_with};
