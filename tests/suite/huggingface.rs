//! The Hugging Face counter: counts equal Python `tokenizers`', split points add up on
//! real and adversarial text for every kind of pre-tokenizer, and bad files give
//! errors that name them.

use std::io::Read;
use std::path::PathBuf;
use std::sync::LazyLock;

use ctxbudget::count::{HuggingFace, TokenizerFileError, TokenizerSource};
use ctxbudget::{Keep, TokenCounter, TrimOptions, trim_with};
use ctxbudget_tests::{
    CODE, FIXTURES, MARKDOWN, MULTILINGUAL, PROSE, floor_char_boundary, slice_around_split,
};
use proptest::prelude::*;
use serde_json::Value;

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tokenizers")
        .join(name)
}

/// A shipped tokenizer file, uncompressed.
fn gunzip(name: &str) -> Vec<u8> {
    let compressed = std::fs::read(fixture_path(name)).unwrap();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

/// `tests/fixtures/tokenizers/huggingface_counts.json`, written by
/// `tests/fixtures/make_tokenizer_counts.py` with Python `tokenizers` 0.23.
static EXPECTED: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!(
        "../fixtures/tokenizers/huggingface_counts.json"
    ))
    .unwrap()
});

/// Every tokenizer of the fixture: a shipped file with the fixture's patch applied
/// (top-level sections replaced), loaded once.
static TOKENIZERS: LazyLock<Vec<(String, HuggingFace)>> = LazyLock::new(|| {
    let mut files = std::collections::HashMap::new();
    EXPECTED["tokenizers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let file = entry["file"].as_str().unwrap();
            let base: &Value = files
                .entry(file.to_owned())
                .or_insert_with(|| serde_json::from_slice::<Value>(&gunzip(file)).unwrap());
            let mut config = base.clone();
            for (key, value) in entry["patch"].as_object().unwrap() {
                config[key] = value.clone();
            }
            let bytes = serde_json::to_vec(&config).unwrap();
            let name = entry["name"].as_str().unwrap().to_owned();
            let counter = HuggingFace::from_bytes(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, counter)
        })
        .collect()
});

fn tokenizer(name: &str) -> &'static HuggingFace {
    &TOKENIZERS.iter().find(|(n, _)| n == name).unwrap().1
}

/// The texts of the fixture's cases: slices of the shipped text fixtures, or the
/// adversarial strings themselves.
fn cases() -> Vec<&'static str> {
    EXPECTED["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            if let Some(text) = case["text"].as_str() {
                return text;
            }
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
        })
        .collect()
}

/// Python `tokenizers`' `len(encode(text, add_special_tokens=False).ids)` for 241
/// texts, for Anthropic's `tokenizer.json`, Mistral 7B's converted one, DeepSeek V4's, and variants
/// with other normalisers, pre-tokenizers and added-token options.
#[test]
fn counts_equal_python_tokenizers() {
    let cases = cases();
    assert!(cases.len() > 200);
    let entries = EXPECTED["tokenizers"].as_array().unwrap();
    assert_eq!(entries.len(), TOKENIZERS.len());
    for (entry, (name, counter)) in entries.iter().zip(TOKENIZERS.iter()) {
        let counts = entry["counts"].as_array().unwrap();
        assert_eq!(counts.len(), cases.len());
        for (text, count) in cases.iter().zip(counts) {
            let expected = usize::try_from(count.as_u64().unwrap()).unwrap();
            assert_eq!(counter.count(text), expected, "{name} {text:?}");
        }
    }
}

/// Which files get split points, and why the others do not.
#[test]
fn split_points_follow_the_pre_tokenizer() {
    for (name, counter) in TOKENIZERS.iter() {
        let expected = name != "mistral-v1-legacy";
        assert_eq!(
            counter.has_split_points(),
            expected,
            "{name}: {:?}",
            counter.why_no_split_points()
        );
    }
    let legacy = tokenizer("mistral-v1-legacy");
    assert!(legacy.why_no_split_points().unwrap().contains("normalizer"));
    assert_eq!(legacy.next_split("a b c", 0), None);
    assert_eq!(legacy.prev_split("a b c", 5), None);
}

