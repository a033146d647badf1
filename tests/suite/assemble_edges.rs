//! Edges of `assemble()` and of the fitting functions behind it: blank ranked chunks
//! under `policy = never`, bounded refits of a chat history, pinned chat messages
//! over their layer's grant, and growing layers of one priority sharing what is left.

use std::cell::Cell;
use std::sync::LazyLock;

use ctxbudget::assemble::{
    AssembledLayer, FitError, LayerPolicy, fit_chat, fit_ranked, render_chat,
};
use ctxbudget::select::{RankedChunk, RankedChunks};
use ctxbudget::{AssembleError, ContextLayers, Message, Tiktoken, TokenCounter};
use ctxbudget_tests::PROSE;
use proptest::prelude::*;

static TIKTOKEN: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

// --- Ranked chunks that may not be cut -------------------------------------------

fn with_blanks() -> Vec<RankedChunk> {
    vec![
        RankedChunk::new("alpha beta", 1.0),
        RankedChunk::new("", 0.9),
        RankedChunk::new("  \n ", 0.5),
        RankedChunk::new("gamma", 0.1),
    ]
}

#[test]
fn never_cut_chunks_with_blank_ones_fit_when_their_text_fits() {
    let chunks = with_blanks();
    // "alpha beta\n\ngamma": 3 words. Blank chunks are never sent nor counted.
    let out = fit_ranked(&chunks, 3, &words, &LayerPolicy::Never).unwrap();
    assert_eq!(out.text, "alpha beta\n\ngamma");
    assert_eq!((out.tokens, out.kept, out.total), (3, 2, 2));
    assert!(!out.cut());
    // Over the budget, the error carries the real count, not an invented one.
    let err = fit_ranked(&chunks, 2, &words, &LayerPolicy::Never).unwrap_err();
    assert_eq!(err, FitError::never_cut(3, 2));
    // A cutting policy reports the same units.
    let head = fit_ranked(&chunks, 2, &words, &LayerPolicy::Head).unwrap();
    assert_eq!(
        (head.text.as_ref(), head.kept, head.total),
        ("alpha beta", 1, 2)
    );
}

#[test]
fn never_cut_chunks_at_the_largest_budget_do_not_panic() {
    let chunks = with_blanks();
    let out = fit_ranked(&chunks, usize::MAX, &words, &LayerPolicy::Never).unwrap();
    assert_eq!((out.tokens, out.kept, out.total), (3, 2, 2));
    let blank = [RankedChunk::new(" ", 1.0)];
    let out = fit_ranked(&blank, usize::MAX, &words, &LayerPolicy::Never).unwrap();
    assert_eq!((out.text.as_ref(), out.kept, out.total), ("", 0, 0));
}

#[derive(ContextLayers)]
#[context(total = 100)]
struct Pinned {
    #[budget(tokens = 3, policy = never)]
    facts: Vec<RankedChunk>,
    #[budget(tokens = 3, policy = never)]
    more: RankedChunks,
}

#[test]
fn never_cut_chunk_layers_with_blank_chunks_assemble() {
    let ctx = Pinned {
        facts: with_blanks(),
        more: with_blanks().into_iter().collect(),
    };
    let out = ctx.assemble(&words).unwrap();
    assert_eq!(out.prompt, "alpha beta\n\ngamma\n\nalpha beta\n\ngamma");
    assert_eq!(out.tokens, 6);
}

// --- Chat histories --------------------------------------------------------------

#[test]
fn chat_refits_are_bounded_whatever_the_counter() {
    // The rendered history (several lines) always costs one token more than the
    // budget: every refit is over again by one.
    const BUDGET: usize = 1_000_000;
    let calls = Cell::new(0usize);
    let counter = |text: &str| {
        calls.set(calls.get() + 1);
        assert!(calls.get() < 100_000, "the refits do not stop");
        if text.contains('\n') {
            BUDGET + 1
        } else {
            words(text)
        }
    };
    let history: Vec<Message> = (0..60)
        .map(|i| {
            if i % 2 == 0 {
                Message::user(format!("question {i}"))
            } else {
                Message::assistant(format!("answer {i}"))
            }
        })
        .collect();
    let out = fit_chat(&history, BUDGET, &counter, &LayerPolicy::Tail).unwrap();
    // What is left is the pinned latest user message, on one line.
    assert_eq!(out.text, "user: question 58");
    assert_eq!((out.kept, out.total, out.tokens), (1, 60, 3));
    // The 60 messages counted once (role and content), then sixteen refits at most,
    // each counting the rendered text twice, and the pinned message.
    assert!(calls.get() <= 120 + 16 * 2 + 2, "{} counts", calls.get());
}

