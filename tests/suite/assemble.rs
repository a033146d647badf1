//! `assemble()`: every layer fitted, growth into unused tokens, separators counted,
//! the prompt verified against `total - output`, and the spend recorded.

use ctxbudget::{
    AssembleError, CharEstimate, ContextLayers, LayerContent, Message, Tiktoken, TokenCounter,
    assemble::FitError, assemble::FittedLayer, assemble::LayerPolicy, chat::ToolCall,
};
use ctxbudget_tests::{CODE, MARKDOWN, PROSE};
use proptest::prelude::*;
use std::sync::LazyLock;

static TIKTOKEN: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);

/// An agent context with every kind of layer.
#[derive(ContextLayers, Debug, Clone)]
#[context(total = 4096, output = 512)]
struct Agent {
    #[budget(tokens = 256, required, policy = never)]
    system: String,
    #[budget(tokens = 512, policy = disclose, recovery = "read docs/guide.md")]
    guide: String,
    #[budget(tokens = 512, policy = tail)]
    history: Vec<Message>,
    #[budget(tokens = 1024, grow)]
    retrieval: Vec<String>,
    #[budget(tokens = 256, policy = head_and_tail)]
    code: &'static str,
    #[budget(tokens = 256, required, policy = never)]
    user: String,
}

fn history() -> Vec<Message> {
    let mut chat = vec![Message::system("You are a coding agent.")];
    for i in 0..30 {
        chat.push(Message::user(format!(
            "Step {i}: look at the parser and tell me what {} does.",
            &PROSE[i * 40..i * 40 + 40]
        )));
        chat.push(Message::assistant("").with_tool_call(ToolCall::new(
            format!("call{i}"),
            "read_file",
            format!(r#"{{"path":"src/step{i}.rs"}}"#),
        )));
        chat.push(Message::tool(
            format!("call{i}"),
            &CODE[i * 100..i * 100 + 300],
        ));
        chat.push(Message::assistant(format!(
            "Step {i} reads a file and parses it."
        )));
    }
    chat
}

fn agent(system: &str) -> Agent {
    Agent {
        system: system.to_owned(),
        guide: MARKDOWN.to_owned(),
        history: history(),
        retrieval: PROSE
            .split("\n\n")
            .filter(|p| !p.trim().is_empty())
            .map(str::to_owned)
            .collect(),
        code: CODE,
        user: "Why does the parser drop the last token?".to_owned(),
    }
}

#[test]
fn every_layer_is_fitted_and_the_prompt_fits() {
    let ctx = agent("You are careful. Answer in one paragraph.");
    let out = ctx.assemble(&*TIKTOKEN).unwrap();
    assert_eq!(out.limit, 4096 - 512);
    assert_eq!(out.tokens, TIKTOKEN.count(&out.prompt));
    assert!(out.tokens <= out.limit);
    let names: Vec<&str> = out.layers.iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        ["system", "guide", "history", "retrieval", "code", "user"]
    );
    // The prompt is the layers in declaration order, joined by blank lines.
    let joined = out
        .layers
        .iter()
        .map(ctxbudget::assemble::AssembledLayer::text)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    assert_eq!(out.prompt, joined);
    assert_eq!(out.separator_tokens, TIKTOKEN.count("\n\n"));
    // Each layer within what it was given; the cuttable ones were cut.
    for layer in &out.layers {
        assert!(layer.tokens() <= layer.granted, "{}", layer.name);
        assert_eq!(
            layer.tokens(),
            TIKTOKEN.count(layer.text()),
            "{}",
            layer.name
        );
    }
    let guide = out.layer("guide").unwrap();
    assert!(guide.cut());
    assert!(guide.text().ends_with("full text: read docs/guide.md>"));
    let history = out.layer("history").unwrap();
    assert_eq!(history.fitted.unit, "messages");
    assert!(history.cut());
    assert!(
        history
            .text()
            .ends_with("Step 29 reads a file and parses it.")
    );
    // Every tool result in the rendered history follows its call.
    let mut results = 0;
    for line in history.text().lines() {
        if let Some(rest) = line.strip_prefix("tool [") {
            results += 1;
            let id = &rest[..rest.find(']').unwrap()];
            let call = format!(
                "  -> read_file({{\"path\":\"src/step{}.rs\"}}) [{id}]",
                &id[4..]
            );
            let at = history.text().find(line).unwrap();
            assert!(
                history.text()[..at].contains(&call),
                "{id} without its call"
            );
        }
    }
    assert!(results > 0);
    let code = out.layer("code").unwrap();
    assert!(code.text().contains("\n[…]\n"));
    assert!(!out.layer("system").unwrap().cut());
    assert!(!out.layer("user").unwrap().cut());
    // The spend is recorded per layer.
    let usage = &out.usage;
    assert_eq!(usage.system_spent(), out.layer("system").unwrap().tokens());
    assert_eq!(
        usage.retrieval_spent(),
        out.layer("retrieval").unwrap().tokens()
    );
    assert_eq!(usage.output_spent(), 0);
    let spent: usize = out
        .layers
        .iter()
        .map(ctxbudget::assemble::AssembledLayer::tokens)
        .sum();
    assert_eq!(usage.total_spent(), spent);
}

