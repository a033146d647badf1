//! Exact OpenAI token counts through `tiktoken-rs`.

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

use super::TokenCounter;

/// A byte-pair encoding of OpenAI's models.
///
/// Every encoding counts what `tiktoken`'s `encode_ordinary` produces: text that looks
/// like a special token (`<|endoftext|>`) is ordinary text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// `o200k_base`: GPT-4o, GPT-4.1, GPT-5, o1, o3, o4 and the gpt-oss models.
    O200kBase,
    /// `cl100k_base`: GPT-4, GPT-3.5-turbo and the `text-embedding-3` models.
    Cl100kBase,
    /// `p50k_base`: Codex and `text-davinci-002`/`-003`.
    P50kBase,
    /// `r50k_base` (also `gpt2`): GPT-3 models such as `davinci`.
    R50kBase,
}

impl Encoding {
    /// The encoding's name as `tiktoken` spells it, e.g. `"o200k_base"`.
    ///
    /// ```
    /// assert_eq!(ctxbudget::count::Encoding::Cl100kBase.name(), "cl100k_base");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::R50kBase => "r50k_base",
        }
    }

    fn bpe(self) -> &'static CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
            Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of [`Tiktoken::for_model`] for a model name `tiktoken` does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown model `{model}`: no tiktoken encoding is known for it; \
     name the encoding instead, e.g. `Tiktoken::o200k_base()` for current OpenAI models"
)]
pub struct UnknownModel {
    /// The model name that was asked for.
    pub model: String,
}

/// Exact token counts of OpenAI's encodings, through `tiktoken-rs`.
///
/// The count of a text equals Python `tiktoken`'s `len(enc.encode_ordinary(text))`.
/// The vocabulary of each encoding is built once per process, on first use (about a
/// tenth of a second); a `Tiktoken` is a shared reference to it, so cloning is free.
///
/// ```
/// use ctxbudget::{Tiktoken, TokenCounter};
///
/// let counter = Tiktoken::o200k_base();
/// assert_eq!(counter.count("hello world"), 2);
/// // Special tokens are ordinary text: no panic, and not one token.
/// assert!(counter.count("<|endoftext|>") > 1);
///
/// let gpt4 = Tiktoken::for_model("gpt-4")?;
/// assert_eq!(gpt4.encoding(), ctxbudget::count::Encoding::Cl100kBase);
/// # Ok::<(), ctxbudget::count::UnknownModel>(())
/// ```
#[derive(Clone, Copy)]
pub struct Tiktoken {
    encoding: Encoding,
    bpe: &'static CoreBPE,
}

impl Tiktoken {
    /// A counter for `encoding`.
    pub fn new(encoding: Encoding) -> Self {
        Tiktoken {
            encoding,
            bpe: encoding.bpe(),
        }
    }

    /// `o200k_base`: GPT-4o, GPT-4.1, GPT-5 and the o-series.
    pub fn o200k_base() -> Self {
        Self::new(Encoding::O200kBase)
    }

    /// `cl100k_base`: GPT-4 and GPT-3.5-turbo.
    pub fn cl100k_base() -> Self {
        Self::new(Encoding::Cl100kBase)
    }

    /// `p50k_base`: Codex and `text-davinci-003`.
    pub fn p50k_base() -> Self {
        Self::new(Encoding::P50kBase)
    }

    /// `r50k_base`: GPT-3 (`davinci`).
    pub fn r50k_base() -> Self {
        Self::new(Encoding::R50kBase)
    }

