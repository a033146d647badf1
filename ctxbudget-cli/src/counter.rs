//! Choosing the token counter: `--encoding`, `--tokenizer FILE` or `--model`; for a
//! request body given none of them, the tokenizer of the body's own `model`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use clap::Args;
use ctxbudget::TokenCounter;
use ctxbudget::count::{Encoding, Exactness, HuggingFace, Tekken, Tiktoken};
use ctxbudget::models::{MAX_NAME_BYTES, Model, ModelCounter, ModelTokenizer};
use rayon::prelude::*;

use crate::error::CliError;
use crate::input::cannot_open;

/// The encoding that counts when nothing names another.
const DEFAULT_ENCODING: Encoding = Encoding::O200kBase;

/// Which tokenizer counts: an encoding, a tokenizer file or a model; when none is
/// given, a request body's own model, else `o200k_base`. A model and a file together
/// count with the file (a model whose tokenizer is a file, such as Llama) and take
/// the rest from the model.
#[derive(Debug, Clone, Default, Args)]
pub struct CounterArgs {
    /// Count with this tiktoken encoding: `o200k_base` (GPT-4o, GPT-4.1, GPT-5,
    /// o-series), `cl100k_base` (GPT-4, GPT-3.5), `p50k_base`, `r50k_base`, `gpt2`
    /// [default: a request body's model's tokenizer, else `o200k_base`]
    #[arg(long, short = 'e', value_name = "ENCODING", conflicts_with_all = ["tokenizer", "model"])]
    pub encoding: Option<String>,
    /// Count with a tokenizer file: a Hugging Face tokenizer.json (Llama, Qwen,
    /// `DeepSeek`, ...) or a Mistral `tekken*.json`, told apart by their content; with
    /// --model, the model's own file
    #[arg(long, short = 't', value_name = "FILE")]
    pub tokenizer: Option<PathBuf>,
    /// Count with the tokenizer of this model of the catalogue (`ctxbudget models`
    /// lists them): exact for OpenAI models and for Claude models (their tokenizer
    /// generation; the text's own tokens, without the message frame), an upper
    /// estimate for Gemini; a model whose tokenizer is a file needs --tokenizer FILE too
    #[arg(long, short = 'm', value_name = "MODEL")]
    pub model: Option<String>,
}

/// A loaded counter, shareable across threads, the name reports give it, and which
/// tokenizer it is (to tell whether it is a request's model's own).
#[derive(Clone)]
pub struct Counter {
    inner: Arc<dyn TokenCounter + Send + Sync>,
    name: String,
    /// The catalogue's description of the tokenizer; `None` for a tokenizer file,
    /// whose vocabulary the catalogue cannot name.
    tokenizer: Option<ModelTokenizer>,
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl CounterArgs {
    /// Whether an option names the counter.
    pub fn given(&self) -> bool {
        self.encoding.is_some() || self.tokenizer.is_some() || self.model.is_some()
    }

    /// Loads the counter the arguments name (`o200k_base` when none).
    ///
    /// # Errors
    ///
    /// An unknown encoding or model, or a tokenizer file that cannot be read or used,
    /// with what to do instead.
    pub fn load(&self) -> Result<Counter, CliError> {
        if let Some(path) = &self.tokenizer {
            // The model, when given too, must still be one the catalogue knows.
            if let Some(name) = &self.model {
                lookup_model(name)?;
            }
            return load_tokenizer_file(path);
        }
        if let Some(name) = &self.model {
            let model = lookup_model(name)?;
            let counter = model.counter().map_err(|error| {
                CliError::input(format!(
                    "{error}; from the shell, give the file too: `--model {name} --tokenizer tokenizer.json`"
                ))
            })?;
            let described = match &counter {
                ModelCounter::Claude(claude) => Some(format!(
                    "{} (Claude {} tokenizer)",
                    model.name(),
                    claude.generation()
                )),
                _ => None,
            };
            let mut counter = Counter::of_model(model, counter);
            if let Some(name) = described {
                counter.name = name;
            }
            return Ok(counter);
        }
        let encoding = match &self.encoding {
            Some(name) => name.parse::<Encoding>().map_err(|error| {
                CliError::input(format!(
                    "{error}; or count with a model's own tokenizer file: `--tokenizer FILE`"
                ))
            })?,
            None => DEFAULT_ENCODING,
        };
        Ok(Counter::of_encoding(encoding))
    }

    /// The counters of request bodies: the one the arguments name, or, when they name
    /// none, each body's model's own.
    ///
    /// # Errors
    ///
    /// As [`load`](Self::load).
    pub fn for_requests(&self) -> Result<RequestCounters, CliError> {
        Ok(RequestCounters {
            given: if self.given() {
                Some(self.load()?)
            } else {
                None
            },
            default: Counter::of_encoding(DEFAULT_ENCODING),
            by_model: RwLock::new(HashMap::new()),
        })
    }
}

/// Distinct body models whose counters are remembered (the rest are looked up again).
const REMEMBERED_MODELS: usize = 64;

/// The counter a request body is counted with, and why its counts are not exact for
/// the body's model when they are not.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The counter.
    pub counter: Counter,
    /// Set when the counter is not the body's model's own tokenizer (or the body
    /// names no model the catalogue knows): what was counted with, and why.
    pub warning: Option<String>,
}

