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
//! 3. Layers marked to grow are fitted last, highest priority first. A priority may
//!    use everything still unused — other layers' leftovers and the unreserved
//!    remainder — less the reservations of the lower priorities, which are kept for
//!    them. Within a priority:
//!    - layers that may not be cut come first, in declaration order, each with its
//!      reservation plus everything beyond the others' reservations; each takes
//!      only what its whole content costs;
//!    - the other layers get their reservations plus equal shares of the rest (like
//!      prompt-tsx's `flexGrow` elements with the default `flexBasis`);
//!    - in rounds, a layer that came out whole gives back what it did not use, and
//!      that is shared equally among the layers still cut, until none is cut or
//!      nothing is given back (16 rounds at most);
//!    - what is still unused is offered to each layer still cut in turn: all of it.
//!
//!    Last, what no growing layer used (a lower priority's unused reservation, the
//!    separator of a growing layer that came out empty) is offered to the growing
//!    layers still cut, highest priority first.
//! 4. The layers are joined in declaration order (empty ones and their separators
//!    left out), and the prompt is counted exactly. Byte-pair encodings do not
//!    always add up across a join, so when the count is over the limit the cuttable
//!    layers are capped by the excess (growing ones first, lowest priority first,
//!    then the others from the last declared) and the prompt is fitted again.
//!
//! ## When tokens are left unused
//!
//! A layer not marked `grow` never gets more than its reservation: when it is cut,
//! the tokens other layers leave stay unused unless a growing layer can use them. A
//! chat history kept to its 2,048-token reservation drops its older messages even
//! when the retrieved chunks beside it needed 2,000 tokens less than theirs. **Mark
//! every layer that should use what is left `grow`** (at one priority to share it,
//! at different priorities to serve one first).
//!
//! Growing layers leave tokens unused only when they cannot use them: when every
//! growing layer is whole, or when what is left is smaller than the next unit a cut
//! layer would add (the next message of a chat history, the next chunk, the next
//! word of a text) — and by the few tokens byte-pair counts do not add up across a
//! join.
//!
//! # Words used here
//!
//! - **reservation**: a layer's `#[budget(tokens = N)]`.
//! - **granted**: the budget a layer's content was fitted to: its reservation, more
//!   for a growing layer, less when the separators or a join forced a cut. A layer
//!   that came out whole may have used less and passed the rest on, so the grants of
//!   all layers can add up to more than the limit; what each layer used, its
//!   [`tokens`](AssembledLayer::tokens), never can.
//! - **unused**: tokens of the limit the prompt does not use,
//!   [`Assembled::unused`]: `limit - tokens`. The output reservation is not in it.
//! - **remaining**: the usage tracker's [`remaining`](crate::budget::TypedUsage::remaining):
//!   `total` less what the layers spent, so it includes the output reservation and
//!   the separators.
//! - **kept**, **dropped**: how much of a layer's content made it into the prompt,
//!   in the layer's own units ([`FittedLayer::unit`]): messages for a chat history,
//!   whole chunks for ranked chunks (blank chunks are not counted, a cut chunk is not
//!   kept), whole texts for a list of texts cut at its head or tail, lines for a
//!   disclosed text, and bytes otherwise. `dropped` is `total - kept`.

mod assembled;
mod chat;
mod content;
pub(crate) mod engine;
mod options;
mod plan;
mod policy;
mod report;
pub(crate) mod run;
mod share;

pub use assembled::{Assembled, AssembledLayer, MessageSource, PromptMessages};
pub use chat::{FittedMessages, fit_chat, fit_chat_messages, render_chat};
pub use content::{LayerContent, fit_ranked, fit_text};
pub use options::{AssembleOptions, LayerInput, LayerRole};
pub use policy::{AssembleError, FitError, FittedLayer, LayerPolicy};
