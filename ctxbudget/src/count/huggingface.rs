//! Exact counts of any Hugging Face `tokenizer.json`, through the `tokenizers` crate.
//!
//! [`HuggingFace`] loads the file a model publishes beside its weights (Llama,
//! Mistral, Qwen, Gemma, ...) and counts what Python `tokenizers` counts:
//! `len(tokenizer.encode(text, add_special_tokens=False).ids)`, with truncation and
//! padding off.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::pre_tokenizers::split::SplitPattern;
use tokenizers::{ModelWrapper, NormalizerWrapper, SplitDelimiterBehavior, Tokenizer};

mod growth;
#[cfg(feature = "tiktoken")]
mod linear;

use super::TokenCounter;
use super::splits::{
    IsolatedRuns, PieceRule, SplitRule, ceil_char_boundary, floor_char_boundary, is_deepseek_words,
    is_known_pattern, isolated_run,
};
use super::tokenizer_file::{self, TokenizerFileError, TokenizerSource};

const KIND: &str = "Hugging Face tokenizer.json";

/// Exact token counts of a Hugging Face `tokenizer.json`.
///
/// The count of a text equals Python `tokenizers`'
/// `len(tokenizer.encode(text, add_special_tokens=False).ids)`: added tokens written in
/// the text (`<|eot_id|>`, `<s>`) count as the one token they are, and nothing is
/// added around the text. Truncation and padding set in the file are turned off, so
/// the count is the whole text's. Cloning is cheap: clones share one tokenizer.
///
/// ```
/// use ctxbudget::TokenCounter;
/// use ctxbudget::count::HuggingFace;
///
/// // A tiny word-level tokenizer; real ones come from a model's `tokenizer.json`.
/// let json = r#"{
///   "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
///   "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"},
///   "post_processor": null, "decoder": null,
///   "model": {"type": "WordLevel", "vocab": {"hello": 0, "world": 1, "!": 2, "[UNK]": 3},
///             "unk_token": "[UNK]"}
/// }"#;
/// let counter = HuggingFace::from_bytes(json)?;
/// assert_eq!(counter.count("Hello world!"), 3);
/// assert!(counter.has_split_points());
/// # Ok::<(), ctxbudget::count::TokenizerFileError>(())
/// ```
///
/// Loading a model's file and trimming with it:
///
/// ```no_run
/// use ctxbudget::count::HuggingFace;
/// use ctxbudget::trim_to_budget;
///
/// let counter = HuggingFace::from_file("models/llama-3.1-8b/tokenizer.json")?;
/// let document = std::fs::read_to_string("notes.md").unwrap_or_default();
/// let kept = trim_to_budget(&document, 4_096, &counter);
/// # Ok::<(), ctxbudget::count::TokenizerFileError>(())
/// ```
///
/// # Split points
///
/// Trimming is fast when the counter knows *split points*, offsets where counts add
/// up ([`TokenCounter::next_split`]). A `tokenizer.json` runs four stages: added
/// tokens (`<|eot_id|>`, `<s>`) are cut out of the text first; a normaliser rewrites
/// each stretch between them; a pre-tokenizer cuts it into pieces; the model encodes
/// every piece on its own. So an offset is a split point when the pre-tokenizer
/// provably cuts there in every text around it, the normaliser cannot join the
/// characters on its two sides, and no added token can match across it. The counter
/// reads the stages from the file when it loads it and declares split points only
/// for these, which it can prove:
///
/// | pre-tokenizer | split points |
/// | --- | --- |
/// | `ByteLevel` with its regex (GPT-2 and its descendants) | a space after a character other than whitespace; punctuation after a letter or digit (only the space when `add_prefix_space` is on: a text that starts with a space gets no prefix) |
/// | `Split` with the pattern of GPT-2, `cl100k_base` (Llama 3), Qwen2 (Qwen 2.5 and 3), `o200k_base` or Tekken, `Isolated`, then `ByteLevel` without its regex | the same two kinds |
/// | DeepSeek V3 and V4: `Split` stages that isolate digit runs (`\p{N}{1,3}`) and runs of Chinese characters and kana, then `Split` with DeepSeek's word pattern, then `ByteLevel` without its regex (and an empty normaliser) | where a digit or CJK run meets anything else; between two other characters, the same two kinds |
/// | `Metaspace` with `split` on | every space (spaces become `▁`, and every `▁` starts a piece) |
/// | `Metaspace` with `split` off and a BPE model (Llama 2, Mistral 7B) | a space after a character other than a space, when no token of the vocabulary joins `▁` to a character before it (runs of `▁` aside): checked on the vocabulary when the file is loaded |
/// | `WhitespaceSplit`, `Whitespace` | between whitespace and what is not, and between a word character and punctuation |
///
/// The proof of the first two is the one for `Tiktoken`: a piece
/// never runs from a character other than whitespace into a space, nor from a letter
/// or digit into punctuation, and no alternative of these patterns looks behind, so
/// the pieces left of the offset are the same whether the text goes on or ends there.
/// DeepSeek's word pattern is proven the same way once digits are cut out before
/// it (a digit that starts no match could run on into a control character), and a
/// stage that isolates runs of a class cuts wherever a character of the class meets
/// one that is not, whatever the text around, and the later stages only cut within
/// its pieces. For `Metaspace` without `split` the whole stretch is one piece; byte-pair merges
/// only join symbols into tokens of the vocabulary, so when no token reaches across
/// the offset the merges on each side are the same as on that side alone.
///
/// With a Unicode normaliser (`NFC`, `NFD`, `NFKC`, `NFKD`, `Lowercase`, or a
/// `Sequence` of these) only offsets between two ASCII characters qualify: ASCII
/// characters never compose, decompose or change class, so the normalised text is cut
/// at the same place. Offsets inside, at the edge of, or (for `lstrip`/`rstrip`
/// tokens) in the whitespace beside any occurrence of an added token are never split
/// points, nor are offsets near the edge of the text given that an occurrence may
/// reach from beyond it (the trimming engine asks about short slices).
///
/// Everything else gets no split points, and trimming falls back to the correct but
/// slower search (it counts growing parts of the text instead of each piece once):
/// no pre-tokenizer or an unknown `Split` pattern, normalisers that look across
/// characters or add text (`Prepend`, as in the legacy Llama 2 files; `Replace`,
/// with which Gemma's files turn spaces into `▁`; `Strip`,
/// `Precompiled`, `BertNormalizer`),
/// BPE dropout, and added tokens matched after normalisation (`"normalized": true`)
/// under a normaliser. [`HuggingFace::has_split_points`] says which case a file is.
/// The property tests in `tests/suite/huggingface.rs` check that counts add up at every
/// declared split point, on the fixtures and on adversarial text, for each kind.
///
/// A long stretch without split points that is a run of one letter, of CJK or of
/// emoji is searched in one pass, for a byte-level BPE file (`ByteLevel`, with its
/// own pattern or a known `Split` first, no prefix space, no normaliser or NFC or
/// NFKC, plain merges; with the `tiktoken` feature): the `bpe` crate's linear
/// encoder, built from the merges on the first such search (about 2 s for a
/// 65,000-token vocabulary), encodes a little more than what fits once, and every
/// shorter part's count is read off that encoding, where the search would count
/// several growing parts. Other files (Metaspace, DeepSeek's isolated runs) search
/// by counting.
///
/// # Cost
///
/// `tokenizers` counts a text by building its normalised form (with 16 bytes of
/// alignment per byte) and cutting it into pieces, so what a count costs follows
/// what the normaliser and the pre-tokenizer make of the text. The loader bounds
/// that from the file: each stage's worst case (a `Replace` makes its content of
/// its shortest match, a `Prepend` adds its text to every stretch between added
/// tokens, `NFKC` makes at most 11 bytes of one, a `Precompiled` charsmap its
/// longest value of its key, `ByteLevel` 2, `Metaspace` its replacement of each
/// space), composed along the chain, must stay within 64 bytes of each byte
/// counted, and the chain within 64 stages. Published chains make 2 to 22
/// (Anthropic's NFKC and `ByteLevel`: 22, Llama 2's `Prepend` and `Replace`: 12);
/// 20 chained `Replace e→ee` would make a million, and a `Prepend` of more than a
/// few dozen bytes is more than 64 for a text of one byte: such files are refused
/// when they load, so a count costs at most a fixed multiple of what the same text
/// costs a file that leaves it as it is.
#[derive(Clone)]
pub struct HuggingFace {
    inner: Arc<Inner>,
}

