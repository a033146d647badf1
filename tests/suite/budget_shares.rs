//! Reservations as shares of the window: `Share`, `Reservation`, budgets with shares
//! built in code and read from config files, resolved for other windows.

use ctxbudget::budget::{Reservation, Share};
use ctxbudget::{BudgetError, ContextBudget, ContextLayers};
use proptest::prelude::*;

fn share(fraction: f64) -> Share {
    Share::new(fraction).unwrap()
}

#[test]
fn shares_resolve_at_the_total_and_again_for_other_windows() {
    let budget = ContextBudget::with_reservations(
        8192,
        [
            ("system", Reservation::Tokens(512)),
            ("history", Reservation::Share(share(0.5))),
            ("retrieval", Reservation::Share(share(0.25))),
            ("output", Reservation::Tokens(1024)),
        ],
    )
    .unwrap();
    assert_eq!(budget.layer_budget("history"), Ok(4096));
    assert_eq!(budget.layer_budget("retrieval"), Ok(2048));
    assert_eq!(budget.reserved(), 512 + 4096 + 2048 + 1024);
    let reservations: Vec<(&str, Reservation)> = budget.reservations().collect();
    assert_eq!(reservations[1], ("history", Reservation::Share(share(0.5))));
    assert_eq!(reservations[3], ("output", Reservation::Tokens(1024)));

    let large = budget.for_window(128_000).unwrap();
    assert_eq!(large.total(), 128_000);
    assert_eq!(large.layer_budget("history"), Ok(64_000));
    assert_eq!(large.layer_budget("system"), Ok(512));
    assert_eq!(large.layer_budget("output"), Ok(1024));
    // The shares stay shares: resolving back gives the budget it came from.
    assert_eq!(large.for_window(8192).unwrap(), budget);

    // Fixed reservations do not shrink with the window: 512 + 1024 and three
    // quarters of 2000 are over it.
    let err = budget.for_window(2000).unwrap_err();
    assert_eq!(
        err.to_string(),
        "layers reserve 3036 tokens (system 512 + history 1000 (share 0.5) + retrieval 500 \
         (share 0.25) + output 1024) but the total is 2000: 1036 over; lower a reservation or \
         raise the total"
    );
}

