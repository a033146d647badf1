//! The built-in catalogue: LiteLLM's table ([`litellm`], generated from the vendored
//! JSON) under our overlay ([`table`]).
//!
//! The overlay's rows come first and keep their numbers; they take their prices from
//! the LiteLLM row that finds them when that row's limits agree (a test lists the
//! rows where they do not, each with why the overlay's numbers stand). Then every
//! LiteLLM row that no lookup finds yet is a model of its own, with the tokenizer,
//! API format and image rule of its provider; a row that finds a model is one of its
//! names (a dated snapshot, a Bedrock or Vertex id) unless it is the provider's own
//! and its limits differ, when it is a model of its own too.

use std::sync::LazyLock;

use super::litellm::{self, Row};
use super::lookup::{candidates, strip_bedrock_version};
use super::{
    ApiFormat, Catalogue, ImageRule, LongPrompt, Model, ModelTokenizer, Price, Prices, Provider,
    table,
};
use crate::count::{Encoding, EstimateProfile};

static BUILTIN: LazyLock<Catalogue> = LazyLock::new(Catalogue::build_builtin);

/// Where LiteLLM's rows come from.
const SOURCE: &str = "https://pypi.org/project/litellm/";

/// The windows OpenAI's model pages give for the GPT-5 family, which LiteLLM writes
/// as an input limit plus the output limit (272,000 + 128,000; 922,000 + 128,000).
const OPENAI_SPLIT_WINDOWS: [usize; 2] = [400_000, 1_050_000];

impl Catalogue {
    /// The built-in catalogue: LiteLLM's table under ours (see [the module
    /// docs](super)), built on first use.
    pub fn builtin() -> &'static Catalogue {
        &BUILTIN
    }

    /// A copy of the built-in catalogue, to add entries to.
    pub fn new() -> Self {
        Self::builtin().clone()
    }

    /// Builds the built-in catalogue anew from its tables, as [`builtin`](Self::builtin)
    /// does once, on first use (about a millisecond: `benches/catalogue.rs`); each
    /// call returns a catalogue of its own. [`new`](Self::new) copies the one already
    /// built.
    pub fn build_builtin() -> Catalogue {
        let mut catalogue = Catalogue::empty();
        for model in table::models() {
            let inserted = catalogue.insert(model);
            // The table's names are unique and short: a unit test checks every row.
            debug_assert!(inserted.is_ok(), "{inserted:?}");
        }
        let overlay = catalogue.len();
        let mut rows: Vec<(Origin, &'static str, &'static Row)> = litellm::ROWS
            .iter()
            .filter_map(|row| Some((Origin::of(row)?, bare(row.name), row)))
            .collect();
        // The provider's own rows first, then Bedrock's and Vertex's; by provider, and
        // by name without its date or version (the order `models` lists them in), the
        // model before its snapshots, which then find it.
        rows.sort_by_cached_key(|(origin, name, row)| {
            let stem = candidates(name).last().copied().unwrap_or(name);
            let rank = Origin::RANK.iter().position(|p| *p == origin.provider);
            (origin.platform, rank, stem, name.len(), *name, row.name)
        });
        for (origin, name, row) in rows {
            let Some(fresh) = origin.model(name, row) else {
                continue;
            };
            match catalogue.position(name) {
                Some((at, _)) if at < overlay => {
                    if let Some(known) = catalogue.numbers_mut(at) {
                        // Our OpenAI rows say Chat Completions; LiteLLM knows which
                        // models only the Responses API serves.
                        if row.responses && origin.provider == Provider::OpenAi {
                            known.api = ApiFormat::OpenAiResponses;
                        }
                        let corrected = table::CORRECTIONS.iter().any(|(n, _)| *n == row.name);
                        if !origin.platform
                            && known.prices.is_none()
                            && (corrected || agrees(known, &fresh))
                        {
                            known.prices = fresh.prices;
                        }
                    }
                }
                Some((at, exact)) => {
                    let differs = catalogue
                        .models()
                        .nth(at)
                        .is_some_and(|known| !agrees(known, &fresh));
                    if !origin.platform && !exact && differs {
                        let inserted = catalogue.insert(fresh);
                        debug_assert!(inserted.is_ok(), "{inserted:?}");
                    }
                }
                None => {
                    let inserted = catalogue.insert(fresh);
                    debug_assert!(inserted.is_ok(), "{inserted:?}");
                }
            }
        }
        catalogue
    }
}

/// Whether two models have the same window and output limit.
fn agrees(known: &Model, row: &Model) -> bool {
    (known.context_window, known.max_output_tokens) == (row.context_window, row.max_output_tokens)
}

/// The model name of a LiteLLM row: without the provider prefix (`gemini/`,
/// `vertex_ai/`), the Vertex version (`@20241022`) or the Bedrock form
/// (`global.anthropic.`, `-v1:0`).
fn bare(name: &str) -> &str {
    let name = name.rsplit('/').next().unwrap_or(name);
    let name = name.split('@').next().unwrap_or(name);
    match name.find("anthropic.") {
        Some(at) => strip_bedrock_version(&name[at + "anthropic.".len()..]),
        None => name,
    }
}

