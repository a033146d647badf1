//! Exact counts of Mistral's Tekken tokenizers (`tekken_*.json`), through
//! tiktoken-rs's byte-pair encoder.
//!
//! A Tekken file is a tiktoken-style vocabulary (each token's bytes in base64, with its
//! rank), a pre-tokenizer pattern, and the number of special tokens reserved in
//! front of the vocabulary. [`Tekken`] counts what `mistral-common`'s `Tekkenizer`
//! counts: `len(tokenizer.encode(text, bos=False, eos=False))`. Like `mistral-common`,
//! it keeps the first `default_vocab_size - default_num_special_tokens` tokens of the
//! vocabulary and treats text that looks like a special token (`[INST]`, `</s>`) as
//! ordinary text: special tokens only enter a prompt through the chat template.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use serde::Deserialize;
use tiktoken_rs::CoreBPE;

use super::TokenCounter;
use super::splits::{self, IsolatedRuns, PieceRule, SplitRule, is_known_pattern};
use super::tokenizer_file::{self, TokenizerFileError, TokenizerSource};

const KIND: &str = "Tekken";

/// Exact token counts of a Mistral Tekken vocabulary (`tekken_*.json`: Mistral Nemo,
/// Mistral Small 3, Pixtral, Ministral, Codestral 25.01, ...).
///
/// The count equals `mistral-common`'s
/// `len(Tekkenizer.from_file(path).encode(text, bos=False, eos=False))`. Cloning is
/// cheap: clones share one vocabulary.
///
/// ```
/// use ctxbudget::TokenCounter;
/// use ctxbudget::count::Tekken;
///
/// // A tiny vocabulary: the 256 bytes, then "he", "ll" and "hell". Real files come
/// // with `mistral-common` or beside a model's weights.
/// # use base64::Engine as _;
/// # let base64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
/// let tokens: Vec<Vec<u8>> = (0u8..=255)
///     .map(|byte| vec![byte])
///     .chain(["he", "ll", "hell"].map(|token| token.as_bytes().to_vec()))
///     .collect();
/// let vocab: Vec<String> = tokens
///     .iter()
///     .enumerate()
///     .map(|(rank, bytes)| {
///         let bytes = base64(bytes);
///         format!(r#"{{"rank": {rank}, "token_bytes": "{bytes}", "token_str": null}}"#)
///     })
///     .collect();
/// let json = format!(
///     r#"{{"config": {{"pattern": "\\S+|\\s+", "num_vocab_tokens": 259,
///       "default_vocab_size": 269, "default_num_special_tokens": 10, "version": "v3"}},
///       "vocab": [{}]}}"#,
///     vocab.join(","),
/// );
/// let counter = Tekken::from_bytes(json)?;
/// assert_eq!(counter.count("hello"), 2); // "hell" + "o"
/// assert_eq!(counter.count("[INST]"), 6); // special-looking text is ordinary text
/// assert!(!counter.has_split_points()); // an unknown pattern
/// # Ok::<(), ctxbudget::count::TokenizerFileError>(())
/// ```
///
/// Loading a real file:
///
/// ```no_run
/// use ctxbudget::{TokenCounter, count::Tekken};
///
/// let counter = Tekken::from_file("models/mistral-nemo/tekken.json")?;
/// assert!(counter.has_split_points());
/// println!("{} tokens", counter.count("Bonjour, le monde !"));
/// # Ok::<(), ctxbudget::count::TokenizerFileError>(())
/// ```
///
/// # Split points
///
/// Tekken's pattern is `o200k_base`'s without English contractions and with single
/// digits; like `Tiktoken`'s, its pieces start at a space after a
/// character other than whitespace and at punctuation (other than an apostrophe)
/// after a letter or digit, and no alternative looks behind. Those offsets are split
/// points, checked by the property tests in `tests/suite/tekken.rs`. Each digit is a
/// piece of its own, so the offsets after an ASCII digit, and before one that follows
/// a character other than whitespace, are split points too (base64 and hexadecimal
/// text trims piece by piece). A file with another pattern gets none
/// ([`Tekken::has_split_points`]) and trims by the slower search.
///
/// Inside a long piece without split points (a run of one letter, of CJK, of
/// emoji), trimming encodes a little more than what fits once with the `bpe`
/// crate's linear encoder (built from the vocabulary on the first such search,
/// with the `tiktoken` feature) and reads every shorter part's count off that one
/// encoding, where counting growing parts would cost several counts.
#[derive(Clone)]
pub struct Tekken {
    inner: Arc<Inner>,
}

