//! The exact counters the request and batch targets count with: tiktoken's
//! `o200k_base` and `cl100k_base`, the Hugging Face `tokenizer.json` files of
//! Anthropic and Mistral 7B, and Mistral Nemo's Tekken file (the fixtures of
//! `tests/fixtures/tokenizers/`, built once).

#![allow(dead_code)]

use std::io::Read;
use std::sync::LazyLock;

use ctxbudget::TokenCounter;
use ctxbudget::count::{HuggingFace, Tekken, Tiktoken};
use libfuzzer_sys::arbitrary::{self, Arbitrary};

fn gunzip(compressed: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(compressed)
        .read_to_end(&mut bytes)
        .expect("the shipped fixtures are gzip files");
    bytes
}

pub static O200K: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);
pub static CL100K: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::cl100k_base);

/// The Hugging Face `tokenizer.json` of Anthropic's older models, as JSON.
pub static ANTHROPIC_JSON: LazyLock<Vec<u8>> = LazyLock::new(|| {
    gunzip(include_bytes!(
        "../../tests/fixtures/tokenizers/anthropic-tokenizer.json.gz"
    ))
});
/// Mistral 7B's `tokenizer.json`, as JSON.
pub static MISTRAL_JSON: LazyLock<Vec<u8>> = LazyLock::new(|| {
    gunzip(include_bytes!(
        "../../tests/fixtures/tokenizers/mistral-v1-tokenizer.json.gz"
    ))
});
/// Mistral Nemo's Tekken file, as JSON.
pub static TEKKEN_JSON: LazyLock<Vec<u8>> = LazyLock::new(|| {
    gunzip(include_bytes!(
        "../../tests/fixtures/tokenizers/tekken_240718.json.gz"
    ))
});

pub static ANTHROPIC: LazyLock<HuggingFace> = LazyLock::new(|| {
    HuggingFace::from_bytes(ANTHROPIC_JSON.as_slice()).expect("the Anthropic tokenizer loads")
});
pub static MISTRAL: LazyLock<HuggingFace> = LazyLock::new(|| {
    HuggingFace::from_bytes(MISTRAL_JSON.as_slice()).expect("the Mistral tokenizer loads")
});
pub static TEKKEN: LazyLock<Tekken> =
    LazyLock::new(|| Tekken::from_bytes(TEKKEN_JSON.as_slice()).expect("the Tekken file loads"));

/// Which exact counter a run counts with.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exact {
    O200k,
    Cl100k,
    AnthropicJson,
    MistralJson,
    Tekken,
}

impl Exact {
    pub fn counter(self) -> &'static (dyn TokenCounter + Send + Sync) {
        match self {
            Exact::O200k => &*O200K,
            Exact::Cl100k => &*CL100K,
            Exact::AnthropicJson => &*ANTHROPIC,
            Exact::MistralJson => &*MISTRAL,
            Exact::Tekken => &*TEKKEN,
        }
    }
}