#[test]
fn shares_over_the_whole_window_fit_no_window() {
    let err = ContextBudget::with_reservations(
        1_000_000,
        [
            ("a", Reservation::Share(share(0.5))),
            ("b", Reservation::Tokens(10)),
            ("c", Reservation::Share(share(0.500_001))),
        ],
    )
    .unwrap_err();
    assert_eq!(
        err,
        BudgetError::SharesOverOne {
            ppm: 1_000_001,
            terms: "a 0.5 + c 0.500001".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "layer shares add up to 1.000001 of the window (a 0.5 + c 0.500001): more than the \
         whole window; lower the shares so that they add up to at most 1"
    );
    // Exactly the whole window is fine.
    let whole =
        ContextBudget::with_reservations(10, [("a", share(0.5).into()), ("b", share(0.5).into())])
            .unwrap();
    assert_eq!(whole.reserved(), 10);
}

#[test]
fn configs_read_and_write_shares() {
    let json = r#"{"total": 8192, "layers": {"system": 512, "history": {"share": 0.5}, "user": {"tokens": 256}, "output": 1024}}"#;
    let budget = ContextBudget::from_json(json).unwrap();
    assert_eq!(budget.layer_budget("history"), Ok(4096));
    assert_eq!(budget.layer_budget("user"), Ok(256));
    let written = serde_json::to_string(&budget).unwrap();
    assert_eq!(
        written,
        r#"{"total":8192,"layers":{"system":512,"history":{"share":0.5},"user":256,"output":1024}}"#
    );
    assert_eq!(ContextBudget::from_json(&written).unwrap(), budget);

    // Layers before the total: shares are resolved once the total is known.
    let late = ContextBudget::from_json(r#"{"layers": {"a": {"share": 0.25}}, "total": 100}"#);
    assert_eq!(late.unwrap().layer_budget("a"), Ok(25));

    let toml_text =
        "total = 1000\n[layers]\nsystem = 100\nhistory = { share = 0.3 }\nall = { share = 0 }\n";
    let budget: ContextBudget = toml::from_str(toml_text).unwrap();
    assert_eq!(budget.layer_budget("history"), Ok(300));
    assert_eq!(budget.layer_budget("all"), Ok(0));
    let one: ContextBudget =
        toml::from_str("total = 1000\n[layers]\nall = { share = 1 }\n").unwrap();
    assert_eq!(one.layer_budget("all"), Ok(1000));
}

#[test]
fn bad_shares_in_configs_name_the_field_and_the_fix() {
    let cases = [
        (
            r#"{"total": 100, "layers": {"a": {"share": 1.5}}}"#,
            "`layers.a.share` is 1.5: a share of the window is a number from 0 to 1, such as \
             0.25 at line 1 column 44",
        ),
        (
            r#"{"total": 100, "layers": {"a": {"share": -0.5}}}"#,
            "`layers.a.share` is -0.5: a share of the window is a number from 0 to 1, such as \
             0.25 at line 1 column 45",
        ),
        (
            r#"{"total": 100, "layers": {"a": {"share": "0.5"}}}"#,
            "`layers.a.share` is the string \"0.5\": a share must be a number; remove the quotes \
             at line 1 column 46",
        ),
        (
            r#"{"total": 100, "layers": {"a": {"tokens": 5, "share": 0.5}}}"#,
            "`layers.a` has both `tokens` and `share` (or one twice); give the layer one \
             reservation at line 1 column 58",
        ),
        (
            r#"{"total": 100, "layers": {"a": {"tokns": 5}}}"#,
            "unknown field `tokns` in `layers.a`; a layer reserves `{\"tokens\": 512}` or \
             `{\"share\": 0.25}` at line 1 column 39",
        ),
        (
            r#"{"total": 100, "layers": {"a": {}}}"#,
            "`layers.a` is empty; write `{\"tokens\": 512}` or `{\"share\": 0.25}` at line 1 \
             column 33",
        ),
        (
            r#"{"total": 100, "layers": {"a": {"tokens": -1}}}"#,
            "`layers.a.tokens` is -1: a token count cannot be negative; use 0 or more at line \
             1 column 44",
        ),
        (
            r#"{"total": 100, "layers": {"a": {"share": 0.75}, "b": {"share": 0.5}}}"#,
            "layer shares add up to 1.25 of the window (a 0.75 + b 0.5): more than the whole \
             window; lower the shares so that they add up to at most 1 at line 1 column 68",
        ),
        (
            r#"{"total": 100, "layers": {"a": 60, "b": {"share": 0.5}}}"#,
            "layers reserve 110 tokens (a 60 + b 50 (share 0.5)) but the total is 100: 10 over; \
             lower a reservation or raise the total at line 1 column 55",
        ),
        (
            r#"{"total": 100, "layers": {"a": [1]}}"#,
            "invalid type: sequence, expected `layers.a` as a token count such as 512, or a \
             share of the window such as {\"share\": 0.25} at line 1 column 32",
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .map(|(json, expected)| {
            (
                ContextBudget::from_json(json).unwrap_err().to_string(),
                expected,
            )
        })
        .filter(|(message, expected)| message != *expected)
        .map(|(message, expected)| format!("got      {message}\nexpected {expected}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A derived context's layer table keeps its shares, and its runtime budget too.
#[derive(ContextLayers)]
#[context(total = 10_000, output = 1_000)]
#[allow(dead_code)]
struct Shared {
    #[budget(tokens = 1_000)]
    system: String,
    #[budget(share = 0.25)]
    history: String,
    #[budget(share = 0.333_333)]
    retrieval: String,
}

#[test]
fn derived_shares_are_resolved_at_the_declared_total() {
    assert_eq!(SharedLayer::History.budget(), 2_500);
    assert_eq!(SharedLayer::Retrieval.budget(), 3_333);
    assert_eq!(Shared::RESERVED, 1_000 + 2_500 + 3_333 + 1_000);
    assert_eq!(Shared::LAYERS[1].share(), Share::from_ppm(250_000));
    assert_eq!(Shared::LAYERS[0].share(), None);
    let budget = Shared::context_budget();
    assert_eq!(budget.layer_budget("retrieval"), Ok(3_333));
    let large = budget.for_window(100_000).unwrap();
    assert_eq!(large.layer_budget("history"), Ok(25_000));
    assert_eq!(large.layer_budget("system"), Ok(1_000));
}

proptest! {
    /// A share never resolves to more than the window, shares that add up to at most
    /// 1 never add up to more than the window, and a larger window never gives less.
    #[test]
    fn shares_fit_every_window(
        ppms in prop::collection::vec(0u32..=1_000_000, 1..8),
        window in 0usize..=usize::MAX,
        smaller in 0usize..=usize::MAX,
    ) {
        let mut left = 1_000_000u32;
        let shares: Vec<Share> = ppms
            .iter()
            .map(|&p| {
                let p = p.min(left);
                left -= p;
                Share::from_ppm(p).unwrap()
            })
            .collect();
        let sum = shares.iter().fold(0u128, |s, share| s + share.of(window) as u128);
        prop_assert!(sum <= window as u128);
        let smaller = smaller.min(window);
        for share in &shares {
            prop_assert!(share.of(smaller) <= share.of(window));
        }
        let layers = shares
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("l{i}"), Reservation::Share(*s)));
        let budget = ContextBudget::with_reservations(window, layers).unwrap();
        prop_assert_eq!(budget.reserved() as u128, sum);
        prop_assert!(budget.for_window(smaller).is_ok());
    }

    /// A share written as a fraction reads back as the same share, through the
    /// config format too.
    #[test]
    fn shares_round_trip_through_configs(ppm in 0u32..=1_000_000, total in 0usize..1_000_000_000) {
        let share = Share::from_ppm(ppm).unwrap();
        prop_assert_eq!(Share::new(share.fraction()).unwrap(), share);
        let budget = ContextBudget::with_reservations(total, [("a", Reservation::Share(share))]).unwrap();
        let json = serde_json::to_string(&budget).unwrap();
        prop_assert_eq!(ContextBudget::from_json(&json).unwrap(), budget);
    }
}
