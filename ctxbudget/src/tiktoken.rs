//! Exact OpenAI token counts through `tiktoken-rs`.

use std::fmt;

use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

use crate::TokenCounter;

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
    /// assert_eq!(ctxbudget::Encoding::Cl100kBase.name(), "cl100k_base");
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
/// assert_eq!(gpt4.encoding(), ctxbudget::Encoding::Cl100kBase);
/// # Ok::<(), ctxbudget::UnknownModel>(())
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
    /// (`"gpt-4o"`, `"gpt-4"`, fine-tuned `"ft:gpt-4o-mini:..."`, ...).
    ///
    /// # Errors
    ///
    /// [`UnknownModel`], naming the model, when no encoding is known for it.
    ///
    /// ```
    /// use ctxbudget::{Encoding, Tiktoken};
    ///
    /// assert_eq!(Tiktoken::for_model("gpt-4o")?.encoding(), Encoding::O200kBase);
    /// let err = Tiktoken::for_model("my-llama").unwrap_err();
    /// assert!(err.to_string().contains("`my-llama`"));
    /// # Ok::<(), ctxbudget::UnknownModel>(())
    /// ```
    pub fn for_model(model: &str) -> Result<Self, UnknownModel> {
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

/// Whether byte offset `at` of `text` is a split point of every tiktoken encoding:
/// a space that follows a character other than whitespace.
///
/// Why counts add up there: each encoding first cuts the text into pieces with a
/// regular expression and then encodes every piece alone. None of the four patterns
/// lets a piece run from a non-whitespace character into a following space (a space
/// only ever starts a piece), and none looks behind; the piece that ends before `at`
/// decides its end by looking at one character past it, which is a space in the
/// long text and the end of the text in the short one, with the same outcome. So the
/// pieces of `text[x..y]` are those of `text[x..at]` followed by those of
/// `text[at..y]`. The property test `split_points_are_additive` checks it on real
/// text for every encoding.
fn is_split_point(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    if at == 0 || at >= bytes.len() || bytes[at] != b' ' {
        return false;
    }
    match text[..at].chars().next_back() {
        Some(previous) => !previous.is_whitespace(),
        None => false,
    }
}

impl TokenCounter for Tiktoken {
    fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }

    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        let bytes = text.as_bytes();
        let mut at = from.max(1);
        while at < bytes.len() {
            at += memchr::memchr(b' ', &bytes[at..])?;
            if is_split_point(text, at) {
                return Some(at);
            }
            at += 1;
        }
        None
    }

    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        let bytes = text.as_bytes();
        let mut end = before.min(bytes.len());
        while end > 1 {
            let at = memchr::memrchr(b' ', &bytes[1..end])? + 1;
            if is_split_point(text, at) {
                return Some(at);
            }
            end = at;
        }
        None
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

    #[test]
    fn next_and_prev_split_walk_the_same_points() {
        let counter = Tiktoken::cl100k_base();
        let text = " x  yy zzz\n w";
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
        assert_eq!(forward, vec![2, 6]);
        assert_eq!(forward, backward);
    }
}
