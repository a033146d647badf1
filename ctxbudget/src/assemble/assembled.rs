//! The result of assembling a context: the prompt and its report ([`Assembled`]),
//! each layer's part of it ([`AssembledLayer`]), and the prompt as messages
//! ([`PromptMessages`]).

use super::options::LayerRole;
use super::policy::{FittedLayer, LayerPolicy};
use crate::chat::Message;
use crate::chat::edit::EditReport;

/// One layer of an [`Assembled`] prompt: what it reserved, what it was granted, and
/// what of its content was kept.
///
/// - [`reservation`](Self::reservation): what the layer reserves in the window the
///   prompt was assembled for (a share of the window resolved at it).
/// - [`granted`](Self::granted): the budget its content was fitted to.
/// - [`tokens()`](Self::tokens): what its content costs, never more than `granted`.
/// - `fitted.kept` of `fitted.total` units (`fitted.unit`: messages, whole chunks,
///   whole texts, lines or bytes) made it into the prompt; the other
///   [`dropped()`](Self::dropped) did not. [`cut()`](Self::cut) says whether any
///   was dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssembledLayer<'a> {
    /// The layer's name.
    pub name: &'a str,
    /// Its reservation in the window assembled for: `#[budget(tokens = N)]`, or its
    /// `share` of the window.
    pub reservation: usize,
    /// The budget its content was fitted to: its reservation, more for a growing
    /// layer, less when the separators or a join forced a cut. A layer that came
    /// out whole may have used less and passed the rest on to growing layers, so
    /// the grants of all layers can add up to more than the limit.
    pub granted: usize,
    /// How it was cut.
    pub policy: LayerPolicy,
    /// Its growth priority, when it grows.
    pub grow: Option<u32>,
    /// Where it went in a prompt assembled as messages; `None` in a string prompt.
    pub role: Option<LayerRole>,
    /// The fitted content: its text, tokens, and the units kept of the total. For a
    /// chat history sent as messages, the text is the kept messages rendered (it is
    /// not sent) and the tokens are what they cost as messages.
    pub fitted: FittedLayer<'a>,
    /// For a chat history of a messages prompt assembled with
    /// [`AssembleOptions::with_edits`](super::AssembleOptions::with_edits): what
    /// the edits did before messages were dropped, each edit named by its index in
    /// the history, and their [`totals`](EditReport::totals). Its
    /// [`tokens_after`](EditReport::tokens_after) is what the whole edited history
    /// costs; the layer's [`tokens()`](Self::tokens) is what its kept messages
    /// cost. `None` without edits.
    pub edits: Option<EditReport>,
}

impl AssembledLayer<'_> {
    /// The layer's text in the prompt.
    pub fn text(&self) -> &str {
        &self.fitted.text
    }

    /// What the layer's content costs in the prompt.
    pub fn tokens(&self) -> usize {
        self.fitted.tokens
    }

    /// Whether some of its content was left out (`fitted.kept < fitted.total`).
    pub fn cut(&self) -> bool {
        self.fitted.cut()
    }

    /// How many units of its content were left out: `fitted.total - fitted.kept`.
    pub fn dropped(&self) -> usize {
        self.fitted.total.saturating_sub(self.fitted.kept)
    }
}

/// A prompt assembled from a context's layers, with its report: the fitted layers,
/// the prompt `P` (a `String`, or [`PromptMessages`]), its exact token count, the
/// window it was assembled for and the usage tracker `U` with every layer's spend.
///
/// # The numbers add up
///
/// - [`window()`](Self::window) `=` [`limit`](Self::limit) `+`
///   [`output`](Self::output): the output reservation is never given to the prompt.
/// - [`tokens`](Self::tokens) is the exact count of the prompt, the number the engine
///   checked against the limit: of the joined text for a string prompt, of the
///   messages as the chat format counts them for a messages prompt.
/// - `tokens =` [`layer_tokens()`](Self::layer_tokens) `+`
///   [`overhead()`](Self::overhead), exactly: the overhead is what the prompt costs
///   beyond its layers' own counts. It is made of the separators
///   (`separators × separator_tokens`), the [`framing`](Self::framing) of a messages
///   prompt (the system and user messages' per-message tokens and the reply
///   priming), and the [`join_difference()`](Self::join_difference): what counting
///   the joined text whole gives beyond counting its parts. Byte-pair encodings merge
///   across joins (a full stop and the blank line after it are one `o200k_base`
///   token), so the join difference is usually zero or a few tokens below; the
///   overhead can then be negative.
/// - [`unused()`](Self::unused) `= limit - tokens`: tokens of the limit the prompt
///   does not use. The output reservation is not in it.
///
/// The [`Display`](std::fmt::Display) impl prints this as a table, and with the
/// `serde` feature [`to_json`](Self::to_json) writes it as one flat JSON object.
///
/// The usage `U` records what each layer's content costs, so its `total_spent()` is
/// `layer_tokens()`, without the overhead. For a derived context `Name` assembled
/// with `assemble()`, `U` is the generated `NameUsage`; assembled for another window
/// or as messages, it is a [`ContextUsage`](crate::budget::ContextUsage) of the
/// budget used. A growing layer may have spent more than its reservation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Assembled<'a, U, P = String> {
    /// Every layer that has content (the output reservation has none), in
    /// declaration order.
    pub layers: Vec<AssembledLayer<'a>>,
    /// The prompt. As a string: the layers' texts in declaration order, joined by
    /// the separator, empty layers and their separators left out.
    pub prompt: P,
    /// The exact token count of `prompt`, never more than `limit`.
    pub tokens: usize,
    /// What the prompt may use: the window less the output reservation.
    pub limit: usize,
    /// The output reservation: tokens of the window kept for the reply.
    pub output: usize,
    /// How many separators the prompt has.
    pub separators: usize,
    /// What one separator costs.
    pub separator_tokens: usize,
    /// For a messages prompt, what the messages cost beyond their text: the system
    /// and final user messages' per-message tokens and the reply priming (a chat
    /// history's per-message tokens are in its layer's tokens). 0 for a string
    /// prompt.
    pub framing: usize,
    /// The usage tracker with each layer's spend.
    pub usage: U,
}

