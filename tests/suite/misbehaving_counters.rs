//! Counters that break the `TokenCounter` contract: split points out of range, off
//! a char boundary, backwards or where counts do not add up, counts that are not
//! additive or not monotone, and pieces that cost `usize::MAX`. Trimming and
//! `count_within` must never panic or hang on them, must return sub-slices on char
//! boundaries, and must report the counter's own count of what they return.

use std::cell::Cell;

use ctxbudget::{Keep, TokenCounter, TrimOptions, trim::Trimmed, trim_with};
use proptest::prelude::*;

/// How a [`Misbehaving`] counter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    /// Whitespace-separated words: monotone, and additive at whitespace.
    Words,
    /// Words squared: monotone, far from additive.
    WordsSquared,
    /// `usize::MAX` for a text with a `z` in it, else its bytes: monotone, with
    /// sums that overflow.
    MaxWithZ,
    /// `chars / 4` plus 0 to 2 from a hash of the text: neither additive nor
    /// monotone, but close to both.
    Jitter,
    /// `usize::MAX` for one text in five (by hash), else its chars.
    MaxByHash,
    /// A hash of the text modulo 8: no structure at all.
    Chaos,
}

impl Count {
    const ALL: [Count; 6] = [
        Count::Words,
        Count::WordsSquared,
        Count::MaxWithZ,
        Count::Jitter,
        Count::MaxByHash,
        Count::Chaos,
    ];

    /// Whether a longer prefix or suffix never costs less.
    fn is_monotone(self) -> bool {
        matches!(self, Count::Words | Count::WordsSquared | Count::MaxWithZ)
    }
}

/// Which split points a [`Misbehaving`] counter declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Splits {
    /// None (the trait's default).
    None,
    /// Before every whitespace character after a non-whitespace one: true for
    /// [`Count::Words`], a lie for the others.
    Whitespace,
    /// Any offset at all, chosen by a hash of the question: out of range,
    /// `usize::MAX`, off a char boundary, backwards, equal to `from`, or plausible.
    Lying,
}

/// A counter that misbehaves as configured, and panics once it has been asked
/// `calls_left` questions, so that a hang shows up as a failure.
#[derive(Debug)]
struct Misbehaving {
    count: Count,
    splits: Splits,
    seed: u64,
    calls_left: Cell<usize>,
}

impl Misbehaving {
    /// Enough questions for any trim of the small texts here; a loop without a
    /// bound runs out of them at once.
    const CALLS: usize = 20_000;

    fn new(count: Count, splits: Splits, seed: u64) -> Self {
        Misbehaving {
            count,
            splits,
            seed,
            calls_left: Cell::new(Self::CALLS),
        }
    }

    fn tick(&self) {
        let left = self.calls_left.get();
        assert!(left > 0, "{self:?}: too many calls, a loop does not end");
        self.calls_left.set(left - 1);
    }

    fn hash(&self, text: &str, extra: usize) -> u64 {
        // FNV-1a over the seed, the text and `extra`.
        let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ self.seed;
        for &byte in text.as_bytes().iter().chain(&(extra as u64).to_le_bytes()) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        hash
    }

    /// The lying answer to a split point question about `text` near `at`.
    fn lie(&self, text: &str, at: usize, forward: bool) -> Option<usize> {
        let hash = self.hash(text, at);
        let len = text.len();
        let small = usize::try_from(hash >> 32).unwrap_or(0) % 16;
        match hash % 10 {
            0 => None,
            1 => Some(usize::MAX),
            2 => Some(len + 1 + small),
            3 => Some(at),
            4 => Some(at.saturating_sub(1 + small)),
            5 => Some(at + 1 + small),
            6 => (0..=len).find(|&i| i >= at && !text.is_char_boundary(i)),
            7 => Some(0),
            8 => Some(usize::try_from(hash >> 40).unwrap_or(0) % (len + 3)),
            _ => {
                if forward {
                    whitespace_split_after(text, at)
                } else {
                    whitespace_split_before(text, at)
                }
            }
        }
    }
}

/// The first offset `>= from`, strictly inside `text`, of a whitespace character
/// after a non-whitespace one.
fn whitespace_split_after(text: &str, from: usize) -> Option<usize> {
    text.char_indices()
        .skip_while(|&(i, _)| i < from)
        .find(|&(i, c)| i > 0 && c.is_whitespace() && !text[..i].ends_with(char::is_whitespace))
        .map(|(i, _)| i)
}

