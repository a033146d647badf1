//! Token estimates for models whose tokenizer is not public (Claude 3 and later,
//! Gemini), made to count at least as many tokens as the closest public tokenizer.

use std::fmt;
use std::str::FromStr;

use super::{Exactness, TokenCounter};

/// Which measured weights a [`ModelEstimate`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EstimateProfile {
    /// Anthropic's Claude models, measured against Anthropic's pre-Claude-3
    /// tokenizer (the last one Anthropic published).
    Claude,
    /// Google's Gemini models, measured against Gemma 3's `SentencePiece` vocabulary
    /// (the one Google's Vertex AI SDK counts Gemini tokens with locally).
    Gemini,
}

impl EstimateProfile {
    /// The profile's name: `"claude"` or `"gemini"` (what [`FromStr`] parses).
    pub const fn name(self) -> &'static str {
        match self {
            EstimateProfile::Claude => "claude",
            EstimateProfile::Gemini => "gemini",
        }
    }

    /// The safety margin a [`ModelEstimate`] of this profile adds by default, in
    /// percent: 15 for Claude (its reference is a predecessor of the real
    /// tokenizer), 10 for Gemini (its reference shares the real vocabulary).
    pub const fn default_margin_percent(self) -> u32 {
        match self {
            EstimateProfile::Claude => 15,
            EstimateProfile::Gemini => 10,
        }
    }

    /// The weights, in thousandths of a token, in the order of [`Feature`].
    const fn weights(self) -> &'static [u32; FEATURES] {
        match self {
            EstimateProfile::Claude => &CLAUDE,
            EstimateProfile::Gemini => &GEMINI,
        }
    }
}

impl fmt::Display for EstimateProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// The error of parsing an [`EstimateProfile`] from a name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown estimate profile `{name}`: expected `claude` or `gemini`")]
pub struct UnknownProfile {
    /// The name that was given.
    pub name: String,
}

impl FromStr for EstimateProfile {
    type Err = UnknownProfile;

    /// `"claude"` or `"gemini"`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "claude" => Ok(EstimateProfile::Claude),
            "gemini" => Ok(EstimateProfile::Gemini),
            _ => Err(UnknownProfile {
                name: name.to_owned(),
            }),
        }
    }
}

