//! `AnyRequest`: a body of any wire format, read in the format `detect_format` tells,
//! fitted and counted exactly as its format's own type is.

use ctxbudget::Tiktoken;
use ctxbudget::chat::edit::Edits;
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::responses::ResponsesRequest;
use ctxbudget::request::{AnyRequest, RequestError, RequestFitter, RequestFormat, WireRequest};

const OPENAI: &str = include_str!("../fixtures/requests/openai/coding_session.json");
const ANTHROPIC: &str = include_str!("../fixtures/requests/anthropic/session.json");
const RESPONSES: &str = include_str!("../fixtures/responses/agent_session.json");

/// A fit's body, tokens after, messages dropped and kept.
type Fit = (String, usize, usize, usize);

/// What fitting `R` through its own type gives: the body and the report's figures.
fn fit_own<R: WireRequest>(
    fitter: &RequestFitter<Tiktoken>,
    request: R,
    to_json: impl Fn(&R) -> String,
) -> Fit {
    let own = fitter.fit(request).unwrap();
    (
        to_json(&own.request),
        own.report.tokens_after,
        own.report.dropped.len(),
        own.report.kept,
    )
}

#[test]
fn each_format_is_detected_fitted_and_counted_as_its_own_type() {
    let fitter = RequestFitter::new(Tiktoken::o200k_base())
        .with_max_input(8_000)
        .with_edits(Edits::default());
    let cases: [(&str, RequestFormat, Fit, usize); 3] = [
        (
            OPENAI,
            RequestFormat::OpenAiChat,
            fit_own(
                &fitter,
                ChatRequest::from_json(OPENAI).unwrap(),
                ChatRequest::to_json,
            ),
            fitter
                .count(&ChatRequest::from_json(OPENAI).unwrap())
                .tokens,
        ),
        (
            ANTHROPIC,
            RequestFormat::AnthropicMessages,
            fit_own(
                &fitter,
                MessagesRequest::from_json(ANTHROPIC).unwrap(),
                MessagesRequest::to_json,
            ),
            fitter
                .count(&MessagesRequest::from_json(ANTHROPIC).unwrap())
                .tokens,
        ),
        (
            RESPONSES,
            RequestFormat::OpenAiResponses,
            fit_own(
                &fitter,
                ResponsesRequest::from_json(RESPONSES).unwrap(),
                ResponsesRequest::to_json,
            ),
            fitter
                .count(&ResponsesRequest::from_json(RESPONSES).unwrap())
                .tokens,
        ),
    ];
    for (body, format, own, own_count) in cases {
        let any = AnyRequest::from_json(body, None).unwrap();
        assert_eq!(any.format(), format);
        assert!(any.validate().is_ok());
        assert!(any.message_count() > 20, "{format}");
        assert_eq!(fitter.count_any(&any).tokens, own_count, "{format}");
        let any_fit = fitter.fit_any(any).unwrap();
        assert_eq!(any_fit.request.format(), format);
        let got = (
            any_fit.request.to_json(),
            any_fit.report.tokens_after,
            any_fit.report.dropped.len(),
            any_fit.report.kept,
        );
        assert_eq!(got, own, "{format}");
        assert!(got.1 <= 8_000);
    }
}

#[test]
fn a_named_format_overrides_detection_and_errors_say_what_is_wrong() {
    // Plain user text reads in either format; named, it is that format.
    let plain = r#"{"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]}"#;
    assert_eq!(
        AnyRequest::from_json(plain, None).unwrap().format(),
        RequestFormat::OpenAiChat
    );
    let named = AnyRequest::from_json(plain, Some(RequestFormat::AnthropicMessages)).unwrap();
    assert_eq!(named.format(), RequestFormat::AnthropicMessages);
    assert_eq!(named.model(), Some("claude-sonnet-4-5"));
    assert_eq!(named.max_output_tokens(), Some(10));
    // The body's own output limit is reserved from a window, as for its own type.
    let fitter = RequestFitter::new(Tiktoken::o200k_base()).with_window(100, 50);
    assert_eq!(fitter.input_limit_any(&named).unwrap(), (90, 10));

    assert!(matches!(
        AnyRequest::from_json("{\"messages\": [", None),
        Err(RequestError::NotJson { .. })
    ));
    let wrong = AnyRequest::from_json(r#"{"messages": 5}"#, Some(RequestFormat::OpenAiChat));
    let message = wrong.unwrap_err().to_string();
    assert!(message.contains("column"), "{message}");
}
