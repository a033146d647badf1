//! The model catalogue: the context window, output limit, prices, tokenizer and API
//! format of current OpenAI, Anthropic, Google, Mistral, DeepSeek and Meta models,
//! from LiteLLM's model table and the providers' documentation.
//!
//! [`Model::lookup`] finds a model by its name as the provider's API spells it, by an
//! alias, by a dated snapshot (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`,
//! `gemini-2.0-flash-001`), with a provider prefix (`openai/gpt-4o`,
//! `models/gemini-2.5-pro`), as a Bedrock id (`anthropic.claude-3-5-haiku-20241022-v1:0`,
//! `global.anthropic.claude-opus-4-7`) or a Vertex AI one (`claude-opus-4-6@default`).
//! An unknown name is an error that names the closest names in the catalogue, those
//! of the same family first; a name over [`MAX_NAME_BYTES`] (256) is refused as too
//! long. [`Model::counter`] gives the counter that matches the model's tokenizer, and
//! [`Model::input_cost`] what a request costs.
//!
//! ```
//! use ctxbudget::models::{ApiFormat, Model};
//! use ctxbudget::TokenCounter;
//!
//! let model = Model::lookup("gpt-4o-2024-08-06")?;
//! assert_eq!(model.name(), "gpt-4o");
//! assert_eq!(model.context_window(), 128_000);
//! assert_eq!(model.max_output_tokens(), Some(16_384));
//! assert_eq!(model.api(), ApiFormat::OpenAiChat);
//! // $2.50 per million input tokens, $1.25 per million read from the prompt cache.
//! assert_eq!(model.input_cost(1_000_000, 200_000), Some(2.25));
//!
//! let opus = Model::lookup("claude-opus-4-7")?;
//! assert_eq!((opus.context_window(), opus.max_output_tokens()), (1_000_000, Some(128_000)));
//!
//! // Tiktoken for OpenAI models, an upper estimate for Gemini, and for Claude the
//! // exact `Claude` counter (feature `claude`) or else an upper estimate.
//! let counter = Model::lookup("claude-sonnet-4-5")?.counter()?;
//! assert!(counter.count("Hello, Claude") >= 3);
//!
//! let err = Model::lookup("gpt-4-o").unwrap_err();
//! assert!(err.to_string().contains("`gpt-4o`"), "{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Where the numbers come from
//!
//! Two sources, one over the other:
//!
//! - **LiteLLM's model table** (`model_prices_and_context_window.json` of the
//!   `litellm` 1.110.2 package, MIT), kept current by its community: windows, output
//!   limits and prices. The crate ships the rows of the chat models whose request
//!   formats it reads and of the open models whose tokenizers it counts
//!   (`ctxbudget/data/litellm/README.md` gives the filter, and
//!   `scripts/refresh_litellm_catalogue.py` refreshes them from a pinned release).
//!   Their [`Model::source`] is the release's PyPI page.
//! - **Our rows**, each checked against the provider's documentation page it names
//!   ([`Model::source`]) on the day [`Model::checked`] gives: the tokenizer, API
//!   format and image rule of every model, and the numbers of the models we checked
//!   by hand. Where LiteLLM's numbers for one of these differ, ours stand only with
//!   a reason (a test keeps the list), and LiteLLM's prices apply all the same.
//!
//! A LiteLLM row that a lookup already finds (a dated snapshot, a Bedrock or Vertex
//! id) is a name of that model, not a model of its own, unless it is the provider's
//! own and its limits differ. Windows and limits change; a [`Catalogue`] takes
//! entries of your own or overrides (from JSON with the `serde` feature) without
//! waiting for a release. The windows are what the API accepts by default: beta
//! headers and tiers that raise them (a million tokens for Claude Sonnet 4 and 4.5,
//! 128,000 output tokens for Claude 3.7 Sonnet) are not assumed. Open-weight models
//! (Llama, and Mistral's open models) have no separate output limit: output shares
//! the window, and [`Model::max_output_tokens`] is `None`.
//!
//! | provider | models | source |
//! | --- | --- | --- |
//! | OpenAI | GPT-5 to 5.6 and their mini, nano, pro and codex models, GPT-4.1, GPT-4o, o1, o3, o4-mini, GPT-4 Turbo, GPT-4, GPT-3.5 Turbo | LiteLLM; the model pages of the OpenAI API docs for GPT-5 and older |
//! | Anthropic | Claude 3 to 5.5 (Opus, Sonnet, Haiku), Fable 5, Mythos 5 and Mythos Preview | LiteLLM; Anthropic's models overview for 4.5 and older |
//! | Google | Gemini 3.x Pro and Flash, 2.5 Pro, Flash, Flash-Lite; 2.0 Flash, Flash-Lite; 1.5 Pro, Flash, Flash-8B | LiteLLM; the Gemini API model pages for 2.5 and older |
//! | Mistral | Mistral Large, Medium, Small, Codestral, Devstral, Magistral, Ministral, Nemo | LiteLLM; Mistral's models overview for the dated open models |
//! | DeepSeek | DeepSeek-V3.2 (`deepseek-chat`, `deepseek-reasoner`), V3, R1 | LiteLLM |
//! | Meta | Llama 3.1, 3.2, 3.3, 4 Scout, 4 Maverick | Meta's model cards |
//!
//! Prices ([`Model::prices`]) are LiteLLM's: US dollars at the provider's standard
//! tier, per input and output token, for input read from or written to the prompt
//! cache where the provider has them, and the higher prices of a request with a long
//! prompt ([`LongPrompt`]). Models LiteLLM no longer lists (retired ones, Llama) have
//! none.
//!
//! `cargo run -p ctxbudget --example models` prints every row.
//!
//! Each row also says how the model bills images ([`Model::image_rule`]), as the
//! providers' vision guides publish it: OpenAI's 512-px tiles with the model's
//! figures or 32-px patches with its multiplier, Anthropic's `width × height / 750`,
//! or [`ImageRule::Unpublished`].
//!
//! # Tokenizers
//!
//! | [`ModelTokenizer`] | counter from [`Model::counter`] |
//! | --- | --- |
//! | [`Tiktoken`](ModelTokenizer::Tiktoken) (OpenAI) | [`Tiktoken`](crate::Tiktoken), exact |
//! | [`Estimate`](ModelTokenizer::Estimate) (Claude, Gemini, closed Mistral models) | for a Claude model whose name gives its tokenizer generation, with the `claude` feature: the `Claude` counter of that generation (`v3` up to Opus 4.6, `v4.7`, `v4.8` from Opus 4.8 and Claude 5 on), which counts as Anthropic does; otherwise [`ModelEstimate`](crate::count::ModelEstimate), an upper estimate (for Claude, with a margin that bounds the newest generation) |
//! | [`HuggingFace`](ModelTokenizer::HuggingFace) (Llama, DeepSeek, Mistral Large 2) | an error naming the file; [`Model::counter_from_file`] loads it with `HuggingFace::from_file` (feature `huggingface`) |
//! | [`Tekken`](ModelTokenizer::Tekken) (Mistral Nemo, Small 3) | an error naming the file; [`Model::counter_from_file`] loads it with `Tekken::from_file` (feature `tekken`) |
//!
//! The catalogue needs the `tiktoken` feature (on by default), whose
//! [`Encoding`] names the OpenAI rows' tokenizer; it does not
//! need `requests`. DeepSeek's API takes OpenAI's request format
//! ([`ApiFormat::OpenAiChat`]); its models count with DeepSeek's `tokenizer.json`.