/// A token estimate for models whose tokenizer is not public, made never to count
/// fewer tokens than the closest public tokenizer on the text it was measured on,
/// plus a safety margin.
///
/// Anthropic has published no tokenizer since Claude 2, and Google none for Gemini:
/// their token counts come from a network call (`count_tokens`). This counter gives a
/// budget that holds without one. It charges every character by its class (an ASCII
/// letter, a digit, a space, a newline, punctuation, a CJK character, another
/// character by its UTF-8 length), every change between letters, digits, whitespace,
/// punctuation and the rest, every lower-to-upper case change, every letter after the
/// tenth of a word, and a constant per text; then adds the margin and rounds up.
/// The weights are the smallest that keep the estimate at or above the reference
/// tokenizer on every text measured (found by linear programming, rounded up to
/// thousandths of a token):
///
/// - **Claude**: Anthropic's pre-Claude-3 tokenizer (the `anthropic` Python package
///   0.34.2 ships it; `tests/fixtures/tokenizers/`), the last one Anthropic published.
/// - **Gemini**: Gemma 3's `SentencePiece` vocabulary of 262,144 pieces, which Google's
///   Vertex AI SDK uses to count Gemini tokens locally (read from the Gemma 3 270M GGUF
///   file of a `PyPI` package, since no package ships the `.model` file itself).
///
/// The texts: 1,440 slices (16 to 16,384 characters) of the project's benchmark
/// corpus of Markdown, English prose and source code, and 570 adversarial texts of
/// 1 to 4,096 characters (CJK, rare Han characters, Hangul, emoji ZWJ sequences,
/// base64 with and without `+/`, hex, digits, one repeated letter, prose on one line,
/// random printable ASCII, whitespace runs, symbols, accented Latin, Cyrillic,
/// Devanagari, mixed scripts, combining marks).
/// `tests/fixtures/make_estimate_counts.py` measures, fits and prints this table;
/// `tests/suite/estimate.rs` checks the estimate against the references on 268 texts the
/// fit never saw (slices of the repository's own fixtures and new adversarial
/// strings).
///
/// | text | chars/token, Claude reference | estimate/reference, Claude: mean (min–max) | chars/token, Gemini reference | estimate/reference, Gemini: mean (min–max) |
/// | --- | ---: | ---: | ---: | ---: |
/// | Markdown, 1,024+ chars | 3.48 | 1.30 (1.17–1.54) | 3.28 | 1.33 (1.13–1.75) |
/// | prose, 1,024+ chars | 4.08 | 1.33 (1.16–1.90) | 3.43 | 1.28 (1.15–1.46) |
/// | code, 1,024+ chars | 3.80 | 1.30 (1.15–1.86) | 2.11 | 1.28 (1.10–1.65) |
/// | Markdown, prose, code, 16+ chars | 3.48–4.08 | 1.45–1.48 (1.15–4.50) | 2.11–3.43 | 1.41–1.47 (1.10–5.50) |
/// | CJK (Japanese, Chinese) | 0.86 | 3.51 (2.41–7.00) | 1.06 | 4.26 (3.11–8.00) |
/// | emoji ZWJ sequences | 0.44 | 1.49 (1.15–3.50) | 1.04 | 1.93 (1.11–5.00) |
/// | base64 | 1.41 | 2.48 (1.39–5.00) | 1.42 | 2.28 (1.11–6.00) |
/// | base64 without `+/` | 1.45 | 2.40 (1.42–5.00) | 1.45 | 2.23 (1.15–5.00) |
/// | one repeated letter | 5.85 | 4.32 (1.60–12.84) | 2.90 | 4.18 (1.12–11.56) |
/// | random printable ASCII | 1.27 | 2.16 (1.21–5.00) | 1.29 | 2.24 (1.10–7.00) |
///
/// (Ratios include the default margin. Short texts cost more than their share: each
/// text pays a constant of about 3.4 (Claude) or 4 (Gemini) tokens.)
///
/// # What is guaranteed
///
/// - On every text measured, the estimate is at least the reference tokenizer's
///   count, before the margin is added (the minimum ratios above are 1 plus the
///   margin or more).
/// - The estimate never decreases as text is added: every weight is at least zero,
///   so a prefix never costs more than the whole.
/// - Not guaranteed: that the real Claude or Gemini tokenizer agrees with its
///   reference, and that text unlike any measured keeps the estimate above the
///   reference. The margin ([`with_margin_percent`](ModelEstimate::with_margin_percent))
///   is there for both, and is a judgment, not a measurement. Anthropic's
///   documentation says that Claude 4.7 and later models use a newer tokenizer, with
///   which the same text counts about 30% more tokens than with Claude Haiku 4.5:
///   for those, raise the margin (`with_margin_percent(90)` covers both on prose, Markdown and code). For
///   billing-exact counts, ask the provider's `count_tokens` endpoint.
///
/// Budgets built with this counter therefore keep a prompt within the window on such
/// text, at the price of the ratios above: about a quarter to a third of the window
/// goes unused on English text.
///
/// ```
/// use ctxbudget::count::{Exactness, ModelEstimate};
/// use ctxbudget::TokenCounter;
///
/// let claude = ModelEstimate::claude();
/// let tokens = claude.count("The quick brown fox jumps over the lazy dog.");
/// assert!(tokens >= 10); // Anthropic's tokenizer gives 10
/// assert_eq!(claude.count(""), 0);
/// assert_eq!(claude.exactness(), Exactness::UpperEstimate);
/// // A wider margin never counts less.
/// assert!(claude.with_margin_percent(35).count("some text") >= claude.count("some text"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModelEstimate {
    profile: EstimateProfile,
    margin_percent: u32,
}

impl ModelEstimate {
    /// The estimate of `profile`, with its default margin.
    pub const fn new(profile: EstimateProfile) -> Self {
        ModelEstimate {
            profile,
            margin_percent: profile.default_margin_percent(),
        }
    }

    /// The estimate for Claude models (15% margin).
    pub const fn claude() -> Self {
        Self::new(EstimateProfile::Claude)
    }

    /// The estimate for Gemini models (10% margin).
    pub const fn gemini() -> Self {
        Self::new(EstimateProfile::Gemini)
    }

    /// Replaces the safety margin: counts are the measured bound times
    /// `1 + percent / 100`, rounded up. A margin below the default gives up the
    /// headroom for the difference between the reference and the real tokenizer;
    /// 0 keeps only the guarantee against the reference.
    #[must_use]
    pub const fn with_margin_percent(mut self, percent: u32) -> Self {
        self.margin_percent = percent;
        self
    }

    /// The profile whose weights this estimate uses.
    pub const fn profile(&self) -> EstimateProfile {
        self.profile
    }

    /// The safety margin, in percent.
    pub const fn margin_percent(&self) -> u32 {
        self.margin_percent
    }

    /// The estimated tokens of `text` (what [`TokenCounter::count`] returns).
    pub fn estimate(&self, text: &str) -> usize {
        self.tokens(Charges::new(self.profile).total(text))
    }