/// Who serves a LiteLLM row's model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Origin {
    /// Bedrock or Vertex AI, rather than the maker's own API.
    platform: bool,
    provider: Provider,
}

impl Origin {
    /// The order providers' models are added in.
    const RANK: [Provider; 5] = [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::Google,
        Provider::Mistral,
        Provider::DeepSeek,
    ];

    fn of(row: &Row) -> Option<Origin> {
        let own = |provider| {
            Some(Origin {
                platform: false,
                provider,
            })
        };
        match row.provider {
            "openai" => own(Provider::OpenAi),
            "anthropic" => own(Provider::Anthropic),
            "gemini" => own(Provider::Google),
            "mistral" => own(Provider::Mistral),
            "deepseek" => own(Provider::DeepSeek),
            platform if platform.starts_with("vertex_ai") || platform.starts_with("bedrock") => {
                let provider = if row.name.contains("claude") {
                    Provider::Anthropic
                } else {
                    Provider::Google
                };
                Some(Origin {
                    platform: true,
                    provider,
                })
            }
            _ => None,
        }
    }

    /// The model a row describes, with what only we know: its tokenizer, API format
    /// and image rule; `None` for a row whose numbers no model may have.
    fn model(self, name: &str, row: &Row) -> Option<Model> {
        let mut window = row.max_input;
        let split = row.max_input.saturating_add(row.max_output);
        if self.provider == Provider::OpenAi && OPENAI_SPLIT_WINDOWS.contains(&split) {
            window = split;
        }
        let output = (row.max_output < window).then_some(row.max_output);
        let (tokenizer, api, image) = match self.provider {
            Provider::OpenAi => {
                let old = name.starts_with("gpt-3.5")
                    || (name.starts_with("gpt-4")
                        && !name.starts_with("gpt-4o")
                        && !name.starts_with("gpt-4."));
                let encoding = if old {
                    Encoding::Cl100kBase
                } else {
                    Encoding::O200kBase
                };
                let api = if row.responses {
                    ApiFormat::OpenAiResponses
                } else {
                    ApiFormat::OpenAiChat
                };
                (
                    ModelTokenizer::Tiktoken(encoding),
                    api,
                    ImageRule::Unpublished,
                )
            }
            Provider::Anthropic => (
                table::claude_tokenizer(name),
                ApiFormat::AnthropicMessages,
                ImageRule::Anthropic,
            ),
            Provider::Google => (
                ModelTokenizer::Estimate(EstimateProfile::Gemini),
                ApiFormat::GeminiGenerateContent,
                ImageRule::Unpublished,
            ),
            // Mistral publishes no tokenizer for its API-only models: the Claude
            // estimate stands in, as for Codestral (not measured against Tekken).
            Provider::Mistral => (
                ModelTokenizer::Estimate(EstimateProfile::Claude),
                ApiFormat::MistralChat,
                ImageRule::Unpublished,
            ),
            Provider::DeepSeek => (
                ModelTokenizer::HuggingFace {
                    repo: deepseek_repo(name).to_owned(),
                },
                ApiFormat::OpenAiChat,
                ImageRule::Unpublished,
            ),
            Provider::Meta | Provider::Other => return None,
        };
        let prices = match (row.input, row.output) {
            (Some(input), Some(output)) => Some(
                Prices::new(
                    Price::from_picodollars(input),
                    Price::from_picodollars(output),
                )
                .with_cached_input(row.cache_read.map(Price::from_picodollars))
                .with_cache_write(row.cache_write.map(Price::from_picodollars))
                .with_long_prompt(long_prompt(row)),
            ),
            _ => None,
        };
        let model = Model::new(name, self.provider, window, tokenizer, api)
            .with_max_output_tokens(output)
            .with_source(
                format!("{SOURCE}{}/", litellm::VERSION),
                Some(litellm::CHECKED),
            )
            .with_image_rule(image)
            .with_prices(prices);
        model.problem().is_none().then_some(model)
    }
}

/// A row's long-prompt prices, when it gives them (input and output).
fn long_prompt(row: &Row) -> Option<LongPrompt> {
    let long = LongPrompt::new(
        row.long_above?,
        Price::from_picodollars(row.long_input?),
        Price::from_picodollars(row.long_output?),
    );
    Some(long.with_cached_input(row.long_cache_read.map(Price::from_picodollars)))
}

