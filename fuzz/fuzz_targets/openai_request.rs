//! OpenAI Chat Completions request bodies from arbitrary bytes: never panics; a body
//! that parses serializes to a body that parses to the same request and, when serde
//! reads the input as a JSON value too, to an equal value; counting and checking it
//! never panic; trimmed to a small budget with `ChatTrimmer` and `retain_messages`,
//! it still parses, round-trips, fits, keeps every kept message and every other field
//! as they were, and a valid request stays valid.
//!
//! Input: 1 byte of options (bits 0-5: the budget, in 16-token steps; bit 6: a word
//! counter or `CharEstimate`; bit 7: a byte-order mark before the body), then the
//! body.
#![no_main]

use ctxbudget::request::WireRequest;
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::{CharEstimate, ChatTrimmer, TokenCounter};
use libfuzzer_sys::fuzz_target;

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn check(options: u8, body: &[u8]) {
    let mut input = Vec::with_capacity(body.len() + 3);
    if options & 0x80 != 0 {
        input.extend_from_slice(b"\xef\xbb\xbf");
    }
    input.extend_from_slice(body);
    let Ok(request) = ChatRequest::from_slice(&input) else {
        return;
    };
    if let Ok(text) = std::str::from_utf8(&input) {
        assert_eq!(ChatRequest::from_json(text).ok().as_ref(), Some(&request));
    }

    // Round trip: the output parses back to the same request, and to the same value
    // as the input (when serde_json reads the input as a value: it rejects numbers
    // out of range, which a raw value keeps as text).
    let json = request.to_json();
    let again = ChatRequest::from_json(&json).expect("our output parses");
    assert_eq!(again, request);
    if let Ok(original) = serde_json::from_slice::<serde_json::Value>(body) {
        let written: serde_json::Value = serde_json::from_str(&json).expect("our output is JSON");
        assert_eq!(written, original);
    }

    let counter: &dyn TokenCounter = if options & 0x40 != 0 { &words } else { &CharEstimate };
    let cost = request.count(counter);
    let _ = cost.assumptions.iter().map(ToString::to_string).count();
    let valid = request.validate();
    if let Err(err) = &valid {
        assert!(!err.to_string().is_empty());
    }

    let budget = usize::from(options & 0x3f) * 16;
    let trimmer = ChatTrimmer::new(counter, budget).with_format(request.chat_format());
    let Ok(trimmed) = trimmer.trim(request.messages()) else {
        return;
    };
    assert!(trimmed.tokens() <= budget);
    let mut keep = vec![false; request.messages().len()];
    for element in trimmed.elements() {
        keep[element.seq] = true;
    }
    let mut out = request.clone();
    out.retain_messages(&keep);
    assert_eq!(out.messages.len(), trimmed.elements().len());
    for (message, element) in out.messages.iter().zip(trimmed.elements()) {
        assert_eq!(message, &request.messages[element.seq]);
    }
    assert_eq!(out.message_tokens(counter), trimmed.tokens());
    let (mut before, mut after) = (request.clone(), out.clone());
    before.messages.clear();
    after.messages.clear();
    assert_eq!(before, after, "only messages are removed");

    let reparsed = ChatRequest::from_json(&out.to_json()).expect("the trimmed body parses");
    assert_eq!(reparsed, out);
    if valid.is_ok() {
        if let Err(err) = out.validate() {
            panic!("a valid request trimmed is invalid: {err}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some((&options, body)) = data.split_first() {
        check(options, body);
    }
});
