//! Assembling a whole prompt: every layer fitted to what it may use, put together
//! as one string or as messages, counted and checked against the window.
//!
//! - [`LayerContent`] says how one layer's content is fitted to a budget. It is
//!   implemented for text (`str`, `String`, `Cow<str>`), lists of texts, chat
//!   histories (`[M]` and `Vec<M>` of any [`ChatMessage`](crate::chat::ChatMessage)), `Option<T>` (absent is
//!   empty), references and boxes; implement it for your own types, usually by
//!   calling [`fit_text`].
//! - [`LayerPolicy`] says how a layer may be cut: keep the head, the tail, both ends,
//!   disclose with an omission note, or never cut.
//! - [`#[derive(ContextLayers)]`](derive@crate::ContextLayers) generates three
//!   methods, and a runtime [`ContextBudget`](crate::ContextBudget) (say, read from
//!   a config file) has the same three, taking each layer's content as a
//!   [`LayerInput`]. One engine is behind all six.
//!   - `assemble(&counter)`: a string prompt in the declared window.
//!   - `assemble_with(&counter, &options)`: a string prompt as [`AssembleOptions`]
//!     say, e.g. for a window chosen at run time.
//!   - `assemble_messages(&counter, &options)`: the prompt as messages
//!     ([`PromptMessages`]): the system message, a chat history's messages, the
//!     final user message.
//!
//!   Each returns an [`Assembled`] prompt with its report, or an [`AssembleError`].
//!
//! # One context, any window
//!
//! A layer reserves a fixed number of tokens (`#[budget(tokens = 512)]`) or a
//! [`Share`](crate::budget::Share) of the window (`#[budget(share = 0.25)]`,
//! `{"share": 0.25}` in a config file). `assemble()` resolves shares at the declared
//! total; [`AssembleOptions::for_window`] assembles the same context for another
//! window and output reservation, chosen at run time (the model the request goes
//! to), with shares resolved at that window and fixed reservations as declared.
//! `AssembleOptions::for_model` takes the window, the output reservation and the chat
//! format of a model from the [catalogue](crate::models) in one call.
//!
//! What is checked when:
//!
//! | check | derive, literal numbers | derive, const expressions | runtime budget |
//! | --- | --- | --- | --- |
//! | shares add up to at most 1 | compile time (macro) | compile time (macro) | when the budget is built or read |
//! | reservations and output fit the declared total (shares resolved at it) | compile time (macro) | compile time (const check) | when the budget is built or read |
//! | reservations and output fit a window chosen at run time | at `assemble_with`/`assemble_messages` ([`AssembleError::WindowTooSmall`]) | same | same |
//! | layer names, policies, roles | compile time | compile time | at assembly ([`AssembleError::Budget`], [`AssembleError::InvalidLayer`]) |
//! | the content fits: never-cut layers, pinned chat messages, the whole prompt | at assembly | at assembly | at assembly |
//!
//! Every runtime error says by how much the numbers are off and what to change.
//!
//! # String or messages
//!
//! A string prompt is the layers' texts in declaration order, joined by the
//! separator (a blank line unless the context says otherwise), for completion-style
//! models. A messages prompt is what a chat API takes:
//!
//! - layers with the role `system` ([`LayerRole::System`], `#[budget(role = system)]`)
//!   form the system message, joined by the separator;
//! - a chat history contributes its kept messages, as messages;
//! - layers with the role `user` form the final user message;
//! - a layer without a role goes by its content and position: a chat history's
//!   messages are messages, the last declared layer is the final user message, and
//!   every other layer is part of the system message.
//!
//! The fit of a messages prompt is checked on the messages as the chat format
//! ([`ChatFormat`](crate::chat::ChatFormat), OpenAI's by default) counts them: every
//! message's per-message tokens, role, name and tool calls, and the reply priming,
//! not on a joined string. A chat history's layer pays its messages' per-message
//! tokens; the system and user messages' framing and the reply priming are overhead.
//!
//! A chat history over its budget drops whole messages, oldest first (the latest for
//! [`LayerPolicy::Head`]). With [`AssembleOptions::with_edits`] it sheds the bulk of
//! old tool output first ([context editing](crate::chat::edit), with the layer's
//! budget as the limit: long results keep their head and tail, old ones are
//! cleared), and drops messages only if that was not enough; the layer's report,
//! [`AssembledLayer::edits`], says what was edited. Off by default.
//!
//! # The report adds up
//!
//! An [`Assembled`] prompt says, per layer, its reservation, the budget it was
//! granted, the tokens it used, how many units of its content were kept and dropped
//! (messages, chunks, lines, bytes), its policy and growth; and for the prompt, its
//! exact count, the limit, the output reservation and what is unused. The exact
//! count is the layers' counts plus the [overhead](Assembled::overhead): separators,
//! message framing and the difference byte-pair merges make across joins. It prints
//! as a table (`Display`) and, with the `serde` feature, as one JSON object
//! ([`Assembled::to_json`]).
//!
//! # How the tokens are shared
//!
//! The prompt may use `window - output` tokens (the *limit*); the output reservation
//! is never given away.
//!
//! 1. Layers that do not grow are fitted first, in declaration order, each to its
//!    reservation.
//! 2. The overhead is paid next — the separators between the layers, and for
//!    messages the framing of the system and user messages and the reply priming —
//!    out of what the first layers left of their reservations and the unreserved
//!    remainder.
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
//!    overhead paid for a growing layer that came out empty) is offered to the
//!    growing layers still cut, highest priority first.
//! 4. The layers are put together in declaration order (empty ones and their
//!    separators left out) and the prompt is counted exactly: the joined text, or the
//!    messages as the chat format counts them. Byte-pair encodings do not always add
//!    up across a join, so when the count is over the limit the cuttable layers are
//!    capped by the excess (growing ones first, lowest priority first, then the
//!    others from the last declared) and the prompt is fitted again.
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
//! - **window**: the context window assembled for: the declared `total`, or the
//!   window of [`AssembleOptions::for_window`].
//! - **output**: the tokens of the window kept for the reply; **limit**:
//!   `window - output`, what the prompt may use.
//! - **reservation**: a layer's `#[budget(tokens = N)]`, or its `share` of the
//!   window resolved at it.
//! - **granted**: the budget a layer's content was fitted to: its reservation, more
//!   for a growing layer, less when the separators or a join forced a cut. A layer
//!   that came out whole may have used less and passed the rest on, so the grants of
//!   all layers can add up to more than the limit; what each layer used, its
//!   [`tokens`](AssembledLayer::tokens), never can.
//! - **tokens** of the prompt: its exact count, [`Assembled::tokens`], which is the
//!   layers' tokens plus the **overhead** ([`Assembled::overhead`]).
//! - **unused**: tokens of the limit the prompt does not use,
//!   [`Assembled::unused`]: `limit - tokens`. The output reservation is not in it.
//! - **remaining**: the usage tracker's [`remaining`](crate::budget::TypedUsage::remaining):
//!   `total` less what the layers spent, so it includes the output reservation and
//!   the overhead. The report's `unused` is what to read instead.
//! - **kept**, **dropped**: how much of a layer's content made it into the prompt,
//!   in the layer's own units ([`FittedLayer::unit`]): messages for a chat history,
//!   whole chunks for ranked chunks (blank chunks are not counted, a cut chunk is not
//!   kept), whole texts for a list of texts cut at its head or tail, lines for a
//!   disclosed text, and bytes otherwise. `dropped` is `total - kept`.

// The files read from the bottom up: each imports only the files below it here.
//
//   run, report      the entry points behind the derive and `ContextBudget`; the table and JSON
//   engine           the four steps of the module docs
//   share            how growing layers of one priority share what is left
//   plan, assembled  the layers as declared; the result and its report
//   options          what an assembly is asked for, and each layer's input
//   content          `LayerContent`: how each kind of content is fitted
//   chat             chat histories as layer content
//   policy           policies, fitted layers, errors and `ROUNDS`: what every file shares
mod assembled;
mod chat;
mod content;
mod engine;
mod options;
mod plan;
mod policy;
mod report;
pub(crate) mod run;
mod share;

pub use assembled::{Assembled, AssembledLayer, MessageSource, PromptMessages};
pub use chat::{
    FittedMessages, fit_chat, fit_chat_messages, fit_chat_messages_edited, render_chat,
};
pub use content::{LayerContent, fit_ranked, fit_text};
pub use options::{AssembleOptions, LayerInput, LayerRole};
pub use policy::{AssembleError, FitError, FittedLayer, LayerPolicy};
