//! Assembling a whole prompt: every layer fitted to what it may use, joined, counted
//! and checked against the window.
//!
//! - [`LayerContent`] says how one layer's content is fitted to a budget. It is
//!   implemented for text (`str`, `String`, `Cow<str>`), lists of texts, chat
//!   histories (`[M]` and `Vec<M>` of any [`ChatMessage`]), `Option<T>` (absent is
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

use std::borrow::Cow;
use std::fmt;

use thiserror::Error;

use crate::TokenCounter;
use crate::chat::{ChatFormat, ChatMessage, ChatStrategy, ChatTrimError, ChatTrimmer};
use crate::disclosure::{DisclosureError, disclose_within};
use crate::error::BudgetError;
use crate::layers::{ContextLayers, LayerSpec, TypedUsage};
use crate::select::{RankedChunk, RankedChunks, RankedText, SelectOptions, select};
use crate::trim::{Keep, TrimOptions, trim_with};

/// How a layer that is over its budget may be cut.
///
/// In `#[budget(..)]` this is `policy = head`, `tail`, `head_and_tail`, `never` or
/// `disclose` (with `recovery = "..."`). Without a policy a layer uses its content's
/// [`default_policy`](LayerContent::default_policy): the head for text, the latest
/// messages for a chat history.
///
/// ```
/// use ctxbudget::{CharEstimate, LayerPolicy, fit_text};
///
/// let log = "boot ok\nload config\nconnect db\nserve requests";
/// let tail = fit_text(log, 4, &CharEstimate, &LayerPolicy::Tail)?;
/// assert_eq!(tail.text, "serve requests");
/// assert!(fit_text(log, 4, &CharEstimate, &LayerPolicy::Never).is_err());
/// # Ok::<(), ctxbudget::FitError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum LayerPolicy {
    /// Keep the beginning ([`Keep::Head`]): documents, instructions. The default for
    /// text.
    #[default]
    Head,
    /// Keep the end ([`Keep::Tail`]): logs, transcripts. For a chat history: keep the
    /// latest messages, its default.
    Tail,
    /// Keep both ends and cut the middle ([`Keep::HeadAndTail`]).
    HeadAndTail,
    /// Keep the leading lines, backed up to a section boundary, and add an omission
    /// note saying how to read the rest (see [`disclose_within`]); the note's tokens
    /// count. When not even the note fits, the layer is left empty.
    Disclose {
        /// What the reader can do to see the full text, such as `read AGENTS.md`.
        recovery: Cow<'static, str>,
    },
    /// Never cut: a layer over its budget is an error naming it and the excess (the
    /// seed's system and user layers).
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
/// `kept` of `total` units (`unit`: bytes, lines, messages, texts, chunks) say how
/// much of the content survived; the layer was cut when `kept < total`.
///
/// ```
/// use ctxbudget::FittedLayer;
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
    /// A chat history whose system messages and latest user message alone are over
    /// the budget.
    #[error(transparent)]
    Chat(#[from] ChatTrimError),
    /// A disclosure that cannot be written (a blank recovery action).
    #[error(transparent)]
    Disclosure(#[from] DisclosureError),
    /// Any other reason, from an implementation of [`LayerContent`] outside this
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
    /// The layers that may not be cut, with the separators between the layers, are
    /// over the window less the output reservation.
    #[error(
        "the prompt needs {tokens} tokens but {limit} are left after the output \
         reservation ({over} over); the layers that may not be cut and the separators do \
         not fit: shorten them or raise `total`"
    )]
    PromptOverBudget {
        /// What the smallest prompt that was tried costs.
        tokens: usize,
        /// `total - output`.
        limit: usize,
        /// `tokens - limit`.
        over: usize,
    },
    /// Recording the spend was refused (a bug in a hand-written
    /// [`ContextLayers`] implementation; generated ones cannot reach it).
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