mod builtin;
mod catalogue;
mod counter;
mod image_rule;
#[cfg(feature = "serde")]
mod json;
mod litellm;
mod lookup;
mod prices;
mod table;

use std::fmt;

pub use catalogue::{Catalogue, InsertError};
pub use counter::{CounterError, ModelCounter};
pub use image_rule::ImageRule;
#[cfg(feature = "serde")]
pub use json::CatalogueError;
pub use lookup::{MAX_NAME_BYTES, ModelNotFound};
pub use prices::{LongPrompt, Price, Prices};

use crate::count::{Encoding, EstimateProfile};

/// Who makes a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI.
    OpenAi,
    /// Anthropic.
    Anthropic,
    /// Google.
    Google,
    /// Mistral AI.
    Mistral,
    /// Meta.
    Meta,
    /// DeepSeek.
    DeepSeek,
    /// Any other provider (entries of your own).
    Other,
}

impl Provider {
    /// The provider's name as configuration files spell it: `"openai"`,
    /// `"anthropic"`, `"google"`, `"mistral"`, `"meta"`, `"deepseek"` or `"other"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Google => "google",
            Provider::Mistral => "mistral",
            Provider::Meta => "meta",
            Provider::DeepSeek => "deepseek",
            Provider::Other => "other",
        }
    }

    #[cfg_attr(not(feature = "serde"), allow(dead_code))] // JSON entries use it.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        [
            Provider::OpenAi,
            Provider::Anthropic,
            Provider::Google,
            Provider::Mistral,
            Provider::Meta,
            Provider::DeepSeek,
            Provider::Other,
        ]
        .into_iter()
        .find(|provider| provider.as_str() == name)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The request format a model's API takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApiFormat {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`). OpenAI's models that
    /// take it take the Responses API too.
    OpenAiChat,
    /// Anthropic Messages (`POST /v1/messages`).
    AnthropicMessages,
    /// Google's Gemini API (`generateContent`).
    GeminiGenerateContent,
    /// OpenAI Responses (`POST /v1/responses`) only: the models OpenAI serves through
    /// no other API (`o1-pro`, `o3-pro`, the `-codex` and `-pro` models of GPT-5).
    OpenAiResponses,
    /// Amazon Bedrock Converse (`POST /model/{modelId}/converse`): the API a Bedrock
    /// model id reaches ([`Model::api_for`]); no model's own [`api`](Model::api).
    BedrockConverse,
    /// Mistral's chat completions (`POST /v1/chat/completions` of La Plateforme: the
    /// shape of OpenAI's, with Mistral's own fields).
    MistralChat,
    /// No one API: open-weight models are served by many hosts (most of them with an
    /// OpenAI-compatible API) or run locally with their chat template.
    Other,
}