/// How request bodies are counted: with the counter the options name, or with each
/// body's model's own (see [`CounterArgs::for_requests`]).
#[derive(Debug)]
pub struct RequestCounters {
    given: Option<Counter>,
    default: Counter,
    /// Read by every worker of `batch fit` for every body: a lock they share.
    by_model: RwLock<HashMap<String, Chosen>>,
}

impl RequestCounters {
    /// The counter for a body whose `model` is `model`.
    ///
    /// With a counter named on the command line, that one, with a warning when the
    /// catalogue knows the body's model and it counts with another tokenizer. With
    /// none, the body's model's own counter; a model the catalogue does not know (or
    /// whose tokenizer is a file, or no model at all) is counted with `o200k_base`,
    /// with a warning.
    pub fn for_body(&self, model: Option<&str>) -> Chosen {
        let Some(name) = model else {
            return match &self.given {
                Some(given) => Chosen {
                    counter: given.clone(),
                    warning: None,
                },
                None => self.fallback("the body names no `model`"),
            };
        };
        if let Ok(known) = self.by_model.read() {
            if let Some(chosen) = known.get(name) {
                return chosen.clone();
            }
        }
        let chosen = self.choose(name);
        if let Ok(mut known) = self.by_model.write() {
            if known.len() < REMEMBERED_MODELS && name.len() <= MAX_NAME_BYTES {
                known.insert(name.to_owned(), chosen.clone());
            }
        }
        chosen
    }

    fn choose(&self, name: &str) -> Chosen {
        let model = Model::lookup(name).ok();
        let shown = shown_name(name);
        if let Some(given) = &self.given {
            let warning = model.and_then(|model| {
                let own = model.tokenizer();
                let same = match &given.tokenizer {
                    Some(tokenizer) => tokenizer == own,
                    // A file: it may be the model's own file, unless the model's
                    // tokenizer is not a file at all.
                    None => !matches!(
                        own,
                        ModelTokenizer::Tiktoken(_) | ModelTokenizer::Estimate(_)
                    ),
                };
                (!same).then(|| {
                    format!(
                        "the body's model `{shown}` counts with {own}, not {}: the counts are \
                         not exact for it; leave the counter options out to count with its own",
                        given.name
                    )
                })
            });
            return Chosen {
                counter: given.clone(),
                warning,
            };
        }
        let Some(model) = model else {
            return self.fallback(&format!(
                "the body's model `{shown}` is not in the catalogue"
            ));
        };
        match model.counter() {
            Ok(counter) => Chosen {
                counter: Counter::of_model(model, counter),
                warning: None,
            },
            Err(_) => self.fallback(&format!(
                "the body's model `{shown}` counts with a tokenizer file (give it with \
                 `--tokenizer FILE`)"
            )),
        }
    }

    /// The default counter, with a warning that says why it was used.
    fn fallback(&self, why: &str) -> Chosen {
        Chosen {
            counter: self.default.clone(),
            warning: Some(format!(
                "{why}: counted with {}, which may count fewer tokens; name the counter \
                 with --model, --encoding or --tokenizer",
                self.default.name
            )),
        }
    }
}

/// A body's model name as a message shows it: control characters escaped, at most 64
/// characters.
fn shown_name(name: &str) -> String {
    const SHOWN: usize = 64;
    let mut shown: String = name
        .chars()
        .take(SHOWN)
        .flat_map(char::escape_debug)
        .collect();
    if name.chars().nth(SHOWN).is_some() {
        shown.push('…');
    }
    shown
}

/// The model of the built-in catalogue named `name` (an alias, a dated snapshot or a
/// provider prefix also finds it).
///
/// # Errors
///
/// An unknown name, with the closest names of the catalogue and what to do instead.
pub fn lookup_model(name: &str) -> Result<&'static Model, CliError> {
    Model::lookup(name).map_err(|error| {
        if error.is_too_long() {
            return CliError::input(format!("{error}; `ctxbudget models` lists the catalogue"));
        }
        let mean = did_you_mean(&error.suggestions);
        CliError::input(format!(
            "unknown model `{name}`: {mean}`ctxbudget models` lists the catalogue; or count \
             with an encoding (`--encoding o200k_base`) or a tokenizer file (`--tokenizer \
             tokenizer.json`)"
        ))
    })
}

