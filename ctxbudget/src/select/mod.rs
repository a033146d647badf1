//! Chunk selection: keep the best-scored chunks that fit a token budget.
//!
//! Retrieval hands back chunks with relevance scores; [`select`] keeps the best of
//! them, highest score first, until the budget is spent, and fills what is left with
//! a boundary-aware cut of the next chunk. A common shortcut estimates with
//! `len / 4` and cuts the last chunk at `remaining * 4` characters, mid-word, and
//! measured with a real tokenizer its result can be over the budget. Here every count
//! is made with the caller's [`TokenCounter`](crate::count::TokenCounter), the cut goes
//! through the trimming engine ([`trim_with`](crate::trim::trim_with)), a chunk is
//! cut only when the joined text with that chunk whole would be over the budget, and
//! the joined result — separators and the cut marker included — is counted once more
//! at the end, so it never exceeds the budget.
//!
//! - [`select`] takes a slice of anything [`RankedText`]: `(text, score)` tuples,
//!   [`RankedChunk`]s, or your own type with a two-line impl.
//! - [`select_by`] takes a slice of any type and a closure that returns its text and
//!   score.
//! - [`RankedChunks`] is an owned collection to keep in a struct;
//!   [`RankedChunks::select`] does the same.

mod options;
mod ranked;
mod selection;

pub use options::SelectOptions;
pub use ranked::{RankedChunk, RankedChunks, RankedText};
pub use selection::{Chosen, SelectStats, Selection, select, select_by};