    /// `ceil(milli * (100 + margin) / 100_000)`, saturating.
    fn tokens(self, milli: u64) -> usize {
        let scaled = u128::from(milli) * (100 + u128::from(self.margin_percent));
        usize::try_from(scaled.div_ceil(100_000)).unwrap_or(usize::MAX)
    }
}

impl TokenCounter for ModelEstimate {
    fn count(&self, text: &str) -> usize {
        self.estimate(text)
    }

    fn count_within(&self, text: &str, limit: usize) -> Option<usize> {
        // The running total only grows, so stop at the first character past `limit`.
        let mut charges = Charges::new(self.profile);
        for c in text.chars() {
            charges.add(c);
            if self.tokens(charges.milli) > limit {
                return None;
            }
        }
        Some(self.tokens(charges.milli))
    }

    fn exactness(&self) -> Exactness {
        Exactness::UpperEstimate
    }

    // No split points; `count_within` is exact (the same sum as `count`).
    fn __trusted(&self, _: super::seal::Seal) -> bool {
        true
    }
}

/// The number of features, and the position of each in a profile's weights (the
/// order of `FEATURES` in `tests/fixtures/make_estimate_counts.py`).
const FEATURES: usize = 19;

/// The features the estimate charges for.
#[derive(Clone, Copy)]
enum Feature {
    Letter = 0,
    Digit,
    Space,
    Newline,
    OtherWhitespace,
    Punctuation,
    Cjk,
    TwoByte,
    ThreeByte,
    FourByte,
    /// Once per text that is not empty.
    Text,
    /// A letter after a character that is not a letter nor a digit.
    WordStart,
    /// A digit after a character that is not a digit nor a letter.
    NumberStart,
    /// Whitespace after a character that is not whitespace.
    WhitespaceStart,
    /// ASCII punctuation after a character that is not punctuation.
    PunctuationStart,
    /// A non-ASCII character after an ASCII one.
    OtherStart,
    /// A letter after a digit, or a digit after a letter.
    LetterDigitSwitch,
    /// An ASCII upper-case letter after a lower-case one.
    CaseChange,
    /// An ASCII letter after the tenth of a run of letters.
    LongWordLetter,
}

/// The weights fitted by `tests/fixtures/make_estimate_counts.py` against
/// Anthropic's pre-Claude-3 tokenizer, in thousandths of a token.
const CLAUDE: [u32; FEATURES] = [
    131, 425, 0, 879, 544, 381, 2589, 2137, 2146, 2391, 3399, 462, 438, 36, 739, 0, 1573, 1738, 216,
];

/// The weights fitted against Gemma 3's `SentencePiece` vocabulary.
const GEMINI: [u32; FEATURES] = [
    0, 1238, 963, 292, 1153, 245, 2719, 1615, 2118, 417, 4000, 124, 0, 0, 1653, 0, 271, 2098, 667,
];

/// Letters of a run past this many are charged [`Feature::LongWordLetter`].
const LONG_WORD: u32 = 10;

/// The coarse groups whose changes are charged: letters, digits, whitespace,
/// punctuation, and everything else.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Letter,
    Digit,
    Whitespace,
    Punctuation,
    Other,
}

fn classify(c: char) -> (Feature, Group) {
    match c {
        'a'..='z' | 'A'..='Z' => (Feature::Letter, Group::Letter),
        '0'..='9' => (Feature::Digit, Group::Digit),
        ' ' => (Feature::Space, Group::Whitespace),
        '\n' => (Feature::Newline, Group::Whitespace),
        '\t' | '\r' | '\x0b' | '\x0c' => (Feature::OtherWhitespace, Group::Whitespace),
        c if c.is_ascii() => (Feature::Punctuation, Group::Punctuation),
        c if is_cjk(c) => (Feature::Cjk, Group::Other),
        c => match c.len_utf8() {
            2 => (Feature::TwoByte, Group::Other),
            3 => (Feature::ThreeByte, Group::Other),
            _ => (Feature::FourByte, Group::Other),
        },
    }
}

/// Kana, CJK ideographs (with extension A, compatibility ideographs and the
/// supplementary planes), and Hangul syllables.
fn is_cjk(c: char) -> bool {
    matches!(
        u32::from(c),
        0x3040..=0x30FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xAC00..=0xD7AF
            | 0xF900..=0xFAFF
            | 0x2_0000..=0x3_FFFF
    )
}

/// The running sum of a text's charges, one character at a time.
struct Charges {
    weights: &'static [u32; FEATURES],
    milli: u64,
    previous: Option<(char, Group)>,
    run: u32,
}

impl Charges {
    fn new(profile: EstimateProfile) -> Self {
        Charges {
            weights: profile.weights(),
            milli: 0,
            previous: None,
            run: 0,
        }
    }