/// `did you mean `a`, `b` or `c`? ` for the names of the catalogue closest to an
/// unknown one (empty when there are none).
pub fn did_you_mean(suggestions: &[String]) -> String {
    let names: Vec<String> = suggestions.iter().map(|name| format!("`{name}`")).collect();
    match names.as_slice() {
        [] => String::new(),
        [only] => format!("did you mean {only}? "),
        [first @ .., last] => format!("did you mean {} or {last}? ", first.join(", ")),
    }
}

/// The top-level sections that tell the two kinds of tokenizer files apart.
#[derive(serde::Deserialize)]
struct Sections {
    model: Option<serde::de::IgnoredAny>,
    config: Option<serde::de::IgnoredAny>,
    vocab: Option<serde::de::IgnoredAny>,
}

/// Loads a Hugging Face `tokenizer.json` or a Mistral Tekken file, told apart by their
/// top-level sections: a `model` section is Hugging Face's, `config` and `vocab` are
/// Tekken's.
fn load_tokenizer_file(path: &Path) -> Result<Counter, CliError> {
    if path.as_os_str() == "-" {
        return Err(CliError::input(
            "`--tokenizer -`: a tokenizer is read from a file, not standard input (which \
             holds the text): give the path of its tokenizer.json or tekken.json",
        ));
    }
    let bytes = std::fs::read(path).map_err(|error| cannot_open(path, &error))?;
    let Ok(sections) = serde_json::from_slice::<Sections>(&bytes) else {
        // Not a JSON object: the library's loader says where and why.
        return Err(tokenizer_error(HuggingFace::from_file(path).err(), path));
    };
    let label = path.display().to_string();
    if sections.model.is_some() {
        let counter = HuggingFace::from_file(path).map_err(|e| tokenizer_error(Some(e), path))?;
        return Ok(Counter::new(counter, label));
    }
    if sections.config.is_some() && sections.vocab.is_some() {
        let counter = Tekken::from_file(path).map_err(|e| tokenizer_error(Some(e), path))?;
        return Ok(Counter::new(counter, label));
    }
    Err(CliError::input(format!(
        "`{}` is neither a Hugging Face tokenizer.json (it has no `model` section) nor a \
         Mistral Tekken file (no `config` and `vocab`): pass the model's tokenizer.json or \
         tekken.json",
        path.display()
    )))
}

fn tokenizer_error(error: Option<ctxbudget::count::TokenizerFileError>, path: &Path) -> CliError {
    match error {
        Some(error) => CliError::input(error.to_string()),
        None => CliError::input(format!(
            "`{}` is not a tokenizer file: pass the model's tokenizer.json or tekken.json",
            path.display()
        )),
    }
}

/// Texts shorter than this are counted on one thread.
const PARALLEL_FROM: usize = 1 << 20;

impl Counter {
    fn new(counter: impl TokenCounter + Send + Sync + 'static, name: String) -> Self {
        Counter {
            inner: Arc::new(counter),
            name,
            tokenizer: None,
        }
    }

    fn of_encoding(encoding: Encoding) -> Self {
        Counter {
            tokenizer: Some(ModelTokenizer::Tiktoken(encoding)),
            ..Self::new(Tiktoken::new(encoding), encoding.name().to_owned())
        }
    }

    fn of_model(model: &Model, counter: impl TokenCounter + Send + Sync + 'static) -> Self {
        Counter {
            tokenizer: Some(model.tokenizer().clone()),
            ..Self::new(counter, format!("{} ({})", model.name(), model.tokenizer()))
        }
    }

    /// The counter, as the library's functions take it.
    pub fn get(&self) -> &(dyn TokenCounter + Send + Sync) {
        &*self.inner
    }

    /// What reports call it: the encoding, the model or the tokenizer file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether counting with this counter can say "exactly" for a request: false when
    /// it is not the tokenizer of the request's model (`warned`), however exact it is.
    pub fn exactness_for(&self, warned: bool) -> Exactness {
        let exactness = self.inner.exactness();
        if warned && exactness.never_under() {
            Exactness::Estimate
        } else {
            exactness
        }
    }

    /// The count of `text`. A long text is cut at the counter's split points (where
    /// counts add up exactly, see `TokenCounter::next_split`) and the pieces are
    /// counted on all cores; the sum is the count of the whole text.
    pub fn count(&self, text: &str) -> usize {
        if text.len() < PARALLEL_FROM || rayon::current_num_threads() < 2 {
            return self.inner.count(text);
        }
        let pieces = self.pieces(text, rayon::current_num_threads().saturating_mul(4));
        pieces
            .par_iter()
            .map(|piece| self.inner.count(piece))
            .reduce(|| 0, usize::saturating_add)
    }

