//! Assembling for a window chosen at run time: the same derived context, or a
//! `ContextBudget` read from a config file, fitted to another window and output
//! reservation, with shares of the window resolved at it.

use ctxbudget::assemble::{AssembleOptions, LayerInput, LayerPolicy};
use ctxbudget::{
    AssembleError, BudgetError, ContextBudget, ContextLayers, Message, Tiktoken, TokenCounter,
};
use ctxbudget_tests::{CODE, MARKDOWN, PROSE};
use proptest::prelude::*;
use std::sync::LazyLock;

static TIKTOKEN: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);

/// One context for every model: fixed instructions, the rest in shares.
#[derive(ContextLayers, Debug, Clone)]
#[context(total = 8192, output = 1024)]
struct Agent {
    #[budget(tokens = 256, required, policy = never)]
    system: String,
    #[budget(share = 0.125, policy = disclose, recovery = "read GUIDE.md")]
    guide: String,
    #[budget(share = 0.25, grow)]
    history: Vec<Message>,
    #[budget(share = 0.25, grow)]
    retrieval: Vec<String>,
    #[budget(tokens = 256, required, policy = never)]
    user: String,
}

fn history() -> Vec<Message> {
    (0..400)
        .map(|i| {
            let start = ctxbudget_tests::floor_char_boundary(PROSE, (i * 97) % (PROSE.len() - 400));
            let end = ctxbudget_tests::floor_char_boundary(PROSE, start + 300);
            let text = &PROSE[start..end];
            if i % 2 == 0 {
                Message::user(text)
            } else {
                Message::assistant(text)
            }
        })
        .collect()
}

fn agent() -> Agent {
    Agent::builder()
        .system("You are a careful assistant.")
        .guide(MARKDOWN.repeat(4))
        .history(history())
        .retrieval(PROSE.split("\n\n").map(str::to_owned).collect::<Vec<_>>())
        .user("What did we decide about the parser?")
        .build()
}

#[test]
fn the_declared_window_resolves_shares_at_the_declared_total() {
    let ctx = agent();
    let out = ctx.assemble(&*TIKTOKEN).unwrap();
    assert_eq!((out.limit, out.output, out.window()), (7168, 1024, 8192));
    let reservations: Vec<usize> = out.layers.iter().map(|l| l.reservation).collect();
    assert_eq!(reservations, [256, 1024, 2048, 2048, 256]);
    // `assemble_with` and no window asked for: the same prompt.
    let same = ctx
        .assemble_with(&*TIKTOKEN, &AssembleOptions::new())
        .unwrap();
    assert_eq!(same.prompt, out.prompt);
    assert_eq!(same.tokens, out.tokens);
}

#[test]
fn a_larger_window_scales_the_shares_and_keeps_the_fixed_reservations() {
    let ctx = agent();
    let small = ctx.assemble(&*TIKTOKEN).unwrap();
    let options = AssembleOptions::for_window(128_000, 16_000);
    let large = ctx.assemble_with(&*TIKTOKEN, &options).unwrap();
    assert_eq!((large.limit, large.output), (112_000, 16_000));
    let reservations: Vec<usize> = large.layers.iter().map(|l| l.reservation).collect();
    assert_eq!(reservations, [256, 16_000, 32_000, 32_000, 256]);
    assert_eq!(large.tokens, TIKTOKEN.count(&large.prompt));
    assert!(large.tokens <= large.limit);
    // More of every cut layer fits.
    for name in ["guide", "history"] {
        let (s, l) = (small.layer(name).unwrap(), large.layer(name).unwrap());
        assert!(l.fitted.kept > s.fitted.kept, "{name}");
    }
    // The usage is a runtime tracker of the budget used, by name.
    assert_eq!(large.usage.budget().total(), 128_000);
    assert_eq!(large.usage.budget().layer_budget("history"), Ok(32_000));
    assert_eq!(large.usage.budget().layer_budget("output"), Ok(16_000));
    assert_eq!(
        large.usage.spent("history"),
        Ok(large.layer("history").unwrap().tokens())
    );
    assert_eq!(large.usage.total_spent(), large.layer_tokens());
}