struct Inner {
    tokenizer: Tokenizer,
    splits: Result<SplitRule, &'static str>,
    added: AddedTokens,
    /// The linear engine of a byte-level BPE file, for long runs of one letter, of
    /// CJK or of emoji; built on first use.
    #[cfg(feature = "tiktoken")]
    linear: Option<super::VocabBpe>,
}

impl HuggingFace {
    /// Loads the `tokenizer.json` at `path`.
    ///
    /// # Errors
    ///
    /// [`TokenizerFileError`], naming the file: it cannot be read
    /// ([`Read`](TokenizerFileError::Read)), it is cut short
    /// ([`Truncated`](TokenizerFileError::Truncated)), it is not JSON
    /// ([`Json`](TokenizerFileError::Json)), or it is JSON that `tokenizers` cannot
    /// load, that fails to encode a sample text or gives it no token, or whose
    /// normaliser and pre-tokenizer could make more than 64 bytes of each byte
    /// counted ([`Invalid`](TokenizerFileError::Invalid): chained `Replace` stages
    /// that each lengthen the text, a long `Prepend`; see
    /// [cost](HuggingFace#cost)).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, TokenizerFileError> {
        let path = path.as_ref();
        let bytes = tokenizer_file::read(path)?;
        Self::load(&bytes, &TokenizerSource::of(Some(path)))
    }

    /// Loads a `tokenizer.json` from its bytes (for a file embedded with
    /// `include_bytes!` or fetched by the caller).
    ///
    /// # Errors
    ///
    /// As [`from_file`](Self::from_file), except that nothing is read.
    pub fn from_bytes(bytes: impl AsRef<[u8]>) -> Result<Self, TokenizerFileError> {
        Self::load(bytes.as_ref(), &TokenizerSource::Bytes)
    }

    fn load(bytes: &[u8], file: &TokenizerSource) -> Result<Self, TokenizerFileError> {
        let invalid = |message: String| TokenizerFileError::Invalid {
            file: file.clone(),
            kind: KIND,
            message,
        };
        // `tokenizers` reports a JSON error as a bare string: find out what it was
        // with a parser that says where.
        tokenizer_file::check_json(bytes, file, KIND)?;
        let mut tokenizer = match catch_unwind(|| Tokenizer::from_bytes(bytes)) {
            Ok(Ok(tokenizer)) => tokenizer,
            Ok(Err(error)) => return Err(invalid(error.to_string())),
            Err(_) => return Err(invalid("the tokenizers crate panicked loading it".into())),
        };
        tokenizer
            .with_truncation(None)
            .map_err(|error| invalid(error.to_string()))?;
        tokenizer.with_padding(None);
        // A file whose normaliser and pre-tokenizer multiply the text would make
        // every count cost far more than the text: refuse it before encoding anything.
        growth::check(&tokenizer).map_err(invalid)?;
        // A file that loads but cannot encode ordinary text (a WordPiece model without
        // its unknown token, say) would fail on every count, and one that gives it no
        // token would count every text as 0: refuse it now.
        let sample = tokenizer_file::SAMPLE;
        match catch_unwind(AssertUnwindSafe(|| tokenizer.encode_fast(sample, false))) {
            Ok(Ok(encoding)) if encoding.is_empty() => {
                return Err(invalid(format!(
                    "it gives a {}-byte sample text no token, so every count would be 0; \
                     check its pre-tokenizer and model",
                    sample.len()
                )));
            }
            Ok(Ok(_)) => {}
            Ok(Err(error)) => return Err(invalid(format!("it cannot encode text: {error}"))),
            Err(_) => {
                return Err(invalid(
                    "the tokenizers crate panicked encoding text".into(),
                ));
            }
        }
        let added = AddedTokens::new(&tokenizer);
        let splits = split_rule(&tokenizer, &added);
        #[cfg(feature = "tiktoken")]
        let linear = linear::engine(bytes, &tokenizer, splits, &added.contents);
        Ok(HuggingFace {
            inner: Arc::new(Inner {
                tokenizer,
                splits,
                added,
                #[cfg(feature = "tiktoken")]
                linear,
            }),
        })
    }

    /// Whether this tokenizer has split points, and so trims in time proportional to
    /// what it keeps (see [split points](HuggingFace#split-points)). Without them trimming is still
    /// exact, only slower.
    ///
    /// ```
    /// # use ctxbudget::count::HuggingFace;
    /// // No pre-tokenizer: the model sees the whole text, so nothing is provable.
    /// let json = r#"{"version": "1.0", "added_tokens": [], "normalizer": null,
    ///   "pre_tokenizer": null, "post_processor": null, "decoder": null,
    ///   "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"}}"#;
    /// let counter = HuggingFace::from_bytes(json)?;
    /// assert!(!counter.has_split_points());
    /// assert!(counter.why_no_split_points().unwrap().contains("pre-tokenizer"));
    /// # Ok::<(), ctxbudget::count::TokenizerFileError>(())
    /// ```
    pub fn has_split_points(&self) -> bool {
        self.inner.splits.is_ok()
    }

    /// Why this tokenizer has no split points, or `None` when it has some.
    pub fn why_no_split_points(&self) -> Option<&'static str> {
        self.inner.splits.err()
    }

    /// The number of tokens in the vocabulary, added tokens included.
    pub fn vocab_size(&self) -> usize {
        self.inner.tokenizer.get_vocab_size(true)
    }

    fn is_vetoed(&self, text: &str, at: usize) -> bool {
        self.inner.added.vetoes(text, at)
    }
}

