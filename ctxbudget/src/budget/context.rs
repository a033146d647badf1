//! Runtime budgets: [`ContextBudget`] (a total window and named layer reservations)
//! and [`ContextUsage`] (spend tracked against it, by layer name).
//!
//! Use these when the window is known only at run time (a config file, a per-model
//! limit). When it is known at compile time, prefer
//! [`#[derive(ContextLayers)]`](crate::ContextLayers) or [`budget!`](crate::budget),
//! which check the sum in the compiler and spend without string lookups.

use super::error::{BudgetError, Count};
use super::reservation::{Reservation, Share};
use std::collections::HashSet;
use std::hash::Hash;

/// The telemetry keys a layer may not be named after.
pub(crate) const RESERVED_NAMES: [&str; 3] = ["total", "spent", "remaining"];

/// A total context window and one token reservation per named layer, in declaration
/// order.
///
/// Its [`reserved`](Self::reserved) tokens are the sum of the layer reservations,
/// spent or not; its [`available`](Self::available) tokens are `total - reserved`,
/// the ones no layer reserves. What a [`ContextUsage`] has not spent yet is its
/// `remaining`, `total - spent`, which counts both.
///
/// A budget is valid by construction: its reservations never add up to more than its
/// total, its layer names are unique, non-empty and none of the telemetry keys
/// `total`, `spent`, `remaining`.
///
/// ```
/// use ctxbudget::ContextBudget;
///
/// let budget = ContextBudget::new(8192, [("system", 512), ("memory", 2048), ("user", 512)])?;
/// assert_eq!(budget.reserved(), 3072);
/// assert_eq!(budget.available(), 5120);
/// assert_eq!(budget.layer_budget("memory")?, 2048);
/// assert!(budget.layer_budget("plan").is_err());
///
/// // Over-allocation is refused, with the sum written out.
/// let err = ContextBudget::new(1024, [("system", 512), ("memory", 1024)]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "layers reserve 1536 tokens (system 512 + memory 1024) but the total is 1024: \
///      512 over; lower a reservation or raise the total",
/// );
/// # Ok::<(), ctxbudget::BudgetError>(())
/// ```
///
/// With the `serde` feature a budget reads from and writes to
/// `{"total": 8192, "layers": {"system": 512, "memory": 2048}}` (layers in
/// declaration order; a layer that reserves a share of the window is
/// `{"share": 0.25}`); negative, fractional and overflowing numbers are rejected with
/// an error naming the field. Read JSON files with [`from_json`](Self::from_json),
/// which skips a byte-order mark. JSON keeps the layers in document order; for TOML
/// enable the `toml` crate's `preserve_order` feature, or its tables come sorted.
///
/// A layer may also reserve a [`Share`] of the window instead of a fixed number of
/// tokens ([`with_reservations`](Self::with_reservations), or `{"share": 0.25}` in a
/// config file): the budget then holds it resolved at its `total`, and
/// [`for_window`](Self::for_window) resolves it again for another window.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ContextBudget {
    total: usize,
    reserved: usize,
    /// Each layer's name and reservation resolved at `total`.
    layers: Vec<(String, usize)>,
    /// Each layer's share, when it reserves one; empty when no layer does.
    shares: Vec<Option<Share>>,
}

/// How many `name tokens` terms an [`BudgetError::OverAllocated`] message writes
/// out before it says how many more there are: a config with 100 000 layers should
/// not produce a megabyte-long error.
const TERMS_SHOWN: usize = 16;

