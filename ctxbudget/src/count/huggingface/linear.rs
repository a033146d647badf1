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

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::count::{HuggingFace, TokenCounter, linear_engine, seal::Seal};
    use crate::{Keep, TrimOptions, trim_with};

    /// A byte-level BPE file: the 256 byte characters, then `aa`, `aaaa` and
    /// `aaaaaaaa`, with `edit` applied to its JSON.
    fn tiny(edit: impl FnOnce(&mut serde_json::Value)) -> HuggingFace {
        let mut vocab = serde_json::Map::new();
        for (id, c) in byte_level_chars().iter().enumerate() {
            vocab.insert(c.to_string(), id.into());
        }
        for (id, token) in [(256, "aa"), (257, "aaaa"), (258, "aaaaaaaa")] {
            vocab.insert(token.into(), id.into());
        }
        let mut file = serde_json::json!({
            "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
            "normalizer": {"type": "NFKC"},
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false,
                              "trim_offsets": true, "use_regex": true},
            "post_processor": null, "decoder": null,
            "model": {"type": "BPE", "dropout": null, "unk_token": null,
                      "continuing_subword_prefix": null, "end_of_word_suffix": null,
                      "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                      "vocab": vocab, "merges": ["a a", "aa aa", "aaaa aaaa"]},
        });
        edit(&mut file);
        HuggingFace::from_bytes(file.to_string()).expect("the tiny file loads")
    }

    /// The counter, adding up the bytes it is asked to count.
    struct Counting<'a> {
        inner: &'a HuggingFace,
        bytes: Cell<usize>,
    }

    impl TokenCounter for Counting<'_> {
        fn count(&self, text: &str) -> usize {
            self.bytes.set(self.bytes.get() + text.len());
            self.inner.count(text)
        }
        fn next_split(&self, text: &str, from: usize) -> Option<usize> {
            self.inner.next_split(text, from)
        }
        fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
            self.inner.prev_split(text, before)
        }
        fn __trusted(&self, seal: Seal) -> bool {
            self.inner.__trusted(seal)
        }
        fn __linear(&self, seal: Seal) -> Option<crate::count::Linear<'_>> {
            self.inner.__linear(seal)
        }
    }

    /// Inside one long run, trimming reads the counts off one encoding: the counter
    /// itself counts less than what is kept (the probes count several times it).
    #[test]
    fn a_long_run_is_searched_with_one_encoding() {
        let counter = tiny(|_| {});
        assert!(linear_engine(&counter).is_some());
        let text = "a".repeat(20_000);
        assert_eq!(counter.count(&text), 2_500);
        for keep in [Keep::Head, Keep::Tail] {
            for budget in [10, 300, 1_000] {
                let counting = Counting {
                    inner: &counter,
                    bytes: Cell::new(0),
                };
                let trimmed = trim_with(&text, budget, &counting, &TrimOptions::new().keep(keep));
                assert!(trimmed.cut && trimmed.tokens <= budget);
                assert_eq!(trimmed.tokens, counter.count(trimmed.kept));
                assert!(
                    counting.bytes.get() <= trimmed.kept.len(),
                    "{keep:?} {budget}: counted {} bytes to keep {}",
                    counting.bytes.get(),
                    trimmed.kept.len()
                );
            }
        }
    }

    /// Files whose runs the engine cannot vouch for get none.
    #[test]
    fn no_engine_where_a_run_may_change() {
        let refused: [fn(&mut serde_json::Value); 4] = [
            // NFD decomposes kana and Hangul.
            |file| file["normalizer"] = serde_json::json!({"type": "NFD"}),
            // A prefix space changes the first piece.
            |file| file["pre_tokenizer"]["add_prefix_space"] = true.into(),
            // An added token made of letters may occur inside a run.
            |file| {
                file["added_tokens"] = serde_json::json!([{"id": 259, "content": "aaa",
                    "single_word": false, "lstrip": false, "rstrip": false,
                    "normalized": false, "special": true}]);
            },
            // Two merges that make one token: ranks by token and by pair differ.
            |file| file["model"]["merges"] = serde_json::json!(["a a", "aa aa", "a a"]),
        ];
        for edit in refused {
            let counter = tiny(edit);
            assert!(linear_engine(&counter).is_none(), "{counter:?}");
        }
    }
}