impl fmt::Debug for HuggingFace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HuggingFace")
            .field("vocab_size", &self.vocab_size())
            .field("split_points", &self.inner.splits.is_ok())
            .finish_non_exhaustive()
    }
}

impl TokenCounter for HuggingFace {
    /// The number of token ids `tokenizers` gives `text`, without special tokens
    /// added around it.
    ///
    /// Should `tokenizers` fail or panic on a text (a file that loaded has encoded a
    /// test text, so this is not expected), the count is the text's length in bytes
    /// plus one: more than a tokenizer whose tokens each cover at least one byte
    /// gives, so a budget stays safe.
    fn count(&self, text: &str) -> usize {
        let tokenizer = &self.inner.tokenizer;
        match catch_unwind(AssertUnwindSafe(|| tokenizer.encode_fast(text, false))) {
            Ok(Ok(encoding)) => encoding.len(),
            _ => text.len().saturating_add(1),
        }
    }

    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        let rule = self.inner.splits.ok()?;
        rule.next(text, from, |at| self.is_vetoed(text, at))
    }

    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        let rule = self.inner.splits.ok()?;
        rule.prev(text, before, |at| self.is_vetoed(text, at))
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

    // Long runs of one letter, of CJK or of emoji in a byte-level BPE file: the
    // `bpe` crate's encoder counts every part of one in one pass.
    #[cfg(feature = "tiktoken")]
    fn __linear(&self, _: super::seal::Seal) -> Option<super::Linear<'_>> {
        self.inner.linear.as_ref().map(super::Linear::vocab)
    }
}

