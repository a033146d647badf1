//! Exact OpenAI token counts: `tiktoken-rs`'s vocabularies, counted in linear time by
//! `bpe-openai` where it has the encoding.

use std::fmt;

use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

use super::linear::{Linear, OpenAi};
use super::{TokenCounter, tiktoken_splits};

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

    /// `tiktoken-rs`'s encoder: the counting engine of the legacy encodings, and the
    /// oracle the linear engine is tested against.
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

/// Exact token counts of OpenAI's encodings.
///
/// The count of a text equals Python `tiktoken`'s `len(enc.encode_ordinary(text))`.
/// `o200k_base` and `cl100k_base` are counted with `bpe-openai`'s vocabularies and
/// linear encoder (a piece that is one token costs one lookup), in time linear in
/// the text whatever it holds (tiktoken's own algorithm is super-linear on one long
/// piece, such as a run of one letter or of CJK text without punctuation), with the
/// token ids of `tiktoken-rs`; the legacy `p50k_base` and `r50k_base` by
/// `tiktoken-rs`. The vocabulary of each encoding is built once per process, on
/// first use (a few tenths of a second); a `Tiktoken` is a shared reference to it,
/// so cloning is free.
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
    engine: Engine,
}

/// What counts a [`Tiktoken`]: the linear engine where `bpe-openai` has the
/// encoding, `tiktoken-rs` itself for the legacy `p50k_base` and `r50k_base`.
#[derive(Clone, Copy)]
enum Engine {
    Linear(OpenAi),
    Classic(&'static CoreBPE),
}

impl Tiktoken {
    /// A counter for `encoding`.
    pub fn new(encoding: Encoding) -> Self {
        let engine = match encoding {
            Encoding::O200kBase => Engine::Linear(OpenAi::o200k_base()),
            Encoding::Cl100kBase => Engine::Linear(OpenAi::cl100k_base()),
            Encoding::P50kBase | Encoding::R50kBase => Engine::Classic(encoding.bpe()),
        };
        Tiktoken { encoding, engine }
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

impl TokenCounter for Tiktoken {
    fn count(&self, text: &str) -> usize {
        match self.engine {
            Engine::Linear(linear) => linear.count(text),
            Engine::Classic(bpe) => bpe.encode_ordinary(text).len(),
        }
    }

    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        tiktoken_splits::next_split(text, from)
    }

    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        tiktoken_splits::prev_split(text, before)
    }

    fn exactness(&self) -> super::Exactness {
        super::Exactness::Exact
    }

    fn count_within(&self, text: &str, limit: usize) -> Option<usize> {
        match self.engine {
            Engine::Linear(linear) => linear.count_within(text, limit),
            Engine::Classic(_) => super::count_within_by_splits(self, text, limit),
        }
    }

    // The split points are checked to add up by the property tests in
    // `tests/suite/tiktoken.rs`: the trimming engine need not count again.
    fn __trusted(&self, _: super::seal::Seal) -> bool {
        true
    }

    fn __linear(&self, _: super::seal::Seal) -> Option<Linear<'_>> {
        match self.engine {
            Engine::Linear(linear) => Some(linear.into()),
            Engine::Classic(_) => None,
        }
    }
}
