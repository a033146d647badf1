//! The short-piece path of the linear engine (see [`super::linear`]): most pieces of
//! real text are one token, and most of the others a few bytes long. A piece that is
//! a token of the vocabulary costs one hash lookup; a short piece that is not runs
//! `tiktoken`'s own merge loop (merge the adjacent pair of lowest rank until none is
//! a token) on the stack, where `bpe`'s backtracking encoder allocates its token
//! list and bit field for every piece. Longer pieces stay with the backtracking
//! encoder and its linear bound.
//!
//! `bpe` does not expose its lookup of a token by its bytes, nor its encoder state
//! for reuse across pieces, so the table here is built once per encoding from the
//! vocabulary's own tokens (`token_bytes`), whose ids are `tiktoken`'s ranks.

use bpe_openai::byte_pair_encoding::BytePairEncoding;
use rustc_hash::FxHashMap;

/// The longest piece counted by the merge loop: its cost grows with the square of
/// the piece's length, bounded by this constant, so counting stays linear.
pub(crate) const SHORT_PIECE: usize = 8;

/// Every token of an encoding by its bytes; the id is the token's merge rank.
pub(crate) struct Ranks {
    by_bytes: FxHashMap<&'static [u8], u32>,
}

impl std::fmt::Debug for Ranks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ranks")
            .field("tokens", &self.by_bytes.len())
            .finish()
    }
}

impl Ranks {
    /// The table of `bpe`'s vocabulary (a few milliseconds, once per encoding).
    pub(crate) fn new(bpe: &'static BytePairEncoding) -> Self {
        let tokens = bpe.num_tokens();
        let mut by_bytes = FxHashMap::with_capacity_and_hasher(tokens, rustc_hash::FxBuildHasher);
        for id in (0..tokens).filter_map(|id| u32::try_from(id).ok()) {
            by_bytes.insert(bpe.token_bytes(id), id);
        }
        Ranks { by_bytes }
    }

    /// The token that spells `bytes`, if one does.
    #[inline]
    pub(crate) fn token(&self, bytes: &[u8]) -> Option<u32> {
        self.by_bytes.get(bytes).copied()
    }

    fn rank(&self, bytes: &[u8]) -> u32 {
        self.token(bytes).unwrap_or(u32::MAX)
    }

    /// The byte offsets at which the tokens of `piece` start, after `tiktoken`'s
    /// merge loop, followed by `piece.len()`; `None` when `piece` is empty or
    /// longer than [`SHORT_PIECE`]. `parts[..n]` holds the answer, `n` returned.
    fn merge(&self, piece: &[u8], parts: &mut [(u8, u32); SHORT_PIECE + 1]) -> Option<usize> {
        let len = piece.len();
        if len == 0 || len > SHORT_PIECE {
            return None;
        }
        // parts[i] = (start of part i, rank of parts i and i + 1 merged); the last
        // entry is the end of the piece. Offsets fit in a byte (SHORT_PIECE < 256).
        let mut n = len + 1;
        for (i, part) in parts.iter_mut().enumerate().take(n) {
            let rank = if i + 2 <= len {
                self.rank(&piece[i..i + 2])
            } else {
                u32::MAX
            };
            *part = (u8::try_from(i).unwrap_or(u8::MAX), rank);
        }
        loop {
            let mut best = (u32::MAX, 0);
            for (i, &(_, rank)) in parts[..n - 1].iter().enumerate() {
                if rank < best.0 {
                    best = (rank, i);
                }
            }
            let (rank, i) = best;
            if rank == u32::MAX {
                return Some(n);
            }
            // Merge parts i and i + 1, then rank the pairs the merge changed.
            parts.copy_within(i + 2..n, i + 1);
            n -= 1;
            let span = |parts: &[(u8, u32)], at: usize| -> u32 {
                if at + 2 < n {
                    self.rank(&piece[usize::from(parts[at].0)..usize::from(parts[at + 2].0)])
                } else {
                    u32::MAX
                }
            };
            parts[i].1 = span(parts, i);
            if i > 0 {
                parts[i - 1].1 = span(parts, i - 1);
            }
        }
    }

    /// The number of tokens of `piece`, if it is a token or at most
    /// [`SHORT_PIECE`] bytes long; `None` leaves it to the linear encoder.
    #[inline]
    pub(crate) fn count(&self, piece: &[u8]) -> Option<usize> {
        if self.by_bytes.contains_key(piece) {
            return Some(1);
        }
        let mut parts = [(0, u32::MAX); SHORT_PIECE + 1];
        self.merge(piece, &mut parts).map(|n| n - 1)
    }

    /// The byte offsets at which the tokens of `piece` end, as
    /// [`Self::count`] counts them, or `None` where it gives none.
    pub(crate) fn token_ends(&self, piece: &[u8]) -> Option<Vec<usize>> {
        if self.by_bytes.contains_key(piece) {
            return Some(vec![piece.len()]);
        }
        let mut parts = [(0, u32::MAX); SHORT_PIECE + 1];
        let n = self.merge(piece, &mut parts)?;
        Some(parts[1..n].iter().map(|&(at, _)| usize::from(at)).collect())
    }

    /// The token ids of `piece`, as [`Self::count`] counts them.
    #[cfg(test)]
    pub(crate) fn encode(&self, piece: &[u8]) -> Option<Vec<u32>> {
        let ends = self.token_ends(piece)?;
        let mut start = 0;
        ends.into_iter()
            .map(|end| {
                let token = self.token(&piece[start..end]);
                start = end;
                token
            })
            .collect()
    }
}