#[test]
fn a_window_too_small_says_by_how_much_and_what_to_change() {
    let err = agent()
        .assemble_with(&*TIKTOKEN, &AssembleOptions::for_window(2_000, 1_600))
        .unwrap_err();
    // 256 + 250 + 500 + 500 + 256 = 1762 reserved, and 1600 for the output.
    assert_eq!(
        err,
        AssembleError::WindowTooSmall {
            window: 2_000,
            output: 1_600,
            reserved: 1_762,
            over: 1_362,
            terms: "system 256 + guide 250 (share 0.125) + history 500 (share 0.25) + retrieval \
                    500 (share 0.25) + user 256"
                .into(),
        }
    );
    assert_eq!(
        err.to_string(),
        "at a window of 2000 tokens with 1600 kept for the output, the layers reserve 1762 \
         (system 256 + guide 250 (share 0.125) + history 500 (share 0.25) + retrieval 500 \
         (share 0.25) + user 256): 1362 over; choose a window of at least 3362, lower the \
         output reservation or the fixed reservations, or reserve shares of the window \
         instead of fixed tokens"
    );
    // An output reservation larger than the window is the same error.
    let err = agent()
        .assemble_with(&*TIKTOKEN, &AssembleOptions::for_window(100, usize::MAX))
        .unwrap_err();
    assert!(matches!(err, AssembleError::WindowTooSmall { .. }), "{err}");
}

/// Fixed reservations only, the layout of a context written before shares.
#[derive(ContextLayers)]
#[context(total = 1000, output = 200)]
struct Fixed {
    #[budget(tokens = 300)]
    a: String,
    #[budget(tokens = 300, grow)]
    b: String,
}

#[test]
fn fixed_reservations_stay_and_growing_layers_take_the_rest_of_a_larger_window() {
    let words = |t: &str| t.split_whitespace().count();
    let ctx = Fixed {
        a: "a ".repeat(5_000),
        b: "b ".repeat(5_000),
    };
    let out = ctx
        .assemble_with(&words, &AssembleOptions::for_window(4_000, 500))
        .unwrap();
    assert_eq!(out.layer("a").unwrap().tokens(), 300);
    // The separator costs no words: b takes everything else of 3500.
    assert_eq!(out.layer("b").unwrap().tokens(), 3_200);
    assert_eq!(out.tokens, 3_500);
    assert_eq!(out.unused(), 0);
}

#[test]
fn a_budget_from_a_config_file_assembles_for_any_window() {
    let config = r#"{
        "total": 8192,
        "layers": {
            "system": 256,
            "docs": {"share": 0.5},
            "history": {"share": 0.25},
            "user": 256,
            "output": 1024
        }
    }"#;
    let budget = ContextBudget::from_json(config).unwrap();
    let history = history();
    let docs = CODE;
    let layers = [
        LayerInput::new("system", &"Answer from the docs.").with_policy(LayerPolicy::Never),
        LayerInput::new("docs", &docs).with_policy(LayerPolicy::HeadAndTail),
        LayerInput::new("history", &history).with_grow(1),
        LayerInput::new("user", &"Where is the parser?"),
    ];
    let out = budget.assemble(&layers, &*TIKTOKEN).unwrap();
    assert_eq!((out.limit, out.output), (7168, 1024));
    assert_eq!(out.layer("docs").unwrap().reservation, 4096);
    assert!(out.tokens <= out.limit && out.tokens == TIKTOKEN.count(&out.prompt));
    assert!(out.layer("docs").unwrap().text().contains("[…]"));

    let large = budget
        .assemble_with(
            &layers,
            &*TIKTOKEN,
            &AssembleOptions::for_window(32_768, 4_096),
        )
        .unwrap();
    assert_eq!(large.layer("docs").unwrap().reservation, 16_384);
    assert_eq!(large.layer("history").unwrap().reservation, 8_192);
    assert_eq!(large.layer("system").unwrap().reservation, 256);
    assert!(large.tokens <= large.limit && large.tokens == TIKTOKEN.count(&large.prompt));
    assert!(
        large.layer("history").unwrap().fitted.kept > out.layer("history").unwrap().fitted.kept
    );

    // A layer the config does not have, content for the output reservation, a layer
    // given twice: errors that say what to fix.
    let err = budget
        .assemble(&[LayerInput::new("memory", &"x")], &*TIKTOKEN)
        .unwrap_err();
    assert_eq!(
        err,
        AssembleError::Budget(BudgetError::UnknownLayer {
            name: "memory".into(),
            known: "system, docs, history, user".into()
        })
    );
    let err = budget
        .assemble(&[LayerInput::new("output", &"x")], &*TIKTOKEN)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "layer `output`: it is the output reservation, which has no content; give the content \
         to another layer"
    );
    let err = budget
        .assemble(
            &[LayerInput::new("user", &"x"), LayerInput::new("user", &"y")],
            &*TIKTOKEN,
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "layer `user`: it was given twice; give each layer one `LayerInput`"
    );
    // Layers given nothing are empty, and their reservations go unused.
    let only_user = budget
        .assemble(&[LayerInput::new("user", &"hi")], &*TIKTOKEN)
        .unwrap();
    assert_eq!(only_user.prompt, "hi");
}

