//! The linear engine of a byte-level BPE `tokenizer.json` (GPT-2 and its
//! descendants: Anthropic's file, Llama 3, Qwen): its vocabulary ranked by merge
//! order, for the `bpe` crate's encoder, which trimming uses inside a long run of
//! one letter, of CJK or of emoji (see [`crate::count::VocabBpe`]).
//!
//! Byte-pair merging by the rank of the pair (`tokenizers`) and by the rank of the
//! merged token (tiktoken, the `bpe` crate) agree when every token is made by one
//! merge and ranks follow merge order, as in vocabularies trained by byte-pair
//! encoding; the property tests in `tests/suite/huggingface.rs` check the trims of
//! the shipped file against its counts. The engine is built only when what the
//! file does to a run is known:
//!
//! - the normaliser is none, NFC or NFKC (which leave every character of a run as
//!   it is, see [`crate::count::Run`]);
//! - the pre-tokenizer cuts with a known pattern (`ByteLevel`'s own, or a `Split`
//!   then `ByteLevel`) without a prefix space or isolated runs, so a run is one
//!   piece of its bytes;
//! - the model is plain BPE, every byte is a token, every merge makes a token of
//!   the vocabulary, and no two merges make the same one;
//! - no added token is made of characters of runs only (none can occur in one).

use rustc_hash::FxHashSet;
use serde::Deserialize;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::{ModelWrapper, NormalizerWrapper, Tokenizer};

use super::super::splits::{IsolatedRuns, PieceRule, SplitRule};
use super::super::{VocabBpe, is_run_char};

/// The part of a `tokenizer.json` the engine reads: the merges, in order.
#[derive(Deserialize)]
struct File {
    model: Model,
}

#[derive(Deserialize)]
struct Model {
    #[serde(default)]
    merges: Vec<Merge>,
}

/// A merge as `tokenizers` writes it: `"a b"` (older files) or `["a", "b"]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Merge {
    Joined(String),
    Pair(String, String),
}

impl Merge {
    fn joined(&self) -> Option<String> {
        match self {
            Merge::Joined(both) => {
                let (a, b) = both.split_once(' ')?;
                (!b.contains(' ')).then(|| format!("{a}{b}"))
            }
            Merge::Pair(a, b) => Some(format!("{a}{b}")),
        }
    }
}

/// The engine of the file `bytes`, loaded as `tokenizer`, or `None` when it is not
/// a byte-level BPE file whose runs are known to be one piece.
pub(super) fn engine(
    bytes: &[u8],
    tokenizer: &Tokenizer,
    splits: Result<SplitRule, &'static str>,
    added: &[Box<[u8]>],
) -> Option<VocabBpe> {
    let rule = splits.ok()?;
    if rule.pieces != (PieceRule::Pattern { punctuation: true })
        || rule.isolated != IsolatedRuns::NONE
        || !tokenizer.get_normalizer().is_none_or(keeps_runs)
        || !is_byte_level(tokenizer.get_pre_tokenizer()?)
    {
        return None;
    }
    let ModelWrapper::BPE(bpe) = tokenizer.get_model() else {
        return None;
    };
    if !super::plain_bpe(bpe) {
        return None;
    }
    let in_a_run = |content: &[u8]| {
        std::str::from_utf8(content).is_ok_and(|content| content.chars().all(is_run_char))
    };
    if added.iter().any(|content| in_a_run(content)) {
        return None;
    }
    let file: File = serde_json::from_slice(bytes).ok()?;
    let vocab = bpe.get_vocab();
    let chars = byte_level_chars();
    let byte_of = |c: char| {
        chars
            .iter()
            .position(|&d| d == c)
            .and_then(|b| u8::try_from(b).ok())
    };
    if !chars.iter().all(|c| vocab.contains_key(&c.to_string())) {
        return None;
    }
    let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|byte| vec![byte]).collect();
    let mut seen: FxHashSet<Vec<u8>> = tokens.iter().cloned().collect();
    for merge in &file.model.merges {
        let joined = merge.joined()?;
        if !vocab.contains_key(&joined) {
            return None;
        }
        let token: Vec<u8> = joined.chars().map(byte_of).collect::<Option<_>>()?;
        if !seen.insert(token.clone()) {
            return None;
        }
        tokens.push(token);
    }
    Some(VocabBpe::new(tokens.iter().map(Vec::as_slice)))
}

/// Normalisers that leave every character of a run as it is.
fn keeps_runs(normalizer: &NormalizerWrapper) -> bool {
    match normalizer {
        NormalizerWrapper::NFC(_) | NormalizerWrapper::NFKC(_) => true,
        NormalizerWrapper::Sequence(sequence) => sequence.as_ref().iter().all(keeps_runs),
        _ => false,
    }
}

/// Whether the pre-tokenizer maps bytes to `ByteLevel`'s characters, without a
/// prefix space.
fn is_byte_level(pre_tokenizer: &PreTokenizerWrapper) -> bool {
    match pre_tokenizer {
        PreTokenizerWrapper::ByteLevel(byte_level) => !byte_level.add_prefix_space,
        PreTokenizerWrapper::Sequence(sequence) => sequence
            .as_ref()
            .iter()
            .any(|stage| matches!(stage, PreTokenizerWrapper::ByteLevel(b) if !b.add_prefix_space)),
        _ => false,
    }
}

/// GPT-2's characters for the 256 bytes, as `ByteLevel` maps them: the printable
/// bytes of Latin-1 stand for themselves, the others for U+0100 onwards in order.
fn byte_level_chars() -> [char; 256] {
    let mut chars = ['\0'; 256];
    let mut next = 0x100u32;
    for (byte, c) in (0u8..=255).zip(chars.iter_mut()) {
        *c = if matches!(byte, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF) {
            char::from(byte)
        } else {
            next += 1;
            char::from_u32(next - 1).unwrap_or(char::REPLACEMENT_CHARACTER)
        };
    }
    chars
}
