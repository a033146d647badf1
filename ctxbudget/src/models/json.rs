//! Catalogue entries from JSON (feature `serde`).

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::lookup::{MAX_NAME_BYTES, Shortened, closest, edit_distance};
use super::{ApiFormat, Catalogue, InsertError, Model, ModelTokenizer, Price, Prices, Provider};
use crate::count::{Encoding, EstimateProfile};

/// The fields an entry may have.
const FIELDS: [&str; 10] = [
    "name",
    "provider",
    "context_window",
    "max_output_tokens",
    "tokenizer",
    "api",
    "aliases",
    "source",
    "checked",
    "prices",
];

/// The fields of `prices`, each in US dollars per million tokens.
const PRICE_FIELDS: [&str; 4] = ["input", "output", "cached_input", "cache_write"];

/// The fields an entry for a model the catalogue does not have needs.
const REQUIRED: [&str; 4] = ["provider", "context_window", "tokenizer", "api"];

/// Why catalogue entries could not be read from JSON: the file, the JSON, or one
/// entry, named with the field that is wrong and how to fix it.
///
/// ```
/// use ctxbudget::models::{Catalogue, CatalogueError};
///
/// let err = Catalogue::new()
///     .with_json(r#"{"models": [{"name": "my-model", "context_window": 8192}]}"#)
///     .unwrap_err();
/// assert!(matches!(&err, CatalogueError::Entry { field, .. } if field == "provider"));
/// assert!(err.to_string().contains("entry 1 (`my-model`)"), "{err}");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogueError {
    /// The file could not be read.
    #[error("cannot read the model catalogue file `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The text is not JSON, or not an object with a `models` array.
    #[error("{}: {message} at line {line}, column {column}; expected {{\"models\": [{{\"name\": ..., ...}}, ...]}}", Origin(file.as_deref()))]
    Json {
        /// The file, or `None` for text given directly.
        file: Option<PathBuf>,
        /// What is wrong.
        message: String,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
    },
    /// One entry is wrong.
    #[error("{}, entry {index}{}: field `{}`: {message}", Origin(file.as_deref()), EntryName(name.as_deref()), Shortened(field))]
    Entry {
        /// The file, or `None` for text given directly.
        file: Option<PathBuf>,
        /// The entry's position in `models`, from 1.
        index: usize,
        /// The entry's `name`, when it has one.
        name: Option<String>,
        /// The field that is wrong (or missing).
        field: String,
        /// What is wrong, and what is expected.
        message: String,
    },
}

struct Origin<'a>(Option<&'a Path>);

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(path) => write!(f, "model catalogue `{}`", path.display()),
            None => f.write_str("model catalogue JSON"),
        }
    }
}

struct EntryName<'a>(Option<&'a str>);

impl fmt::Display for EntryName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(name) => write!(f, " (`{}`)", Shortened(name)),
            None => Ok(()),
        }
    }
}

