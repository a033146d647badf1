//! The exact counter: published counts, special tokens, model names, and the split
//! points the trimming engine relies on.

use ctxbudget::{Tiktoken, TokenCounter, count::Encoding};
use ctxbudget_tests::{
    CODE, FIXTURES, MARKDOWN, MULTILINGUAL, PROSE, floor_char_boundary, slice_around_split,
};
use proptest::prelude::*;

fn all_encodings() -> [Tiktoken; 4] {
    [
        Tiktoken::o200k_base(),
        Tiktoken::cl100k_base(),
        Tiktoken::p50k_base(),
        Tiktoken::r50k_base(),
    ]
}

/// The counts the OpenAI cookbook ("How to count tokens with tiktoken",
/// `compare_encodings`) publishes, which Python tiktoken's `encode` gives.
#[test]
fn published_counts_of_the_openai_cookbook() {
    let cases: [(&str, [usize; 4]); 4] = [
        // (text, [o200k_base, cl100k_base, p50k_base, r50k_base])
        ("tiktoken is great!", [6, 6, 6, 6]),
        ("antidisestablishmentarianism", [6, 6, 5, 5]),
        ("2 + 2 = 4", [7, 7, 5, 5]),
        ("お誕生日おめでとう", [8, 9, 14, 14]),
    ];
    for (text, expected) in cases {
        let got = all_encodings().map(|counter| counter.count(text));
        assert_eq!(got, expected, "{text:?}");
    }
}

/// Python tiktoken 0.14's `len(enc.encode_ordinary(text))` for 216 slices of the
/// fixtures and adversarial strings, in all four encodings, written by
/// `tests/fixtures/make_tiktoken_counts.py` (OpenAI's vocabulary files, Python's
/// implementation).
#[test]
fn counts_equal_python_tiktoken() {
    let expected: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/tiktoken_counts.json")).unwrap();
    let names: Vec<&str> = expected["encodings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    let counters = all_encodings();
    assert_eq!(names, counters.map(|c| c.encoding().name()));
    let fixture = |name: &str| match name {
        "markdown.md" => MARKDOWN,
        "prose.txt" => PROSE,
        "code.txt" => CODE,
        "multilingual.txt" => MULTILINGUAL,
        other => panic!("unknown fixture {other}"),
    };
    let cases = expected["cases"].as_array().unwrap();
    assert!(cases.len() > 200);
    for case in cases {
        let text = if let Some(text) = case["text"].as_str() {
            text
        } else {
            let whole = fixture(case["fixture"].as_str().unwrap());
            let start = usize::try_from(case["start"].as_u64().unwrap()).unwrap();
            let end = usize::try_from(case["end"].as_u64().unwrap()).unwrap();
            &whole[start..end]
        };
        for (counter, count) in counters.iter().zip(case["counts"].as_array().unwrap()) {
            let count = usize::try_from(count.as_u64().unwrap()).unwrap();
            assert_eq!(
                counter.count(text),
                count,
                "{:?} {text:?}",
                counter.encoding()
            );
        }
    }
}

#[test]
fn special_tokens_are_ordinary_text() {
    for counter in all_encodings() {
        for special in ["<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>"] {
            let tokens = counter.count(special);
            assert!(
                tokens > 1,
                "{:?} counted {special} as {tokens}",
                counter.encoding()
            );
        }
    }
}

#[test]
fn models_map_to_encodings() {
    let cases = [
        ("gpt-4o", Encoding::O200kBase),
        ("gpt-4o-mini", Encoding::O200kBase),
        ("gpt-5", Encoding::O200kBase),
        ("o3-mini", Encoding::O200kBase),
        ("gpt-4", Encoding::Cl100kBase),
        ("gpt-3.5-turbo", Encoding::Cl100kBase),
        ("text-embedding-3-small", Encoding::Cl100kBase),
        ("text-davinci-003", Encoding::P50kBase),
        ("davinci", Encoding::R50kBase),
        ("ft:gpt-4o-mini:acme::abc123", Encoding::O200kBase),
    ];
    for (model, encoding) in cases {
        let counter = Tiktoken::for_model(model).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(counter.encoding(), encoding, "{model}");
    }
}

#[test]
fn unknown_models_are_an_error_naming_them() {
    let error = Tiktoken::for_model("llama-3-70b").unwrap_err();
    assert_eq!(error.model, "llama-3-70b");
    let message = error.to_string();
    assert!(message.contains("`llama-3-70b`"), "{message}");
    assert!(
        message.contains("o200k_base"),
        "the message should say how to fix it: {message}"
    );
    assert!(Tiktoken::for_model("").is_err());
}

#[test]
fn counters_are_cheap_copies_of_one_vocabulary() {
    let first = Tiktoken::o200k_base();
    let second = first;
    assert_eq!(first, second);
    assert_eq!(first.count(PROSE), second.count(PROSE));
    assert_eq!(format!("{first:?}"), "Tiktoken { encoding: O200kBase, .. }");
}

/// Every split point of every fixture: the counts of the two sides add up.
#[test]
fn split_points_add_up_on_every_fixture() {
    for counter in all_encodings() {
        for (name, text) in FIXTURES {
            let text = &text[..text.len().min(2_000)];
            let text = &text[..floor_char_boundary(text, text.len())];
            let mut from = 0;
            let mut checked = 0;
            while let Some(at) = counter.next_split(text, from) {
                assert_eq!(
                    counter.count(text),
                    counter.count(&text[..at]) + counter.count(&text[at..]),
                    "{:?} {name} at {at}",
                    counter.encoding()
                );
                from = at + 1;
                checked += 1;
            }
            assert!(
                checked > 10 || name == "multilingual",
                "{name}: only {checked} split points"
            );
        }
    }
}

fn char_boundaries(text: &str) -> Vec<usize> {
    (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The contract of `TokenCounter::next_split`: for x < split < y,
    /// count(x..y) == count(x..split) + count(split..y).
    #[test]
    fn split_points_are_additive(
        fixture in 0usize..4,
        encoding in 0usize..4,
        start in 0usize..30_000,
        span in 1usize..400,
        cut in 0usize..400,
    ) {
        let text = [PROSE, MARKDOWN, CODE, MULTILINGUAL][fixture];
        let counter = all_encodings()[encoding];
        if let Some((x, split, y)) = slice_around_split(&counter, text, start, span, cut) {
            prop_assert_eq!(
                counter.count(&text[x..y]),
                counter.count(&text[x..split]) + counter.count(&text[split..y])
            );
        }
    }

    /// The same on arbitrary text made of letters, digits, punctuation and every
    /// kind of whitespace, where the pre-tokenizer's look-ahead matters most.
    #[test]
    fn split_points_are_additive_on_arbitrary_text(
        text in "[a-zA-Z0-9 \t\n\r\u{b}\u{85}.,'’!?+/\u{a0}\u{3000}é日本。、々〇\u{301}\u{903}क²½٣ⅷ👩\u{200d}\u{fe0f}-]{1,40}",
        encoding in 0usize..4,
    ) {
        let counter = all_encodings()[encoding];
        let mut from = 0;
        while let Some(at) = counter.next_split(&text, from) {
            for x in char_boundaries(&text).into_iter().filter(|&x| x < at) {
                for y in char_boundaries(&text).into_iter().filter(|&y| y > at) {
                    prop_assert_eq!(
                        counter.count(&text[x..y]),
                        counter.count(&text[x..at]) + counter.count(&text[at..y]),
                        "x {} at {} y {}", x, at, y
                    );
                }
            }
            from = at + 1;
        }
    }
}