    /// The counter for a model name, as `tiktoken.encoding_for_model` maps it
    /// (`"gpt-4o"`, `"gpt-4"`, fine-tuned `"ft:gpt-4o-mini:..."`, ...), or for an
    /// encoding's name (`"o200k_base"`). For windows and output limits as well, see
    /// the model catalogue, `ctxbudget::models`.
    ///
    /// # Errors
    ///
    /// [`UnknownModel`], naming the model, when no encoding is known for it.
    ///
    /// ```
    /// use ctxbudget::{count::Encoding, Tiktoken};
    ///
    /// assert_eq!(Tiktoken::for_model("gpt-4o")?.encoding(), Encoding::O200kBase);
    /// assert_eq!(Tiktoken::for_model("o200k_base")?.encoding(), Encoding::O200kBase);
    /// let err = Tiktoken::for_model("my-llama").unwrap_err();
    /// assert!(err.to_string().contains("`my-llama`"));
    /// # Ok::<(), ctxbudget::count::UnknownModel>(())
    /// ```
    pub fn for_model(model: &str) -> Result<Self, UnknownModel> {
        // An encoding's own name (`"o200k_base"`) names its counter too.
        if let Ok(encoding) = model.parse::<Encoding>() {
            return Ok(Self::new(encoding));
        }
        let encoding = match get_tokenizer(model) {
            // The harmony encoding adds special tokens only: ordinary text is
            // counted exactly as o200k_base counts it.
            Some(Tokenizer::O200kBase | Tokenizer::O200kHarmony) => Encoding::O200kBase,
            Some(Tokenizer::Cl100kBase) => Encoding::Cl100kBase,
            // p50k_edit adds special tokens to p50k_base only.
            Some(Tokenizer::P50kBase | Tokenizer::P50kEdit) => Encoding::P50kBase,
            Some(Tokenizer::R50kBase | Tokenizer::Gpt2) => Encoding::R50kBase,
            None => {
                return Err(UnknownModel {
                    model: model.to_owned(),
                });
            }
        };
        Ok(Self::new(encoding))
    }

    /// The encoding this counter uses.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }
}

impl fmt::Debug for Tiktoken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tiktoken")
            .field("encoding", &self.encoding)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Tiktoken {
    fn eq(&self, other: &Self) -> bool {
        self.encoding == other.encoding
    }
}

impl Eq for Tiktoken {}

/// Split points of every tiktoken encoding. Each encoding first cuts a text into
/// pieces with a regular expression and then encodes every piece alone, so counts
/// add up at an offset `at` when no piece of any sub-slice around `at` can reach
/// across it and every piece before `at` is decided without looking past it.
/// Two kinds of offsets have that property for all four patterns (`r50k_base`,
/// `p50k_base`, `cl100k_base`, `o200k_base`), which none look behind:
///
/// - **a space after a character other than whitespace.** A space only ever
///   starts a piece (as the optional prefix of a word, a number or punctuation),
///   and the piece before it is a run of letters, digits or punctuation that stops
///   at the space in the long text and at the end of the short one alike.
/// - **punctuation after a letter or digit**: `text[at]` is neither whitespace, a
///   letter, a digit, a combining mark nor an apostrophe (`'s`, `'ll`, ... attach
///   to the word before), and `text[at - 1]` is a letter or digit. Letter and digit
///   runs never take punctuation in, so a piece starts at `at`. This gives split
///   points to text without spaces: CJK (`。`, `、`), base64 (`+`, `/`), URLs.
///
/// The property tests in `tests/tiktoken.rs` check both on real and adversarial
/// text for every encoding.
fn is_split_point(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    if at == 0 || at >= bytes.len() || !text.is_char_boundary(at) {
        return false;
    }
    let Some(previous) = text[..at].chars().next_back() else {
        return false;
    };
    if bytes[at] == b' ' {
        return !previous.is_whitespace();
    }
    starts_punctuation_after_word(text, at)
}

/// A letter or digit followed by a character that is neither whitespace, letter,
/// digit, combining mark nor apostrophe: the second kind of split point, found by
/// one regular expression (the same Unicode classes the tokenizers use).
static WORD_THEN_PUNCTUATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[\p{L}\p{N}][^\s\p{L}\p{N}\p{M}']").expect("the pattern is valid")
});

/// The same test anchored at the start of a two-character slice.
static STARTS_WORD_THEN_PUNCTUATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\A[\p{L}\p{N}][^\s\p{L}\p{N}\p{M}']").expect("the pattern is valid")
});

fn starts_punctuation_after_word(text: &str, at: usize) -> bool {
    let (Some(previous), Some(next)) = (text[..at].chars().next_back(), text[at..].chars().next())
    else {
        return false;
    };
    if next.is_ascii() && previous.is_ascii() {
        // The common case, without the regular expression.
        return previous.is_ascii_alphanumeric()
            && !next.is_ascii_alphanumeric()
            && !next.is_ascii_whitespace()
            && next != '\'';
    }
    if next.is_ascii_alphanumeric() || next.is_whitespace() || next == '\'' {
        return false;
    }
    let pair = &text[at - previous.len_utf8()..at + next.len_utf8()];
    STARTS_WORD_THEN_PUNCTUATION.is_match(pair)
}

