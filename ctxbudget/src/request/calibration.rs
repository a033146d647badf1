//! [`Calibration`]: estimated counts tightened by what the provider reported in its
//! `usage` for requests ctxbudget counted, and [`InputUsage`], that report read.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// How many of the latest observations a [`Calibration`] keeps.
pub const CALIBRATION_WINDOW: usize = 32;

/// How many observations a [`Calibration`] needs before it scales counts.
pub const CALIBRATION_MIN: usize = 3;

/// Which provider's `usage` an [`InputUsage`] was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum UsageProvider {
    /// OpenAI Chat Completions (`prompt_tokens`) or Responses (`input_tokens` with
    /// `input_tokens_details`).
    OpenAi,
    /// Anthropic Messages (`input_tokens` and the cache fields).
    Anthropic,
    /// Gemini (`usageMetadata.promptTokenCount`).
    Gemini,
    /// Bedrock Converse (`inputTokens`).
    Bedrock,
}

/// The input tokens a provider billed for one request, read from its `usage`.
///
/// The total is what the provider counted for the whole input:
///
/// - OpenAI: `prompt_tokens` (Responses: `input_tokens`), of which
///   `prompt_tokens_details.cached_tokens` were read from the cache: they are part
///   of it, not added.
/// - Anthropic: `input_tokens + cache_read_input_tokens +
///   cache_creation_input_tokens` (the three are disjoint).
/// - Gemini: `promptTokenCount` (its `cachedContentTokenCount` is part of it).
/// - Bedrock Converse: `inputTokens`, plus `cacheReadInputTokens` and
///   `cacheWriteInputTokens` when present (reported beside it, as Anthropic does).
///
/// ```
/// use ctxbudget::request::InputUsage;
///
/// let usage = InputUsage::from_json(r#"{"input_tokens": 50, "cache_read_input_tokens": 1000,
///     "cache_creation_input_tokens": 200, "output_tokens": 30}"#)?;
/// assert_eq!((usage.input_tokens, usage.cached_tokens), (1_250, 1_000));
/// let usage = InputUsage::from_json(r#"{"prompt_tokens": 1250, "completion_tokens": 30,
///     "prompt_tokens_details": {"cached_tokens": 1024}}"#)?;
/// assert_eq!((usage.input_tokens, usage.cached_tokens), (1_250, 1_024));
/// # Ok::<(), ctxbudget::request::UsageError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct InputUsage {
    /// Whose `usage` it was.
    pub provider: UsageProvider,
    /// Every input token the provider counted, cached or not.
    pub input_tokens: u64,
    /// Of those, the tokens read from the provider's cache.
    pub cached_tokens: u64,
}

/// Why a `usage` value could not be read; says which field and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UsageError {
    /// The text is not JSON.
    #[error(
        "`usage` is not JSON ({reason}); pass the response's `usage` object or the whole response body"
    )]
    NotJson {
        /// serde's message.
        reason: String,
    },
    /// A field has a value of the wrong type or range.
    #[error("`{field}` is {found}; expected {expected}")]
    Field {
        /// The field, as a path (`usage.prompt_tokens`).
        field: String,
        /// What was expected there.
        expected: &'static str,
        /// What was found, shortened.
        found: String,
    },
    /// No field of a known provider holds the input count.
    #[error(
        "no input count in `usage`; expected OpenAI's `prompt_tokens`, Anthropic's `input_tokens`, Gemini's `promptTokenCount` or Bedrock's `inputTokens`"
    )]
    NoInputCount,
    /// The cached tokens are more than the input they are part of.
    #[error(
        "`{field}` is {cached}, more than the {input} input tokens it is part of; pass the `usage` as the provider sent it"
    )]
    CachedOverInput {
        /// The cached-tokens field.
        field: &'static str,
        /// Its value.
        cached: u64,
        /// The input it is part of.
        input: u64,
    },
}