/// Checks a layer list in declaration order and returns the sum of its reservations.
///
/// The first problem wins: a name that is empty or a telemetry key, a name seen
/// before, a reservation that takes the sum past `usize::MAX`, then shares that add
/// up to more than the whole window, and at the end (when `total` is known) a sum
/// over `total`. `shares` has one entry per layer, or none when no layer reserves a
/// share.
///
/// Linear time: names go into a hash set. The pairwise check this replaces took 16 s
/// for 64 000 layers and never finished a 100 MB config. Generic over the name type
/// so that a test can count the comparisons.
pub(super) fn check_layers<N>(
    total: Option<usize>,
    layers: &[(N, usize)],
    shares: &[Option<Share>],
) -> Result<usize, BudgetError>
where
    N: AsRef<str> + Eq + Hash,
{
    let mut seen: HashSet<&N> = HashSet::with_capacity(layers.len());
    let mut reserved = 0usize;
    for (name, tokens) in layers {
        let text = name.as_ref();
        if text.is_empty() || RESERVED_NAMES.contains(&text) {
            return Err(BudgetError::InvalidLayerName {
                name: text.to_owned(),
            });
        }
        if !seen.insert(name) {
            return Err(BudgetError::DuplicateLayer {
                name: text.to_owned(),
            });
        }
        reserved = reserved
            .checked_add(*tokens)
            .ok_or_else(|| BudgetError::Overflow {
                layer: text.to_owned(),
                tokens: *tokens,
                sum: reserved,
            })?;
    }
    let ppm = shares
        .iter()
        .flatten()
        .fold(0u64, |sum, share| sum + u64::from(share.ppm()));
    if ppm > u64::from(Share::WHOLE.ppm()) {
        let terms = written_out(
            layers
                .iter()
                .zip(shares)
                .filter_map(|((name, _), share)| share.map(|s| format!("{} {s}", name.as_ref()))),
        );
        return Err(BudgetError::SharesOverOne { ppm, terms });
    }
    match total {
        Some(total) if reserved > total => Err(over_allocated(total, reserved, layers, shares)),
        _ => Ok(reserved),
    }
}

/// `terms` joined by ` + `, the first [`TERMS_SHOWN`] of them, then how many more.
fn written_out(terms: impl Iterator<Item = String>) -> String {
    let mut shown = Vec::new();
    let mut more = 0usize;
    for term in terms {
        if shown.len() < TERMS_SHOWN {
            shown.push(term);
        } else {
            more += 1;
        }
    }
    if more > 0 {
        shown.push(format!("{more} more layers"));
    }
    shown.join(" + ")
}

/// A layer's term in a sum: `memory 2048`, or `history 4096 (share 0.5)`.
pub(crate) fn term(name: &str, tokens: usize, share: Option<Share>) -> String {
    match share {
        Some(share) => format!("{name} {} (share {share})", Count(tokens)),
        None => format!("{name} {}", Count(tokens)),
    }
}

/// [`BudgetError::OverAllocated`], its sum written out up to [`TERMS_SHOWN`] terms.
#[cold]
pub(super) fn over_allocated<N: AsRef<str>>(
    total: usize,
    reserved: usize,
    layers: &[(N, usize)],
    shares: &[Option<Share>],
) -> BudgetError {
    let terms = written_out(layers.iter().enumerate().map(|(i, (name, tokens))| {
        term(name.as_ref(), *tokens, shares.get(i).copied().flatten())
    }));
    BudgetError::OverAllocated {
        reserved,
        total,
        terms,
    }
}

impl ContextBudget {
    /// The eleven layers of the agent preset, in order: instructions (`system`,
    /// `mission`, `plan`), recalled material (`memory`, `artifacts`, `graph`, `ast`,
    /// `semantic`), the request (`task`, `user`) and the reply (`output`).
    pub const AGENT_LAYERS: [&'static str; 11] = [
        "system",
        "mission",
        "plan",
        "memory",
        "artifacts",
        "graph",
        "ast",
        "semantic",
        "task",
        "user",
        "output",
    ];

    /// A budget of `total` tokens with the given `(name, reservation)` layers, in
    /// order.
    ///
    /// # Errors
    ///
    /// [`BudgetError::OverAllocated`] when the reservations add up to more than
    /// `total`, [`BudgetError::Overflow`] when they add up to more than `usize::MAX`,
    /// [`BudgetError::DuplicateLayer`] for a repeated name and
    /// [`BudgetError::InvalidLayerName`] for an empty name or a telemetry key.
    pub fn new<N, I>(total: usize, layers: I) -> Result<Self, BudgetError>
    where
        N: Into<String>,
        I: IntoIterator<Item = (N, usize)>,
    {
        let layers: Vec<(String, usize)> = layers
            .into_iter()
            .map(|(name, tokens)| (name.into(), tokens))
            .collect();
        let reserved = check_layers(Some(total), &layers, &[])?;
        Ok(ContextBudget {
            total,
            reserved,
            layers,
            shares: Vec::new(),
        })
    }

