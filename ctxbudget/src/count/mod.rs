//! Token counting: what a text costs in a model's prompt.
//!
//! - [`TokenCounter`]: the one trait every counter implements (closures included).
//! - [`Tiktoken`] (feature `tiktoken`, on by default): exact counts in OpenAI's
//!   encodings ([`Encoding`]), equal to Python `tiktoken`'s.
//! - `HuggingFace` (feature `huggingface`): exact counts of any Hugging Face
//!   `tokenizer.json` (Llama, Mistral, Qwen and most open models), equal to
//!   Python `tokenizers`' `len(encode(text, add_special_tokens=False).ids)`.
//! - `Tekken` (feature `tekken`): exact counts of Mistral's `tekken_*.json`
//!   vocabularies, equal to `mistral-common`'s.
//! - `Claude` (feature `claude`): exact offline counts of Claude's tokenizer
//!   generations, equal to `ctok`'s reconstruction.
//! - [`ModelEstimate`]: an estimate for models whose tokenizer is not public (Claude,
//!   Gemini), measured against the closest public tokenizers and made to count at least
//!   as many tokens as they do, with a safety margin.
//! - [`CharEstimate`]: `ceil(chars / 4)`, for when no tokenizer is at hand.
//!
//! Every counter says how far its counts can be trusted ([`TokenCounter::exactness`]):
//! [`Exactness::Exact`] for the tokenizer counters, [`Exactness::UpperEstimate`] for
//! [`ModelEstimate`], [`Exactness::Estimate`] for [`CharEstimate`], and
//! [`Exactness::Unknown`] for closures.
//!
//! Counters that know their pre-tokenizer declare *split points*
//! ([`TokenCounter::next_split`]), places where counts add up exactly, which is what
//! lets the trimming engine count only what it keeps. A counter that declares none is
//! still exact, only slower to trim with.

use std::fmt;
use std::sync::Arc;

#[cfg(any(feature = "claude", feature = "requests"))]
pub(crate) mod claude_name;
mod estimate;
pub use estimate::{EstimateProfile, ModelEstimate, UnknownProfile};
#[cfg(feature = "tiktoken")]
mod encoding;
#[cfg(feature = "tiktoken")]
pub use encoding::UnknownEncoding;
#[cfg(feature = "tiktoken")]
mod linear;
#[cfg(feature = "tiktoken")]
mod merge;
#[cfg(feature = "tiktoken")]
mod pieces;
#[cfg(all(feature = "tiktoken", any(feature = "huggingface", feature = "tekken")))]
pub(crate) use linear::VocabBpe;
#[cfg(all(feature = "tiktoken", feature = "huggingface"))]
pub(crate) use linear::is_run_char;
#[cfg(feature = "tiktoken")]
pub(crate) use linear::{Linear, PieceWalk, Run};
#[cfg(feature = "tiktoken")]
mod tiktoken;
#[cfg(feature = "tiktoken")]
mod tiktoken_splits;
#[cfg(feature = "tiktoken")]
pub use tiktoken::{Encoding, Tiktoken, UnknownModel};
#[cfg(feature = "claude")]
mod claude;
#[cfg(feature = "claude")]
pub(crate) use claude::Parts;
#[cfg(feature = "claude")]
pub use claude::{Claude, ClaudeGeneration};
#[cfg(feature = "huggingface")]
mod huggingface;
#[cfg(feature = "huggingface")]
pub use huggingface::HuggingFace;
#[cfg(any(feature = "huggingface", feature = "tekken"))]
mod splits;
#[cfg(feature = "tekken")]
mod tekken;
#[cfg(feature = "tekken")]
pub use tekken::Tekken;
#[cfg(any(feature = "huggingface", feature = "tekken"))]
mod tokenizer_file;
#[cfg(any(feature = "huggingface", feature = "tekken"))]
pub use tokenizer_file::{TokenizerFileError, TokenizerSource};

