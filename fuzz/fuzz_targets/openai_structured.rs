//! OpenAI Chat Completions bodies from a grammar (see `request_grammar.rs`): deep
//! tool schemas and unknown fields, numbers out of `f64` range, odd output limits,
//! model names of 100 KB, images and PDFs whose headers lie, keys given twice,
//! bodies of up to a few MB. Checks, with an exact counter (`o200k_base`,
//! `cl100k_base`, two Hugging Face `tokenizer.json` files, Tekken):
//!
//! - reading never panics, from text or bytes alike; a body that reads writes JSON
//!   that reads back to the same request;
//! - `detect_format` reads every body the parser reads, and names a format whose
//!   parser reads it;
//! - the request's count is at least the sum of the counts of its texts (string
//!   contents, `text` and `refusal` parts, refusals), each counted on its own as
//!   the request counts it, and `RequestFitter::count` gives the same count;
//! - a tool whose parameters have properties costs more than the same tool without
//!   them, and a `json_schema` response format more than none: a schema never costs
//!   nothing;
//! - checking and fitting never panic; a fitted request is within its limit and
//!   reads back.
//!
//! Input: structured (`arbitrary`); run with `-max_len=1048576`.
#![no_main]

#[path = "exact_counters.rs"]
mod exact_counters;
#[path = "json_out.rs"]
mod json_out;
#[path = "request_grammar.rs"]
mod request_grammar;

use ctxbudget::TokenCounter;
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::{ChatRequest, Content, ContentPart};
use ctxbudget::request::{RequestFitter, RequestFormat, WireRequest, detect_format};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

use exact_counters::Exact;
use request_grammar::OpenAiBody;

#[derive(Arbitrary, Debug)]
struct Input {
    body: OpenAiBody,
    pretty: bool,
    bom: bool,
    counter: Exact,
    budget: u16,
}

/// The sum of the counts of the request's texts, each on its own.
fn texts(request: &ChatRequest, counter: &(dyn TokenCounter + Send + Sync)) -> usize {
    let mut sum = 0usize;
    let mut add =
        |text: Option<&str>| sum = sum.saturating_add(text.map_or(0, |t| counter.count(t)));
    for message in &request.messages {
        match &message.content {
            Some(Content::Text(text)) => add(Some(text)),
            Some(Content::Parts(parts)) => {
                for part in parts {
                    match part {
                        ContentPart::Text(part) => add(part.text.as_deref()),
                        ContentPart::Refusal(part) => add(part.refusal.as_deref()),
                        _ => {}
                    }
                }
            }
            None => {}
        }
        add(message.refusal.as_deref());
    }
    sum
}

fuzz_target!(|input: Input| {
    let (json, facts) = input.body.write(if input.pretty { " \n" } else { "" });
    let text = if input.bom {
        format!("\u{feff}{json}")
    } else {
        json
    };
    let detected = detect_format(&text);
    let Ok(request) = ChatRequest::from_json(&text) else {
        assert!(ChatRequest::from_slice(text.as_bytes()).is_err());
        return;
    };
    assert_eq!(
        ChatRequest::from_slice(text.as_bytes()).ok().as_ref(),
        Some(&request)
    );

    // Detection reads what the parser reads, and names a format that reads it.
    match detected {
        Err(error) => panic!("the OpenAI parser reads the body, detect_format does not: {error}"),
        Ok(RequestFormat::AnthropicMessages) => {
            if let Err(error) = MessagesRequest::from_json(&text) {
                panic!("detected as Anthropic Messages, which does not read it: {error}");
            }
        }
        Ok(_) => {}
    }

    // Written and read back: the same request.
    let written = request.to_json();
    let again = ChatRequest::from_json(&written).expect("a written body reads");
    assert_eq!(again, request);
    assert_eq!(again.to_json(), written);

    // The count holds every text, each counted as the request counts it.
    let counter = input.counter.counter();
    let cost = request.count(counter);
    let _ = cost.assumptions.iter().map(ToString::to_string).count();
    let sum = texts(&request, counter);
    assert!(
        cost.tokens >= sum,
        "the request counts {} tokens, less than its texts' {sum}",
        cost.tokens
    );
    let fitter = RequestFitter::new(counter);
    let count = fitter.count(&request);
    assert_eq!(count.tokens, cost.tokens);

    // A schema never costs nothing.
    let fixed = count.fixed;
    for &i in facts.tools_with_properties.iter().take(4) {
        let mut without = request.clone();
        if let Some(function) = without
            .tools
            .as_mut()
            .and_then(|tools| tools.get_mut(i))
            .and_then(|tool| tool.function.as_mut())
        {
            function.parameters = None;
        }
        let less = without.fixed_cost(counter).tokens;
        assert!(
            fixed > less,
            "tool {i}'s parameters cost nothing: {fixed} tokens with them, {less} without"
        );
    }
    if facts.response_schema {
        let mut without = request.clone();
        without.extra.remove("response_format");
        let less = without.fixed_cost(counter).tokens;
        assert!(
            fixed > less,
            "the response format's schema costs nothing: {fixed} tokens with it, {less} without"
        );
    }

    // Checking and fitting never panic; what fits is within its limit.
    let valid = request.validate();
    if let Err(error) = &valid {
        assert!(!error.to_string().is_empty());
    }
    let budget = usize::from(input.budget);
    if let Ok(fitted) = fitter.with_max_input(budget).fit(request) {
        assert!(fitted.report.tokens_after <= fitted.report.limit);
        let written = fitted.request.to_json();
        assert_eq!(
            ChatRequest::from_json(&written).expect("a fitted body reads"),
            fitted.request
        );
    }
});