/// The last such offset `< before`.
fn whitespace_split_before(text: &str, before: usize) -> Option<usize> {
    text.char_indices()
        .take_while(|&(i, _)| i < before)
        .filter(|&(i, c)| i > 0 && c.is_whitespace() && !text[..i].ends_with(char::is_whitespace))
        .last()
        .map(|(i, _)| i)
}

impl TokenCounter for Misbehaving {
    fn count(&self, text: &str) -> usize {
        self.tick();
        let words = text.split_whitespace().count();
        match self.count {
            Count::Words => words,
            Count::WordsSquared => words * words,
            Count::MaxWithZ if text.contains('z') => usize::MAX,
            Count::MaxWithZ => text.len(),
            Count::Jitter => {
                text.chars().count().div_ceil(4) + usize::try_from(self.hash(text, 0) % 3).unwrap()
            }
            Count::MaxByHash if self.hash(text, 1) % 5 == 0 => usize::MAX,
            Count::MaxByHash => text.chars().count(),
            Count::Chaos => usize::try_from(self.hash(text, 2) % 8).unwrap(),
        }
    }

    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        self.tick();
        match self.splits {
            Splits::None => None,
            Splits::Whitespace => whitespace_split_after(text, from),
            Splits::Lying => self.lie(text, from, true),
        }
    }

    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        self.tick();
        match self.splits {
            Splits::None => None,
            Splits::Whitespace => whitespace_split_before(text, before),
            Splits::Lying => self.lie(text, before, false),
        }
    }
}

/// Checks what a result promises for any counter, and for a monotone one that it
/// fits.
fn check(
    text: &str,
    budget: usize,
    counter: &dyn TokenCounter,
    monotone: bool,
    options: &TrimOptions,
    result: &Trimmed<'_>,
) -> Result<(), TestCaseError> {
    let range = result.kept_range.clone();
    prop_assert!(range.start <= range.end && range.end <= text.len());
    prop_assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
    prop_assert_eq!(&text[range.clone()], result.kept);
    match options.kept_part() {
        Keep::Head => prop_assert!(range.start == 0 && result.tail.is_none()),
        Keep::Tail => prop_assert!(range.end == text.len() && result.tail.is_none()),
        Keep::HeadAndTail => {
            prop_assert_eq!(range.start, 0);
            if let Some(tail) = result.tail {
                prop_assert!(text.ends_with(tail));
                prop_assert!(range.end + tail.len() <= text.len(), "the parts overlap");
            }
        }
    }
    if !result.cut {
        prop_assert_eq!(result.kept, text);
    }
    let rendered = result.text();
    prop_assert_eq!(
        result.tokens,
        counter.count(&rendered),
        "the counter's own count"
    );
    if options.hard_limit() && (!rendered.is_empty() || monotone) {
        prop_assert!(
            result.tokens <= budget,
            "{} tokens over the budget {budget}",
            result.tokens
        );
    }
    Ok(())
}

/// A closure counter with split points, and a cap on the calls it answers.
struct Custom<F, N, P> {
    count: F,
    next: N,
    prev: P,
    calls_left: Cell<usize>,
}

impl<F, N, P> Custom<F, N, P>
where
    F: Fn(&str) -> usize,
    N: Fn(&str, usize) -> Option<usize>,
    P: Fn(&str, usize) -> Option<usize>,
{
    fn new(count: F, next: N, prev: P, calls: usize) -> Self {
        Custom {
            count,
            next,
            prev,
            calls_left: Cell::new(calls),
        }
    }

    fn tick(&self) {
        let left = self.calls_left.get();
        assert!(left > 0, "too many calls: a loop does not end");
        self.calls_left.set(left - 1);
    }
}

impl<F, N, P> TokenCounter for Custom<F, N, P>
where
    F: Fn(&str) -> usize,
    N: Fn(&str, usize) -> Option<usize>,
    P: Fn(&str, usize) -> Option<usize>,
{
    fn count(&self, text: &str) -> usize {
        self.tick();
        (self.count)(text)
    }
    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        self.tick();
        (self.next)(text, from)
    }
    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        self.tick();
        (self.prev)(text, before)
    }
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn no_split(_: &str, _: usize) -> Option<usize> {
    None
}