impl InputUsage {
    /// Reads a `usage` object, or a whole response body holding one (`usage`,
    /// Gemini's `usageMetadata`).
    ///
    /// # Errors
    ///
    /// [`UsageError`] naming the field that is not what was expected, or saying
    /// that no provider's input count is there.
    pub fn from_json(usage: &str) -> Result<Self, UsageError> {
        let value: serde_json::Value =
            serde_json::from_str(usage).map_err(|e| UsageError::NotJson {
                reason: e.to_string(),
            })?;
        Self::from_value(&value)
    }

    /// [`from_json`](InputUsage::from_json) for a value already parsed.
    ///
    /// # Errors
    ///
    /// As [`from_json`](InputUsage::from_json).
    pub fn from_value(value: &serde_json::Value) -> Result<Self, UsageError> {
        let (obj, path) = if let Some(inner) = value.get("usage") {
            (inner, "usage.")
        } else if let Some(inner) = value.get("usageMetadata") {
            (inner, "usageMetadata.")
        } else {
            (value, "")
        };
        let Some(map) = obj.as_object() else {
            return Err(UsageError::Field {
                field: if path.is_empty() {
                    "usage"
                } else {
                    path.trim_end_matches('.')
                }
                .to_owned(),
                expected: "an object of token counts",
                found: shorten(obj),
            });
        };
        let fields = Fields { map, path };
        let field = |name: &str| fields.get(name);
        let nested = |outer: &str, name: &str| fields.nested(outer, name);
        let sum = |parts: &[u64]| fields.sum(parts);
        if let Some(prompt) = field("prompt_tokens")? {
            let cached = nested("prompt_tokens_details", "cached_tokens")?;
            return part_of(
                UsageProvider::OpenAi,
                prompt,
                cached,
                "prompt_tokens_details.cached_tokens",
            );
        }
        if let Some(prompt) = field("promptTokenCount")? {
            let cached = field("cachedContentTokenCount")?;
            return part_of(
                UsageProvider::Gemini,
                prompt,
                cached,
                "cachedContentTokenCount",
            );
        }
        if let Some(input) = field("inputTokens")? {
            let read = field("cacheReadInputTokens")?.unwrap_or(0);
            let write = field("cacheWriteInputTokens")?.unwrap_or(0);
            return Ok(InputUsage {
                provider: UsageProvider::Bedrock,
                input_tokens: sum(&[input, read, write])?,
                cached_tokens: read,
            });
        }
        if let Some(input) = field("input_tokens")? {
            if map.contains_key("input_tokens_details") {
                // OpenAI's Responses API: cached tokens are part of the input.
                let cached = nested("input_tokens_details", "cached_tokens")?;
                return part_of(
                    UsageProvider::OpenAi,
                    input,
                    cached,
                    "input_tokens_details.cached_tokens",
                );
            }
            let read = field("cache_read_input_tokens")?.unwrap_or(0);
            let created = field("cache_creation_input_tokens")?.unwrap_or(0);
            return Ok(InputUsage {
                provider: UsageProvider::Anthropic,
                input_tokens: sum(&[input, read, created])?,
                cached_tokens: read,
            });
        }
        Err(UsageError::NoInputCount)
    }
}

/// The token counts of a `usage` object, read one by one with the path to name.
struct Fields<'a> {
    map: &'a serde_json::Map<String, serde_json::Value>,
    path: &'static str,
}

impl Fields<'_> {
    /// A count, `None` when absent or null.
    fn get(&self, name: &str) -> Result<Option<u64>, UsageError> {
        count_of(self.map.get(name), || format!("{}{name}", self.path))
    }

    /// A count inside an object field (`prompt_tokens_details.cached_tokens`).
    fn nested(&self, outer: &str, name: &str) -> Result<Option<u64>, UsageError> {
        match self.map.get(outer) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::Object(inner)) => {
                count_of(inner.get(name), || format!("{}{outer}.{name}", self.path))
            }
            Some(v) => Err(UsageError::Field {
                field: format!("{}{outer}", self.path),
                expected: "an object of token counts",
                found: shorten(v),
            }),
        }
    }

    /// The sum of counts that are disjoint parts of the input.
    fn sum(&self, parts: &[u64]) -> Result<u64, UsageError> {
        parts
            .iter()
            .try_fold(0u64, |sum, &p| sum.checked_add(p))
            .ok_or_else(|| UsageError::Field {
                field: format!("{}input_tokens", self.path),
                expected: "counts whose sum fits 64 bits",
                found: "a larger sum".to_owned(),
            })
    }
}

