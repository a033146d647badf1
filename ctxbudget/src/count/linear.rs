//! The linear byte-pair engine behind [`Tiktoken`](super::Tiktoken) for `o200k_base`
//! and `cl100k_base`: `bpe-openai`'s pre-tokenizer and backtracking encoder, which
//! give the token ids of `tiktoken-rs` (checked by the property tests in
//! `tests/suite/tiktoken_linear.rs`) in time linear in the text, where `tiktoken-rs` is
//! super-linear on one long piece (a run of one letter, CJK text without
//! punctuation, a run of emoji).
//!
//! Most of the work is done before either: ASCII pieces are cut by a byte scan of
//! the patterns' rules (`pieces.rs`), a piece that is one token is counted with one
//! hash lookup and a piece of a few bytes with `tiktoken`'s merge loop (`merge.rs`);
//! the regular expression and the backtracking encoder take the rest.
//!
//! Besides counting, the engine answers what the trimming engine needs inside a long
//! piece without split points. Byte-pair encodings have the *prefix property*: any
//! run of consecutive tokens of the encoding of a text is itself the encoding of the
//! text it spells (the `bpe` crate's README, "Corollary II"). So one encoding of a
//! stretch gives the exact count of every prefix (and suffix) that ends at one of its
//! token boundaries, at the cost of one count.

// The engine of a file's vocabulary serves the `huggingface` and `tekken` counters.
#![cfg_attr(
    not(any(feature = "huggingface", feature = "tekken")),
    allow(dead_code)
)]

use std::sync::LazyLock;

use bpe_openai::Tokenizer;

use super::merge::Ranks;
use super::pieces::{Pattern, Pieces};
use super::tiktoken_splits::is_split_point;

static O200K_RANKS: LazyLock<Ranks> = LazyLock::new(|| Ranks::new(&bpe_openai::o200k_base().bpe));
static CL100K_RANKS: LazyLock<Ranks> = LazyLock::new(|| Ranks::new(&bpe_openai::cl100k_base().bpe));

/// How a stretch of text compares with a budget, its pieces counted one by one from
/// the kept side (see [`OpenAi::walk_head`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PieceWalk {
    /// The whole stretch costs this many tokens, within the limit.
    Fits(usize),
    /// The stretch is over the limit. The part up to (head) or from (tail) the
    /// split point `split` (or the kept end of the stretch) costs `tokens`, within
    /// the limit; the part that takes it over lies between `split` and `until`, the
    /// next split point or the far end of the stretch, with no split point between.
    Over {
        split: usize,
        tokens: usize,
        until: usize,
    },
}

/// A handle on the linear engine of one OpenAI encoding; `Copy`, a shared reference.
#[derive(Clone, Copy)]
pub(crate) struct OpenAi {
    tokenizer: &'static Tokenizer,
    /// The vocabulary by bytes: one lookup for a piece that is one token, the
    /// merge loop for other short pieces.
    ranks: &'static Ranks,
    /// The pattern the pre-tokenizer cuts with, for its byte scan of ASCII text.
    pattern: Pattern,
}

impl std::fmt::Debug for OpenAi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAi").finish_non_exhaustive()
    }
}

/// The longest token of the OpenAI vocabularies is 128 bytes: a piece of `n` bytes
/// costs at least `n / 128` tokens, whatever it holds.
pub(crate) const MAX_TOKEN_BYTES: usize = 128;

impl OpenAi {
    pub(crate) fn o200k_base() -> Self {
        OpenAi {
            tokenizer: bpe_openai::o200k_base(),
            ranks: &O200K_RANKS,
            pattern: Pattern::O200k,
        }
    }

    pub(crate) fn cl100k_base() -> Self {
        OpenAi {
            tokenizer: bpe_openai::cl100k_base(),
            ranks: &CL100K_RANKS,
            pattern: Pattern::Cl100k,
        }
    }

    /// The exact count of `text`, equal to `tiktoken`'s `encode_ordinary(text).len()`.
    pub(crate) fn count(self, text: &str) -> usize {
        self.pieces(text)
            .map(|piece| self.piece_count(piece.as_bytes()))
            .sum()
    }

    /// The count of one piece: a hash lookup if it is one token, the merge loop on
    /// the stack if it is short, the linear encoder otherwise.
    #[inline]
    fn piece_count(self, piece: &[u8]) -> usize {
        match self.ranks.count(piece) {
            Some(count) => count,
            None => self.tokenizer.bpe.count(piece),
        }
    }