impl Catalogue {
    /// Adds or overrides models from JSON:
    ///
    /// ```json
    /// {"models": [
    ///   {"name": "llama-3.1-8b-local", "provider": "meta", "context_window": 32768,
    ///    "max_output_tokens": 4096, "api": "openai-chat",
    ///    "tokenizer": {"huggingface": "meta-llama/Llama-3.1-8B-Instruct"},
    ///    "aliases": ["local"], "source": "our deployment", "checked": "2026-12-01"},
    ///   {"name": "gpt-4o", "context_window": 64000}
    /// ]}
    /// ```
    ///
    /// An entry whose `name` is the name of a model already in the catalogue (case
    /// aside) overrides the fields it gives and keeps the others (its source becomes
    /// the entry's, or "user entry" over the old one). Any other entry is a new model
    /// and needs `provider` (`openai`, `anthropic`, `google`, `mistral`, `meta`, `deepseek`,
    /// `other`), `context_window`, `tokenizer` and `api` (`openai-chat`,
    /// `anthropic-messages`, `gemini`, `openai-responses`, `bedrock-converse`,
    /// `mistral-chat`, `other`). A name beats an
    /// alias, as in [`insert`](Catalogue::insert): a new model named like another
    /// model's alias (`gpt-4-1106-preview`) takes that name from it, and an entry
    /// that names an alias without those four fields is an error that names the
    /// model to override instead, never an override of the model the alias finds.
    /// An alias that is another model's name is an error too. `tokenizer` is one of
    /// `{"tiktoken": "o200k_base"}`, `{"huggingface": "owner/repo"}`,
    /// `{"tekken": {"repo": "owner/repo", "file": "tekken.json"}}` and
    /// `{"estimate": "claude"}` (or `"gemini"`); `max_output_tokens` is a number or
    /// `null` (output shares the window); `prices` is `{"input": 3.0, "output": 15.0}`
    /// in US dollars per million tokens, with `cached_input` and `cache_write` if the
    /// provider has them (they replace all the model's prices, a long-prompt tier
    /// too), or `null` (unknown). Entries are applied in order; on an error
    /// none is.
    ///
    /// ```
    /// use ctxbudget::models::Catalogue;
    ///
    /// let catalogue = Catalogue::new().with_json(r#"{"models": [
    ///     {"name": "gpt-4o", "context_window": 64000},
    ///     {"name": "house-model", "provider": "other", "context_window": 32768,
    ///      "max_output_tokens": null, "api": "openai-chat",
    ///      "tokenizer": {"tiktoken": "cl100k_base"}}
    /// ]}"#)?;
    /// assert_eq!(catalogue.lookup("gpt-4o")?.context_window(), 64_000);
    /// assert_eq!(catalogue.lookup("gpt-4o")?.max_output_tokens(), Some(16_384));
    /// assert_eq!(catalogue.lookup("house-model")?.prompt_limit(), 32_768);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`CatalogueError::Json`] for text that is not JSON or has no `models` array,
    /// with the position; [`CatalogueError::Entry`] for an entry with an unknown,
    /// missing or malformed field, or a name or alias the catalogue refuses
    /// ([`InsertError`]), naming the entry and the field.
    pub fn with_json(self, json: &str) -> Result<Self, CatalogueError> {
        self.apply(json, None)
    }

    /// [`with_json`](Self::with_json) on the contents of the file at `path`; errors
    /// name the file.
    ///
    /// # Errors
    ///
    /// [`CatalogueError::Read`] when the file cannot be read, and the errors of
    /// [`with_json`](Self::with_json).
    pub fn with_json_file(self, path: impl AsRef<Path>) -> Result<Self, CatalogueError> {
        let path = path.as_ref();
        let json = std::fs::read_to_string(path).map_err(|source| CatalogueError::Read {
            path: path.to_owned(),
            source,
        })?;
        self.apply(&json, Some(path))
    }

    fn apply(mut self, json: &str, file: Option<&Path>) -> Result<Self, CatalogueError> {
        let file_buf = file.map(Path::to_path_buf);
        let value: Value = serde_json::from_str(json).map_err(|err| CatalogueError::Json {
            file: file_buf.clone(),
            message: err
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_owned(),
            line: err.line(),
            column: err.column(),
        })?;
        let Some(entries) = value.get("models").and_then(Value::as_array) else {
            return Err(CatalogueError::Json {
                file: file_buf,
                message: "the top level is not an object with a `models` array".to_owned(),
                line: 1,
                column: 1,
            });
        };
        for (position, entry) in entries.iter().enumerate() {
            let name = entry.get("name").and_then(Value::as_str).map(str::to_owned);
            let error = |field: &str, message: String| CatalogueError::Entry {
                file: file_buf.clone(),
                index: position + 1,
                name: name.clone(),
                field: field.to_owned(),
                message,
            };
            let model = self
                .entry(entry)
                .map_err(|(field, message)| error(&field, message))?;
            if let Some((field, message)) = model.problem() {
                return Err(error(field, message));
            }
            self.insert(model).map_err(|err| {
                let field = match err {
                    InsertError::EmptyName | InsertError::NameTooLong { .. } => "name",
                    _ => "aliases",
                };
                error(field, err.to_string())
            })?;
        }
        Ok(self)
    }