impl ApiFormat {
    /// The format's name as configuration files spell it: `"openai-chat"`,
    /// `"anthropic-messages"`, `"gemini"`, `"openai-responses"`, `"bedrock-converse"`,
    /// `"mistral-chat"` or `"other"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ApiFormat::OpenAiChat => "openai-chat",
            ApiFormat::AnthropicMessages => "anthropic-messages",
            ApiFormat::GeminiGenerateContent => "gemini",
            ApiFormat::OpenAiResponses => "openai-responses",
            ApiFormat::BedrockConverse => "bedrock-converse",
            ApiFormat::MistralChat => "mistral-chat",
            ApiFormat::Other => "other",
        }
    }

    #[cfg_attr(not(feature = "serde"), allow(dead_code))] // JSON entries use it.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        [
            ApiFormat::OpenAiChat,
            ApiFormat::AnthropicMessages,
            ApiFormat::GeminiGenerateContent,
            ApiFormat::OpenAiResponses,
            ApiFormat::BedrockConverse,
            ApiFormat::MistralChat,
            ApiFormat::Other,
        ]
        .into_iter()
        .find(|api| api.as_str() == name)
    }
}

impl fmt::Display for ApiFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// How a model's tokens are counted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelTokenizer {
    /// One of OpenAI's `tiktoken` encodings: exact counts with
    /// [`Tiktoken`](crate::Tiktoken).
    Tiktoken(Encoding),
    /// A Hugging Face `tokenizer.json`, published in the hub repository `repo`
    /// (`"meta-llama/Llama-3.1-8B-Instruct"`): download it (gated repositories need
    /// an accepted license) and load it with `HuggingFace::from_file`.
    HuggingFace {
        /// The hub repository, `owner/name`.
        repo: String,
    },
    /// A Mistral Tekken vocabulary: the file `file` of the hub repository `repo`,
    /// loaded with `Tekken::from_file`.
    Tekken {
        /// The hub repository, `owner/name`.
        repo: String,
        /// The file in it, e.g. `"tekken.json"`.
        file: String,
    },
    /// No public tokenizer: counted with the upper estimate of `profile`
    /// ([`ModelEstimate`](crate::count::ModelEstimate)).
    Estimate(EstimateProfile),
}

impl fmt::Display for ModelTokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelTokenizer::Tiktoken(encoding) => write!(f, "tiktoken {encoding}"),
            ModelTokenizer::HuggingFace { repo } => write!(f, "tokenizer.json of {repo}"),
            ModelTokenizer::Tekken { repo, file } => write!(f, "Tekken {file} of {repo}"),
            ModelTokenizer::Estimate(profile) => write!(f, "{profile} estimate"),
        }
    }
}