#[test]
fn a_short_system_prompt_leaves_more_room_for_retrieval() {
    let long_system = "You are a careful assistant. ".repeat(30);
    let (short_ctx, long_ctx) = (agent("Be brief."), agent(&long_system));
    let short = short_ctx.assemble(&*TIKTOKEN).unwrap();
    let long = long_ctx.assemble(&*TIKTOKEN).unwrap();
    let system_short = short.layer("system").unwrap().tokens();
    let system_long = long.layer("system").unwrap().tokens();
    assert!(system_long > system_short + 150);
    let retrieval_short = short.layer("retrieval").unwrap();
    let retrieval_long = long.layer("retrieval").unwrap();
    // Retrieval grew past its 1024 reservation into what the system prompt left.
    assert!(retrieval_short.tokens() > 1024);
    assert!(retrieval_short.granted > retrieval_long.granted);
    assert!(retrieval_short.tokens() > retrieval_long.tokens() + 100);
    // The growth is exactly what the system prompt did not use.
    assert_eq!(
        retrieval_short.granted - retrieval_long.granted,
        system_long - system_short
    );
    // Both prompts still fit, and the usage shows retrieval over its reservation.
    assert!(short.tokens <= short.limit && long.tokens <= long.limit);
    assert!(short.usage.retrieval_spent() > AgentLayer::Retrieval.budget());
}

#[test]
fn never_cut_layers_over_their_reservation_name_the_layer_and_the_excess() {
    let system = "word ".repeat(300);
    let err = agent(&system).assemble(&*TIKTOKEN).unwrap_err();
    let tokens = TIKTOKEN.count(&system);
    assert_eq!(
        err,
        AssembleError::LayerOverBudget {
            layer: "system".into(),
            tokens,
            budget: 256,
            reservation: 256,
            over: tokens - 256,
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "layer `system` needs {tokens} tokens but reserves 256 ({} over); it is marked \
             never to be cut: shorten it or raise its reservation",
            tokens - 256
        )
    );
}

/// Two growing layers: the higher priority is served first, the other keeps its
/// reservation.
#[derive(ContextLayers)]
#[context(total = 200, output = 20, separator = " | ")]
struct Grow {
    #[budget(tokens = 20)]
    fixed: String,
    #[budget(tokens = 30, grow = 1)]
    low: String,
    #[budget(tokens = 30, grow = 5)]
    high: String,
}

#[test]
fn growth_follows_priority_and_keeps_later_reservations() {
    let words = |t: &str| t.split_whitespace().count();
    let ctx = Grow {
        fixed: "a b c".into(),
        low: "l ".repeat(500),
        high: "h ".repeat(500),
    };
    let out = ctx.assemble(&words).unwrap();
    let [fixed, low, high] = &out.layers[..] else {
        panic!("three layers expected");
    };
    assert_eq!(fixed.tokens(), 3);
    // limit 180, fixed used 3, separators " | " cost 1 each (2 of them): 175 to share;
    // `high` goes first and leaves `low` its 30.
    assert_eq!(out.separator_tokens, 1);
    assert_eq!(high.granted, 175 - 30);
    assert_eq!(high.tokens(), 145);
    assert_eq!(low.granted, 30);
    assert_eq!(low.tokens(), 30);
    assert_eq!(out.tokens, 180);
    assert!(out.prompt.starts_with("a b c | l l"));
    assert_eq!(out.unused(), 0);
}

