//! [`CutPolicy`]: where a [`ChatSession`](super::ChatSession) moves its cut when the
//! prompt would not fit.

/// Where a [`ChatSession`](super::ChatSession) moves its cut (the first message of
/// the history it still sends) when the next prompt would not fit its limit.
///
/// - [`CutPolicy::cache_stable`] (the default) keeps the cut where it is while the
///   prompt fits, so every prompt begins with the previous one and the provider's
///   prompt cache serves it. When the prompt would not fit, the cut advances past
///   whole units (a message, or a tool call with its results) until the prompt is at
///   most the *low-water mark*, [`DEFAULT_LOW_WATER`](CutPolicy::DEFAULT_LOW_WATER)
///   of the limit unless set, and then on to the next line of a *grid* of
///   [`DEFAULT_GRID`](CutPolicy::DEFAULT_GRID) of the limit, counted in tokens from
///   the session's first message: the cut lands on the same few places whatever the
///   turn that moved it, and the room between the low-water mark and the limit
///   absorbs the next turns, so the cut moves once per many turns, not once per
///   turn.
/// - [`CutPolicy::minimal_fit`] advances the cut just far enough for the prompt to
///   fit, as [`ChatTrimmer`](super::super::ChatTrimmer) does: the most history per
///   prompt, but once a session sits at its limit the cut moves on nearly every
///   turn, and with it the start of everything after the system messages, which
///   defeats the cache.
///
/// Agent projects reported cache hits falling from over 99% to under 20% once their
/// sessions reached the window, with minimal-fit trimming; the fix they converged on
/// is this one: a low-water mark and a cut that advances on a fixed grid.
///
/// ```
/// use ctxbudget::chat::CutPolicy;
///
/// let policy = CutPolicy::cache_stable().with_low_water(0.5).with_grid(0.1);
/// assert_eq!(policy.low_water_tokens(100_000), 50_000);
/// assert_eq!(policy.grid_tokens(100_000), 10_000);
/// assert_eq!(CutPolicy::minimal_fit().low_water_tokens(100_000), 100_000);
/// assert_eq!(CutPolicy::default(), CutPolicy::cache_stable());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CutPolicy {
    stable: bool,
    low_water: f64,
    grid: f64,
}

impl Default for CutPolicy {
    fn default() -> Self {
        Self::cache_stable()
    }
}

impl CutPolicy {
    /// The default low-water mark of [`cache_stable`](CutPolicy::cache_stable): after
    /// a cut, the prompt is at most 60% of the limit. Lower keeps the cut still for
    /// longer (more of the input read from the cache) and sends less history on
    /// average; 0.6 keeps the mean prompt near 80% of the limit.
    pub const DEFAULT_LOW_WATER: f64 = 0.6;

    /// The default grid of [`cache_stable`](CutPolicy::cache_stable): cuts land on
    /// the first unit at or after a multiple of 5% of the limit, in tokens counted
    /// from the session's first message.
    pub const DEFAULT_GRID: f64 = 0.05;

    /// The cache-stable policy, with the default low-water mark and grid.
    pub const fn cache_stable() -> Self {
        Self {
            stable: true,
            low_water: Self::DEFAULT_LOW_WATER,
            grid: Self::DEFAULT_GRID,
        }
    }

    /// The minimal-fit policy: drop just enough of the oldest history for the prompt
    /// to fit (no low-water mark, no grid).
    pub const fn minimal_fit() -> Self {
        Self {
            stable: false,
            low_water: 1.0,
            grid: 0.0,
        }
    }

    /// Sets the low-water mark as a fraction of the limit, from 0.0 to 1.0 (values
    /// outside are clamped; NaN keeps the current mark). 1.0 with a grid of 0.0 is
    /// minimal fit.
    #[must_use]
    pub fn with_low_water(mut self, fraction: f64) -> Self {
        if !fraction.is_nan() {
            self.low_water = fraction.clamp(0.0, 1.0);
            self.stable = true;
        }
        self
    }

    /// Sets the grid as a fraction of the limit, from 0.0 (no grid) to 1.0 (values
    /// outside are clamped; NaN keeps the current grid).
    #[must_use]
    pub fn with_grid(mut self, fraction: f64) -> Self {
        if !fraction.is_nan() {
            self.grid = fraction.clamp(0.0, 1.0);
            self.stable = true;
        }
        self
    }

    /// Whether the cut stays put while the prompt fits and then advances to the
    /// low-water mark (false for [`minimal_fit`](CutPolicy::minimal_fit)).
    pub const fn is_cache_stable(&self) -> bool {
        self.stable
    }

    /// The low-water mark, as a fraction of the limit.
    pub const fn low_water(&self) -> f64 {
        self.low_water
    }

    /// The grid, as a fraction of the limit.
    pub const fn grid(&self) -> f64 {
        self.grid
    }

    /// What a prompt may cost right after the cut moved, for a session whose limit
    /// is `limit`: the low-water mark in tokens (rounded down; `limit` itself for
    /// minimal fit).
    pub fn low_water_tokens(&self, limit: usize) -> usize {
        if self.stable {
            fraction_of(limit, self.low_water)
        } else {
            limit
        }
    }

    /// The spacing of the grid in tokens, for a session whose limit is `limit`
    /// (0: no grid).
    pub fn grid_tokens(&self, limit: usize) -> usize {
        if self.stable {
            fraction_of(limit, self.grid)
        } else {
            0
        }
    }
}

/// `floor(limit * fraction)`, for a fraction in `0.0..=1.0`.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
fn fraction_of(limit: usize, fraction: f64) -> usize {
    // Limits beyond 2^53 lose precision in f64; the result is still at most `limit`.
    let tokens = (limit as f64 * fraction).floor();
    if tokens <= 0.0 {
        0
    } else {
        (tokens as usize).min(limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_are_clamped_and_nan_ignored() {
        let policy = CutPolicy::cache_stable()
            .with_low_water(1.5)
            .with_grid(-1.0);
        assert_eq!((policy.low_water(), policy.grid()), (1.0, 0.0));
        let policy = policy.with_low_water(f64::NAN).with_grid(f64::NAN);
        assert_eq!((policy.low_water(), policy.grid()), (1.0, 0.0));
        let huge = CutPolicy::cache_stable().low_water_tokens(usize::MAX);
        assert!(huge > usize::MAX / 2 && huge < usize::MAX);
        assert_eq!(CutPolicy::cache_stable().low_water_tokens(0), 0);
        assert_eq!(CutPolicy::cache_stable().grid_tokens(10), 0);
        assert_eq!(CutPolicy::minimal_fit().grid_tokens(1_000), 0);
        assert!(!CutPolicy::minimal_fit().is_cache_stable());
        assert!(
            CutPolicy::minimal_fit()
                .with_low_water(0.5)
                .is_cache_stable()
        );
    }
}