    /// The model an entry describes, or the field that is wrong and why.
    fn entry(&self, entry: &Value) -> Result<Model, (String, String)> {
        let Some(fields) = entry.as_object() else {
            return Err((
                "name".to_owned(),
                "the entry is not a JSON object; expected {\"name\": \"...\", ...}".to_owned(),
            ));
        };
        for key in fields.keys() {
            if !FIELDS.contains(&key.as_str()) {
                // A suggestion only for a near miss (`contxt_window`), not any name.
                let nearest = closest(key, FIELDS.iter().copied())
                    .into_iter()
                    .next()
                    .filter(|near| {
                        key.len() <= 64 && edit_distance(&key.to_ascii_lowercase(), near) <= 3
                    });
                let hint = nearest.map_or(String::new(), |near| format!(" did you mean `{near}`?"));
                return Err((
                    key.clone(),
                    format!(
                        "unknown field;{hint} an entry has the fields {}",
                        FIELDS.map(|f| format!("`{f}`")).join(", ")
                    ),
                ));
            }
        }
        let name = match fields.get("name") {
            Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
            Some(_) => return Err(wrong("name", "a model name, as the API spells it")),
            None => {
                return Err((
                    "name".to_owned(),
                    "missing: every entry needs a `name`".to_owned(),
                ));
            }
        };
        if name.len() > MAX_NAME_BYTES {
            return Err((
                "name".to_owned(),
                format!(
                    "the name is {} bytes; expected a model name of at most {MAX_NAME_BYTES} bytes",
                    name.len()
                ),
            ));
        }
        let missing: Vec<&str> = REQUIRED
            .into_iter()
            .filter(|field| !fields.contains_key(*field))
            .collect();
        let list = || {
            let list: Vec<String> = missing.iter().map(|f| format!("`{f}`")).collect();
            list.join(", ")
        };
        let mut model = match self.find_exact(&name) {
            Some((known, false)) => {
                let source = format!("user entry, over {}", known.source());
                known.clone().with_source(source, None)
            }
            Some((known, true)) if !missing.is_empty() => {
                return Err((
                    "name".to_owned(),
                    format!(
                        "`{name}` is an alias of `{}`: name `{0}` to change that model, or add {} \
                         for a new model",
                        known.name(),
                        list()
                    ),
                ));
            }
            _ => {
                if let Some(first) = missing.first() {
                    return Err((
                        (*first).to_owned(),
                        format!(
                            "missing: `{name}` is not in the catalogue, so the entry needs {} \
                             (or name a model of the catalogue to override its fields)",
                            list()
                        ),
                    ));
                }
                // Placeholders, all replaced below.
                Model::new(
                    name.clone(),
                    Provider::Other,
                    1,
                    ModelTokenizer::Estimate(EstimateProfile::Claude),
                    ApiFormat::Other,
                )
            }
        };
        apply_fields(&mut model, fields)?;
        Ok(model)
    }
}

fn wrong(field: &str, expected: &str) -> (String, String) {
    (field.to_owned(), format!("expected {expected}"))
}

fn apply_fields(model: &mut Model, fields: &Map<String, Value>) -> Result<(), (String, String)> {
    if let Some(value) = fields.get("provider") {
        let provider = value.as_str().and_then(Provider::parse).ok_or_else(|| {
            wrong(
                "provider",
                "one of \"openai\", \"anthropic\", \"google\", \"mistral\", \"meta\", \"deepseek\", \"other\"",
            )
        })?;
        model.provider = provider;
    }
    if let Some(value) = fields.get("context_window") {
        model.context_window = tokens(value)
            .ok_or_else(|| wrong("context_window", "a whole number of tokens, at least 1"))?;
    }
    if let Some(value) = fields.get("max_output_tokens") {
        model.max_output_tokens = if value.is_null() {
            None
        } else {
            Some(tokens(value).ok_or_else(|| {
                wrong(
                    "max_output_tokens",
                    "a whole number of tokens, or null when output shares the window",
                )
            })?)
        };
    }
    if let Some(value) = fields.get("tokenizer") {
        model.tokenizer = tokenizer(value)?;
    }
    if let Some(value) = fields.get("api") {
        model.api = value.as_str().and_then(ApiFormat::parse).ok_or_else(|| {
            wrong(
                "api",
                "one of \"openai-chat\", \"anthropic-messages\", \"gemini\", \"openai-responses\", \"bedrock-converse\", \"mistral-chat\", \"other\"",
            )
        })?;
    }
    if let Some(value) = fields.get("aliases") {
        let items = value
            .as_array()
            .ok_or_else(|| wrong("aliases", "an array of names"))?;
        let mut aliases = Vec::with_capacity(items.len());
        for (position, item) in items.iter().enumerate() {
            let alias = item.as_str().ok_or_else(|| {
                wrong(
                    "aliases",
                    &format!("an array of names; item {} is not a string", position + 1),
                )
            })?;
            aliases.push(alias.to_owned());
        }
        model.aliases = aliases;
    }
    if let Some(value) = fields.get("source") {
        value
            .as_str()
            .ok_or_else(|| wrong("source", "a string: where the numbers come from"))?
            .clone_into(&mut model.source);
    }
    if let Some(value) = fields.get("prices") {
        model.prices = prices(value)?;
    }
    if let Some(value) = fields.get("checked") {
        model.checked = match value {
            Value::Null => None,
            Value::String(date) => Some(date.clone()),
            _ => return Err(wrong("checked", "a date written \"YYYY-MM-DD\", or null")),
        };
    }
    Ok(())
}

