//! The Tekken counter: counts equal `mistral-common`'s, split points add up on real
//! and adversarial text, and bad files give errors that name them.

use std::io::Read;
use std::path::PathBuf;
use std::sync::LazyLock;

use ctxbudget::count::{Tekken, TokenizerFileError, TokenizerSource};
use ctxbudget::{Keep, TokenCounter, TrimOptions, trim_with};
use ctxbudget_tests::{
    CODE, FIXTURES, MARKDOWN, MULTILINGUAL, PROSE, floor_char_boundary, slice_around_split,
};
use proptest::prelude::*;
use serde_json::Value;

fn gunzip(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tokenizers")
        .join(name);
    let compressed = std::fs::read(path).unwrap();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

/// `tests/fixtures/tokenizers/tekken_counts.json`, written by
/// `tests/fixtures/make_tokenizer_counts.py` with `mistral-common` 1.13.
static EXPECTED: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../fixtures/tokenizers/tekken_counts.json")).unwrap()
});

/// The unmodified `tekken_240718.json` of `mistral-common` (Mistral Nemo's).
static FILE: LazyLock<Vec<u8>> = LazyLock::new(|| gunzip("tekken_240718.json.gz"));

static TEKKEN: LazyLock<Tekken> = LazyLock::new(|| Tekken::from_bytes(&*FILE).unwrap());

/// `mistral-common`'s `len(Tekkenizer.encode(text, bos=False, eos=False))` for 241
/// texts: slices of the fixtures and adversarial strings (special-looking text too).
#[test]
fn counts_equal_mistral_common() {
    assert_eq!(EXPECTED["file"], "tekken_240718.json.gz");
    let cases = EXPECTED["cases"].as_array().unwrap();
    assert!(cases.len() > 200);
    for case in cases {
        let text = if let Some(text) = case["text"].as_str() {
            text
        } else {
            let whole = match case["fixture"].as_str().unwrap() {
                "markdown.md" => MARKDOWN,
                "prose.txt" => PROSE,
                "code.txt" => CODE,
                "multilingual.txt" => MULTILINGUAL,
                other => panic!("unknown fixture {other}"),
            };
            let start = usize::try_from(case["start"].as_u64().unwrap()).unwrap();
            let end = usize::try_from(case["end"].as_u64().unwrap()).unwrap();
            &whole[start..end]
        };
        let expected = usize::try_from(case["count"].as_u64().unwrap()).unwrap();
        assert_eq!(TEKKEN.count(text), expected, "{text:?}");
    }
}

#[test]
fn the_file_describes_itself() {
    assert_eq!(TEKKEN.version(), "v3");
    assert_eq!(TEKKEN.vocab_size(), 131_072);
    assert!(TEKKEN.has_split_points());
    // Special tokens are ordinary text: `[INST]` is several tokens, never one.
    assert!(TEKKEN.count("[INST]") > 1);
    assert_eq!(TEKKEN.count(""), 0);
    let shown = format!("{:?}", *TEKKEN);
    assert_eq!(shown, r#"Tekken { version: "v3", vocab_size: 131072, .. }"#);
    let boxed: Box<Tekken> = Box::new(TEKKEN.clone());
    // `&Tekken` is a counter too.
    let by_ref: &dyn TokenCounter = &&*TEKKEN;
    assert_eq!(boxed.count("Bonjour"), by_ref.count("Bonjour"));
}

#[test]
fn split_points_add_up_on_every_fixture() {
    let counter = &*TEKKEN;
    for (name, text) in FIXTURES {
        let text = &text[..floor_char_boundary(text, 4_000)];
        let whole = counter.count(text);
        let mut from = 0;
        let mut checked = 0;
        while let Some(at) = counter.next_split(text, from) {
            assert_eq!(
                whole,
                counter.count(&text[..at]) + counter.count(&text[at..]),
                "{name} at {at}"
            );
            from = at + 1;
            checked += 1;
        }
        assert!(checked > 50, "{name}: only {checked} split points");
    }
}

#[test]
fn trimming_fits_the_budget() {
    for budget in [1, 10, 300, 2_500] {
        for keep in [Keep::Head, Keep::Tail] {
            let result = trim_with(MARKDOWN, budget, &*TEKKEN, &TrimOptions::new().keep(keep));
            assert!(result.tokens <= budget);
            assert_eq!(result.tokens, TEKKEN.count(result.kept));
        }
    }
}

/// The Tekken counter seen through a counter of the caller's: the same counts and
/// split points, without the linear engine, so trimming searches a long piece by
/// counting probes (the path every Tekken counter took before it had the engine).
struct Probes<'a>(&'a Tekken);

