//! Calibration from the provider's `usage`: each provider's fields, malformed
//! values, the factor's rules, persistence, and a conversation where a tokenizer
//! stands in for the provider and the error shrinks over the first turns.

use std::path::PathBuf;

use ctxbudget::request::{
    CALIBRATION_MIN, CALIBRATION_WINDOW, Calibration, InputUsage, RequestFitter, UsageError,
    UsageProvider, openai::ChatRequest,
};
use ctxbudget::{CharEstimate, Tiktoken};
use proptest::prelude::*;

fn usage(json: &str) -> InputUsage {
    InputUsage::from_json(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

#[test]
fn each_providers_usage_gives_the_whole_input() {
    let openai = usage(
        r#"{"id": "chatcmpl-1", "object": "chat.completion", "usage": {"prompt_tokens": 2006,
        "completion_tokens": 300, "total_tokens": 2306,
        "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0}}}"#,
    );
    assert_eq!(
        (openai.provider, openai.input_tokens, openai.cached_tokens),
        (UsageProvider::OpenAi, 2_006, 1_920)
    );
    let responses = usage(
        r#"{"input_tokens": 328, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 52, "total_tokens": 380}"#,
    );
    assert_eq!(
        (responses.provider, responses.input_tokens),
        (UsageProvider::OpenAi, 328)
    );
    // Anthropic's three input fields are disjoint: the total is their sum.
    let anthropic = usage(
        r#"{"usage": {"input_tokens": 21, "cache_creation_input_tokens": 188086,
        "cache_read_input_tokens": 0, "output_tokens": 393}}"#,
    );
    assert_eq!(
        (
            anthropic.provider,
            anthropic.input_tokens,
            anthropic.cached_tokens
        ),
        (UsageProvider::Anthropic, 188_107, 0)
    );
    let nulls = usage(r#"{"input_tokens": 12, "cache_read_input_tokens": null}"#);
    assert_eq!(nulls.input_tokens, 12);
    let gemini = usage(
        r#"{"candidates": [], "usageMetadata": {"promptTokenCount": 4102,
        "cachedContentTokenCount": 4000, "candidatesTokenCount": 10, "totalTokenCount": 4112}}"#,
    );
    assert_eq!(
        (gemini.provider, gemini.input_tokens, gemini.cached_tokens),
        (UsageProvider::Gemini, 4_102, 4_000)
    );
    let bedrock = usage(
        r#"{"usage": {"inputTokens": 7, "outputTokens": 30, "totalTokens": 1037,
        "cacheReadInputTokens": 1000, "cacheWriteInputTokens": 0}}"#,
    );
    assert_eq!(
        (
            bedrock.provider,
            bedrock.input_tokens,
            bedrock.cached_tokens
        ),
        (UsageProvider::Bedrock, 1_007, 1_000)
    );
}

#[test]
fn malformed_usage_names_the_field_and_what_was_expected() {
    let err = InputUsage::from_json(r#"{"usage": {"prompt_tokens": "12"}}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"`usage.prompt_tokens` is "12"; expected a whole number of tokens, 0 or more"#
    );
    let err = InputUsage::from_json(r#"{"input_tokens": -5}"#).unwrap_err();
    assert!(
        matches!(&err, UsageError::Field { field, .. } if field == "input_tokens"),
        "{err}"
    );
    let err = InputUsage::from_json(r#"{"input_tokens": 5, "cache_read_input_tokens": 1.5}"#)
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("`cache_read_input_tokens` is 1.5"),
        "{err}"
    );
    let err =
        InputUsage::from_json(r#"{"prompt_tokens": 5, "prompt_tokens_details": [1]}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`prompt_tokens_details` is [1]; expected an object of token counts"
    );
    let err = InputUsage::from_json(r#"{"usage": 5}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`usage` is 5; expected an object of token counts"
    );
    let err = InputUsage::from_json(
        r#"{"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": 9}}"#,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            UsageError::CachedOverInput {
                cached: 9,
                input: 5,
                ..
            }
        ),
        "{err}"
    );
    assert!(matches!(
        InputUsage::from_json(r#"{"output_tokens": 5}"#),
        Err(UsageError::NoInputCount)
    ));
    assert!(matches!(
        InputUsage::from_json("prompt_tokens=5"),
        Err(UsageError::NotJson { .. })
    ));
    let err = InputUsage::from_json(&format!(
        r#"{{"inputTokens": {}, "cacheReadInputTokens": 2}}"#,
        u64::MAX
    ))
    .unwrap_err();
    assert!(err.to_string().contains("fits 64 bits"), "{err}");
}

