//! What `RequestFitter::fit` promises for any valid request of either format, checked
//! by the property tests of `openai_request.rs` and `anthropic_request_props.rs`.

use std::fmt::Debug;

use ctxbudget::TokenCounter;
use ctxbudget::request::{RequestError, RequestFitter, WireRequest};
use serde::Serialize;

/// Fits `request` to `limit` tokens and checks the result:
///
/// - a fitted request recounts to the report's `tokens_after`, which is within the
///   limit, and validates;
/// - its messages are the input's, in order, each unchanged, and the report's dropped
///   messages are the rest, so that `tokens_before` is the whole request's count;
/// - a request that already fits comes back whole;
/// - a request that cannot fit is `DoesNotFit` with the limit and the excess.
pub fn check_fit<R, C>(request: &R, counter: C, limit: usize)
where
    R: WireRequest + Clone + Debug,
    R::Message: Serialize,
    C: TokenCounter,
{
    let request_fitter = RequestFitter::new(counter)
        .with_max_input(limit)
        .with_count_dropped(true);
    let whole = request_fitter.count(request).tokens;
    match request_fitter.fit(request.clone()) {
        Ok(fitted) => {
            let report = &fitted.report;
            let recount = request_fitter.count(&fitted.request);
            assert_eq!(recount.tokens, report.tokens_after, "{report}");
            assert!(report.tokens_after <= limit, "{report}");
            assert_eq!(report.limit, limit);
            assert_eq!(report.tokens_before, Some(whole), "{report}");
            fitted
                .request
                .validate()
                .expect("a fitted request is valid");

            let original = request.messages();
            let kept = fitted.request.messages();
            assert_eq!(kept.len(), report.kept);
            assert_eq!(kept.len() + report.dropped.len(), original.len());
            let mut dropped = report.dropped.iter().map(|d| d.index).peekable();
            let mut kept_iter = kept.iter();
            for (index, message) in original.iter().enumerate() {
                if dropped.peek() == Some(&index) {
                    dropped.next();
                    continue;
                }
                let next = kept_iter.next().expect("every message not dropped is kept");
                assert_eq!(json(next), json(message), "message {index} changed");
            }
            assert!(
                dropped.next().is_none(),
                "dropped indices in order, in range"
            );
            if whole <= limit {
                assert!(report.dropped.is_empty(), "{report}");
            }
        }
        Err(RequestError::DoesNotFit {
            needed,
            limit: said,
            over,
        }) => {
            assert_eq!(said, limit);
            assert!(needed > limit, "needed {needed} within {limit}");
            assert_eq!(over, needed - limit);
            assert!(whole > limit);
        }
        Err(other) => panic!("a valid request with a limit: {other}"),
    }
}

fn json<T: Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).expect("messages serialize")
}