    /// `text` cut into about `n` pieces at split points (one piece when the counter
    /// knows none).
    fn pieces<'t>(&self, text: &'t str, n: usize) -> Vec<&'t str> {
        let step = (text.len() / n.max(1)).max(PARALLEL_FROM / 4);
        let mut pieces = Vec::with_capacity(n.saturating_add(1));
        let mut start = 0;
        while text.len() - start > step {
            let from = start + step;
            let Some(at) = self
                .inner
                .next_split(text, from)
                .filter(|&at| at >= from && at < text.len() && text.is_char_boundary(at))
            else {
                break;
            };
            pieces.push(&text[start..at]);
            start = at;
        }
        pieces.push(&text[start..]);
        pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoding_of(name: &str) -> Result<Option<ModelTokenizer>, CliError> {
        let args = CounterArgs {
            encoding: Some(name.to_owned()),
            ..CounterArgs::default()
        };
        args.load().map(|counter| counter.tokenizer)
    }

    #[test]
    fn encodings_parse_by_the_librarys_names() {
        use ModelTokenizer::Tiktoken as T;
        assert_eq!(
            encoding_of("o200k_base").unwrap(),
            Some(T(Encoding::O200kBase))
        );
        assert_eq!(
            encoding_of("CL100K-BASE").unwrap(),
            Some(T(Encoding::Cl100kBase))
        );
        assert_eq!(encoding_of("gpt2").unwrap(), Some(T(Encoding::R50kBase)));
        // Names the CLI's own table lacked: one parser, the library's.
        assert_eq!(
            encoding_of("p50k_edit").unwrap(),
            Some(T(Encoding::P50kBase))
        );
        assert_eq!(
            encoding_of("o200k_harmony").unwrap(),
            Some(T(Encoding::O200kBase))
        );
        let message = encoding_of("o300k").unwrap_err().to_string();
        assert!(
            message.contains("unknown tiktoken encoding `o300k`"),
            "{message}"
        );
        assert!(message.contains("--tokenizer FILE"), "{message}");
    }

    #[test]
    fn a_body_is_counted_with_its_models_tokenizer_or_warned_about() {
        let counters = CounterArgs::default().for_requests().unwrap();
        let gpt4 = counters.for_body(Some("gpt-4"));
        assert_eq!(
            gpt4.counter.tokenizer,
            Some(ModelTokenizer::Tiktoken(Encoding::Cl100kBase))
        );
        assert!(gpt4.warning.is_none());
        for (model, why) in [
            (Some("my-gateway-model"), "is not in the catalogue"),
            (Some("llama-3.1-8b"), "counts with a tokenizer file"),
            (None, "names no `model`"),
        ] {
            let chosen = counters.for_body(model);
            let warning = chosen.warning.unwrap_or_default();
            assert!(warning.contains(why), "{model:?}: {warning}");
            assert!(warning.contains("counted with o200k_base"), "{warning}");
            assert_eq!(chosen.counter.name(), "o200k_base");
        }
        // A long name is not looked up, and is cut in the message.
        let long = "anthropic.".repeat(10_000);
        let warning = counters.for_body(Some(&long)).warning.unwrap();
        assert!(warning.len() < 400, "{warning}");
        // Named on the command line: that counter, with a warning when it is not the
        // body's model's.
        let given = CounterArgs {
            encoding: Some("o200k_base".to_owned()),
            ..CounterArgs::default()
        };
        let counters = given.for_requests().unwrap();
        let warning = counters.for_body(Some("gpt-4")).warning.unwrap();
        assert!(
            warning.contains("counts with tiktoken cl100k_base, not o200k_base"),
            "{warning}"
        );
        assert!(counters.for_body(Some("gpt-4o")).warning.is_none());
        assert!(counters.for_body(Some("unknown-model")).warning.is_none());
        assert!(counters.for_body(None).warning.is_none());
    }

    #[test]
    fn pieces_cover_the_text_and_add_up() {
        let counter = CounterArgs::default().load().unwrap();
        let sentence = "Counts add up at a space after a word, and at punctuation. ";
        let text = sentence.repeat(PARALLEL_FROM / sentence.len() * 3);
        let pieces = counter.pieces(&text, 8);
        assert!(pieces.len() > 1);
        assert_eq!(pieces.concat(), text);
        let sum: usize = pieces.iter().map(|p| counter.get().count(p)).sum();
        assert_eq!(sum, counter.get().count(&text));
    }
}