/// Counts the tokens a text costs in a model's prompt.
///
/// Implemented for closures `Fn(&str) -> usize`, for [`CharEstimate`], for
/// [`Tiktoken`] (feature `tiktoken`), for `Arc<T>` and `Rc<T>` of
/// any counter, and for `&T` and `Box<T>` of trait objects and of this crate's
/// counters. (A blanket impl for every `&T` would overlap the one for closures, since
/// a reference to a closure is a closure; every function here takes the counter by
/// reference anyway, so your own counter type needs no wrapper.) The trait is object
/// safe: `&dyn TokenCounter` works everywhere a counter is expected.
///
/// Only [`count`](TokenCounter::count) is required. The provided methods let the
/// trimming engine work in time proportional to what it keeps instead of what it is
/// given; a counter whose count adds up over pieces of text should override
/// [`next_split`](TokenCounter::next_split) and
/// [`prev_split`](TokenCounter::prev_split).
///
/// The engine takes this crate's counters at their word. Any other counter's
/// answers are checked: a split point outside the stretch asked about, off a char
/// boundary or before the offset asked about counts as none, sums saturate, and a
/// count summed over more than one piece is checked with one count of the whole
/// part (when they differ, the engine goes on without split points). So a counter
/// of your own with split points costs about one more count of the kept text, and
/// one that breaks the contract cannot make the engine panic, hang or misreport:
/// see [`trim_with`](crate::trim::trim_with) for what holds. (To keep the speed of
/// a [`Tiktoken`], share it through `Arc`, `Box` or a reference rather than a
/// type of your own.)
///
/// # Example
///
/// ```
/// use ctxbudget::{CharEstimate, TokenCounter};
///
/// // A closure is a counter: here, one token per whitespace-separated word.
/// let words = |text: &str| text.split_whitespace().count();
/// assert_eq!(words.count("three little words"), 3);
///
/// // The chars/4 estimate, rounded up.
/// assert_eq!(CharEstimate.count("hello"), 2);
///
/// // Trait objects work too.
/// let counters: Vec<Box<dyn TokenCounter>> = vec![Box::new(words), Box::new(CharEstimate)];
/// assert_eq!(counters[1].count(""), 0);
/// ```
pub trait TokenCounter {
    /// The number of tokens `text` costs.
    fn count(&self, text: &str) -> usize;