    /// A budget of `total` tokens whose layers reserve fixed tokens or shares of the
    /// window, in order. Shares are resolved at `total` here, and at another window by
    /// [`for_window`](Self::for_window) or when assembling for one.
    ///
    /// ```
    /// use ctxbudget::ContextBudget;
    /// use ctxbudget::budget::{Reservation, Share};
    ///
    /// let budget = ContextBudget::with_reservations(
    ///     8192,
    ///     [
    ///         ("system", Reservation::Tokens(512)),
    ///         ("history", Reservation::Share(Share::new(0.5)?)),
    ///         ("output", Reservation::Tokens(1024)),
    ///     ],
    /// )?;
    /// assert_eq!(budget.layer_budget("history")?, 4096);
    /// assert_eq!(budget.for_window(128_000)?.layer_budget("history")?, 64_000);
    ///
    /// // Shares over the whole window fit no window at all.
    /// let err = ContextBudget::with_reservations(
    ///     8192,
    ///     [("a", Share::new(0.6)?.into()), ("b", Share::new(0.5)?.into())],
    /// )
    /// .unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "layer shares add up to 1.1 of the window (a 0.6 + b 0.5): more than the whole \
    ///      window; lower the shares so that they add up to at most 1",
    /// );
    /// # Ok::<(), ctxbudget::BudgetError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), and [`BudgetError::SharesOverOne`] when the shares add
    /// up to more than the whole window.
    pub fn with_reservations<N, I>(total: usize, layers: I) -> Result<Self, BudgetError>
    where
        N: Into<String>,
        I: IntoIterator<Item = (N, Reservation)>,
    {
        let mut resolved = Vec::new();
        let mut shares = Vec::new();
        for (name, reservation) in layers {
            resolved.push((name.into(), reservation.at(total)));
            shares.push(reservation.share());
        }
        Self::from_parts(total, resolved, shares)
    }

    /// A checked budget from layers resolved at `total` and their shares (one per
    /// layer, or none at all).
    pub(super) fn from_parts(
        total: usize,
        layers: Vec<(String, usize)>,
        mut shares: Vec<Option<Share>>,
    ) -> Result<Self, BudgetError> {
        if shares.iter().all(Option::is_none) {
            shares = Vec::new();
        }
        let reserved = check_layers(Some(total), &layers, &shares)?;
        Ok(ContextBudget {
            total,
            reserved,
            layers,
            shares,
        })
    }

    /// The same layers in a window of `window` tokens: shares resolved at `window`,
    /// fixed reservations as they are.
    ///
    /// # Errors
    ///
    /// [`BudgetError::OverAllocated`] when the reservations add up to more than
    /// `window`: the message writes the sum out.
    pub fn for_window(&self, window: usize) -> Result<Self, BudgetError> {
        Self::from_parts(
            window,
            self.reservations()
                .map(|(name, r)| (name.to_owned(), r.at(window)))
                .collect(),
            self.shares.clone(),
        )
    }

    /// The agent preset: the eleven [`AGENT_LAYERS`](Self::AGENT_LAYERS) with the
    /// given reservations, in that order.
    ///
    /// ```
    /// use ctxbudget::ContextBudget;
    ///
    /// let budget =
    ///     ContextBudget::agent(8192, [512, 256, 256, 2048, 512, 256, 256, 2048, 256, 512, 1024])?;
    /// assert_eq!(budget.layer_budget("semantic")?, 2048);
    /// assert_eq!(budget.available(), 256);
    /// # Ok::<(), ctxbudget::BudgetError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new): [`BudgetError::OverAllocated`] or
    /// [`BudgetError::Overflow`].
    pub fn agent(total: usize, reservations: [usize; 11]) -> Result<Self, BudgetError> {
        Self::new(total, Self::AGENT_LAYERS.into_iter().zip(reservations))
    }

    /// A budget of `total` tokens with no layers.
    pub(crate) fn without_layers(total: usize) -> Self {
        ContextBudget {
            total,
            reserved: 0,
            layers: Vec::new(),
            shares: Vec::new(),
        }
    }

    /// The total context window.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The sum of all layer reservations: the tokens set aside for layers, whether
    /// they get spent or not.
    pub fn reserved(&self) -> usize {
        self.reserved
    }

    /// The tokens no layer reserves: `total() - reserved()`.
    pub fn available(&self) -> usize {
        self.total - self.reserved
    }