struct Inner {
    bpe: CoreBPE,
    splits: Option<SplitRule>,
    /// Whether the pattern makes every digit a piece of its own (`\p{N}`, as
    /// Tekken's does), so that offsets around ASCII digits are split points too.
    digits: bool,
    /// The linear engine of the vocabulary, for a file whose pattern is known
    /// (its runs of letters and of pictographs are one piece); built on first use.
    #[cfg(feature = "tiktoken")]
    linear: Option<super::VocabBpe>,
    vocab_size: usize,
    version: String,
}

/// The parts of a Tekken file the count depends on (`mistral-common`'s `ModelData`).
#[derive(Deserialize)]
struct TekkenFile {
    config: Config,
    vocab: Vec<TokenInfo>,
}

#[derive(Deserialize)]
struct Config {
    pattern: String,
    default_vocab_size: usize,
    default_num_special_tokens: usize,
    version: String,
}

#[derive(Deserialize)]
struct TokenInfo {
    rank: u64,
    token_bytes: String,
}

impl Tekken {
    /// Loads the Tekken file at `path`.
    ///
    /// # Errors
    ///
    /// [`TokenizerFileError`], naming the file: it cannot be read
    /// ([`Read`](TokenizerFileError::Read)), it is cut short
    /// ([`Truncated`](TokenizerFileError::Truncated)), it is not JSON
    /// ([`Json`](TokenizerFileError::Json)), or its sections are missing or do not add
    /// up ([`Invalid`](TokenizerFileError::Invalid): a rank out of order, bad base64,
    /// an empty token, a vocabulary shorter than the configured size, a pattern that
    /// does not compile, or one that cannot count a sample text: the encoder counts
    /// only what the pattern matches, so a pattern that matches nothing would count
    /// every text as 0, and one that matches the empty string makes it fail).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, TokenizerFileError> {
        let path = path.as_ref();
        let bytes = tokenizer_file::read(path)?;
        Self::load(&bytes, &TokenizerSource::of(Some(path)))
    }

    /// Loads a Tekken file from its bytes.
    ///
    /// # Errors
    ///
    /// As [`from_file`](Self::from_file), except that nothing is read.
    pub fn from_bytes(bytes: impl AsRef<[u8]>) -> Result<Self, TokenizerFileError> {
        Self::load(bytes.as_ref(), &TokenizerSource::Bytes)
    }

    fn load(bytes: &[u8], file: &TokenizerSource) -> Result<Self, TokenizerFileError> {
        let parsed: TekkenFile = serde_json::from_slice(bytes)
            .map_err(|error| tokenizer_file::json_error(file.clone(), KIND, &error))?;
        let invalid = |message: String| TokenizerFileError::Invalid {
            file: file.clone(),
            kind: KIND,
            message,
        };
        let config = &parsed.config;
        let inner_size = config
            .default_vocab_size
            .checked_sub(config.default_num_special_tokens)
            .ok_or_else(|| {
                invalid(format!(
                    "default_vocab_size ({}) is smaller than default_num_special_tokens ({})",
                    config.default_vocab_size, config.default_num_special_tokens
                ))
            })?;
        if inner_size < 256 || inner_size > parsed.vocab.len() {
            return Err(invalid(format!(
                "the configuration asks for {inner_size} ordinary tokens \
                 (default_vocab_size - default_num_special_tokens), but the vocabulary has {} \
                 and needs at least the 256 single bytes",
                parsed.vocab.len()
            )));
        }
        let mut ranks = rustc_hash::FxHashMap::default();
        ranks.reserve(inner_size);
        let mut tokens = Vec::with_capacity(inner_size);
        for (index, token) in parsed.vocab.iter().take(inner_size).enumerate() {
            if usize::try_from(token.rank).ok() != Some(index) {
                return Err(invalid(format!(
                    "vocabulary entry {index} has rank {}; ranks must count up from 0",
                    token.rank
                )));
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&token.token_bytes)
                .map_err(|error| {
                    invalid(format!(
                        "token_bytes of rank {index} is not base64 ({error}): {:?}",
                        token.token_bytes
                    ))
                })?;
            if index < 256 && bytes != [u8::try_from(index).unwrap_or_default()] {
                return Err(invalid(format!(
                    "rank {index} must be the single byte {index}, as in every Tekken file"
                )));
            }
            if bytes.is_empty() {
                // An empty token spells nothing: a pattern that matches the empty
                // string would count it between every two characters.
                return Err(invalid(format!(
                    "the token of rank {index} is empty; every token spells at least one byte"
                )));
            }
            let rank = u32::try_from(index).map_err(|_| invalid("too many tokens".into()))?;
            tokens.push(bytes.clone());
            if ranks.insert(bytes, rank).is_some() {
                return Err(invalid(format!(
                    "the bytes of rank {index} appear twice in the vocabulary"
                )));
            }
        }
        let bpe = match catch_unwind(|| {
            CoreBPE::new(ranks, rustc_hash::FxHashMap::default(), &config.pattern)
        }) {
            Ok(Ok(bpe)) => bpe,
            Ok(Err(error)) => {
                return Err(invalid(format!("its pattern does not compile: {error}")));
            }
            Err(_) => return Err(invalid("tiktoken-rs panicked building the encoder".into())),
        };
        check_pattern(&bpe).map_err(invalid)?;
        let splits = is_known_pattern(&config.pattern).then_some(SplitRule {
            pieces: PieceRule::Pattern { punctuation: true },
            isolated: IsolatedRuns::NONE,
            ascii_only: false,
        });
        #[cfg(feature = "tiktoken")]
        let linear = splits.map(|_| super::VocabBpe::new(tokens.iter().map(Vec::as_slice)));
        #[cfg(not(feature = "tiktoken"))]
        drop(tokens);
        let digits = splits.is_some() && config.pattern.contains(r"|\p{N}|");
        Ok(Tekken {
            inner: Arc::new(Inner {
                bpe,
                splits,
                digits,
                #[cfg(feature = "tiktoken")]
                linear,
                vocab_size: config.default_vocab_size,
                version: config.version.clone(),
            }),
        })
    }

    /// Whether the file's pattern is one whose split points are proven (every Tekken
    /// file published so far), so trimming takes time proportional to what it keeps.
    pub fn has_split_points(&self) -> bool {
        self.inner.splits.is_some()
    }

    /// The vocabulary size the model uses, special tokens included
    /// (`default_vocab_size`).
    pub fn vocab_size(&self) -> usize {
        self.inner.vocab_size
    }

    /// The tokenizer version the file declares (`"v3"`, `"v7"`, ...).
    pub fn version(&self) -> &str {
        &self.inner.version
    }
}

