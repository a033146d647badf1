//! The result of assembling a context: the prompt ([`Assembled`]) and each layer's
//! part of it ([`AssembledLayer`]).

use super::policy::{FittedLayer, LayerPolicy};

/// One layer of an [`Assembled`] prompt: what it reserved, what it was granted, and
/// what of its content was kept.
///
/// - [`reservation`](Self::reservation): the layer's `#[budget(tokens = N)]`.
/// - [`granted`](Self::granted): the budget its content was fitted to.
/// - [`tokens()`](Self::tokens): what its text costs, never more than `granted`.
/// - `fitted.kept` of `fitted.total` units (`fitted.unit`: messages, whole chunks,
///   whole texts, lines or bytes) made it into the prompt; the rest,
///   `total - kept`, was dropped. [`cut()`](Self::cut) says whether anything was.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssembledLayer<'a> {
    /// The layer's name.
    pub name: &'static str,
    /// Its reservation: the tokens set aside for it, `#[budget(tokens = N)]`.
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
    /// The fitted content: its text, tokens, and the units kept of the total.
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

    /// Whether some of its content was left out (`fitted.kept < fitted.total`).
    pub fn cut(&self) -> bool {
        self.fitted.cut()
    }
}

/// A prompt assembled from a context's layers: the fitted layers, the prompt, its
/// exact token count and the usage tracker `U` with every layer's spend recorded.
///
/// - [`limit`](Self::limit): `total - output`, what the prompt may use.
/// - [`tokens`](Self::tokens): the exact count of the prompt, separators included.
/// - [`unused()`](Self::unused): `limit - tokens`, the tokens of the limit the prompt
///   does not use (the output reservation is not in it). See the [module
///   docs](super#when-tokens-are-left-unused) for when a cut layer can leave tokens
///   unused: a layer not marked `grow` never gets more than its reservation.
/// - The usage's `remaining()`: `total` less what the layers spent, so it includes
///   the output reservation and the separators.
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

    /// Tokens of the limit the prompt left unused: `limit - tokens`. The output
    /// reservation is not counted; nor are the tokens a layer was granted but did
    /// not use, unless no other layer used them either.
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