impl TokenCounter for Probes<'_> {
    fn count(&self, text: &str) -> usize {
        self.0.count(text)
    }
    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        self.0.next_split(text, from)
    }
    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        self.0.prev_split(text, before)
    }
    fn exactness(&self) -> ctxbudget::count::Exactness {
        self.0.exactness()
    }
}

/// The fast path against the probes on one text: the count it reports is the
/// counter's, within the budget, and it keeps what the probes keep, or at least as
/// many tokens (the probes stop once they meet the budget, maybe a token short of
/// the longest part) and at most the rest of a token fewer bytes.
fn assert_as_probes(text: &str, budget: usize, keep: Keep) {
    let options = TrimOptions::new().keep(keep);
    let fast = trim_with(text, budget, &*TEKKEN, &options);
    let slow = trim_with(text, budget, &Probes(&TEKKEN), &options);
    let what = || {
        format!(
            "{keep:?} {budget} of {} bytes {:?}",
            text.len(),
            &text[..floor_char_boundary(text, 40)]
        )
    };
    assert_eq!(fast.tokens, TEKKEN.count(fast.kept), "{}", what());
    assert!(fast.tokens <= budget, "{}", what());
    match keep {
        Keep::Tail => assert!(text.ends_with(fast.kept)),
        _ => assert!(text.starts_with(fast.kept)),
    }
    // The engine cuts at a token boundary of its encoding; the probes may find a
    // part that ends inside the next token and costs no more.
    let shortfall = slow.kept.len().saturating_sub(fast.kept.len());
    assert!(
        fast.tokens >= slow.tokens && shortfall <= SHORTFALL,
        "{}: fast {} bytes {} tokens, probes {} bytes {} tokens",
        what(),
        fast.kept.len(),
        fast.tokens,
        slow.kept.len(),
        slow.tokens
    );
}

/// How many bytes less than the probes the linear engine may keep: the rest of the
/// token it stops before (the probes may end inside it at no extra cost).
const SHORTFALL: usize = 16;

/// The worst shapes of BENCHMARKS.md (one piece without split points: one letter,
/// CJK without punctuation, emoji sequences), alone and after and before prose,
/// head and tail, at budgets that cut inside the piece.
#[test]
fn long_runs_trim_as_the_probes_do() {
    for name in ["one-letter", "cjk-nopunct", "emoji-zwj", "base64-alnum"] {
        let run = ctxbudget_tests::shapes::shape(name, 12_000);
        for text in [
            run.clone(),
            format!("Intro, then: {run}"),
            format!("{run} and an end."),
        ] {
            for budget in [0, 1, 7, 100, 512, 1_000, 3_000] {
                for keep in [Keep::Head, Keep::Tail] {
                    assert_as_probes(&text, budget, keep);
                }
            }
        }
    }
}

/// Each digit is a piece of Tekken's, so the offsets around ASCII digits are split
/// points, except before a digit that follows whitespace (the whitespace run keeps
/// its last space apart only when something other than whitespace follows it).
#[test]
fn digits_are_split_points() {
    let counter = &*TEKKEN;
    assert_eq!(counter.next_split("ab1cd", 0), Some(2));
    assert_eq!(counter.next_split("ab1cd", 3), Some(3));
    assert_eq!(counter.prev_split("ab1cd", 5), Some(3));
    assert_eq!(counter.next_split("+/9", 0), Some(2));
    assert_eq!(counter.next_split("a  1", 2), None);
    assert_eq!(counter.next_split("a  1x", 2), Some(4));
    let base64 = ctxbudget_tests::shapes::shape("base64-alnum", 3_000);
    let whole = counter.count(&base64);
    let mut from = 0;
    let mut checked = 0;
    while let Some(at) = counter.next_split(&base64, from) {
        assert_eq!(
            whole,
            counter.count(&base64[..at]) + counter.count(&base64[at..]),
            "{at}"
        );
        from = at + 1;
        checked += 1;
    }
    assert!(checked > 300, "only {checked} split points");
}

