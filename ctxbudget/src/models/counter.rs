//! From a catalogue model to the counter of its tokenizer.

use std::path::Path;

use super::{Model, ModelTokenizer, Provider};
#[cfg(feature = "claude")]
use crate::count::Claude;
#[cfg(feature = "huggingface")]
use crate::count::HuggingFace;
#[cfg(feature = "tekken")]
use crate::count::Tekken;
use crate::count::{EstimateProfile, Exactness, ModelEstimate, Tiktoken, TokenCounter, seal};

/// The margin, in percent, of the Claude estimate that a Claude model counts with
/// when the `Claude` counter cannot count it (the `claude` feature is off, or the
/// name says no tokenizer generation): an upper bound for the newest generation.
///
/// Measured with `cargo bench --bench claude` (`CLAUDE_BENCH=estimate`): without a
/// margin, the estimate is at least 0.55 of the newest generation's count on every
/// sampled slice (16 to 16,384 characters) of the benchmark corpus (prose, Markdown,
/// code, prose on one line) and of base64, CJK and emoji text, and at least 0.62 from
/// 256 characters on; the estimate's own 15% margin leaves it 8-11% under on 200 KB of
/// each corpus file. 90% keeps it at or above on all of them. Not covered: long runs
/// of one letter (0.35 of the newest count without a margin).
const CLAUDE_NEWEST_MARGIN: u32 = 90;

/// The counter of a catalogue model's tokenizer: what [`Model::counter`] and
/// [`Model::counter_from_file`] return.
///
/// It counts as the counter it holds does, split points and
/// [`exactness`](TokenCounter::exactness) included, so trimming with it is as fast as
/// with that counter. Cloning is cheap.
///
/// ```
/// use ctxbudget::count::Exactness;
/// use ctxbudget::models::{Model, ModelCounter};
/// use ctxbudget::TokenCounter;
///
/// let gpt = Model::lookup("gpt-4.1-mini")?.counter()?;
/// assert!(matches!(gpt, ModelCounter::Tiktoken(_)));
/// assert_eq!(gpt.count("hello world"), 2);
/// assert_eq!(gpt.exactness(), Exactness::Exact);
///
/// let gemini = Model::lookup("gemini-2.5-flash")?.counter()?;
/// assert_eq!(gemini.exactness(), Exactness::UpperEstimate);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ModelCounter {
    /// Exact counts of an OpenAI encoding.
    Tiktoken(Tiktoken),
    /// The upper estimate of a model whose tokenizer is not public.
    Estimate(ModelEstimate),
    /// Exact counts of a Claude model's tokenizer generation (feature `claude`).
    #[cfg(feature = "claude")]
    Claude(Claude),
    /// Exact counts of a Hugging Face `tokenizer.json` (feature `huggingface`).
    #[cfg(feature = "huggingface")]
    HuggingFace(HuggingFace),
    /// Exact counts of a Mistral Tekken file (feature `tekken`).
    #[cfg(feature = "tekken")]
    Tekken(Tekken),
}

macro_rules! each {
    ($self:ident, $counter:ident => $body:expr) => {
        match $self {
            ModelCounter::Tiktoken($counter) => $body,
            ModelCounter::Estimate($counter) => $body,
            #[cfg(feature = "claude")]
            ModelCounter::Claude($counter) => $body,
            #[cfg(feature = "huggingface")]
            ModelCounter::HuggingFace($counter) => $body,
            #[cfg(feature = "tekken")]
            ModelCounter::Tekken($counter) => $body,
        }
    };
}

impl TokenCounter for ModelCounter {
    fn count(&self, text: &str) -> usize {
        each!(self, counter => counter.count(text))
    }
    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        each!(self, counter => counter.next_split(text, from))
    }
    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        each!(self, counter => counter.prev_split(text, before))
    }
    fn count_within(&self, text: &str, limit: usize) -> Option<usize> {
        each!(self, counter => counter.count_within(text, limit))
    }
    fn exactness(&self) -> Exactness {
        each!(self, counter => counter.exactness())
    }
    fn __trusted(&self, seal: seal::Seal) -> bool {
        each!(self, counter => counter.__trusted(seal))
    }
    fn __linear(&self, seal: seal::Seal) -> Option<crate::count::Linear<'_>> {
        each!(self, counter => counter.__linear(seal))
    }
    #[cfg(feature = "claude")]
    fn __claude(&self, seal: seal::Seal) -> Option<crate::count::Claude> {
        each!(self, counter => counter.__claude(seal))
    }
}

