//! Budgets: a window, one reservation per layer, and what each layer spent.
//!
//! - Known at compile time: [`#[derive(ContextLayers)]`](derive@crate::ContextLayers)
//!   on a struct whose fields are layers, or [`budget!`](macro@crate::budget) for a budget
//!   without a content struct. Both refuse in the compiler reservations that add up to
//!   more than the window, implement [`ContextLayers`] and track spending with a typed
//!   [`TypedUsage`], indexed by a generated layer enum instead of a name.
//! - Known at run time (a config file, a per-model limit): [`ContextBudget`] and
//!   [`ContextUsage`] make the same checks when they are built, and look layers up by
//!   name.
//! - [`BudgetError`] says what was refused and why; [`UsageLog`] (feature `serde`)
//!   appends the telemetry of every request as JSON lines.
//!
//! # Words used throughout
//!
//! - **total**: the model's context window, in tokens.
//! - **reservation** (or **budget** of a layer): the tokens set aside for one layer: a
//!   fixed number, or a [`Share`] of the window (`floor(window × share)`), which
//!   grows and shrinks with the window the context is assembled for.
//! - **reserved**: the sum of all reservations, spent or not.
//! - **available**: `total - reserved`, the tokens no layer reserves.
//! - **spent**: the tokens a layer (or the whole context) actually used.
//! - **remaining**: `total - spent`, everything not spent yet, *including* unspent
//!   reservations such as the output's. Not what a layer may still spend: that is
//!   its reservation minus its spend.

#[cfg(feature = "serde")]
mod config;
pub(crate) mod context;
mod error;
mod layers;
mod reservation;
#[cfg(feature = "serde")]
mod telemetry;

pub use context::{ContextBudget, ContextUsage};
pub use error::BudgetError;
pub use layers::{ContextLayers, LayerSpec, TypedUsage, UnknownLayer};
pub use reservation::{Reservation, Share};
#[cfg(feature = "serde")]
pub use telemetry::UsageLog;
