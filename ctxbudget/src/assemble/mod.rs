//! Assembling a whole prompt: every layer fitted to what it may use, joined, counted
//! and checked against the window.
//!
//! - [`LayerContent`] says how one layer's content is fitted to a budget. It is
//!   implemented for text (`str`, `String`, `Cow<str>`), lists of texts, chat
//!   histories (`[M]` and `Vec<M>` of any [`ChatMessage`](crate::chat::ChatMessage)), `Option<T>` (absent is
//!   empty), references and boxes; implement it for your own types, usually by
//!   calling [`fit_text`].
//! - [`LayerPolicy`] says how a layer may be cut: keep the head, the tail, both ends,
//!   disclose with an omission note, or never cut.
//! - The `assemble()` method that
//!   [`#[derive(ContextLayers)]`](derive@crate::ContextLayers) generates returns an
//!   [`Assembled`] prompt or an [`AssembleError`].
//!
//! # How the tokens are shared
//!
//! The prompt may use `total - output` tokens (the *limit*); the output reservation is
//! never given away.
//!
//! 1. Layers that do not grow are fitted first, in declaration order, each to its
//!    reservation.
//! 2. The separators between the layers are paid next, out of what the first layers
//!    left of their reservations and the unreserved remainder.
//! 3. Layers marked to grow are fitted last, highest priority first (declaration
//!    order among equals). Each is given its reservation plus everything still
//!    unused — other layers' leftovers and the unreserved remainder — less the
//!    reservations of the growing layers after it, which are kept for them. What it
//!    does not use flows on to the next. This is prompt-tsx's `flexGrow`.
//! 4. The layers are joined in declaration order (empty ones and their separators
//!    left out), and the prompt is counted exactly. Byte-pair encodings do not
//!    always add up across a join, so when the count is over the limit the cuttable
//!    layers are capped by the excess (growing ones first, lowest priority first,
//!    then the others from the last declared) and the prompt is fitted again.

mod assembled;
mod content;
pub(crate) mod engine;
mod policy;

pub use assembled::{Assembled, AssembledLayer};
pub use content::{LayerContent, fit_chat, fit_ranked, fit_text, render_chat};
pub use policy::{AssembleError, FitError, FittedLayer, LayerPolicy};

pub(crate) use engine::assemble;