#[test]
fn added_tokens_are_one_token_and_never_split() {
    let counter = tokenizer("anthropic");
    assert_eq!(counter.count("<EOT>"), 1);
    let text = "x <EOT> y.<META_START>z";
    let mut points = Vec::new();
    let mut from = 0;
    while let Some(at) = counter.next_split(text, from) {
        points.push(at);
        from = at + 1;
    }
    // The space after `x` and the full stop after `y` are split points; the space
    // right after `<EOT>` (offset 7, its end) is not, nor anything inside it.
    assert_eq!(points, vec![1, 9]);
}

/// NFKC turns `℀` into `a/c`, so after a letter it joins that letter's piece: under
/// a normaliser only offsets between two ASCII characters are split points.
#[test]
fn normalisers_keep_split_points_between_ascii_characters() {
    let nfkc = tokenizer("anthropic");
    let plain = tokenizer("anthropic-no-normalizer");
    assert_ne!(nfkc.count("a℀"), nfkc.count("a") + nfkc.count("℀"));
    assert_eq!(nfkc.next_split("a℀ b c", 0), Some("a℀ b".len()));
    assert_eq!(plain.next_split("a℀ b c", 0), Some(1));
    assert_eq!(plain.count("a℀"), plain.count("a") + plain.count("℀"));
}

#[test]
fn the_counter_is_a_cheap_shared_handle() {
    let counter = tokenizer("anthropic").clone();
    assert_eq!(counter.vocab_size(), 65_000);
    let boxed: Box<HuggingFace> = Box::new(counter.clone());
    // `&HuggingFace` is a counter too.
    let by_ref: &dyn TokenCounter = &&counter;
    assert_eq!(boxed.count("hello world"), by_ref.count("hello world"));
    let shown = format!("{counter:?}");
    assert!(
        shown.starts_with("HuggingFace { vocab_size: 65000"),
        "{shown}"
    );
}

/// Every split point of the fixtures' first 2,000 bytes: the counts of the two sides
/// add up, for every tokenizer that declares split points.
#[test]
fn split_points_add_up_on_every_fixture() {
    for (name, counter) in TOKENIZERS.iter() {
        for (fixture, text) in FIXTURES {
            let text = &text[..floor_char_boundary(text, 2_000)];
            let whole = counter.count(text);
            let mut from = 0;
            let mut checked = 0;
            while let Some(at) = counter.next_split(text, from) {
                assert_eq!(
                    whole,
                    counter.count(&text[..at]) + counter.count(&text[at..]),
                    "{name} {fixture} at {at}"
                );
                from = at + 1;
                checked += 1;
            }
            if counter.has_split_points() && fixture != "multilingual" {
                assert!(
                    checked > 50,
                    "{name} {fixture}: only {checked} split points"
                );
            }
        }
    }
}

/// Trimming with these counters keeps the budget and cuts where the engine says.
#[test]
fn trimming_fits_the_budget() {
    for (name, counter) in TOKENIZERS.iter() {
        for budget in [1, 7, 100, 400, 2_500] {
            for keep in [Keep::Head, Keep::Tail] {
                let options = TrimOptions::new().keep(keep);
                let result = trim_with(PROSE, budget, counter, &options);
                assert!(result.tokens <= budget, "{name} {budget} {keep:?}");
                assert_eq!(result.tokens, counter.count(result.kept), "{name} {budget}");
                if budget >= 100 {
                    assert!(
                        result.kept.len() > budget * 2,
                        "{name} {budget} kept too little"
                    );
                }
            }
        }
    }
}

