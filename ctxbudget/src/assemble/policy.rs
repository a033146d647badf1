//! How a layer may be cut ([`LayerPolicy`]), what fitting it gave ([`FittedLayer`]),
//! and what can go wrong ([`FitError`], [`AssembleError`]).

use std::borrow::Cow;
use std::fmt;

use thiserror::Error;

use crate::budget::BudgetError;
use crate::chat::ChatTrimError;
use crate::disclosure::DisclosureError;

/// How many times a prompt over the limit after a join is fitted again; also the
/// bound on the sharing rounds of growing layers and on [`fit_chat`]'s refits.
///
/// It sits here, at the bottom of the folder, because the engine, the sharing of
/// growing layers and the chat layer all bound their loops by it.
///
/// [`fit_chat`]: super::fit_chat
pub(crate) const ROUNDS: usize = 16;

/// How a layer that is over its budget may be cut.
///
/// In `#[budget(..)]` this is `policy = head`, `tail`, `head_and_tail`, `never` or
/// `disclose` (with `recovery = "..."`). Without a policy a layer uses its content's
/// [`default_policy`](super::LayerContent::default_policy): the head for text, the latest
/// messages for a chat history.
///
/// ```
/// use ctxbudget::{CharEstimate, assemble::LayerPolicy, assemble::fit_text};
///
/// let log = "boot ok\nload config\nconnect db\nserve requests";
/// let tail = fit_text(log, 4, &CharEstimate, &LayerPolicy::Tail)?;
/// assert_eq!(tail.text, "serve requests");
/// assert!(fit_text(log, 4, &CharEstimate, &LayerPolicy::Never).is_err());
/// # Ok::<(), ctxbudget::assemble::FitError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum LayerPolicy {
    /// Keep the beginning ([`Keep::Head`](crate::trim::Keep::Head)): documents, instructions. The default for
    /// text.
    #[default]
    Head,
    /// Keep the end ([`Keep::Tail`](crate::trim::Keep::Tail)): logs, transcripts. For a chat history: keep the
    /// latest messages, its default.
    Tail,
    /// Keep both ends and cut the middle ([`Keep::HeadAndTail`](crate::trim::Keep::HeadAndTail)).
    HeadAndTail,
    /// Keep the leading lines, backed up to a section boundary, and add an omission
    /// note saying how to read the rest (see [`disclose_within`](crate::disclosure::disclose_within)); the note's tokens
    /// count. When not even the note fits, the layer is left empty.
    Disclose {
        /// What the reader can do to see the full text, such as `read AGENTS.md`.
        recovery: Cow<'static, str>,
    },
    /// Never cut: a layer over its budget is an error naming it and the excess. For
    /// a system prompt or the user's message, where a cut would change the meaning.
    Never,
}

impl LayerPolicy {
    /// [`LayerPolicy::Disclose`] with the recovery action `recovery`.
    pub fn disclose(recovery: impl Into<Cow<'static, str>>) -> Self {
        LayerPolicy::Disclose {
            recovery: recovery.into(),
        }
    }

    /// The policy as the attribute writes it: `head`, `tail`, `head_and_tail`,
    /// `disclose` or `never`.
    pub fn name(&self) -> &'static str {
        match self {
            LayerPolicy::Head => "head",
            LayerPolicy::Tail => "tail",
            LayerPolicy::HeadAndTail => "head_and_tail",
            LayerPolicy::Disclose { .. } => "disclose",
            LayerPolicy::Never => "never",
        }
    }

    /// Whether the policy allows cutting at all.
    pub fn may_cut(&self) -> bool {
        !matches!(self, LayerPolicy::Never)
    }
}

impl fmt::Display for LayerPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// One layer's content fitted to its budget: the text to send and what it costs.
///
/// `kept` of `total` units say how much of the content made it into the text; the
/// other `total - kept` were dropped, and the layer was cut when `kept < total`. The
/// unit (`unit`, in the plural) is the content's own: `"messages"` for a chat history,
/// `"whole chunks"` for ranked chunks (blank chunks are not counted, a cut chunk is
/// not kept), `"whole texts"` or `"texts"` for a list of texts, `"lines"` for a
/// disclosed text, `"bytes"` for text otherwise.
///
/// ```
/// use ctxbudget::assemble::FittedLayer;
///
/// let whole = FittedLayer::whole("hello", 1);
/// assert!(!whole.cut());
/// let partial = FittedLayer::whole("first chunk", 3).with_kept(1, 4, "chunks");
/// assert!(partial.cut());
/// assert_eq!(partial.to_string(), "kept 1 of 4 chunks, 3 tokens");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FittedLayer<'a> {
    /// The text that goes into the prompt.
    pub text: Cow<'a, str>,
    /// What `text` costs under the counter that fitted it.
    pub tokens: usize,
    /// How many units of the content were kept.
    pub kept: usize,
    /// How many units the content had.
    pub total: usize,
    /// What a unit is, in the plural: `"bytes"`, `"lines"`, `"messages"`, ...
    pub unit: &'static str,
}

