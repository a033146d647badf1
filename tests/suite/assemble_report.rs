//! The report of an assembly adds up: the prompt's exact count is the layers' counts
//! plus the overhead, the overhead is the separators, the framing and the difference
//! the joins make, and the limit, the output reservation and what is unused are
//! stated, in the table and in the telemetry JSON.

use ctxbudget::assemble::AssembleOptions;
use ctxbudget::{ContextLayers, Message, Tiktoken, TokenCounter, select::RankedChunks};
use ctxbudget_tests::{CODE, MARKDOWN, PROSE};
use proptest::prelude::*;
use std::sync::LazyLock;

static TIKTOKEN: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);

fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap()
}

#[derive(ContextLayers)]
#[context(total = 4096, output = 512)]
struct Agent {
    #[budget(tokens = 128, policy = never)]
    system: String,
    #[budget(tokens = 512, policy = disclose, recovery = "read GUIDE.md")]
    guide: String,
    #[budget(tokens = 1024, grow)]
    history: Vec<Message>,
    #[budget(tokens = 1024, grow)]
    retrieval: RankedChunks,
    #[budget(tokens = 512, policy = head_and_tail)]
    code: String,
    #[budget(tokens = 128, policy = never)]
    user: String,
}

fn agent(system: &str, turns: usize) -> Agent {
    Agent {
        system: system.to_owned(),
        guide: MARKDOWN.to_owned(),
        history: (0..turns)
            .map(|i| Message::user(format!("Question {i}: what does the parser do next?")))
            .collect(),
        retrieval: PROSE
            .split("\n\n")
            .enumerate()
            .map(|(i, p)| {
                (
                    p.to_owned(),
                    1.0 / (1.0 + f64::from(u32::try_from(i).unwrap())),
                )
            })
            .collect(),
        code: CODE.to_owned(),
        user: "Why?".to_owned(),
    }
}

#[test]
fn the_table_states_every_number() {
    let ctx = agent("Be brief.", 200);
    let out = ctx.assemble(&*TIKTOKEN).unwrap();
    let table = out.to_string();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 1 + 6 + 3, "{table}");
    assert!(
        lines[0].starts_with("layer") && lines[0].ends_with("kept"),
        "{table}"
    );
    for (line, layer) in lines[1..7].iter().zip(&out.layers) {
        let columns: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(columns[0], layer.name);
        let numbers: Vec<String> = [layer.reservation, layer.granted, layer.tokens()]
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            line.contains(&format!(
                "{:>8} {:>8} {:>8}  ",
                numbers[0], numbers[1], numbers[2]
            )),
            "{line}"
        );
        if layer.cut() {
            let kept = format!(
                "kept {} of {} {}, {} dropped",
                layer.fitted.kept,
                layer.fitted.total,
                layer.fitted.unit,
                layer.dropped()
            );
            assert!(line.ends_with(&kept), "{line}");
        }
    }
    assert!(lines[2].contains("disclose"), "{table}");
    assert!(lines[3].contains("tail, grow 1"), "{table}");
    let total = |line: &str| -> isize { line.split_whitespace().nth(1).unwrap().parse().unwrap() };
    assert_eq!(total(lines[7]), signed(out.layer_tokens()));
    assert_eq!(total(lines[8]), out.overhead());
    assert_eq!(total(lines[9]), signed(out.tokens));
    assert!(
        lines[9].ends_with(&format!(
            "of a limit of 3584 (window 4096 - output 512), {} unused",
            out.unused()
        )),
        "{table}"
    );
    assert!(lines[8].contains("5 separators of 1 token"), "{table}");
}

#[test]
fn the_json_report_is_flat_and_adds_up() {
    let ctx = agent("Be brief.", 200);
    let out = ctx.assemble(&*TIKTOKEN).unwrap();
    let text = out.to_json();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let n = |v: &serde_json::Value| v.as_i64().unwrap();
    assert_eq!(n(&json["window"]), 4096);
    assert_eq!(n(&json["output"]), 512);
    assert_eq!(n(&json["limit"]), 3584);
    assert_eq!(
        n(&json["tokens"]),
        i64::try_from(TIKTOKEN.count(&out.prompt)).unwrap()
    );
    assert_eq!(n(&json["unused"]), 3584 - n(&json["tokens"]));
    assert_eq!(
        n(&json["tokens"]),
        n(&json["layer_tokens"]) + n(&json["overhead"])
    );
    let layers = json["layers"].as_object().unwrap();
    // In declaration order (the parsed map sorts its keys: look at the text).
    let at = |name: &str| text.find(&format!("\"{name}\":{{")).unwrap();
    let order = ["system", "guide", "history", "retrieval", "code", "user"];
    assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{text}");
    assert_eq!(layers.len(), order.len());
    let sum: i64 = layers.values().map(|l| n(&l["tokens"])).sum();
    assert_eq!(sum, n(&json["layer_tokens"]));
    let history = &layers["history"];
    assert_eq!(history["unit"], "messages");
    assert_eq!(n(&history["kept"]) + n(&history["dropped"]), 200);
    assert_eq!(history["policy"], "tail");
    assert_eq!(n(&history["grow"]), 1);
    assert!(history["role"].is_null());
    assert!(n(&history["granted"]) > n(&history["reservation"]));
    // Layer entries hold numbers and names only: the shape stays flat.
    for layer in layers.values() {
        assert!(
            layer
                .as_object()
                .unwrap()
                .values()
                .all(|v| !v.is_object() && !v.is_array())
        );
    }
}