#[test]
fn usage_error_messages_stay_short() {
    let long = "9".repeat(300);
    for json in [
        format!(
            r#"{{"usage": {{"prompt_tokens_details": {{"cached_tokens": "{long}"}}, "prompt_tokens": 1}}}}"#
        ),
        r#"{"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": 9}}"#.to_owned(),
        r#"{"output_tokens": 1}"#.to_owned(),
        "{".to_owned(),
    ] {
        let message = InputUsage::from_json(&json).unwrap_err().to_string();
        assert!(
            message.len() <= 160,
            "{} characters: {message}",
            message.len()
        );
    }
}

fn billed(tokens: u64) -> InputUsage {
    usage(&format!(r#"{{"prompt_tokens": {tokens}}}"#))
}

#[test]
fn the_factor_is_the_largest_ratio_of_the_last_32_from_the_third_on() {
    let mut calibration = Calibration::new();
    calibration.observe("r0", 100, &billed(150)); // 1.5, soon out of the window
    calibration.observe("r1", 100, &billed(110));
    assert_eq!(calibration.factor(), None);
    assert_eq!(
        calibration.calibrate(1_000),
        1_000,
        "raw until {CALIBRATION_MIN}"
    );
    calibration.observe("r2", 100, &billed(105));
    assert_eq!(calibration.calibrate(1_000), 1_500);
    assert_eq!(calibration.calibrate(1), 2, "rounded up");
    // An estimate of 0 tells no ratio.
    calibration.observe("empty", 0, &billed(3));
    assert_eq!(calibration.observations().len(), 3);
    for i in 3..=CALIBRATION_WINDOW {
        calibration.observe(&format!("r{i}"), 200, &billed(180));
    }
    assert_eq!(calibration.observations().len(), CALIBRATION_WINDOW);
    // r0 is out: the largest ratio left is r1's 1.1.
    assert_eq!(calibration.factor(), Some((110, 100)));
    assert_eq!(calibration.calibrate(1_000), 1_100);
    // Never below a count billed for the same request.
    assert_eq!(calibration.calibrate_request("r1", 10), 110);
    assert_eq!(calibration.calibrate_request("r1", 500), 550);
    assert_eq!(calibration.calibrate_request("unseen", 10), 11);
}

#[test]
fn an_upper_estimate_is_scaled_down() {
    let mut calibration = Calibration::new();
    for (i, billed_tokens) in [80, 84, 82].into_iter().enumerate() {
        calibration.observe(&i.to_string(), 100, &billed(billed_tokens));
    }
    assert_eq!(calibration.calibrate(1_000), 840);
}

#[test]
fn a_calibration_persists_through_serde() {
    let mut calibration = Calibration::new();
    for i in 0..5u64 {
        calibration.observe(&format!("request {i}"), 100, &billed(100 + i * 7));
    }
    let json = serde_json::to_string(&calibration).unwrap();
    let back: Calibration = serde_json::from_str(&json).unwrap();
    assert_eq!(back, calibration);
    assert_eq!(back.calibrate_request("request 4", 10), 128);
    // A hostile file: zero estimates, huge counts, more than the window.
    let hostile = format!(
        r#"{{"observations": [{}]}}"#,
        (0..40)
            .map(|i| format!(
                r#"{{"request": {i}, "estimated": {}, "observed": {}}}"#,
                i % 2,
                u64::MAX
            ))
            .collect::<Vec<_>>()
            .join(",")
    );
    let hostile: Calibration = serde_json::from_str(&hostile).unwrap();
    assert_eq!(hostile.calibrate(10), usize::MAX);
}

/// Turn `i` of a conversation over `corpus`: messages of about `chars` characters.
fn conversation(corpus: &str, turns: usize, chars: usize) -> ChatRequest {
    let chunks: Vec<String> = corpus
        .chars()
        .collect::<Vec<_>>()
        .chunks(chars)
        .map(|c| c.iter().collect())
        .collect();
    let mut messages = vec![serde_json::json!({"role": "system", "content": "Review the code."})];
    for i in 0..turns {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        messages.push(serde_json::json!({"role": role, "content": chunks[i % chunks.len()]}));
    }
    messages.push(serde_json::json!({"role": "user", "content": "What next?"}));
    let body = serde_json::json!({"model": "gpt-4o", "messages": messages});
    ChatRequest::from_json(&body.to_string()).unwrap()
}

/// One turn: what the calibrated fit sent, as the estimate and the provider count it.
struct Turn {
    estimated: usize,
    calibrated: usize,
    billed: usize,
    billed_uncalibrated: usize,
}

/// Runs `turns` turns of a growing conversation fitted to `window` tokens by
/// `CharEstimate`, with `o200k_base` standing in for the provider's count, feeding
/// each turn's usage to the calibration.
fn run(corpus: &str, turns: usize, window: usize) -> Vec<Turn> {
    let provider = Tiktoken::o200k_base();
    let mut calibration = Calibration::new();
    let mut rows = Vec::new();
    for turn in 1..=turns {
        let request = conversation(corpus, turn * 2, 600);
        let plain = RequestFitter::new(CharEstimate).with_max_input(window);
        let uncalibrated = plain.fit(request.clone()).unwrap().request;
        let sent = plain
            .with_calibration(&calibration)
            .fit(request)
            .unwrap()
            .request;
        let estimated = RequestFitter::new(CharEstimate).count(&sent).tokens;
        let billed = RequestFitter::new(&provider).count(&sent).tokens;
        let body = sent.to_json();
        rows.push(Turn {
            estimated,
            calibrated: calibration.calibrate_request(&body, estimated),
            billed,
            billed_uncalibrated: RequestFitter::new(&provider).count(&uncalibrated).tokens,
        });
        let usage = InputUsage::from_json(&format!(r#"{{"prompt_tokens": {billed}}}"#)).unwrap();
        calibration.observe(&body, estimated, &usage);
    }
    rows
}

/// The window left unused; below 0, by how much the request overflowed it.
fn unused(window: usize, billed: usize) -> i64 {
    i64::try_from(window).unwrap() - i64::try_from(billed).unwrap()
}

fn report(name: &str, window: usize, rows: &[Turn]) {
    eprintln!("{name}, window {window}: turn, estimate, calibrated, billed, unused (uncalibrated)");
    for (i, t) in rows.iter().enumerate() {
        eprintln!(
            "{:>4} {:>6} {:>6} {:>6} {:>6} ({})",
            i + 1,
            t.estimated,
            t.calibrated,
            t.billed,
            unused(window, t.billed),
            unused(window, t.billed_uncalibrated),
        );
    }
}

fn corpus(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn on_multilingual_text_the_estimate_under_counts_and_calibration_stops_the_overflow() {
    let window = 3_000;
    let rows = run(&corpus("multilingual.txt"), 12, window);
    report("multilingual.txt", window, &rows);
    // chars/4 under-counts this text: uncalibrated, the full requests overflow.
    assert!(rows.iter().any(|t| t.billed_uncalibrated > window));
    for (i, t) in rows.iter().enumerate() {
        let error = t.billed.abs_diff(t.estimated);
        let calibrated_error = t.billed.abs_diff(t.calibrated);
        if i < CALIBRATION_MIN {
            assert_eq!(
                t.calibrated,
                t.estimated,
                "turn {}: raw until calibrated",
                i + 1
            );
        } else {
            // From the fourth turn the calibrated count is closer, and the sent
            // request is within the window.
            assert!(calibrated_error < error, "turn {}", i + 1);
            assert!(t.billed <= window, "turn {}: {} billed", i + 1, t.billed);
        }
    }
}

#[test]
fn on_prose_an_over_count_is_given_back() {
    let window = 3_000;
    let rows = run(&corpus("prose.txt"), 12, window);
    report("prose.txt", window, &rows);
    let late = &rows[CALIBRATION_MIN..];
    for t in late {
        assert!(t.billed <= window);
        assert!(t.billed.abs_diff(t.calibrated) <= t.billed.abs_diff(t.estimated));
    }
    // Where the window is full, the calibrated fit leaves less of it unused.
    let full: Vec<_> = late
        .iter()
        .filter(|t| t.billed_uncalibrated > window / 2)
        .collect();
    assert!(!full.is_empty());
    assert!(full.iter().all(|t| t.billed >= t.billed_uncalibrated));
    assert!(full.iter().any(|t| t.billed > t.billed_uncalibrated));
}

#[test]
fn an_exact_counter_is_not_scaled() {
    let mut calibration = Calibration::new();
    for i in 0..3 {
        calibration.observe(&i.to_string(), 100, &billed(200));
    }
    let request = conversation(&corpus("prose.txt"), 8, 400);
    let exact = RequestFitter::new(Tiktoken::o200k_base()).with_max_input(500);
    assert_eq!(
        exact.fit(request.clone()).unwrap().report.limit,
        exact
            .with_calibration(&calibration)
            .fit(request.clone())
            .unwrap()
            .report
            .limit
    );
    let estimate = RequestFitter::new(CharEstimate)
        .with_max_input(500)
        .with_calibration(&calibration);
    assert_eq!(estimate.fit(request).unwrap().report.limit, 250);
}

proptest! {
    #[test]
    fn usage_of_any_shape_never_panics(json in r#"\{("[a-zA-Z_]{1,24}": ?(-?[0-9]{1,22}|null|"x"|\{\}|\[\]|1\.5), ?){0,6}\}"#) {
        let fixed = json.replace(", }", "}").replace(",}", "}");
        let _ = InputUsage::from_json(&fixed);
        let _ = InputUsage::from_json(&format!(r#"{{"usage": {fixed}}}"#));
    }

    #[test]
    fn calibrated_counts_follow_the_largest_ratio(
        observations in proptest::collection::vec((1usize..10_000, 0u64..20_000), 0..40),
        estimate in 0usize..1_000_000,
    ) {
        let mut calibration = Calibration::new();
        for (i, (estimated, observed)) in observations.iter().enumerate() {
            calibration.observe(&i.to_string(), *estimated, &billed(*observed));
        }
        let kept = &observations[observations.len().saturating_sub(CALIBRATION_WINDOW)..];
        let calibrated = calibration.calibrate(estimate);
        if kept.len() < CALIBRATION_MIN {
            prop_assert_eq!(calibrated, estimate);
        } else {
            // calibrated = ceil(estimate × max ratio): at or above every kept ratio's
            // scaling, and within one of the largest.
            for (e, o) in kept {
                let scaled = (estimate as u128 * u128::from(*o)).div_ceil(*e as u128);
                prop_assert!(calibrated as u128 >= scaled);
            }
            let hits = |&(e, o): &(usize, u64)| {
                calibrated as u128 == (estimate as u128 * u128::from(o)).div_ceil(e as u128)
            };
            prop_assert!(kept.iter().any(hits));
        }
        // Never below what was billed for the same request.
        if let Some((i, (_, observed))) = kept.iter().enumerate().next_back() {
            let index = observations.len() - kept.len() + i;
            prop_assert!(calibration.calibrate_request(&index.to_string(), 0) as u64 >= *observed);
        }
    }
}
