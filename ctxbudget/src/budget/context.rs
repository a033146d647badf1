//! Runtime budgets: [`ContextBudget`] (a total window and named layer reservations)
//! and [`ContextUsage`] (spend tracked against it, by layer name).
//!
//! Use these when the window is known only at run time (a config file, a per-model
//! limit). When it is known at compile time, prefer
//! [`#[derive(ContextLayers)]`](crate::ContextLayers) or [`budget!`](crate::budget),
//! which check the sum in the compiler and spend without string lookups.

use super::error::{BudgetError, Count};
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
/// declaration order); negative, fractional and overflowing numbers are rejected with
/// an error naming the field. Read JSON files with [`from_json`](Self::from_json),
/// which skips a byte-order mark. JSON keeps the layers in document order; for TOML
/// enable the `toml` crate's `preserve_order` feature, or its tables come sorted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ContextBudget {
    total: usize,
    reserved: usize,
    layers: Vec<(String, usize)>,
}

/// How many `name tokens` terms an [`BudgetError::OverAllocated`] message writes
/// out before it says how many more there are: a config with 100 000 layers should
/// not produce a megabyte-long error.
const TERMS_SHOWN: usize = 16;

/// Checks a layer list in declaration order and returns the sum of its reservations.
///
/// The first problem wins: a name that is empty or a telemetry key, a name seen
/// before, a reservation that takes the sum past `usize::MAX`, and at the end (when
/// `total` is known) a sum over `total`.
///
/// Linear time: names go into a hash set. The pairwise check this replaces took 16 s
/// for 64 000 layers and never finished a 100 MB config. Generic over the name type
/// so that a test can count the comparisons.
fn check_layers<N>(total: Option<usize>, layers: &[(N, usize)]) -> Result<usize, BudgetError>
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
    match total {
        Some(total) if reserved > total => Err(over_allocated(total, reserved, layers)),
        _ => Ok(reserved),
    }
}

