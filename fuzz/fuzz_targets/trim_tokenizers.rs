//! The trimming engine with the Hugging Face and Tekken counters, whose split points
//! come from the tokenizer files: never panics, and every invariant of `trim_with`
//! holds (the `trim` target's checks, with these counters), and the counts of the
//! two sides of a declared split point add up.
//!
//! Input: 2 bytes of budget (little endian), 1 byte of options (kept part, hard
//! limit, minimum fill, as in `trim`), 1 byte choosing the counter, then the text
//! (lossy UTF-8). Counters: Anthropic's `tokenizer.json` (NFKC, `ByteLevel`, added
//! tokens), Mistral 7B's (`Metaspace` without `split`, split points from the
//! vocabulary), the same with `split` on, DeepSeek V4's (digit and CJK runs cut
//! out before its word pattern) and Mistral Nemo's Tekken file.
#![no_main]

use std::io::Read;
use std::sync::LazyLock;

use ctxbudget::TokenCounter;
use ctxbudget::count::{HuggingFace, Tekken};
use libfuzzer_sys::fuzz_target;

#[path = "trim_checks.rs"]
mod trim_checks;

fn gunzip(compressed: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(compressed)
        .read_to_end(&mut bytes)
        .expect("the shipped fixtures are gzip files");
    bytes
}

static ANTHROPIC: LazyLock<HuggingFace> = LazyLock::new(|| {
    let json = gunzip(include_bytes!(
        "../../tests/fixtures/tokenizers/anthropic-tokenizer.json.gz"
    ));
    HuggingFace::from_bytes(json).expect("the Anthropic tokenizer loads")
});

static MISTRAL: LazyLock<[HuggingFace; 2]> = LazyLock::new(|| {
    let json = gunzip(include_bytes!(
        "../../tests/fixtures/tokenizers/mistral-v1-tokenizer.json.gz"
    ));
    let mut split: serde_json::Value = serde_json::from_slice(&json).expect("JSON");
    split["pre_tokenizer"]["split"] = true.into();
    [
        HuggingFace::from_bytes(&json).expect("the Mistral tokenizer loads"),
        HuggingFace::from_bytes(serde_json::to_vec(&split).expect("JSON"))
            .expect("the Mistral tokenizer with split loads"),
    ]
});

static DEEPSEEK: LazyLock<HuggingFace> = LazyLock::new(|| {
    let json = gunzip(include_bytes!(
        "../../tests/fixtures/tokenizers/deepseek-v4-tokenizer.json.gz"
    ));
    HuggingFace::from_bytes(json).expect("the DeepSeek tokenizer loads")
});

static TEKKEN: LazyLock<Tekken> = LazyLock::new(|| {
    let json = gunzip(include_bytes!(
        "../../tests/fixtures/tokenizers/tekken_240718.json.gz"
    ));
    Tekken::from_bytes(json).expect("the Tekken file loads")
});

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes([head[0], head[1]]) % 2048);
    let flags = head[2];
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();

    let counter: &dyn TokenCounter = match head[3] % 5 {
        0 => &*ANTHROPIC,
        1 => &MISTRAL[0],
        2 => &MISTRAL[1],
        3 => &*DEEPSEEK,
        _ => &*TEKKEN,
    };
    // A split point declared anywhere in the text: the counts of the two sides add up.
    if let Some(at) = counter.next_split(text, budget % (text.len() + 1)) {
        assert!(text.is_char_boundary(at) && at > 0 && at < text.len());
        assert_eq!(
            counter.count(text),
            counter.count(&text[..at]) + counter.count(&text[at..]),
            "split point {at}"
        );
    }
    trim_checks::check_trim(text, budget, counter, flags, true);
});
