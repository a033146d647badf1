//! The fewest tokens a marked stream tiles into: every piece costs one, a symbol no
//! piece covers costs one if it is a marker and its byte fallback otherwise.

use super::vocab::{BOW, ROOT, Symbol, Vocabulary};

/// The minimum number of tokens `stream` tiles into over `vocab`.
pub(super) fn tile(stream: &[Symbol], vocab: &Vocabulary) -> usize {
    let trie = &vocab.trie;
    let n = stream.len();
    // best[i]: the fewest tokens that tile stream[..i].
    let mut best = vec![u32::MAX; n + 1];
    best[0] = 0;
    for start in 0..n {
        let here = best[start];
        let symbol = stream[start];
        let node = trie.child(ROOT, symbol);
        let unit = if symbol >= BOW || node.is_some_and(|node| trie.terminal(node)) {
            1
        } else {
            char::from_u32(symbol).map_or(1, |c| vocab.byte_cost(c))
        };
        let step = here.saturating_add(unit);
        if step < best[start + 1] {
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
                if trie.terminal(found) && one < best[end] {
                    best[end] = one;
                }
            }
        }
    }
    best[n] as usize
}
