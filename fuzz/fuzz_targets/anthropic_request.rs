//! Anthropic Messages request bodies from raw bytes: reading never panics, and a
//! body that reads is counted, checked, repaired and trimmed without panicking;
//! the trimmed body re-reads to the same request, keeps every kept message as it
//! was, and, when the input was valid, is valid too.
//!
//! Input: 2 bytes of budget, 1 byte of options (strategy, `start_on_user`,
//! `end_on` user, thinking retention), then the body (UTF-8, lossily).
#![no_main]

use ctxbudget::chat::{ChatFormat, ChatMessage, ChatStrategy, Role};
use ctxbudget::request::WireRequest;
use ctxbudget::request::anthropic::{MessagesRequest, ThinkingRetention};
use ctxbudget::{CharEstimate, ChatTrimmer};
use libfuzzer_sys::fuzz_target;

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fuzz_target!(|data: &[u8]| {
    let [b0, b1, options, body @ ..] = data else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes([*b0, *b1]));
    let json = String::from_utf8_lossy(body);
    let Ok(mut request) = MessagesRequest::from_json(&json) else {
        return;
    };
    match options >> 4 & 3 {
        0 => {}
        1 => request.set_thinking_retention(Some(ThinkingRetention::All)),
        2 => request.set_thinking_retention(Some(ThinkingRetention::LastTurns(0))),
        _ => request.set_thinking_retention(Some(ThinkingRetention::LastTurns(2))),
    }

    // Reading again what was written gives the same request.
    let written = request.to_json();
    let again = MessagesRequest::from_json(&written).expect("a written body reads");
    assert_eq!(again.to_json(), written);

    // Counting and checking never panic.
    let format = ChatFormat::anthropic();
    let cost = request.count(&CharEstimate);
    assert!(cost.tokens >= request.fixed_cost(&CharEstimate).tokens);
    let _ = request.count(&words);
    let _ = request.message_assumptions();
    let valid = request.validate().is_ok();
    for message in request.messages() {
        let _ = message.text();
        assert!(message.content_tokens(&CharEstimate) <= format.message_tokens(&CharEstimate, message));
    }
    let mut repaired = request.clone();
    let repair = repaired.repair_tool_pairing();
    if valid {
        assert!(repair.is_empty(), "a valid request needs no repair: {repair:?}");
    }
    let _ = repaired.validate();
    MessagesRequest::from_json(&repaired.to_json()).expect("a repaired body reads");

    // Trimming keeps whole messages, untouched.
    let start_on_user = options & 2 != 0;
    let mut trimmer = ChatTrimmer::new(CharEstimate, budget)
        .with_format(format)
        .with_start_on(start_on_user.then_some(Role::User))
        .with_strategy(if options & 1 != 0 {
            ChatStrategy::KeepFirst
        } else {
            ChatStrategy::KeepLast
        });
    if options & 4 != 0 {
        trimmer = trimmer.with_end_on([Role::User]);
    }
    let Ok(trimmed) = trimmer.trim(request.messages()) else {
        return;
    };
    assert!(trimmed.tokens() <= budget);
    let mut keep = vec![false; request.messages().len()];
    for element in trimmed.elements() {
        keep[element.seq] = true;
    }
    let originals: Vec<String> = request
        .messages()
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(m, _)| serde_json::to_string(m).unwrap())
        .collect();
    let mut out = request.clone();
    out.retain_messages(&keep);
    let kept: Vec<String> = out
        .messages()
        .iter()
        .map(|m| serde_json::to_string(m).unwrap())
        .collect();
    assert_eq!(kept, originals);
    let written = out.to_json();
    let again = MessagesRequest::from_json(&written).expect("a trimmed body reads");
    assert_eq!(again.messages(), out.messages());
    assert_eq!(again.to_json(), written);
    if valid && start_on_user && !out.messages().is_empty() {
        if let Err(e) = out.validate() {
            panic!("a valid request trimmed to an invalid one: {e}\n{json}\n{written}");
        }
    }
});