/// Why [`Model::counter`] or [`Model::counter_from_file`] could not give a counter.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CounterError {
    /// The model's tokenizer is a file the caller has to provide: the message names
    /// the file and the function that loads it.
    #[error(
        "`{model}` counts with the {kind} file `{file}` of the Hugging Face repository \
         `{repo}`, which ctxbudget does not download: get it and call \
         `Model::counter_from_file(path)` (or `{loader}(path)`){feature_note}"
    )]
    NeedsFile {
        /// The model.
        model: String,
        /// `"tokenizer.json"` or `"Tekken"`.
        kind: &'static str,
        /// The hub repository.
        repo: String,
        /// The file in it.
        file: String,
        /// The function that loads it: `"HuggingFace::from_file"` or `"Tekken::from_file"`.
        loader: &'static str,
        /// `""`, or a note that the loader's feature is off.
        feature_note: &'static str,
    },
    /// [`Model::counter_from_file`] for a model whose counter needs no file.
    #[error("`{model}` counts with {tokenizer}, which needs no file: call `Model::counter()`")]
    NoFileNeeded {
        /// The model.
        model: String,
        /// Its tokenizer, as displayed.
        tokenizer: String,
    },
    /// The loader's feature is off in this build.
    #[error(
        "`{model}` counts with a {kind} file, and loading one needs the `{feature}` \
         feature of ctxbudget: enable it in Cargo.toml"
    )]
    FeatureOff {
        /// The model.
        model: String,
        /// `"tokenizer.json"` or `"Tekken"`.
        kind: &'static str,
        /// The feature to enable.
        feature: &'static str,
    },
    /// The file could not be loaded.
    #[cfg(any(feature = "huggingface", feature = "tekken"))]
    #[error("`{model}`: {source}")]
    File {
        /// The model.
        model: String,
        /// What is wrong with the file.
        source: crate::count::TokenizerFileError,
    },
}

impl Model {
    /// The counter of this model's tokenizer: [`Tiktoken`] for OpenAI's encodings,
    /// `Claude` for a Claude model whose name says its tokenizer generation (feature
    /// `claude`), [`ModelEstimate`] for other models without a public tokenizer:
    /// with its default margin for Gemini, and for Claude with a margin of 90% that
    /// makes it an upper bound for the newest tokenizer generation, which counts
    /// about 30% more than the older one.
    ///
    /// # Errors
    ///
    /// [`CounterError::NeedsFile`] for a model whose tokenizer is a file (Hugging
    /// Face `tokenizer.json`, Mistral Tekken): the message names the repository, the
    /// file and the loader; [`counter_from_file`](Self::counter_from_file) takes it.
    ///
    /// ```
    /// use ctxbudget::models::{CounterError, Model};
    ///
    /// let err = Model::lookup("llama-3.3-70b")?.counter().unwrap_err();
    /// assert!(matches!(err, CounterError::NeedsFile { .. }));
    /// assert!(err.to_string().contains("meta-llama/Llama-3.3-70B-Instruct"), "{err}");
    /// assert!(err.to_string().contains("HuggingFace::from_file"), "{err}");
    /// # Ok::<(), ctxbudget::models::ModelNotFound>(())
    /// ```
    pub fn counter(&self) -> Result<ModelCounter, CounterError> {
        match &self.tokenizer {
            ModelTokenizer::Tiktoken(encoding) => {
                Ok(ModelCounter::Tiktoken(Tiktoken::new(*encoding)))
            }
            ModelTokenizer::Estimate(profile) => {
                // Other providers' models may borrow the Claude estimate.
                let claude = *profile == EstimateProfile::Claude && self.is_claude();
                #[cfg(feature = "claude")]
                if let Some(counter) = Claude::for_model(&self.name).filter(|_| claude) {
                    return Ok(ModelCounter::Claude(counter));
                }
                let estimate = ModelEstimate::new(*profile);
                Ok(ModelCounter::Estimate(if claude {
                    estimate.with_margin_percent(CLAUDE_NEWEST_MARGIN)
                } else {
                    estimate
                }))
            }
            ModelTokenizer::HuggingFace { repo } => Err(CounterError::NeedsFile {
                model: self.name.clone(),
                kind: "tokenizer.json",
                repo: repo.clone(),
                file: "tokenizer.json".to_owned(),
                loader: "HuggingFace::from_file",
                feature_note: if cfg!(feature = "huggingface") {
                    ""
                } else {
                    " with the `huggingface` feature on"
                },
            }),
            ModelTokenizer::Tekken { repo, file } => Err(CounterError::NeedsFile {
                model: self.name.clone(),
                kind: "Tekken",
                repo: repo.clone(),
                file: file.clone(),
                loader: "Tekken::from_file",
                feature_note: if cfg!(feature = "tekken") {
                    ""
                } else {
                    " with the `tekken` feature on"
                },
            }),
        }
    }