/// The split rule of a loaded tokenizer, or why it has none.
fn split_rule(tokenizer: &Tokenizer, added: &AddedTokens) -> Result<SplitRule, &'static str> {
    let ascii_only = match tokenizer.get_normalizer() {
        None => false,
        // An empty Sequence (DeepSeek's files) changes nothing.
        Some(NormalizerWrapper::Sequence(sequence)) if sequence.as_ref().is_empty() => false,
        Some(normalizer) if is_unicode_normalizer(normalizer) => true,
        Some(_) => {
            return Err(
                "its normalizer can join characters across any offset or add text \
                        (only NFC, NFD, NFKC, NFKD and Lowercase are understood)",
            );
        }
    };
    if ascii_only && added.any_normalized {
        return Err(
            "added tokens marked \"normalized\" are matched after normalisation, \
                    where their occurrences cannot be found in the original text",
        );
    }
    let model = tokenizer.get_model();
    if matches!(model, ModelWrapper::BPE(bpe) if bpe.dropout.is_some_and(|p| p > 0.0)) {
        return Err("BPE dropout makes counts random");
    }
    let Some(pre_tokenizer) = tokenizer.get_pre_tokenizer() else {
        return Err("it has no pre-tokenizer: the model encodes each text whole");
    };
    let (pieces, isolated) = piece_rule(pre_tokenizer, model)?;
    Ok(SplitRule {
        pieces,
        isolated,
        ascii_only,
    })
}