/// One model of the catalogue: its window, output limit, tokenizer, API format, and
/// where these come from.
///
/// Built-in models come from [`Model::lookup`] or a [`Catalogue`]; models of your
/// own from [`Model::new`] and the `with_*` methods, or from JSON
/// ([`Catalogue::with_json`]).
///
/// ```
/// use ctxbudget::count::Encoding;
/// use ctxbudget::models::{ApiFormat, Model, ModelTokenizer, Provider};
///
/// let model = Model::new(
///     "my-gateway-gpt",
///     Provider::Other,
///     64_000,
///     ModelTokenizer::Tiktoken(Encoding::O200kBase),
///     ApiFormat::OpenAiChat,
/// )
/// .with_max_output_tokens(Some(4_096))
/// .with_aliases(["gateway"])
/// .with_source("our gateway's limits page", Some("2026-12-01"));
/// assert_eq!(model.prompt_limit(), 59_904);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    name: String,
    provider: Provider,
    context_window: usize,
    max_output_tokens: Option<usize>,
    tokenizer: ModelTokenizer,
    api: ApiFormat,
    aliases: Vec<String>,
    source: String,
    checked: Option<String>,
    image_rule: ImageRule,
    prices: Option<Prices>,
}

impl Model {
    /// A model named `name` (as the API spells it), with no output limit of its own,
    /// no aliases, and "user entry" as its source.
    pub fn new(
        name: impl Into<String>,
        provider: Provider,
        context_window: usize,
        tokenizer: ModelTokenizer,
        api: ApiFormat,
    ) -> Self {
        Model {
            name: name.into(),
            provider,
            context_window,
            max_output_tokens: None,
            tokenizer,
            api,
            aliases: Vec::new(),
            source: "user entry".to_owned(),
            checked: None,
            image_rule: ImageRule::Unpublished,
            prices: None,
        }
    }

