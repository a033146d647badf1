//! `RequestFitter::with_edits` over a growing agent session: consecutive turns
//! share their edited prefix (the prompt cache), the low-water mark's figures,
//! the dropping step's batches; and the edge cases of editing, through the fitter.

use ctxbudget::CharEstimate;
use ctxbudget::chat::edit::{EditKind, Edits, Threshold};
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::{ChatRequest, RequestMessage};
use ctxbudget::request::{RequestFitter, WireRequest};
use ctxbudget_tests::agent::AgentSession;
use serde_json::json;

const LIMIT: usize = 32_000;

/// The request of every turn of a simulated agent session of `turns` turns.
fn growing_session(turns: usize) -> Vec<ChatRequest> {
    let mut agent = AgentSession::new(7).with_largest_output(2_000);
    let mut messages = vec![RequestMessage::from(agent.system_prompt(500))];
    (0..turns)
        .map(|_| {
            messages.extend(agent.next_turn().into_iter().map(RequestMessage::from));
            ChatRequest::new("gpt-4o", messages.clone())
        })
        .collect()
}

/// What fitting every turn of a session gave.
#[derive(Debug, Clone, Copy)]
struct Stability {
    /// The share of turns whose fitted messages start with the previous turn's
    /// (the whole prompt the provider has cached).
    same_prefix: f64,
    /// The mean share of each prompt's tokens in messages it shares, from the
    /// start, with the previous prompt (what a prefix cache reads).
    cached: f64,
    /// The mean window use.
    used: f64,
}

/// Fits every turn of `requests` with `edits`.
#[allow(clippy::cast_precision_loss)]
fn stability(requests: &[ChatRequest], edits: &Edits) -> Stability {
    let fitter = RequestFitter::new(CharEstimate)
        .with_max_input(LIMIT)
        .with_edits(edits.clone());
    let tokens = |messages: &[RequestMessage]| {
        let request = ChatRequest::new("gpt-4o", messages.to_vec());
        RequestFitter::new(CharEstimate).count(&request).messages
    };
    let mut previous: Option<Vec<RequestMessage>> = None;
    let (mut same, mut cached, mut used) = (0usize, 0.0, 0usize);
    for request in requests {
        let turn = fitter.fit(request.clone()).expect("every turn fits");
        assert!(turn.report.tokens_after <= LIMIT);
        let now = turn.request.messages().to_vec();
        if let Some(before) = &previous {
            let common = before.iter().zip(&now).take_while(|(a, b)| a == b).count();
            if common == before.len() {
                same += 1;
            }
            cached += tokens(&now[..common]) as f64 / tokens(&now) as f64;
        }
        used += turn.report.tokens_after;
        previous = Some(now);
    }
    let turns = requests.len() as f64;
    Stability {
        same_prefix: same as f64 / (turns - 1.0),
        cached: cached / (turns - 1.0),
        used: used as f64 / turns / LIMIT as f64,
    }
}

/// The figures behind `Edits::DEFAULT_LOW_WATER`: over a 300-turn agent session
/// fitted statelessly into 32,000 tokens, a lower mark keeps the prompt the same
/// for more turns and uses less of the window. Printed with
/// `cargo test --release --test suite request_fit_edits -- --nocapture`.
#[test]
fn consecutive_turns_share_their_edited_prefix() {
    let requests = growing_session(300);
    println!("low water   grid   same prefix   cached   window use");
    let mut figures = Vec::new();
    let rows = [
        (0.6, Edits::DEFAULT_GRID),
        (0.75, Edits::DEFAULT_GRID),
        (0.9, 0.025),
        (0.9, Edits::DEFAULT_GRID),
        (0.9, 0.1),
        (1.0, Edits::DEFAULT_GRID),
    ];
    for (low, grid) in rows {
        let edits = Edits::default().low_water(Threshold::share(low)).grid(grid);
        let figure = stability(&requests, &edits);
        println!(
            "{:>8.0}%   {:>4.1}%   {:>10.1}%   {:>5.1}%   {:>9.1}%",
            low * 100.0,
            grid * 100.0,
            figure.same_prefix * 100.0,
            figure.cached * 100.0,
            figure.used * 100.0
        );
        figures.push(figure);
    }
    let drop_only = stability(&requests, &Edits::none());
    println!(
        "drop-only          {:>10.1}%   {:>5.1}%   {:>9.1}%",
        drop_only.same_prefix * 100.0,
        drop_only.cached * 100.0,
        drop_only.used * 100.0
    );
    // The defaults: most turns keep the whole previous prompt (46.8% before the
    // dropping step moved on the band and the grid too), and the window stays
    // well used.
    let default = stability(&requests, &Edits::default());
    assert!(default.same_prefix >= 0.6, "{default:?}");
    assert!(default.cached >= 0.7, "{default:?}");
    assert!(default.used >= 0.85, "{default:?}");
    // A lower mark clears and drops in bigger batches: more turns keep their
    // prefix, and every turn fits (checked in `stability`).
    assert!(
        figures[0].same_prefix >= figures[5].same_prefix,
        "{figures:?}"
    );
    assert!(figures[0].same_prefix > default.same_prefix, "{figures:?}");
}