/// Normalisers that change text one character at a time, or compose and decompose
/// per Unicode: none of them joins two ASCII characters or changes their class.
fn is_unicode_normalizer(normalizer: &NormalizerWrapper) -> bool {
    match normalizer {
        NormalizerWrapper::NFC(_)
        | NormalizerWrapper::NFD(_)
        | NormalizerWrapper::NFKC(_)
        | NormalizerWrapper::NFKD(_)
        | NormalizerWrapper::Lowercase(_) => true,
        NormalizerWrapper::Sequence(sequence) => {
            sequence.as_ref().iter().all(is_unicode_normalizer)
        }
        _ => false,
    }
}

/// The rule of a pre-tokenizer, with the runs its leading stages isolate.
fn piece_rule(
    pre_tokenizer: &PreTokenizerWrapper,
    model: &ModelWrapper,
) -> Result<(PieceRule, IsolatedRuns), &'static str> {
    let PreTokenizerWrapper::Sequence(sequence) = pre_tokenizer else {
        return Ok((
            stage_rule(pre_tokenizer, model, IsolatedRuns::NONE)?,
            IsolatedRuns::NONE,
        ));
    };
    // Stages that isolate runs of a class, then the one that cuts; the others may
    // only map bytes to characters.
    let mut stages = sequence.as_ref();
    let mut isolated = IsolatedRuns::NONE;
    while let [PreTokenizerWrapper::Split(split), rest @ ..] = stages {
        let runs = match &split.pattern {
            SplitPattern::Regex(pattern)
                if split.behavior == SplitDelimiterBehavior::Isolated && !split.invert =>
            {
                isolated_run(pattern)
            }
            _ => None,
        };
        match runs {
            Some(runs) if !rest.is_empty() => {
                isolated = isolated.with(runs);
                stages = rest;
            }
            _ => break,
        }
    }
    let (first, rest) = stages
        .split_first()
        .ok_or("its pre-tokenizer is an empty Sequence")?;
    let mapping_only = rest.iter().all(|stage| {
        matches!(stage, PreTokenizerWrapper::ByteLevel(b)
            if !b.use_regex && !b.add_prefix_space)
    });
    if !mapping_only {
        return Err(
            "its pre-tokenizer Sequence has stages after the first that \
                    cut or add text (other than the digit and CJK runs DeepSeek's cut first)",
        );
    }
    Ok((stage_rule(first, model, isolated)?, isolated))
}

/// The rule of one stage that cuts, after stages that isolated `isolated`.
fn stage_rule(
    pre_tokenizer: &PreTokenizerWrapper,
    model: &ModelWrapper,
    isolated: IsolatedRuns,
) -> Result<PieceRule, &'static str> {
    match pre_tokenizer {
        PreTokenizerWrapper::ByteLevel(byte_level) if byte_level.use_regex => {
            Ok(PieceRule::Pattern {
                punctuation: !byte_level.add_prefix_space,
            })
        }
        PreTokenizerWrapper::Split(split) => match &split.pattern {
            SplitPattern::Regex(pattern)
                if (is_known_pattern(pattern)
                    || (isolated.digits && is_deepseek_words(pattern)))
                    && split.behavior == SplitDelimiterBehavior::Isolated
                    && !split.invert =>
            {
                Ok(PieceRule::Pattern { punctuation: true })
            }
            _ => Err("its Split pattern is not one whose pieces are understood \
                      (GPT-2, cl100k_base, Qwen2, o200k_base, Tekken, DeepSeek V3)"),
        },
        PreTokenizerWrapper::Metaspace(metaspace) => {
            let replacement = metaspace.get_replacement();
            if !metaspace.get_split() && !vocabulary_keeps_replacements_apart(model, replacement) {
                return Err(
                    "Metaspace does not split, and the vocabulary has tokens that \
                            join a replacement character to what precedes it",
                );
            }
            Ok(PieceRule::Metaspace {
                replacement,
                split: metaspace.get_split(),
            })
        }
        PreTokenizerWrapper::WhitespaceSplit(_) => Ok(PieceRule::WhitespaceSplit),
        PreTokenizerWrapper::Whitespace(_) => Ok(PieceRule::Whitespace),
        // A Sequence nested first in a Sequence: as the outer one, without runs.
        PreTokenizerWrapper::Sequence(_) if isolated == IsolatedRuns::NONE => {
            match piece_rule(pre_tokenizer, model)? {
                (rule, runs) if runs == IsolatedRuns::NONE => Ok(rule),
                _ => Err("its pre-tokenizer isolates runs in a nested Sequence"),
            }
        }
        _ => Err("its pre-tokenizer is not one whose cuts are understood"),
    }
}

