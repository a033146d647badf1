//! Choosing the token counter: `--encoding`, `--tokenizer FILE` or `--model`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use ctxbudget::TokenCounter;
use ctxbudget::count::{Encoding, HuggingFace, Tekken, Tiktoken};
use ctxbudget::models::Model;
use rayon::prelude::*;

use crate::error::CliError;
use crate::input::cannot_read;

/// The tiktoken encodings `--encoding` accepts, by name.
const ENCODINGS: [(&str, Encoding); 5] = [
    ("o200k_base", Encoding::O200kBase),
    ("cl100k_base", Encoding::Cl100kBase),
    ("p50k_base", Encoding::P50kBase),
    ("r50k_base", Encoding::R50kBase),
    ("gpt2", Encoding::R50kBase),
];

/// Which tokenizer counts: an encoding, a tokenizer file or a model; `o200k_base`
/// when none is given. A model and a file together count with the file (a model
/// whose tokenizer is a file, such as Llama) and take the rest from the model.
#[derive(Debug, Clone, Default, Args)]
pub struct CounterArgs {
    /// Count with this tiktoken encoding: `o200k_base` (GPT-4o, GPT-4.1, GPT-5,
    /// o-series), `cl100k_base` (GPT-4, GPT-3.5), `p50k_base`, `r50k_base` [default:
    /// `o200k_base`]
    #[arg(long, short = 'e', value_name = "ENCODING", conflicts_with_all = ["tokenizer", "model"])]
    pub encoding: Option<String>,
    /// Count with a tokenizer file: a Hugging Face tokenizer.json (Llama, Qwen,
    /// `DeepSeek`, ...) or a Mistral `tekken*.json`, told apart by their content; with
    /// --model, the model's own file
    #[arg(long, short = 't', value_name = "FILE")]
    pub tokenizer: Option<PathBuf>,
    /// Count with the tokenizer of this model of the catalogue (`ctxbudget models`
    /// lists them): exact for OpenAI models, an upper estimate for Claude and Gemini;
    /// a model whose tokenizer is a file needs --tokenizer FILE too
    #[arg(long, short = 'm', value_name = "MODEL")]
    pub model: Option<String>,
}

/// A loaded counter, shareable across threads, and the name reports give it.
#[derive(Clone)]
pub struct Counter {
    counter: Arc<dyn TokenCounter + Send + Sync>,
    name: String,
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl CounterArgs {
    /// Loads the counter the arguments name.
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
            return Ok(Counter::new(
                counter,
                format!("{} ({})", model.name(), model.tokenizer()),
            ));
        }
        let name = self.encoding.as_deref().unwrap_or("o200k_base");
        let encoding = parse_encoding(name)?;
        Ok(Counter::tiktoken(
            Tiktoken::new(encoding),
            encoding.name().to_owned(),
        ))
    }
}

/// The model of the built-in catalogue named `name` (an alias, a dated snapshot or a
/// provider prefix also finds it).
///
/// # Errors
///
/// An unknown name, with the closest names of the catalogue and what to do instead.
pub fn lookup_model(name: &str) -> Result<&'static Model, CliError> {
    Model::lookup(name).map_err(|error| {
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

/// The encoding named `name` (case and `-`/`_` do not matter).
fn parse_encoding(name: &str) -> Result<Encoding, CliError> {
    let wanted = name.trim().to_ascii_lowercase().replace('-', "_");
    ENCODINGS
        .iter()
        .find(|(known, _)| *known == wanted)
        .map(|&(_, encoding)| encoding)
        .ok_or_else(|| {
            CliError::input(format!(
                "unknown encoding `{name}`: use one of o200k_base, cl100k_base, p50k_base, \
                 r50k_base, or count with a model's own tokenizer file with `--tokenizer FILE`"
            ))
        })
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
    let bytes = std::fs::read(path).map_err(|error| cannot_read(path, &error))?;
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
            counter: Arc::new(counter),
            name,
        }
    }

    fn tiktoken(counter: Tiktoken, name: String) -> Self {
        Self::new(counter, name)
    }

    /// The counter, as the library's functions take it.
    pub fn get(&self) -> &(dyn TokenCounter + Send + Sync) {
        &*self.counter
    }

    /// What reports call it: the encoding, the model or the tokenizer file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The count of `text`. A long text is cut at the counter's split points (where
    /// counts add up exactly, see `TokenCounter::next_split`) and the pieces are
    /// counted on all cores; the sum is the count of the whole text.
    pub fn count(&self, text: &str) -> usize {
        if text.len() < PARALLEL_FROM || rayon::current_num_threads() < 2 {
            return self.counter.count(text);
        }
        let pieces = self.pieces(text, rayon::current_num_threads().saturating_mul(4));
        pieces
            .par_iter()
            .map(|piece| self.counter.count(piece))
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
                .counter
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

    #[test]
    fn encodings_parse_by_name() {
        assert_eq!(parse_encoding("o200k_base").unwrap(), Encoding::O200kBase);
        assert_eq!(parse_encoding("CL100K-BASE").unwrap(), Encoding::Cl100kBase);
        assert_eq!(parse_encoding("gpt2").unwrap(), Encoding::R50kBase);
        let message = parse_encoding("o300k").unwrap_err().to_string();
        assert!(message.contains("unknown encoding `o300k`"), "{message}");
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