    /// The reservation of the layer called `name`.
    ///
    /// # Errors
    ///
    /// [`BudgetError::UnknownLayer`] when the budget declares no such layer; the
    /// message lists the layers it does declare.
    pub fn layer_budget(&self, name: &str) -> Result<usize, BudgetError> {
        self.index_of(name)
            .map(|i| self.layers[i].1)
            .ok_or_else(|| self.unknown(name))
    }

    /// The position of the layer called `name` in declaration order, if declared.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.layers.iter().position(|(layer, _)| layer == name)
    }

    /// The layers and their reservations (shares resolved at the total), in
    /// declaration order.
    pub fn layers(&self) -> impl ExactSizeIterator<Item = (&str, usize)> + '_ {
        self.layers
            .iter()
            .map(|(name, tokens)| (name.as_str(), *tokens))
    }

    /// The layers and what they reserve, fixed tokens or shares of the window, in
    /// declaration order.
    pub fn reservations(&self) -> impl ExactSizeIterator<Item = (&str, Reservation)> + '_ {
        self.layers.iter().enumerate().map(|(i, (name, tokens))| {
            let reservation = match self.share_at(i) {
                Some(share) => Reservation::Share(share),
                None => Reservation::Tokens(*tokens),
            };
            (name.as_str(), reservation)
        })
    }

    /// The share the layer at `index` reserves, if it reserves one.
    pub(crate) fn share_at(&self, index: usize) -> Option<Share> {
        self.shares.get(index).copied().flatten()
    }

    /// The number of layers.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether the budget declares no layers at all.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// A fresh tracker that has spent nothing against this budget.
    pub fn usage(&self) -> ContextUsage {
        ContextUsage::new(self.clone())
    }

    /// Reads a budget from JSON text such as a config file's contents:
    /// `{"total": 8192, "layers": {"system": 512, "memory": 2048}}`.
    ///
    /// A leading byte-order mark (U+FEFF, which some Windows editors write at the
    /// start of a UTF-8 file) is skipped; `serde_json::from_str` alone refuses it with
    /// "expected value at line 1 column 1". `toml::from_str` skips one itself.
    ///
    /// ```
    /// use ctxbudget::ContextBudget;
    ///
    /// let budget = ContextBudget::from_json("\u{feff}{\"total\": 4096, \"layers\": {\"system\": 512}}")?;
    /// assert_eq!(budget.layer_budget("system")?, 512);
    ///
    /// // Errors give the position and what was expected there.
    /// let err = ContextBudget::from_json("{\"total\": 4096,\n \"layers\": {\"system\": -1}}")
    ///     .unwrap_err();
    /// assert_eq!(err.line(), 2);
    /// assert_eq!(
    ///     err.to_string(),
    ///     "`layers.system` is -1: a token count cannot be negative; use 0 or more \
    ///      at line 2 column 24",
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The [`serde_json::Error`] of malformed JSON, of a value of the wrong shape
    /// (its message says what a budget looks like) or of a budget
    /// [`new`](Self::new) refuses (its message is the [`BudgetError`]'s), with the line
    /// and column where it was found.
    #[cfg(feature = "serde")]
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
    }

    pub(crate) fn unknown(&self, name: &str) -> BudgetError {
        BudgetError::unknown_layer(name, self.layers.iter().map(|(n, _)| n.as_str()))
    }
}

/// Tokens spent per layer of a [`ContextBudget`], looked up by layer name.
///
/// Its [`remaining`](Self::remaining) tokens are `total - spent`: everything not
/// spent yet, including reservations not spent yet, such as the output's.
///
/// Amounts are `usize`: a negative spend does not type-check, so no error exists for
/// it.
///
/// [`spend`](Self::spend) refuses an unknown layer, a layer going over its
/// reservation and the total window being exceeded, and records nothing when it
/// refuses. For a budget known at compile time the generated typed trackers
/// ([`TypedUsage`](super::TypedUsage)) do the same without looking names up.
///
/// ```
/// use ctxbudget::ContextBudget;
///
/// let budget = ContextBudget::new(4096, [("system", 512), ("user", 1024)])?;
/// let mut usage = budget.usage();
/// usage.spend("system", 300)?;
/// usage.spend("user", 1000)?;
/// assert_eq!(usage.total_spent(), 1300);
/// // 212 + 24 not spent by the layers, 2560 reserved by no layer.
/// assert_eq!(usage.remaining(), 2796);
/// assert_eq!(usage.spent("system")?, 300);
///
/// // Refused spends change nothing.
/// assert!(usage.spend("user", 25).is_err());
/// assert!(usage.spend("plan", 1).is_err());
/// assert_eq!(usage.total_spent(), 1300);
/// # Ok::<(), ctxbudget::BudgetError>(())
/// ```
///
/// With the `serde` feature it serialises to the telemetry shape
/// `{"total": T, "spent": S, "remaining": R, "<layer>": {"budget": B, "spent": N}, ..}`;
/// see [`to_json`](Self::to_json) and [`UsageLog`](super::UsageLog).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ContextUsage {
    budget: ContextBudget,
    spent: Vec<usize>,
    total_spent: usize,
}