#[test]
fn a_usage_log_appends_the_report_as_one_line() {
    let ctx = agent("Be brief.", 50);
    let out = ctx.assemble(&*TIKTOKEN).unwrap();
    let mut log = ctxbudget::budget::UsageLog::new(Vec::new());
    log.record(&out).unwrap();
    log.record(&out).unwrap();
    let text = String::from_utf8(log.into_inner()).unwrap();
    assert_eq!(text, format!("{0}\n{0}\n", out.to_json()));
}

#[test]
fn the_usage_records_the_layers_and_the_report_the_rest() {
    let ctx = agent("Be brief.", 200);
    let out = ctx.assemble(&*TIKTOKEN).unwrap();
    assert_eq!(out.usage.total_spent(), out.layer_tokens());
    assert_eq!(out.usage.output_spent(), 0);
    assert_eq!(AgentLayer::Output.budget(), out.output);
    assert_eq!(out.window(), Agent::TOTAL);
}

/// A separator whose joins never merge, and a counter of characters: the joins
/// make no difference, so the overhead is exactly what the separators cost.
#[derive(ContextLayers)]
#[context(total = 3000, output = 500, separator = "\n---\n")]
struct Notes {
    #[budget(tokens = 500)]
    a: String,
    #[budget(tokens = 500, grow)]
    b: Vec<String>,
    #[budget(tokens = 500)]
    c: String,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With a counter whose counts add up across joins, the overhead is exactly the
    /// separators; the exact count is the prompt's; the layers add up to the usage.
    #[test]
    fn an_additive_counter_leaves_no_join_difference(
        a in "[a-z .\n]{0,900}",
        b in prop::collection::vec("[a-z .\n]{0,400}", 0..8),
        c in "[a-z .\n]{0,900}",
        window in 1_600usize..5_000,
    ) {
        let chars = |t: &str| t.chars().count();
        let ctx = Notes { a, b, c };
        let out = ctx.assemble_with(&chars, &AssembleOptions::for_window(window, 100)).unwrap();
        prop_assert_eq!(out.tokens, out.prompt.chars().count());
        prop_assert_eq!(out.join_difference(), 0);
        prop_assert_eq!(out.overhead(), signed(out.separators * 5));
        prop_assert_eq!(out.separator_tokens, 5);
        prop_assert_eq!(out.tokens, out.layer_tokens() + out.separators * 5);
        prop_assert_eq!(out.unused(), out.limit - out.tokens);
        prop_assert_eq!(out.usage.total_spent(), out.layer_tokens());
    }

    /// With tiktoken the joins can merge: the overhead may be below the separators'
    /// cost, and the report still adds up to the exact count of the prompt.
    #[test]
    fn byte_pair_counts_add_up_through_the_join_difference(
        system in "\\PC{0,80}",
        turns in 0usize..300,
    ) {
        let ctx = agent(&system, turns);
        let out = match ctx.assemble(&*TIKTOKEN) {
            Ok(out) => out,
            Err(err) => {
                // Only a system prompt over its 128 tokens is refused.
                prop_assert!(TIKTOKEN.count(&system) > 128, "{err}");
                return Ok(());
            }
        };
        prop_assert_eq!(out.tokens, TIKTOKEN.count(&out.prompt));
        prop_assert_eq!(signed(out.tokens), signed(out.layer_tokens()) + out.overhead());
        prop_assert_eq!(
            out.overhead(),
            signed(out.separators * out.separator_tokens) + out.join_difference()
        );
        prop_assert_eq!(out.separators + 1, out.layers.iter().filter(|l| !l.text().is_empty()).count());
        prop_assert_eq!(out.window(), 4096);
    }
}