    /// Finds a model of the built-in catalogue by name, alias or dated snapshot (see
    /// [the module docs](self)).
    ///
    /// # Errors
    ///
    /// [`ModelNotFound`], with the closest names of the catalogue.
    pub fn lookup(name: &str) -> Result<&'static Model, ModelNotFound> {
        Catalogue::builtin().lookup(name)
    }

    /// Sets the output limit (`None`: output shares the window).
    #[must_use]
    pub fn with_max_output_tokens(mut self, tokens: Option<usize>) -> Self {
        self.max_output_tokens = tokens;
        self
    }

    /// Sets the other names the model is found by.
    #[must_use]
    pub fn with_aliases<S: Into<String>>(mut self, aliases: impl IntoIterator<Item = S>) -> Self {
        self.aliases = aliases.into_iter().map(Into::into).collect();
        self
    }

    /// Sets where the numbers come from, and the day (`YYYY-MM-DD`) they were checked.
    #[must_use]
    pub fn with_source(mut self, source: impl Into<String>, checked: Option<&str>) -> Self {
        self.source = source.into();
        self.checked = checked.map(str::to_owned);
        self
    }

    /// Sets the context window.
    #[must_use]
    pub fn with_context_window(mut self, tokens: usize) -> Self {
        self.context_window = tokens;
        self
    }

    /// Sets the tokenizer.
    #[must_use]
    pub fn with_tokenizer(mut self, tokenizer: ModelTokenizer) -> Self {
        self.tokenizer = tokenizer;
        self
    }

    /// Sets the API format.
    #[must_use]
    pub fn with_api(mut self, api: ApiFormat) -> Self {
        self.api = api;
        self
    }

    /// Sets how the model bills images.
    #[must_use]
    pub fn with_image_rule(mut self, rule: ImageRule) -> Self {
        self.image_rule = rule;
        self
    }

    /// Sets what the provider charges per token (`None`: unknown).
    #[must_use]
    pub fn with_prices(mut self, prices: Option<Prices>) -> Self {
        self.prices = prices;
        self
    }

    /// The model's name, as the provider's API spells it (`"gpt-4o"`,
    /// `"claude-sonnet-4-5-20250929"`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Who makes the model.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The context window: the most tokens of prompt and output together.
    pub fn context_window(&self) -> usize {
        self.context_window
    }

    /// The most tokens one response may have, when the provider sets a limit below
    /// the window; `None` when output shares the window (open-weight models).
    pub fn max_output_tokens(&self) -> Option<usize> {
        self.max_output_tokens
    }

    /// The output to reserve for the reply when a request sets no limit of its own:
    /// the model's maximum output when it is below the window; for a model whose
    /// output shares its window (no maximum of its own, or one that is the whole
    /// window, as gpt-4's 8,192 of 8,192), 4,096 tokens or half the window, whichever
    /// is less, so that a small window keeps half for the prompt.
    ///
    /// [`RequestFitter::for_model`](crate::request::RequestFitter::for_model) and
    /// [`AssembleOptions::for_model`](crate::assemble::AssembleOptions::for_model)
    /// reserve this.
    ///
    /// ```
    /// use ctxbudget::models::Model;
    ///
    /// assert_eq!(Model::lookup("gpt-4o")?.default_output(), 16_384);
    /// assert_eq!(Model::lookup("gpt-4")?.default_output(), 4_096);
    /// # Ok::<(), ctxbudget::models::ModelNotFound>(())
    /// ```
    pub fn default_output(&self) -> usize {
        /// What a reply may use of a window it shares with the prompt.
        const SHARED_WINDOW_OUTPUT: usize = 4_096;
        match self.max_output_tokens {
            Some(output) if output < self.context_window => output,
            _ => SHARED_WINDOW_OUTPUT.min(self.context_window / 2),
        }
    }

    /// The most tokens the prompt may have when the whole output limit is reserved:
    /// `context_window - max_output_tokens` (the whole window when there is no
    /// output limit, and 0 when the limit is over the window).
    pub fn prompt_limit(&self) -> usize {
        self.context_window
            .saturating_sub(self.max_output_tokens.unwrap_or(0))
    }

    /// How the model's tokens are counted.
    pub fn tokenizer(&self) -> &ModelTokenizer {
        &self.tokenizer
    }

    /// The request format of the model's API.
    pub fn api(&self) -> ApiFormat {
        self.api
    }

    /// The request format of the API that `name`, one of this model's names, reaches:
    /// [`ApiFormat::BedrockConverse`] for a Bedrock model id (`anthropic.claude-…`,
    /// with or without a region prefix such as `us.`, or `bedrock/…`), where the same
    /// Claude model takes Bedrock's own format; the model's [`api`](Self::api)
    /// otherwise (Vertex AI serves Claude with Anthropic's Messages format).
    ///
    /// ```
    /// use ctxbudget::models::{ApiFormat, Model};
    ///
    /// let name = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    /// let model = Model::lookup(name)?;
    /// assert_eq!(model.api(), ApiFormat::AnthropicMessages);
    /// assert_eq!(model.api_for(name), ApiFormat::BedrockConverse);
    /// assert_eq!(model.api_for("claude-sonnet-4-5"), ApiFormat::AnthropicMessages);
    /// # Ok::<(), ctxbudget::models::ModelNotFound>(())
    /// ```
    pub fn api_for(&self, name: &str) -> ApiFormat {
        let name = name.trim();
        let bedrock = name.starts_with("bedrock/")
            || name
                .rsplit('/')
                .next()
                .is_some_and(|id| id.starts_with("anthropic.") || id.contains(".anthropic."));
        if bedrock {
            ApiFormat::BedrockConverse
        } else {
            self.api
        }
    }

    /// How the model bills images, as its provider publishes it
    /// ([`ImageRule::Unpublished`] for a model of your own until you set it).
    pub fn image_rule(&self) -> ImageRule {
        self.image_rule
    }

    /// What the provider charges per token, when known: for built-in models, the
    /// prices of LiteLLM's table (see [`Prices`]).
    pub fn prices(&self) -> Option<&Prices> {
        self.prices.as_ref()
    }

    /// What `tokens` input tokens cost at the model's [`prices`](Self::prices), in US
    /// dollars, `cached` of them read from the prompt cache (see
    /// [`Prices::input_cost`]); `None` when the prices are unknown.
    ///
    /// ```
    /// use ctxbudget::models::Model;
    ///
    /// let sonnet = Model::lookup("claude-sonnet-4-5")?;
    /// // $3 per million input tokens, $0.30 per million read from the cache.
    /// assert_eq!(sonnet.input_cost(100_000, 0), Some(0.3));
    /// assert_eq!(sonnet.input_cost(100_000, 100_000), Some(0.03));
    /// # Ok::<(), ctxbudget::models::ModelNotFound>(())
    /// ```
    pub fn input_cost(&self, tokens: usize, cached: usize) -> Option<f64> {
        Some(self.prices?.input_cost(tokens, cached))
    }

    /// What `tokens` output tokens cost at the model's [`prices`](Self::prices), in
    /// US dollars, in a request of `prompt_tokens` input tokens (which may be over
    /// the threshold of the [long-prompt prices](Prices::long_prompt)); `None` when
    /// the prices are unknown.
    pub fn output_cost(&self, tokens: usize, prompt_tokens: usize) -> Option<f64> {
        Some(self.prices?.for_prompt(prompt_tokens).output_cost(tokens))
    }

    /// The other names the model is found by (`"claude-sonnet-4-5"`,
    /// `"chatgpt-4o-latest"`).
    pub fn aliases(&self) -> &[String] {
        &self.aliases
    }

    /// Where the numbers come from: the provider's documentation page (a URL) for
    /// built-in models.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The day (`YYYY-MM-DD`) the numbers were checked against [`source`](Self::source);
    /// every built-in model has one.
    pub fn checked(&self) -> Option<&str> {
        self.checked.as_deref()
    }

    /// Checks what the numbers must satisfy: a window of at least one token, an
    /// output limit of at least one token and not over the window, a name that is
    /// not empty, and a `checked` date written `YYYY-MM-DD`.
    pub(crate) fn problem(&self) -> Option<(&'static str, String)> {
        if self.name.trim().is_empty() {
            return Some(("name", "the name is empty".to_owned()));
        }
        if self.context_window == 0 {
            return Some(("context_window", "the window is 0 tokens".to_owned()));
        }
        match self.max_output_tokens {
            Some(0) => return Some(("max_output_tokens", "the output limit is 0".to_owned())),
            Some(output) if output > self.context_window => {
                return Some((
                    "max_output_tokens",
                    format!(
                        "the output limit {output} is over the context window {}; expected at \
                         most the window, or null when output shares it",
                        self.context_window
                    ),
                ));
            }
            _ => {}
        }
        if let Some(date) = &self.checked {
            if !is_date(date) {
                return Some((
                    "checked",
                    format!("`{date}` is not a date written YYYY-MM-DD"),
                ));
            }
        }
        None
    }
}