/// The same 300-turn session: with edits, the dropping step moves on the band
/// and the grid, so the oldest units it drops change only a few times in its
/// last 100 turns (9); a minimal fit (the dropping step before) dropped a little
/// more on nearly every turn.
#[test]
fn the_dropping_step_with_edits_moves_in_batches() {
    let requests = growing_session(300);
    let fit_request = RequestFitter::new(CharEstimate)
        .with_max_input(LIMIT)
        .with_edits(Edits::default());
    let mut cuts: Vec<Vec<usize>> = Vec::new();
    let mut turns_with_drops = 0;
    for request in &requests[200..] {
        let fitted = fit_request.fit(request.clone()).expect("every turn fits");
        let dropped: Vec<usize> = fitted.report.dropped.iter().map(|d| d.index).collect();
        turns_with_drops += usize::from(!dropped.is_empty());
        // Dropped messages are those as they came in, and the task stays.
        assert!(!dropped.contains(&1), "the task is kept");
        if cuts.last() != Some(&dropped) {
            cuts.push(dropped);
        }
    }
    assert!(turns_with_drops >= 50, "{turns_with_drops}");
    // A few turns go back and forth where every edit together just fits (the
    // results kept whole differ from turn to turn), then the cut moves only
    // forward, a band at a time.
    assert!(cuts.len() <= 10, "the cut moved {} times", cuts.len());
}

// ---------------------------------------------------------------------------------
// Edge cases, through the fitter.

/// An OpenAI coding request: the task, then `results` calls of `tool` with a
/// result of `words` words each (the `short`th one a single word), then a question.
fn coding_request(results: usize, words: usize, tool: &str, short: Option<usize>) -> ChatRequest {
    let mut messages = vec![json!({"role": "user", "content": "Find the bug in the parser."})];
    for i in 0..results {
        let id = format!("call_{i}");
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": tool, "arguments": "{\"path\": \"a.rs\"}"}}]}));
        let text = if short == Some(i) {
            "ok".to_owned()
        } else {
            format!("line {i} of the output ").repeat(words / 5)
        };
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": text}));
    }
    messages.push(json!({"role": "user", "content": "So where is it?"}));
    ChatRequest::from_json(&json!({"model": "gpt-4o", "messages": messages}).to_string())
        .expect("a valid request")
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

#[test]
fn keep_past_the_number_of_results_drops_instead_of_clearing() {
    let request = coding_request(4, 100, "read_file", None);
    let fit_request = RequestFitter::new(words)
        .with_max_input(300)
        .with_edits(Edits::default().clear_tool_results(10).no_truncation());
    let fitted = fit_request.fit(request.clone()).unwrap();
    let edits = fitted.report.edits.as_ref().unwrap();
    assert!(edits.edits.is_empty(), "{edits}");
    assert!(!fitted.report.dropped.is_empty());
    assert!(fitted.report.tokens_after <= 300);
    // What is kept is the input's, the task first.
    assert_eq!(fitted.request.messages[0], request.messages[0]);
    for message in &fitted.request.messages {
        assert!(request.messages.contains(message));
    }
}