/// Refuses a pattern that cannot count: the encoder must take every byte of sample
/// texts into its tokens (tiktoken-rs encodes only what the pattern matches, so a
/// pattern that matches nothing counts every text as 0) and must not fail on them
/// (a pattern that matches the empty string makes it panic).
fn check_pattern(bpe: &CoreBPE) -> Result<(), String> {
    for sample in ["", tokenizer_file::SAMPLE] {
        let Ok(tokens) = catch_unwind(AssertUnwindSafe(|| bpe.encode_ordinary(sample))) else {
            return Err(format!(
                "its pattern makes the encoder fail on a {}-byte sample text (it can match \
                 the empty string); use one whose every match is at least one character",
                sample.len()
            ));
        };
        let spelled = bpe.decode_bytes(&tokens).unwrap_or_default();
        if spelled != sample.as_bytes() {
            return Err(format!(
                "its pattern matches {} of the {} bytes of a sample text, so counts would \
                 leave text out; use one that matches every character",
                spelled.len(),
                sample.len()
            ));
        }
    }
    Ok(())
}

/// Whether a pattern whose digits are pieces of their own cuts between `previous`
/// and `next`: where `rule` says, after an ASCII digit, and before one that follows
/// a character other than whitespace. A digit is always a whole piece (no other
/// alternative takes `\p{N}`), and nothing looks behind, so the pieces on each side
/// are those of that side alone; before a digit that follows whitespace they are not
/// (`\s+(?!\S)` leaves the last space of a run for the next piece).
fn cuts(rule: SplitRule, previous: char, next: char) -> bool {
    rule.cuts(previous, next)
        || previous.is_ascii_digit()
        || next.is_ascii_digit() && !previous.is_whitespace()
}