/// Whether a BPE model can never produce a token that joins `replacement` to a
/// different character before it: every token with `replacement` after its first
/// character is a run of `replacement` only. Then, in text where a space follows
/// another character, no merge reaches across the space, and byte-pair encoding on
/// each side is the same as on that side alone.
fn vocabulary_keeps_replacements_apart(model: &ModelWrapper, replacement: char) -> bool {
    let ModelWrapper::BPE(bpe) = model else {
        return false;
    };
    if !plain_bpe(bpe) {
        return false;
    }
    bpe.get_vocab().keys().all(|token| {
        let mut chars = token.chars();
        chars.next();
        !chars.as_str().contains(replacement) || token.chars().all(|c| c == replacement)
    })
}

/// A BPE model that only merges: no dropout, no whole-word lookup before merging
/// (`ignore_merges`), no prefix or suffix that depends on where a word starts or
/// ends.
fn plain_bpe(bpe: &BPE) -> bool {
    bpe.dropout.is_none_or(|p| p == 0.0)
        && !bpe.ignore_merges
        && bpe.continuing_subword_prefix.is_none()
        && bpe.end_of_word_suffix.is_none()
}

/// The added tokens of a tokenizer, as far as split points care: an offset inside, at
/// the edge of, or in whitespace an `lstrip`/`rstrip` token takes in, is never one.
///
/// Split points must be local: the trimming engine asks about short slices of a
/// text, which may cut through an occurrence. So an occurrence that the slice's
/// edge may hide (the slice starts with the end of a token, or ends with the start
/// of one) vetoes too.
struct AddedTokens {
    /// Every non-empty added token, for overlapping search.
    finder: Option<aho_corasick::AhoCorasick>,
    /// The tokens' contents.
    contents: Vec<Box<[u8]>>,
    /// By byte: the tokens that start with it.
    starting: Vec<Vec<usize>>,
    /// By byte: `(token, k)` for every `k >= 1` where the token's byte `k` is it.
    inner: Vec<Vec<(usize, usize)>>,
    /// The longest added token in bytes.
    longest: usize,
    /// Bytes that occur in some added token: an offset with neither neighbouring
    /// byte among them cannot touch an occurrence.
    bytes: [bool; 256],
    lstrip: Vec<String>,
    rstrip: Vec<String>,
    any_normalized: bool,
}

/// How far to look through whitespace for an `lstrip`/`rstrip` token: past this,
/// the offset is vetoed without looking (rare, and keeps the search bounded).
const STRIP_REACH: usize = 256;

impl AddedTokens {
    fn new(tokenizer: &Tokenizer) -> Self {
        let tokens: Vec<_> = tokenizer
            .get_added_vocabulary()
            .get_added_tokens_decoder()
            .values()
            .filter(|token| !token.content.is_empty())
            .cloned()
            .collect();
        let mut bytes = [false; 256];
        for token in &tokens {
            for &byte in token.content.as_bytes() {
                bytes[usize::from(byte)] = true;
            }
        }
        // aho-corasick refuses no set of strings; were it to, `vetoes` vetoes all.
        let finder = if tokens.is_empty() {
            None
        } else {
            aho_corasick::AhoCorasick::new(tokens.iter().map(|token| token.content.as_str())).ok()
        };
        let contents: Vec<Box<[u8]>> = tokens
            .iter()
            .map(|token| token.content.as_bytes().into())
            .collect();
        let mut starting = vec![Vec::new(); 256];
        let mut inner = vec![Vec::new(); 256];
        for (index, content) in contents.iter().enumerate() {
            starting[usize::from(content[0])].push(index);
            for (k, &byte) in content.iter().enumerate().skip(1) {
                inner[usize::from(byte)].push((index, k));
            }
        }
        AddedTokens {
            finder,
            contents,
            starting,
            inner,
            longest: tokens.iter().map(|t| t.content.len()).max().unwrap_or(0),
            bytes,
            lstrip: Self::contents(&tokens, |t| t.lstrip),
            rstrip: Self::contents(&tokens, |t| t.rstrip),
            any_normalized: tokens.iter().any(|t| t.normalized),
        }
    }