fn system_and_question(system_words: usize) -> Vec<Message> {
    vec![
        Message::system("rule ".repeat(system_words)),
        Message::user("an old question"),
        Message::assistant("an old answer"),
        Message::user("the latest question"),
    ]
}

#[test]
fn pinned_messages_that_fit_exactly_are_kept_though_the_estimate_is_over() {
    // Rendered: "system: rule rule" + "user: the latest question" = 7 words; the
    // trimmer's estimate adds two a message, 11.
    let history = system_and_question(2);
    let out = fit_chat(&history, 7, &words, &LayerPolicy::Tail).unwrap();
    assert_eq!(out.text, "system: rule rule \nuser: the latest question");
    assert_eq!((out.kept, out.total, out.tokens), (2, 4, 7));
    let err = fit_chat(&history, 6, &words, &LayerPolicy::Tail).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the system messages and the latest user message need 7 tokens but may use 6 (1 over); \
         give the layer at least 7 tokens or shorten those messages"
    );
}

#[derive(ContextLayers)]
#[context(total = 100, output = 10)]
struct Support {
    #[budget(tokens = 10)]
    notes: String,
    #[budget(tokens = 20)]
    history: Vec<Message>,
}

#[derive(ContextLayers)]
#[context(total = 100, output = 10)]
struct GrowingSupport {
    #[budget(tokens = 10)]
    notes: String,
    #[budget(tokens = 20, grow)]
    history: Vec<Message>,
}

#[test]
fn pinned_messages_over_the_grant_name_the_layer_and_what_to_do() {
    let history = system_and_question(30);
    // "system: " + 30 words + "user: the latest question": 35 words.
    let pinned = words(&render_chat([&history[0], &history[3]]));
    assert_eq!(pinned, 35);
    let ctx = Support {
        notes: "n".into(),
        history: history.clone(),
    };
    let err = ctx.assemble(&words).unwrap_err();
    assert_eq!(
        err,
        AssembleError::PinnedOverBudget {
            layer: "history".into(),
            tokens: 35,
            budget: 20,
            reservation: 20,
            over: 15,
            grows: false,
        }
    );
    assert_eq!(
        err.to_string(),
        "layer `history` must keep its system messages and latest user message, which need \
         35 tokens, but reserves 20 (15 over); raise its reservation, mark it `grow` to let \
         it use what other layers leave, or shorten the system messages or the latest user \
         message"
    );

    // Marked `grow`, it uses what the others leave: 90 - 1 for the notes.
    let ctx = GrowingSupport {
        notes: "n".into(),
        history: history.clone(),
    };
    let out = ctx.assemble(&words).unwrap();
    let layer = out.layer("history").unwrap();
    assert_eq!(layer.granted, 89);
    assert_eq!((layer.fitted.kept, layer.fitted.total), (4, 4));

    // Growing and still over: the error says so, without suggesting `grow`.
    let ctx = GrowingSupport {
        notes: "n".into(),
        history: system_and_question(100),
    };
    let err = ctx.assemble(&words).unwrap_err();
    assert_eq!(
        err.to_string(),
        "layer `history` must keep its system messages and latest user message, which need \
         105 tokens, but was given 89 (16 over; it reserves 20); raise its reservation, or \
         shorten the system messages or the latest user message"
    );
}

// --- Growing layers of one priority ----------------------------------------------

/// Two growing layers of one priority after a fixed one.
#[derive(ContextLayers)]
#[context(total = 200, output = 20, separator = " | ")]
struct Twins {
    #[budget(tokens = 20)]
    fixed: String,
    #[budget(tokens = 30, grow)]
    a: String,
    #[budget(tokens = 40, grow)]
    b: String,
}

#[test]
fn layers_of_one_priority_share_what_is_left_equally() {
    let ctx = Twins {
        fixed: "f f f".into(),
        a: "a ".repeat(500),
        b: "b ".repeat(500),
    };
    let out = ctx.assemble(&words).unwrap();
    // limit 180, fixed 3, two separators of one word: 175, of which 105 are beyond
    // the reservations: 53 and 52.
    assert_eq!(out.layer("a").unwrap().granted, 30 + 53);
    assert_eq!(out.layer("b").unwrap().granted, 40 + 52);
    assert_eq!(out.unused(), 0);

    // What one does not use goes to the other.
    let ctx = Twins {
        fixed: "f f f".into(),
        a: "a ".repeat(10),
        b: "b ".repeat(500),
    };
    let out = ctx.assemble(&words).unwrap();
    assert_eq!(out.layer("a").unwrap().tokens(), 10);
    assert_eq!(out.layer("b").unwrap().tokens(), 175 - 10);
    assert_eq!(out.unused(), 0);
}

