//! Budgets known at compile time: the [`ContextLayers`] trait that
//! [`#[derive(ContextLayers)]`](crate::ContextLayers) and [`budget!`](macro@crate::budget)
//! implement, its layer table ([`LayerSpec`]) and the typed tracker
//! [`TypedUsage`], and [`UnknownLayer`], the error of parsing a layer enum from a
//! name.

use super::context::{ContextBudget, ContextUsage};
use super::error::BudgetError;
use super::reservation::{Reservation, Share};
use std::fmt;
use std::hash::{Hash, Hasher};

/// One row of a compile-time layer table: a layer's name, reservation and whether the
/// generated builder requires it.
///
/// A layer declared with `#[budget(share = F)]` reserves a [`Share`] of the window:
/// its row holds the share and, as [`tokens`](Self::tokens), the share resolved at
/// the declared total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LayerSpec {
    name: &'static str,
    tokens: usize,
    required: bool,
    share: Option<Share>,
}

impl LayerSpec {
    /// A row for the layer `name` reserving `tokens` tokens.
    pub const fn new(name: &'static str, tokens: usize, required: bool) -> Self {
        LayerSpec {
            name,
            tokens,
            required,
            share: None,
        }
    }

    /// The same row reserving `share` of the window; `tokens` stays what the share
    /// is at the declared total.
    #[must_use]
    pub const fn with_share(mut self, share: Share) -> Self {
        self.share = Some(share);
        self
    }

    /// The share of the window the layer reserves, if it reserves one.
    pub const fn share(&self) -> Option<Share> {
        self.share
    }

    /// What the layer reserves: its share of the window, or its fixed tokens.
    pub const fn reservation(&self) -> Reservation {
        match self.share {
            Some(share) => Reservation::Share(share),
            None => Reservation::Tokens(self.tokens),
        }
    }

    /// The layer's name, as in telemetry and in the runtime [`ContextBudget`].
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The layer's reservation in tokens, at the declared total.
    pub const fn tokens(&self) -> usize {
        self.tokens
    }

    /// Whether the generated builder refuses to build without this layer.
    pub const fn required(&self) -> bool {
        self.required
    }
}

/// A budget whose layers and numbers are known at compile time.
///
/// Implemented by [`#[derive(ContextLayers)]`](derive@crate::ContextLayers) for a
/// context struct and by [`budget!`](macro@crate::budget) for a marker type; both check in
/// the compiler that the reservations fit the total. Implementing it by hand is
/// possible but then the constants are yours to keep consistent: `LAYERS` in the
/// order of [`index`](Self::index), `RESERVED` their sum, `RESERVED <= TOTAL`,
/// `AVAILABLE == TOTAL - RESERVED`, and `Spent` an array with one slot per layer.
///
/// ```
/// use ctxbudget::ContextLayers;
///
/// ctxbudget::budget! {
///     /// The chat window.
///     pub ChatBudget(total = 8192) { system: 512, history: 4096, user: 1024, output: 1024 }
/// }
///
/// assert_eq!(ChatBudget::TOTAL, 8192);
/// assert_eq!(ChatBudget::RESERVED, 6656);
/// assert_eq!(ChatBudget::AVAILABLE, 1536);
/// assert_eq!(ChatBudget::LAYERS[1].name(), "history");
/// assert_eq!(ChatBudget::context_budget().layer_budget("history")?, 4096);
/// # Ok::<(), ctxbudget::BudgetError>(())
/// ```
pub trait ContextLayers {
    /// The generated layer enum, one variant per layer.
    type Layer: Copy + Eq + fmt::Debug + 'static;
    /// Per-layer spend storage: `[usize; N]` for `N` layers.
    type Spent: AsRef<[usize]> + AsMut<[usize]> + Copy + Eq + Hash + fmt::Debug;

    /// The total context window in tokens.
    const TOTAL: usize;
    /// The sum of all layer reservations.
    const RESERVED: usize;
    /// The unreserved tokens: `TOTAL - RESERVED`.
    const AVAILABLE: usize;
    /// The layer table, in declaration order.
    const LAYERS: &'static [LayerSpec];
    /// Spend storage with every layer at zero.
    const NOTHING_SPENT: Self::Spent;

    /// The position of `layer` in [`LAYERS`](Self::LAYERS).
    fn index(layer: Self::Layer) -> usize;