/// The hub repository of a DeepSeek API model's tokenizer: DeepSeek's API serves
/// DeepSeek-V3.2 as `deepseek-chat` and `deepseek-reasoner`.
fn deepseek_repo(name: &str) -> &'static str {
    match name {
        "deepseek-r1" => "deepseek-ai/DeepSeek-R1",
        "deepseek-v3" => "deepseek-ai/DeepSeek-V3",
        _ => "deepseek-ai/DeepSeek-V3.2",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated rows are the vendored JSON's, field for field, in its order: the
    /// two cannot drift apart.
    #[cfg(feature = "serde")]
    #[test]
    fn the_generated_rows_are_the_vendored_json() {
        use serde_json::Value;
        const JSON: &str = include_str!("../../data/litellm/model_prices_and_context_window.json");
        let table: serde_json::Map<String, Value> = serde_json::from_str(JSON).unwrap();
        assert_eq!(table.len(), litellm::ROWS.len());
        let price = |value: Option<&Value>| {
            value.and_then(Value::as_f64).map(|dollars| {
                let picodollars = (dollars * 1e12).round();
                assert!((0.0..1e15).contains(&picodollars), "{dollars}");
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let picodollars = picodollars as u64;
                picodollars
            })
        };
        let tokens = |value: &Value| usize::try_from(value.as_u64().unwrap()).unwrap();
        for ((name, fields), row) in table.iter().zip(litellm::ROWS) {
            let fields = fields.as_object().unwrap();
            assert_eq!(name, row.name);
            assert_eq!(fields["litellm_provider"], row.provider, "{name}");
            assert_eq!(fields["mode"] == "responses", row.responses, "{name}");
            assert_eq!(tokens(&fields["max_input_tokens"]), row.max_input, "{name}");
            assert_eq!(
                tokens(&fields["max_output_tokens"]),
                row.max_output,
                "{name}"
            );
            assert_eq!(
                price(fields.get("input_cost_per_token")),
                row.input,
                "{name}"
            );
            assert_eq!(
                price(fields.get("output_cost_per_token")),
                row.output,
                "{name}"
            );
            let cache_read = price(fields.get("cache_read_input_token_cost"));
            assert_eq!(cache_read, row.cache_read, "{name}");
            let cache_write = price(fields.get("cache_creation_input_token_cost"));
            assert_eq!(cache_write, row.cache_write, "{name}");
            let above = row.long_above.map(|tokens| tokens / 1000);
            let long = |field: &str| {
                above.and_then(|k| price(fields.get(&format!("{field}_above_{k}k_tokens"))))
            };
            assert_eq!(long("input_cost_per_token"), row.long_input, "{name}");
            assert_eq!(long("output_cost_per_token"), row.long_output, "{name}");
            assert_eq!(
                long("cache_read_input_token_cost"),
                row.long_cache_read,
                "{name}"
            );
            let tiers = fields
                .keys()
                .filter(|f| f.contains("_above_") && f.ends_with("k_tokens"));
            assert_eq!(tiers.count() > 0, row.long_above.is_some(), "{name}");
        }
    }

    #[test]
    fn bare_names() {
        for (row, name) in [
            ("gemini/gemini-2.5-pro", "gemini-2.5-pro"),
            ("vertex_ai/claude-3-5-haiku@20241022", "claude-3-5-haiku"),
            (
                "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "claude-sonnet-4-5-20250929",
            ),
            ("anthropic.claude-opus-4-7", "claude-opus-4-7"),
            ("gpt-4o", "gpt-4o"),
        ] {
            assert_eq!(bare(row), name, "{row}");
        }
    }

    /// Every row of LiteLLM's that finds a row of ours (not a LiteLLM one) agrees
    /// with it, or is a correction; every correction is used.
    #[test]
    fn the_overlay_agrees_with_litellm_or_says_why() {
        let catalogue = Catalogue::builtin();
        let mut disagree = Vec::new();
        for row in litellm::ROWS {
            let origin = Origin::of(row).unwrap();
            let name = bare(row.name);
            let (Some(known), Some(fresh)) = (catalogue.lookup(name).ok(), origin.model(name, row))
            else {
                panic!("{}", row.name);
            };
            if !origin.platform && !known.source().starts_with(SOURCE) && !agrees(known, &fresh) {
                disagree.push(row.name);
            }
        }
        let corrections: Vec<&str> = table::CORRECTIONS.iter().map(|(name, _)| *name).collect();
        assert_eq!(disagree, corrections);
        for (name, why) in table::CORRECTIONS {
            assert!(why.len() > 20, "{name}: say why");
        }
        // A correction takes the prices all the same.
        let gpt4 = catalogue.lookup("gpt-4").unwrap();
        assert_eq!(gpt4.max_output_tokens(), Some(8_192));
        assert_eq!(gpt4.prices().map(|p| p.input.per_million()), Some(30.0));
    }

    #[test]
    fn every_litellm_row_finds_a_model_of_its_provider() {
        let catalogue = Catalogue::builtin();
        for row in litellm::ROWS {
            let origin = Origin::of(row).unwrap_or_else(|| panic!("{}", row.name));
            let model = catalogue
                .lookup(row.name)
                .unwrap_or_else(|err| panic!("{}: {err}", row.name));
            assert_eq!(model.provider(), origin.provider, "{}", row.name);
        }
    }
}