    fn charge(&mut self, feature: Feature) {
        self.milli = self
            .milli
            .saturating_add(u64::from(self.weights[feature as usize]));
    }

    fn add(&mut self, c: char) {
        let (feature, group) = classify(c);
        self.charge(feature);
        match self.previous {
            None => self.charge(Feature::Text),
            Some((_, before)) if before != group => self.charge(match (before, group) {
                (Group::Letter, Group::Digit) | (Group::Digit, Group::Letter) => {
                    Feature::LetterDigitSwitch
                }
                (_, Group::Letter) => Feature::WordStart,
                (_, Group::Digit) => Feature::NumberStart,
                (_, Group::Whitespace) => Feature::WhitespaceStart,
                (_, Group::Punctuation) => Feature::PunctuationStart,
                (_, Group::Other) => Feature::OtherStart,
            }),
            Some(_) => {}
        }
        if let Some((before, _)) = self.previous {
            if before.is_ascii_lowercase() && c.is_ascii_uppercase() {
                self.charge(Feature::CaseChange);
            }
        }
        self.run = match (group, self.previous) {
            (Group::Letter, Some((_, Group::Letter))) => self.run.saturating_add(1),
            (Group::Letter, _) => 1,
            _ => 0,
        };
        if self.run > LONG_WORD {
            self.charge(Feature::LongWordLetter);
        }
        self.previous = Some((c, group));
    }

    fn total(mut self, text: &str) -> u64 {
        for c in text.chars() {
            self.add(c);
        }
        self.milli
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_costs_nothing_and_any_character_costs_a_token() {
        for estimate in [ModelEstimate::claude(), ModelEstimate::gemini()] {
            assert_eq!(estimate.count(""), 0);
            for text in ["a", " ", "\n", "1", ".", "日", "é", "€", "😀"] {
                assert!(estimate.count(text) >= 1, "{text:?}");
            }
        }
    }

    #[test]
    fn count_within_agrees_with_count() {
        let text = "Hello, World! 1234 aGVsbG8gd29ybGQ= 日本語 👋🏽";
        for estimate in [ModelEstimate::claude(), ModelEstimate::gemini()] {
            let total = estimate.count(text);
            for limit in 0..total + 3 {
                assert_eq!(
                    estimate.count_within(text, limit),
                    (total <= limit).then_some(total),
                    "limit {limit}"
                );
            }
        }
    }

    #[test]
    fn margin_scales_the_sum() {
        let text = "one two three";
        let bare = ModelEstimate::claude().with_margin_percent(0);
        let doubled = ModelEstimate::claude().with_margin_percent(100);
        let milli = Charges::new(EstimateProfile::Claude).total(text);
        assert_eq!(bare.count(text) as u64, milli.div_ceil(1000));
        assert_eq!(doubled.count(text) as u64, (2 * milli).div_ceil(1000));
    }

    #[test]
    fn classes_and_changes() {
        // "aB" is a letter, a letter, a case change and the text's constant.
        let w = EstimateProfile::Gemini.weights();
        let milli = Charges::new(EstimateProfile::Gemini).total("aB");
        let expected = 2 * w[Feature::Letter as usize]
            + w[Feature::Text as usize]
            + w[Feature::CaseChange as usize];
        assert_eq!(milli, u64::from(expected));
        // "a1 " is a letter, a switch to a digit, then the start of whitespace.
        let milli = Charges::new(EstimateProfile::Claude).total("a1 ");
        let w = EstimateProfile::Claude.weights();
        let expected = w[Feature::Letter as usize]
            + w[Feature::Text as usize]
            + w[Feature::Digit as usize]
            + w[Feature::LetterDigitSwitch as usize]
            + w[Feature::Space as usize]
            + w[Feature::WhitespaceStart as usize];
        assert_eq!(milli, u64::from(expected));
    }

    #[test]
    fn long_words_pay_past_the_tenth_letter() {
        let w = EstimateProfile::Claude.weights();
        let ten = Charges::new(EstimateProfile::Claude).total("abcdefghij");
        let twelve = Charges::new(EstimateProfile::Claude).total("abcdefghijkl");
        assert_eq!(
            twelve - ten,
            u64::from(2 * (w[Feature::Letter as usize] + w[Feature::LongWordLetter as usize]))
        );
    }

    #[test]
    fn profiles_parse_from_their_names() {
        for profile in [EstimateProfile::Claude, EstimateProfile::Gemini] {
            assert_eq!(profile.name().parse::<EstimateProfile>(), Ok(profile));
        }
        assert!("gpt".parse::<EstimateProfile>().is_err());
    }
}
