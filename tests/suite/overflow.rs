//! Providers' context-overflow errors: the fixtures as public threads quote them,
//! bodies that are not overflows, arbitrary bytes, and a refit in one call that the
//! provider (a counter standing in for it) accepts.

use std::path::PathBuf;

use ctxbudget::request::{
    ContextOverflow, OverflowError, OverflowProvider, RequestError, RequestFitter,
    openai::ChatRequest,
};
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/overflow")
        .join(name);
    std::fs::read(path).unwrap()
}

fn parsed(name: &str) -> ContextOverflow {
    ContextOverflow::parse(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `(provider, limit, input, output)` of a parsed fixture.
fn values(o: &ContextOverflow) -> (OverflowProvider, Option<u64>, Option<u64>, Option<u64>) {
    (o.provider, o.limit, o.input_tokens, o.output_tokens)
}

#[test]
fn openai_fixtures_give_the_window_and_the_counts() {
    use OverflowProvider::OpenAi;
    let o = parsed("openai_messages.json");
    assert_eq!(values(&o), (OpenAi, Some(4_097), Some(4_294), None));
    assert_eq!(o.excess(), Some(197));
    assert!(o.message.starts_with("This model's maximum context length"));
    let o = parsed("openai_completion.json");
    assert_eq!(values(&o), (OpenAi, Some(4_097), Some(3_120), Some(1_000)));
    assert_eq!(o.excess(), Some(23));
    let o = parsed("vllm_completion.txt");
    assert_eq!(values(&o), (OpenAi, Some(8_192), Some(7_691), Some(512)));
    assert_eq!(o.excess(), Some(11));
    let o = parsed("openai_compatible_about.txt");
    assert_eq!(values(&o), (OpenAi, Some(32_768), Some(42_832), None));
    let o = parsed("openai_responses_stream.json");
    assert_eq!(values(&o), (OpenAi, None, None, None));
    assert!(
        o.message
            .starts_with("Your input exceeds the context window")
    );
    assert_eq!(o.excess(), None);
    assert_eq!(o.refit_limit(1_000), None);
}

#[test]
fn anthropic_fixtures_give_the_window_and_the_counts() {
    use OverflowProvider::Anthropic;
    let o = parsed("anthropic_prompt_too_long.json");
    assert_eq!(values(&o), (Anthropic, Some(200_000), Some(200_251), None));
    assert_eq!(o.excess(), Some(251));
    let o = parsed("anthropic_max_tokens.json");
    assert_eq!(
        values(&o),
        (Anthropic, Some(200_000), Some(199_759), Some(8_192))
    );
    assert_eq!(o.excess(), Some(7_951));
    // Through Bedrock and a gateway, as a JSON string inside the body.
    let o = parsed("gateway_bedrock_anthropic.json");
    assert_eq!(
        values(&o),
        (Anthropic, Some(204_658), Some(149_674), Some(64_000))
    );
    assert_eq!(o.excess(), Some(9_016));
}

#[test]
fn gemini_and_bedrock_fixtures() {
    let o = parsed("gemini.json");
    assert_eq!(
        values(&o),
        (
            OverflowProvider::Gemini,
            Some(1_048_576),
            Some(1_200_293),
            None
        )
    );
    assert_eq!(o.excess(), Some(151_717));
    for name in ["bedrock.json", "bedrock_converse.txt"] {
        let o = parsed(name);
        assert_eq!(
            values(&o),
            (OverflowProvider::Bedrock, None, None, None),
            "{name}"
        );
    }
}

#[test]
fn bodies_that_are_not_overflows_say_what_was_expected() {
    let rate = r#"{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.","type":"tokens","code":"rate_limit_exceeded"}}"#;
    let err = ContextOverflow::parse(rate).unwrap_err();
    assert!(
        matches!(&err, OverflowError::NotOverflow { excerpt } if excerpt.starts_with("Rate limit reached")),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "not a context-overflow error: `Rate limit reached for gpt-4o on toke...`; expected the overflow error of OpenAI, Anthropic, Gemini or Bedrock"
    );
    assert!(ContextOverflow::parse("  \n").unwrap_err() == OverflowError::Empty);
    assert!(matches!(
        ContextOverflow::parse("Internal Server Error"),
        Err(OverflowError::NotOverflow { .. })
    ));
    // The Gemini phrase without its second half is not an overflow.
    assert!(ContextOverflow::from_message("The input token count (5) is fine").is_none());
    // OpenAI's code alone, in a wording not known here, is an overflow without numbers.
    let o = ContextOverflow::parse(
        r#"{"error":{"message":"Too long.","code":"context_length_exceeded"}}"#,
    )
    .unwrap();
    assert_eq!(values(&o), (OverflowProvider::OpenAi, None, None, None));
    assert_eq!(o.message, "Too long.");
}

/// An OpenAI request of `turns` user/assistant exchanges of `words` words each.
fn session(turns: usize, words: usize) -> ChatRequest {
    let text = |tag: &str, i: usize| format!("{tag} {i} {}", "word ".repeat(words));
    let mut messages = vec![r#"{"role": "system", "content": "Be brief."}"#.to_owned()];
    for i in 0..turns {
        messages.push(format!(
            r#"{{"role": "user", "content": "{}"}}"#,
            text("question", i)
        ));
        messages.push(format!(
            r#"{{"role": "assistant", "content": "{}"}}"#,
            text("answer", i)
        ));
    }
    messages.push(r#"{"role": "user", "content": "And now?"}"#.to_owned());
    let body = format!(
        r#"{{"model": "gpt-4o", "messages": [{}]}}"#,
        messages.join(",")
    );
    ChatRequest::from_json(&body).unwrap()
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Sends `request` to a provider that counts with `provider` and takes `window`
/// input tokens: `None` when it is accepted, else its error body in OpenAI's wording.
fn send(request: &ChatRequest, provider: impl Fn(&str) -> usize, window: usize) -> Option<String> {
    let tokens = RequestFitter::new(provider).count(request).tokens;
    (tokens > window).then(|| {
        format!(
            r#"{{"error": {{"message": "This model's maximum context length is {window} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}}}"#
        )
    })
}

#[test]
fn a_rejected_request_refits_in_one_call_and_is_accepted() {
    // The provider counts 3 tokens for every 2 words and 4 more per text: a fitter
    // counting words under-counts by a ratio and a fixed part at once.
    let provider = |t: &str| words(t) * 3 / 2 + 4;
    let window = 300;
    let fitter = RequestFitter::new(words).with_max_input(window);
    let sent = fitter.fit(session(20, 12)).unwrap().request;
    let body = send(&sent, provider, window).expect("the estimate under-counts");
    let overflow = ContextOverflow::parse(&body).unwrap();
    let refitted = fitter.refit(sent.clone(), &overflow).unwrap();
    assert!(refitted.report.limit < window);
    assert!(refitted.request.messages.len() < sent.messages.len());
    assert_eq!(send(&refitted.request, provider, window), None);
}

#[test]
fn error_messages_are_one_sentence_of_what_and_one_of_how() {
    let long = "x".repeat(500);
    let errors: Vec<Box<dyn std::error::Error>> = vec![
        Box::new(ContextOverflow::parse(&long).unwrap_err()),
        Box::new(ContextOverflow::parse(format!(r#"{{"message": "{long}"}}"#)).unwrap_err()),
        Box::new(OverflowError::Empty),
        Box::new(RequestError::OverflowWithoutCounts {
            provider: "Bedrock",
        }),
    ];
    for err in errors {
        let message = err.to_string();
        assert!(
            message.len() <= 160,
            "{} characters: {message}",
            message.len()
        );
        assert!(
            message.contains("; ") || message.contains(": "),
            "no fix: {message}"
        );
    }
}

#[test]
fn a_refit_without_counts_is_an_error_that_says_so() {
    let overflow = ContextOverflow::parse(fixture("bedrock.json")).unwrap();
    let err = RequestFitter::new(words)
        .with_max_input(100)
        .refit(session(2, 3), &overflow)
        .unwrap_err();
    assert!(matches!(
        err,
        RequestError::OverflowWithoutCounts {
            provider: "Bedrock"
        }
    ));
    assert!(err.to_string().contains("no token counts"), "{err}");
}

#[test]
fn a_refit_without_a_limit_of_its_own_uses_the_overflows() {
    let request = session(6, 5);
    let counted = RequestFitter::new(words).count(&request).tokens;
    let overflow = ContextOverflow::from_message(&format!(
        "prompt is too long: {} tokens > {counted} maximum",
        counted + 20
    ))
    .unwrap();
    let refitted = RequestFitter::new(words).refit(request, &overflow).unwrap();
    assert_eq!(refitted.report.limit, counted - 20);
    assert!(refitted.report.tokens_after <= counted - 20);
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = ContextOverflow::parse(&body);
    }

    #[test]
    fn arbitrary_text_around_the_phrases_never_panics(
        before in ".{0,40}",
        phrase in prop::sample::select(vec![
            "maximum context length is", "you requested", "resulted in", "prompt is too long:",
            "exceed context limit:", "the input token count (", "tokens allowed (",
            "exceed the configured limit of", "(", ">", "+",
        ]),
        after in ".{0,40}",
    ) {
        let text = format!("{before}{phrase}{after}");
        let _ = ContextOverflow::from_message(&text);
        let _ = ContextOverflow::parse(serde_json::json!({"error": {"message": text}}).to_string());
    }

    #[test]
    fn stated_numbers_are_read_back(input in any::<u64>(), limit in any::<u64>(), output in any::<u64>()) {
        let o = ContextOverflow::from_message(&format!("prompt is too long: {input} tokens > {limit} maximum")).unwrap();
        prop_assert_eq!((o.input_tokens, o.limit), (Some(input), Some(limit)));
        let o = ContextOverflow::from_message(&format!(
            "input length and `max_tokens` exceed context limit: {input} + {output} > {limit}, decrease input length"
        )).unwrap();
        prop_assert_eq!((o.input_tokens, o.output_tokens, o.limit), (Some(input), Some(output), Some(limit)));
        let o = ContextOverflow::from_message(&format!(
            "The input token count ({input}) exceeds the maximum number of tokens allowed ({limit})."
        )).unwrap();
        prop_assert_eq!((o.input_tokens, o.limit), (Some(input), Some(limit)));
        // The excess and the refit limit never panic, and the refit sheds at least
        // the excess from any count.
        if let Some(cap) = o.refit_limit(usize::try_from(input).unwrap_or(usize::MAX)) {
            prop_assert!(u64::try_from(cap).unwrap() <= input.saturating_sub(o.excess().unwrap()));
        }
    }

    /// A provider that counts every text at least as the fitter does (a ratio of
    /// 1 to 3, and a fixed part per text) accepts the refitted request, or the
    /// refit says what must stay does not fit.
    #[test]
    fn a_refit_is_accepted_when_the_provider_counts_at_least_as_much(
        turns in 1usize..30,
        size in 1usize..20,
        ratio in 1usize..=3,
        fixed in 0usize..6,
        window in 40usize..400,
    ) {
        let provider = move |t: &str| words(t) * ratio + fixed;
        let fitter = RequestFitter::new(words).with_max_input(window);
        let Ok(fitted) = fitter.fit(session(turns, size)) else { return Ok(()) };
        let Some(body) = send(&fitted.request, provider, window) else { return Ok(()) };
        let overflow = ContextOverflow::parse(&body).unwrap();
        match fitter.refit(fitted.request, &overflow) {
            Ok(refitted) => prop_assert_eq!(send(&refitted.request, provider, window), None),
            Err(err) => prop_assert!(matches!(err, RequestError::DoesNotFit { .. }), "{}", err),
        }
    }
}