/// Content that can be fitted to a token budget: the content of one layer of an
/// [`#[derive(ContextLayers)]`](derive@crate::ContextLayers) context.
///
/// Implemented for:
///
/// | content | fitted as | default policy |
/// | --- | --- | --- |
/// | `str`, `String`, `Cow<str>` | [`fit_text`] | head |
/// | `[String]`, `Vec<String>`, `[&str]`, `Vec<&str>` | the texts joined by a blank line, then [`fit_text`]; counted in texts for head and tail | head |
/// | `[M]`, `Vec<M>` for `M:` [`ChatMessage`] | [`fit_chat`] | tail (latest messages) |
/// | [`RankedChunks`], `[RankedChunk]`, `Vec<RankedChunk>` | [`fit_ranked`] | best score first |
/// | `Option<T>` | `None` is empty | `T`'s |
/// | `&T`, `Box<T>` | `T` | `T`'s |
///
/// Implement it for your own types; the contract is that the returned
/// [`tokens`](FittedLayer::tokens) are what [`text`](FittedLayer::text) costs under
/// `counter`, at most `budget`. The assembler checks the whole prompt with the
/// counter, so a wrong count cannot make a prompt overflow, but it may make
/// assembly fail.
///
/// ```
/// use ctxbudget::{FitError, FittedLayer, LayerContent, LayerPolicy, TokenCounter, fit_text};
///
/// /// A file shown with its path.
/// struct File { path: String, body: String }
///
/// impl LayerContent for File {
///     fn fit<'a>(
///         &'a self,
///         budget: usize,
///         counter: &dyn TokenCounter,
///         policy: &LayerPolicy,
///     ) -> Result<FittedLayer<'a>, FitError> {
///         let header = format!("// {}\n", self.path);
///         let cost = counter.count(&header);
///         if cost > budget {
///             return Ok(FittedLayer::empty().with_kept(0, 1, "files"));
///         }
///         let body = fit_text(&self.body, budget - cost, counter, policy)?;
///         let text = format!("{header}{}", body.text);
///         let tokens = counter.count(&text);
///         if tokens > budget {
///             return Ok(FittedLayer::empty().with_kept(0, 1, "files"));
///         }
///         Ok(FittedLayer::whole(text, tokens).with_kept(body.kept, body.total, body.unit))
///     }
/// }
///
/// let file = File { path: "src/lib.rs".into(), body: "fn main() {}\n".repeat(50) };
/// let fitted = file.fit(20, &ctxbudget::CharEstimate, &LayerPolicy::Head)?;
/// assert!(fitted.text.starts_with("// src/lib.rs\nfn main() {}"));
/// assert!(fitted.tokens <= 20 && fitted.cut());
/// # Ok::<(), FitError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the content of a layer",
    label = "`assemble()` needs every field to implement `ctxbudget::LayerContent`",
    note = "use `String`, `&str`, `Cow<str>`, `Vec<String>`, `RankedChunks`, a chat history \
            `Vec<Message>` or `Option` of one, or implement `ctxbudget::LayerContent` for \
            `{Self}`"
)]
pub trait LayerContent {
    /// Fits the content to `budget` tokens of `counter` as `policy` says.
    ///
    /// # Errors
    ///
    /// [`FitError::NeverCut`] when `policy` is [`LayerPolicy::Never`] and the content
    /// is over `budget`; other variants when the content cannot be fitted at all.
    fn fit<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        policy: &LayerPolicy,
    ) -> Result<FittedLayer<'a>, FitError>;

    /// The policy used when the attribute names none. Default: [`LayerPolicy::Head`].
    fn default_policy(&self) -> LayerPolicy {
        LayerPolicy::Head
    }
}