/// A usage whose cached tokens are part of its input: checked to be no more.
fn part_of(
    provider: UsageProvider,
    input: u64,
    cached: Option<u64>,
    field: &'static str,
) -> Result<InputUsage, UsageError> {
    let cached = cached.unwrap_or(0);
    if cached > input {
        return Err(UsageError::CachedOverInput {
            field,
            cached,
            input,
        });
    }
    Ok(InputUsage {
        provider,
        input_tokens: input,
        cached_tokens: cached,
    })
}

/// A count field's value: absent and null are `None`, else a `u64` or an error
/// naming the field.
fn count_of(
    value: Option<&serde_json::Value>,
    field: impl FnOnce() -> String,
) -> Result<Option<u64>, UsageError> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| UsageError::Field {
            field: field(),
            expected: "a whole number of tokens, 0 or more",
            found: shorten(v),
        }),
    }
}

/// A value, as an error message quotes it: at most 40 characters.
fn shorten(value: &serde_json::Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 40 {
        text
    } else {
        let mut short: String = text.chars().take(37).collect();
        short.push_str("...");
        short
    }
}

/// One request ctxbudget counted and the provider billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Observation {
    /// A fingerprint of the request's text (64-bit FNV-1a, stable across builds,
    /// so a persisted calibration still recognises a request).
    pub request: u64,
    /// What the estimate counted.
    pub estimated: u64,
    /// What the provider counted.
    pub observed: u64,
}

/// A per-model calibration of estimated counts from the provider's `usage`: keep one
/// per model (and persist it with serde: it is a list of at most
/// [`CALIBRATION_WINDOW`] observations).
///
/// After each request that ctxbudget counted, [`observe`](Calibration::observe) what
/// the provider billed. A calibrated count is the raw estimate times the largest
/// observed/estimated ratio of the last 32 observations, rounded up (the raw
/// estimate until [`CALIBRATION_MIN`] are in), and never below a count the provider
/// reported for the same request. The largest ratio, not the mean: a fit must not
/// overflow on the request whose text the estimate fits worst. The factor can be
/// below 1, which gives back the window an upper estimate wastes.
///
/// ```
/// use ctxbudget::request::{Calibration, InputUsage};
///
/// let mut calibration = Calibration::new();
/// for (request, estimated, prompt_tokens) in [("a", 100, 120), ("b", 200, 230), ("c", 50, 55)] {
///     let usage = InputUsage::from_json(&format!(r#"{{"prompt_tokens": {prompt_tokens}}}"#))?;
///     calibration.observe(request, estimated, &usage);
/// }
/// assert_eq!(calibration.calibrate(1_000), 1_200); // x 1.2, the largest ratio
/// assert_eq!(calibration.calibrate_request("b", 190), 230); // never below b's 230
/// # Ok::<(), ctxbudget::request::UsageError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Calibration {
    observations: VecDeque<Observation>,
}

impl Calibration {
    /// A calibration with no observations: counts stay raw.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that `request` (its text, such as the JSON body sent), estimated at
    /// `estimated` tokens, was billed `usage.input_tokens`. Only the last
    /// [`CALIBRATION_WINDOW`] observations are kept; an estimate of 0 tells no
    /// ratio and is not recorded.
    pub fn observe(&mut self, request: &str, estimated: usize, usage: &InputUsage) {
        let Ok(estimated) = u64::try_from(estimated) else {
            return;
        };
        if estimated == 0 {
            return;
        }
        self.observations.push_back(Observation {
            request: fingerprint(request),
            estimated,
            observed: usage.input_tokens,
        });
        while self.observations.len() > CALIBRATION_WINDOW {
            self.observations.pop_front();
        }
    }