#[test]
fn empty_layers_and_their_separators_are_left_out() {
    let words = |t: &str| t.split_whitespace().count();
    let ctx = Grow {
        fixed: String::new(),
        low: "x".into(),
        high: String::new(),
    };
    let out = ctx.assemble(&words).unwrap();
    assert_eq!(out.prompt, "x");
    assert_eq!(out.tokens, 1);
}

/// Separators are paid even when every reservation is used to the last token.
#[derive(ContextLayers)]
#[context(total = 30, output = 10)]
struct Full {
    #[budget(tokens = 10)]
    a: String,
    #[budget(tokens = 10)]
    b: String,
}

#[test]
fn separators_are_counted_when_reservations_are_full() {
    let counter = |t: &str| t.chars().count();
    let ctx = Full {
        a: "a".repeat(50),
        b: "b".repeat(50),
    };
    let out = ctx.assemble(&counter).unwrap();
    assert_eq!(out.prompt.chars().count(), out.tokens);
    assert_eq!(out.tokens, 20);
    // The two-token separator came out of the last cuttable layer.
    assert_eq!(
        out.prompt,
        format!("{}\n\n{}", "a".repeat(10), "b".repeat(8))
    );
    assert_eq!(out.layer("b").unwrap().granted, 8);
    assert_eq!(out.layer("a").unwrap().granted, 10);
}

/// Never-cut layers with separators that cannot fit: an error, not an overflow.
#[derive(ContextLayers)]
#[context(total = 30, output = 10)]
struct Rigid {
    #[budget(tokens = 10, policy = never)]
    a: String,
    #[budget(tokens = 10, policy = never)]
    b: String,
}

#[test]
fn rigid_layers_and_separators_over_the_limit_are_an_error() {
    let counter = |t: &str| t.chars().count();
    let ctx = Rigid {
        a: "a".repeat(10),
        b: "b".repeat(10),
    };
    let err = ctx.assemble(&counter).unwrap_err();
    assert_eq!(
        err,
        AssembleError::PromptOverBudget {
            tokens: 22,
            limit: 20,
            over: 2
        }
    );
}

/// A user type as layer content.
#[derive(Debug, Default)]
struct Ticket {
    id: u32,
    body: String,
}

impl LayerContent for Ticket {
    fn fit<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        policy: &LayerPolicy,
    ) -> Result<FittedLayer<'a>, FitError> {
        let text = format!("#{}: {}", self.id, self.body);
        let fitted = ctxbudget::assemble::fit_text(&text, budget, counter, policy)?;
        Ok(fitted.into_owned())
    }
}

/// Fields that are not content: the derive still works, `assemble()` is just not
/// callable (its bounds are checked where it is called).
#[derive(ContextLayers)]
#[context(total = 100)]
#[allow(dead_code)]
struct NotContent {
    #[budget(tokens = 10)]
    count: u32,
}

#[derive(ContextLayers)]
#[context(total = 100, output = 10)]
struct WithTicket {
    #[budget(tokens = 40, policy = never)]
    ticket: Ticket,
    #[budget(tokens = 50)]
    notes: Option<String>,
    #[budget(tokens = 0, grow)]
    extra: std::borrow::Cow<'static, str>,
}

#[test]
fn user_types_options_and_cows() {
    let ctx = WithTicket {
        ticket: Ticket {
            id: 7,
            body: "the build fails".into(),
        },
        notes: None,
        extra: "more and more ".repeat(100).into(),
    };
    let out = ctx.assemble(&CharEstimate).unwrap();
    assert!(
        out.prompt
            .starts_with("#7: the build fails\n\nmore and more")
    );
    assert_eq!(out.layer("notes").unwrap().tokens(), 0);
    // `extra` reserves nothing and grows into everything left.
    let extra = out.layer("extra").unwrap();
    assert!(extra.granted > 60 && extra.tokens() <= extra.granted);
    assert!(out.tokens <= 90);
    assert_eq!(NotContent::TOTAL, 100);
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (0usize..PROSE.len(), 0usize..6000).prop_map(|(start, len)| slice(PROSE, start, len)),
        (0usize..CODE.len(), 0usize..6000).prop_map(|(start, len)| slice(CODE, start, len)),
        (0usize..MARKDOWN.len(), 0usize..6000).prop_map(|(start, len)| slice(MARKDOWN, start, len)),
        "\\PC{0,200}",
    ]
}