/// Every kept part, with a hard limit and without.
fn every_mode() -> Vec<TrimOptions> {
    let mut modes = Vec::new();
    for keep in [Keep::Head, Keep::Tail, Keep::HeadAndTail] {
        for hard_limit in [true, false] {
            modes.push(TrimOptions::new().keep(keep).with_hard_limit(hard_limit));
        }
    }
    modes
}

/// Checks a result of [`Custom`] counter after refilling its calls.
fn check_custom<F, N, P>(
    text: &str,
    budget: usize,
    counter: &Custom<F, N, P>,
    monotone: bool,
    options: &TrimOptions,
    result: &Trimmed<'_>,
) where
    F: Fn(&str) -> usize,
    N: Fn(&str, usize) -> Option<usize>,
    P: Fn(&str, usize) -> Option<usize>,
{
    counter.calls_left.set(usize::MAX);
    if let Err(error) = check(text, budget, counter, monotone, options, result) {
        panic!("{options:?}, budget {budget}: {error}\n{result:?}");
    }
}

/// `count_within` used to loop for ever when `next_split` answered at or before
/// the start of the piece it was walking.
#[test]
fn count_within_ends_when_split_points_go_backwards() {
    let text = "word ".repeat(200);
    let backwards: [fn(&str, usize) -> Option<usize>; 2] = [
        |_, _| Some(0),
        // The step is 64 bytes for a small limit: back to the piece's start.
        |_, from| Some(from.saturating_sub(64)),
    ];
    for next in backwards {
        for limit in [0, 10, 199, 200, 1_000] {
            let counter = Custom::new(words, next, no_split, 10_000);
            let expected = (200 <= limit).then_some(200);
            assert_eq!(
                counter.count_within(&text, limit),
                expected,
                "limit {limit}"
            );
        }
    }
}

/// `count_within` used to slice the text at split points out of range or inside
/// a char, and panic.
#[test]
fn count_within_ignores_split_points_out_of_range_or_inside_a_char() {
    let text = "é ".repeat(300);
    let answers: [fn(&str, usize) -> Option<usize>; 3] = [
        |_, _| Some(usize::MAX),
        |text, _| Some(text.len() + 1),
        // Inside the `é` at or after `from`.
        |text, from| (from..text.len()).find(|&at| !text.is_char_boundary(at)),
    ];
    for next in answers {
        for limit in [0, 50, 299, 300, 10_000] {
            let counter = Custom::new(words, next, no_split, 10_000);
            let expected = (300 <= limit).then_some(300);
            assert_eq!(
                counter.count_within(&text, limit),
                expected,
                "limit {limit}"
            );
        }
    }
}

/// `count_within` used to return the sum of the pieces' counts, which is not the
/// count of the text when the split points do not add up.
#[test]
fn count_within_returns_the_count_of_the_whole_text() {
    // Eight bytes a token, rounded down: pieces lose their remainders.
    let text = "abcde ".repeat(200);
    let counter = Custom::new(
        |text: &str| text.len() / 8,
        whitespace_split_after,
        whitespace_split_before,
        10_000,
    );
    assert_eq!(counter.count_within(&text, 200), Some(150));
    assert_eq!(counter.count_within(&text, 149), None);
}

/// The trimming engine used to overflow (`usize::MAX` answers) or slice inside a
/// char (answers off a char boundary), and panic.
#[test]
fn trimming_ignores_split_points_out_of_range_or_inside_a_char() {
    let text = "éé ".repeat(700);
    let answers: [fn(&str, usize) -> Option<usize>; 4] = [
        |_, _| Some(usize::MAX),
        |text, _| Some(text.len() + 7),
        |text, at| (at..text.len()).find(|&i| !text.is_char_boundary(i)),
        |text, at| {
            (0..at.min(text.len()))
                .rev()
                .find(|&i| !text.is_char_boundary(i))
        },
    ];
    for next in answers {
        for prev in answers {
            for options in every_mode() {
                for budget in [0, 1, 10, 100, 699, 700, usize::MAX] {
                    let counter = Custom::new(words, next, prev, 20_000);
                    let result = trim_with(&text, budget, &counter, &options);
                    check_custom(&text, budget, &counter, true, &options, &result);
                }
            }
        }
    }
}