    /// The observations kept, oldest first.
    pub fn observations(&self) -> impl ExactSizeIterator<Item = &Observation> {
        self.observations.iter()
    }

    /// The factor counts are scaled by, as `(observed, estimated)` of the
    /// observation with the largest ratio; `None` until [`CALIBRATION_MIN`]
    /// observations are in. (A calibration read back from JSON is taken as it
    /// is: only its last [`CALIBRATION_WINDOW`] observations with an estimate
    /// above 0 count.)
    pub fn factor(&self) -> Option<(u64, u64)> {
        let recent = self.recent();
        if recent.clone().count() < CALIBRATION_MIN {
            return None;
        }
        recent
            .map(|o| (o.observed, o.estimated))
            .reduce(|best, next| {
                // next.0 / next.1 > best.0 / best.1, without division.
                let more = u128::from(next.0) * u128::from(best.1)
                    > u128::from(best.0) * u128::from(next.1);
                if more { next } else { best }
            })
    }

    /// `estimated` scaled by [`factor`](Calibration::factor), rounded up; the raw
    /// estimate until enough observations are in.
    pub fn calibrate(&self, estimated: usize) -> usize {
        match self.factor() {
            Some((observed, by)) => scale(estimated, observed, by),
            None => estimated,
        }
    }

    /// [`calibrate`](Calibration::calibrate), and never below what the provider
    /// reported for `request` itself (the same text) among the observations kept.
    pub fn calibrate_request(&self, request: &str, estimated: usize) -> usize {
        let key = fingerprint(request);
        let seen = self
            .recent()
            .filter(|o| o.request == key)
            .map(|o| usize::try_from(o.observed).unwrap_or(usize::MAX))
            .max()
            .unwrap_or(0);
        self.calibrate(estimated).max(seen)
    }

    fn recent(&self) -> impl Iterator<Item = &Observation> + Clone {
        let skip = self.observations.len().saturating_sub(CALIBRATION_WINDOW);
        self.observations
            .iter()
            .skip(skip)
            .filter(|o| o.estimated > 0)
    }
}

/// A limit in the provider's tokens as a limit in the estimate's: `limit × by /
/// observed`, rounded down, so that a request within it, scaled by the factor, is
/// within `limit`.
pub(super) fn limit_in_estimate(limit: usize, (observed, by): (u64, u64)) -> usize {
    if observed == 0 {
        return limit;
    }
    let limit = u128::try_from(limit).unwrap_or(u128::MAX);
    let scaled = limit
        .checked_mul(u128::from(by))
        .map_or(u128::MAX, |p| p / u128::from(observed));
    usize::try_from(scaled).unwrap_or(usize::MAX)
}

/// `n × observed / by`, rounded up, saturating.
fn scale(n: usize, observed: u64, by: u64) -> usize {
    if by == 0 {
        return n;
    }
    let n = u128::try_from(n).unwrap_or(u128::MAX);
    let scaled = n
        .checked_mul(u128::from(observed))
        .map_or(u128::MAX, |p| p.div_ceil(u128::from(by)));
    usize::try_from(scaled).unwrap_or(usize::MAX)
}

/// 64-bit FNV-1a: a fingerprint that stays the same across Rust versions and
/// builds, unlike `std`'s hasher.
fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_is_fnv_1a() {
        // The published FNV-1a 64 values of "" and "a".
        assert_eq!(fingerprint(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn scaling_rounds_up_and_saturates() {
        assert_eq!(scale(10, 3, 2), 15);
        assert_eq!(scale(3, 1, 2), 2);
        assert_eq!(scale(usize::MAX, 2, 1), usize::MAX);
        assert_eq!(scale(5, 7, 0), 5);
        assert_eq!(limit_in_estimate(100, (5, 4)), 80);
        assert_eq!(limit_in_estimate(100, (3, 4)), 133);
        assert_eq!(limit_in_estimate(usize::MAX, (1, 2)), usize::MAX);
        assert_eq!(limit_in_estimate(7, (0, 2)), 7);
    }
}