    /// The same budget as a runtime [`ContextBudget`], for code that looks layers up
    /// by name.
    fn context_budget() -> ContextBudget;
}

/// Tokens spent per layer of a compile-time budget `C`, indexed by `C`'s layer enum.
///
/// [`spend`](Self::spend) does no string lookup and no hashing: a layer is an index
/// into a fixed-size array. It refuses a layer going over its reservation and the
/// total window being exceeded, and records nothing when it refuses; an unknown layer
/// cannot be named at all. The generated `{Name}Usage` trackers wrap one of these and
/// dereference to it.
///
/// ```
/// ctxbudget::budget! {
///     /// The chat window.
///     pub ChatBudget(total = 8192) { system: 512, history: 4096, user: 1024, output: 1024 }
/// }
///
/// let mut usage = ChatBudgetUsage::new();
/// usage.spend(ChatBudgetLayer::History, 3000)?;
/// assert_eq!(usage.history_spent(), 3000);
/// assert_eq!(usage.remaining(), 5192);
/// assert!(usage.spend(ChatBudgetLayer::History, 2000).is_err());
/// assert_eq!(usage.total_spent(), 3000);
/// # Ok::<(), ctxbudget::BudgetError>(())
/// ```
pub struct TypedUsage<C: ContextLayers> {
    spent: C::Spent,
    total_spent: usize,
}

impl<C: ContextLayers> TypedUsage<C> {
    /// A tracker that has spent nothing.
    pub const fn new() -> Self {
        TypedUsage {
            spent: C::NOTHING_SPENT,
            total_spent: 0,
        }
    }

    /// Records `tokens` spent by `layer`.
    ///
    /// # Errors
    ///
    /// [`BudgetError::LayerOverBudget`] when the layer would go over its reservation
    /// and [`BudgetError::TotalExceeded`] when the whole context would go over the
    /// total window. Nothing is recorded when an error is returned.
    #[inline]
    pub fn spend(&mut self, layer: C::Layer, tokens: usize) -> Result<(), BudgetError> {
        let index = C::index(layer);
        let budget = C::LAYERS.get(index).map_or(0, LayerSpec::tokens);
        self.spend_index_up_to(index, tokens, budget)
    }

    /// Records `tokens` spent by the layer at `index`, allowing it up to `limit`
    /// instead of its reservation: for layers that grew into tokens other layers left
    /// unused. The total window is still enforced.
    #[inline]
    pub(crate) fn spend_index_up_to(
        &mut self,
        index: usize,
        tokens: usize,
        limit: usize,
    ) -> Result<(), BudgetError> {
        let Some(slot) = self.spent.as_mut().get_mut(index) else {
            return Err(over_layer(C::LAYERS, index, 0, tokens));
        };
        let spent = *slot;
        if tokens > limit.saturating_sub(spent) {
            let mut err = over_layer(C::LAYERS, index, spent, tokens);
            if let BudgetError::LayerOverBudget { budget, .. } = &mut err {
                *budget = limit;
            }
            return Err(err);
        }
        if tokens > C::TOTAL.saturating_sub(self.total_spent) {
            return Err(over_total(
                C::LAYERS,
                index,
                self.total_spent,
                tokens,
                C::TOTAL,
            ));
        }
        *slot = spent + tokens;
        self.total_spent += tokens;
        Ok(())
    }

    /// The tokens spent so far by `layer`.
    #[inline]
    pub fn spent(&self, layer: C::Layer) -> usize {
        self.spent
            .as_ref()
            .get(C::index(layer))
            .copied()
            .unwrap_or(0)
    }

    /// The tokens spent so far across all layers.
    #[inline]
    pub fn total_spent(&self) -> usize {
        self.total_spent
    }

    /// The tokens left in the total window: `TOTAL - total_spent()`.
    #[inline]
    pub fn remaining(&self) -> usize {
        C::TOTAL.saturating_sub(self.total_spent)
    }

