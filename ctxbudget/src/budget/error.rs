//! [`BudgetError`]: everything that can go wrong declaring a budget or spending it.

/// Why a budget could not be built or a spend was refused.
///
/// Every message carries the names and numbers involved and, where there is one, the
/// fix. A refused [`spend`](super::ContextUsage::spend) records nothing, so after an
/// error the tracker is exactly as it was before the call.
///
/// ```
/// use ctxbudget::{BudgetError, ContextBudget};
///
/// let budget = ContextBudget::new(4096, [("system", 512), ("memory", 2048)])?;
/// let mut usage = budget.usage();
/// usage.spend("memory", 2000)?;
/// let err = usage.spend("memory", 100).unwrap_err();
/// assert!(matches!(err, BudgetError::LayerOverBudget { .. }));
/// assert!(err.to_string().starts_with("layer `memory` over budget: 2100 > 2048"));
/// # Ok::<(), BudgetError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BudgetError {
    /// The layer reservations add up to more than the total window.
    #[error(
        "layers reserve {} tokens ({terms}) but the total is {}: {} over; \
         lower a reservation or raise the total",
        Count(*reserved),
        Count(*total),
        Count(reserved.saturating_sub(*total))
    )]
    OverAllocated {
        /// The sum of all reservations.
        reserved: usize,
        /// The total window.
        total: usize,
        /// The sum written out, `system 512 + memory 2048`; past sixteen layers it
        /// ends with `+ N more layers`.
        terms: String,
    },

    /// The layer reservations add up to more than `usize::MAX`. The message says so
    /// in words rather than printing a number that looks like a sum.
    #[error(
        "layer reservations add up to more than usize::MAX tokens at layer `{layer}` ({}, \
         after {} for the layers before it); lower the reservations",
        Count(*tokens),
        Count(*sum)
    )]
    Overflow {
        /// The layer whose reservation made the sum overflow.
        layer: String,
        /// That layer's reservation.
        tokens: usize,
        /// The sum of the layers before it.
        sum: usize,
    },

    /// Layer shares of the window that add up to more than the whole window: no
    /// window is large enough for them.
    #[error(
        "layer shares add up to {} of the window ({terms}): more than the whole window; \
         lower the shares so that they add up to at most 1",
        super::reservation::ppm_text(*ppm)
    )]
    SharesOverOne {
        /// The sum of the shares, in parts per million.
        ppm: u64,
        /// The sum written out, `history 0.5 + retrieval 0.6`; past sixteen layers
        /// it ends with `+ N more layers`.
        terms: String,
    },

    /// A share that is not a fraction of the window from 0 to 1.
    #[error(
        "a share of the window is a number from 0 to 1, such as 0.25, not {value}; \
         write the fraction of the window the layer reserves"
    )]
    InvalidShare {
        /// The value given, as written.
        value: String,
    },

    /// A layer name that the budget does not declare.
    #[error("unknown layer `{name}`; the budget declares: {known}")]
    UnknownLayer {
        /// The name asked for.
        name: String,
        /// The declared layer names, comma separated, in declaration order.
        known: String,
    },

    /// The same layer name declared twice.
    #[error("duplicate layer `{name}`; give each layer one reservation")]
    DuplicateLayer {
        /// The repeated name.
        name: String,
    },

    /// A layer name that cannot be used: empty, or one of the telemetry keys
    /// `total`, `spent` and `remaining`.
    #[error(
        "invalid layer name `{name}`: layer names must be non-empty and not `total`, `spent` \
         or `remaining` (those are telemetry keys); rename the layer"
    )]
    InvalidLayerName {
        /// The rejected name.
        name: String,
    },

    /// A spend that would take a layer over its reservation.
    // Sums in u128 (usize widens losslessly), exact even when they overflow usize.
    #[error(
        "layer `{layer}` over budget: {} > {} ({} spent, {} more asked); \
         trim the layer to at most {} tokens or raise its reservation",
        *spent as u128 + *tokens as u128,
        Count(*budget),
        Count(*spent),
        Count(*tokens),
        Count(budget.saturating_sub(*spent))
    )]
    LayerOverBudget {
        /// The layer spent on.
        layer: String,
        /// What the layer had spent before the call.
        spent: usize,
        /// What the call asked to spend.
        tokens: usize,
        /// The layer's reservation.
        budget: usize,
    },

    /// A spend that fits its layer but would take the whole context over the total
    /// window. Budgets built by this crate reserve at most the total, so this is a
    /// second line of defence that a correct budget never reaches.
    #[error(
        "total context window exceeded by layer `{layer}`: {} > {} ({} spent, \
         {} more asked); trim the layer to at most {} tokens",
        *spent as u128 + *tokens as u128,
        Count(*total),
        Count(*spent),
        Count(*tokens),
        Count(total.saturating_sub(*spent))
    )]
    TotalExceeded {
        /// The layer spent on.
        layer: String,
        /// What the whole context had spent before the call.
        spent: usize,
        /// What the call asked to spend.
        tokens: usize,
        /// The total window.
        total: usize,
    },
}

/// A token count in a message: `usize::MAX` by name, since as a number
/// (18446744073709551615) it reads like a sum that saturated. Sums of two counts are
/// computed in `u128` and printed exactly.
pub(super) struct Count(pub(super) usize);

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == usize::MAX {
            f.write_str("usize::MAX")
        } else {
            self.0.fmt(f)
        }
    }
}

impl BudgetError {
    pub(crate) fn unknown_layer<'n>(name: &str, known: impl IntoIterator<Item = &'n str>) -> Self {
        let known: Vec<&str> = known.into_iter().collect();
        BudgetError::UnknownLayer {
            name: name.to_owned(),
            known: if known.is_empty() {
                "no layers".to_owned()
            } else {
                known.join(", ")
            },
        }
    }
}