    fn contents(
        tokens: &[tokenizers::AddedToken],
        keep: impl Fn(&tokenizers::AddedToken) -> bool,
    ) -> Vec<String> {
        tokens
            .iter()
            .filter(|token| keep(token))
            .map(|token| token.content.clone())
            .collect()
    }

    fn vetoes(&self, text: &str, at: usize) -> bool {
        if self.longest == 0 {
            return false;
        }
        let Some(finder) = &self.finder else {
            return true;
        };
        if self.touches_occurrence(finder, text, at) {
            return true;
        }
        (!self.lstrip.is_empty() && self.lstrip_reaches(text, at))
            || (!self.rstrip.is_empty() && self.rstrip_reaches(text, at))
    }

    /// An occurrence `[s, e)` of some added token with `s <= at <= e`.
    fn touches_occurrence(
        &self,
        finder: &aho_corasick::AhoCorasick,
        text: &str,
        at: usize,
    ) -> bool {
        let bytes = text.as_bytes();
        let before = at.checked_sub(1).and_then(|i| bytes.get(i));
        let after = bytes.get(at);
        if !before.is_some_and(|&b| self.bytes[usize::from(b)])
            && !after.is_some_and(|&b| self.bytes[usize::from(b)])
        {
            return false;
        }
        let low = floor_char_boundary(text, at.saturating_sub(self.longest));
        let high = ceil_char_boundary(text, at.saturating_add(self.longest));
        finder
            .find_overlapping_iter(&text[low..high])
            .any(|found| low + found.start() <= at && at <= low + found.end())
            || self.may_cross_an_edge(text.as_bytes(), at)
    }

    /// An occurrence that would reach `at` from beyond an edge of `text`: a token
    /// whose end begins `text` and reaches `at`, or whose start begins at or before
    /// `at` and runs past the end of `text`.
    fn may_cross_an_edge(&self, text: &[u8], at: usize) -> bool {
        let len = text.len();
        if at < self.longest {
            if let Some(&first) = text.first() {
                for &(token, k) in &self.inner[usize::from(first)] {
                    let rest = &self.contents[token][k..];
                    let visible = rest.len().min(len);
                    if rest.len() >= at && text[..visible] == rest[..visible] {
                        return true;
                    }
                }
            }
        }
        if at < len && len - at < self.longest {
            for start in len.saturating_sub(self.longest - 1)..=at {
                let tail = &text[start..];
                let runs_past = |&token: &usize| {
                    let content = &self.contents[token];
                    content.len() > tail.len() && content.starts_with(tail)
                };
                if self.starting[usize::from(tail[0])].iter().any(runs_past) {
                    return true;
                }
            }
        }
        false
    }

    /// An `lstrip` token after the whitespace that starts at `at`: it would take that
    /// whitespace in.
    fn lstrip_reaches(&self, text: &str, at: usize) -> bool {
        let rest = &text[at..];
        let skipped: usize = rest
            .chars()
            .take_while(|c| c.is_whitespace())
            .take(STRIP_REACH + 1)
            .map(char::len_utf8)
            .sum();
        if skipped == 0 {
            return false;
        }
        let after = &rest[skipped..];
        // Whitespace up to the end of the slice: a token may follow beyond it.
        skipped > STRIP_REACH
            || after.is_empty()
            || self
                .lstrip
                .iter()
                .any(|t| after.starts_with(t.as_str()) || t.starts_with(after))
    }

    /// An `rstrip` token before the whitespace that ends at `at`.
    fn rstrip_reaches(&self, text: &str, at: usize) -> bool {
        let head = &text[..at];
        let skipped: usize = head
            .chars()
            .rev()
            .take_while(|c| c.is_whitespace())
            .take(STRIP_REACH + 1)
            .map(char::len_utf8)
            .sum();
        if skipped == 0 {
            return false;
        }
        let before = &head[..head.len() - skipped];
        skipped > STRIP_REACH
            || before.is_empty()
            || self
                .rstrip
                .iter()
                .any(|t| before.ends_with(t.as_str()) || t.ends_with(before))
    }
}