/// A piece that costs `usize::MAX` used to overflow the sums of the walk.
#[test]
fn pieces_that_cost_usize_max_do_not_overflow() {
    let text = format!("{}z {}", "a ".repeat(100), "b ".repeat(100));
    let counter = Custom::new(
        |text: &str| {
            if text.contains('z') {
                usize::MAX
            } else {
                words(text)
            }
        },
        whitespace_split_after,
        whitespace_split_before,
        20_000,
    );
    for options in every_mode() {
        for budget in [1, 150, usize::MAX - 1, usize::MAX] {
            counter.calls_left.set(20_000);
            let result = trim_with(&text, budget, &counter, &options);
            check_custom(&text, budget, &counter, true, &options, &result);
        }
    }
    counter.calls_left.set(20_000);
    let result = trim_with(&text, 150, &counter, &TrimOptions::new());
    assert_eq!((result.kept, result.tokens), (text[..199].trim_end(), 100));
}

/// With split points that do not add up, the report used to be the sum of the
/// pieces' counts, and the text came back whole, over the budget.
#[test]
fn the_report_is_the_counters_own_count_when_split_points_lie() {
    // Words squared, with the split points of a word count: every piece costs 1.
    let text = "a b c d e f g h i j";
    let counter = Custom::new(
        |text: &str| words(text).pow(2),
        whitespace_split_after,
        whitespace_split_before,
        20_000,
    );
    let head = trim_with(text, 30, &counter, &TrimOptions::new());
    assert_eq!((head.kept, head.tokens), ("a b c d e", 25));
    let tail = trim_with(text, 30, &counter, &TrimOptions::new().keep(Keep::Tail));
    assert_eq!((tail.kept, tail.tokens), ("f g h i j", 25));
    for options in every_mode() {
        for budget in [0, 1, 4, 30, 99, 100] {
            counter.calls_left.set(20_000);
            let result = trim_with(text, budget, &counter, &options);
            check_custom(text, budget, &counter, true, &options, &result);
        }
    }
}

/// Head and tail used to overflow with counts that saturate (in a release build
/// the sums wrapped, and the tail's budget then shrank by one token a round from
/// about `2^63`: a hang).
#[test]
fn head_and_tail_ends_when_counts_saturate() {
    // Found by a property test.
    let text = "a\n\naaaaaa aaaaaa\na\na a\na\naa  aaa  a a a\na\na a a aaa  a a a\na \n\
        aaaaaaaa  a a\naaaaaaaa\na a\na\na\na\na aaaaaa a aaaaaaa\na\naaa\n! aaaaaa\n\
        ? aaaaaa\n\na ? ! a\na ? aaaaa\n\na\n! aaaaaa\na aaaaa \na\naaaaaaaa  aaaaa\n\n\
        aaa a\naaa \n\n\n\n\n\n\n\n\n\n\n";
    let counter = Custom::new(
        |text: &str| words(text).saturating_mul(1 << 60),
        whitespace_split_after,
        whitespace_split_before,
        20_000,
    );
    let options = TrimOptions::new().keep(Keep::HeadAndTail);
    for budget in [usize::MAX - 1, usize::MAX / 2, 1 << 62] {
        counter.calls_left.set(20_000);
        let result = trim_with(text, budget, &counter, &options);
        check_custom(text, budget, &counter, true, &options, &result);
        assert!(result.tail.is_some(), "budget {budget}: {result:?}");
    }
}

/// Head and tail used to give the tail one token less a round for as long as the
/// joined text was over, here about a thousand rounds.
#[test]
fn head_and_tail_bounds_its_rounds() {
    // Any text longer than the marker that contains it is one token over.
    let count = |text: &str| {
        if text.contains('…') && text.len() > TrimOptions::DEFAULT_ELISION.len() {
            2_001
        } else {
            words(text)
        }
    };
    let text = "w ".repeat(4_000);
    let counter = Custom::new(count, no_split, no_split, 3_000);
    let options = TrimOptions::new().keep(Keep::HeadAndTail);
    let result = trim_with(&text, 2_000, &counter, &options);
    check_custom(&text, 2_000, &counter, false, &options, &result);
    assert_eq!(result.tail, None, "only the head fits: {result:?}");
}

/// A chunk that was over the budget used to be retried as long as it got shorter,
/// by a byte at a time with split points placed just so: thousands of counts of
/// kilobytes each.
#[test]
fn a_chunk_over_the_budget_is_retried_a_bounded_number_of_times() {
    // One token a byte (so any offset is a true split point), and the split point
    // always next to the far end of the stretch asked about, so that each retry
    // is one or two bytes shorter than the last.
    let text = "a".repeat(40_000);
    for keep in [Keep::Head, Keep::Tail] {
        let counter = Custom::new(
            str::len,
            |text: &str, _| Some(text.len() - 2),
            |_, _| Some(1),
            200,
        );
        let options = TrimOptions::new().keep(keep);
        let result = trim_with(&text, 10_000, &counter, &options);
        check_custom(&text, 10_000, &counter, true, &options, &result);
        assert_eq!(result.tokens, 10_000);
    }
}