/// The first split point of the second kind at or after `from`.
fn next_punctuation_split(text: &str, from: usize) -> Option<usize> {
    // A match that starts one character before `from` gives a split at `from`.
    let mut search = floor_char_boundary(text, from.saturating_sub(4));
    while let Some(found) = WORD_THEN_PUNCTUATION.find_at(text, search) {
        let first = text[found.start()..].chars().next()?;
        let at = found.start() + first.len_utf8();
        if at >= from.max(1) {
            return Some(at);
        }
        search = at;
    }
    None
}

fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

impl TokenCounter for Tiktoken {
    fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }

    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        // Punctuation after a word first: it is near in most text, and it bounds
        // the search for a space, which may be far away (or absent, as in base64).
        let punctuation = next_punctuation_split(text, from);
        let bytes = &text.as_bytes()[..punctuation.unwrap_or(text.len())];
        let mut at = from.max(1);
        while at < bytes.len() {
            let Some(found) = memchr::memchr(b' ', &bytes[at..]) else {
                break;
            };
            at += found;
            if is_split_point(text, at) {
                return Some(at);
            }
            at += 1;
        }
        punctuation
    }

    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        let before = floor_char_boundary(text, before);
        text[..before]
            .char_indices()
            .rev()
            .map(|(at, _)| at)
            .take_while(|&at| at > 0)
            .find(|&at| is_split_point(text, at))
    }

    fn exactness(&self) -> super::Exactness {
        super::Exactness::Exact
    }

    // The split points above are checked to add up by the property tests in
    // `tests/tiktoken.rs`: the trimming engine need not count again.
    fn __trusted(&self, _: super::seal::Seal) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_points_need_a_space_after_non_whitespace() {
        let text = "ab  c\u{3000} d e";
        let points: Vec<usize> = (0..text.len())
            .filter(|&i| is_split_point(text, i))
            .collect();
        // "ab" then a space (2); the second space follows a space; the ideographic
        // space U+3000 is whitespace; "d" then a space.
        assert_eq!(points, vec![2, text.find(" e").unwrap()]);
    }

    /// The split points of `text`, walked forward with `next_split` and checked
    /// against the backward walk with `prev_split`.
    fn walk(counter: &Tiktoken, text: &str) -> Vec<usize> {
        let mut forward = Vec::new();
        let mut from = 0;
        while let Some(at) = counter.next_split(text, from) {
            forward.push(at);
            from = at + 1;
        }
        let mut backward = Vec::new();
        let mut before = text.len();
        while let Some(at) = counter.prev_split(text, before) {
            backward.push(at);
            before = at;
        }
        backward.reverse();
        assert_eq!(forward, backward, "{text:?}");
        forward
    }

    #[test]
    fn next_and_prev_split_walk_the_same_points() {
        let counter = Tiktoken::cl100k_base();
        assert_eq!(walk(&counter, " x  yy zzz\n w"), vec![2, 6]);
        let text = "a.b, c日本。x";
        let dot = text.find('.').unwrap();
        let comma = text.find(',').unwrap();
        let full_stop = text.find('。').unwrap();
        assert_eq!(walk(&counter, text), vec![dot, comma, comma + 1, full_stop]);
    }

    #[test]
    fn split_points_at_punctuation_after_a_word() {
        let text = "日本。語、x+y/z's e\u{301}. 1,2";
        let points: Vec<&str> = (0..text.len())
            .filter(|&i| is_split_point(text, i))
            .map(|i| &text[i..])
            .collect();
        // Not before the apostrophe (a contraction), nor after a combining mark;
        // a space after the full stop is one.
        assert_eq!(
            points,
            vec![
                "。語、x+y/z's e\u{301}. 1,2",
                "、x+y/z's e\u{301}. 1,2",
                "+y/z's e\u{301}. 1,2",
                "/z's e\u{301}. 1,2",
                " e\u{301}. 1,2",
                " 1,2",
                ",2",
            ]
        );
    }
}