/// Whether `text` is written `YYYY-MM-DD` with a month 01-12 and a day 01-31.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    if !(digits(0..4) && digits(5..7) && digits(8..10)) {
        return false;
    }
    let month = (bytes[5] - b'0') * 10 + (bytes[6] - b'0');
    let day = (bytes[8] - b'0') * 10 + (bytes[9] - b'0');
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

impl fmt::Display for Model {
    /// One line: name, provider, window, output limit, tokenizer, API.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): window {}, output ",
            self.name, self.provider, self.context_window
        )?;
        match self.max_output_tokens {
            Some(tokens) => write!(f, "{tokens}")?,
            None => f.write_str("shares the window")?,
        }
        write!(f, ", {}, {}", self.tokenizer, self.api)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        for good in ["2026-12-01", "2024-01-31"] {
            assert!(is_date(good), "{good}");
        }
        for bad in [
            "2026-13-01",
            "2026-12-00",
            "2026-1-01",
            "26-12-01",
            "2026/12/01",
            "",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
    }

    #[test]
    fn names_parse_back() {
        for provider in [
            Provider::OpenAi,
            Provider::Meta,
            Provider::DeepSeek,
            Provider::Other,
        ] {
            assert_eq!(Provider::parse(provider.as_str()), Some(provider));
        }
        for api in [
            ApiFormat::OpenAiChat,
            ApiFormat::GeminiGenerateContent,
            ApiFormat::Other,
        ] {
            assert_eq!(ApiFormat::parse(api.as_str()), Some(api));
        }
        assert_eq!(Provider::parse("OpenAI"), None);
    }

    #[test]
    fn problems_name_the_field() {
        let model = Model::new(
            "x",
            Provider::Other,
            100,
            ModelTokenizer::Estimate(EstimateProfile::Claude),
            ApiFormat::Other,
        );
        assert_eq!(model.problem(), None);
        let over = model.clone().with_max_output_tokens(Some(101));
        assert_eq!(over.problem().map(|p| p.0), Some("max_output_tokens"));
        let empty = model.clone().with_context_window(0);
        assert_eq!(empty.problem().map(|p| p.0), Some("context_window"));
        let dated = model.with_source("s", Some("yesterday"));
        assert_eq!(dated.problem().map(|p| p.0), Some("checked"));
    }
}
