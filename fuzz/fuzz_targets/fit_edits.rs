//! Raw request bodies (OpenAI Chat Completions or Anthropic Messages) fitted by
//! `RequestFitter` with random context-edit options: never panics, and a fit that
//! succeeds gives a body that re-reads to the same request, is valid, fits the limit
//! by a fresh count, and differs from the input only where the report says: the
//! messages it does not drop are kept in order, each one no edit names is exactly as
//! it came in, and no edit made a message larger.
//!
//! Input: 2 bytes of limit (little-endian tokens), 2 bytes of options, then the body
//! (UTF-8, lossily).
//!
//! - byte 2: bit 0 the format (OpenAI, Anthropic); bit 1 a word counter or
//!   `CharEstimate`; bits 2-4 `keep` (7: no clearing); bit 5 no truncation; bit 6
//!   `keep_thinking`; bit 7 `clear_tool_inputs`.
//! - byte 3: bits 0-1 the low-water mark (60, 75, 90, 100% of the limit); bit 2
//!   `pin_task(false)`; bit 3 `exclude_tools(["read_file", "bash"])`; bits 4-5 the
//!   grid (0, 2.5, 5, 10%); bit 6 `Edits::none()` (drop-only); bit 7
//!   `clear_at_least` 10% of the limit.
#![no_main]

use std::fmt::Debug;

use ctxbudget::chat::edit::{Edits, Threshold};
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::{RequestFitter, WireRequest};
use ctxbudget::{CharEstimate, TokenCounter};
use libfuzzer_sys::fuzz_target;

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The edit options of the two option bytes.
fn edits(a: u8, b: u8) -> Edits {
    if b & 0x40 != 0 {
        return Edits::none();
    }
    let low_water = [0.6, 0.75, 0.9, 1.0][usize::from(b & 3)];
    let mut edits = Edits::default()
        .low_water(Threshold::share(low_water))
        .grid([0.0, 0.025, 0.05, 0.1][usize::from(b >> 4 & 3)])
        .pin_task(b & 0x04 == 0)
        .clear_tool_inputs(a & 0x80 != 0);
    edits = match a >> 2 & 7 {
        7 => edits.no_clearing(),
        keep => edits.clear_tool_results(usize::from(keep)),
    };
    if a & 0x20 != 0 {
        edits = edits.no_truncation();
    }
    if a & 0x40 != 0 {
        edits = edits.keep_thinking();
    }
    if b & 0x08 != 0 {
        edits = edits.exclude_tools(["read_file", "bash"]);
    }
    if b & 0x80 != 0 {
        edits = edits.clear_at_least(Threshold::share(0.1));
    }
    edits
}

fn check<R>(
    request: R,
    read: impl Fn(&str) -> Option<R>,
    write: impl Fn(&R) -> String,
    fitter: &RequestFitter<&dyn TokenCounter>,
) where
    R: WireRequest + Clone + PartialEq + Debug,
    R::Message: PartialEq + Debug,
{
    let Ok(fitted) = fitter.fit(request.clone()) else {
        return;
    };
    let (out, report) = (&fitted.request, &fitted.report);

    // The body re-reads to the same request, is valid and fits by a fresh count.
    let again = read(&write(out)).expect("a fitted body reads");
    assert_eq!(&again, out);
    if let Err(err) = out.validate() {
        panic!("a fitted request is invalid: {err}");
    }
    let fresh = fitter.count(out).tokens;
    assert!(
        fresh <= report.limit,
        "{fresh} tokens over the limit of {}",
        report.limit
    );
    assert!(report.tokens_after <= report.limit);

    // The output is the input less the dropped messages, in order; a message no
    // edit names is exactly as it came in.
    let mut dropped = vec![false; request.messages().len()];
    for d in &report.dropped {
        dropped[d.index] = true;
    }
    let kept: Vec<usize> = (0..dropped.len()).filter(|&i| !dropped[i]).collect();
    assert_eq!(kept.len(), out.messages().len(), "only dropped messages go");
    for (&i, message) in kept.iter().zip(out.messages()) {
        let edited = report
            .edits
            .as_ref()
            .is_some_and(|e| e.edits_of(i).next().is_some());
        if !edited {
            assert_eq!(
                message,
                &request.messages()[i],
                "message {i} changed, unreported"
            );
        }
    }
    if let Some(edits) = &report.edits {
        assert!(edits.compaction.is_none(), "the fitter has no summarizer");
        for edit in &edits.edits {
            assert!(
                edit.message < dropped.len(),
                "an edit names message {}",
                edit.message
            );
            assert!(
                edit.tokens_after <= edit.tokens_before,
                "{edit:?} made a message larger"
            );
        }
        let totals = &edits.totals;
        let saved = (edits.edits.iter()).fold(0usize, |sum, e| sum.saturating_add(e.saved()));
        assert_eq!(totals.saved_tokens, saved);
    } else {
        assert!(fitter.edits().is_none());
    }
}

fuzz_target!(|data: &[u8]| {
    let [l0, l1, a, b, body @ ..] = data else {
        return;
    };
    let limit = usize::from(u16::from_le_bytes([*l0, *l1]));
    let counter: &dyn TokenCounter = if a & 0x02 != 0 { &words } else { &CharEstimate };
    let fitter = RequestFitter::new(counter)
        .with_max_input(limit)
        .with_edits(edits(*a, *b));
    let json = String::from_utf8_lossy(body);
    if a & 1 == 0 {
        if let Ok(request) = ChatRequest::from_json(&json) {
            check(
                request,
                |s| ChatRequest::from_json(s).ok(),
                ChatRequest::to_json,
                &fitter,
            );
        }
    } else if let Ok(request) = MessagesRequest::from_json(&json) {
        check(
            request,
            |s| MessagesRequest::from_json(s).ok(),
            MessagesRequest::to_json,
            &fitter,
        );
    }
});