    /// `Some(count(text))` when it is at most `limit`, else `None`, stopping at the
    /// first piece that takes the sum past `limit`; a piece too long to fit even in
    /// tokens of the longest length is not counted at all.
    pub(crate) fn count_within(self, text: &str, limit: usize) -> Option<usize> {
        if text.len() / MAX_TOKEN_BYTES > limit {
            // Too long to fit even in tokens of the longest length.
            return None;
        }
        let mut total = 0usize;
        for piece in self.pieces(text) {
            let left = limit - total;
            if piece.len() / MAX_TOKEN_BYTES > left {
                return None;
            }
            total += self.piece_count(piece.as_bytes());
            if total > limit {
                return None;
            }
        }
        Some(total)
    }

    /// Counts `text`, whose ends are split points or ends of the whole text, piece
    /// by piece from its beginning, and stops at the first piece that takes the sum
    /// past `limit`: one count of what fits where counting the stretch and finding
    /// it over would take two. At a piece end that is a split point, the sum is the
    /// count of the text before it.
    pub(crate) fn walk_head(self, text: &str, limit: usize) -> PieceWalk {
        let (mut total, mut split, mut split_tokens) = (0usize, 0, 0);
        let mut over = false;
        let mut end = 0;
        for piece in self.pieces(text) {
            end += piece.len();
            if !over {
                total = total.saturating_add(self.piece_count(piece.as_bytes()));
                over = total > limit;
            }
            if end < text.len() && is_split_point(text, end) {
                if over {
                    return PieceWalk::Over {
                        split,
                        tokens: split_tokens,
                        until: end,
                    };
                }
                (split, split_tokens) = (end, total);
            }
        }
        if over {
            PieceWalk::Over {
                split,
                tokens: split_tokens,
                until: text.len(),
            }
        } else {
            PieceWalk::Fits(total)
        }
    }

    /// [`Self::walk_head`] from the end of `text`: its pieces are cut from its
    /// beginning (a split point, so as in the whole text) and counted from the last.
    pub(crate) fn walk_tail(self, text: &str, limit: usize) -> PieceWalk {
        let lengths: Vec<usize> = self.pieces(text).map(str::len).collect();
        let (mut total, mut split, mut split_tokens) = (0usize, text.len(), 0);
        let mut over = false;
        let mut start = text.len();
        for length in lengths.into_iter().rev() {
            let end = start;
            start -= length;
            if !over {
                let piece = &text.as_bytes()[start..end];
                total = total.saturating_add(self.piece_count(piece));
                over = total > limit;
            }
            if start > 0 && is_split_point(text, start) {
                if over {
                    return PieceWalk::Over {
                        split,
                        tokens: split_tokens,
                        until: start,
                    };
                }
                (split, split_tokens) = (start, total);
            }
        }
        if over {
            PieceWalk::Over {
                split,
                tokens: split_tokens,
                until: 0,
            }
        } else {
            PieceWalk::Fits(total)
        }
    }

    /// The token ids of `text`, as `tiktoken`'s `encode_ordinary` gives them.
    #[cfg(test)]
    pub(crate) fn encode(self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text)
    }

    /// The pieces the pre-tokenizer cuts `text` into, each encoded alone.
    pub(crate) fn pieces(self, text: &str) -> Pieces<'_> {
        Pieces::new(self.pattern, self.tokenizer, text)
    }

    /// The length of the first piece of `text` (0 for `""`).
    pub(crate) fn first_piece_len(self, text: &str) -> usize {
        if is_known_one_piece(text) {
            return text.len();
        }
        self.pieces(text).next().map_or(0, str::len)
    }

    /// Whether the pre-tokenizer keeps `text` in one piece.
    pub(crate) fn is_one_piece(self, text: &str) -> bool {
        self.first_piece_len(text) == text.len()
    }

    /// The byte offsets in `bytes` at which the tokens of its encoding (as one piece)
    /// end, in order; the last one is `bytes.len()`.
    pub(crate) fn token_ends(self, bytes: &[u8]) -> Vec<usize> {
        if let Some(ends) = self.ranks.token_ends(bytes) {
            return ends;
        }
        let bpe = &self.tokenizer.bpe;
        let mut end = 0;
        bpe.encode_via_backtracking(bytes)
            .into_iter()
            .map(|token| {
                end += bpe.token_len(token);
                end
            })
            .collect()
    }
}

/// The linear engine the trimming engine searches a long piece with: an OpenAI
/// encoding's, or the `bpe` crate's encoder of a vocabulary loaded from a file
/// (Tekken). `Copy`, a shared reference.
#[derive(Clone, Copy, Debug)]
pub struct Linear<'a>(Engine<'a>);

#[derive(Clone, Copy, Debug)]
enum Engine<'a> {
    OpenAi(OpenAi),
    Vocab(&'a VocabBpe),
}

impl From<OpenAi> for Linear<'_> {
    fn from(engine: OpenAi) -> Self {
        Linear(Engine::OpenAi(engine))
    }
}

impl<'a> Linear<'a> {
    /// The engine of a vocabulary loaded from a file.
    pub(crate) fn vocab(engine: &'a VocabBpe) -> Self {
        Linear(Engine::Vocab(engine))
    }