impl fmt::Debug for Tekken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tekken")
            .field("version", &self.inner.version)
            .field("vocab_size", &self.inner.vocab_size)
            .finish_non_exhaustive()
    }
}

impl TokenCounter for Tekken {
    /// The number of tokens `mistral-common` gives `text`, without BOS or EOS.
    ///
    /// Should the encoder panic on a text (its pattern comes from the file; the
    /// published ones do not), the count is the text's length in bytes plus one, more
    /// than a byte-level vocabulary can give.
    fn count(&self, text: &str) -> usize {
        let bpe = &self.inner.bpe;
        catch_unwind(AssertUnwindSafe(|| bpe.encode_ordinary(text).len()))
            .unwrap_or_else(|_| text.len().saturating_add(1))
    }

    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        let rule = self.inner.splits?;
        if !self.inner.digits {
            return rule.next(text, from, |_| false);
        }
        let from = splits::ceil_char_boundary(text, from.max(1));
        let mut previous = text.get(..from)?.chars().next_back()?;
        for (offset, next) in text[from..].char_indices() {
            if cuts(rule, previous, next) {
                return Some(from + offset);
            }
            previous = next;
        }
        None
    }

    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        let rule = self.inner.splits?;
        if !self.inner.digits {
            return rule.prev(text, before, |_| false);
        }
        let before = splits::floor_char_boundary(text, before);
        let mut chars = text[..before].char_indices().rev();
        let (_, mut next) = chars.next()?;
        for (at, previous) in chars {
            if cuts(rule, previous, next) {
                return Some(at + previous.len_utf8());
            }
            next = previous;
        }
        None
    }

    fn exactness(&self) -> super::Exactness {
        super::Exactness::Exact
    }

    // The split points are checked to add up by the property tests in
    // `tests/suite/huggingface.rs` and `tests/suite/tekken.rs`: the trimming engine need not
    // count again.
    fn __trusted(&self, _: super::seal::Seal) -> bool {
        true
    }

    // Long runs of one letter, of CJK or of emoji are one piece without split
    // points: the `bpe` crate's encoder counts every part of one in one pass.
    #[cfg(feature = "tiktoken")]
    fn __linear(&self, _: super::seal::Seal) -> Option<super::Linear<'_>> {
        self.inner.linear.as_ref().map(super::Linear::vocab)
    }
}