impl ContextUsage {
    /// A tracker that has spent nothing against `budget`.
    pub fn new(budget: ContextBudget) -> Self {
        let spent = vec![0; budget.len()];
        ContextUsage {
            budget,
            spent,
            total_spent: 0,
        }
    }

    /// The budget spent against.
    pub fn budget(&self) -> &ContextBudget {
        &self.budget
    }

    /// Records `tokens` spent by the layer called `name`.
    ///
    /// # Errors
    ///
    /// [`BudgetError::UnknownLayer`] for a name the budget does not declare,
    /// [`BudgetError::LayerOverBudget`] when the layer would go over its reservation
    /// and [`BudgetError::TotalExceeded`] when the whole context would go over the
    /// total window. Nothing is recorded when an error is returned.
    pub fn spend(&mut self, name: &str, tokens: usize) -> Result<(), BudgetError> {
        let index = self
            .budget
            .index_of(name)
            .ok_or_else(|| self.budget.unknown(name))?;
        self.spend_at(index, tokens)
    }

    /// Records `tokens` spent by the layer at `index` in declaration order (see
    /// [`ContextBudget::index_of`]), skipping the name lookup.
    ///
    /// # Errors
    ///
    /// As [`spend`](Self::spend); an index past the last layer is
    /// [`BudgetError::UnknownLayer`].
    pub fn spend_at(&mut self, index: usize, tokens: usize) -> Result<(), BudgetError> {
        let limit = self.budget.layers.get(index).map_or(0, |(_, budget)| *budget);
        self.spend_at_up_to(index, tokens, limit)
    }

    /// Records `tokens` spent by the layer at `index`, allowing it up to `limit`
    /// instead of its reservation: for layers that grew into tokens other layers left
    /// unused. The total window is still enforced.
    pub(crate) fn spend_at_up_to(
        &mut self,
        index: usize,
        tokens: usize,
        budget: usize,
    ) -> Result<(), BudgetError> {
        let Some((name, _)) = self.budget.layers.get(index) else {
            return Err(self.budget.unknown(&format!("#{index}")));
        };
        let spent = self.spent[index];
        if tokens > budget.saturating_sub(spent) {
            return Err(BudgetError::LayerOverBudget {
                layer: name.clone(),
                spent,
                tokens,
                budget,
            });
        }
        if tokens > self.budget.total.saturating_sub(self.total_spent) {
            return Err(BudgetError::TotalExceeded {
                layer: name.clone(),
                spent: self.total_spent,
                tokens,
                total: self.budget.total,
            });
        }
        self.spent[index] = spent + tokens;
        self.total_spent += tokens;
        Ok(())
    }

    /// The tokens spent so far by the layer called `name`.
    ///
    /// # Errors
    ///
    /// [`BudgetError::UnknownLayer`] for a name the budget does not declare.
    pub fn spent(&self, name: &str) -> Result<usize, BudgetError> {
        self.budget
            .index_of(name)
            .map(|i| self.spent[i])
            .ok_or_else(|| self.budget.unknown(name))
    }

    /// The tokens spent so far across all layers.
    pub fn total_spent(&self) -> usize {
        self.total_spent
    }

    /// The tokens not spent yet: `total - total_spent()`. This includes reservations
    /// not spent yet (the output's, say) and the budget's
    /// [`available`](ContextBudget::available) tokens, so it is not what any one layer
    /// may still spend: that is its reservation minus its spend.
    pub fn remaining(&self) -> usize {
        self.budget.total.saturating_sub(self.total_spent)
    }