    /// Each layer's name, reservation and spend, in declaration order.
    pub fn layers(&self) -> impl ExactSizeIterator<Item = (&'static str, usize, usize)> + '_ {
        C::LAYERS
            .iter()
            .zip(self.spent.as_ref())
            .map(|(spec, spent)| (spec.name(), spec.tokens(), *spent))
    }

    /// Forgets every spend.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// The same spend as a runtime [`ContextUsage`], for code that looks layers up by
    /// name.
    pub fn to_runtime(&self) -> ContextUsage {
        let mut usage = C::context_budget().usage();
        for (index, spent) in self.spent.as_ref().iter().enumerate() {
            // Every typed spend fitted the same budget, so it fits again.
            let _ = usage.spend_at(index, *spent);
        }
        usage
    }
}

#[cold]
#[inline(never)]
fn over_layer(layers: &[LayerSpec], index: usize, spent: usize, tokens: usize) -> BudgetError {
    let spec = layers.get(index);
    BudgetError::LayerOverBudget {
        layer: spec.map_or_else(|| format!("#{index}"), |s| s.name().to_owned()),
        spent,
        tokens,
        budget: spec.map_or(0, LayerSpec::tokens),
    }
}

#[cold]
#[inline(never)]
fn over_total(
    layers: &[LayerSpec],
    index: usize,
    spent: usize,
    tokens: usize,
    total: usize,
) -> BudgetError {
    BudgetError::TotalExceeded {
        layer: layers
            .get(index)
            .map_or_else(|| format!("#{index}"), |s| s.name().to_owned()),
        spent,
        tokens,
        total,
    }
}

impl<C: ContextLayers> Default for TypedUsage<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: ContextLayers> Clone for TypedUsage<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: ContextLayers> Copy for TypedUsage<C> {}

impl<C: ContextLayers> PartialEq for TypedUsage<C> {
    fn eq(&self, other: &Self) -> bool {
        self.spent == other.spent
    }
}

impl<C: ContextLayers> Eq for TypedUsage<C> {}

impl<C: ContextLayers> Hash for TypedUsage<C> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.spent.hash(state);
    }
}

impl<C: ContextLayers> fmt::Debug for TypedUsage<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        map.entry(&"total", &C::TOTAL)
            .entry(&"spent", &self.total_spent)
            .entry(&"remaining", &self.remaining());
        for (name, budget, spent) in self.layers() {
            map.entry(&name, &format_args!("{spent}/{budget}"));
        }
        map.finish()
    }
}

impl<C: ContextLayers> From<TypedUsage<C>> for ContextUsage {
    fn from(usage: TypedUsage<C>) -> Self {
        usage.to_runtime()
    }
}

/// A layer name that is not one of a compile-time budget's layers: the error of
/// parsing a generated layer enum from a name (`"memory".parse::<AgentContextLayer>()`),
/// e.g. a layer named in a configuration file.
///
/// Its message names the unknown layer and lists the valid names in declaration
/// order. It converts into [`BudgetError::UnknownLayer`] for code that collects
/// budget errors.
///
/// ```
/// ctxbudget::budget! {
///     /// The chat window.
///     pub ChatBudget(total = 8192) { system: 512, history: 4096, user: 1024, output: 1024 }
/// }
///
/// let layer: ChatBudgetLayer = "history".parse()?;
/// assert_eq!(layer, ChatBudgetLayer::History);
///
/// let err = "histroy".parse::<ChatBudgetLayer>().unwrap_err();
/// assert_eq!(err.name(), "histroy");
/// assert_eq!(err.expected(), ChatBudgetLayer::NAMES);
/// assert_eq!(
///     err.to_string(),
///     "unknown layer `histroy`; expected one of: system, history, user, output"
/// );
/// let err: ctxbudget::BudgetError = err.into();
/// assert!(matches!(err, ctxbudget::BudgetError::UnknownLayer { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("unknown layer `{name}`; expected one of: {}", self.expected.join(", "))]
pub struct UnknownLayer {
    name: String,
    expected: &'static [&'static str],
}

impl UnknownLayer {
    /// The error for `name`, which is none of `expected` (the valid layer names, in
    /// declaration order).
    pub fn new(name: impl Into<String>, expected: &'static [&'static str]) -> Self {
        UnknownLayer {
            name: name.into(),
            expected,
        }
    }

    /// The name that matched no layer.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The valid layer names, in declaration order.
    pub fn expected(&self) -> &'static [&'static str] {
        self.expected
    }
}

impl From<UnknownLayer> for BudgetError {
    fn from(err: UnknownLayer) -> Self {
        BudgetError::unknown_layer(&err.name, err.expected.iter().copied())
    }
}