#[test]
fn a_budget_without_an_output_layer_reserves_what_the_options_say() {
    let budget = ContextBudget::new(100, [("a", 50), ("b", 50)]).unwrap();
    let words = |t: &str| t.split_whitespace().count();
    let text = "w ".repeat(200);
    let layers = [LayerInput::new("a", &text), LayerInput::new("b", &text)];
    let out = budget.assemble(&layers, &words).unwrap();
    assert_eq!((out.limit, out.output, out.tokens), (100, 0, 100));
    let out = budget
        .assemble_with(&layers, &words, &AssembleOptions::for_window(100, 20))
        .unwrap_err();
    assert!(
        matches!(out, AssembleError::WindowTooSmall { over: 20, .. }),
        "{out}"
    );
    let out = budget
        .assemble_with(&layers, &words, &AssembleOptions::for_window(200, 20))
        .unwrap();
    assert_eq!((out.limit, out.output), (180, 20));
    assert_eq!(out.usage.budget().layer_budget("output"), Ok(20));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Whatever the window and output reservation: either the reservations do not
    /// fit it (and the error's numbers say so exactly), or the prompt fits
    /// `window - output` with the real counter, every share resolved at the window.
    #[test]
    fn assembled_for_a_window_fits_window_less_output(
        window in 0usize..200_000,
        output in 0usize..50_000,
        system in "\\PC{0,200}",
    ) {
        let mut ctx = agent();
        ctx.system = system;
        let options = AssembleOptions::for_window(window, output);
        // Shares of 0.125 and 0.25: an eighth and a quarter, rounded down.
        let (eighth, quarter) = (window / 8, window / 4);
        let reserved = 256 + eighth + 2 * quarter + 256;
        match ctx.assemble_with(&*TIKTOKEN, &options) {
            Ok(out) => {
                prop_assert!(reserved + output <= window);
                prop_assert_eq!(out.limit, window - output);
                prop_assert_eq!(out.output, output);
                prop_assert_eq!(out.tokens, TIKTOKEN.count(&out.prompt));
                prop_assert!(out.tokens <= window - output);
                let reservations: Vec<usize> = out.layers.iter().map(|l| l.reservation).collect();
                prop_assert_eq!(reservations, vec![256, eighth, quarter, quarter, 256]);
                for layer in &out.layers {
                    prop_assert!(layer.tokens() <= layer.granted);
                }
            }
            Err(AssembleError::WindowTooSmall { reserved: r, over, .. }) => {
                prop_assert!(reserved + output > window);
                prop_assert_eq!(r, reserved);
                prop_assert_eq!(over, reserved + output - window);
            }
            Err(AssembleError::LayerOverBudget { layer, .. }) => {
                prop_assert_eq!(layer, "system");
            }
            Err(AssembleError::PromptOverBudget { limit, .. }) => {
                // The never-cut layers and separators alone are over a tiny limit.
                prop_assert_eq!(limit, window - output);
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }
}