    /// The OpenAI engine, which also knows the split points of its encodings and
    /// so walks a stretch piece by piece ([`OpenAi::walk_head`]); `None` for a
    /// vocabulary loaded from a file.
    pub(crate) fn walker(self) -> Option<OpenAi> {
        match self.0 {
            Engine::OpenAi(engine) => Some(engine),
            Engine::Vocab(_) => None,
        }
    }

    /// Whether the pieces it cuts are the pre-tokenizer's (an OpenAI encoding), not
    /// only runs that may be the beginning or end of a longer piece.
    pub(crate) fn knows_pieces(self) -> bool {
        matches!(self.0, Engine::OpenAi(_))
    }

    /// The byte offsets in `bytes` at which the tokens of its encoding (as one piece)
    /// end, in order; the last one is `bytes.len()`. Empty for a vocabulary whose
    /// encoder could not be built (its pieces are then never long, see
    /// [`Self::first_piece_len`]).
    pub(crate) fn token_ends(self, bytes: &[u8]) -> Vec<usize> {
        match self.0 {
            Engine::OpenAi(engine) => engine.token_ends(bytes),
            Engine::Vocab(engine) => engine.token_ends(bytes),
        }
    }

    /// The length of the first piece of `text` (0 for `""`). For a vocabulary
    /// loaded from a file, a lower bound known from the characters alone: the
    /// longest beginning of `text` that is a [`Run`] (0 when its encoder could not be
    /// built, so that the search leaves the text to the counting probes).
    pub(crate) fn first_piece_len(self, text: &str) -> usize {
        match self.0 {
            Engine::OpenAi(engine) => engine.first_piece_len(text),
            Engine::Vocab(engine) if engine.bpe().is_some() => run_prefix_len(text),
            Engine::Vocab(_) => 0,
        }
    }

    /// Where the last piece of `text` starts (`text.len()` for `""`). For a
    /// vocabulary loaded from a file, an upper bound known from the characters
    /// alone: the start of the longest end of `text` that is a [`Run`].
    pub(crate) fn last_piece_start(self, text: &str) -> usize {
        match self.0 {
            Engine::OpenAi(engine) => {
                let mut last = text.len();
                let mut offset = 0;
                for piece in engine.pieces(text) {
                    last = offset;
                    offset += piece.len();
                }
                last
            }
            Engine::Vocab(engine) if engine.bpe().is_some() => run_suffix_start(text),
            Engine::Vocab(_) => text.len(),
        }
    }

    /// Whether the pre-tokenizer keeps `text` in one piece; for a vocabulary loaded
    /// from a file, whether its characters say so (a [`Run`]), else `false`.
    pub(crate) fn is_one_piece(self, text: &str) -> bool {
        match self.0 {
            Engine::OpenAi(engine) => engine.is_one_piece(text),
            Engine::Vocab(_) => Run::of(text).is_some(),
        }
    }
}

/// The linear engine of a byte-pair vocabulary loaded from a file (Tekken's, whose
/// ranks are tiktoken's): the `bpe` crate's backtracking encoder, built on first
/// use (a few hundred milliseconds for 130,000 tokens), so that a counter that never
/// searches a long piece never pays for it.
///
/// The pre-tokenizer of such a file is not this crate's, so the engine knows only
/// the pieces whose characters tell: a [`Run`] is one piece for every pattern
/// [`super::splits::is_known_pattern`] accepts (GPT-2's, `cl100k_base`'s,
/// `o200k_base`'s, Tekken's), which the owner checks before it builds one.
pub(crate) struct VocabBpe {
    /// The tokens' bytes in rank order, one after the other.
    bytes: Box<[u8]>,
    /// Where each token ends in `bytes`.
    ends: Box<[usize]>,
    /// The encoder, or `None` when the `bpe` crate refused the vocabulary (a token
    /// that its merges cannot reach, say).
    built: std::sync::OnceLock<Option<bpe::byte_pair_encoding::BytePairEncoding>>,
}

impl std::fmt::Debug for VocabBpe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VocabBpe")
            .field("tokens", &self.ends.len())
            .finish_non_exhaustive()
    }
}

/// How many hash factors [`VocabBpe`] tries for one free of collisions: with
/// 130,000 tokens about one in eight is (the `bpe` crate keeps 32 bits of a hash).
const HASH_FACTOR_TRIES: u64 = 256;

