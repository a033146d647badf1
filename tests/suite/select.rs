//! Chunk selection: ranking, greedy fit by score, the partial cut and its marker,
//! the stats, and the budget invariant under any scores, texts and budgets.

use ctxbudget::{
    CharEstimate, Tiktoken, TokenCounter, select, select::RankedChunk, select::RankedChunks,
    select::SelectOptions, select::Selection, select::select_by, trim::Boundary,
};
use ctxbudget_tests::{MARKDOWN, MULTILINGUAL, PROSE, floor_char_boundary, ranked_chunks};
use proptest::prelude::*;

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn o200k() -> &'static Tiktoken {
    static BPE: std::sync::LazyLock<Tiktoken> = std::sync::LazyLock::new(Tiktoken::o200k_base);
    &BPE
}

/// Sample chunks: five tax answers, each a sentence repeated 15 to 30 times.
fn sample_chunks() -> Vec<(String, f64)> {
    vec![
        (
            "Form 8843 must be filed by all nonresident aliens present in the US. ".repeat(30),
            0.91,
        ),
        (
            "F-1 students are exempt from FICA taxes on wages from on-campus employment. "
                .repeat(25),
            0.85,
        ),
        (
            "The substantial presence test counts days weighted 1, 1/3, 1/6 over three years. "
                .repeat(20),
            0.78,
        ),
        (
            "Nonresident aliens must file Form 1040-NR to report US-sourced income. ".repeat(20),
            0.72,
        ),
        (
            "Tax treaties may reduce withholding rates on scholarship and fellowship income. "
                .repeat(15),
            0.65,
        ),
    ]
}

/// The common chars/4 shortcut, as retrieval code often writes it: `len // 4`
/// estimates and the last chunk cut at `remaining * 4` characters, when more than 50
/// tokens remain. Returns the texts it would join.
fn shortcut_optimize(chunks: &[(String, f64)], max_tokens: usize) -> Vec<String> {
    let estimate = |t: &str| (t.chars().count() / 4).max(1);
    let mut sorted: Vec<&(String, f64)> = chunks.iter().collect();
    sorted.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
    let mut selected = Vec::new();
    let mut used = 0;
    for (text, _) in sorted {
        let tokens = estimate(text);
        if used + tokens <= max_tokens {
            selected.push(text.clone());
            used += tokens;
        } else {
            let remaining = max_tokens - used;
            if remaining > 50 {
                let cut: String = text.chars().take(remaining * 4).collect();
                selected.push(format!("{}…", cut.trim_end()));
            }
            break;
        }
    }
    selected
}