fn slice(text: &str, start: usize, len: usize) -> String {
    let start = ctxbudget_tests::floor_char_boundary(text, start);
    let end = ctxbudget_tests::floor_char_boundary(text, start.saturating_add(len));
    text[start..end].to_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever the content: a prompt that fits `total - output` with the real
    /// counter, every layer within what it was given, or a never-cut error that names
    /// the layer and its true excess. Never a panic.
    #[test]
    fn assembled_prompts_fit_with_the_real_counter(
        system in arb_text(),
        guide in arb_text(),
        chunks in prop::collection::vec(arb_text(), 0..6),
        code_start in 0usize..CODE.len(),
        turns in prop::collection::vec(arb_text(), 0..8),
        user in "\\PC{0,300}",
    ) {
        let mut history: Vec<Message> = turns
            .iter()
            .enumerate()
            .map(|(i, t)| if i % 2 == 0 { Message::user(t.clone()) } else { Message::assistant(t.clone()) })
            .collect();
        history.push(Message::user("and now?"));
        let code: &'static str = &CODE[ctxbudget_tests::floor_char_boundary(CODE, code_start)..];
        let ctx = Agent { system, guide, history, retrieval: chunks, code, user };
        match ctx.assemble(&*TIKTOKEN) {
            Ok(out) => {
                prop_assert_eq!(out.tokens, TIKTOKEN.count(&out.prompt));
                prop_assert!(out.tokens <= 4096 - 512);
                for layer in &out.layers {
                    prop_assert!(layer.tokens() <= layer.granted, "{} over its grant", layer.name);
                    prop_assert!(layer.granted <= out.limit);
                    if layer.grow.is_none() {
                        prop_assert!(layer.granted <= layer.reservation);
                    }
                }
                prop_assert!(out.usage.total_spent() <= Agent::TOTAL);
            }
            Err(AssembleError::LayerOverBudget { layer, tokens, budget, over, .. }) => {
                let text = if layer == "system" { &ctx.system } else { &ctx.user };
                prop_assert!(layer == "system" || layer == "user");
                prop_assert_eq!(tokens, TIKTOKEN.count(text));
                prop_assert_eq!(budget, 256);
                prop_assert_eq!(over, tokens - 256);
            }
            Err(AssembleError::PinnedOverBudget { layer, tokens, budget, over, .. }) => {
                // The latest user message alone is over the history's grant.
                prop_assert_eq!(layer, "history");
                prop_assert_eq!(budget, 512);
                prop_assert_eq!(over, tokens - budget);
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    /// A never-cut layer is refused exactly when its real count is over its
    /// reservation, and the error carries that count and the excess.
    #[test]
    fn never_cut_layers_are_refused_exactly_when_over(start in 0usize..PROSE.len(), len in 0usize..2_000) {
        let system = slice(PROSE, start, len);
        let tokens = TIKTOKEN.count(&system);
        let ctx = Rigid { a: system.clone(), b: String::new() };
        let counter = &*TIKTOKEN;
        // Rigid reserves 10 for `a`; scale the check with a counter of tokens / 10.
        let tenth = |t: &str| counter.count(t).div_ceil(10);
        let needed = tokens.div_ceil(10);
        match ctx.assemble(&tenth) {
            Ok(out) => {
                prop_assert!(needed <= 10);
                prop_assert_eq!(out.prompt, system);
            }
            Err(err) => {
                prop_assert!(needed > 10);
                prop_assert_eq!(
                    err,
                    AssembleError::LayerOverBudget {
                        layer: "a".into(),
                        tokens: needed,
                        budget: 10,
                        reservation: 10,
                        over: needed - 10,
                    }
                );
            }
        }
    }

    /// Growth never takes a layer past what it was given, and a smaller fixed layer
    /// never leaves the growing one less.
    #[test]
    fn growth_is_monotone(fixed in 0usize..60, text in "[a-z ]{0,400}") {
        let words = |t: &str| t.split_whitespace().count();
        let small = Grow { fixed: "w ".repeat(fixed), low: text.clone(), high: text.clone() };
        let smaller = Grow { fixed: "w ".repeat(fixed / 2), low: text.clone(), high: text };
        let a = small.assemble(&words).unwrap();
        let b = smaller.assemble(&words).unwrap();
        prop_assert!(a.tokens <= 180 && b.tokens <= 180);
        for (x, y) in a.layers.iter().zip(&b.layers) {
            prop_assert!(x.tokens() <= x.granted && y.tokens() <= y.granted);
        }
        prop_assert!(b.layers[2].granted >= a.layers[2].granted);
    }
}

/// A user layer that "may consume any remaining headroom": never cut, but allowed
/// past its reservation when the other layers leave room.
#[derive(ContextLayers)]
#[context(total = 100, output = 20)]
struct Headroom {
    #[budget(tokens = 30)]
    memory: String,
    #[budget(tokens = 20, policy = never, grow)]
    user: String,
}

#[test]
fn a_never_cut_growing_layer_uses_headroom_or_names_its_grant() {
    let words = |t: &str| t.split_whitespace().count();
    let ctx = Headroom {
        memory: "m ".repeat(10),
        user: "u ".repeat(50),
    };
    // limit 80, memory 10, one separator (0 words): 70 for the user.
    let out = ctx.assemble(&words).unwrap();
    assert_eq!(out.layer("user").unwrap().granted, 70);
    assert_eq!(out.usage.user_spent(), 50);
    let ctx = Headroom {
        memory: "m ".repeat(30),
        user: "u ".repeat(60),
    };
    let err = ctx.assemble(&words).unwrap_err();
    assert_eq!(
        err.to_string(),
        "layer `user` needs 60 tokens but was given 50 (10 over; it reserves 20); it is \
         marked never to be cut: shorten it or raise its reservation"
    );
}

/// Retrieval as ranked chunks (issue 4's selection), growing into what is left.
#[derive(ContextLayers)]
#[context(total = 2048, output = 256)]
struct Rag {
    #[budget(tokens = 128, policy = never)]
    system: String,
    #[budget(tokens = 512, grow)]
    passages: ctxbudget::select::RankedChunks,
    #[budget(tokens = 64, policy = never)]
    pinned: Vec<ctxbudget::select::RankedChunk>,
}

fn passages() -> ctxbudget::select::RankedChunks {
    PROSE
        .split("\n\n")
        .filter(|p| p.len() > 100)
        .enumerate()
        .map(|(i, p)| (p.to_owned(), [1.0, 0.5, 0.4, 0.3, 0.2, 0.15, 0.1][i % 7]))
        .collect()
}

#[test]
fn ranked_chunks_are_selected_by_score_and_grow() {
    let ctx = Rag {
        system: "Answer from the passages.".into(),
        passages: passages(),
        pinned: vec![ctxbudget::select::RankedChunk::new("Pinned fact.", 1.0)],
    };
    let out = ctx.assemble(&*TIKTOKEN).unwrap();
    assert!(out.tokens <= out.limit);
    assert_eq!(out.tokens, TIKTOKEN.count(&out.prompt));
    let passages = out.layer("passages").unwrap();
    assert_eq!(passages.fitted.unit, "whole chunks");
    assert!(passages.cut());
    assert!(passages.tokens() > 512, "grew: {}", passages.tokens());
    assert!(passages.tokens() <= passages.granted);
    // The best-scored chunk (score 1.0, the first of each seven) leads.
    let best = PROSE.split("\n\n").find(|p| p.len() > 100).unwrap();
    assert!(passages.text().starts_with(best));
    assert!(out.prompt.ends_with("Pinned fact."));

    // Never-cut chunks that do not all fit: the error names the layer.
    let ctx = Rag {
        system: String::new(),
        passages: ctxbudget::select::RankedChunks::new(),
        pinned: vec![ctxbudget::select::RankedChunk::new(
            "word ".repeat(100),
            1.0,
        )],
    };
    let err = ctx.assemble(&*TIKTOKEN).unwrap_err();
    assert!(
        matches!(&err, AssembleError::LayerOverBudget { layer, budget: 64, .. } if layer == "pinned"),
        "{err}"
    );
}