/// Fits a text to `budget` tokens of `counter` as `policy` says, cutting at the
/// strongest boundary that does not waste the budget ([`trim_with`]) or disclosing
/// at a section boundary ([`disclose_within`]). Head and tail cuts borrow the text;
/// the others allocate.
///
/// # Errors
///
/// [`FitError::NeverCut`] for [`LayerPolicy::Never`] and a text over `budget`;
/// [`FitError::Disclosure`] for a blank recovery action.
///
/// ```
/// use ctxbudget::{CharEstimate, LayerPolicy, fit_text};
///
/// let doc = "# Setup\nRun the installer and wait.\n\n# Usage\nCall it twice, then stop.\n\
///            Then wait for the second run to finish.\n";
/// let out = fit_text(doc, 26, &CharEstimate, &LayerPolicy::disclose("read SETUP.md"))?;
/// assert_eq!(
///     out.text,
///     "# Setup\nRun the installer and wait.\n\n<truncated: showing 3 of 6 lines; full text: read SETUP.md>"
/// );
/// assert_eq!((out.kept, out.total, out.unit, out.tokens), (3, 6, "lines", 24));
/// # Ok::<(), ctxbudget::FitError>(())
/// ```
pub fn fit_text<'a>(
    text: &'a str,
    budget: usize,
    counter: &dyn TokenCounter,
    policy: &LayerPolicy,
) -> Result<FittedLayer<'a>, FitError> {
    let keep = match policy {
        LayerPolicy::Never => {
            return match counter.count_within(text, budget) {
                Some(tokens) => Ok(FittedLayer::whole(text, tokens)),
                None => Err(FitError::never_cut(counter.count(text), budget)),
            };
        }
        LayerPolicy::Disclose { recovery } => {
            return match disclose_within(text, budget, counter, "lines", recovery) {
                Ok(out) => {
                    let (kept, total, tokens) = (out.shown, out.total, out.tokens);
                    let text = if out.truncated {
                        Cow::Owned(out.text())
                    } else {
                        Cow::Borrowed(out.rendered)
                    };
                    Ok(FittedLayer::whole(text, tokens).with_kept(kept, total, "lines"))
                }
                Err(DisclosureError::BudgetTooSmall { .. }) => {
                    let lines = text.lines().count();
                    Ok(FittedLayer::empty().with_kept(0, lines, "lines"))
                }
                Err(err) => Err(err.into()),
            };
        }
        LayerPolicy::Head => Keep::Head,
        LayerPolicy::Tail => Keep::Tail,
        LayerPolicy::HeadAndTail => Keep::HeadAndTail,
    };
    let trimmed = trim_with(text, budget, counter, &TrimOptions::new().keep(keep));
    let kept = trimmed.kept.len() + trimmed.tail.map_or(0, str::len);
    Ok(FittedLayer::whole(trimmed.text(), trimmed.tokens).with_kept(kept, text.len(), "bytes"))
}

/// How [`fit_chat`] writes a message: `role: content`, with `role (name)` for a named
/// message and `tool [call id]` for a tool result, then one line
/// `  -> name(arguments) [call id]` per tool call. Messages are separated by a line
/// break.
///
/// ```
/// use ctxbudget::{Message, ToolCall, render_chat};
///
/// let chat = [
///     Message::user("Weather in Paris?"),
///     Message::assistant("").with_tool_call(ToolCall::new("c1", "weather", r#"{"city":"Paris"}"#)),
///     Message::tool("c1", "18°C, cloudy"),
/// ];
/// assert_eq!(
///     render_chat(&chat),
///     "user: Weather in Paris?\nassistant: \n  -> weather({\"city\":\"Paris\"}) [c1]\ntool [c1]: 18°C, cloudy"
/// );
/// ```
pub fn render_chat<'m, M: ChatMessage + 'm>(messages: impl IntoIterator<Item = &'m M>) -> String {
    let mut out = String::new();
    for message in messages {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(message.role().as_str());
        if let Some(id) = message.tool_call_id() {
            out.push_str(" [");
            out.push_str(id);
            out.push(']');
        } else if let Some(name) = message.name() {
            out.push_str(" (");
            out.push_str(name);
            out.push(')');
        }
        out.push_str(": ");
        out.push_str(message.content());
        for call in message.tool_calls() {
            out.push_str("\n  -> ");
            out.push_str(call.name);
            out.push('(');
            out.push_str(call.arguments);
            out.push_str(") [");
            out.push_str(call.id);
            out.push(']');
        }
    }
    out
}