/// `prices`: `null`, or an object of [`PRICE_FIELDS`] with `input` and `output`.
fn prices(value: &Value) -> Result<Option<Prices>, (String, String)> {
    const EXPECTED: &str = "{\"input\": 3.0, \"output\": 15.0} in US dollars per million tokens \
         (optional \"cached_input\", \"cache_write\"), or null";
    if value.is_null() {
        return Ok(None);
    }
    let Some(fields) = value.as_object() else {
        return Err(wrong("prices", EXPECTED));
    };
    if let Some(unknown) = fields
        .keys()
        .find(|key| !PRICE_FIELDS.contains(&key.as_str()))
    {
        return Err((
            format!("prices.{unknown}"),
            format!(
                "unknown field; `prices` has the fields {}",
                PRICE_FIELDS.map(|f| format!("`{f}`")).join(", ")
            ),
        ));
    }
    let price = |field: &str| -> Result<Option<Price>, (String, String)> {
        fields
            .get(field)
            .map(|value| {
                value
                    .as_f64()
                    .and_then(Price::from_per_million)
                    .ok_or_else(|| {
                        wrong(
                            &format!("prices.{field}"),
                            "a price in US dollars per million tokens, 0 or more",
                        )
                    })
            })
            .transpose()
    };
    let (input, output) = (price("input")?, price("output")?);
    let (Some(input), Some(output)) = (input, output) else {
        let missing = if input.is_none() { "input" } else { "output" };
        return Err((
            format!("prices.{missing}"),
            format!("missing; expected {EXPECTED}"),
        ));
    };
    Ok(Some(
        Prices::new(input, output)
            .with_cached_input(price("cached_input")?)
            .with_cache_write(price("cache_write")?),
    ))
}

fn tokens(value: &Value) -> Option<usize> {
    value
        .as_u64()
        .filter(|&n| n > 0)
        .and_then(|n| usize::try_from(n).ok())
}

fn tokenizer(value: &Value) -> Result<ModelTokenizer, (String, String)> {
    const EXPECTED: &str = "one of {\"tiktoken\": \"o200k_base\"}, {\"huggingface\": \"owner/repo\"}, \
         {\"tekken\": {\"repo\": \"owner/repo\", \"file\": \"tekken.json\"}}, {\"estimate\": \"claude\"}";
    let field = "tokenizer";
    let Some((kind, inner)) = value
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.iter().next())
    else {
        return Err(wrong(field, EXPECTED));
    };
    let text = |what: &str| {
        inner
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| wrong(field, &format!("`{kind}` to be {what}")))
    };
    match kind.as_str() {
        "tiktoken" => {
            let name = text("an encoding name such as \"o200k_base\"")?;
            name.parse::<Encoding>()
                .map(ModelTokenizer::Tiktoken)
                .map_err(|err| (field.to_owned(), err.to_string()))
        }
        "huggingface" => Ok(ModelTokenizer::HuggingFace {
            repo: text("a hub repository, \"owner/name\"")?,
        }),
        "tekken" => {
            let part = |key: &str| inner.get(key).and_then(Value::as_str).map(str::to_owned);
            match (part("repo"), part("file")) {
                (Some(repo), Some(file)) => Ok(ModelTokenizer::Tekken { repo, file }),
                _ => Err(wrong(
                    field,
                    "`tekken` to be {\"repo\": \"owner/name\", \"file\": \"tekken.json\"}",
                )),
            }
        }
        "estimate" => {
            let name = text("\"claude\" or \"gemini\"")?;
            name.parse::<EstimateProfile>()
                .map(ModelTokenizer::Estimate)
                .map_err(|err| (field.to_owned(), err.to_string()))
        }
        _ => Err(wrong(field, EXPECTED)),
    }
}
