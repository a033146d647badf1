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
    // The defaults: most turns keep the whole previous prompt (47% before the
    // dropping step moved on the band and the grid too), and the window stays
    // well used.
    let default = stability(&requests, &Edits::default());
    assert!(default.same_prefix >= 0.6, "{default:?}");
    assert!(default.cached >= 0.75, "{default:?}");
    assert!(default.used >= 0.85, "{default:?}");
    // A lower mark clears and drops in bigger batches: more turns keep their
    // prefix, and every turn fits (checked in `stability`).
    assert!(figures[0].same_prefix >= figures[5].same_prefix, "{figures:?}");
    assert!(figures[0].same_prefix > default.same_prefix, "{figures:?}");
}