impl VocabBpe {
    /// A vocabulary of `tokens`, in rank order (rank 0 first); nothing is built yet.
    ///
    /// Only the single bytes and the tokens that can occur in the encoding of a run
    /// are kept (those whose whole characters are characters of runs, whatever
    /// bytes of a character they begin or end with), in the same order: byte-pair merging on a text only
    /// ever makes tokens that are parts of it, and each such token's merges are
    /// parts of it too, so runs encode as with the whole vocabulary, and the `bpe`
    /// crate builds its automata over a fraction of it.
    pub(crate) fn new<'t>(tokens: impl IntoIterator<Item = &'t [u8]>) -> Self {
        let mut bytes = Vec::new();
        let mut ends = Vec::new();
        // Every byte stays a token, so that any bytes encode (a sample of text that
        // is not a run gives an estimate).
        let kept = |token: &&[u8]| token.len() == 1 || may_occur_in_a_run(token);
        for token in tokens.into_iter().filter(kept) {
            bytes.extend_from_slice(token);
            ends.push(bytes.len());
        }
        VocabBpe {
            bytes: bytes.into(),
            ends: ends.into(),
            built: std::sync::OnceLock::new(),
        }
    }

    fn tokens(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.bytes[start..end])
    }

    /// The encoder, built on the first call.
    pub(crate) fn bpe(&self) -> Option<&bpe::byte_pair_encoding::BytePairEncoding> {
        self.built.get_or_init(|| self.build()).as_ref()
    }

    /// Builds the encoder with the first hash factor under which no two tokens
    /// collide (the `bpe` crate panics on a collision), or `None`.
    fn build(&self) -> Option<bpe::byte_pair_encoding::BytePairEncoding> {
        let mut seen = rustc_hash::FxHashSet::default();
        let factor = (1..=HASH_FACTOR_TRIES)
            .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
            .find(|&factor| {
                seen.clear();
                self.tokens()
                    .all(|token| seen.insert(bpe_hash(token, factor)))
            })?;
        let tokens = self.tokens().map(<[u8]>::to_vec);
        // The crate also panics on a vocabulary whose tokens do not each encode to
        // themselves: its encoding would not be tiktoken's.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            bpe::byte_pair_encoding::BytePairEncoding::from_dictionary(tokens, Some(factor))
        }))
        .ok()
    }

    fn token_ends(&self, bytes: &[u8]) -> Vec<usize> {
        let Some(bpe) = self.bpe() else {
            return Vec::new();
        };
        let mut end = 0;
        bpe.encode_via_backtracking(bytes)
            .into_iter()
            .map(|token| {
                end += bpe.token_len(token);
                end
            })
            .collect()
    }

    /// The count of `bytes` as one piece, if the encoder could be built (Tekken's
    /// tests check its encoder with it).
    #[cfg(all(test, feature = "tekken"))]
    pub(crate) fn count(&self, bytes: &[u8]) -> Option<usize> {
        self.bpe().map(|bpe| bpe.count(bytes))
    }
}

/// Whether `token` can be part of the bytes of a run: past the continuation bytes
/// it may begin with and before the incomplete character it may end with, its
/// characters are characters of runs.
fn may_occur_in_a_run(token: &[u8]) -> bool {
    let start = token
        .iter()
        .take(3)
        .take_while(|&&byte| byte & 0xC0 == 0x80)
        .count();
    let rest = &token[start..];
    let (valid, incomplete) = match std::str::from_utf8(rest) {
        Ok(text) => (text, false),
        Err(error) => (
            std::str::from_utf8(&rest[..error.valid_up_to()]).unwrap_or_default(),
            error.error_len().is_some(),
        ),
    };
    // `error_len` is `Some` for bytes that are no UTF-8 at all, `None` for an
    // incomplete character at the end.
    !incomplete && valid.chars().all(is_run_char)
}

/// The `bpe` crate's (0.2) hash of a token's bytes under `factor`: FNV-1a of the
/// length (8 bytes, little-endian) and the bytes, times `factor`, high 32 bits.
/// Should a later version hash otherwise, a collision makes the build panic and
/// the engine is not used.
#[allow(clippy::cast_possible_truncation)]
fn bpe_hash(bytes: &[u8], factor: u64) -> u32 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    let length = (bytes.len() as u64).to_le_bytes();
    for &byte in length.iter().chain(bytes) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01B3);
    }
    (hash.wrapping_mul(factor) >> 32) as u32
}

/// Whether `c` may be part of a [`Run`]: an ASCII letter, a letter without case, a
/// pictograph or a character of emoji sequences.
pub(crate) fn is_run_char(c: char) -> bool {
    c.is_ascii_alphabetic() || is_caseless_letter(c) || is_pictograph_char(c)
}

/// The length of the longest beginning of `text` that is a [`Run`] (0 if none).
fn run_prefix_len(text: &str) -> usize {
    let Some(first) = text.chars().next() else {
        return 0;
    };
    let same: fn(char) -> bool = if first.is_ascii_lowercase() {
        |c| c.is_ascii_lowercase()
    } else if first.is_ascii_uppercase() {
        |c| c.is_ascii_uppercase()
    } else if is_caseless_letter(first) {
        is_caseless_letter
    } else if is_pictograph_char(first) {
        is_pictograph_char
    } else {
        return 0;
    };
    let length = text
        .char_indices()
        .find(|&(_, c)| !same(c))
        .map_or(text.len(), |(at, _)| at);
    if Run::of(&text[..length]).is_some() {
        length
    } else {
        0
    }
}