/// A growing layer that may not be cut, declared after a cuttable one of the same
/// priority.
#[derive(ContextLayers)]
#[context(total = 100, output = 20)]
struct Question {
    #[budget(tokens = 30)]
    memory: String,
    #[budget(tokens = 20, grow)]
    notes: String,
    #[budget(tokens = 20, policy = never, grow)]
    user: String,
}

#[test]
fn layers_that_may_not_be_cut_are_served_first_among_equals() {
    let ctx = Question {
        memory: "m ".repeat(10),
        notes: "n ".repeat(100),
        user: "u ".repeat(50),
    };
    // limit 80, memory 10, separators free for this counter: 70 to share. The user
    // layer may use its 20 and the 30 beyond both reservations.
    let out = ctx.assemble(&words).unwrap();
    assert_eq!(out.layer("user").unwrap().tokens(), 50);
    assert_eq!(out.layer("notes").unwrap().tokens(), 20);
    let ctx = Question {
        memory: "m ".repeat(10),
        notes: "n ".repeat(100),
        user: "u ".repeat(51),
    };
    let err = ctx.assemble(&words).unwrap_err();
    assert!(
        matches!(&err, AssembleError::LayerOverBudget { layer, tokens: 51, budget: 50, .. } if layer == "user"),
        "{err}"
    );
}

// --- A RAG context ----------------------------------------------------------------

/// `len` bytes of the prose fixture from `start`, on char boundaries.
fn prose(start: usize, len: usize) -> String {
    let start = ctxbudget_tests::floor_char_boundary(PROSE, start % (PROSE.len() - 1_000));
    let end = ctxbudget_tests::floor_char_boundary(PROSE, start + len);
    PROSE[start..end].to_owned()
}

/// 50 retrieved chunks of about 50 tokens, best first.
fn retrieved() -> RankedChunks {
    (0..50u32)
        .map(|i| {
            let text = prose(i as usize * 311, 220);
            (text, 1.0 - f64::from(i) / 100.0)
        })
        .collect()
}

/// 60 messages of about 70 to 140 tokens, ending with the question.
fn conversation() -> Vec<Message> {
    let mut chat: Vec<Message> = (0..59)
        .map(|i| {
            let text = prose(i * 523, 300 + (i * 97) % 300);
            if i % 2 == 0 {
                Message::user(text)
            } else {
                Message::assistant(text)
            }
        })
        .collect();
    chat.push(Message::user(
        "What does the reference say about evaluation order?",
    ));
    chat
}

const SYSTEM: &str = "Answer from the passages and the conversation; cite the passage.";
const QUESTION: &str = "What does the reference say about evaluation order?";

/// The history is not marked `grow`: it never gets more than its reservation.
#[derive(ContextLayers)]
#[context(total = 8192, output = 1024)]
struct FixedHistory {
    #[budget(tokens = 512, policy = never)]
    system: String,
    #[budget(tokens = 3072, grow)]
    chunks: RankedChunks,
    #[budget(tokens = 2048)]
    history: Vec<Message>,
    #[budget(tokens = 512, policy = never)]
    question: String,
}

/// History and chunks both grow, at one priority.
#[derive(ContextLayers)]
#[context(total = 8192, output = 1024)]
struct BothGrow {
    #[budget(tokens = 512, policy = never)]
    system: String,
    #[budget(tokens = 3072, grow)]
    chunks: RankedChunks,
    #[budget(tokens = 2048, grow)]
    history: Vec<Message>,
    #[budget(tokens = 512, policy = never)]
    question: String,
}

/// The same, history declared first.
#[derive(ContextLayers)]
#[context(total = 8192, output = 1024)]
struct HistoryFirst {
    #[budget(tokens = 512, policy = never)]
    system: String,
    #[budget(tokens = 2048, grow)]
    history: Vec<Message>,
    #[budget(tokens = 3072, grow)]
    chunks: RankedChunks,
    #[budget(tokens = 512, policy = never)]
    question: String,
}