    /// Whether this is one of Anthropic's Claude models.
    fn is_claude(&self) -> bool {
        self.provider == Provider::Anthropic || self.name.to_ascii_lowercase().contains("claude")
    }

    /// The counter of this model's tokenizer file at `path`: a `tokenizer.json`
    /// loaded with `HuggingFace::from_file`, or a Tekken file loaded with
    /// `Tekken::from_file`, as the model's [`tokenizer`](Self::tokenizer) says.
    ///
    /// # Errors
    ///
    /// [`CounterError::NoFileNeeded`] for a model whose counter needs no file;
    /// [`CounterError::FeatureOff`] when the loader's feature is off;
    /// `CounterError::File` (features `huggingface`, `tekken`) when the file cannot
    /// be loaded, naming it.
    pub fn counter_from_file(&self, path: impl AsRef<Path>) -> Result<ModelCounter, CounterError> {
        let path = path.as_ref();
        match &self.tokenizer {
            ModelTokenizer::Tiktoken(_) | ModelTokenizer::Estimate(_) => {
                Err(CounterError::NoFileNeeded {
                    model: self.name.clone(),
                    tokenizer: self.tokenizer.to_string(),
                })
            }
            ModelTokenizer::HuggingFace { .. } => {
                #[cfg(feature = "huggingface")]
                {
                    HuggingFace::from_file(path)
                        .map(ModelCounter::HuggingFace)
                        .map_err(|source| CounterError::File {
                            model: self.name.clone(),
                            source,
                        })
                }
                #[cfg(not(feature = "huggingface"))]
                {
                    let _ = path;
                    Err(CounterError::FeatureOff {
                        model: self.name.clone(),
                        kind: "tokenizer.json",
                        feature: "huggingface",
                    })
                }
            }
            ModelTokenizer::Tekken { .. } => {
                #[cfg(feature = "tekken")]
                {
                    Tekken::from_file(path)
                        .map(ModelCounter::Tekken)
                        .map_err(|source| CounterError::File {
                            model: self.name.clone(),
                            source,
                        })
                }
                #[cfg(not(feature = "tekken"))]
                {
                    let _ = path;
                    Err(CounterError::FeatureOff {
                        model: self.name.clone(),
                        kind: "Tekken",
                        feature: "tekken",
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalogue counter hands the trimming engine what its counter has: the
    /// linear engine of an OpenAI encoding, which searches inside a long piece
    /// in one pass instead of counting probes.
    #[test]
    fn a_model_counter_passes_its_linear_engine_on() {
        let counter = Model::lookup("gpt-4o").unwrap().counter().unwrap();
        assert!(matches!(counter, ModelCounter::Tiktoken(_)));
        assert!(crate::count::linear_engine(&counter).is_some());
        let estimate = ModelCounter::Estimate(ModelEstimate::claude());
        assert!(crate::count::linear_engine(&estimate).is_none());
    }
}
