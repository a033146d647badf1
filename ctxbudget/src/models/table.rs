//! Our rows: the models we checked against their provider's documentation, each with
//! the page it was taken from and the day it was checked. They come before LiteLLM's
//! rows ([`builtin`](super::builtin)) and keep their numbers; LiteLLM gives them
//! their prices.
//!
//! Windows the documentation gives as "128k" or "256k" are taken as 128,000 and
//! 256,000 tokens (the smaller reading). Open-weight models have no output limit of
//! their own (`None`). Retired models (Gemini 1.5, GPT-4, GPT-3.5 Turbo, o1-preview,
//! the Claude 3 models) are no longer on their providers' current pages: their rows
//! keep the numbers those pages last gave, and the Gemini 1.5 rows point at the
//! models page that listed them. Mistral's `-latest` names are not aliases here: they
//! move to each new model, and LiteLLM's rows for them say where they point now.

use super::{ApiFormat, ImageRule, Model, ModelTokenizer, Provider};
use crate::count::{Encoding, EstimateProfile};

/// The day every row below was last checked against its source.
const CHECKED: &str = "2026-12-01";

const OPENAI: &str = "https://developers.openai.com/api/docs/models/";
const ANTHROPIC: &str = "https://docs.anthropic.com/en/docs/about-claude/models/overview";
const GEMINI: &str = "https://ai.google.dev/gemini-api/docs/models/";
const GEMINI_1_5: &str = "https://ai.google.dev/gemini-api/docs/models";
const MISTRAL: &str = "https://docs.mistral.ai/getting-started/models/models_overview/";
const LLAMA: &str = "https://github.com/meta-llama/llama-models/blob/main/models/";

/// How a row's tokenizer is written in the table.
enum Tok {
    Tiktoken(Encoding),
    Hf(&'static str),
    Tekken(&'static str, &'static str),
    Estimate(EstimateProfile),
    Model(ModelTokenizer),
}

struct Row {
    name: &'static str,
    aliases: &'static [&'static str],
    provider: Provider,
    window: usize,
    output: Option<usize>,
    tokenizer: Tok,
    api: ApiFormat,
    /// How images are billed (OpenAI's vision guide, "Calculating costs"; Anthropic's
    /// vision guide).
    image: ImageRule,
    /// The page; for OpenAI and Gemini rows the model's own page under the base URL.
    source: String,
}

fn openai(
    name: &'static str,
    aliases: &'static [&'static str],
    window: usize,
    output: usize,
    encoding: Encoding,
    image: ImageRule,
) -> Row {
    Row {
        name,
        aliases,
        provider: Provider::OpenAi,
        window,
        output: Some(output),
        tokenizer: Tok::Tiktoken(encoding),
        api: ApiFormat::OpenAiChat,
        image,
        source: format!("{OPENAI}{name}"),
    }
}

/// The tokenizer of a Claude model, ours or LiteLLM's: the one place that says how
/// Claude models are counted.
pub(super) fn claude_tokenizer(_name: &str) -> ModelTokenizer {
    ModelTokenizer::Estimate(EstimateProfile::Claude)
}

fn claude(name: &'static str, aliases: &'static [&'static str], output: usize) -> Row {
    Row {
        name,
        aliases,
        provider: Provider::Anthropic,
        window: 200_000,
        output: Some(output),
        tokenizer: Tok::Model(claude_tokenizer(name)),
        api: ApiFormat::AnthropicMessages,
        image: ImageRule::Anthropic,
        source: ANTHROPIC.to_owned(),
    }
}

fn gemini(
    name: &'static str,
    aliases: &'static [&'static str],
    window: usize,
    output: usize,
) -> Row {
    let source = if name.starts_with("gemini-1.5") {
        GEMINI_1_5.to_owned()
    } else {
        format!("{GEMINI}{name}")
    };
    Row {
        name,
        aliases,
        provider: Provider::Google,
        window,
        output: Some(output),
        tokenizer: Tok::Estimate(EstimateProfile::Gemini),
        api: ApiFormat::GeminiGenerateContent,
        image: ImageRule::Unpublished,
        source,
    }
}