    /// The first *split point* of `text` at or after byte offset `from`, if this
    /// counter knows one.
    ///
    /// A split point `i` is a byte offset, strictly inside `text`, at which counts add
    /// up: for every `x < i < y` (char boundaries),
    /// `count(&text[x..y]) == count(&text[x..i]) + count(&text[i..y])`.
    /// The trimming engine counts the pieces between split points once each and never
    /// counts a growing prefix again.
    ///
    /// Split points must be *local*: whether `i` is one may depend on the text
    /// around `i`, but not on where `text` starts or ends, because the engine asks
    /// about sub-slices (`from` is relative to the slice it passes, and need not be
    /// a char boundary).
    ///
    /// The default knows no split points and returns `None`; the engine then falls
    /// back to counting prefixes, which is correct for any counter but slower.
    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        let _ = (text, from);
        None
    }

    /// The last split point of `text` strictly before byte offset `before`, if this
    /// counter knows one. See [`next_split`](TokenCounter::next_split).
    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        let _ = (text, before);
        None
    }

    /// Counts `text` but gives up once the count passes `limit`: `Some(count)` when
    /// `count <= limit`, `None` otherwise.
    ///
    /// With split points this costs about as much as counting the first `limit`
    /// tokens of `text`, however long `text` is.
    ///
    /// The default walks the split points and never trusts them blindly: an offset
    /// before the one asked about, not strictly inside the text or not on a char
    /// boundary counts as no split point, and sums saturate. When the
    /// pieces fit, the answer is a count of the whole text (for this crate's own
    /// counters, the sum of the pieces, which is the same), so `Some(n)` always
    /// means `n == self.count(text)`. With split points that do not add up, `None`
    /// may also mean that the pieces' counts added up past `limit`.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, TokenCounter};
    ///
    /// assert_eq!(CharEstimate.count_within("12345678", 2), Some(2));
    /// assert_eq!(CharEstimate.count_within("123456789", 2), None);
    /// ```
    fn count_within(&self, text: &str, limit: usize) -> Option<usize> {
        count_within_by_splits(self, text, limit)
    }

    /// How far this counter's counts can be trusted: the model's own tokenizer
    /// ([`Exactness::Exact`]), an estimate made to count at least as many tokens as
    /// the model ([`Exactness::UpperEstimate`]), a rule of thumb
    /// ([`Exactness::Estimate`]), or unknown.
    ///
    /// The default is [`Exactness::Unknown`]: a closure or a counter of your own is
    /// as exact as its author made it, and ctxbudget cannot tell. Override it in a
    /// counter type of your own to say what it is; reports show it.
    ///
    /// ```
    /// use ctxbudget::count::{Exactness, ModelEstimate};
    /// use ctxbudget::{CharEstimate, TokenCounter};
    ///
    /// assert_eq!(CharEstimate.exactness(), Exactness::Estimate);
    /// assert_eq!(ModelEstimate::claude().exactness(), Exactness::UpperEstimate);
    /// let words = |text: &str| text.split_whitespace().count();
    /// assert_eq!(words.exactness(), Exactness::Unknown);
    /// ```
    fn exactness(&self) -> Exactness {
        Exactness::Unknown
    }

    /// Whether the engine may take this counter's split points and
    /// [`count_within`](TokenCounter::count_within) at their word: `true` only for
    /// this crate's counters, whose split points are tested to add up. The argument
    /// cannot be named outside this crate, so no other counter can claim it.
    #[doc(hidden)]
    fn __trusted(&self, _: seal::Seal) -> bool {
        false
    }

    /// The linear byte-pair engine of a [`Tiktoken`] (or a Tekken counter), which
    /// the trimming engine uses to find a cut inside a long piece without split
    /// points in one pass. `None` for every other counter; the argument cannot be
    /// named outside this crate.
    #[cfg(feature = "tiktoken")]
    #[doc(hidden)]
    fn __linear(&self, _: seal::Seal) -> Option<linear::Linear<'_>> {
        None
    }

    /// The [`Claude`] counter this is, whose tiling the trimming engine asks for
    /// the counts of many beginnings or ends of a stretch without split points.
    /// `None` for every other counter; the argument cannot be named outside this
    /// crate.
    #[cfg(feature = "claude")]
    #[doc(hidden)]
    fn __claude(&self, _: seal::Seal) -> Option<Claude> {
        None
    }
}

/// How far a counter's counts can be trusted: what [`TokenCounter::exactness`] says.
///
/// ```
/// use ctxbudget::count::Exactness;
///
/// assert!(Exactness::Exact.is_exact());
/// assert!(Exactness::UpperEstimate.never_under());
/// assert!(!Exactness::Estimate.never_under());
/// assert_eq!(Exactness::UpperEstimate.to_string(), "upper estimate");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Exactness {
    /// The model's own tokenizer: counts equal the reference implementation's
    /// ([`Tiktoken`], `HuggingFace`, `Tekken`).
    Exact,
    /// An estimate made to count at least as many tokens as the model's tokenizer
    /// ([`ModelEstimate`]): it was at or above the closest public tokenizer on every
    /// text it was measured on, and adds a safety margin. Budgets stay within the
    /// window on such text; see [`ModelEstimate`] for exactly what is guaranteed.
    UpperEstimate,
    /// A rule of thumb that may count fewer tokens than the model
    /// ([`CharEstimate`]): leave headroom.
    Estimate,
    /// The counter does not say (closures, and counters of your own that do not
    /// override [`TokenCounter::exactness`]): as exact as the caller made it.
    Unknown,
}

