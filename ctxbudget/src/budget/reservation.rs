//! What a layer reserves: a fixed number of tokens or a [`Share`] of the window
//! ([`Reservation`]).

use std::fmt;

use super::error::BudgetError;

/// Parts per million in a whole window.
const WHOLE: u32 = 1_000_000;

/// A share of the context window, from 0 to 1, kept in parts per million so that it
/// resolves to the same number of tokens everywhere: `floor(window × share)`.
///
/// A layer that reserves a share grows and shrinks with the window it is assembled
/// for: a quarter of an 8,192-token window is 2,048 tokens, of a 128,000-token window
/// 32,000. In `#[budget(share = 0.25)]` and in config files (`{"share": 0.25}`) it is
/// written as a decimal fraction; more than six decimal places are rounded to the
/// nearest millionth.
///
/// ```
/// use ctxbudget::budget::Share;
///
/// let quarter = Share::new(0.25)?;
/// assert_eq!(quarter.of(8_192), 2_048);
/// assert_eq!(quarter.of(128_000), 32_000);
/// assert_eq!(Share::new(1.0 / 3.0)?.of(3_000), 999); // 0.333333, rounded down
/// assert_eq!(quarter.to_string(), "0.25");
/// assert!(Share::new(1.5).is_err());
/// # Ok::<(), ctxbudget::BudgetError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Share {
    ppm: u32,
}

impl Share {
    /// The whole window.
    pub const WHOLE: Share = Share { ppm: WHOLE };

    /// Nothing.
    pub const NONE: Share = Share { ppm: 0 };

    /// The share of `ppm` parts per million, or `None` past 1,000,000 (the whole
    /// window).
    ///
    /// ```
    /// use ctxbudget::budget::Share;
    ///
    /// assert_eq!(Share::from_ppm(250_000), Share::new(0.25).ok());
    /// assert_eq!(Share::from_ppm(1_000_001), None);
    /// ```
    pub const fn from_ppm(ppm: u32) -> Option<Share> {
        if ppm > WHOLE {
            None
        } else {
            Some(Share { ppm })
        }
    }

    /// The share `fraction` of the window, rounded to the nearest millionth.
    ///
    /// # Errors
    ///
    /// [`BudgetError::InvalidShare`] for a fraction that is negative, over 1 or not a
    /// number.
    pub fn new(fraction: f64) -> Result<Share, BudgetError> {
        if !(0.0..=1.0).contains(&fraction) {
            return Err(BudgetError::InvalidShare {
                value: format!("{fraction}"),
            });
        }
        // In [0, 1_000_000] after the check above: the cast cannot truncate.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ppm = (fraction * f64::from(WHOLE)).round() as u32;
        Ok(Share { ppm })
    }

    /// The share in parts per million (0 to 1,000,000).
    pub const fn ppm(self) -> u32 {
        self.ppm
    }

    /// The share as a fraction from 0 to 1.
    pub fn fraction(self) -> f64 {
        f64::from(self.ppm) / f64::from(WHOLE)
    }

    /// The tokens this share of a `window` is: `floor(window × share)`, never more
    /// than `window`.
    pub const fn of(self, window: usize) -> usize {
        let tokens = window as u128 * self.ppm as u128 / WHOLE as u128;
        // At most `window`, which is a usize.
        #[allow(clippy::cast_possible_truncation)]
        let tokens = tokens as usize;
        tokens
    }
}

impl fmt::Display for Share {
    /// The fraction in decimal, without trailing zeros: `0.25`, `1`, `0.333333`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&ppm_text(u64::from(self.ppm)))
    }
}

/// `ppm` parts per million as a decimal fraction without trailing zeros; for sums of
/// shares, which may pass 1.
pub(crate) fn ppm_text(ppm: u64) -> String {
    let whole = ppm / u64::from(WHOLE);
    let rest = ppm % u64::from(WHOLE);
    if rest == 0 {
        return whole.to_string();
    }
    let digits = format!("{rest:06}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// What a layer reserves: a fixed number of tokens, or a share of the window it is
/// assembled for.
///
/// ```
/// use ctxbudget::budget::{Reservation, Share};
///
/// let fixed = Reservation::Tokens(512);
/// let half = Reservation::Share(Share::new(0.5)?);
/// assert_eq!((fixed.at(8_192), half.at(8_192)), (512, 4_096));
/// assert_eq!((fixed.at(128_000), half.at(128_000)), (512, 64_000));
/// assert_eq!(half.to_string(), "0.5 of the window");
/// # Ok::<(), ctxbudget::BudgetError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reservation {
    /// This many tokens, whatever the window.
    Tokens(usize),
    /// This share of the window.
    Share(Share),
}

impl Reservation {
    /// The tokens reserved in a window of `window` tokens.
    pub const fn at(self, window: usize) -> usize {
        match self {
            Reservation::Tokens(tokens) => tokens,
            Reservation::Share(share) => share.of(window),
        }
    }

    /// The share, for a reservation that is one.
    pub const fn share(self) -> Option<Share> {
        match self {
            Reservation::Tokens(_) => None,
            Reservation::Share(share) => Some(share),
        }
    }
}

impl From<usize> for Reservation {
    fn from(tokens: usize) -> Self {
        Reservation::Tokens(tokens)
    }
}

impl From<Share> for Reservation {
    fn from(share: Share) -> Self {
        Reservation::Share(share)
    }
}

impl fmt::Display for Reservation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reservation::Tokens(tokens) => write!(f, "{tokens}"),
            Reservation::Share(share) => write!(f, "{share} of the window"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_round_to_millionths_and_resolve_down() {
        assert_eq!(Share::new(0.1).unwrap().ppm(), 100_000);
        assert_eq!(Share::new(0.000_000_4).unwrap().ppm(), 0);
        assert_eq!(Share::new(1.0).unwrap(), Share::WHOLE);
        assert_eq!(Share::WHOLE.of(usize::MAX), usize::MAX);
        assert_eq!(Share::new(0.5).unwrap().of(usize::MAX), usize::MAX / 2);
        assert_eq!(Share::new(0.3).unwrap().of(10), 3);
        for bad in [-0.1, 1.000_001, f64::NAN, f64::INFINITY] {
            assert!(Share::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn fractions_print_without_trailing_zeros() {
        assert_eq!(ppm_text(0), "0");
        assert_eq!(ppm_text(1_000_000), "1");
        assert_eq!(ppm_text(1_250_000), "1.25");
        assert_eq!(ppm_text(333_333), "0.333333");
        assert_eq!(ppm_text(50_000), "0.05");
    }
}
