//! Anthropic Messages bodies from a grammar (see `request_grammar.rs`): documents
//! nested in custom-content documents hundreds to tens of thousands of levels deep,
//! deep tool inputs and schemas, numbers out of `f64` range, odd `max_tokens`,
//! names of 100 KB, images and PDFs whose headers lie, keys given twice, bodies of
//! up to a few MB. Checks, with an exact counter (`o200k_base`, `cl100k_base`, two
//! Hugging Face `tokenizer.json` files, Tekken):
//!
//! - reading never panics; a body that reads writes JSON that reads back to the
//!   same request;
//! - `detect_format` reads every body the parser reads, and names a format whose
//!   parser reads it;
//! - the request's count is at least the sum of the counts of the texts the body
//!   holds (string contents, text blocks, tool results and their ids, text
//!   documents, titles, contexts, the system prompt, the texts of custom-content
//!   documents at every depth), each counted on its own as the request counts it;
//!   only when the count says it read nested documents as their JSON text are the
//!   texts inside custom-content documents left out of the sum;
//! - `RequestFitter::count` gives the same count; the fixed cost is at least the
//!   custom tools' names, descriptions and compact schemas;
//! - checking, repairing and fitting never panic; a fitted request is within its
//!   limit and reads back.
//!
//! Input: structured (`arbitrary`); run with `-max_len=1048576`. `FUZZ_MAX_DEPTH`
//! caps the nesting (default 20,000); `FUZZ_TRACE=1` prints each body's size,
//! nesting, text sum and count.
#![no_main]

#[path = "exact_counters.rs"]
mod exact_counters;
#[path = "json_out.rs"]
mod json_out;
#[path = "request_grammar.rs"]
mod request_grammar;

use ctxbudget::request::anthropic::{MessagesRequest, ThinkingRetention};
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::{Assumption, RequestFitter, RequestFormat, WireRequest, detect_format};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

use exact_counters::Exact;
use request_grammar::AnthropicBody;

#[derive(Arbitrary, Debug)]
struct Input {
    body: AnthropicBody,
    pretty: bool,
    bom: bool,
    counter: Exact,
    budget: u16,
    retention: u8,
}

/// Whether the count read some custom-content document's content as JSON text
/// (too deep, or not blocks) rather than block by block.
fn read_as_json_text(assumptions: &[Assumption]) -> bool {
    assumptions.iter().any(|a| {
        matches!(a, Assumption::UnpublishedRule { what, .. }
            if what.contains("JSON text") && what.contains("custom-content"))
    })
}

fuzz_target!(|input: Input| {
    let (json, facts) = input.body.write(if input.pretty { " \n" } else { "" });
    let text = if input.bom {
        format!("\u{feff}{json}")
    } else {
        json
    };
    let detected = detect_format(&text);
    let Ok(mut request) = MessagesRequest::from_json(&text) else {
        return;
    };

    // Detection reads what the parser reads, and names a format that reads it.
    match detected {
        Err(error) => {
            panic!("the Anthropic parser reads the body, detect_format does not: {error}")
        }
        Ok(RequestFormat::OpenAiChat) => {
            if let Err(error) = ChatRequest::from_json(&text) {
                panic!("detected as OpenAI Chat Completions, which does not read it: {error}");
            }
        }
        Ok(_) => {}
    }

    // Written and read back: the same request.
    let written = request.to_json();
    let again = MessagesRequest::from_json(&written).expect("a written body reads");
    assert!(
        again == request,
        "a written body reads back to another request"
    );
    assert_eq!(again.to_json(), written);

    match input.retention % 4 {
        0 => {}
        1 => request.set_thinking_retention(Some(ThinkingRetention::All)),
        2 => request.set_thinking_retention(Some(ThinkingRetention::LastTurns(0))),
        _ => request.set_thinking_retention(Some(ThinkingRetention::LastTurns(1))),
    }

    // The count holds every text the body holds, each counted as the request counts
    // it.
    let counter = input.counter.counter();
    let cost = request.count(counter);
    let _ = cost.assumptions.iter().map(ToString::to_string).count();
    let as_json = read_as_json_text(&cost.assumptions);
    let mut sum = 0usize;
    for counted in &facts.texts {
        if counted.in_document && as_json {
            continue;
        }
        sum = sum.saturating_add(counter.count(&counted.text).saturating_mul(counted.times));
    }
    if std::env::var_os("FUZZ_TRACE").is_some() {
        eprintln!(
            "{} bytes, {} levels of documents, {} texts, sum {sum}, count {}{}",
            text.len(),
            facts.depth,
            facts.texts.len(),
            cost.tokens,
            if as_json {
                " (nested content read as JSON text)"
            } else {
                ""
            }
        );
    }
    assert!(
        cost.tokens >= sum,
        "the request counts {} tokens, less than its texts' {sum} ({} levels of documents)",
        cost.tokens,
        facts.depth
    );
    let fitter = RequestFitter::new(counter);
    let count = fitter.count(&request);
    assert_eq!(count.tokens, cost.tokens);

    // Custom tools cost their name, description and schema at least.
    let fixed = count.fixed;
    let tools = facts.tools.iter().fold(0usize, |sum, parts| {
        parts
            .iter()
            .fold(sum, |sum, part| sum.saturating_add(counter.count(part)))
    });
    assert!(
        fixed >= tools,
        "the fixed cost {fixed} is less than the custom tools' {tools}"
    );

    // Checking, repairing and fitting never panic; what fits is within its limit.
    let valid = request.validate();
    if let Err(error) = &valid {
        assert!(!error.to_string().is_empty());
    }
    let mut repaired = request.clone();
    let repair = repaired.repair_tool_pairing();
    if valid.is_ok() {
        assert!(
            repair.is_empty(),
            "a valid request needs no repair: {repair:?}"
        );
    }
    let budget = usize::from(input.budget);
    if let Ok(fitted) = fitter.with_max_input(budget).fit(request) {
        assert!(fitted.report.tokens_after <= fitted.report.limit);
        let written = fitted.request.to_json();
        let again = MessagesRequest::from_json(&written).expect("a fitted body reads");
        assert_eq!(again.to_json(), written);
    }
});