    /// Each layer's name, reservation and spend, in declaration order.
    pub fn layers(&self) -> impl ExactSizeIterator<Item = (&str, usize, usize)> + '_ {
        self.budget
            .layers()
            .zip(&self.spent)
            .map(|((name, budget), spent)| (name, budget, *spent))
    }

    /// Forgets every spend, keeping the budget.
    pub fn reset(&mut self) {
        self.spent.fill(0);
        self.total_spent = 0;
    }
}

impl From<ContextBudget> for ContextUsage {
    fn from(budget: ContextBudget) -> Self {
        ContextUsage::new(budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflowing_reservations_are_an_error() {
        let err = ContextBudget::new(usize::MAX, [("a", usize::MAX), ("b", 1)]).unwrap_err();
        assert_eq!(
            err,
            BudgetError::Overflow {
                layer: "b".into(),
                tokens: 1,
                sum: usize::MAX
            }
        );
    }

    /// A layer name that counts how often it is compared with another.
    struct Counted<'c> {
        name: String,
        comparisons: &'c std::cell::Cell<usize>,
    }

    impl PartialEq for Counted<'_> {
        fn eq(&self, other: &Self) -> bool {
            self.comparisons.set(self.comparisons.get() + 1);
            self.name == other.name
        }
    }

    impl Eq for Counted<'_> {}

    impl Hash for Counted<'_> {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            self.name.hash(state);
        }
    }

    impl AsRef<str> for Counted<'_> {
        fn as_ref(&self) -> &str {
            &self.name
        }
    }

    /// Duplicate names are found with about one comparison per layer, not one per
    /// pair: 20 000 layers took 200 million comparisons with the pairwise check.
    /// Counting comparisons shows the complexity without timing anything.
    #[test]
    fn duplicate_check_compares_each_name_about_once() {
        let n = 20_000;
        let comparisons = std::cell::Cell::new(0);
        let mut layers: Vec<(Counted<'_>, usize)> = (0..n)
            .map(|i| {
                let name = format!("layer{i}");
                (
                    Counted {
                        name,
                        comparisons: &comparisons,
                    },
                    1,
                )
            })
            .collect();
        assert_eq!(check_layers(Some(n), &layers, &[]), Ok(n));
        // Hash collisions cost a comparison now and then; a pair check costs n²/2.
        assert!(comparisons.get() < n, "{} comparisons", comparisons.get());

        comparisons.set(0);
        let name = "layer0".to_owned();
        layers.push((
            Counted {
                name,
                comparisons: &comparisons,
            },
            1,
        ));
        assert_eq!(
            check_layers(None, &layers, &[]),
            Err(BudgetError::DuplicateLayer {
                name: "layer0".into()
            })
        );
        assert!(comparisons.get() <= n, "{} comparisons", comparisons.get());
    }

    #[test]
    fn the_first_problem_in_declaration_order_wins() {
        let check = |layers: &[(&str, usize)]| check_layers(Some(10), layers, &[]).unwrap_err();
        assert_eq!(
            check(&[("a", 1), ("", 1), ("a", 1)]),
            BudgetError::InvalidLayerName {
                name: String::new()
            }
        );
        assert_eq!(
            check(&[("a", 1), ("a", usize::MAX), ("total", 1)]),
            BudgetError::DuplicateLayer { name: "a".into() }
        );
        assert!(matches!(
            check(&[("a", usize::MAX), ("b", 1), ("b", 1)]),
            BudgetError::Overflow { .. }
        ));
    }

    #[test]
    fn long_over_allocations_write_out_sixteen_terms() {
        let layers = (0..100).map(|i| (format!("l{i}"), 1));
        let Err(BudgetError::OverAllocated {
            terms, reserved, ..
        }) = ContextBudget::new(99, layers)
        else {
            panic!("not over-allocated");
        };
        assert_eq!(reserved, 100);
        assert!(terms.starts_with("l0 1 + l1 1 + "), "{terms}");
        assert!(terms.ends_with("l15 1 + 84 more layers"), "{terms}");
    }

    #[test]
    fn spend_at_past_the_end_is_unknown() {
        let mut usage = ContextBudget::new(10, [("a", 5)]).unwrap().usage();
        let err = usage.spend_at(3, 1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown layer `#3`; the budget declares: a"
        );
    }
}
