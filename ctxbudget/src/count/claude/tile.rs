//! The fewest tokens a marked stream tiles into: every piece costs one, a symbol no
//! piece covers costs one if it is a marker and its byte fallback otherwise.
//!
//! Besides the count of a whole stream, the tiling gives the fewest tokens of every
//! beginning (one pass from the start) or of every end (one pass from the end) of a
//! stream, and from those the count of a beginning or an end followed or preceded
//! by a few other symbols: what the trimming engine's searches ask (see `parts`).

use super::vocab::{BOW, ROOT, Symbol, Vocabulary};

/// What `symbol` costs alone: one if it is a marker or a piece (`node` is its child
/// of the root), its byte fallback otherwise.
#[inline]
fn unit(vocab: &Vocabulary, symbol: Symbol, node: Option<u32>) -> u32 {
    if symbol >= BOW || node.is_some_and(|node| vocab.trie.terminal(node)) {
        1
    } else {
        char::from_u32(symbol).map_or(1, |c| vocab.byte_cost(c))
    }
}

/// The minimum number of tokens `stream` tiles into over `vocab`.
pub(super) fn tile(stream: &[Symbol], vocab: &Vocabulary) -> usize {
    let best = best_prefixes(stream, vocab);
    best[stream.len()] as usize
}

/// The fewest tokens that tile `stream[..i]`, for every `i`.
pub(super) fn best_prefixes(stream: &[Symbol], vocab: &Vocabulary) -> Vec<u32> {
    let n = stream.len();
    let mut best = vec![u32::MAX; n + 1];
    best[0] = 0;
    relax(stream, vocab, &mut best, 0);
    best
}

/// Pushes the tilings from every start of `stream` on to the ends after it, in
/// order, updating only `best[end]` for `end > frozen` (the ones up to `frozen` are
/// final already).
fn relax(stream: &[Symbol], vocab: &Vocabulary, best: &mut [u32], frozen: usize) {
    let trie = &vocab.trie;
    let n = stream.len();
    for start in 0..n {
        let here = best[start];
        if here == u32::MAX {
            continue;
        }
        let symbol = stream[start];
        let node = trie.child(ROOT, symbol);
        let step = here.saturating_add(unit(vocab, symbol, node));
        if start + 1 > frozen && step < best[start + 1] {
            best[start + 1] = step;
        }
        let one = here.saturating_add(1);
        let mut node = node;
        let mut end = start + 1;
        while let Some(current) = node {
            let Some(&next) = stream.get(end) else {
                break;
            };
            node = trie.child(current, next);
            end += 1;
            if let Some(found) = node {
                if end > frozen && trie.terminal(found) && one < best[end] {
                    best[end] = one;
                }
            }
        }
    }
}

/// The fewest tokens that tile `stream[i..]`, for every `i`: the same tiling run
/// from the end.
pub(super) fn best_suffixes(stream: &[Symbol], vocab: &Vocabulary) -> Vec<u32> {
    let n = stream.len();
    let mut best = vec![0u32; n + 1];
    pull_back(stream, vocab, &mut best, n);
    best
}

/// Sets `best[start]` for every `start < upto`, from the last to the first, as the
/// fewest tokens of `stream[start..]` given `best` from `upto` on.
fn pull_back(stream: &[Symbol], vocab: &Vocabulary, best: &mut [u32], upto: usize) {
    let trie = &vocab.trie;
    for start in (0..upto).rev() {
        let symbol = stream[start];
        let node = trie.child(ROOT, symbol);
        let mut fewest = best[start + 1].saturating_add(unit(vocab, symbol, node));
        let mut node = node;
        let mut end = start + 1;
        while let Some(current) = node {
            let Some(&next) = stream.get(end) else {
                break;
            };
            node = trie.child(current, next);
            end += 1;
            if let Some(found) = node {
                if trie.terminal(found) {
                    fewest = fewest.min(best[end].saturating_add(1));
                }
            }
        }
        best[start] = fewest;
    }
}

/// The fewest tokens of `stream[..at]` followed by `tail`, given `best` from
/// [`best_prefixes`] of `stream` (or of any stream that begins with
/// `stream[..at]`). Costs the tail and the longest piece's length, not `at`.
pub(super) fn tile_after(
    stream: &[Symbol],
    best: &[u32],
    at: usize,
    tail: &[Symbol],
    vocab: &Vocabulary,
) -> usize {
    // A piece that runs into the tail starts at most `longest` symbols before it,
    // and holds only symbols that join others.
    let mut from = at;
    while from > at.saturating_sub(vocab.longest) && vocab.joins(stream[from - 1]) {
        from -= 1;
    }
    let mut joined: Vec<Symbol> = Vec::with_capacity(at - from + tail.len());
    joined.extend_from_slice(&stream[from..at]);
    joined.extend_from_slice(tail);
    let frozen = at - from;
    let mut local = vec![u32::MAX; joined.len() + 1];
    local[..=frozen].copy_from_slice(&best[from..=at]);
    relax(&joined, vocab, &mut local, frozen);
    local[joined.len()] as usize
}

/// The fewest tokens of `head` followed by `stream[at..]`, given `best` from
/// [`best_suffixes`] of `stream` (or of any stream that ends with `stream[at..]`).
pub(super) fn tile_before(
    head: &[Symbol],
    stream: &[Symbol],
    best: &[u32],
    at: usize,
    vocab: &Vocabulary,
) -> usize {
    let mut to = at;
    while to < at.saturating_add(vocab.longest).min(stream.len()) && vocab.joins(stream[to]) {
        to += 1;
    }
    let mut joined: Vec<Symbol> = Vec::with_capacity(head.len() + to - at);
    joined.extend_from_slice(head);
    joined.extend_from_slice(&stream[at..to]);
    let mut local = vec![0u32; joined.len() + 1];
    local[head.len()..].copy_from_slice(&best[at..=to]);
    pull_back(&joined, vocab, &mut local, head.len());
    local[0] as usize
}