#[test]
fn truncated_files_say_so_and_name_the_file() {
    let bytes = gunzip("anthropic-tokenizer.json.gz");
    let dir = std::env::temp_dir().join(format!("ctxbudget-hf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tokenizer.json");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let error = HuggingFace::from_file(&path).unwrap_err();
    let message = error.to_string();
    assert!(
        matches!(&error, TokenizerFileError::Truncated { file: TokenizerSource::File(p), line, .. }
            if *p == path && *line >= 1),
        "{error:?}"
    );
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("truncated"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_files_say_where() {
    let mut bytes = gunzip("anthropic-tokenizer.json.gz");
    bytes[1_000..1_010].copy_from_slice(b"\x00garbage\xff\xfe");
    let error = HuggingFace::from_bytes(&bytes).unwrap_err();
    assert!(
        matches!(
            &error,
            TokenizerFileError::Json {
                file: TokenizerSource::Bytes,
                ..
            }
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with("the given tokenizer data is not valid JSON"),
        "{message}"
    );
    assert!(message.contains("column"), "{message}");
}

#[test]
fn json_that_is_no_tokenizer_is_invalid() {
    for (json, says) in [
        (r#"{"version": "1.0"}"#, "Model"),
        ("[1, 2, 3]", ""),
        (
            r#"{"version": "1.0", "added_tokens": [], "normalizer": null,
                "pre_tokenizer": {"type": "NoSuchThing"}, "post_processor": null,
                "decoder": null, "model": {"type": "WordLevel", "vocab": {"[UNK]": 0},
                "unk_token": "[UNK]"}}"#,
            "",
        ),
        (
            // Loads, but cannot encode: the unknown token is not in the vocabulary.
            r#"{"version": "1.0", "added_tokens": [], "normalizer": null,
                "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null,
                "decoder": null, "model": {"type": "WordLevel", "vocab": {"a": 0},
                "unk_token": "[UNK]"}}"#,
            "cannot encode",
        ),
    ] {
        let error = HuggingFace::from_bytes(json).unwrap_err();
        assert!(
            matches!(
                &error,
                TokenizerFileError::Invalid {
                    kind: "Hugging Face tokenizer.json",
                    ..
                }
            ),
            "{json}: {error:?}"
        );
        let message = error.to_string();
        assert!(
            message.contains("not a usable Hugging Face tokenizer.json"),
            "{message}"
        );
        assert!(message.contains(says), "{message}");
    }
    let empty = HuggingFace::from_bytes("").unwrap_err();
    assert!(
        matches!(empty, TokenizerFileError::Truncated { .. }),
        "{empty:?}"
    );
}

/// Anthropic's file with its normaliser and pre-tokenizer replaced.
fn anthropic_with(
    normalizer: Value,
    pre_tokenizer: Value,
) -> Result<HuggingFace, TokenizerFileError> {
    static BASE: LazyLock<Value> =
        LazyLock::new(|| serde_json::from_slice(&gunzip("anthropic-tokenizer.json.gz")).unwrap());
    let mut config = BASE.clone();
    config["normalizer"] = normalizer;
    config["pre_tokenizer"] = pre_tokenizer;
    HuggingFace::from_bytes(serde_json::to_vec(&config).unwrap())
}

fn byte_level() -> Value {
    serde_json::json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true})
}

fn refusal(result: Result<HuggingFace, TokenizerFileError>) -> String {
    let error = result.unwrap_err();
    assert!(
        matches!(
            &error,
            TokenizerFileError::Invalid {
                kind: "Hugging Face tokenizer.json",
                ..
            }
        ),
        "{error:?}"
    );
    error.to_string()
}

/// Issue 17.10: 20 chained `Replace e→ee` counted 60 bytes in 16.6 s and 1.1 GB, and
/// a 10 MB `Prepend` cost 18 s per count. Such files are refused when they load.
#[test]
fn normalizers_that_multiply_the_text_are_refused() {
    let doubling =
        serde_json::json!({"type": "Replace", "pattern": {"String": "e"}, "content": "ee"});
    let chain = serde_json::json!({"type": "Sequence", "normalizers": vec![doubling; 20]});
    let message = refusal(anthropic_with(chain, byte_level()));
    // 2^20 of the Replace stages, then `ByteLevel`'s 2.
    assert!(
        message.contains("can make 2097152 bytes of each byte"),
        "{message}"
    );
    assert!(message.contains("Replace stage (2x)"), "{message}");

    let prepend = serde_json::json!({"type": "Prepend", "prepend": "x".repeat(10_000_000)});
    let message = refusal(anthropic_with(prepend, byte_level()));
    assert!(message.contains("Prepend of 10000000 bytes"), "{message}");

    // A regular expression's shortest match: `a{2,}` to 200 bytes is 100x; one that
    // can match the empty string puts the content between every two characters.
    let regex = |pattern: &str, content: &str| serde_json::json!({"type": "Replace", "pattern": {"Regex": pattern}, "content": content});
    let message = refusal(anthropic_with(
        regex("a{2,}", &"b".repeat(200)),
        Value::Null,
    ));
    assert!(message.contains("Replace stage (100x)"), "{message}");
    let message = refusal(anthropic_with(regex("a*", &"b".repeat(16)), Value::Null));
    assert!(message.contains("Replace stage (65x)"), "{message}");

    // Every stage is a pass over the text: a chain of a thousand is refused too.
    let strip = serde_json::json!({"type": "Strip", "strip_left": true, "strip_right": true});
    let chain = serde_json::json!({"type": "Sequence", "normalizers": vec![strip; 1_000]});
    let message = refusal(anthropic_with(chain, byte_level()));
    assert!(message.contains("more than 64 stages"), "{message}");
}

/// The limit is 64 bytes of each byte, and the chains of published files stay well
/// within it: the fixtures load (see `counts_equal_python_tokenizers`), and so do
/// BERT's, CLIP's and Llama 2's chains before `ByteLevel`.
#[test]
fn published_chains_load_and_the_limit_is_64_bytes_per_byte() {
    let replace = |content: &str| serde_json::json!({"type": "Replace", "pattern": {"String": "a"}, "content": content});
    // 32 bytes of one, then `ByteLevel`'s 2: exactly 64.
    let at_limit = anthropic_with(replace(&"b".repeat(32)), byte_level()).unwrap();
    assert_eq!(at_limit.count("a"), at_limit.count(&"b".repeat(32)));
    let message = refusal(anthropic_with(replace(&"b".repeat(33)), byte_level()));
    assert!(message.contains("can make 66 bytes"), "{message}");

    let bert = serde_json::json!({"type": "BertNormalizer", "clean_text": true,
        "handle_chinese_chars": true, "strip_accents": null, "lowercase": true});
    let clip = serde_json::json!({"type": "Sequence", "normalizers": [
        {"type": "NFC"},
        {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
        {"type": "Lowercase"},
    ]});
    let llama2 = serde_json::json!({"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "▁"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    ]});
    for normalizer in [bert, clip, llama2] {
        let counter = anthropic_with(normalizer.clone(), byte_level())
            .unwrap_or_else(|error| panic!("{normalizer}: {error}"));
        assert!(counter.count("Hello, world!") > 0);
    }
}

/// A file whose pre-tokenizer drops everything would count every text as 0.
#[test]
fn a_file_that_gives_text_no_token_is_refused() {
    let removed = serde_json::json!({"type": "Split", "pattern": {"Regex": "(?s)."},
        "behavior": "Removed", "invert": false});
    let message = refusal(anthropic_with(Value::Null, removed));
    assert!(
        message.contains("no token, so every count would be 0"),
        "{message}"
    );
}

#[test]
fn missing_files_are_a_read_error() {
    let error = HuggingFace::from_file("no/such/tokenizer.json").unwrap_err();
    assert!(
        matches!(&error, TokenizerFileError::Read { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("`no/such/tokenizer.json`"),
        "{error}"
    );
}

fn char_boundaries(text: &str) -> Vec<usize> {
    (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect()
}

/// The names of the tokenizers that declare split points.
fn with_splits() -> Vec<&'static str> {
    TOKENIZERS
        .iter()
        .filter(|(_, c)| c.has_split_points())
        .map(|(n, _)| n.as_str())
        .collect()
}

/// A counter seen through a counter of the caller's: the same counts and split
/// points, without the linear engine, so trimming searches a long piece by
/// counting probes (the path every Hugging Face counter took before it had one).
struct Probes<'a>(&'a HuggingFace);

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

/// How many bytes less than the probes the linear engine may keep: the rest of the
/// token it stops before (the probes may end inside it at no extra cost).
const SHORTFALL: usize = 16;

/// The fast path against the probes on one text: the count it reports is the
/// counter's, within the budget, and it keeps what the probes keep, or at least as
/// many tokens and at most the rest of a token fewer bytes.
fn assert_as_probes(name: &str, text: &str, budget: usize, keep: Keep) {
    let counter = tokenizer(name);
    let options = TrimOptions::new().keep(keep);
    let fast = trim_with(text, budget, counter, &options);
    let slow = trim_with(text, budget, &Probes(counter), &options);
    let what = || {
        let start = &text[..floor_char_boundary(text, 40)];
        format!("{name} {keep:?} {budget} of {} bytes {start:?}", text.len())
    };
    assert_eq!(fast.tokens, counter.count(fast.kept), "{}", what());
    assert!(fast.tokens <= budget, "{}", what());
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

/// The byte-level files of the fixture (with NFKC, NFC or no normaliser, with
/// `ByteLevel`'s own pattern or a `Split` first), and the others as a control.
const ENGINE_FILES: [&str; 5] = [
    "anthropic",
    "anthropic-no-normalizer",
    "anthropic-llama3-split",
    "anthropic-qwen2-split-nfc",
    "deepseek-v4",
];

/// The worst shapes of BENCHMARKS.md (one piece without split points: one letter,
/// CJK without punctuation, emoji sequences), alone and after and before prose,
/// head and tail, at budgets that cut inside the piece.
#[test]
fn long_runs_trim_as_the_probes_do() {
    for name in ["one-letter", "cjk-nopunct", "emoji-zwj"] {
        let run = ctxbudget_tests::shapes::shape(name, 8_000);
        for text in [
            run.clone(),
            format!("Intro, then: {run}"),
            format!("{run} and an end."),
        ] {
            for file in ENGINE_FILES {
                for budget in [0, 1, 7, 100, 700] {
                    for keep in [Keep::Head, Keep::Tail] {
                        assert_as_probes(file, &text, budget, keep);
                    }
                }
            }
        }
    }
}

/// Every character a run may hold is left as it is by NFC and NFKC (the digraphs
/// ゟ and ヿ, which NFKC spells out, are no run characters).
#[test]
fn normalisers_leave_run_characters_alone() {
    use tokenizers::normalizers::unicode::{NFC, NFKC};
    use tokenizers::tokenizer::{NormalizedString, Normalizer};
    let ranges = [
        0x3041..=0x3096,
        0x309D..=0x309E,
        0x30A1..=0x30FA,
        0x30FC..=0x30FE,
        0x3400..=0x4DBF,
        0x4E00..=0x9FFF,
        0xAC00..=0xD7A3,
        0x1F1E6..=0x1F1FF,
        0x1F300..=0x1FAFF,
        0x2600..=0x26FF,
        0x2700..=0x2775,
        0x2794..=0x27BF,
        0x200D..=0x200D,
        0xFE0E..=0xFE0F,
    ];
    let text: String = ranges
        .into_iter()
        .flatten()
        .filter_map(char::from_u32)
        .collect();
    for normalizer in [&NFC as &dyn Normalizer, &NFKC] {
        let mut normalized = NormalizedString::from(text.as_str());
        normalizer.normalize(&mut normalized).unwrap();
        assert_eq!(normalized.get(), text);
    }
    let mut spelled = NormalizedString::from("ゟヿ");
    NFKC.normalize(&mut spelled).unwrap();
    assert_eq!(spelled.get(), "よりコト");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The contract of `TokenCounter::next_split` on slices of real text: for
    /// x < split < y, count(x..y) == count(x..split) + count(split..y).
    #[test]
    fn split_points_are_additive(
        fixture in 0usize..4,
        which in 0usize..64,
        start in 0usize..30_000,
        span in 1usize..400,
        cut in 0usize..400,
    ) {
        let text = [PROSE, MARKDOWN, CODE, MULTILINGUAL][fixture];
        let names = with_splits();
        let counter = tokenizer(names[which % names.len()]);
        if let Some((x, split, y)) = slice_around_split(counter, text, start, span, cut) {
            prop_assert_eq!(
                counter.count(&text[x..y]),
                counter.count(&text[x..split]) + counter.count(&text[split..y])
            );
        }
    }

    /// The same on adversarial text: every kind of whitespace, `▁`, added tokens
    /// and pieces of them, characters that NFKC folds or composes, combining marks,
    /// Hangul jamo, contractions; every x < split < y around every split point.
    #[test]
    fn split_points_are_additive_on_adversarial_text(
        parts in proptest::collection::vec(prop_oneof![
            "[a-zA-Z0-9 \t\n\r.,'!?+/\u{a0}\u{3000}é日本。、\u{301}\u{327}▁_-]{1,4}",
            "[0-9a-z ,\u{1}\u{663}\u{ff10}日本かカｶ〇]{1,4}",
            Just("<EOT>".to_owned()), Just("<META".to_owned()), Just("_START>".to_owned()),
            Just("<SOS>".to_owned()), Just("<s>".to_owned()), Just("</s>".to_owned()),
            Just("ﬁ".to_owned()), Just("①".to_owned()), Just("㎏".to_owned()),
            Just("ｆ".to_owned()), Just("Å".to_owned()), Just("\u{1100}\u{1161}".to_owned()),
            Just("\u{11a8}".to_owned()), Just("'s".to_owned()), Just("  ".to_owned()),
            Just("K".to_owned()), Just("\u{212a}".to_owned()), Just("℀".to_owned()),
            Just("™".to_owned()), Just("⑴".to_owned()), Just("＂".to_owned()),
        ], 1..10),
        which in 0usize..64,
    ) {
        let text = parts.concat();
        let names = with_splits();
        let counter = tokenizer(names[which % names.len()]);
        let bounds = char_boundaries(&text);
        let mut from = 0;
        while let Some(at) = counter.next_split(&text, from) {
            for &x in bounds.iter().filter(|&&x| x < at) {
                for &y in bounds.iter().filter(|&&y| y > at) {
                    prop_assert_eq!(
                        counter.count(&text[x..y]),
                        counter.count(&text[x..at]) + counter.count(&text[at..y]),
                        "x {} at {} y {} {:?}", x, at, y, &text[x..y]
                    );
                }
            }
            from = at + 1;
        }
    }

    /// Split points are local: one declared in any slice of a text is a split point of
    /// the whole text, even where the slice cuts through an added token (the engine
    /// asks about short slices).
    #[test]
    fn split_points_of_slices_are_split_points_of_the_text(
        parts in proptest::collection::vec(prop_oneof![
            "[a-z .,>\n▁]{1,3}",
            Just("<EOT>".to_owned()), Just("<META_START>".to_owned()), Just("<SOS>".to_owned()),
            Just("<s>".to_owned()), Just("</s>".to_owned()), Just("  ".to_owned()),
        ], 1..8),
        which in 0usize..64,
        lo in 0usize..64,
        hi in 0usize..64,
    ) {
        let text = parts.concat();
        let names = with_splits();
        let counter = tokenizer(names[which % names.len()]);
        let bounds = char_boundaries(&text);
        let (a, b) = (bounds[lo % bounds.len()], bounds[hi % bounds.len()]);
        let (lo, hi) = (a.min(b), a.max(b));
        prop_assume!(lo < hi);
        let slice = &text[lo..hi];
        let mut declared = Vec::new();
        let mut from = 0;
        while let Some(at) = counter.next_split(slice, from) {
            declared.push(lo + at);
            from = at + 1;
        }
        let mut before = slice.len();
        while let Some(at) = counter.prev_split(slice, before) {
            declared.push(lo + at);
            before = at;
        }
        for at in declared {
            for &x in bounds.iter().filter(|&&x| x < at) {
                for &y in bounds.iter().filter(|&&y| y > at) {
                    prop_assert_eq!(
                        counter.count(&text[x..y]),
                        counter.count(&text[x..at]) + counter.count(&text[at..y]),
                        "slice {}..{} x {} at {} y {} {:?}", lo, hi, x, at, y, &text[x..y]
                    );
                }
            }
        }
    }

    /// The fast path keeps what the probes keep on any text and on runs, for every
    /// byte-level file of the fixture.
    #[test]
    fn trimming_keeps_what_the_probes_keep(
        text in prop_oneof![
            "\\PC{0,200}",
            ("[a-z]|[A-Z]|日|本|ア|한|👍|👨\u{200d}👩|🇯🇵|❤\u{fe0f}|x\u{301}", 500usize..2_000, "[ a.日]{0,3}")
                .prop_map(|(unit, n, edge)| format!("{edge}{}{edge}", unit.repeat(n))),
        ],
        budget in 0usize..800,
        which in 0usize..ENGINE_FILES.len(),
        keep_tail in any::<bool>(),
    ) {
        let keep = if keep_tail { Keep::Tail } else { Keep::Head };
        assert_as_probes(ENGINE_FILES[which], &text, budget, keep);
    }

    /// Walking forward with `next_split` and backward with `prev_split` finds the
    /// same points, from any offset (inside a char too).
    #[test]
    fn next_and_prev_split_agree(
        text in "[a-z .,<>EOTS▁\u{3000}é日]{0,40}",
        which in 0usize..64,
        from in 0usize..50,
    ) {
        let names = with_splits();
        let counter = tokenizer(names[which % names.len()]);
        let mut forward = Vec::new();
        let mut at = from;
        while let Some(found) = counter.next_split(&text, at) {
            prop_assert!(found >= at && found > 0 && found < text.len());
            prop_assert!(text.is_char_boundary(found));
            forward.push(found);
            at = found + 1;
        }
        let mut backward = Vec::new();
        let mut before = text.len();
        while let Some(found) = counter.prev_split(&text, before) {
            prop_assert!(found < before);
            if found < from {
                break;
            }
            backward.push(found);
            before = found;
        }
        backward.reverse();
        prop_assert_eq!(forward, backward);
    }
}