/// Consecutive paragraphs of `text`, merged until each has at least `min_chars`
/// bytes.
fn paragraphs(text: &str, min_chars: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for paragraph in text.split("\n\n") {
        if !current.is_empty() {
            current.push_str("\n\n");
        }
        current.push_str(paragraph);
        if current.len() >= min_chars {
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

/// The common checks: exact count within budget, sub-slices, consistent stats.
fn check<S: AsRef<str>, C: TokenCounter + ?Sized>(
    chunks: &[(S, f64)],
    selection: &Selection<'_>,
    budget: usize,
    counter: &C,
) {
    let text = selection.text();
    assert!(
        selection.tokens <= budget,
        "{} > {budget}",
        selection.tokens
    );
    if selection.is_empty() {
        assert_eq!(selection.tokens, 0);
        assert_eq!(text, "");
    } else {
        assert_eq!(selection.tokens, counter.count(&text));
    }
    let mut seen = vec![false; chunks.len()];
    for chosen in &selection.chunks {
        assert!(!seen[chosen.index], "index {} chosen twice", chosen.index);
        seen[chosen.index] = true;
        let source = chunks[chosen.index].0.as_ref();
        assert_eq!(
            chosen.text.as_ptr(),
            source.as_ptr(),
            "a prefix of its chunk"
        );
        assert!(source.starts_with(chosen.text));
        assert_eq!(chosen.is_cut(), chosen.text.len() < source.len());
        assert!(!chosen.text.trim().is_empty());
    }
    let stats = selection.stats();
    assert_eq!(stats.given, chunks.len());
    assert_eq!(stats.used, selection.chunks.len());
    assert_eq!(stats.used + stats.dropped, stats.given);
    assert_eq!(selection.dropped().len(), stats.dropped);
    assert!(stats.cut <= 1);
    assert_eq!(stats.tokens, selection.tokens);
    // Whole chunks come in rank order: score descending (NaN last), ties by index.
    let whole: Vec<_> = selection.chunks.iter().filter(|c| !c.is_cut()).collect();
    for pair in whole.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let ordered = if a.score.is_nan() {
            b.score.is_nan() && a.index < b.index
        } else {
            b.score.is_nan()
                || a.score.partial_cmp(&b.score) == Some(std::cmp::Ordering::Greater)
                || (a.score.partial_cmp(&b.score) == Some(std::cmp::Ordering::Equal)
                    && a.index < b.index)
        };
        assert!(ordered, "{a:?} before {b:?}");
    }
    if let Some(cut) = selection
        .chunks
        .iter()
        .position(ctxbudget::select::Chosen::is_cut)
    {
        assert_eq!(cut, selection.chunks.len() - 1, "the cut chunk comes last");
    }
}

#[test]
fn keeps_as_many_chunks_as_the_shortcut_and_stays_within_budget() {
    let chunks = sample_chunks();
    // The shortcut keeps 1 chunk / 512 tokens, 2 / 992 and 4 / 1500 (its estimate).
    let expected = [(512, 1, 512), (1024, 2, 992), (1500, 4, 1500)];
    for (budget, shortcut_chunks, shortcut_tokens) in expected {
        let shortcut = shortcut_optimize(&chunks, budget);
        assert_eq!(shortcut.len(), shortcut_chunks);
        let estimated: usize = shortcut.iter().map(|t| t.chars().count() / 4).sum();
        assert_eq!(estimated, shortcut_tokens);

        let selection = select(&chunks, budget, &CharEstimate, &SelectOptions::new());
        check(&chunks, &selection, budget, &CharEstimate);
        assert_eq!(selection.chunks.len(), shortcut_chunks, "budget {budget}");
        // Separators included and cut at a sentence: within a few tokens of the
        // shortcut's sum, which leaves separators out.
        assert!(
            selection.tokens + 15 >= shortcut_tokens,
            "budget {budget}: {selection:?}"
        );
    }
    // The 512 budget cuts the first chunk at a sentence, not mid-word.
    let selection = select(&chunks, 512, &CharEstimate, &SelectOptions::new());
    let only = &selection.chunks[0];
    assert_eq!(only.cut, Some(Boundary::Sentence));
    assert!(only.text.ends_with("in the US."));
    assert!(selection.text().ends_with("in the US. …"));
}

#[test]
fn the_shortcut_overflows_with_a_real_tokenizer_and_select_does_not() {
    let bpe = o200k();
    // The sample, measured with o200k: the joined text vs the budget.
    let chunks = sample_chunks();
    for budget in [512, 1024, 1500] {
        let selection = select(&chunks, budget, bpe, &SelectOptions::new());
        check(&chunks, &selection, budget, bpe);
        assert!(
            selection.tokens * 10 >= budget * 9,
            "{budget}: {}",
            selection.tokens
        );
    }
    // Text that costs more than a token per four characters: the shortcut's result is
    // far over its budget, ctxbudget's is not.
    let chunks: Vec<(String, f64)> = MULTILINGUAL
        .split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .enumerate()
        .map(|(i, p)| {
            (
                p.to_owned(),
                1.0 / (1.0 + f64::from(u8::try_from(i).unwrap())),
            )
        })
        .collect();
    for budget in [60, 100, 200] {
        let shortcut_text = shortcut_optimize(&chunks, budget).join("\n\n");
        let shortcut_tokens = bpe.count(&shortcut_text);
        eprintln!("budget {budget}: shortcut {shortcut_tokens}");
        assert!(
            shortcut_tokens > budget,
            "shortcut: {shortcut_tokens} <= {budget}"
        );
        let selection = select(&chunks, budget, bpe, &SelectOptions::new());
        check(&chunks, &selection, budget, bpe);
        assert!(!selection.is_empty());
    }
}

#[test]
fn ties_keep_input_order_and_nan_ranks_last() {
    let chunks = [
        ("nan first".to_owned(), f64::NAN),
        ("tie a".to_owned(), 0.5),
        ("low".to_owned(), f64::NEG_INFINITY),
        ("tie b".to_owned(), 0.5),
        ("negative zero".to_owned(), -0.0),
        ("zero".to_owned(), 0.0),
        ("tie c".to_owned(), 0.5),
        ("top".to_owned(), f64::INFINITY),
    ];
    let selection = select(&chunks, usize::MAX, &words, &SelectOptions::new());
    check(&chunks, &selection, usize::MAX, &words);
    let order: Vec<usize> = selection.chunks.iter().map(|c| c.index).collect();
    assert_eq!(order, [7, 1, 3, 6, 4, 5, 2, 0]);
    // With room for three words, ties decide: the first two of equal score.
    let options = SelectOptions::new().with_separator(" ");
    let selection = select(&chunks, 5, &words, &options);
    assert_eq!(selection.text(), "top tie a tie b");
}

#[test]
fn stops_at_the_first_chunk_that_does_not_fit_unless_scanning() {
    let chunks = [
        ("one two three".to_owned(), 0.9),
        ("a chunk of seven words that is long".to_owned(), 0.8),
        ("four five".to_owned(), 0.7),
    ];
    let options = SelectOptions::new().with_separator(" ");
    let stopped = select(&chunks, 6, &words, &options);
    check(&chunks, &stopped, 6, &words);
    assert_eq!(stopped.text(), "one two three");
    assert_eq!(stopped.dropped(), [1, 2]);

    let scanning = select(
        &chunks,
        6,
        &words,
        &options.clone().with_keep_scanning(true),
    );
    check(&chunks, &scanning, 6, &words);
    assert_eq!(scanning.text(), "one two three four five");
    assert_eq!(scanning.dropped(), [1]);

    // Scanning, then the best skipped chunk is cut to fill the rest.
    let scan_and_cut = options.with_keep_scanning(true).with_min_partial(1);
    let selection = select(&chunks, 10, &words, &scan_and_cut);
    check(&chunks, &selection, 10, &words);
    // The separator is no word: 3 + 2 whole, 4 cut and the marker.
    assert_eq!(
        selection.text(),
        "one two three four five a chunk of seven …"
    );
    let indices: Vec<usize> = selection.chunks.iter().map(|c| c.index).collect();
    assert_eq!(indices, [0, 2, 1]);
    assert_eq!(selection.stats().cut, 1);
}

#[test]
fn partial_cut_ends_at_a_boundary_and_counts_its_marker() {
    let bpe = o200k();
    let chunks: Vec<(String, f64)> = paragraphs(PROSE, 1_000)
        .into_iter()
        .filter(|p| bpe.count(p) > 200)
        .take(6)
        .enumerate()
        .map(|(i, p)| (p, 1.0 - f64::from(u8::try_from(i).unwrap()) / 10.0))
        .collect();
    assert_eq!(chunks.len(), 6);
    let first = bpe.count(&chunks[0].0);
    let marker = " [continued in the source]";
    let options = SelectOptions::new().with_marker(marker);
    let budget = first + 120;
    let selection = select(&chunks, budget, bpe, &options);
    check(&chunks, &selection, budget, bpe);
    assert_eq!(selection.chunks.len(), 2);
    let cut = selection.chunks[1];
    let boundary = cut.cut.expect("the second chunk is cut");
    assert!(boundary <= Boundary::Word, "{boundary:?}");
    let source = &chunks[cut.index].0;
    let next = source[cut.text.len()..].chars().next().unwrap();
    assert!(
        next.is_whitespace() || cut.text.ends_with(['.', '!', '?', ':', ';', ',']),
        "cut mid-word: {:?}|{:?}",
        &cut.text[floor_char_boundary(cut.text, cut.text.len().saturating_sub(20))..],
        next
    );
    let text = selection.text();
    assert!(text.ends_with(marker));
    assert_eq!(selection.tokens, bpe.count(&text));
    // The marker's tokens are inside the budget: without them the text costs less.
    assert!(bpe.count(&text[..text.len() - marker.len()]) < selection.tokens);
}

#[test]
fn min_partial_is_a_strict_minimum() {
    let long = (0..200)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let chunks = [("a b c d e".to_owned(), 1.0), (long, 0.5)];
    // 5 words + 1 separator ("|") leave exactly 50: no cut.
    let options = SelectOptions::new().with_separator(" | ");
    let selection = select(&chunks, 56, &words, &options);
    check(&chunks, &selection, 56, &words);
    assert_eq!(selection.chunks.len(), 1);
    // 51 remain: a cut of 50 words and the 1-word marker.
    let selection = select(&chunks, 57, &words, &options);
    check(&chunks, &selection, 57, &words);
    assert_eq!(selection.chunks.len(), 2);
    assert_eq!(selection.chunks[1].tokens, 50);
    assert_eq!(selection.tokens, 57);
}

#[test]
fn exact_fits_and_edge_budgets() {
    let chunks = [
        ("alpha beta gamma".to_owned(), 3.0),
        ("delta epsilon".to_owned(), 2.0),
        ("zeta".to_owned(), 1.0),
    ];
    let options = SelectOptions::new()
        .with_separator(" / ")
        .with_min_partial(0);
    // 3 + 1 + 2 + 1 + 1 words: exactly 8.
    let all = select(&chunks, 8, &words, &options);
    check(&chunks, &all, 8, &words);
    assert_eq!(all.text(), "alpha beta gamma / delta epsilon / zeta");
    assert_eq!(all.tokens, 8);
    assert_eq!(all.stats().dropped, 0);
    // One less: "zeta" does not fit, and a cut of it cannot (it is one word plus a
    // marker), so it is dropped.
    let less = select(&chunks, 7, &words, &options);
    check(&chunks, &less, 7, &words);
    assert_eq!(less.text(), "alpha beta gamma / delta epsilon");
    // A single whole chunk borrows.
    let one = select(&chunks, 3, &words, &options);
    assert!(matches!(
        one.text(),
        std::borrow::Cow::Borrowed("alpha beta gamma")
    ));
    // Zero budget, usize::MAX, and no chunks.
    let none = select(&chunks, 0, &words, &options);
    check(&chunks, &none, 0, &words);
    assert!(none.is_empty() && none.tokens == 0);
    assert_eq!(none.dropped(), [0, 1, 2]);
    let max = select(&chunks, usize::MAX, &words, &options);
    assert_eq!(max.stats().used, 3);
    let empty: [(String, f64); 0] = [];
    let nothing = select(&empty, 100, &words, &options);
    assert_eq!(nothing.stats().given, 0);
    // Blank chunks are never chosen.
    let blank = [
        ("   \n".to_owned(), 9.0),
        (String::new(), 8.0),
        ("x".to_owned(), 0.0),
    ];
    let selection = select(&blank, 100, &words, &options);
    check(&blank, &selection, 100, &words);
    assert_eq!(selection.text(), "x");
}

#[test]
fn owned_chunks_and_key_closures_select_the_same() {
    let chunks = sample_chunks();
    let owned: RankedChunks = chunks.iter().map(|(t, s)| (t.clone(), *s)).collect();
    let options = SelectOptions::new();
    let a = select(&chunks, 1500, &CharEstimate, &options);
    let b = owned.select(1500, &CharEstimate, &options);
    let c = select_by(
        &chunks,
        |(t, s)| (t.as_str(), *s),
        1500,
        &CharEstimate,
        &options,
    );
    assert_eq!(a.text(), b.text());
    assert_eq!(a.text(), c.text());
    assert_eq!(a.stats(), b.stats());
    let as_chunks: Vec<RankedChunk> = owned.clone().into();
    assert_eq!(as_chunks.len(), owned.len());
    let d = select(&as_chunks, 1500, &CharEstimate, &options);
    assert_eq!(
        d.chunks,
        b.chunks
            .iter()
            .map(|c| ctxbudget::select::Chosen {
                text: &as_chunks[c.index].text[..c.text.len()],
                ..*c
            })
            .collect::<Vec<_>>()
    );
}

/// The example of `docs/README-select.md`, verbatim.
#[test]
fn readme_example() {
    use ctxbudget::{TokenCounter, select, select::SelectOptions, trim::Boundary};

    let words = |t: &str| t.split_whitespace().count();
    let chunks = [
        ("Treaties may reduce withholding on scholarships.", 0.65),
        (
            "Form 8843 is filed by every nonresident alien. It is due in June.",
            0.91,
        ),
        ("F-1 students are exempt from FICA on campus wages.", 0.85),
    ];
    let options = SelectOptions::new().with_min_partial(3);
    let selection = select(&chunks, 27, &words, &options);
    assert_eq!(
        selection.text(),
        "Form 8843 is filed by every nonresident alien. It is due in June.\n\n\
         F-1 students are exempt from FICA on campus wages.\n\n\
         Treaties may reduce withholding …",
    );
    assert!(selection.tokens == 27 && selection.tokens == words.count(&selection.text()));
    assert_eq!(selection.chunks[2].cut, Some(Boundary::Word));
    let stats = selection.stats();
    assert_eq!(
        (stats.given, stats.used, stats.dropped, stats.cut),
        (3, 3, 0, 1)
    );
}

fn score() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(-f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(0.5),
        any::<f64>(),
        (0u8..4).prop_map(f64::from),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[ \t\n]{0,8}",
        ".{0,80}",
        "([a-z]{1,9}[ .,\n]{1,2}){0,60}",
        (0..PROSE.len(), 0usize..3000).prop_map(|(start, len)| {
            let start = floor_char_boundary(PROSE, start);
            let end = floor_char_boundary(PROSE, start.saturating_add(len));
            PROSE[start..end].to_owned()
        }),
        (0..MULTILINGUAL.len(), 0usize..600).prop_map(|(start, len)| {
            let start = floor_char_boundary(MULTILINGUAL, start);
            let end = floor_char_boundary(MULTILINGUAL, start.saturating_add(len));
            MULTILINGUAL[start..end].to_owned()
        }),
        Just("x".repeat(20_000)),
    ]
}

fn budget() -> impl Strategy<Value = usize> {
    prop_oneof![Just(0), Just(usize::MAX), 0usize..40, 0usize..2000]
}

fn options() -> impl Strategy<Value = SelectOptions> {
    (
        any::<bool>(),
        prop_oneof![Just(0), Just(50), 0usize..200, Just(usize::MAX)],
        prop_oneof![Just("\n\n"), Just(""), Just(" | "), Just("\n---\n")],
        prop_oneof![Just(" …"), Just(""), Just("[cut]")],
    )
        .prop_map(|(scan, min, separator, marker)| {
            SelectOptions::new()
                .with_keep_scanning(scan)
                .with_min_partial(min)
                .with_separator(separator)
                .with_marker(marker)
        })
}

proptest! {
    #[test]
    fn within_budget_char_estimate(
        chunks in prop::collection::vec((text(), score()), 0..12),
        budget in budget(),
        options in options(),
    ) {
        let selection = select(&chunks, budget, &CharEstimate, &options);
        check(&chunks, &selection, budget, &CharEstimate);
        check_no_needless_cut(&chunks, &selection, &options, &CharEstimate);
    }

    #[test]
    fn within_budget_words(
        chunks in prop::collection::vec((text(), score()), 0..12),
        budget in budget(),
        options in options(),
    ) {
        let selection = select(&chunks, budget, &words, &options);
        check(&chunks, &selection, budget, &words);
        check_no_needless_cut(&chunks, &selection, &options, &words);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn within_budget_tiktoken(
        chunks in prop::collection::vec((text(), score()), 0..8),
        budget in budget(),
        options in options(),
    ) {
        let selection = select(&chunks, budget, o200k(), &options);
        check(&chunks, &selection, budget, o200k());
        check_no_needless_cut(&chunks, &selection, &options, o200k());
    }
}

// ---------------------------------------------------------------------------
// Edges: the joined count before a cut, blank chunks
// ---------------------------------------------------------------------------

/// The selection's text with its cut chunk whole, or `None` when nothing is cut.
fn with_cut_chunk_whole<S: AsRef<str>>(
    chunks: &[(S, f64)],
    selection: &Selection<'_>,
    separator: &str,
) -> Option<String> {
    let last = selection.chunks.last().filter(|c| c.is_cut())?;
    let mut texts: Vec<&str> = selection.chunks.iter().map(|c| c.text).collect();
    *texts.last_mut()? = chunks[last.index].0.as_ref();
    Some(texts.join(separator))
}

/// Without scanning, a chunk is cut only when it does not fit whole after the
/// chunks before it, by the count of the joined text. (The joined text is counted
/// at most 8 times per call, so this holds for sure up to 8 chosen chunks.)
fn check_no_needless_cut<S: AsRef<str>, C: TokenCounter + ?Sized>(
    chunks: &[(S, f64)],
    selection: &Selection<'_>,
    options: &SelectOptions,
    counter: &C,
) {
    if options.keep_scanning() || selection.chunks.len() > 8 {
        return;
    }
    if let Some(whole) = with_cut_chunk_whole(chunks, selection, options.separator()) {
        let tokens = counter.count(&whole);
        assert!(
            tokens > selection.budget,
            "cut although the whole chunk fits: {tokens} <= {} in {selection:?}",
            selection.budget
        );
    }
}

#[test]
fn a_chunk_that_fits_whole_in_the_joined_text_is_not_cut() {
    // Byte-pair counts of the pieces add up to more than the count of their join:
    // the 19 best chunks and their separators sum to 4,008 tokens, but their join
    // counts 3,992. With a budget of 4,000 the 19th chunk was cut to 112 of its 137
    // tokens although it fits whole.
    let bpe = o200k();
    let chunks = ranked_chunks(MARKDOWN, 1_000, bpe);
    let options = SelectOptions::new();
    for budget in (3_990..=4_010).chain([4_096, 4_295, 32_768]) {
        let selection = select(&chunks, budget, bpe, &options);
        check(&chunks, &selection, budget, bpe);
        if let Some(whole) = with_cut_chunk_whole(&chunks, &selection, options.separator()) {
            let tokens = bpe.count(&whole);
            assert!(
                tokens > budget,
                "budget {budget}: chunk {} cut to {} tokens, but the whole chunk fits ({tokens} tokens joined)",
                selection.chunks.last().map_or(0, |c| c.index),
                selection.tokens,
            );
        }
    }
    let selection = select(&chunks, 4_000, bpe, &options);
    let stats = selection.stats();
    assert_eq!((stats.used, stats.cut, stats.tokens), (19, 0, 3_992));
    assert_eq!(selection.chunks[18].tokens, 137);
}

#[test]
fn rounding_of_the_pieces_does_not_cut_a_chunk_that_fits() {
    // Alone "a", " " and "b" cost 1 token each, but "a b" costs 1.
    let chunks = [("a", 1.0), ("b", 0.5)];
    let options = SelectOptions::new().with_separator(" ");
    let selection = select(&chunks, 1, &CharEstimate, &options);
    assert_eq!(selection.text(), "a b");
    assert_eq!((selection.tokens, selection.stats().used), (1, 2));
    // The same when the piece sum says the budget is already full.
    let chunks = [("abcd", 1.0), ("ef", 0.5), ("gh", 0.4)];
    let selection = select(&chunks, 2, &CharEstimate, &options);
    assert_eq!(selection.text(), "abcd ef");
    // And when scanning: the small chunk after one that does not fit.
    let chunks = [("abcd", 1.0), ("a much longer chunk", 0.5), ("ef", 0.4)];
    let scanning = options.with_keep_scanning(true);
    let selection = select(&chunks, 2, &CharEstimate, &scanning);
    assert_eq!(selection.text(), "abcd ef");
}

#[test]
fn blank_chunks_are_counted_and_do_not_make_a_selection_incomplete() {
    let chunks = [
        ("   \n".to_owned(), 9.0),
        ("alpha beta".to_owned(), 1.0),
        (String::new(), 8.0),
        ("gamma".to_owned(), 0.5),
    ];
    let options = SelectOptions::new().with_min_partial(0);
    let all = select(&chunks, 100, &words, &options);
    check(&chunks, &all, 100, &words);
    let stats = all.stats();
    assert_eq!(
        (
            stats.given,
            stats.used,
            stats.dropped,
            stats.blank,
            stats.cut
        ),
        (4, 2, 2, 2, 0)
    );
    // Every chunk that has text was kept whole.
    assert!(all.is_complete());
    assert_eq!(all.dropped(), [0, 2]);
    // One word short: "gamma" is dropped.
    let short = select(&chunks, 2, &words, &options);
    assert_eq!(short.text(), "alpha beta");
    assert!(!short.is_complete());
    // Cut: not complete either.
    let long = [("alpha beta gamma delta".to_owned(), 1.0)];
    let cut = select(
        &long,
        2,
        &words,
        &SelectOptions::new().with_min_partial(0).with_marker(""),
    );
    assert_eq!((cut.text().as_ref(), cut.stats().cut), ("alpha beta", 1));
    assert!(!cut.is_complete());
    // No chunks, or only blank ones: complete, with nothing chosen.
    let none: [(String, f64); 0] = [];
    assert!(select(&none, 0, &words, &options).is_complete());
    let blank = [(" ".to_owned(), 1.0), ("\n\t".to_owned(), 2.0)];
    let selection = select(&blank, 0, &words, &options);
    assert!(selection.is_complete() && selection.is_empty());
    assert_eq!(selection.stats().blank, 2);
}

proptest! {
    /// When the `k` best chunks joined fit the budget exactly, all `k` are kept whole,
    /// however much their pieces' counts add up to (for counters whose count never
    /// shrinks as text is added, and `k` up to the 8 joined counts a call may make).
    #[test]
    fn best_chunks_that_fit_together_are_kept_whole(
        texts in prop::collection::vec(text(), 1..12),
        k in 1usize..=8,
        use_words in any::<bool>(),
        options in options(),
    ) {
        let counter: &dyn TokenCounter = if use_words { &words } else { &CharEstimate };
        // Distinct falling scores: the rank order is the input order.
        let chunks: Vec<(String, f64)> = texts
            .into_iter()
            .filter(|t| !t.trim().is_empty())
            .zip(0u32..)
            .map(|(t, i)| (t, -f64::from(i)))
            .collect();
        let k = k.min(chunks.len());
        let best: Vec<&str> = chunks[..k].iter().map(|(t, _)| t.as_str()).collect();
        let budget = counter.count(&best.join(options.separator()));
        let selection = select(&chunks, budget, counter, &options);
        check(&chunks, &selection, budget, counter);
        let kept: Vec<&str> = selection.chunks.iter().take(k).map(|c| c.text).collect();
        prop_assert_eq!(kept, best, "budget {}: {:?}", budget, selection);
    }
}

#[test]
fn the_count_made_from_the_last_exact_count_is_the_count_of_the_text() {
    // With o200k the final count is made from the last exact count on (the text
    // before the last split point of the anchored chunk is not counted again): it must
    // still be the count of the whole text, with and without a cut chunk, scanning
    // or not.
    let bpe = o200k();
    for (text, count) in [(MARKDOWN, 300), (PROSE, 300)] {
        let chunks = ranked_chunks(text, count, bpe);
        for scanning in [false, true] {
            let options = SelectOptions::new().with_keep_scanning(scanning);
            for budget in (250..6_000).step_by(233) {
                let selection = select(&chunks, budget, bpe, &options);
                assert_eq!(
                    selection.tokens,
                    bpe.count(&selection.text()),
                    "budget {budget}"
                );
                assert!(selection.tokens <= budget);
            }
        }
    }
}