impl<'a, U, P> Assembled<'a, U, P> {
    /// The layer called `name`, if there is one.
    pub fn layer(&self, name: &str) -> Option<&AssembledLayer<'a>> {
        self.layers.iter().find(|l| l.name == name)
    }

    /// The window the prompt was assembled for: `limit + output`.
    pub fn window(&self) -> usize {
        self.limit.saturating_add(self.output)
    }

    /// Tokens of the limit the prompt left unused: `limit - tokens`. The output
    /// reservation is not counted; nor are the tokens a layer was granted but did
    /// not use, unless no other layer used them either.
    pub fn unused(&self) -> usize {
        self.limit.saturating_sub(self.tokens)
    }

    /// What the layers' contents cost, each counted alone: the sum of their
    /// [`tokens()`](AssembledLayer::tokens).
    pub fn layer_tokens(&self) -> usize {
        self.layers
            .iter()
            .fold(0usize, |sum, l| sum.saturating_add(l.tokens()))
    }

    /// What the prompt costs beyond its layers: `tokens - layer_tokens()`, which is
    /// `separators × separator_tokens + framing + join_difference()`. Negative when
    /// byte-pair merges across the joins save more than the separators cost.
    pub fn overhead(&self) -> isize {
        signed(self.tokens).saturating_sub(signed(self.layer_tokens()))
    }

    /// What counting the joined prompt whole gives beyond counting its parts (the
    /// layers, the separators and the framing) one by one: `overhead() -
    /// separators × separator_tokens - framing`. Zero for a counter whose counts add
    /// up across joins; for byte-pair encodings, usually zero or a few tokens below.
    pub fn join_difference(&self) -> isize {
        let parts = self
            .separators
            .saturating_mul(self.separator_tokens)
            .saturating_add(self.framing);
        self.overhead().saturating_sub(signed(parts))
    }

    /// The same result with the usage tracker converted by `f`.
    pub fn map_usage<V>(self, f: impl FnOnce(U) -> V) -> Assembled<'a, V, P> {
        Assembled {
            layers: self.layers,
            prompt: self.prompt,
            tokens: self.tokens,
            limit: self.limit,
            output: self.output,
            separators: self.separators,
            separator_tokens: self.separator_tokens,
            framing: self.framing,
            usage: f(self.usage),
        }
    }
}

/// `n` as a signed count; counts past `isize::MAX` are not prompts anyone sends.
fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

/// A prompt assembled as messages, in a neutral form to convert to a provider's
/// request: the system text, then the conversation.
///
/// - [`system`](Self::system): the texts of the layers placed in the system message
///   ([`LayerRole::System`]), joined by the separator; empty when there are none.
/// - [`messages`](Self::messages): the kept messages of the chat-history layers, in
///   order, then the final user message (the texts of the [`LayerRole::User`] layers
///   joined by the separator), left out when those layers are empty.
/// - [`sources`](Self::sources): where each message came from.
///
/// The fit was checked on these messages as the chat format counts them: the system
/// text as one system message, each history message with its per-message tokens, the
/// final user message, and the reply priming. [`to_chat`](Self::to_chat) gives that
/// list of messages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PromptMessages {
    /// The system layers' texts, joined by the separator.
    pub system: String,
    /// The history messages, then the final user message.
    pub messages: Vec<Message>,
    /// Where each of `messages` came from, one entry each.
    pub sources: Vec<MessageSource>,
}

impl PromptMessages {
    /// The messages as an OpenAI-style chat takes them: the system text as a leading
    /// system message (when there is one), then [`messages`](Self::messages).
    pub fn to_chat(&self) -> Vec<Message> {
        let system = (!self.system.is_empty()).then(|| Message::system(self.system.clone()));
        system
            .into_iter()
            .chain(self.messages.iter().cloned())
            .collect()
    }

    /// The final user message, when the user layers have text.
    pub fn user(&self) -> Option<&Message> {
        self.messages
            .iter()
            .zip(&self.sources)
            .next_back()
            .filter(|(_, source)| source.index.is_none())
            .map(|(message, _)| message)
    }
}

/// Where a message of a [`PromptMessages`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MessageSource {
    /// The position of its layer in [`Assembled::layers`]; for the final user
    /// message, the last user layer.
    pub layer: usize,
    /// Its position in that layer's chat history; `None` for the final user message,
    /// which the user layers' texts make.
    pub index: Option<usize>,
}
