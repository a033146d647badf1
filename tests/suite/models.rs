//! The model catalogue: every name form resolves, unknown names get suggestions,
//! every row is sourced and sane, JSON entries add and override with errors that
//! name the entry and field, and each model maps to its counter.

use std::io::Read;

use ctxbudget::TokenCounter;
use ctxbudget::count::{Encoding, Exactness, Tiktoken};
use ctxbudget::models::{
    ApiFormat, Catalogue, CatalogueError, CounterError, InsertError, MAX_NAME_BYTES, Model,
    ModelCounter, ModelTokenizer, Price, Provider,
};
use proptest::prelude::*;

#[test]
fn names_resolve_in_every_form() {
    let cases = [
        ("gpt-4o", "gpt-4o"),
        ("GPT-4o", "gpt-4o"),
        (" gpt-4o ", "gpt-4o"),
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4o-2024-11-20", "gpt-4o"),
        ("openai/gpt-4o", "gpt-4o"),
        ("openai/gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("ft:gpt-4o-mini-2024-07-18:acme::9xYz", "gpt-4o-mini"),
        ("chatgpt-4o-latest", "gpt-4o"),
        ("gpt-4.1-2025-04-14", "gpt-4.1"),
        ("o3-mini-2025-01-31", "o3-mini"),
        ("o4-mini", "o4-mini"),
        ("gpt-5-2025-08-07", "gpt-5"),
        ("gpt-4-0613", "gpt-4"),
        ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"),
        ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5-20250929"),
        ("claude-3-5-sonnet-latest", "claude-3-5-sonnet-20241022"),
        ("claude-3-5-sonnet-20240620", "claude-3-5-sonnet-20240620"),
        ("claude-opus-4-0", "claude-opus-4-20250514"),
        ("claude-haiku-4-5", "claude-haiku-4-5-20251001"),
        (
            "anthropic.claude-3-5-haiku-20241022-v1:0",
            "claude-3-5-haiku-20241022",
        ),
        (
            "us.anthropic.claude-sonnet-4-20250514-v1:0",
            "claude-sonnet-4-20250514",
        ),
        ("claude-3-7-sonnet@20250219", "claude-3-7-sonnet-20250219"),
        ("models/gemini-2.5-pro", "gemini-2.5-pro"),
        ("gemini-2.0-flash-001", "gemini-2.0-flash"),
        ("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash"),
        ("google/gemini-1.5-pro-002", "gemini-1.5-pro"),
        ("gemini-1.5-flash-latest", "gemini-1.5-flash"),
        // Mistral's `-latest` names moved on to Mistral Large 3 and Codestral 25.08.
        ("mistral-large-latest", "mistral-large-latest"),
        ("mistral/mistral-large-2411", "mistral-large-2411"),
        ("mistralai/Mistral-Nemo-Instruct-2407", "open-mistral-nemo"),
        ("codestral-latest", "codestral-latest"),
        ("codestral-2501", "codestral-2501"),
        // Models that come from LiteLLM's table, in every form.
        ("claude-opus-4-6-20260205", "claude-opus-4-6"),
        ("claude-opus-4-7-20260416", "claude-opus-4-7"),
        ("anthropic/claude-sonnet-5", "claude-sonnet-5"),
        ("anthropic.claude-opus-4-7", "claude-opus-4-7"),
        ("global.anthropic.claude-opus-5-5", "claude-opus-5-5"),
        ("us.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
        ("claude-opus-4-6@default", "claude-opus-4-6"),
        ("vertex_ai/claude-sonnet-4-6@default", "claude-sonnet-4-6"),
        ("gpt-5.1-2025-11-13", "gpt-5.1"),
        ("openai/gpt-5.5-2026-04-23", "gpt-5.5"),
        ("gpt-5.4-mini-2026-03-17", "gpt-5.4-mini"),
        ("models/gemini-3.1-pro-preview", "gemini-3.1-pro-preview"),
        ("gemini/gemini-3.5-flash", "gemini-3.5-flash"),
        ("vertex_ai/gemini-3-pro-preview", "gemini-3-pro-preview"),
        ("deepseek/deepseek-chat", "deepseek-chat"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"),
        ("llama-4-scout-17b-16e-instruct", "llama-4-scout"),
    ];
    for (name, expected) in cases {
        let model = Model::lookup(name).unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!(model.name(), expected, "{name}");
    }
    // A snapshot with its own numbers is its own row.
    let first = Model::lookup("gpt-4o-2024-05-13").unwrap();
    assert_eq!(first.name(), "gpt-4o-2024-05-13");
    assert_eq!(first.max_output_tokens(), Some(4_096));
}

#[test]
fn every_name_and_alias_finds_its_own_model() {
    for model in Catalogue::builtin().models() {
        for name in std::iter::once(model.name()).chain(model.aliases().iter().map(String::as_str))
        {
            assert_eq!(Model::lookup(name).unwrap().name(), model.name(), "{name}");
        }
    }
}

#[test]
fn unknown_names_suggest_the_closest() {
    for (typo, first) in [
        ("claude-opus-4-66", "claude-opus-4-6"),
        ("gpt-5.55", "gpt-5.5"),
        ("gemini-3.1-pro-preveiw", "gemini-3.1-pro-preview"),
        ("gpt-4-o", "gpt-4o"),
        ("gtp-4o", "gpt-4o"),
        ("claude-sonet-4-5", "claude-sonnet-4-5"),
        ("gemini-2.5-prro", "gemini-2.5-pro"),
        ("llama-3.3-70", "llama-3.3-70b"),
    ] {
        let err = Model::lookup(typo).unwrap_err();
        assert_eq!(err.name, typo);
        assert_eq!(
            err.suggestions.first().map(String::as_str),
            Some(first),
            "{typo}"
        );
        assert!(err.suggestions.len() <= 3);
        let message = err.to_string();
        assert!(
            message.contains(&format!("unknown model `{typo}`")),
            "{message}"
        );
        assert!(message.contains(&format!("`{first}`")), "{message}");
        assert!(message.contains("edit distance"), "{message}");
    }
    // Absurd input is an error, not a panic or a hang.
    let long = "x".repeat(100_000);
    assert!(Model::lookup(&long).is_err());
    assert!(Model::lookup("").is_err());
}

#[test]
fn every_row_is_sourced_dated_and_sane() {
    let catalogue = Catalogue::builtin();
    assert!(catalogue.len() >= 50, "{}", catalogue.len());
    for model in catalogue.models() {
        let name = model.name();
        assert!(
            model.source().starts_with("https://"),
            "{name}: {}",
            model.source()
        );
        let date = model
            .checked()
            .unwrap_or_else(|| panic!("{name} has no date"));
        assert_eq!(date.len(), 10, "{name}: {date}");
        assert!(
            date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-',
            "{name}: {date}"
        );
        assert!(model.context_window() >= 8_192, "{name}");
        if let Some(output) = model.max_output_tokens() {
            assert!(
                output >= 4_096 && output <= model.context_window(),
                "{name}"
            );
        }
        assert_eq!(
            model.prompt_limit(),
            model.context_window() - model.max_output_tokens().unwrap_or(0)
        );
        // Providers and formats go together.
        let expected_api = match model.provider() {
            // The models only the Responses API serves (LiteLLM's mode "responses";
            // `each_name_says_which_request_format_its_api_takes` names some).
            Provider::OpenAi if model.api() == ApiFormat::OpenAiResponses => {
                ApiFormat::OpenAiResponses
            }
            // DeepSeek's API takes OpenAI's Chat Completions format.
            Provider::OpenAi | Provider::DeepSeek => ApiFormat::OpenAiChat,
            Provider::Anthropic => ApiFormat::AnthropicMessages,
            Provider::Google => ApiFormat::GeminiGenerateContent,
            Provider::Mistral => ApiFormat::MistralChat,
            _ => ApiFormat::Other,
        };
        assert_eq!(model.api(), expected_api, "{name}");
        // Names are what lookups normalise to: lower case, no surrounding space.
        assert_eq!(name, name.trim().to_ascii_lowercase(), "{name}");
    }
    // Every provider of the issue is there.
    for provider in [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::Google,
        Provider::Mistral,
        Provider::Meta,
    ] {
        assert!(
            catalogue
                .models()
                .filter(|m| m.provider() == provider)
                .count()
                >= 5,
            "{provider}"
        );
    }
}

#[test]
fn documented_numbers() {
    let rows = [
        ("gpt-4.1", 1_047_576, Some(32_768)),
        ("gpt-5", 400_000, Some(128_000)),
        ("o3", 200_000, Some(100_000)),
        ("claude-opus-4-1", 200_000, Some(32_000)),
        ("claude-3-haiku", 200_000, Some(4_096)),
        ("gemini-1.5-pro", 2_097_152, Some(8_192)),
        ("gemini-2.0-flash", 1_048_576, Some(8_192)),
        ("llama-4-scout", 10_000_000, None),
        // From LiteLLM's table: the 1M windows and 128K outputs of current Claude
        // models, GPT-5.x's 400K and 1.05M windows (LiteLLM writes the input part,
        // 272K or 922K), Gemini 3.x's 1M.
        ("claude-opus-4-6", 1_000_000, Some(128_000)),
        ("claude-sonnet-4-6", 1_000_000, Some(128_000)),
        ("claude-opus-4-7", 1_000_000, Some(128_000)),
        ("claude-sonnet-5", 1_000_000, Some(128_000)),
        ("claude-opus-5", 1_000_000, Some(128_000)),
        ("claude-opus-5-5", 1_000_000, Some(128_000)),
        ("claude-sonnet-5-5", 1_000_000, Some(128_000)),
        ("claude-haiku-5-5", 1_000_000, Some(128_000)),
        ("gpt-5.1", 400_000, Some(128_000)),
        ("gpt-5.2", 400_000, Some(128_000)),
        ("gpt-5.4", 1_050_000, Some(128_000)),
        ("gpt-5.4-mini", 400_000, Some(128_000)),
        ("gpt-5.5", 1_050_000, Some(128_000)),
        ("gpt-5.6", 1_050_000, Some(128_000)),
        ("gpt-5.1-chat-latest", 128_000, Some(16_384)),
        ("gemini-3.1-pro-preview", 1_048_576, Some(65_536)),
        ("gemini-3-flash-preview", 1_048_576, Some(65_536)),
        ("gemini-3.5-flash", 1_048_576, Some(65_536)),
        ("mistral-large-3", 262_144, None),
        ("deepseek-chat", 131_072, Some(8_192)),
    ];
    for (name, window, output) in rows {
        let model = Model::lookup(name).unwrap();
        assert_eq!(
            (model.context_window(), model.max_output_tokens()),
            (window, output),
            "{name}"
        );
    }
}

#[test]
fn models_map_to_their_counters() {
    let gpt = Model::lookup("gpt-4o").unwrap().counter().unwrap();
    assert!(matches!(gpt, ModelCounter::Tiktoken(t) if t.encoding() == Encoding::O200kBase));
    let gpt4 = Model::lookup("gpt-4").unwrap().counter().unwrap();
    assert_eq!(
        gpt4.count("hello world"),
        Tiktoken::cl100k_base().count("hello world")
    );
    assert_eq!(gpt4.exactness(), Exactness::Exact);
    // Claude models count with the `Claude` counter here (the suite turns the
    // `claude` feature on): `tests/suite/claude.rs`.
    let gemini = Model::lookup("gemini-2.5-pro").unwrap().counter().unwrap();
    assert!(matches!(gemini, ModelCounter::Estimate(_)));
    assert_eq!(gemini.exactness(), Exactness::UpperEstimate);
    // Tokenizer files: an error that names the repository, the file and the loader.
    let err = Model::lookup("open-mistral-nemo")
        .unwrap()
        .counter()
        .unwrap_err();
    let message = err.to_string();
    assert!(matches!(
        err,
        CounterError::NeedsFile {
            loader: "Tekken::from_file",
            ..
        }
    ));
    assert!(
        message.contains("mistralai/Mistral-Nemo-Instruct-2407"),
        "{message}"
    );
    assert!(message.contains("tekken.json"), "{message}");
    let err = Model::lookup("llama-3.1-8b")
        .unwrap()
        .counter()
        .unwrap_err();
    assert!(err.to_string().contains("HuggingFace::from_file"), "{err}");
    // Every built-in model either has a counter or says which file it needs.
    for model in Catalogue::builtin().models() {
        match (model.tokenizer(), model.counter()) {
            (ModelTokenizer::Tiktoken(_) | ModelTokenizer::Estimate(_), Ok(_))
            | (
                ModelTokenizer::HuggingFace { .. } | ModelTokenizer::Tekken { .. },
                Err(CounterError::NeedsFile { .. }),
            ) => {}
            (tokenizer, result) => panic!("{}: {tokenizer} gave {result:?}", model.name()),
        }
    }
}

fn unpacked(name: &str) -> std::path::PathBuf {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tokenizers")
        .join(format!("{name}.gz"));
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    let out = std::env::temp_dir().join(format!("ctxbudget-models-{}-{name}", std::process::id()));
    std::fs::write(&out, bytes).unwrap();
    out
}

#[test]
fn counters_load_from_the_named_files() {
    let tekken = unpacked("tekken_240718.json");
    let nemo = Model::lookup("mistral-nemo").unwrap();
    let counter = nemo.counter_from_file(&tekken).unwrap();
    assert!(matches!(counter, ModelCounter::Tekken(_)));
    assert_eq!(counter.exactness(), Exactness::Exact);
    assert!(counter.count("Bonjour, le monde !") > 0);
    // The wrong kind of file, a missing file, a model that needs none.
    let llama = Model::lookup("llama-3.1-8b").unwrap();
    assert!(matches!(
        llama.counter_from_file(&tekken),
        Err(CounterError::File { .. })
    ));
    let missing = nemo
        .counter_from_file("/nonexistent/tekken.json")
        .unwrap_err();
    assert!(
        missing.to_string().contains("/nonexistent/tekken.json"),
        "{missing}"
    );
    let gpt = Model::lookup("gpt-4o").unwrap();
    assert!(matches!(
        gpt.counter_from_file(&tekken),
        Err(CounterError::NoFileNeeded { .. })
    ));
    std::fs::remove_file(tekken).ok();

    let anthropic = unpacked("anthropic-tokenizer.json");
    let counter = llama.counter_from_file(&anthropic).unwrap();
    assert!(matches!(counter, ModelCounter::HuggingFace(_)));
    assert_eq!(counter.count("hello world"), 2);
    std::fs::remove_file(anthropic).ok();
}

#[test]
fn json_adds_and_overrides() {
    let catalogue = Catalogue::new()
        .with_json(
            r#"{"models": [
                {"name": "gpt-4o", "context_window": 64000, "aliases": ["azure-4o"]},
                {"name": "claude-sonnet-4-5-20250929", "max_output_tokens": 8192, "source": "our limits", "checked": "2026-11-30"},
                {"name": "house-llama", "provider": "meta", "context_window": 32768,
                 "max_output_tokens": null, "api": "openai-chat",
                 "tokenizer": {"huggingface": "meta-llama/Llama-3.1-8B-Instruct"}},
                {"name": "house-claude", "provider": "other", "context_window": 100000,
                 "max_output_tokens": 1000, "api": "anthropic-messages",
                 "tokenizer": {"estimate": "claude"}},
                {"name": "house-tekken", "provider": "mistral", "context_window": 1000, "api": "other",
                 "tokenizer": {"tekken": {"repo": "me/model", "file": "tekken.json"}}},
                {"name": "house-gpt", "provider": "openai", "context_window": 1000, "api": "openai-chat",
                 "tokenizer": {"tiktoken": "cl100k_base"}}
            ]}"#,
        )
        .unwrap();
    let gpt = catalogue.lookup("openai/gpt-4o-2024-08-06").unwrap();
    assert_eq!(gpt.context_window(), 64_000);
    assert_eq!(
        gpt.max_output_tokens(),
        Some(16_384),
        "kept from the built-in row"
    );
    assert_eq!(catalogue.lookup("azure-4o").unwrap().name(), "gpt-4o");
    assert!(
        gpt.source().starts_with("user entry, over https://"),
        "{}",
        gpt.source()
    );
    assert_eq!(gpt.checked(), None);
    let sonnet = catalogue.lookup("claude-sonnet-4-5").unwrap();
    assert_eq!(sonnet.max_output_tokens(), Some(8_192));
    assert_eq!(
        (sonnet.source(), sonnet.checked()),
        ("our limits", Some("2026-11-30"))
    );
    let llama = catalogue.lookup("house-llama").unwrap();
    assert_eq!(llama.prompt_limit(), 32_768);
    assert_eq!(llama.provider(), Provider::Meta);
    assert!(matches!(
        catalogue.lookup("house-claude").unwrap().counter(),
        Ok(ModelCounter::Estimate(_))
    ));
    assert!(matches!(
        catalogue.lookup("house-gpt").unwrap().tokenizer(),
        ModelTokenizer::Tiktoken(Encoding::Cl100kBase)
    ));
    // The built-in catalogue is untouched.
    assert_eq!(Model::lookup("gpt-4o").unwrap().context_window(), 128_000);
}

fn entry_error(json: &str) -> (usize, Option<String>, String, String) {
    match Catalogue::new().with_json(json).unwrap_err() {
        CatalogueError::Entry {
            index,
            name,
            field,
            message,
            ..
        } => (index, name, field, message),
        other => panic!("not an entry error: {other}"),
    }
}

#[test]
fn bad_entries_name_the_entry_and_field() {
    let (index, name, field, message) = entry_error(
        r#"{"models": [{"name": "gpt-4o", "context_window": 100000}, {"name": "gpt-4o", "contxt_window": 5}]}"#,
    );
    assert_eq!(
        (index, name.as_deref(), field.as_str()),
        (2, Some("gpt-4o"), "contxt_window")
    );
    assert!(
        message.contains("did you mean `context_window`"),
        "{message}"
    );
    let (_, _, field, message) =
        entry_error(r#"{"models": [{"name": "new-model", "context_window": 5}]}"#);
    assert_eq!(field, "provider");
    assert!(
        message.contains("`provider`, `tokenizer`, `api`"),
        "{message}"
    );

    let cases = [
        (
            r#"{"name": "gpt-4o", "context_window": -1}"#,
            "context_window",
        ),
        (
            r#"{"name": "gpt-4o", "context_window": "big"}"#,
            "context_window",
        ),
        (
            r#"{"name": "gpt-4o", "max_output_tokens": 1000000}"#,
            "max_output_tokens",
        ),
        (
            r#"{"name": "gpt-4o", "max_output_tokens": 0}"#,
            "max_output_tokens",
        ),
        (r#"{"name": "gpt-4o", "provider": "OpenAI"}"#, "provider"),
        (r#"{"name": "gpt-4o", "api": "responses"}"#, "api"),
        (
            r#"{"name": "gpt-4o", "tokenizer": {"tiktoken": "o200k"}}"#,
            "tokenizer",
        ),
        (
            r#"{"name": "gpt-4o", "tokenizer": {"estimate": "gpt"}}"#,
            "tokenizer",
        ),
        (
            r#"{"name": "gpt-4o", "tokenizer": {"tekken": {"repo": "x"}}}"#,
            "tokenizer",
        ),
        (
            r#"{"name": "gpt-4o", "tokenizer": "o200k_base"}"#,
            "tokenizer",
        ),
        (r#"{"name": "gpt-4o", "aliases": "x"}"#, "aliases"),
        (r#"{"name": "gpt-4o", "aliases": ["x", 5]}"#, "aliases"),
        (r#"{"name": "gpt-4o", "aliases": [""]}"#, "aliases"),
        (
            r#"{"name": "gpt-4o", "aliases": ["gpt-4o-mini"]}"#,
            "aliases",
        ),
        (
            r#"{"name": "gpt-4-1106-preview", "context_window": 5}"#,
            "name",
        ),
        (r#"{"name": "gpt-4o", "checked": "1 Dec 2026"}"#, "checked"),
        (r#"{"name": "gpt-4o", "source": 3}"#, "source"),
        (r#"{"name": ""}"#, "name"),
        (r#"{"context_window": 5}"#, "name"),
        ("[1]", "name"),
    ];
    for (entry, expected) in cases {
        let json = format!(r#"{{"models": [{entry}]}}"#);
        let (index, _, field, message) = entry_error(&json);
        assert_eq!((index, field.as_str()), (1, expected), "{entry}: {message}");
    }
    // The message says which entry of which file.
    let err = Catalogue::new()
        .with_json(r#"{"models": [{"name": "gpt-4o", "api": "x"}]}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("entry 1 (`gpt-4o`): field `api`"), "{err}");
}

#[test]
fn malformed_prices_name_their_field() {
    let cases = [
        (r#"{"name": "gpt-4o", "prices": 3}"#, "prices"),
        (
            r#"{"name": "gpt-4o", "prices": {"input": 1}}"#,
            "prices.output",
        ),
        (
            r#"{"name": "gpt-4o", "prices": {"output": 1}}"#,
            "prices.input",
        ),
        (
            r#"{"name": "gpt-4o", "prices": {"input": -1, "output": 1}}"#,
            "prices.input",
        ),
        (
            r#"{"name": "gpt-4o", "prices": {"input": 1, "output": "2"}}"#,
            "prices.output",
        ),
        (
            r#"{"name": "gpt-4o", "prices": {"input": 1, "output": 2, "cached_input": null}}"#,
            "prices.cached_input",
        ),
        (
            r#"{"name": "gpt-4o", "prices": {"input": 1, "output": 2, "cache_read": 1}}"#,
            "prices.cache_read",
        ),
    ];
    for (entry, expected) in cases {
        let json = format!(r#"{{"models": [{entry}]}}"#);
        let (index, _, field, message) = entry_error(&json);
        assert_eq!((index, field.as_str()), (1, expected), "{entry}: {message}");
        let err = Catalogue::new().with_json(&json).unwrap_err().to_string();
        assert!(err.contains(&format!("field `{expected}`")), "{err}");
        assert!(
            message.contains("per million tokens") || message.contains("unknown field"),
            "{message}"
        );
    }
}

#[test]
fn malformed_entries_say_what_was_expected() {
    // No suggestion that is not a near miss (`contxt` used to suggest `name`); the
    // message names the fields an entry has.
    let (_, _, field, message) = entry_error(r#"{"models": [{"name": "gpt-4o", "contxt": 5}]}"#);
    assert_eq!(field, "contxt");
    assert!(!message.contains("did you mean"), "{message}");
    assert!(message.contains("`context_window`"), "{message}");
    // What is expected, for a malformed value.
    for (entry, expected) in [
        (
            r#"{"name": "gpt-4o", "aliases": ["x", 5]}"#,
            "item 2 is not a string",
        ),
        (
            r#"{"name": "gpt-4o", "max_output_tokens": 1000000}"#,
            "expected at most the window",
        ),
        ("[1]", "expected {\"name\""),
    ] {
        let (_, _, _, message) = entry_error(&format!(r#"{{"models": [{entry}]}}"#));
        assert!(message.contains(expected), "{entry}: {message}");
    }
    // A long unknown field is shown shortened.
    let long = "k".repeat(100_000);
    let err = Catalogue::new()
        .with_json(&format!(
            r#"{{"models": [{{"name": "gpt-4o", "{long}": 1}}]}}"#
        ))
        .unwrap_err();
    assert!(err.to_string().len() < 400, "{}", err.to_string().len());
}

#[test]
fn prices_come_from_litellm_and_json_overrides_them() {
    // LiteLLM's prices, per million tokens.
    let sonnet = Model::lookup("claude-sonnet-4-5-20250929").unwrap();
    let prices = sonnet.prices().unwrap();
    assert_eq!(
        (
            prices.input.per_million(),
            prices.output.per_million(),
            prices.cached_input.map(Price::per_million),
            prices.cache_write.map(Price::per_million),
        ),
        (3.0, 15.0, Some(0.3), Some(3.75))
    );
    let gpt = Model::lookup("gpt-5.1").unwrap().prices().unwrap();
    assert_eq!(gpt.input.to_string(), "$1.25/M");
    assert_eq!(gpt.cached_input.unwrap().to_string(), "$0.125/M");
    assert_eq!(gpt.cache_write, None);
    // What a request costs: 200,000 input tokens, 150,000 of them cached.
    let cost = Model::lookup("gpt-4.1")
        .unwrap()
        .input_cost(200_000, 150_000);
    assert_eq!(cost, Some(0.1 + 0.075));
    assert_eq!(
        Model::lookup("claude-opus-4-6")
            .unwrap()
            .output_cost(10_000, 0),
        Some(0.25)
    );
    // Over 272,000 input tokens, GPT-5.5 charges the long-prompt prices for all of
    // the request: $10 and $45 per million instead of $5 and $30.
    let gpt = Model::lookup("gpt-5.5").unwrap();
    assert_eq!(gpt.input_cost(272_000, 0), Some(1.36));
    assert_eq!(gpt.input_cost(400_000, 0), Some(4.0));
    assert_eq!(gpt.output_cost(10_000, 272_000), Some(0.3));
    assert_eq!(gpt.output_cost(10_000, 400_000), Some(0.45));
    // A model without prices costs nothing known.
    let llama = Model::lookup("llama-3.3-70b").unwrap();
    assert_eq!(llama.input_cost(1_000, 0), None);
    // JSON sets and clears them.
    let catalogue = Catalogue::new()
        .with_json(
            r#"{"models": [
                {"name": "llama-3.3-70b", "prices": {"input": 0.6, "output": 0.6, "cached_input": 0.3}},
                {"name": "gpt-4o", "prices": null}
            ]}"#,
        )
        .unwrap();
    let llama = catalogue.lookup("llama-3.3-70b").unwrap();
    assert_eq!(llama.input_cost(1_000_000, 500_000), Some(0.45));
    assert_eq!(catalogue.lookup("gpt-4o").unwrap().prices(), None);
    // Every LiteLLM model has prices, and the cached price is never over the input's.
    for model in Catalogue::builtin().models() {
        if model
            .source()
            .starts_with("https://pypi.org/project/litellm/")
        {
            let prices = model.prices().unwrap_or_else(|| panic!("{}", model.name()));
            if let Some(cached) = prices.cached_input {
                assert!(cached <= prices.input, "{}", model.name());
            }
        }
    }
}

#[test]
fn bad_json_gives_its_position() {
    for (json, line) in [
        ("{\"models\": [\n{\"name\": }", 2),
        ("", 1),
        ("{\"models\": 3}", 1),
        ("[]", 1),
    ] {
        match Catalogue::new().with_json(json).unwrap_err() {
            CatalogueError::Json {
                line: at, message, ..
            } => assert_eq!(at, line, "{json}: {message}"),
            other => panic!("{json}: {other}"),
        }
    }
    let path =
        std::env::temp_dir().join(format!("ctxbudget-models-{}-bad.json", std::process::id()));
    std::fs::write(&path, "{\"models\": [").unwrap();
    let err = Catalogue::new().with_json_file(&path).unwrap_err();
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    std::fs::remove_file(&path).ok();
    let err = Catalogue::new()
        .with_json_file("/nonexistent/models.json")
        .unwrap_err();
    assert!(matches!(err, CatalogueError::Read { .. }), "{err}");
}

#[test]
fn encodings_parse_and_for_model_takes_encoding_names() {
    for encoding in [
        Encoding::O200kBase,
        Encoding::Cl100kBase,
        Encoding::P50kBase,
        Encoding::R50kBase,
    ] {
        assert_eq!(encoding.name().parse::<Encoding>(), Ok(encoding));
        assert_eq!(
            Tiktoken::for_model(encoding.name()).unwrap().encoding(),
            encoding
        );
    }
    assert!("o200k".parse::<Encoding>().is_err());
}

/// A model of the catalogue given back by JSON with a field changed, for the tests below.
fn with_json(json: &str) -> Result<Catalogue, CatalogueError> {
    Catalogue::new().with_json(&format!(r#"{{"models": [{json}]}}"#))
}

#[test]
fn long_names_are_refused_without_work() {
    // 80 KB of `anthropic.` took 0.67 s and 307 MB; 10 MB was killed at 24 GB.
    for name in [
        "anthropic.".repeat(10_000),
        "anthropic.".repeat(1_000_000),
        format!("a{}", "-001".repeat(100_000)),
    ] {
        let err = Model::lookup(&name).unwrap_err();
        assert!(err.suggestions.is_empty(), "{:?}", err.suggestions);
        assert!(err.is_too_long());
        let message = err.to_string();
        assert!(
            message.contains(&format!("{} bytes, over the 256", name.len())),
            "{message}"
        );
        assert!(message.len() < 200, "{message}");
    }
    // The longest name a lookup takes, and surrounding space, are looked up.
    let longest = format!("  gpt-4o{}  ", "x".repeat(MAX_NAME_BYTES - 6));
    let err = Model::lookup(&longest).unwrap_err();
    assert!(!err.is_too_long());
    assert!(!err.suggestions.is_empty());
    // A catalogue entry too: its name could never be found.
    let json = format!(
        r#"{{"name": "{}", "provider": "other", "context_window": 5, "api": "other",
            "tokenizer": {{"estimate": "claude"}}}}"#,
        "m".repeat(100_000)
    );
    let err = with_json(&json).unwrap_err();
    assert!(
        matches!(&err, CatalogueError::Entry { field, .. } if field == "name"),
        "{err}"
    );
    assert!(err.to_string().len() < 300, "{err}");
    assert!(err.to_string().contains("100000 bytes"), "{err}");
}

#[test]
fn an_alias_never_takes_a_name() {
    // `gpt-4o` used to find gpt-4o-mini from then on.
    let err = with_json(r#"{"name": "gpt-4o-mini", "aliases": ["gpt-4o"]}"#).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(&err, CatalogueError::Entry { field, index: 1, .. } if field == "aliases"),
        "{message}"
    );
    assert!(
        message.contains("alias `gpt-4o` of `gpt-4o-mini` is the name of `gpt-4o`"),
        "{message}"
    );
    // The same through `insert`, case aside: refused, and nothing changes.
    let mut catalogue = Catalogue::new();
    let mini = Model::lookup("gpt-4o-mini").unwrap().clone();
    let err = catalogue
        .insert(mini.clone().with_aliases(["GPT-4o "]))
        .unwrap_err();
    assert!(
        matches!(&err, InsertError::AliasIsName { owner, .. } if owner == "gpt-4o"),
        "{err}"
    );
    assert_eq!(catalogue.lookup("gpt-4o").unwrap().name(), "gpt-4o");
    assert_eq!(catalogue.lookup("gpt-4o-mini").unwrap(), &mini);
}

#[test]
fn an_empty_alias_is_refused() {
    let err = with_json(r#"{"name": "gpt-4o", "aliases": ["azure-4o", " "]}"#).unwrap_err();
    assert!(
        matches!(&err, CatalogueError::Entry { field, .. } if field == "aliases"),
        "{err}"
    );
    assert!(err.to_string().contains("empty alias"), "{err}");
    let mut catalogue = Catalogue::new();
    let gpt = Model::lookup("gpt-4o").unwrap().clone().with_aliases([""]);
    assert!(matches!(
        catalogue.insert(gpt),
        Err(InsertError::EmptyAlias { .. })
    ));
    assert!(catalogue.lookup("").is_err());
    assert!(catalogue.lookup("  ").is_err());
}

#[test]
fn a_new_entry_named_like_an_alias_does_not_override_its_model() {
    // A whole new model named like an alias takes the name: gpt-4-turbo keeps its
    // numbers and its other aliases.
    let catalogue = with_json(
        r#"{"name": "gpt-4-1106-preview", "provider": "openai", "context_window": 1000,
            "max_output_tokens": 100, "api": "openai-chat", "tokenizer": {"tiktoken": "cl100k_base"}}"#,
    )
    .unwrap();
    let preview = catalogue.lookup("gpt-4-1106-preview").unwrap();
    assert_eq!(
        (preview.name(), preview.context_window()),
        ("gpt-4-1106-preview", 1000)
    );
    let turbo = catalogue.lookup("gpt-4-turbo").unwrap();
    let expected = Model::lookup("gpt-4-turbo")
        .unwrap()
        .clone()
        .with_aliases(["gpt-4-turbo-preview", "gpt-4-0125-preview"]);
    assert_eq!(turbo, &expected);
    assert_eq!(
        catalogue.lookup("gpt-4-0125-preview").unwrap().name(),
        "gpt-4-turbo"
    );
    assert_eq!(catalogue.len(), Catalogue::builtin().len() + 1);
    // An entry that only changes fields and names an alias is an error that names
    // the model it would have changed.
    let err = with_json(r#"{"name": "gpt-4-1106-preview", "context_window": 1000}"#).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(&err, CatalogueError::Entry { field, .. } if field == "name"),
        "{message}"
    );
    assert!(
        message.contains("`gpt-4-1106-preview` is an alias of `gpt-4-turbo`"),
        "{message}"
    );
    assert!(
        message.contains("`provider`, `tokenizer`, `api`"),
        "{message}"
    );
}

#[test]
fn a_following_override_by_name_changes_the_right_model() {
    // The alias moves to gpt-4o-mini; overriding gpt-4o by name then changes gpt-4o
    // and does not take the alias back.
    let catalogue = Catalogue::new()
        .with_json(
            r#"{"models": [
                {"name": "gpt-4o-mini", "aliases": ["chatgpt-4o-latest"]},
                {"name": "gpt-4o", "context_window": 100000}
            ]}"#,
        )
        .unwrap();
    let gpt = catalogue.lookup("gpt-4o").unwrap();
    assert_eq!((gpt.name(), gpt.context_window()), ("gpt-4o", 100_000));
    assert!(gpt.aliases().is_empty(), "{:?}", gpt.aliases());
    let mini = catalogue.lookup("chatgpt-4o-latest").unwrap();
    assert_eq!(
        (mini.name(), mini.context_window()),
        ("gpt-4o-mini", 128_000)
    );
    assert_eq!(catalogue.len(), Catalogue::builtin().len());
}

#[test]
fn many_inserts_and_overrides_finish() {
    // Each insert scanned every model (and every name on a replace): 100,000 took
    // 20.8 s in release, 1,000,000 did not finish in 300 s; 40,000 overrides of one
    // model 6.6 s.
    let model = |name: &str, alias: String| {
        Model::new(
            name,
            Provider::Other,
            1_000,
            ModelTokenizer::Tiktoken(Encoding::O200kBase),
            ApiFormat::OpenAiChat,
        )
        .with_aliases([alias])
    };
    let mut catalogue = Catalogue::empty();
    for i in 0..100_000 {
        let inserted = catalogue.insert(model(&format!("m-{i}"), format!("a-{i}")));
        assert_eq!(inserted, Ok(None));
    }
    // 20,000 overrides of one model, its alias moving between two names.
    for i in 0..20_000 {
        let next = model("m-7", format!("b-{}", i % 2)).with_context_window(i + 1);
        assert!(catalogue.insert(next).unwrap().is_some());
    }
    assert_eq!(catalogue.len(), 100_000);
    assert_eq!(catalogue.lookup("b-1").unwrap().context_window(), 20_000);
    assert!(catalogue.lookup("b-0").is_err());
    assert!(catalogue.lookup("a-7").is_err());
    assert_eq!(catalogue.lookup("a-99999").unwrap().name(), "m-99999");
}

/// A name from a small alphabet, so that names and aliases of different models clash
/// often; any case, sometimes with surrounding space.
fn clashing_name() -> impl Strategy<Value = String> {
    ("[aAbB]{1,2}", prop::bool::ANY).prop_map(
        |(name, spaced)| {
            if spaced { format!(" {name} ") } else { name }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any string, long ones and ones built of the forms a lookup strips, is found or
    /// refused, without a panic; over the limit it is refused without suggestions.
    #[test]
    fn lookup_of_any_string_never_panics(
        name in prop_oneof![
            any::<String>(),
            "[a-z0-9./:@ -]{0,300}",
            (prop::sample::select(vec!["anthropic.", "-001", "-2024-08-06", "ft:", "/", "@1", "-latest", "-v1:0"]), 1..200usize)
                .prop_map(|(part, times)| format!("claude-3-5-haiku{}", part.repeat(times))),
        ]
    ) {
        match Model::lookup(&name) {
            Ok(model) => prop_assert!(name.trim().len() <= MAX_NAME_BYTES, "{}", model.name()),
            Err(err) => {
                prop_assert_eq!(err.is_too_long(), name.trim().len() > MAX_NAME_BYTES);
                if err.is_too_long() {
                    prop_assert!(err.suggestions.is_empty());
                    prop_assert!(err.to_string().len() < 200);
                }
            }
        }
    }

    /// Any `prices` value is taken or refused with an error that names a `prices`
    /// field; taken prices cost more for more tokens, and never less than when some
    /// of them are cached at a lower price.
    #[test]
    fn any_prices_are_taken_or_name_their_field(
        input in prop_oneof![Just("null".to_owned()), (-10.0f64..1e4).prop_map(|v| v.to_string()), "[a-z\"{}0-9]{0,6}"],
        output in prop_oneof![(0.0f64..1e4).prop_map(|v| v.to_string()), Just("-1".to_owned()), Just("1e300".to_owned())],
        cached in prop::option::of(0.0f64..1e4),
        tokens in 0usize..10_000_000,
        cached_tokens in 0usize..10_000_000,
    ) {
        let cached_field = cached.map_or(String::new(), |c| format!(r#", "cached_input": {c}"#));
        let json = format!(
            r#"{{"models": [{{"name": "gpt-4o", "prices": {{"input": {input}, "output": {output}{cached_field}}}}}]}}"#
        );
        match Catalogue::new().with_json(&json) {
            Ok(catalogue) => {
                let model = catalogue.lookup("gpt-4o").unwrap();
                let prices = *model.prices().unwrap();
                let full = prices.input_cost(tokens, 0);
                prop_assert!(full.is_finite() && full >= 0.0);
                prop_assert!(prices.input_cost(tokens + 1, 0) >= full);
                if prices.cached_input.is_none_or(|c| c <= prices.input) {
                    prop_assert!(prices.input_cost(tokens, cached_tokens) <= full);
                }
            }
            Err(CatalogueError::Entry { field, message, .. }) => {
                prop_assert!(field.starts_with("prices"), "{field}: {message}");
            }
            Err(CatalogueError::Json { .. }) => {} // `input` was not JSON
            Err(other) => prop_assert!(false, "{other}"),
        }
    }

    /// Whatever is inserted, every name and alias of every model finds that model,
    /// names stay unique, and a refused insert changes nothing.
    #[test]
    fn every_name_finds_its_model(
        entries in prop::collection::vec(
            (clashing_name(), prop::collection::vec(clashing_name(), 0..4), 1..100usize),
            1..24,
        )
    ) {
        let mut catalogue = Catalogue::empty();
        for (name, aliases, window) in entries {
            let model = Model::new(
                name,
                Provider::Other,
                window,
                ModelTokenizer::Tiktoken(Encoding::O200kBase),
                ApiFormat::Other,
            )
            .with_aliases(aliases);
            let before: Vec<Model> = catalogue.models().cloned().collect();
            let length = catalogue.len();
            match catalogue.insert(model.clone()) {
                Ok(replaced) => {
                    let found = catalogue.lookup(model.name()).unwrap();
                    prop_assert_eq!(found.context_window(), window);
                    prop_assert_eq!(replaced.is_some(), catalogue.len() == length);
                }
                Err(InsertError::AliasIsName { .. }) => {
                    let after: Vec<Model> = catalogue.models().cloned().collect();
                    prop_assert_eq!(after, before);
                }
                Err(other) => prop_assert!(false, "{}", other),
            }
            let mut names = std::collections::HashSet::new();
            for known in catalogue.models() {
                prop_assert!(names.insert(known.name().trim().to_ascii_lowercase()));
                prop_assert_eq!(catalogue.lookup(known.name()).unwrap(), known);
                for alias in known.aliases() {
                    prop_assert_eq!(catalogue.lookup(alias).unwrap(), known, "{}", alias);
                }
            }
        }
    }
}

#[test]
fn each_name_says_which_request_format_its_api_takes() {
    use ctxbudget::request::RequestFormat;
    let api = |name: &str| Model::lookup(name).unwrap().api_for(name);
    // The models only OpenAI's Responses API serves, ours and LiteLLM's.
    for name in ["o1-pro", "o3-pro-2025-06-10", "gpt-5-codex", "gpt-5.2-pro"] {
        assert_eq!(api(name), ApiFormat::OpenAiResponses, "{name}");
    }
    for name in ["gpt-4o", "gpt-5", "o3"] {
        assert_eq!(api(name), ApiFormat::OpenAiChat, "{name}");
    }
    // One Claude model, three platforms: Bedrock ids take Bedrock's own format.
    for name in [
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0",
    ] {
        assert_eq!(api(name), ApiFormat::BedrockConverse, "{name}");
        assert_eq!(
            Model::lookup(name).unwrap().api(),
            ApiFormat::AnthropicMessages,
            "{name}"
        );
    }
    for name in [
        "claude-sonnet-4-5",
        "claude-sonnet-4-5@20250929",
        "vertex_ai/claude-sonnet-4-5",
    ] {
        assert_eq!(api(name), ApiFormat::AnthropicMessages, "{name}");
    }
    // Each of these formats is one ctxbudget reads.
    assert_eq!(
        RequestFormat::for_api(ApiFormat::BedrockConverse),
        Some(RequestFormat::BedrockConverse)
    );
    assert_eq!(
        RequestFormat::for_api(api("o3-pro")),
        Some(RequestFormat::OpenAiResponses)
    );
    assert_eq!(ApiFormat::OpenAiResponses.as_str(), "openai-responses");
    assert_eq!(ApiFormat::BedrockConverse.as_str(), "bedrock-converse");
}