fn mistral(
    name: &'static str,
    aliases: &'static [&'static str],
    window: usize,
    tokenizer: Tok,
) -> Row {
    Row {
        name,
        aliases,
        provider: Provider::Mistral,
        window,
        output: None,
        tokenizer,
        api: ApiFormat::MistralChat,
        image: ImageRule::Unpublished,
        source: MISTRAL.to_owned(),
    }
}

fn llama(
    name: &'static str,
    aliases: &'static [&'static str],
    window: usize,
    repo: &'static str,
    card: &str,
) -> Row {
    Row {
        name,
        aliases,
        provider: Provider::Meta,
        window,
        output: None,
        tokenizer: Tok::Hf(repo),
        api: ApiFormat::Other,
        image: ImageRule::Unpublished,
        source: format!("{LLAMA}{card}/MODEL_CARD.md"),
    }
}

#[allow(clippy::too_many_lines)] // One table.
fn rows() -> Vec<Row> {
    use Encoding::{Cl100kBase, O200kBase};
    // OpenAI's vision guide, "Calculating costs": the tile figures of its table, the
    // patch multipliers of its list; NONE for a model it does not list (o3-pro, GPT-4
    // Turbo) or that takes no images.
    const TILES_5: ImageRule = ImageRule::OpenAiTiles {
        base: 70,
        tile: 140,
    };
    const TILES_4O: ImageRule = ImageRule::GPT_4O;
    const TILES_4O_MINI: ImageRule = ImageRule::OpenAiTiles {
        base: 2_833,
        tile: 5_667,
    };
    const TILES_O: ImageRule = ImageRule::OpenAiTiles {
        base: 75,
        tile: 150,
    };
    const NONE: ImageRule = ImageRule::Unpublished;
    let patches = |multiplier_percent| ImageRule::OpenAiPatches { multiplier_percent };
    vec![
        // OpenAI: the GPT-5 family, GPT-4.1 family, GPT-4o family, o-series, older GPT-4.
        openai("gpt-5", &[], 400_000, 128_000, O200kBase, TILES_5),
        openai("gpt-5-mini", &[], 400_000, 128_000, O200kBase, patches(162)),
        openai("gpt-5-nano", &[], 400_000, 128_000, O200kBase, patches(246)),
        openai(
            "gpt-5-chat-latest",
            &[],
            128_000,
            16_384,
            O200kBase,
            TILES_5,
        ),
        openai("gpt-4.1", &[], 1_047_576, 32_768, O200kBase, TILES_4O),
        openai(
            "gpt-4.1-mini",
            &[],
            1_047_576,
            32_768,
            O200kBase,
            patches(162),
        ),
        openai(
            "gpt-4.1-nano",
            &[],
            1_047_576,
            32_768,
            O200kBase,
            patches(246),
        ),
        openai(
            "gpt-4o",
            &["chatgpt-4o-latest"],
            128_000,
            16_384,
            O200kBase,
            TILES_4O,
        ),
        // The first snapshot of GPT-4o had a smaller output limit.
        Row {
            source: format!("{OPENAI}gpt-4o"),
            ..openai(
                "gpt-4o-2024-05-13",
                &[],
                128_000,
                4_096,
                O200kBase,
                TILES_4O,
            )
        },
        openai(
            "gpt-4o-mini",
            &[],
            128_000,
            16_384,
            O200kBase,
            TILES_4O_MINI,
        ),
        openai("o1", &[], 200_000, 100_000, O200kBase, TILES_O),
        openai("o1-pro", &[], 200_000, 100_000, O200kBase, TILES_O),
        openai("o1-mini", &[], 128_000, 65_536, O200kBase, NONE),
        openai("o1-preview", &[], 128_000, 32_768, O200kBase, NONE),
        openai("o3", &[], 200_000, 100_000, O200kBase, TILES_O),
        openai("o3-pro", &[], 200_000, 100_000, O200kBase, NONE),
        openai("o3-mini", &[], 200_000, 100_000, O200kBase, NONE),
        openai("o4-mini", &[], 200_000, 100_000, O200kBase, patches(172)),
        openai(
            "gpt-4-turbo",
            &[
                "gpt-4-turbo-preview",
                "gpt-4-0125-preview",
                "gpt-4-1106-preview",
            ],
            128_000,
            4_096,
            Cl100kBase,
            NONE,
        ),
        openai("gpt-4", &["gpt-4-0613"], 8_192, 8_192, Cl100kBase, NONE),
        openai(
            "gpt-3.5-turbo",
            &["gpt-3.5-turbo-0125", "gpt-3.5-turbo-1106"],
            16_385,
            4_096,
            Cl100kBase,
            NONE,
        ),
        // Anthropic: all 200,000 tokens by default (Sonnet 4 and 4.5 reach 1M with a
        // beta header, not assumed here).
        claude("claude-opus-4-5-20251101", &["claude-opus-4-5"], 64_000),
        claude("claude-opus-4-1-20250805", &["claude-opus-4-1"], 32_000),
        claude(
            "claude-opus-4-20250514",
            &["claude-opus-4-0", "claude-opus-4", "claude-4-opus-20250514"],
            32_000,
        ),
        claude("claude-sonnet-4-5-20250929", &["claude-sonnet-4-5"], 64_000),
        claude(
            "claude-sonnet-4-20250514",
            &[
                "claude-sonnet-4-0",
                "claude-sonnet-4",
                "claude-4-sonnet-20250514",
            ],
            64_000,
        ),
        claude("claude-haiku-4-5-20251001", &["claude-haiku-4-5"], 64_000),
        claude(
            "claude-3-7-sonnet-20250219",
            &["claude-3-7-sonnet-latest", "claude-3-7-sonnet"],
            64_000,
        ),
        claude(
            "claude-3-5-sonnet-20241022",
            &["claude-3-5-sonnet-latest", "claude-3-5-sonnet"],
            8_192,
        ),
        claude("claude-3-5-sonnet-20240620", &[], 8_192),
        claude(
            "claude-3-5-haiku-20241022",
            &["claude-3-5-haiku-latest", "claude-3-5-haiku"],
            8_192,
        ),
        claude(
            "claude-3-opus-20240229",
            &["claude-3-opus-latest", "claude-3-opus"],
            4_096,
        ),
        claude("claude-3-sonnet-20240229", &["claude-3-sonnet"], 4_096),
        claude("claude-3-haiku-20240307", &["claude-3-haiku"], 4_096),
        // Google.
        gemini("gemini-2.5-pro", &[], 1_048_576, 65_536),
        gemini("gemini-2.5-flash", &[], 1_048_576, 65_536),
        gemini("gemini-2.5-flash-lite", &[], 1_048_576, 65_536),
        gemini("gemini-2.0-flash", &[], 1_048_576, 8_192),
        gemini("gemini-2.0-flash-lite", &[], 1_048_576, 8_192),
        gemini("gemini-1.5-pro", &[], 2_097_152, 8_192),
        gemini("gemini-1.5-flash", &[], 1_048_576, 8_192),
        gemini("gemini-1.5-flash-8b", &[], 1_048_576, 8_192),
        // Mistral: output shares the window.
        mistral(
            "mistral-large-2411",
            &["mistral-large-instruct-2411"],
            128_000,
            Tok::Hf("mistralai/Mistral-Large-Instruct-2411"),
        ),
        mistral(
            "mistral-large-2407",
            &["mistral-large-instruct-2407"],
            128_000,
            Tok::Hf("mistralai/Mistral-Large-Instruct-2407"),
        ),
        mistral(
            "mistral-small-2506",
            &["mistral-small-3.2-24b-instruct-2506"],
            128_000,
            Tok::Tekken(
                "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
                "tekken.json",
            ),
        ),
        mistral(
            "mistral-small-2503",
            &["mistral-small-3.1-24b-instruct-2503"],
            128_000,
            Tok::Tekken(
                "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
                "tekken.json",
            ),
        ),
        // Codestral 25.01's weights and tokenizer are not published: the Claude
        // estimate stands in for it (not measured against Mistral's vocabularies).
        mistral(
            "codestral-2501",
            &[],
            256_000,
            Tok::Estimate(EstimateProfile::Claude),
        ),
        mistral(
            "codestral-22b-v0.1",
            &["codestral-2405"],
            32_000,
            Tok::Hf("mistralai/Codestral-22B-v0.1"),
        ),
        mistral(
            "open-mistral-nemo",
            &[
                "open-mistral-nemo-2407",
                "mistral-nemo",
                "mistral-nemo-instruct-2407",
            ],
            128_000,
            Tok::Tekken("mistralai/Mistral-Nemo-Instruct-2407", "tekken.json"),
        ),
        mistral(
            "ministral-8b-2410",
            &["ministral-8b-instruct-2410"],
            128_000,
            Tok::Tekken("mistralai/Ministral-8B-Instruct-2410", "tekken.json"),
        ),
        // Meta: open weights, served by many hosts; the model cards give the window.
        llama(
            "llama-3.1-8b",
            &["llama-3.1-8b-instruct", "meta-llama-3.1-8b-instruct"],
            128_000,
            "meta-llama/Llama-3.1-8B-Instruct",
            "llama3_1",
        ),
        llama(
            "llama-3.1-70b",
            &["llama-3.1-70b-instruct", "meta-llama-3.1-70b-instruct"],
            128_000,
            "meta-llama/Llama-3.1-70B-Instruct",
            "llama3_1",
        ),
        llama(
            "llama-3.1-405b",
            &["llama-3.1-405b-instruct", "meta-llama-3.1-405b-instruct"],
            128_000,
            "meta-llama/Llama-3.1-405B-Instruct",
            "llama3_1",
        ),
        llama(
            "llama-3.2-1b",
            &["llama-3.2-1b-instruct"],
            128_000,
            "meta-llama/Llama-3.2-1B-Instruct",
            "llama3_2",
        ),
        llama(
            "llama-3.2-3b",
            &["llama-3.2-3b-instruct"],
            128_000,
            "meta-llama/Llama-3.2-3B-Instruct",
            "llama3_2",
        ),
        llama(
            "llama-3.2-11b-vision",
            &["llama-3.2-11b-vision-instruct"],
            128_000,
            "meta-llama/Llama-3.2-11B-Vision-Instruct",
            "llama3_2",
        ),
        llama(
            "llama-3.2-90b-vision",
            &["llama-3.2-90b-vision-instruct"],
            128_000,
            "meta-llama/Llama-3.2-90B-Vision-Instruct",
            "llama3_2",
        ),
        llama(
            "llama-3.3-70b",
            &["llama-3.3-70b-instruct"],
            128_000,
            "meta-llama/Llama-3.3-70B-Instruct",
            "llama3_3",
        ),
        llama(
            "llama-4-scout",
            &["llama-4-scout-17b-16e-instruct", "llama-4-scout-17b-16e"],
            10_000_000,
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
            "llama4",
        ),
        llama(
            "llama-4-maverick",
            &[
                "llama-4-maverick-17b-128e-instruct",
                "llama-4-maverick-17b-128e",
            ],
            1_000_000,
            "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
            "llama4",
        ),
    ]
}