/// Fits a chat history to `budget` tokens of `counter`, rendered with
/// [`render_chat`]: [`ChatTrimmer`] drops whole messages (never a tool call without
/// its results, never the system messages or the latest user message), the latest
/// kept for [`LayerPolicy::Tail`] and every policy but `Head`, which keeps the
/// earliest. The rendered text is counted and, when over, trimmed again to less.
/// [`LayerPolicy::Never`] keeps every message or fails.
///
/// # Errors
///
/// [`FitError::NeverCut`] for [`LayerPolicy::Never`] and a history over `budget`;
/// [`FitError::Chat`] when the messages that must stay do not fit.
///
/// ```
/// use ctxbudget::{CharEstimate, LayerPolicy, Message, fit_chat};
///
/// let chat: Vec<Message> = (0..20)
///     .map(|i| if i % 2 == 0 { Message::user(format!("question {i}")) } else { Message::assistant(format!("answer {i}")) })
///     .collect();
/// let out = fit_chat(&chat, 30, &CharEstimate, &LayerPolicy::Tail)?;
/// assert!(out.tokens <= 30 && out.cut());
/// assert!(out.text.ends_with("assistant: answer 19"));
/// assert_eq!(out.unit, "messages");
/// # Ok::<(), ctxbudget::FitError>(())
/// ```
pub fn fit_chat<'a, M: ChatMessage>(
    history: &'a [M],
    budget: usize,
    counter: &dyn TokenCounter,
    policy: &LayerPolicy,
) -> Result<FittedLayer<'a>, FitError> {
    let total = history.len();
    if matches!(policy, LayerPolicy::Never) {
        let text = render_chat(history);
        return match counter.count_within(&text, budget) {
            Some(tokens) => {
                Ok(FittedLayer::whole(text, tokens).with_kept(total, total, "messages"))
            }
            None => Err(FitError::never_cut(counter.count(&text), budget)),
        };
    }
    let strategy = if matches!(policy, LayerPolicy::Head) {
        ChatStrategy::KeepFirst
    } else {
        ChatStrategy::KeepLast
    };
    // `role: ` and the line break cost about two tokens a message beyond the role and
    // the content; the rendered text is counted exactly below.
    let format = ChatFormat::content_only().with_tokens_per_message(2);
    let mut limit = budget;
    loop {
        let trimmed = ChatTrimmer::new(counter, limit)
            .with_format(format)
            .with_strategy(strategy)
            .trim(history)?;
        let text = render_chat(trimmed.messages());
        let kept = trimmed.elements().len();
        if let Some(tokens) = counter.count_within(&text, budget) {
            return Ok(FittedLayer::whole(text, tokens).with_kept(kept, total, "messages"));
        }
        let over = counter.count(&text).saturating_sub(budget).max(1);
        if limit == 0 {
            // Nothing can be dropped any more: what must stay is over the budget.
            let needed = counter.count(&text);
            return Err(ChatTrimError::OverBudget {
                needed,
                budget,
                over: needed.saturating_sub(budget),
            }
            .into());
        }
        limit = limit.saturating_sub(over);
    }
}

/// Fits relevance-ranked chunks to `budget` tokens of `counter` with [`select`]: the
/// best-scored chunks that fit, highest first, and the next one cut at a boundary to
/// fill the rest, joined by blank lines. Head, tail and the other cutting policies
/// all select by score; [`LayerPolicy::Never`] requires every chunk, whole.
///
/// The report counts whole chunks: `kept` of `total` `"whole chunks"` (a cut chunk
/// is not counted as kept).
///
/// # Errors
///
/// [`FitError::NeverCut`] for [`LayerPolicy::Never`] when the chunks do not all fit.
///
/// ```
/// use ctxbudget::{CharEstimate, LayerPolicy, RankedChunks, fit_ranked};
///
/// let chunks: RankedChunks = [
///     ("Treaties may reduce withholding.", 0.65),
///     ("Form 8843 is filed by all nonresident aliens.", 0.91),
/// ]
/// .into_iter()
/// .collect();
/// let out = fit_ranked(chunks.as_slice(), 12, &CharEstimate, &LayerPolicy::Head)?;
/// assert_eq!(out.text, "Form 8843 is filed by all nonresident aliens.");
/// assert_eq!((out.kept, out.total), (1, 2));
/// # Ok::<(), ctxbudget::FitError>(())
/// ```
pub fn fit_ranked<'a, R: RankedText>(
    chunks: &'a [R],
    budget: usize,
    counter: &dyn TokenCounter,
    policy: &LayerPolicy,
) -> Result<FittedLayer<'a>, FitError> {
    let options = SelectOptions::new();
    let selection = select(chunks, budget, counter, &options);
    let stats = selection.stats();
    if matches!(policy, LayerPolicy::Never) && (stats.dropped > 0 || stats.cut > 0) {
        let all = select(chunks, usize::MAX, counter, &options);
        return Err(FitError::never_cut(all.tokens.max(budget + 1), budget));
    }
    Ok(
        FittedLayer::whole(selection.text(), selection.tokens).with_kept(
            stats.used.saturating_sub(stats.cut),
            stats.given,
            "whole chunks",
        ),
    )
}

impl LayerContent for RankedChunks {
    fn fit<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        policy: &LayerPolicy,
    ) -> Result<FittedLayer<'a>, FitError> {
        fit_ranked(self.as_slice(), budget, counter, policy)
    }
}

