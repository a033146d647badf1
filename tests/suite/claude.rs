//! The Claude counter: counts equal `ctok`'s in every generation, it never panics,
//! and its split points add up on real and adversarial text.

use std::sync::LazyLock;

use ctxbudget::count::{Claude, ClaudeGeneration, EstimateProfile, Exactness};
use ctxbudget::models::{ApiFormat, Model, ModelCounter, ModelTokenizer, Provider};
use ctxbudget::{Keep, TokenCounter, TrimOptions, trim_with};
use ctxbudget_tests::{CODE, MARKDOWN, MULTILINGUAL, PROSE, slice_around_split};
use proptest::prelude::*;
use serde_json::Value;

/// `tests/fixtures/claude/counts.json`, written by `scripts/claude_fixtures.py` with
/// `ctok` 1.3.0: each text's own tokens (`token_count` less the frame) in v3, v4.7
/// and v4.8.
static EXPECTED: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(include_str!("../fixtures/claude/counts.json")).unwrap());

fn counters() -> [Claude; 3] {
    ClaudeGeneration::ALL.map(Claude::new)
}

/// `ctok`'s counts for 787 texts: corpus slices, the shipped fixtures whole, and
/// handmade and random adversarial text (CJK, emoji sequences, combining marks,
/// long runs of one character, controls, private use, case, digits, whitespace).
#[test]
fn counts_equal_ctok_in_every_generation() {
    let names: Vec<&str> = EXPECTED["generations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    assert_eq!(names, counters().map(|c| c.generation().as_str()));
    let cases = EXPECTED["cases"].as_array().unwrap();
    assert!(cases.len() > 700);
    let mut failures = Vec::new();
    for case in cases {
        let text = case["text"].as_str().unwrap();
        for (counter, expected) in counters().iter().zip(case["counts"].as_array().unwrap()) {
            let expected = usize::try_from(expected.as_u64().unwrap()).unwrap();
            let got = counter.count(text);
            if got != expected {
                failures.push(format!(
                    "{} {}: got {got}, ctok {expected}: {:?}",
                    counter.generation(),
                    case["source"],
                    text.chars().take(80).collect::<String>()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The counts of ctok's README: `hello, world` is 3 + 7 in v3, 4 + 11 in v4.7 and
/// 4 + 6 in v4.8.
#[test]
fn ctok_readme_counts() {
    let [v3, v4_7, v4_8] = counters();
    assert_eq!(v3.count_message("hello, world"), 10);
    assert_eq!(v4_7.count_message("hello, world"), 15);
    assert_eq!(v4_8.count_message("hello, world"), 10);
    assert_eq!(v3.exactness(), Exactness::Exact);
}

#[test]
fn model_names_choose_the_generation() {
    let generation = |name| Claude::for_model(name).map(|c| c.generation());
    assert_eq!(generation("claude-sonnet-4-5"), Some(ClaudeGeneration::V3));
    assert_eq!(generation("claude-opus-4-7"), Some(ClaudeGeneration::V4_7));
    assert_eq!(generation("claude-opus-4-8"), Some(ClaudeGeneration::V4_8));
    assert_eq!(generation("gpt-5"), None);
}

/// A catalogue Claude model counts with its generation; a Claude model whose name
/// says no generation keeps the upper estimate.
#[test]
fn catalogue_claude_models_count_with_their_generation() {
    let counter = Model::lookup("claude-sonnet-4-5")
        .unwrap()
        .counter()
        .unwrap();
    let ModelCounter::Claude(claude) = &counter else {
        panic!("expected the Claude counter, got {counter:?}");
    };
    assert_eq!(claude.generation(), ClaudeGeneration::V3);
    assert_eq!(counter.exactness(), Exactness::Exact);
    assert_eq!(counter.count("hello, world"), 3);

    let preview = Model::new(
        "claude-next",
        Provider::Anthropic,
        1_000_000,
        ModelTokenizer::Estimate(EstimateProfile::Claude),
        ApiFormat::AnthropicMessages,
    );
    let counter = preview.counter().unwrap();
    assert!(matches!(counter, ModelCounter::Estimate(_)), "{counter:?}");
}

/// Every Claude model of the catalogue maps to a tokenizer generation.
#[test]
fn every_claude_model_of_the_catalogue_has_a_generation() {
    let mut claude = 0;
    for model in ctxbudget::models::Catalogue::builtin().models() {
        if model.provider() == Provider::Anthropic {
            claude += 1;
            assert!(
                ClaudeGeneration::for_model(model.name()).is_some(),
                "{}",
                model.name()
            );
            assert!(matches!(model.counter(), Ok(ModelCounter::Claude(_))));
        }
    }
    assert!(claude >= 10, "{claude} Claude models");
    // A model of another provider that borrows the Claude estimate keeps it.
    let codestral = Model::lookup("codestral-2501").unwrap();
    if *codestral.tokenizer() == ModelTokenizer::Estimate(EstimateProfile::Claude) {
        let counter = codestral.counter().unwrap();
        let ModelCounter::Estimate(estimate) = counter else {
            panic!("{counter:?}");
        };
        assert_eq!(estimate.margin_percent(), 15);
    }
}

/// A Claude model whose generation is unknown counts with an estimate that is an
/// upper bound for the newest generation on real text of every length (the Claude
/// estimate's default 15% margin is 8-11% under on the corpus and up to 40% under
/// on short slices).
#[test]
#[allow(clippy::cast_precision_loss)]
fn the_estimate_of_an_unknown_generation_bounds_the_newest() {
    let preview = Model::new(
        "claude-next",
        Provider::Anthropic,
        1_000_000,
        ModelTokenizer::Estimate(EstimateProfile::Claude),
        ApiFormat::AnthropicMessages,
    );
    let estimate = preview.counter().unwrap();
    let [_, v4_7, v4_8] = counters();
    let mut lowest = f64::MAX;
    for text in [PROSE, MARKDOWN, CODE, MULTILINGUAL] {
        for length in [16, 64, 256, 1_024, 4_096]
            .into_iter()
            .filter(|&l| l < text.len())
        {
            for k in 0..40 {
                let start =
                    ctxbudget_tests::floor_char_boundary(text, (k * 7_919) % (text.len() - length));
                let end = ctxbudget_tests::floor_char_boundary(text, start + length);
                let slice = &text[start..end];
                let newest = v4_7.count(slice).max(v4_8.count(slice));
                let guess = estimate.count(slice);
                lowest = lowest.min(guess as f64 / newest.max(1) as f64);
                assert!(guess >= newest, "{guess} < {newest}: {slice:?}");
            }
        }
    }
    assert!(lowest < 1.5, "the bound is not loose everywhere: {lowest}");
}

/// Trimming to a budget keeps text whose count is within it, in every generation.
#[test]
fn trims_within_the_budget() {
    for counter in counters() {
        for text in [PROSE, MARKDOWN, CODE, MULTILINGUAL] {
            for budget in [1, 50, 700] {
                for keep in [Keep::Head, Keep::Tail] {
                    let result = trim_with(text, budget, &counter, &TrimOptions::new().keep(keep));
                    assert!(result.tokens <= budget);
                    assert_eq!(counter.count(result.kept), result.tokens);
                }
            }
        }
    }
}

fn char_boundaries(text: &str) -> Vec<usize> {
    (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect()
}

/// Checks `count(x..y) == count(x..at) + count(at..y)` around every split point of
/// `text`, for every x and y.
fn check_every_split(counter: Claude, text: &str) -> Result<(), TestCaseError> {
    let bounds = char_boundaries(text);
    let mut from = 0;
    while let Some(at) = counter.next_split(text, from) {
        prop_assert!(at >= from && at > 0 && at < text.len() && text.is_char_boundary(at));
        for &x in bounds.iter().filter(|&&x| x < at) {
            for &y in bounds.iter().filter(|&&y| y > at) {
                prop_assert_eq!(
                    counter.count(&text[x..y]),
                    counter.count(&text[x..at]) + counter.count(&text[at..y]),
                    "{} x {} at {} y {}",
                    counter.generation(),
                    x,
                    at,
                    y
                );
            }
        }
        prop_assert_eq!(counter.prev_split(text, at + 1), Some(at));
        from = at + 1;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The contract of `TokenCounter::next_split` on slices of real text.
    #[test]
    fn split_points_are_additive(
        generation in 0usize..3,
        fixture in 0usize..4,
        start in 0usize..30_000,
        span in 1usize..400,
        cut in 0usize..400,
    ) {
        let text = [PROSE, MARKDOWN, CODE, MULTILINGUAL][fixture];
        let counter = counters()[generation];
        if let Some((x, split, y)) = slice_around_split(&counter, text, start, span, cut) {
            prop_assert_eq!(
                counter.count(&text[x..y]),
                counter.count(&text[x..split]) + counter.count(&text[split..y])
            );
        }
    }

    /// Every x < split < y around every split point of adversarial text: case,
    /// contractions, digits, marks, every kind of whitespace, punctuation that
    /// takes border markers, ideographs, controls and private use.
    #[test]
    fn split_points_are_additive_on_adversarial_text(
        generation in 0usize..3,
        text in "[a-zA-Z0-9ÀéΣİẞϴ \t\n\r\0\u{1}.,;'’“!?+/_\u{a0}\u{3000}日本。、々あカー한\u{301}\u{3099}\u{903}\u{730}क١²\u{e000}\u{fe0f}\u{200d}😀👍🏽-]{1,32}",
    ) {
        check_every_split(counters()[generation], &text)?;
    }

    /// Any text counts without panicking, and a longer text never counts less than
    /// the empty one.
    #[test]
    fn never_panics(generation in 0usize..3, text in any::<String>()) {
        let counter = counters()[generation];
        let _ = counter.count(&text);
        let _ = counter.next_split(&text, 0);
        let _ = counter.prev_split(&text, text.len());
    }
}