/// A cut that is over the budget used to step back one boundary a round, so a
/// counter far from monotone cost a round (and a count) per word.
#[test]
fn a_counter_far_from_monotone_costs_few_rounds() {
    // The whole text is over; so is every part that ends a word, unless short;
    // the other parts cost 1. The search finds a long part that fits, and every
    // cut before it is over until the first 3,000 bytes.
    let text = "ab ".repeat(20_000);
    let len = text.len();
    let count = move |part: &str| match part.len() {
        n if n == len => 10,
        n if n > 3_000 && part.ends_with('b') => usize::MAX,
        _ => 1,
    };
    for keep in [Keep::Head, Keep::Tail] {
        let counter = Custom::new(count, no_split, no_split, 400);
        let options = TrimOptions::new().keep(keep);
        let result = trim_with(&text, 5, &counter, &options);
        check_custom(&text, 5, &counter, false, &options, &result);
    }
}

/// Short texts with words, line breaks, sentence ends, multi-byte characters and
/// the `z` that [`Count::MaxWithZ`] prices at `usize::MAX`; now and then a text
/// long enough for the search inside stretches without split points.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "([a-y]{1,8}[ \n]{1,2}|z|é|日本|[.!?] |\n\n|👨\u{200d}👩){0,24}",
        2 => any::<String>().prop_map(|text| text.chars().take(40).collect()),
        1 => ("[a-y]{1,8}( [a-y]{1,8}){0,3}", 100usize..500)
            .prop_map(|(unit, repeat)| format!("{unit} ").repeat(repeat)),
        1 => ("[a-yé]{1,3}", 500usize..1500).prop_map(|(unit, repeat)| unit.repeat(repeat)),
    ]
}

fn counter() -> impl Strategy<Value = Misbehaving> {
    (
        proptest::sample::select(Count::ALL.to_vec()),
        prop_oneof![
            Just(Splits::None),
            Just(Splits::Whitespace),
            Just(Splits::Lying)
        ],
        any::<u64>(),
    )
        .prop_map(|(count, splits, seed)| Misbehaving::new(count, splits, seed))
}

fn options() -> impl Strategy<Value = TrimOptions> {
    (
        prop_oneof![Just(Keep::Head), Just(Keep::Tail), Just(Keep::HeadAndTail)],
        prop_oneof![4 => Just(true), 1 => Just(false)],
        prop_oneof![Just(0.8), 0.0f64..=1.0],
        prop_oneof![Just("\n[…]\n"), Just(""), Just(" zz ")],
    )
        .prop_map(|(keep, hard_limit, min_fill, elision)| {
            TrimOptions::new()
                .keep(keep)
                .with_hard_limit(hard_limit)
                .with_min_fill(min_fill)
                .with_elision(elision)
        })
}

fn budget() -> impl Strategy<Value = usize> {
    prop_oneof![
        8 => 0usize..80,
        1 => 80usize..5_000,
        1 => Just(usize::MAX),
        1 => Just(usize::MAX - 1),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn trimming_survives_any_counter(
        text in text(),
        budget in budget(),
        counter in counter(),
        options in options(),
    ) {
        let result = trim_with(&text, budget, &counter, &options);
        counter.calls_left.set(Misbehaving::CALLS);
        check(&text, budget, &counter, counter.count.is_monotone(), &options, &result)?;
    }

    #[test]
    fn count_within_survives_any_counter(
        text in text(),
        limit in budget(),
        counter in counter(),
    ) {
        let within = counter.count_within(&text, limit);
        counter.calls_left.set(Misbehaving::CALLS);
        let count = counter.count(&text);
        if let Some(tokens) = within {
            prop_assert_eq!(tokens, count, "the counter's own count");
            prop_assert!(tokens <= limit);
        }
        if counter.splits != Splits::Lying && counter.count == Count::Words {
            // Honest split points: exactly the contract.
            prop_assert_eq!(within, (count <= limit).then_some(count));
        }
    }
}