/// Fits texts joined by a blank line; head and tail cuts count whole texts kept.
fn fit_texts<'a, S: AsRef<str>>(
    texts: &[S],
    budget: usize,
    counter: &dyn TokenCounter,
    policy: &LayerPolicy,
) -> Result<FittedLayer<'a>, FitError> {
    const JOIN: &str = "\n\n";
    let joined = texts
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join(JOIN);
    let fitted = fit_text(&joined, budget, counter, policy)?.into_owned();
    let whole_texts = |kept_bytes: usize, from_end: bool| {
        let mut sum = 0usize;
        let mut n = 0;
        let lens = texts.iter().map(|t| t.as_ref().len());
        let mut count = |len: usize| {
            sum += len + if n == 0 { 0 } else { JOIN.len() };
            if sum <= kept_bytes {
                n += 1;
                true
            } else {
                false
            }
        };
        if from_end {
            lens.rev().take_while(|&len| count(len)).count()
        } else {
            lens.take_while(|&len| count(len)).count()
        }
    };
    Ok(match policy {
        LayerPolicy::Head | LayerPolicy::Tail if fitted.cut() => {
            let kept = whole_texts(fitted.kept, matches!(policy, LayerPolicy::Tail));
            fitted.with_kept(kept, texts.len(), "whole texts")
        }
        _ if !fitted.cut() => fitted.with_kept(texts.len(), texts.len(), "texts"),
        _ => fitted,
    })
}

/// Implements [`LayerContent`] for each type by handing the content, as a slice, to
/// one of the `fit_*` functions, with the given default policy.
macro_rules! layer_content {
    ($fit:ident, $policy:expr; $([$($generics:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($generics)*> LayerContent for $ty {
            fn fit<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                policy: &LayerPolicy,
            ) -> Result<FittedLayer<'a>, FitError> {
                $fit(&self[..], budget, counter, policy)
            }

            fn default_policy(&self) -> LayerPolicy {
                $policy
            }
        }
    )*};
}

layer_content!(fit_text, LayerPolicy::Head; [] str, [] String, [] Cow<'_, str>);
layer_content!(
    fit_texts, LayerPolicy::Head;
    [] [String], [] Vec<String>, [] [&str], [] Vec<&str>,
);
layer_content!(fit_chat, LayerPolicy::Tail; [M: ChatMessage] [M], [M: ChatMessage] Vec<M>);
layer_content!(fit_ranked, LayerPolicy::Head; [] [RankedChunk], [] Vec<RankedChunk>);

impl<T: LayerContent> LayerContent for Option<T> {
    fn fit<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        policy: &LayerPolicy,
    ) -> Result<FittedLayer<'a>, FitError> {
        match self {
            Some(content) => content.fit(budget, counter, policy),
            None => Ok(FittedLayer::empty()),
        }
    }

    fn default_policy(&self) -> LayerPolicy {
        self.as_ref()
            .map_or(LayerPolicy::Head, LayerContent::default_policy)
    }
}

macro_rules! forward_content {
    ($($pointer:ty),* $(,)?) => {$(
        impl<T: LayerContent + ?Sized> LayerContent for $pointer {
            fn fit<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                policy: &LayerPolicy,
            ) -> Result<FittedLayer<'a>, FitError> {
                (**self).fit(budget, counter, policy)
            }

            fn default_policy(&self) -> LayerPolicy {
                (**self).default_policy()
            }
        }
    )*};
}

forward_content!(&T, Box<T>, std::sync::Arc<T>);

/// One layer of an [`Assembled`] prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssembledLayer<'a> {
    /// The layer's name.
    pub name: &'static str,
    /// Its reservation.
    pub reservation: usize,
    /// What it was allowed to use: its reservation, more for a growing layer, less
    /// when the separators or a join forced a cut.
    pub granted: usize,
    /// How it was cut.
    pub policy: LayerPolicy,
    /// Its growth priority, when it grows.
    pub grow: Option<u32>,
    /// The fitted content.
    pub fitted: FittedLayer<'a>,
}

impl AssembledLayer<'_> {
    /// The layer's text in the prompt.
    pub fn text(&self) -> &str {
        &self.fitted.text
    }

    /// What the layer's text costs.
    pub fn tokens(&self) -> usize {
        self.fitted.tokens
    }

    /// Whether some of its content was left out.
    pub fn cut(&self) -> bool {
        self.fitted.cut()
    }
}