/// The LiteLLM rows whose limits differ from the row of ours they find, and why ours
/// stand. Our row takes the prices of these rows all the same; a test checks that
/// every other LiteLLM row that finds a row of ours agrees with it.
pub(super) const CORRECTIONS: &[(&str, &str)] = &[
    (
        "gpt-4",
        "OpenAI's gpt-4 page gives 8,192 output tokens, the whole window; LiteLLM has 4,096",
    ),
    ("gpt-4-0613", "the snapshot gpt-4 names: as gpt-4"),
];

/// The built-in models.
pub(super) fn models() -> impl Iterator<Item = Model> {
    rows().into_iter().map(|row| {
        let tokenizer = match row.tokenizer {
            Tok::Tiktoken(encoding) => ModelTokenizer::Tiktoken(encoding),
            Tok::Hf(repo) => ModelTokenizer::HuggingFace {
                repo: repo.to_owned(),
            },
            Tok::Tekken(repo, file) => ModelTokenizer::Tekken {
                repo: repo.to_owned(),
                file: file.to_owned(),
            },
            Tok::Estimate(profile) => ModelTokenizer::Estimate(profile),
            Tok::Model(tokenizer) => tokenizer,
        };
        Model::new(row.name, row.provider, row.window, tokenizer, row.api)
            .with_max_output_tokens(row.output)
            .with_aliases(row.aliases.iter().copied())
            .with_source(row.source, Some(CHECKED))
            .with_image_rule(row.image)
    })
}