impl Exactness {
    /// Whether counts equal the model's tokenizer's.
    pub const fn is_exact(self) -> bool {
        matches!(self, Exactness::Exact)
    }

    /// Whether counts are meant never to be below the model's: exact counts and
    /// upper estimates.
    pub const fn never_under(self) -> bool {
        matches!(self, Exactness::Exact | Exactness::UpperEstimate)
    }

    /// A short name, as reports print it: `"exact"`, `"upper estimate"`,
    /// `"estimate"` or `"unknown"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Exactness::Exact => "exact",
            Exactness::UpperEstimate => "upper estimate",
            Exactness::Estimate => "estimate",
            Exactness::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Exactness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The sealed argument of [`TokenCounter::__trusted`].
pub(crate) mod seal {
    /// A value only this crate can make.
    #[derive(Debug, Clone, Copy)]
    pub struct Seal(pub(crate) ());
}

/// Whether `counter` is one of this crate's own counters (or a pointer to one),
/// whose split points add up and whose `count_within` is exact.
pub(crate) fn is_trusted<C: TokenCounter + ?Sized>(counter: &C) -> bool {
    counter.__trusted(seal::Seal(()))
}

/// How far from a junction [`count_joined`] looks for a split point.
const NEAR_JUNCTION: usize = 256;

/// The exact count of `parts` joined, for any counter, given the counts of some
/// parts (`Some(count(part))`). For this crate's counters, whose split points add
/// up, a part with a known count and split points near both of its ends is counted
/// only from its last split point on and up to its first (split points are local:
/// those of a part are split points of the joined text too); everything between
/// two such split points, junctions and parts without a count included, is counted
/// once. Any other counter counts the joined text whole.
pub(crate) fn count_joined<C: TokenCounter + ?Sized>(
    counter: &C,
    parts: &[(&str, Option<usize>)],
) -> usize {
    let joined: String = parts.iter().map(|(part, _)| *part).collect();
    if !is_trusted(counter) {
        return counter.count(&joined);
    }
    let mut total = 0usize;
    // Where the stretch not counted yet starts, in `joined`.
    let mut pending = 0;
    let mut offset = 0;
    for &(part, tokens) in parts {
        let inner = tokens.and_then(|tokens| {
            let lower = floor_boundary(part, NEAR_JUNCTION);
            let first = counter
                .next_split(&part[..lower], 0)
                .filter(|&at| at > 0 && at < lower && part.is_char_boundary(at))?;
            let upper = ceil_boundary(part, part.len().saturating_sub(NEAR_JUNCTION));
            let last = upper
                + counter
                    .prev_split(&part[upper..], part.len() - upper)
                    .filter(|&at| at > 0 && upper + at < part.len())?;
            if last < first || !part.is_char_boundary(last) {
                return None;
            }
            // Counts add up at both: the part between them costs the rest.
            let middle = tokens
                .checked_sub(counter.count(&part[..first]))?
                .checked_sub(counter.count(&part[last..]))?;
            Some((first, last, middle))
        });
        if let Some((first, last, middle)) = inner {
            total = total
                .saturating_add(counter.count(&joined[pending..offset + first]))
                .saturating_add(middle);
            pending = offset + last;
        }
        offset += part.len();
    }
    total.saturating_add(counter.count(&joined[pending..]))
}

fn floor_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// The linear engine of `counter` when it is (a pointer to) a [`Tiktoken`] that has
/// one.
#[cfg(feature = "tiktoken")]
pub(crate) fn linear_engine<C: TokenCounter + ?Sized>(counter: &C) -> Option<Linear<'_>> {
    counter.__linear(seal::Seal(()))
}

/// The [`Claude`] counter `counter` is (or points to), if it is one.
#[cfg(feature = "claude")]
pub(crate) fn claude_engine<C: TokenCounter + ?Sized>(counter: &C) -> Option<Claude> {
    counter.__claude(seal::Seal(()))
}

