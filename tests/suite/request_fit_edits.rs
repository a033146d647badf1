//! `RequestFitter::with_edits` over a growing agent session: consecutive turns
//! share their edited prefix (the prompt cache), and the low-water mark's figures.

use ctxbudget::CharEstimate;
use ctxbudget::chat::edit::{Edits, Threshold};
use ctxbudget::request::openai::{ChatRequest, RequestMessage};
use ctxbudget::request::{RequestFitter, WireRequest};
use ctxbudget_tests::agent::AgentSession;

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

/// Over the session fitted with `edits`: the share of turns whose fitted messages
/// start with the previous turn's (the edited prefix the provider has cached), and
/// the mean window use.
#[allow(clippy::cast_precision_loss)]
fn stability(requests: &[ChatRequest], edits: &Edits) -> (f64, f64) {
    let fitter = RequestFitter::new(CharEstimate)
        .with_max_input(LIMIT)
        .with_edits(edits.clone());
    let mut previous: Option<Vec<RequestMessage>> = None;
    let (mut stable, mut used) = (0usize, 0usize);
    for request in requests {
        let turn = fitter.fit(request.clone()).expect("every turn fits");
        assert!(turn.report.tokens_after <= LIMIT);
        let now = turn.request.messages().to_vec();
        if let Some(before) = &previous {
            if now.len() >= before.len() && now[..before.len()] == before[..] {
                stable += 1;
            }
        }
        used += turn.report.tokens_after;
        previous = Some(now);
    }
    let turns = requests.len() as f64;
    (
        stable as f64 / (turns - 1.0),
        used as f64 / turns / LIMIT as f64,
    )
}

#[test]
fn consecutive_turns_share_their_edited_prefix() {
    let requests = growing_session(300);
    println!("low water   same prefix   window use");
    let mut figures = Vec::new();
    for low in [0.6, 0.75, 0.9, 1.0] {
        let edits = Edits::default().low_water(Threshold::share(low));
        let (stable, used) = stability(&requests, &edits);
        println!(
            "{:>8.0}%   {:>10.1}%   {:>9.1}%",
            low * 100.0,
            stable * 100.0,
            used * 100.0
        );
        figures.push((low, stable, used));
    }
    // A lower mark clears in bigger batches: more turns keep their prefix, and
    // every turn fits (checked in `stability`).
    assert!(figures[0].1 >= figures[3].1, "{figures:?}");
    assert!(figures[0].1 > 0.0, "{figures:?}");
}