/// Where the longest end of `text` that is a [`Run`] starts (`text.len()` if none).
fn run_suffix_start(text: &str) -> usize {
    let Some(last) = text.chars().next_back() else {
        return 0;
    };
    let same: fn(char) -> bool = if last.is_ascii_lowercase() {
        |c| c.is_ascii_lowercase()
    } else if last.is_ascii_uppercase() {
        |c| c.is_ascii_uppercase()
    } else if is_caseless_letter(last) {
        is_caseless_letter
    } else if is_pictograph_char(last) {
        is_pictograph_char
    } else {
        return text.len();
    };
    let mut start = text
        .char_indices()
        .rev()
        .find(|&(_, c)| !same(c))
        .map_or(0, |(at, c)| at + c.len_utf8());
    // A run of pictographs may not begin with a variation selector in its first
    // two characters: step over at most two.
    for _ in 0..2 {
        if start >= text.len() || Run::of(&text[start..]).is_some() {
            break;
        }
        start += text[start..].chars().next().map_or(1, char::len_utf8);
    }
    if start < text.len() && Run::of(&text[start..]).is_some() {
        start
    } else {
        text.len()
    }
}

/// Whether both encodings' patterns keep `text` in one piece, known from its
/// characters alone, where the pre-tokenizer's regular expression costs some tens
/// of instructions a byte: a run of ASCII letters of one case, of letters without
/// case (ideographs, kana, Hangul), or of pictographs. `false` leaves the answer to
/// the regular expression.
fn is_known_one_piece(text: &str) -> bool {
    Run::of(text).is_some()
}

/// A text that both encodings' patterns keep in one piece, known from its
/// characters alone (see [`is_known_one_piece`]); and so is most of what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Run {
    /// ASCII letters of one case.
    OneCaseAscii,
    /// Letters without case.
    Caseless,
    /// Pictographs, not beginning with a variation selector in its first two
    /// characters.
    Pictographs,
}

impl Run {
    /// The run `text` is, if it is one.
    pub(crate) fn of(text: &str) -> Option<Run> {
        match text.as_bytes().first() {
            None => None,
            Some(first) if first.is_ascii() => {
                is_one_case_letter_run(text).then_some(Run::OneCaseAscii)
            }
            Some(_) if is_caseless_letter_run(text) => Some(Run::Caseless),
            Some(_) => is_pictograph_run(text).then_some(Run::Pictographs),
        }
    }

    /// Whether `part`, a slice of a text of this run, is one piece too: any
    /// non-empty slice of the letter runs; a slice of pictographs unless a
    /// variation selector is its first or second character.
    pub(crate) fn keeps_whole(self, part: &str) -> bool {
        match self {
            Run::OneCaseAscii | Run::Caseless => !part.is_empty(),
            Run::Pictographs => {
                let mut chars = part.chars();
                match (chars.next(), chars.next()) {
                    (None, _) => false,
                    (Some(first), second) => {
                        !is_variation_selector(first) && !second.is_some_and(is_variation_selector)
                    }
                }
            }
        }
    }
}

/// Letters without case that both patterns take in one piece (`\p{Lo}` and
/// `\p{Lm}`, in both of `o200k_base`'s letter classes and in `cl100k_base`'s
/// `\p{L}+`): CJK ideographs (and Extension A), hiragana, katakana, Hangul
/// syllables. Checked against the patterns' own classes for every code point in
/// `tests::caseless_letters_and_pictographs_are_what_the_patterns_say`. The two
/// digraphs U+309F (ゟ) and U+30FF (ヿ) are left out: NFKC, the normaliser of some
/// `tokenizer.json` files, turns them into two characters, and every other
/// character of a run is left as it is by NFC and NFKC (checked in
/// `tests/suite/huggingface.rs`).
fn is_caseless_letter(c: char) -> bool {
    matches!(c as u32,
        0x3041..=0x3096 | 0x309D..=0x309E | 0x30A1..=0x30FA | 0x30FC..=0x30FE
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3)
}

fn is_caseless_letter_run(text: &str) -> bool {
    text.chars().all(is_caseless_letter)
}

/// Pictographs and the characters of emoji sequences that both patterns' symbol
/// runs (` ?[^\s\p{L}\p{N}]+`) take: the emoji and pictograph blocks (symbols,
/// skin tones, regional indicators; unassigned code points there are in the class
/// too), the zero-width joiner, and the variation selectors (marks).
fn is_pictograph_char(c: char) -> bool {
    matches!(c as u32,
        0x1F1E6..=0x1F1FF | 0x1F300..=0x1FAFF | 0x2600..=0x26FF | 0x2700..=0x2775
        | 0x2794..=0x27BF | 0x200D)
        || is_variation_selector(c)
}

fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE0E}' | '\u{FE0F}')
}

/// A run of pictographs is one symbol piece, unless a variation selector (a
/// mark) is its first or second character: `o200k_base`'s letter alternative,
/// tried first, then takes the marks (and the symbol before them) as a piece.
fn is_pictograph_run(text: &str) -> bool {
    let mut chars = text.chars();
    let starts_with_mark = chars.next().is_some_and(is_variation_selector)
        || chars.next().is_some_and(is_variation_selector);
    !starts_with_mark && text.chars().all(is_pictograph_char)
}

/// Whether `text` is ASCII letters of one case only, which both encodings' patterns
/// keep in one piece (a run of lowercase letters, or of capitals, with nothing
/// before it): a byte scan where the pre-tokenizer's regular expression costs some
/// hundred instructions a byte.
fn is_one_case_letter_run(text: &str) -> bool {
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && (bytes.iter().all(u8::is_ascii_lowercase) || bytes.iter().all(u8::is_ascii_uppercase))
}

#[cfg(test)]
mod tests {
    use super::super::merge::SHORT_PIECE;
    use super::*;

    #[test]
    fn one_case_letter_runs_are_one_piece_as_the_patterns_say() {
        let runs = ["a", "zzzz", "QUICK", "abcdefghijklmnopqrstuvwxyz", "ABCXYZ"];
        let not_runs = ["", "aB", "Ab", "a b", "a1", "é", "a's", "aaaa\n"];
        for linear in [OpenAi::o200k_base(), OpenAi::cl100k_base()] {
            for run in runs {
                let long = run.repeat(300);
                for text in [run, long.as_str()] {
                    assert!(is_one_case_letter_run(text));
                    assert_eq!(linear.pieces(text).count(), 1, "{text}");
                    assert_eq!(linear.first_piece_len(text), text.len());
                }
            }
            for text in not_runs {
                assert!(!is_one_case_letter_run(text));
                // The regular expression answers these.
                let first = linear.pieces(text).next().map_or(0, str::len);
                assert_eq!(linear.first_piece_len(text), first, "{text}");
            }
        }
    }

    /// Every answer of the piece walks, on real and adversarial text at many
    /// limits: a stretch that fits costs what it says; one that is over costs what
    /// it says up to `split`, is over at `until`, and has no split point between.
    #[test]
    fn piece_walks_give_exact_counts_at_split_points() {
        let prose = include_str!("../../../tests/fixtures/prose.txt");
        let code = include_str!("../../../tests/fixtures/code.txt");
        let mixed = include_str!("../../../tests/fixtures/multilingual.txt");
        let texts = [
            &prose[..prose.floor_char_boundary(6000)],
            &code[..code.floor_char_boundary(6000)],
            &mixed[..mixed.floor_char_boundary(6000)],
            "ab12cd+/ef34GH ij\n\n  kl  mn's o'clock 1234567 ...!!! \r\n end",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbb",
        ];
        let is_split = |text: &str, at: usize| is_split_point(text, at);
        for linear in [OpenAi::o200k_base(), OpenAi::cl100k_base()] {
            for text in texts {
                let whole = linear.count(text);
                for limit in [
                    0,
                    1,
                    2,
                    3,
                    5,
                    8,
                    13,
                    50,
                    200,
                    700,
                    whole - 1,
                    whole,
                    whole + 1,
                ] {
                    match linear.walk_head(text, limit) {
                        PieceWalk::Fits(tokens) => {
                            assert!(whole <= limit);
                            assert_eq!(tokens, whole);
                        }
                        PieceWalk::Over {
                            split,
                            tokens,
                            until,
                        } => {
                            assert!(whole > limit);
                            assert!(split < until && until <= text.len());
                            assert!(split == 0 || is_split(text, split));
                            assert!(until == text.len() || is_split(text, until));
                            assert_eq!(linear.count(&text[..split]), tokens);
                            assert!(tokens <= limit && linear.count(&text[..until]) > limit);
                            assert!(!(split + 1..until).any(|at| is_split(text, at)));
                        }
                    }
                    match linear.walk_tail(text, limit) {
                        PieceWalk::Fits(tokens) => assert_eq!(tokens, whole),
                        PieceWalk::Over {
                            split,
                            tokens,
                            until,
                        } => {
                            assert!(until < split && split <= text.len());
                            assert!(split == text.len() || is_split(text, split));
                            assert!(until == 0 || is_split(text, until));
                            assert_eq!(linear.count(&text[split..]), tokens);
                            assert!(tokens <= limit && linear.count(&text[until..]) > limit);
                            assert!(!(until + 1..split).any(|at| is_split(text, at)));
                        }
                    }
                }
            }
        }
    }