/// [`TokenCounter::count_within`] that is exact for any counter: this crate's
/// counters answer themselves; any other counter is walked by the default
/// algorithm (a user's override of `count_within` is not trusted).
pub(crate) fn exact_count_within<C: TokenCounter + ?Sized>(
    counter: &C,
    text: &str,
    limit: usize,
) -> Option<usize> {
    if is_trusted(counter) {
        counter.count_within(text, limit)
    } else {
        count_within_by_splits(counter, text, limit)
    }
}

/// The default [`TokenCounter::count_within`]: counts `text` in pieces that end at
/// the counter's split points, stopping once the sum passes `limit`.
pub(crate) fn count_within_by_splits<C: TokenCounter + ?Sized>(
    counter: &C,
    text: &str,
    limit: usize,
) -> Option<usize> {
    let len = text.len();
    let mut start = 0;
    let mut total = 0usize;
    let mut pieces = 0usize;
    // Grow the step so that a text with split points costs about `limit` tokens
    // of counting, and a text without them costs one full count.
    let mut step = limit.saturating_mul(2).max(64);
    // Every piece ends past the one before (a split point before `from` counts
    // as none), so there are at most `len + 1` pieces, the first one even when
    // `text` is empty.
    loop {
        let end = if len - start > step {
            let from = start + step;
            counter
                .next_split(text, from)
                .filter(|&at| at >= from && at < len && text.is_char_boundary(at))
                .unwrap_or(len)
        } else {
            len
        };
        total = total.saturating_add(counter.count(&text[start..end]));
        pieces += 1;
        if total > limit {
            return None;
        }
        start = end;
        if start >= len {
            break;
        }
        step = limit.saturating_sub(total).saturating_mul(2).max(64);
    }
    if pieces > 1 && !is_trusted(counter) {
        // Split points this crate has not checked: the sum of the pieces is only
        // a guess, the count of the whole text is the answer.
        let total = counter.count(text);
        return (total <= limit).then_some(total);
    }
    Some(total)
}

impl<F> TokenCounter for F
where
    F: Fn(&str) -> usize,
{
    fn count(&self, text: &str) -> usize {
        self(text)
    }
}

macro_rules! forward_token_counter {
    ($([$($generics:tt)*] $pointer:ty),* $(,)?) => {$(
        impl<$($generics)*> TokenCounter for $pointer {
            fn count(&self, text: &str) -> usize {
                (**self).count(text)
            }
            fn next_split(&self, text: &str, from: usize) -> Option<usize> {
                (**self).next_split(text, from)
            }
            fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
                (**self).prev_split(text, before)
            }
            fn count_within(&self, text: &str, limit: usize) -> Option<usize> {
                (**self).count_within(text, limit)
            }
            fn exactness(&self) -> Exactness {
                (**self).exactness()
            }
            fn __trusted(&self, seal: seal::Seal) -> bool {
                (**self).__trusted(seal)
            }
            #[cfg(feature = "tiktoken")]
            fn __linear(&self, seal: seal::Seal) -> Option<linear::Linear<'_>> {
                (**self).__linear(seal)
            }
            #[cfg(feature = "claude")]
            fn __claude(&self, seal: seal::Seal) -> Option<Claude> {
                (**self).__claude(seal)
            }
        }
    )*};
}

