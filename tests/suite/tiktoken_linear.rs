//! The linear engine behind `Tiktoken` (`bpe-openai` for `o200k_base` and
//! `cl100k_base`) against `tiktoken-rs`, the source of the vocabularies and the
//! oracle: the same token ids and counts on the corpus and on the worst cases of a
//! byte-pair tokenizer, and `count_within` that agrees with `count`.

use ctxbudget::{Tiktoken, TokenCounter, count::Encoding};
use ctxbudget_tests::shapes::{NAMES, shape};
use ctxbudget_tests::{FIXTURES, corpus, floor_char_boundary};
use proptest::prelude::*;
use tiktoken_rs::CoreBPE;

fn oracle(encoding: Encoding) -> &'static CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
        _ => tiktoken_rs::r50k_base_singleton(),
    }
}

fn linear(encoding: Encoding) -> Option<&'static bpe_openai::Tokenizer> {
    match encoding {
        Encoding::O200kBase => Some(bpe_openai::o200k_base()),
        Encoding::Cl100kBase => Some(bpe_openai::cl100k_base()),
        _ => None,
    }
}

const ENCODINGS: [Encoding; 4] = [
    Encoding::O200kBase,
    Encoding::Cl100kBase,
    Encoding::P50kBase,
    Encoding::R50kBase,
];

/// Token ids of the linear engine, and counts and bounded counts of `Tiktoken`,
/// all equal to `tiktoken-rs`'s.
fn assert_same(encoding: Encoding, text: &str) {
    let expected = oracle(encoding).encode_ordinary(text);
    if let Some(tokenizer) = linear(encoding) {
        assert!(
            tokenizer.encode(text) == expected,
            "{encoding}: token ids differ on {:?}",
            &text[..floor_char_boundary(text, 200)]
        );
    }
    assert_counts(encoding, text, expected.len());
}

/// `Tiktoken`'s count of `text` is `count`, and its bounded count finds it at
/// `count` and not one below.
fn assert_counts(encoding: Encoding, text: &str, count: usize) {
    let counter = Tiktoken::new(encoding);
    assert_eq!(
        counter.count(text),
        count,
        "{encoding} on {:?}",
        &text[..floor_char_boundary(text, 200)]
    );
    assert_eq!(counter.count_within(text, count), Some(count), "{encoding}");
    if let Some(less) = count.checked_sub(1) {
        assert_eq!(counter.count_within(text, less), None, "{encoding}");
    }
}

/// The fixtures and the three corpus files whole (when the corpus is there).
fn corpus_and_fixtures() -> Vec<String> {
    let mut texts: Vec<String> = FIXTURES
        .iter()
        .map(|(_, text)| (*text).to_owned())
        .collect();
    texts.extend(
        ["prose.txt", "markdown.md", "code.txt"]
            .into_iter()
            .filter_map(corpus),
    );
    texts
}

/// The three corpus files whole (the shipped fixtures when the corpus is not
/// there) and the multilingual fixture.
#[test]
fn the_corpus_has_the_same_tokens() {
    let texts = corpus_and_fixtures();
    for text in &texts {
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            assert_same(encoding, text);
        }
    }
}

/// `Tiktoken`'s count, and its bounded count, equal to `bpe-openai`'s own `count`
/// (its pre-tokenizer and backtracking encoder for every piece): what `Tiktoken`
/// does faster (ASCII pieces cut by a byte scan, a piece that is one token by one
/// lookup, a short piece by the merge loop) must not change a count.
fn assert_as_bpe_openai(text: &str) {
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let Some(tokenizer) = linear(encoding) else {
            continue;
        };
        assert_counts(encoding, text, tokenizer.count(text));
    }
}

/// The corpus, the fixtures and the worst cases of the fast path: long runs of one
/// letter, CJK, emoji ZWJ sequences, runs of whitespace and of digits, contractions
/// and case changes, each alone and glued to the others.
#[test]
fn the_fast_path_counts_as_bpe_openai_on_corpus_and_worst_cases() {
    let mut texts = corpus_and_fixtures();
    let units = [
        "a".repeat(5000),
        "Z".repeat(777),
        "日本語中文字漢".repeat(300),
        "👨\u{200d}👩\u{200d}👧👩\u{200d}❤\u{fe0f}\u{200d}👨🏳\u{fe0f}\u{200d}🌈".repeat(100),
        " ".repeat(1000),
        "\n".repeat(300),
        " \t\r\n\u{a0}\u{3000}\u{85}\x0b\x0c".repeat(50),
        "0123456789".repeat(200),
        "it's I'LL we'Re THEY'VE x'ſ HELLOworld helloWorld ǅa éa a\u{301} 1२3".to_owned(),
    ];
    for (i, unit) in units.iter().enumerate() {
        texts.push(unit.clone());
        let next = &units[(i + 1) % units.len()];
        texts.push(format!("{unit}{next}x{unit} {next}"));
    }
    for text in &texts {
        assert_as_bpe_openai(text);
    }
}