impl<'a> FittedLayer<'a> {
    /// The whole of `text`, costing `tokens`, counted in bytes.
    pub fn whole(text: impl Into<Cow<'a, str>>, tokens: usize) -> Self {
        let text = text.into();
        let len = text.len();
        FittedLayer {
            text,
            tokens,
            kept: len,
            total: len,
            unit: "bytes",
        }
    }

    /// An empty layer.
    pub fn empty() -> Self {
        Self::whole("", 0)
    }

    /// The same text, reported as `kept` of `total` `unit`s.
    #[must_use]
    pub fn with_kept(mut self, kept: usize, total: usize, unit: &'static str) -> Self {
        self.kept = kept;
        self.total = total;
        self.unit = unit;
        self
    }

    /// Whether some of the content was left out.
    pub fn cut(&self) -> bool {
        self.kept < self.total
    }

    /// The same layer owning its text.
    pub fn into_owned(self) -> FittedLayer<'static> {
        FittedLayer {
            text: Cow::Owned(self.text.into_owned()),
            tokens: self.tokens,
            kept: self.kept,
            total: self.total,
            unit: self.unit,
        }
    }
}

impl fmt::Display for FittedLayer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.cut() {
            write!(
                f,
                "kept {} of {} {}, {} tokens",
                self.kept, self.total, self.unit, self.tokens
            )
        } else {
            write!(
                f,
                "whole ({} {}), {} tokens",
                self.total, self.unit, self.tokens
            )
        }
    }
}