/// Checks that the history layer could not have kept one more message in what the
/// prompt left unused, and returns the unused tokens and the next message's cost.
fn nothing_more_fits(
    history: &[Message],
    layer: &AssembledLayer<'_>,
    unused: usize,
) -> (usize, usize) {
    let fitted = &layer.fitted;
    assert!(fitted.cut(), "the history is cut in this scenario");
    let more = fit_chat(
        history,
        layer.tokens() + unused,
        &*TIKTOKEN,
        &LayerPolicy::Tail,
    )
    .unwrap();
    assert_eq!(
        more.kept, fitted.kept,
        "{unused} unused tokens would have kept more"
    );
    // The next message to keep is the latest one dropped.
    let next = &history[history.len() - 1 - fitted.kept];
    let cost = TIKTOKEN.count(&render_chat([next]));
    assert!(
        unused < cost,
        "{unused} unused, the next message costs {cost}"
    );
    (unused, cost)
}

#[test]
fn a_rag_context_leaves_less_than_a_message_unused_when_history_grows() {
    let history = conversation();
    let fixed = FixedHistory {
        system: SYSTEM.into(),
        chunks: retrieved(),
        history: history.clone(),
        question: QUESTION.into(),
    };
    let out = fixed.assemble(&*TIKTOKEN).unwrap();
    // Not marked `grow`, the history stays within its reservation however much is
    // left: the documented way to leave tokens unused.
    let layer = out.layer("history").unwrap();
    assert_eq!(layer.granted, 2048);
    assert!(layer.cut());
    assert!(!out.layer("chunks").unwrap().cut());
    assert!(out.unused() > 2_000, "{}", out.unused());

    let both = BothGrow {
        system: SYSTEM.into(),
        chunks: retrieved(),
        history: history.clone(),
        question: QUESTION.into(),
    };
    let out = both.assemble(&*TIKTOKEN).unwrap();
    assert_eq!(out.tokens, TIKTOKEN.count(&out.prompt));
    assert!(!out.layer("chunks").unwrap().cut());
    nothing_more_fits(&history, out.layer("history").unwrap(), out.unused());

    let first = HistoryFirst {
        system: SYSTEM.into(),
        chunks: retrieved(),
        history: history.clone(),
        question: QUESTION.into(),
    };
    let out = first.assemble(&*TIKTOKEN).unwrap();
    assert_eq!(out.tokens, TIKTOKEN.count(&out.prompt));
    assert!(!out.layer("chunks").unwrap().cut());
    nothing_more_fits(&history, out.layer("history").unwrap(), out.unused());
}

/// With half the chunks' texts doubled, both layers are cut: neither leaves a unit
/// the other could have used.
#[test]
fn a_rag_context_with_both_layers_cut_leaves_less_than_either_next_unit() {
    let chunks: RankedChunks = retrieved()
        .as_slice()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let text = if i % 2 == 0 {
                c.text.repeat(3)
            } else {
                c.text.clone()
            };
            (text, c.score)
        })
        .collect();
    let history = conversation();
    let ctx = HistoryFirst {
        system: SYSTEM.into(),
        chunks: chunks.clone(),
        history: history.clone(),
        question: QUESTION.into(),
    };
    let out = ctx.assemble(&*TIKTOKEN).unwrap();
    let layer = out.layer("chunks").unwrap();
    assert!(layer.cut());
    // The chunks could not have used the unused tokens either.
    let more = fit_ranked(
        chunks.as_slice(),
        layer.tokens() + out.unused(),
        &*TIKTOKEN,
        &LayerPolicy::Head,
    )
    .unwrap();
    assert!(more.tokens <= layer.tokens() + out.unused());
    assert_eq!(more.kept, layer.fitted.kept);
    nothing_more_fits(&history, out.layer("history").unwrap(), out.unused());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Text cut by words under a word counter can use every token: while a growing
    /// layer is cut, nothing is left unused, and every layer stays within its grant.
    #[test]
    fn growing_layers_leave_nothing_while_one_is_cut(
        fixed in 0usize..40,
        a in 0usize..300,
        b in 0usize..300,
    ) {
        let ctx = Twins { fixed: "f ".repeat(fixed), a: "a ".repeat(a), b: "b ".repeat(b) };
        let out = ctx.assemble(&words).unwrap();
        prop_assert_eq!(out.tokens, words(&out.prompt));
        prop_assert!(out.tokens <= out.limit);
        for layer in &out.layers {
            prop_assert!(layer.tokens() <= layer.granted);
        }
        let cut = out.layers.iter().any(|l| l.grow.is_some() && l.cut());
        if cut {
            prop_assert_eq!(out.unused(), 0);
        }
    }
}