// A blanket impl for `&T` and `Box<T>` would overlap the closure impl (a reference
// to a closure is a closure), so references and boxes are covered for trait
// objects and for this crate's counters; `Arc<T>` and `Rc<T>` for every counter.
forward_token_counter!(
    ['c] &'c dyn TokenCounter,
    ['c] &'c (dyn TokenCounter + Send + Sync),
    [] Box<dyn TokenCounter>,
    [] Box<dyn TokenCounter + Send + Sync>,
    [T: TokenCounter + ?Sized] Arc<T>,
    [T: TokenCounter + ?Sized] std::rc::Rc<T>,
    ['c] &'c CharEstimate,
    [] Box<CharEstimate>,
    ['c] &'c ModelEstimate,
    [] Box<ModelEstimate>,
);
#[cfg(feature = "tiktoken")]
forward_token_counter!(['c] &'c self::Tiktoken, [] Box<self::Tiktoken>);
#[cfg(feature = "huggingface")]
forward_token_counter!(['c] &'c HuggingFace, [] Box<HuggingFace>);
#[cfg(feature = "tekken")]
forward_token_counter!(['c] &'c Tekken, [] Box<Tekken>);

/// The character estimate: `ceil(chars / 4)` tokens, and `""` costs 0.
///
/// The usual rule of thumb of four characters a token. It needs no vocabulary and
/// is a fair guess for English prose, but it can be far off for code, CJK text or emoji:
/// use [`Tiktoken`] when the budget is a hard limit of a real model.
///
/// ```
/// use ctxbudget::{CharEstimate, TokenCounter};
///
/// assert_eq!(CharEstimate.count(""), 0);
/// assert_eq!(CharEstimate.count("abcd"), 1);
/// assert_eq!(CharEstimate.count("abcde"), 2);
/// // Characters, not bytes: four CJK characters are one token.
/// assert_eq!(CharEstimate.count("日本語文"), 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CharEstimate;

impl CharEstimate {
    /// `ceil(chars / 4)` as a plain function, for callers without a counter value.
    pub fn estimate(text: &str) -> usize {
        text.chars().count().div_ceil(4)
    }
}

impl TokenCounter for CharEstimate {
    fn count(&self, text: &str) -> usize {
        Self::estimate(text)
    }

    fn count_within(&self, text: &str, limit: usize) -> Option<usize> {
        // Never look at more than `4 * limit + 1` characters.
        let cap = limit.saturating_mul(4).saturating_add(1);
        let chars = text.chars().take(cap).count();
        let tokens = chars.div_ceil(4);
        (tokens <= limit).then_some(tokens)
    }

    fn exactness(&self) -> Exactness {
        Exactness::Estimate
    }

    fn __trusted(&self, _: seal::Seal) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_estimate_rounds_up_and_counts_chars() {
        assert_eq!(CharEstimate.count(""), 0);
        assert_eq!(CharEstimate.count("a"), 1);
        assert_eq!(CharEstimate.count("abcd"), 1);
        assert_eq!(CharEstimate.count("abcde"), 2);
        assert_eq!(CharEstimate.count("ééééé"), 2);
    }

    #[test]
    fn count_within_agrees_with_count() {
        let text = "one two three four five six seven eight nine ten";
        for limit in 0..20 {
            let expected = CharEstimate.count(text);
            let got = CharEstimate.count_within(text, limit);
            assert_eq!(
                got,
                (expected <= limit).then_some(expected),
                "limit {limit}"
            );
            let default_impl = (|t: &str| CharEstimate.count(t)).count_within(text, limit);
            assert_eq!(default_impl, got, "default impl, limit {limit}");
        }
    }

    #[test]
    fn pointers_forward() {
        let boxed: Box<dyn TokenCounter> = Box::new(CharEstimate);
        let shared = Arc::new(CharEstimate);
        assert_eq!(boxed.count("abcde"), 2);
        assert_eq!(shared.count("abcde"), 2);
        assert_eq!((&&CharEstimate).count("abcde"), 2);
    }

    #[test]
    fn pointers_forward_exactness() {
        let boxed: Box<dyn TokenCounter> = Box::new(ModelEstimate::gemini());
        let shared: Arc<dyn TokenCounter> = Arc::new(CharEstimate);
        let closure = |text: &str| text.len();
        assert_eq!(boxed.exactness(), Exactness::UpperEstimate);
        assert_eq!(shared.exactness(), Exactness::Estimate);
        assert_eq!(closure.exactness(), Exactness::Unknown);
        assert_eq!(Box::new(CharEstimate).exactness(), Exactness::Estimate);
    }
}