/// Why a layer's content could not be fitted to its budget.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FitError {
    /// The content may not be cut ([`LayerPolicy::Never`]) and is over its budget.
    #[error("needs {tokens} tokens but may use {budget} ({over} over) and may not be cut")]
    NeverCut {
        /// What the whole content costs.
        tokens: usize,
        /// The budget it was given.
        budget: usize,
        /// `tokens - budget`.
        over: usize,
    },
    /// A chat history whose pinned messages (its system messages and its latest user
    /// message, which [`fit_chat`](super::fit_chat) never drops) alone are over the
    /// budget.
    #[error(
        "the system messages and the latest user message need {tokens} tokens but may use {budget} ({over} over); give the layer at least {tokens} tokens or shorten those messages"
    )]
    PinnedMessages {
        /// What the pinned messages cost, rendered as the layer renders them.
        tokens: usize,
        /// The budget the history was given.
        budget: usize,
        /// `tokens - budget`.
        over: usize,
    },
    /// A chat history that the [`ChatTrimmer`](crate::chat::ChatTrimmer) refused.
    #[error(transparent)]
    Chat(#[from] ChatTrimError),
    /// A disclosure that cannot be written (a blank recovery action).
    #[error(transparent)]
    Disclosure(#[from] DisclosureError),
    /// Any other reason, from an implementation of [`LayerContent`](super::LayerContent) outside this
    /// crate.
    #[error("{0}")]
    Custom(String),
}

impl FitError {
    /// A [`FitError::Custom`] with `message`.
    pub fn custom(message: impl fmt::Display) -> Self {
        FitError::Custom(message.to_string())
    }

    /// The [`FitError::NeverCut`] of content costing `tokens` for a `budget`.
    pub fn never_cut(tokens: usize, budget: usize) -> Self {
        FitError::NeverCut {
            tokens,
            budget,
            over: tokens.saturating_sub(budget),
        }
    }
}

/// Why a context could not be assembled.
///
/// ```
/// use ctxbudget::{AssembleError, CharEstimate, ContextLayers};
///
/// #[derive(ContextLayers)]
/// #[context(total = 1000, output = 200)]
/// struct Ctx {
///     #[budget(tokens = 10, policy = never)]
///     system: String,
///     #[budget(tokens = 790)]
///     memory: String,
/// }
///
/// let ctx = Ctx { system: "x".repeat(60), memory: String::new() };
/// let err = ctx.assemble(&CharEstimate).unwrap_err();
/// assert!(matches!(err, AssembleError::LayerOverBudget { over: 5, .. }));
/// assert_eq!(
///     err.to_string(),
///     "layer `system` needs 15 tokens but reserves 10 (5 over); it is marked never to be \
///      cut: shorten it or raise its reservation"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum AssembleError {
    /// A layer marked never to be cut is over what it may use.
    #[error(
        "layer `{layer}` needs {tokens} tokens but {}; it is marked never to be cut: \
         shorten it or raise its reservation",
        given(*budget, *reservation, *over)
    )]
    LayerOverBudget {
        /// The layer's name.
        layer: String,
        /// What its content costs.
        tokens: usize,
        /// What it was given: its reservation, or more for a growing layer.
        budget: usize,
        /// Its reservation.
        reservation: usize,
        /// `tokens - budget`.
        over: usize,
    },
    /// A chat history whose pinned messages — its system messages and its latest
    /// user message, which are never dropped — are over what the layer may use.
    ///
    /// The layer is not left empty instead: without its instructions or the
    /// question being asked, the rest of the history is of little use to the model.
    #[error(
        "layer `{layer}` must keep its system messages and latest user message, which \
         need {tokens} tokens, but {}; {}",
        given(*budget, *reservation, *over),
        if *grows {
            "raise its reservation, or shorten the system messages or the latest user message"
        } else {
            "raise its reservation, mark it `grow` to let it use what other layers leave, \
             or shorten the system messages or the latest user message"
        }
    )]
    PinnedOverBudget {
        /// The layer's name.
        layer: String,
        /// What its pinned messages cost, rendered as the layer renders them.
        tokens: usize,
        /// What it was given: its reservation, or more for a growing layer.
        budget: usize,
        /// Its reservation.
        reservation: usize,
        /// `tokens - budget`.
        over: usize,
        /// Whether the layer is marked `grow`.
        grows: bool,
    },
    /// A layer's content could not be fitted for another reason.
    #[error("layer `{layer}` could not be fitted to {budget} tokens: {source}")]
    Layer {
        /// The layer's name.
        layer: String,
        /// The budget it was given.
        budget: usize,
        /// Why.
        source: FitError,
    },
    /// The layers that may not be cut, with the overhead (the separators between the
    /// layers, and for messages the message framing and the reply priming), are over
    /// the window less the output reservation.
    #[error(
        "the prompt needs {tokens} tokens but {limit} are left after the output \
         reservation ({over} over); the layers that may not be cut and the overhead \
         (separators, message framing) do not fit: shorten them, lower the output \
         reservation or choose a larger window"
    )]
    PromptOverBudget {
        /// What the smallest prompt that was tried costs.
        tokens: usize,
        /// `window - output`.
        limit: usize,
        /// `tokens - limit`.
        over: usize,
    },
    /// The window chosen at run time is too small for the layers' reservations and
    /// the output reservation.
    #[error(
        "at a window of {window} tokens with {output} kept for the output, the layers \
         reserve {reserved} ({terms}): {over} over; choose a window of at least {needed}, \
         lower the output reservation or the fixed reservations, or reserve shares of the \
         window instead of fixed tokens",
        needed = (*reserved as u128) + (*output as u128)
    )]
    WindowTooSmall {
        /// The window asked for.
        window: usize,
        /// The output reservation asked for.
        output: usize,
        /// What the layers reserve in that window (shares resolved at it).
        reserved: usize,
        /// `reserved + output - window`.
        over: usize,
        /// The reservations written out: `system 512 + history 2048 (share 0.5)`.
        terms: String,
    },
    /// A layer given to a runtime assembly that cannot be used as given.
    #[error("layer `{layer}`: {problem}")]
    InvalidLayer {
        /// The layer's name.
        layer: String,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// A layer the budget does not declare, or recording the spend was refused (a bug
    /// in a hand-written [`ContextLayers`](crate::budget::ContextLayers)
    /// implementation; generated ones cannot reach it).
    #[error(transparent)]
    Budget(#[from] BudgetError),
}

fn given(budget: usize, reservation: usize, over: usize) -> String {
    if budget == reservation {
        format!("reserves {reservation} ({over} over)")
    } else {
        format!("was given {budget} ({over} over; it reserves {reservation})")
    }
}
