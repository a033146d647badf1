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
    let counter = Tiktoken::new(encoding);
    let count = expected.len();
    assert_eq!(counter.count(text), count, "{encoding}");
    assert_eq!(counter.count_within(text, count), Some(count), "{encoding}");
    if let Some(less) = count.checked_sub(1) {
        assert_eq!(counter.count_within(text, less), None, "{encoding}");
    }
}

/// The three corpus files whole (the shipped fixtures when the corpus is not
/// there) and the multilingual fixture.
#[test]
fn the_corpus_has_the_same_tokens() {
    let mut texts: Vec<String> = FIXTURES
        .iter()
        .map(|(_, text)| (*text).to_owned())
        .collect();
    texts.extend(
        ["prose.txt", "markdown.md", "code.txt"]
            .into_iter()
            .filter_map(corpus),
    );
    for text in &texts {
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            assert_same(encoding, text);
        }
    }
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