/// A prompt assembled from a context's layers: the fitted layers, the prompt, its
/// exact token count and the usage tracker `U` with every layer's spend recorded.
///
/// For a derived context `Name`, `U` is the generated `NameUsage`. A growing layer
/// may have spent more than its reservation: the telemetry then shows `spent` over
/// `budget` for it. The usage records what each layer's text costs; the separators
/// belong to no layer, so they are in [`tokens`](Self::tokens) (the exact count of
/// the prompt) but not in the usage's `total_spent`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Assembled<'a, U> {
    /// Every layer that has content (the output reservation has none), in
    /// declaration order.
    pub layers: Vec<AssembledLayer<'a>>,
    /// The layers' texts in declaration order, joined by the separator; empty layers
    /// and their separators are left out.
    pub prompt: String,
    /// The exact token count of `prompt`, never more than `limit`.
    pub tokens: usize,
    /// `total - output`: what the prompt may use.
    pub limit: usize,
    /// What one separator costs.
    pub separator_tokens: usize,
    /// The usage tracker with each layer's spend.
    pub usage: U,
}

impl<'a, U> Assembled<'a, U> {
    /// The layer called `name`, if there is one.
    pub fn layer(&self, name: &str) -> Option<&AssembledLayer<'a>> {
        self.layers.iter().find(|l| l.name == name)
    }

    /// Tokens of the limit the prompt left unused.
    pub fn unused(&self) -> usize {
        self.limit.saturating_sub(self.tokens)
    }

    /// The same result with the usage tracker converted by `f`.
    pub fn map_usage<V>(self, f: impl FnOnce(U) -> V) -> Assembled<'a, V> {
        Assembled {
            layers: self.layers,
            prompt: self.prompt,
            tokens: self.tokens,
            limit: self.limit,
            separator_tokens: self.separator_tokens,
            usage: f(self.usage),
        }
    }
}

/// A layer's attribute settings, for generated code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LayerPlan {
    pub(crate) policy: Option<LayerPolicy>,
    pub(crate) grow: Option<u32>,
}

impl LayerPlan {
    /// `policy` (`None`: the content's default) and `grow` (`None`: does not grow).
    pub const fn new(policy: Option<LayerPolicy>, grow: Option<u32>) -> Self {
        LayerPlan { policy, grow }
    }
}

/// Forwards to a possibly unsized counter, so that it can be used as `&dyn`.
struct Dyn<'c, C: ?Sized>(&'c C);

impl<C: TokenCounter + ?Sized> TokenCounter for Dyn<'_, C> {
    fn count(&self, text: &str) -> usize {
        self.0.count(text)
    }
    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        self.0.next_split(text, from)
    }
    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        self.0.prev_split(text, before)
    }
    fn count_within(&self, text: &str, limit: usize) -> Option<usize> {
        self.0.count_within(text, limit)
    }
}

/// How many times a prompt over the limit after a join is fitted again.
const ROUNDS: usize = 16;

/// Assembles the content layers `contents` (the first `contents.len()` rows of
/// `L::LAYERS`; the rows after them, the output reservation, get nothing) with the
/// settings `plans`, and records the spend in a fresh `TypedUsage<L>`.
pub(crate) fn assemble<'a, L: ContextLayers, C: TokenCounter + ?Sized>(
    contents: &[&'a dyn LayerContent],
    plans: &[LayerPlan],
    separator: &str,
    counter: &C,
) -> Result<Assembled<'a, TypedUsage<L>>, AssembleError> {
    let counter = Dyn(counter);
    let assembled = assemble_dyn(L::TOTAL, L::LAYERS, contents, plans, separator, &counter)?;
    let mut usage = TypedUsage::<L>::new();
    for (index, layer) in assembled.layers.iter().enumerate() {
        usage.spend_index_up_to(
            index,
            layer.fitted.tokens,
            layer.granted.max(layer.reservation),
        )?;
    }
    Ok(assembled.map_usage(|()| usage))
}

struct Slot<'a> {
    spec: LayerSpec,
    content: &'a dyn LayerContent,
    policy: LayerPolicy,
    grow: Option<u32>,
    /// At most this much, once a join went over the limit.
    cap: Option<usize>,
}