/// The file with its JSON edited: `edit` changes the parsed file.
fn edited(edit: impl FnOnce(&mut Value)) -> Result<Tekken, TokenizerFileError> {
    let mut json: Value = serde_json::from_slice(&FILE).unwrap();
    // Keep the tests quick: the first 1,000 tokens are a valid vocabulary.
    json["vocab"].as_array_mut().unwrap().truncate(1_000);
    json["config"]["default_vocab_size"] = 1_100.into();
    json["config"]["default_num_special_tokens"] = 100.into();
    edit(&mut json);
    Tekken::from_bytes(serde_json::to_vec(&json).unwrap())
}

fn invalid_message(result: Result<Tekken, TokenizerFileError>) -> String {
    let error = result.unwrap_err();
    assert!(
        matches!(
            &error,
            TokenizerFileError::Invalid {
                kind: "Tekken",
                file: TokenizerSource::Bytes,
                ..
            }
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.starts_with("the given tokenizer data is not a usable Tekken file: "));
    message
}

#[test]
fn a_cut_down_vocabulary_still_loads() {
    let small = edited(|_| {}).unwrap();
    assert_eq!(small.vocab_size(), 1_100);
    assert!(small.count("hello world") >= TEKKEN.count("hello world"));
}

#[test]
fn vocabularies_that_do_not_add_up_are_invalid() {
    let message = invalid_message(edited(|json| {
        json["config"]["default_vocab_size"] = 5_000.into();
    }));
    assert!(
        message.contains("asks for 4900 ordinary tokens"),
        "{message}"
    );
    assert!(message.contains("has 1000"), "{message}");

    let message = invalid_message(edited(|json| {
        json["config"]["default_num_special_tokens"] = 2_000.into();
    }));
    assert!(
        message.contains("smaller than default_num_special_tokens (2000)"),
        "{message}"
    );

    let message = invalid_message(edited(|json| json["vocab"][300]["rank"] = 7.into()));
    assert!(message.contains("entry 300 has rank 7"), "{message}");

    let message = invalid_message(edited(|json| {
        json["vocab"][400]["token_bytes"] = "%%".into();
    }));
    assert!(message.contains("rank 400 is not base64"), "{message}");

    let message = invalid_message(edited(|json| {
        json["vocab"][500]["token_bytes"] = json["vocab"][499]["token_bytes"].clone();
    }));
    assert!(message.contains("rank 500 appear twice"), "{message}");

    let message = invalid_message(edited(|json| {
        json["vocab"][65]["token_bytes"] = "QkI=".into();
    }));
    assert!(
        message.contains("rank 65 must be the single byte 65"),
        "{message}"
    );

    let message = invalid_message(edited(|json| {
        json["config"]["pattern"] = "(unclosed".into();
    }));
    assert!(message.contains("pattern does not compile"), "{message}");

    let message = invalid_message(edited(|json| {
        json.as_object_mut().unwrap().remove("config");
    }));
    assert!(message.contains("missing field `config`"), "{message}");
}

/// Issue 16.14: a pattern that matches nothing loaded and counted every text as 0
/// (`trim --tokens 1` kept a whole 4 MB file); an empty pattern loaded, then every
/// count panicked inside tiktoken-rs. Both are refused when the file loads.
#[test]
fn a_pattern_that_cannot_count_is_refused() {
    let message = invalid_message(edited(|json| {
        json["config"]["pattern"] = r"[^\s\S]".into();
    }));
    assert!(message.contains("matches 0 of the"), "{message}");
    assert!(message.contains("leave text out"), "{message}");

    let message = invalid_message(edited(|json| json["config"]["pattern"] = "".into()));
    assert!(message.contains("makes the encoder fail"), "{message}");
    assert!(message.contains("empty string"), "{message}");

    // Whitespace left out of every piece: counts would miss it.
    let message = invalid_message(edited(|json| json["config"]["pattern"] = r"\S+".into()));
    assert!(message.contains("leave text out"), "{message}");

    // An empty token spells nothing.
    let message = invalid_message(edited(|json| json["vocab"][600]["token_bytes"] = "".into()));
    assert!(message.contains("rank 600 is empty"), "{message}");
}

#[test]
fn another_pattern_means_no_split_points() {
    let counter = edited(|json| json["config"]["pattern"] = r"\S+|\s+".into()).unwrap();
    assert!(!counter.has_split_points());
    assert_eq!(counter.next_split("a b. c", 0), None);
    assert_eq!(counter.prev_split("a b. c", 6), None);
}

#[test]
fn truncated_and_corrupt_files_name_the_file() {
    let dir = std::env::temp_dir().join(format!("ctxbudget-tekken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tekken.json");
    std::fs::write(&path, &FILE[..FILE.len() / 3]).unwrap();
    let error = Tekken::from_file(&path).unwrap_err();
    assert!(
        matches!(&error, TokenizerFileError::Truncated { file: TokenizerSource::File(p), .. } if *p == path),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains(&format!("`{}`", path.display())),
        "{message}"
    );
    assert!(message.contains("truncated"), "{message}");

    let mut corrupt = FILE[..10_000].to_vec();
    corrupt[5_000] = b'}';
    std::fs::write(&path, &corrupt).unwrap();
    let error = Tekken::from_file(&path).unwrap_err();
    assert!(
        matches!(&error, TokenizerFileError::Json { line, .. } if *line > 1),
        "{error:?}"
    );
    assert!(error.to_string().contains("corrupt"), "{error}");

    std::fs::remove_dir_all(&dir).unwrap();
    let error = Tekken::from_file(&path).unwrap_err();
    assert!(
        matches!(&error, TokenizerFileError::Read { .. }),
        "{error:?}"
    );
}

fn char_boundaries(text: &str) -> Vec<usize> {
    (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The contract of `TokenCounter::next_split` on slices of real text.
    #[test]
    fn split_points_are_additive(
        fixture in 0usize..4,
        start in 0usize..30_000,
        span in 1usize..400,
        cut in 0usize..400,
    ) {
        let text = [PROSE, MARKDOWN, CODE, MULTILINGUAL][fixture];
        let counter = &*TEKKEN;
        if let Some((x, split, y)) = slice_around_split(counter, text, start, span, cut) {
            prop_assert_eq!(
                counter.count(&text[x..y]),
                counter.count(&text[x..split]) + counter.count(&text[split..y])
            );
        }
    }

    /// The fast path keeps what the probes keep on any text, and on runs that make
    /// it search inside one piece.
    #[test]
    fn trimming_keeps_what_the_probes_keep(
        text in prop_oneof![
            "\\PC{0,200}",
            ("[a-z]|[A-Z]|日|本|ア|한|👍|👨\u{200d}👩|🇯🇵|❤\u{fe0f}|x\u{301}", 500usize..3_000, "[ a.日]{0,3}")
                .prop_map(|(unit, n, edge)| format!("{edge}{}{edge}", unit.repeat(n))),
        ],
        budget in 0usize..1_200,
        keep_tail in any::<bool>(),
    ) {
        assert_as_probes(&text, budget, if keep_tail { Keep::Tail } else { Keep::Head });
    }

    /// Every x < split < y around every split point of adversarial text: case
    /// changes (Tekken's letter runs split on them), digits, marks, every kind of
    /// whitespace, `/` (which punctuation runs take in), apostrophes.
    #[test]
    fn split_points_are_additive_on_adversarial_text(
        text in "[a-zA-Z0-9ÀéǅʰΣ \t\n\r.,'’!?+/\u{a0}\u{3000}日本。、々〇\u{301}\u{903}क-]{1,40}",
    ) {
        let counter = &*TEKKEN;
        let bounds = char_boundaries(&text);
        let mut from = 0;
        while let Some(at) = counter.next_split(&text, from) {
            for &x in bounds.iter().filter(|&&x| x < at) {
                for &y in bounds.iter().filter(|&&y| y > at) {
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