#[test]
fn a_result_shorter_than_its_placeholder_is_left_as_it_is_in_a_request() {
    let request = coding_request(6, 100, "read_file", Some(1));
    let fit_request = RequestFitter::new(words)
        .with_max_input(450)
        .with_edits(Edits::default().no_truncation());
    let fitted = fit_request.fit(request.clone()).unwrap();
    let edits = fitted.report.edits.as_ref().unwrap();
    assert!(edits.totals.cleared_tool_uses > 0, "{edits}");
    assert_eq!(fitted.report.dropped.len(), 0);
    // Message 4 is the short result: no edit names it, and it is as it came in.
    assert_eq!(edits.edits_of(4).count(), 0, "{edits}");
    assert_eq!(fitted.request.messages[4], request.messages[4]);
    assert_eq!(
        fitted.request.messages[2].text(),
        Some(Edits::DEFAULT_PLACEHOLDER)
    );
}

#[test]
fn excluded_tools_only_are_dropped_never_edited() {
    let request = coding_request(6, 100, "tail_log", None);
    let fit_request = RequestFitter::new(words)
        .with_max_input(450)
        .with_edits(Edits::default().exclude_tools(["tail_log"]));
    let fitted = fit_request.fit(request.clone()).unwrap();
    let edits = fitted.report.edits.as_ref().unwrap();
    assert!(edits.edits.is_empty(), "{edits}");
    assert!(!fitted.report.dropped.is_empty());
    assert!(fitted.report.tokens_after <= 450);
    for message in &fitted.request.messages {
        assert!(request.messages.contains(message));
    }
    assert_eq!(fitted.request.messages[0], request.messages[0]);
}

#[test]
fn images_in_old_block_results_become_placeholders_in_a_request() {
    let mut messages = vec![json!({"role": "user", "content": "Check the page."})];
    for i in 0..5 {
        messages.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": format!("t{i}"), "name": "screenshot", "input": {}}]}));
        messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{i}"), "content": [
            {"type": "text", "text": format!("screenshot {i}")},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/s.png"}}]}]}));
    }
    messages.push(json!({"role": "user", "content": "Is the button there?"}));
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": messages});
    let request = MessagesRequest::from_json(&body.to_string()).unwrap();
    let whole = RequestFitter::new(words).count(&request).tokens;
    let fitted = RequestFitter::new(words)
        .with_max_input(whole - 1)
        .with_edits(Edits::default())
        .fit(request.clone())
        .unwrap();
    let edits = fitted.report.edits.as_ref().unwrap();
    assert!(
        edits
            .edits
            .iter()
            .all(|e| e.kind == EditKind::ReplaceToolMedia),
        "{edits}"
    );
    assert_eq!(edits.totals.truncated, 2, "{edits}");
    assert!(fitted.report.dropped.is_empty());
    let images: Vec<bool> = (fitted.request.messages().iter().skip(2).step_by(2))
        .map(|m| serde_json::to_string(m).unwrap().contains("\"image\""))
        .collect();
    assert_eq!(images, [false, false, true, true, true]);
    let text = serde_json::to_string(&fitted.request.messages()[2]).unwrap();
    assert!(text.contains(Edits::DEFAULT_MEDIA_PLACEHOLDER), "{text}");
    fitted.request.validate().unwrap();
}

/// With edits and a cut, each message is counted once: the engine reads the
/// counts the cut was planned from, and the trim after it counts only the
/// per-message overhead again (the bound of `benches/edits.rs`, shown without
/// timing: what is counted, in characters).
#[test]
fn a_fit_with_a_cut_counts_each_message_once() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    let request = growing_session(300).pop().expect("300 turns");
    let text: usize = (request.messages.iter())
        .map(|m| serde_json::to_string(m).unwrap().len())
        .sum();
    let chars = AtomicUsize::new(0);
    let counter = |t: &str| {
        chars.fetch_add(t.len(), Ordering::Relaxed);
        t.len().div_ceil(4)
    };
    let fitted = RequestFitter::new(counter)
        .with_max_input(LIMIT)
        .with_edits(Edits::default())
        .fit(request)
        .unwrap();
    assert!(!fitted.report.dropped.is_empty(), "the cut is made");
    let read = chars.load(Ordering::Relaxed);
    // The JSON text is a little more than what is counted; a second count of the
    // kept messages would be far more.
    assert!(read <= text + text / 10, "{read} of {text}");
}