#[cfg(all(test, feature = "tiktoken"))]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::{Keep, TrimOptions, trim_with};

    /// A Tekken file with Tekken's pattern: the 256 bytes, then runs of `a` of 2,
    /// 3, 4, 8 and 16 bytes, and `日` (3 bytes) and its runs of 2 and 4.
    fn tiny() -> Tekken {
        let encode = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        let mut tokens: Vec<Vec<u8>> = (0u8..=255).map(|byte| vec![byte]).collect();
        for n in [2, 3, 4, 8, 16] {
            tokens.push(b"a".repeat(n));
        }
        tokens.push("日".as_bytes()[..2].to_vec());
        for n in [1, 2, 4] {
            tokens.push("日".repeat(n).into_bytes());
        }
        let vocab: Vec<serde_json::Value> = tokens
            .iter()
            .enumerate()
            .map(|(rank, bytes)| {
                serde_json::json!({"rank": rank, "token_bytes": encode(bytes), "token_str": null})
            })
            .collect();
        let pattern = r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+";
        let file = serde_json::json!({
            "config": {"pattern": pattern, "num_vocab_tokens": tokens.len(),
                       "default_vocab_size": tokens.len() + 10,
                       "default_num_special_tokens": 10, "version": "v3"},
            "vocab": vocab,
        });
        Tekken::from_bytes(file.to_string()).expect("the tiny file loads")
    }

    /// The Tekken counter, adding up the bytes it is asked to count.
    struct Counting<'a> {
        inner: &'a Tekken,
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
        fn __trusted(&self, seal: super::super::seal::Seal) -> bool {
            self.inner.__trusted(seal)
        }
        fn __linear(&self, seal: super::super::seal::Seal) -> Option<super::super::Linear<'_>> {
            self.inner.__linear(seal)
        }
    }

    /// Inside one long run, trimming reads the counts off one encoding by the
    /// linear engine: the counter itself counts less than what is kept (counting
    /// probes count growing parts, several times what is kept), and what is kept
    /// costs what the trim says.
    #[test]
    fn a_long_run_is_searched_with_one_encoding() {
        let tekken = tiny();
        assert!(super::super::linear_engine(&tekken).is_some());
        for unit in ["a", "日"] {
            let text = unit.repeat(20_000);
            for keep in [Keep::Head, Keep::Tail] {
                for budget in [10, 300, 1_000] {
                    let counter = Counting {
                        inner: &tekken,
                        bytes: Cell::new(0),
                    };
                    let trimmed =
                        trim_with(&text, budget, &counter, &TrimOptions::new().keep(keep));
                    let asked = counter.bytes.get();
                    assert!(trimmed.cut && trimmed.tokens <= budget);
                    assert_eq!(trimmed.tokens, tekken.count(trimmed.kept));
                    assert!(
                        asked <= trimmed.kept.len(),
                        "{unit} {keep:?} {budget}: counted {asked} bytes to keep {}",
                        trimmed.kept.len()
                    );
                }
            }
        }
    }

    /// The engine's encoder builds from a vocabulary and counts as tiktoken-rs's;
    /// a vocabulary the `bpe` crate refuses (a token its merges cannot reach) gives
    /// no encoder, and the engine then finds no long piece.
    #[test]
    fn the_encoder_counts_as_tiktoken_or_is_not_used() {
        let tekken = tiny();
        let engine = tekken.inner.linear.as_ref().expect("a known pattern");
        for text in [
            "a",
            "aaaaaaa",
            &"a".repeat(1_001),
            &"日".repeat(77),
            "日日a",
        ] {
            assert_eq!(
                engine.count(text.as_bytes()),
                Some(tekken.count(text)),
                "{text}"
            );
        }
        // Text that is no run encodes too (the search samples it for an estimate).
        let other = "Intro, then: [x] \u{ff} 🇯🇵 \n\t ".as_bytes();
        let ends = super::super::Linear::vocab(engine).token_ends(other);
        assert_eq!(ends.last(), Some(&other.len()));
        // "日日" without "日": no merge reaches it.
        let mut tokens: Vec<Vec<u8>> = (0u8..=255).map(|byte| vec![byte]).collect();
        tokens.push("日日".as_bytes().to_vec());
        let unreachable = super::super::VocabBpe::new(tokens.iter().map(Vec::as_slice));
        assert_eq!(unreachable.count("日日".as_bytes()), None);
        let linear = super::super::Linear::vocab(&unreachable);
        assert_eq!(linear.first_piece_len(&"a".repeat(600)), 0);
        assert!(linear.token_ends(b"aaa").is_empty());
    }
}