#[allow(clippy::too_many_lines)] // the four steps of the module docs, in order
fn assemble_dyn<'a>(
    total: usize,
    table: &[LayerSpec],
    contents: &[&'a dyn LayerContent],
    plans: &[LayerPlan],
    separator: &str,
    counter: &dyn TokenCounter,
) -> Result<Assembled<'a, ()>, AssembleError> {
    let n = contents.len().min(table.len());
    let output = table[n..]
        .iter()
        .fold(0usize, |sum, l| sum.saturating_add(l.tokens()));
    let limit = total.saturating_sub(output);
    let separator_tokens = counter.count(separator);
    let mut slots: Vec<Slot<'a>> = (0..n)
        .map(|i| {
            let plan = plans.get(i).cloned().unwrap_or_default();
            Slot {
                spec: table[i],
                content: contents[i],
                policy: plan.policy.unwrap_or_else(|| contents[i].default_policy()),
                grow: plan.grow,
                cap: None,
            }
        })
        .collect();
    let mut growing: Vec<usize> = (0..n).filter(|&i| slots[i].grow.is_some()).collect();
    growing.sort_by_key(|&i| (std::cmp::Reverse(slots[i].grow), i));

    let fit = |slot: &Slot<'a>, budget: usize| -> Result<FittedLayer<'a>, AssembleError> {
        let budget = slot.cap.map_or(budget, |cap| cap.min(budget));
        let name = slot.spec.name();
        let fitted =
            slot.content
                .fit(budget, counter, &slot.policy)
                .map_err(|source| match source {
                    FitError::NeverCut { tokens, over, .. } => AssembleError::LayerOverBudget {
                        layer: name.to_owned(),
                        tokens,
                        budget,
                        reservation: slot.spec.tokens(),
                        over,
                    },
                    source => AssembleError::Layer {
                        layer: name.to_owned(),
                        budget,
                        source,
                    },
                })?;
        if fitted.tokens > budget {
            return Err(AssembleError::Layer {
                layer: name.to_owned(),
                budget,
                source: FitError::custom(format_args!(
                    "the content reported {} tokens for a budget of {budget}",
                    fitted.tokens
                )),
            });
        }
        Ok(fitted)
    };

    let mut smallest_over: Option<usize> = None;
    for _ in 0..ROUNDS {
        let mut fitted: Vec<Option<(FittedLayer<'a>, usize)>> = (0..n).map(|_| None).collect();
        // 1. Layers that do not grow, in declaration order, to their reservations.
        let mut used = 0usize;
        let mut non_empty = 0usize;
        for (i, slot) in slots.iter().enumerate() {
            if slot.grow.is_some() {
                continue;
            }
            let budget = slot
                .cap
                .map_or(slot.spec.tokens(), |c| c.min(slot.spec.tokens()));
            let layer = fit(slot, budget)?;
            used = used.saturating_add(layer.tokens);
            non_empty += usize::from(!layer.text.is_empty());
            fitted[i] = Some((layer, budget));
        }
        // 2. The separators, assuming every growing layer has something to show.
        let joins = (non_empty + growing.len()).saturating_sub(1);
        let separators = separator_tokens.saturating_mul(joins);
        let mut pool = limit.saturating_sub(used).saturating_sub(separators);
        // 3. Growing layers, highest priority first.
        let mut kept_for_later: usize = growing
            .iter()
            .fold(0usize, |sum, &i| sum.saturating_add(slots[i].spec.tokens()));
        for &i in &growing {
            let slot = &slots[i];
            kept_for_later = kept_for_later.saturating_sub(slot.spec.tokens());
            let grant = pool.saturating_sub(kept_for_later);
            let grant = slot.cap.map_or(grant, |c| c.min(grant));
            let layer = fit(slot, grant)?;
            pool = pool.saturating_sub(layer.tokens);
            fitted[i] = Some((layer, grant));
        }
        // 4. Join, count, check.
        let fitted: Vec<(FittedLayer<'a>, usize)> = fitted.into_iter().flatten().collect();
        let mut prompt = String::with_capacity(
            fitted
                .iter()
                .map(|(l, _)| l.text.len() + separator.len())
                .sum(),
        );
        for (layer, _) in &fitted {
            if layer.text.is_empty() {
                continue;
            }
            if !prompt.is_empty() {
                prompt.push_str(separator);
            }
            prompt.push_str(&layer.text);
        }
        if let Some(tokens) = counter.count_within(&prompt, limit) {
            let layers = slots
                .iter()
                .zip(fitted)
                .map(|(slot, (fitted, granted))| AssembledLayer {
                    name: slot.spec.name(),
                    reservation: slot.spec.tokens(),
                    granted,
                    policy: slot.policy.clone(),
                    grow: slot.grow,
                    fitted,
                })
                .collect();
            return Ok(Assembled {
                layers,
                prompt,
                tokens,
                limit,
                separator_tokens,
                usage: (),
            });
        }
        let tokens = counter.count(&prompt);
        smallest_over = Some(smallest_over.map_or(tokens, |s| s.min(tokens)));
        // Cap the cuttable layers by the excess: growing ones (lowest priority first),
        // then the others from the last declared.
        let mut over = tokens.saturating_sub(limit);
        let order = growing
            .iter()
            .rev()
            .copied()
            .chain((0..n).rev().filter(|&i| slots[i].grow.is_none()))
            .collect::<Vec<usize>>();
        for i in order {
            if over == 0 {
                break;
            }
            let slot = &mut slots[i];
            let has = fitted[i].0.tokens;
            if !slot.policy.may_cut() || has == 0 {
                continue;
            }
            let take = over.min(has);
            slot.cap = Some(has - take);
            over -= take;
        }
        if over > 0 {
            break;
        }
    }
    let tokens = smallest_over.unwrap_or(limit);
    Err(AssembleError::PromptOverBudget {
        tokens,
        limit,
        over: tokens.saturating_sub(limit),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CharEstimate, Message};

    #[test]
    fn policies_fit_text() {
        let text = "one two three four five six seven eight nine ten";
        let words = |t: &str| t.split_whitespace().count();
        let head = fit_text(text, 3, &words, &LayerPolicy::Head).unwrap();
        assert_eq!(head.text, "one two three");
        assert!(head.cut());
        let tail = fit_text(text, 2, &words, &LayerPolicy::Tail).unwrap();
        assert_eq!(tail.text, "nine ten");
        let never = fit_text(text, 3, &words, &LayerPolicy::Never).unwrap_err();
        assert_eq!(never, FitError::never_cut(10, 3));
        let whole = fit_text(text, 10, &words, &LayerPolicy::Never).unwrap();
        assert!(!whole.cut() && whole.tokens == 10);
    }

    #[test]
    fn disclose_too_small_is_empty() {
        let text = "a\nb\nc\nd\n";
        let out = fit_text(text, 1, &CharEstimate, &LayerPolicy::disclose("read it")).unwrap();
        assert_eq!(out.text, "");
        assert_eq!((out.kept, out.total), (0, 4));
        let blank = fit_text(text, 1, &CharEstimate, &LayerPolicy::disclose(" ")).unwrap_err();
        assert_eq!(blank, FitError::Disclosure(DisclosureError::BlankRecovery));
    }

    #[test]
    fn texts_count_whole_texts() {
        let texts = vec!["aaaa".to_owned(), "bbbb".to_owned(), "cccc".to_owned()];
        let out = texts.fit(3, &CharEstimate, &LayerPolicy::Head).unwrap();
        assert_eq!(out.text, "aaaa\n\nbbbb");
        assert_eq!((out.kept, out.total, out.unit), (2, 3, "whole texts"));
        let out = texts.fit(3, &CharEstimate, &LayerPolicy::Tail).unwrap();
        assert_eq!(out.text, "bbbb\n\ncccc");
        assert_eq!(out.kept, 2);
        let out = texts.fit(100, &CharEstimate, &LayerPolicy::Tail).unwrap();
        assert_eq!((out.kept, out.total, out.unit), (3, 3, "texts"));
    }

    #[test]
    fn chat_never_and_option() {
        let chat = vec![Message::user("hi there"), Message::assistant("hello")];
        let err = chat.fit(2, &CharEstimate, &LayerPolicy::Never).unwrap_err();
        assert!(matches!(err, FitError::NeverCut { .. }));
        let none: Option<String> = None;
        assert_eq!(
            none.fit(0, &CharEstimate, &LayerPolicy::Never)
                .unwrap()
                .text,
            ""
        );
        assert_eq!(chat.default_policy(), LayerPolicy::Tail);
    }
}