    /// The code point ranges of the two fast classes hold only what the patterns'
    /// classes say, for the Unicode tables of the `regex` crate built here.
    #[test]
    fn caseless_letters_and_pictographs_are_what_the_patterns_say() {
        let caseless = regex::Regex::new(r"\A[\p{Lo}\p{Lm}]\z").unwrap();
        let symbol = regex::Regex::new(r"\A[^\s\p{L}\p{N}]\z").unwrap();
        let mark = regex::Regex::new(r"\A\p{M}\z").unwrap();
        let mut buffer = [0; 4];
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            let text: &str = c.encode_utf8(&mut buffer);
            if is_caseless_letter(c) {
                assert!(caseless.is_match(text), "{c:?} U+{:04X}", c as u32);
            }
            if is_pictograph_char(c) {
                assert!(symbol.is_match(text), "{c:?} U+{:04X}", c as u32);
                // Marks are only the variation selectors, which the run rule knows.
                assert_eq!(
                    mark.is_match(text),
                    is_variation_selector(c),
                    "U+{:04X}",
                    c as u32
                );
            }
        }
    }

    /// Runs the fast classes call one piece are one piece for both encodings, and
    /// the runs they refuse are left to the regular expression.
    #[test]
    fn known_one_piece_runs_are_one_piece_for_both_patterns() {
        let letters = ['日', '本', 'ぁ', 'ゝ', 'ア', 'ー', '㐀', '한', '鿿'];
        let pictographs = [
            '👨', '\u{200d}', '❤', '\u{fe0f}', '\u{fe0e}', '🏽', '🇫', '☀', '➔', '🫶',
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).unwrap_or(0)
        };
        for linear in [OpenAi::o200k_base(), OpenAi::cl100k_base()] {
            for round in 0..4000 {
                let set: &[char] = if round % 2 == 0 {
                    &letters
                } else {
                    &pictographs
                };
                let length = 1 + next(12);
                let text: String = (0..length).map(|_| set[next(set.len())]).collect();
                if is_known_one_piece(&text) {
                    assert_eq!(linear.pieces(&text).count(), 1, "{text:?}");
                }
            }
            for (round, text) in [
                "日本語のテキスト",
                "👨\u{200d}👩\u{fe0f}\u{200d}👧🏽🇯🇵❤\u{fe0f}x",
                "abcdefgh",
            ]
            .iter()
            .enumerate()
            {
                let text = text.trim_end_matches('x');
                let run = Run::of(text).unwrap_or_else(|| panic!("round {round}: {text:?}"));
                let bounds: Vec<usize> = (0..=text.len())
                    .filter(|&i| text.is_char_boundary(i))
                    .collect();
                for &a in &bounds {
                    for &b in bounds.iter().filter(|&&b| b > a) {
                        let part = &text[a..b];
                        if run.keeps_whole(part) {
                            assert_eq!(linear.pieces(part).count(), 1, "{part:?}");
                        }
                    }
                }
            }
            assert!(!is_known_one_piece("\u{fe0f}👨"));
            assert!(!is_known_one_piece("👨\u{fe0f}\u{200d}👩"));
            assert!(is_known_one_piece("👨\u{200d}👩\u{fe0f}"));
            assert!(!is_known_one_piece("日本a"));
        }
    }

    /// What the encoder alone (`bpe`'s backtracking encoder) makes of one piece:
    /// its count and the ends of its tokens.
    fn encoder_alone(linear: OpenAi, piece: &[u8]) -> (usize, Vec<usize>) {
        let bpe = &linear.tokenizer.bpe;
        let mut end = 0;
        let ends = bpe
            .encode_via_backtracking(piece)
            .into_iter()
            .map(|token| {
                end += bpe.token_len(token);
                end
            })
            .collect();
        (bpe.count(piece), ends)
    }

    /// The fast path (a lookup, the merge loop) against the encoder alone, piece by
    /// piece: the same count, token ends and ids.
    fn assert_fast_path_agrees(linear: OpenAi, text: &str) {
        let bpe = &linear.tokenizer.bpe;
        for piece in linear.pieces(text) {
            let bytes = piece.as_bytes();
            let (count, ends) = encoder_alone(linear, bytes);
            assert_eq!(linear.piece_count(bytes), count, "{piece:?}");
            assert_eq!(linear.token_ends(bytes), ends, "{piece:?}");
            if let Some(ids) = linear.ranks.encode(bytes) {
                assert_eq!(ids, bpe.encode_via_backtracking(bytes), "{piece:?}");
            }
        }
        assert_eq!(linear.count(text), linear.tokenizer.count(text));
        let (count, ends) = encoder_alone(linear, text.as_bytes());
        if let Some(fast) = linear.ranks.count(text.as_bytes()) {
            assert_eq!(fast, count, "{text:?}");
        }
        assert_eq!(linear.token_ends(text.as_bytes()), ends, "{text:?}");
    }

    /// Every piece of the fixtures and of adversarial text, in both encodings.
    #[test]
    fn the_fast_path_counts_as_the_encoder_on_fixtures_and_worst_cases() {
        let texts = [
            include_str!("../../../tests/fixtures/prose.txt"),
            include_str!("../../../tests/fixtures/code.txt"),
            include_str!("../../../tests/fixtures/multilingual.txt"),
            include_str!("../../../tests/fixtures/markdown.md"),
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "日本語のテキストは句読点なしで長く続くことがある中文字漢",
            "👨\u{200d}👩\u{200d}👧👩\u{200d}❤\u{fe0f}\u{200d}👨🏳\u{fe0f}\u{200d}🌈👋🏾🇯🇵",
            "      \t\t\n\n\n   \r\n \u{a0}\u{3000}  x",
            "1234567890123 0.000001 3.14159265358979 1,000,000",
            "QmFzZTY0IGlzIGEgZ3JvdXAgb2YgYmluYXJ5LXRvLXRleHQ+/==",
        ];
        for linear in [OpenAi::o200k_base(), OpenAi::cl100k_base()] {
            for text in texts {
                assert_fast_path_agrees(linear, text);
            }
            // Every run of one letter, digit, space or ideograph across the short
            // pieces' bound, whole.
            for unit in ["a", "Z", "7", " ", "\n", "日", "👍", "!"] {
                for n in 1..=4 * SHORT_PIECE {
                    assert_fast_path_agrees(linear, &unit.repeat(n));
                }
            }
        }
    }

    /// Every token of the vocabulary is one token for the fast path.
    #[test]
    fn every_token_is_one_lookup() {
        for linear in [OpenAi::o200k_base(), OpenAi::cl100k_base()] {
            let bpe = &linear.tokenizer.bpe;
            for id in (0..bpe.num_tokens()).filter_map(|id| u32::try_from(id).ok()) {
                let bytes = bpe.token_bytes(id);
                assert_eq!(linear.ranks.token(bytes), Some(id));
                assert_eq!(linear.piece_count(bytes), 1);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Any string, and any short string of the bytes that make the merge loop
        /// work (letters, digits, marks, spaces, CJK, emoji), in both encodings.
        #[test]
        fn the_fast_path_counts_as_the_encoder_on_any_string(
            any in "\\PC{0,80}",
            short in "[a-zA-Z0-9 '.,\n日本語é\u{301}👍🏽\u{200d}]{1,30}",
        ) {
            for linear in [OpenAi::o200k_base(), OpenAi::cl100k_base()] {
                assert_fast_path_agrees(linear, &any);
                assert_fast_path_agrees(linear, &short);
            }
        }
    }

    /// The runs a vocabulary's engine finds at the ends of a text: the longest, and
    /// each one a run.
    #[test]
    fn run_ends_are_the_longest_runs() {
        let cases = [
            ("aaaaB", 4, 4),
            ("Baaaa", 1, 1),
            ("ABCdef", 3, 3),
            ("日本語a", 9, 9),
            ("a日本語", 1, 1),
            ("👍👍\u{200d}x", 11, 11),
            ("x\u{fe0f}👍👍", 1, 4),
            ("👍\u{fe0f}👍", 0, 7),
            ("\u{fe0f}\u{fe0f}", 0, 6),
            (" a", 0, 1),
            ("", 0, 0),
        ];
        for (text, prefix, suffix_start) in cases {
            assert_eq!(run_prefix_len(text), prefix, "{text:?}");
            assert_eq!(run_suffix_start(text), suffix_start, "{text:?}");
            if prefix > 0 {
                assert!(Run::of(&text[..prefix]).is_some());
            }
            if suffix_start < text.len() {
                assert!(Run::of(&text[suffix_start..]).is_some());
            }
        }
    }

    #[test]
    fn no_token_is_longer_than_the_bound() {
        for linear in [OpenAi::o200k_base(), OpenAi::cl100k_base()] {
            let bpe = &linear.tokenizer.bpe;
            let longest = (0..bpe.num_tokens())
                .filter_map(|id| u32::try_from(id).ok())
                .map(|id| bpe.token_len(id))
                .max();
            assert!(longest.is_some_and(|n| n <= MAX_TOKEN_BYTES), "{longest:?}");
        }
    }

    #[test]
    fn count_within_gives_up_on_a_piece_too_long_to_fit() {
        let linear = OpenAi::o200k_base();
        let text = "a".repeat(10_000);
        assert_eq!(linear.count_within(&text, 10), None);
        let count = linear.count(&text);
        assert_eq!(linear.count_within(&text, count), Some(count));
        assert_eq!(linear.encode(&text).len(), count);
    }
}