/// ASCII of every class and the non-ASCII characters beside the byte scan's
/// decisions (letters, marks, digits, spaces, a long `s` after an apostrophe).
fn near_ascii() -> impl Strategy<Value = String> {
    let unit = prop_oneof![
        "[\\x00-\\x7f]{1,12}",
        "[a-zA-Z]{1,12}",
        "[0-9]{1,7}",
        "[ \\t\\n\\r\\x0b\\x0c]{1,6}",
        "'[sStTmMdDrRvVlLeE]{1,2}",
        "[éÉ\u{301}ǅſ日٣२\u{a0}\u{3000}\u{85}👍\u{200d}·]",
    ];
    prop::collection::vec(unit, 1..16).prop_map(|units| units.concat())
}

/// Every shape of the benches, 64 KB of each (tiktoken-rs is super-linear on the
/// long pieces of some of them), in all four encodings.
#[test]
fn every_shape_has_the_same_tokens() {
    for name in NAMES {
        let text = shape(name, 64 * 1024);
        for encoding in ENCODINGS {
            assert_same(encoding, &text);
        }
    }
}

/// Pieces of the worst cases and of real text, mixed.
fn adversarial() -> impl Strategy<Value = String> {
    let unit = prop_oneof![
        "a{1,600}",
        "[日本語中文字漢]{1,300}",
        "(👨\u{200d}👩\u{200d}👧|👩\u{200d}❤\u{fe0f}\u{200d}👨|🏳\u{fe0f}\u{200d}🌈|👋🏾|🇯🇵){1,40}",
        "[A-Za-z0-9+/]{1,400}",
        "[A-Za-z0-9]{1,400}",
        "[ \t\n\r\u{a0}\u{3000}]{1,12}",
        "[a-zA-Z]{1,12}('s|'ll|’s)?",
        "[0-9]{1,9}",
        "[.,!?;:()\\[\\]{}<>\"'/\\\\|~`@#$%^&*=_+-]{1,6}",
        "(e\u{301}|x\u{308}|क\u{94d}ष|\u{903})",
        "<\\|endoftext\\|>",
    ];
    prop::collection::vec(unit, 1..12).prop_map(|units| units.concat())
}

/// A slice of a fixture, on char boundaries.
fn real_slice() -> impl Strategy<Value = String> {
    (0usize..4, 0usize..32_000, 0usize..3_000).prop_map(|(fixture, start, len)| {
        let text = FIXTURES[fixture].1;
        let start = floor_char_boundary(text, start.min(text.len()));
        let end = floor_char_boundary(text, (start + len).min(text.len()));
        text[start..end].to_owned()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The same token ids and counts on arbitrary mixes of the worst cases and real
    /// text, in all four encodings.
    #[test]
    fn arbitrary_text_has_the_same_tokens(
        text in prop_oneof![adversarial(), real_slice(), any::<String>()],
        encoding in 0usize..4,
    ) {
        assert_same(ENCODINGS[encoding], &text);
    }

    /// `Tiktoken` counts as `bpe-openai` does on any string, in both linear
    /// encodings.
    #[test]
    fn the_fast_path_counts_as_bpe_openai_on_any_string(
        text in prop_oneof![any::<String>(), near_ascii(), adversarial(), real_slice()],
    ) {
        assert_as_bpe_openai(&text);
    }

    /// `count_within` is `Some(count)` exactly when the count is within the limit.
    #[test]
    fn count_within_agrees_with_count(
        text in prop_oneof![adversarial(), real_slice()],
        limit in 0usize..2_000,
        encoding in 0usize..4,
    ) {
        let counter = Tiktoken::new(ENCODINGS[encoding]);
        let count = counter.count(&text);
        prop_assert_eq!(counter.count_within(&text, limit), (count <= limit).then_some(count));
    }
}