/// [`BudgetError::OverAllocated`], its sum written out up to [`TERMS_SHOWN`] terms.
#[cold]
fn over_allocated<N: AsRef<str>>(
    total: usize,
    reserved: usize,
    layers: &[(N, usize)],
) -> BudgetError {
    let mut terms: Vec<String> = layers
        .iter()
        .take(TERMS_SHOWN)
        .map(|(name, tokens)| format!("{} {}", name.as_ref(), Count(*tokens)))
        .collect();
    if let Some(more) = layers.len().checked_sub(TERMS_SHOWN).filter(|&n| n > 0) {
        terms.push(format!("{more} more layers"));
    }
    let terms = terms.join(" + ");
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
        let reserved = check_layers(Some(total), &layers)?;
        Ok(ContextBudget {
            total,
            reserved,
            layers,
        })
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

    /// The layers and their reservations, in declaration order.
    pub fn layers(&self) -> impl ExactSizeIterator<Item = (&str, usize)> + '_ {
        self.layers
            .iter()
            .map(|(name, tokens)| (name.as_str(), *tokens))
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
        let Some(&(ref name, budget)) = self.budget.layers.get(index) else {
            return Err(self.budget.unknown(&format!("#{index}")));
        };
        let spent = self.spent[index];
        // `spent <= budget` always holds, so neither subtraction can underflow.
        if tokens > budget - spent {
            return Err(BudgetError::LayerOverBudget {
                layer: name.clone(),
                spent,
                tokens,
                budget,
            });
        }
        if tokens > self.budget.total - self.total_spent {
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
        self.budget.total - self.total_spent
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

#[cfg(feature = "serde")]
mod serde_impl {
    use super::{ContextBudget, check_layers, over_allocated};
    use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::fmt;

    impl Serialize for ContextBudget {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            struct Layers<'a>(&'a ContextBudget);
            impl Serialize for Layers<'_> {
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    let mut map = serializer.serialize_map(Some(self.0.len()))?;
                    for (name, tokens) in self.0.layers() {
                        map.serialize_entry(name, &tokens)?;
                    }
                    map.end()
                }
            }
            let mut map = serializer.serialize_map(Some(2))?;
            map.serialize_entry("total", &self.total)?;
            map.serialize_entry("layers", &Layers(self))?;
            map.end()
        }
    }

    impl<'de> Deserialize<'de> for ContextBudget {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_map(BudgetVisitor)
        }
    }

    struct BudgetVisitor;

    impl<'de> Visitor<'de> for BudgetVisitor {
        type Value = ContextBudget;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(r#"a budget like {"total": 8192, "layers": {"system": 512}}"#)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut total = None;
            let mut layers = None;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "total" => {
                        if total.is_some() {
                            return Err(de::Error::custom("duplicate field `total`"));
                        }
                        total = Some(map.next_value_seed(Tokens { field: "total" })?);
                    }
                    "layers" => {
                        if layers.is_some() {
                            return Err(de::Error::custom("duplicate field `layers`"));
                        }
                        layers = Some(map.next_value_seed(LayersSeed { total })?);
                    }
                    other => {
                        return Err(de::Error::custom(format_args!(
                            "unknown field `{other}`; a budget has `total` and `layers`"
                        )));
                    }
                }
            }
            let total = total.ok_or_else(|| {
                de::Error::custom("missing field `total`: the window size in tokens")
            })?;
            let (layers, reserved) = layers.unwrap_or_default();
            // Layers read before `total` could not be checked against it.
            if reserved > total {
                return Err(de::Error::custom(over_allocated(total, reserved, &layers)));
            }
            Ok(ContextBudget {
                total,
                reserved,
                layers,
            })
        }
    }

    /// The `layers` map, checked (names, and the sum against `total` when `total`
    /// came first) as soon as it ends, so that the error points at it. Its value is
    /// the layers and the sum of their reservations.
    struct LayersSeed {
        total: Option<usize>,
    }

    impl<'de> DeserializeSeed<'de> for LayersSeed {
        type Value = (Vec<(String, usize)>, usize);

        fn deserialize<D: Deserializer<'de>>(
            self,
            deserializer: D,
        ) -> Result<Self::Value, D::Error> {
            deserializer.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for LayersSeed {
        type Value = (Vec<(String, usize)>, usize);

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map from layer name to its reservation in tokens")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut layers = Vec::new();
            while let Some(name) = map.next_key::<String>()? {
                let field = format!("layers.{name}");
                let tokens = map.next_value_seed(Tokens { field: &field })?;
                layers.push((name, tokens));
            }
            let reserved = check_layers(self.total, &layers).map_err(de::Error::custom)?;
            Ok((layers, reserved))
        }
    }

    /// A token count: a non-negative integer that fits in `usize`. Errors name the
    /// field being read.
    struct Tokens<'f> {
        field: &'f str,
    }

    impl<'de> DeserializeSeed<'de> for Tokens<'_> {
        type Value = usize;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
            deserializer.deserialize_u64(self)
        }
    }

    impl Tokens<'_> {
        fn negative<E: de::Error>(&self, value: impl fmt::Display) -> E {
            E::custom(format_args!(
                "`{}` is {value}: a token count cannot be negative; use 0 or more",
                self.field
            ))
        }
        fn too_large<E: de::Error>(&self, value: impl fmt::Display) -> E {
            E::custom(format_args!(
                "`{}` is {value}: a token count must be at most {}",
                self.field,
                usize::MAX
            ))
        }
    }

    impl Visitor<'_> for Tokens<'_> {
        type Value = usize;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "`{}` as a non-negative integer token count", self.field)
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
            self.visit_u128(v.into())
        }

        fn visit_u128<E: de::Error>(self, v: u128) -> Result<usize, E> {
            usize::try_from(v).map_err(|_| self.too_large(v))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<usize, E> {
            self.visit_i128(v.into())
        }

        fn visit_i128<E: de::Error>(self, v: i128) -> Result<usize, E> {
            if v < 0 {
                return Err(self.negative(v));
            }
            usize::try_from(v).map_err(|_| self.too_large(v))
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<usize, E> {
            if v < 0.0 {
                return Err(self.negative(v));
            }
            // `usize::MAX as f64` rounds up to 2^64 (or 2^32): every float at or
            // above it, infinity included, is too large (JSON reads integers past u64
            // as floats). NaN is not, and falls through to "a whole number".
            #[allow(clippy::cast_precision_loss)]
            if v >= usize::MAX as f64 {
                return Err(self.too_large(v));
            }
            if v.fract() == 0.0 {
                return Err(E::custom(format_args!(
                    "`{}` is the float {v:?}: a token count must be an integer; write {v} \
                     without the decimal point",
                    self.field
                )));
            }
            Err(E::custom(format_args!(
                "`{}` is {v}: a token count must be a whole number; round it to an integer",
                self.field
            )))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
            Err(E::custom(format_args!(
                "`{}` is the string {v:?}: a token count must be a number; remove the quotes",
                self.field
            )))
        }
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
        assert_eq!(check_layers(Some(n), &layers), Ok(n));
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
            check_layers(None, &layers),
            Err(BudgetError::DuplicateLayer {
                name: "layer0".into()
            })
        );
        assert!(comparisons.get() <= n, "{} comparisons", comparisons.get());
    }

    #[test]
    fn the_first_problem_in_declaration_order_wins() {
        let check = |layers: &[(&str, usize)]| check_layers(Some(10), layers).unwrap_err();
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
