//! A generation's vocabulary: the marked pieces that cost one token each (a trie over
//! stream symbols), the UTF-8 byte prefixes that cost one token, and the newline
//! pieces the message frame's tail is tiled with.

use std::collections::HashSet;

/// A stream symbol: a Unicode scalar value, or one of the markers below (above
/// `char::MAX`, so no text can spell one).
pub(super) type Symbol = u32;

/// Word start.
pub(super) const BOW: Symbol = 0x11_0000;
/// Word end.
pub(super) const EOW: Symbol = 0x11_0001;
/// The word that follows is capitalised.
pub(super) const SHIFT: Symbol = 0x11_0002;
/// The word that follows is in capitals.
pub(super) const CAPS: Symbol = 0x11_0003;

/// The symbol of a character of the data files, where the noncharacters U+FDD0,
/// U+FDD1, U+FDD3 and U+FDD4 write the markers.
fn file_symbol(c: char) -> Symbol {
    match c {
        '\u{FDD0}' => BOW,
        '\u{FDD1}' => EOW,
        '\u{FDD3}' => SHIFT,
        '\u{FDD4}' => CAPS,
        _ => u32::from(c),
    }
}

#[derive(Debug, Clone, Copy)]
struct Node {
    first: u32,
    len: u32,
    terminal: bool,
}

/// The pieces, as a trie over symbols: children sorted by symbol, and the root's
/// children of the first [`DIRECT`] symbols and the markers in a table.
#[derive(Debug)]
pub(super) struct Trie {
    nodes: Vec<Node>,
    edges: Vec<(Symbol, u32)>,
    /// The root's child of each symbol below [`DIRECT`] (then of each marker), or
    /// `u32::MAX`.
    root: Vec<u32>,
}

/// The symbols whose root child [`Trie::child`] finds by index: every script of
/// the first 12,288 codepoints (Latin, Greek, Cyrillic, the Indic scripts, ...).
const DIRECT: u32 = 0x3000;

/// The root table's index of `symbol`, when it has one.
fn direct(symbol: Symbol) -> Option<usize> {
    if symbol < DIRECT {
        Some(symbol as usize)
    } else if (BOW..=CAPS).contains(&symbol) {
        Some((DIRECT + symbol - BOW) as usize)
    } else {
        None
    }
}

/// The root of every [`Trie`].
pub(super) const ROOT: u32 = 0;

impl Trie {
    fn new(mut pieces: Vec<Vec<Symbol>>) -> Self {
        pieces.sort_unstable();
        pieces.dedup();
        let mut trie = Trie {
            nodes: Vec::new(),
            edges: Vec::new(),
            root: Vec::new(),
        };
        trie.build(&pieces, 0);
        let mut root = vec![u32::MAX; (DIRECT + 4) as usize];
        for symbol in (0..DIRECT).chain(BOW..=CAPS) {
            if let (Some(at), Some(child)) = (direct(symbol), trie.search(ROOT, symbol)) {
                root[at] = child;
            }
        }
        trie.root = root;
        trie
    }

    /// Adds the node of the pieces in `pieces` (sorted, all sharing their first
    /// `depth` symbols) and its subtree; returns its index.
    fn build(&mut self, pieces: &[Vec<Symbol>], depth: usize) -> u32 {
        let id = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        let terminal = pieces.first().is_some_and(|piece| piece.len() == depth);
        let rest = if terminal { &pieces[1..] } else { pieces };
        self.nodes.push(Node {
            first: 0,
            len: 0,
            terminal,
        });
        let mut groups: Vec<(Symbol, &[Vec<Symbol>])> = Vec::new();
        let mut start = 0;
        while start < rest.len() {
            let symbol = rest[start][depth];
            let end = start + rest[start..].partition_point(|piece| piece[depth] == symbol);
            groups.push((symbol, &rest[start..end]));
            start = end;
        }
        let first = self.edges.len();
        self.edges
            .extend(groups.iter().map(|&(symbol, _)| (symbol, 0)));
        for (k, &(_, group)) in groups.iter().enumerate() {
            let child = self.build(group, depth + 1);
            self.edges[first + k].1 = child;
        }
        self.nodes[id as usize] = Node {
            first: u32::try_from(first).unwrap_or(u32::MAX),
            len: u32::try_from(groups.len()).unwrap_or(0),
            terminal,
        };
        id
    }

    /// The child of `node` along `symbol`.
    #[inline]
    pub(super) fn child(&self, node: u32, symbol: Symbol) -> Option<u32> {
        if node == ROOT {
            if let Some(at) = direct(symbol) {
                return self
                    .root
                    .get(at)
                    .copied()
                    .filter(|&child| child != u32::MAX);
            }
        }
        self.search(node, symbol)
    }

    /// [`child`](Self::child) by binary search.
    fn search(&self, node: u32, symbol: Symbol) -> Option<u32> {
        let node = self.nodes.get(node as usize)?;
        let first = node.first as usize;
        let edges = self.edges.get(first..first + node.len as usize)?;
        edges
            .binary_search_by_key(&symbol, |&(edge, _)| edge)
            .ok()
            .map(|at| edges[at].1)
    }

    /// Whether the path to `node` spells a piece.
    #[inline]
    pub(super) fn terminal(&self, node: u32) -> bool {
        self.nodes
            .get(node as usize)
            .is_some_and(|node| node.terminal)
    }
}

/// One generation's vocabulary.
#[derive(Debug)]
pub(super) struct Vocabulary {
    pub(super) trie: Trie,
    /// The byte strings (at most four bytes) that cost one token when a character
    /// falls back to its bytes, packed by [`pack`].
    byte_tokens: HashSet<u64>,
    /// The lengths of the pieces made only of newlines.
    newline_pieces: Vec<usize>,
    /// The most symbols a piece has: no piece reaches further from where it starts.
    pub(super) longest: usize,
    /// One bit for each symbol below [`JOIN_BITS`]: whether a piece of two symbols
    /// or more holds it.
    joinable: Vec<u64>,
}

/// The symbols [`Vocabulary::joins`] keeps a bit for; every other one may join.
const JOIN_BITS: u32 = 0x4_0000;

/// A byte string of at most four bytes as one key: its length, then its bytes.
fn pack(bytes: &[u8]) -> u64 {
    bytes.iter().fold(bytes.len() as u64, |key, &byte| {
        (key << 8) | u64::from(byte)
    })
}

impl Vocabulary {
    /// Reads the two data files of a vocabulary (`*.pieces`, `*.bytes`).
    pub(super) fn parse(pieces: &str, bytes: &str) -> Self {
        let pieces: Vec<Vec<Symbol>> = pieces
            .split('\0')
            .filter(|piece| !piece.is_empty())
            .map(|piece| piece.chars().map(file_symbol).collect())
            .collect();
        let mut byte_tokens: HashSet<u64> = bytes
            .split_whitespace()
            .filter_map(|hex| {
                let bytes: Option<Vec<u8>> = (0..hex.len())
                    .step_by(2)
                    .map(|at| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok())
                    .collect();
                bytes.filter(|bytes| bytes.len() <= 4).map(|b| pack(&b))
            })
            .collect();
        let mut newline_pieces = Vec::new();
        for piece in &pieces {
            if let [symbol] = piece[..] {
                if let Some(c) = char::from_u32(symbol) {
                    byte_tokens.insert(pack(c.encode_utf8(&mut [0; 4]).as_bytes()));
                }
            }
            if piece.iter().all(|&symbol| symbol == u32::from('\n')) {
                newline_pieces.push(piece.len());
            }
        }
        if !newline_pieces.contains(&1) {
            newline_pieces.push(1);
        }
        newline_pieces.sort_unstable();
        newline_pieces.dedup();
        let longest = pieces.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let mut joinable = vec![0u64; (JOIN_BITS / 64) as usize];
        for &symbol in pieces.iter().filter(|piece| piece.len() > 1).flatten() {
            if let Some(word) = joinable.get_mut((symbol / 64) as usize) {
                *word |= 1 << (symbol % 64);
            }
        }
        Vocabulary {
            trie: Trie::new(pieces),
            byte_tokens,
            newline_pieces,
            longest,
            joinable,
        }
    }

    /// Whether `symbol` may be part of a piece of two symbols or more: a piece
    /// that runs across two symbols holds only such symbols.
    pub(super) fn joins(&self, symbol: Symbol) -> bool {
        symbol >= JOIN_BITS
            || self
                .joinable
                .get((symbol / 64) as usize)
                .is_some_and(|word| word & (1 << (symbol % 64)) != 0)
    }

    /// What `c` costs standing alone when no piece covers it: the fewest byte
    /// strings its UTF-8 tiles into, each a single byte or a one-token prefix.
    pub(super) fn byte_cost(&self, c: char) -> u32 {
        let mut buffer = [0; 4];
        let bytes = c.encode_utf8(&mut buffer).as_bytes();
        let mut best = [0u32; 5];
        for end in 1..=bytes.len() {
            best[end] = best[end - 1] + 1;
            for start in 0..end - 1 {
                if self.byte_tokens.contains(&pack(&bytes[start..end])) {
                    best[end] = best[end].min(best[start] + 1);
                }
            }
        }
        best[bytes.len()]
    }

    /// What `n` newlines at the end of a message cost beyond the frame's own last
    /// token: the frame appends two newlines and a piece may run into them, so the
    /// run tiled is `n + 2` newlines, one piece of which the frame pays.
    pub(super) fn frame_tail(&self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let run = n.saturating_add(2);
        // Fewest pieces tiling `len` newlines, for every `len` up to `run`, kept for
        // the last `longest` lengths only.
        let longest = self.newline_pieces.last().copied().unwrap_or(1);
        let mut best = vec![0usize; longest + 1];
        for len in 1..=run {
            let mut fewest = usize::MAX;
            for &piece in &self.newline_pieces {
                if piece > len {
                    break;
                }
                let before = best[(len - piece) % (longest + 1)];
                fewest = fewest.min(before.saturating_add(1));
            }
            best[len % (longest + 1)] = fewest;
        }
        best[run % (longest + 1)].saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trie_finds_pieces_and_prefixes() {
        let trie = Trie::new(vec![
            vec![1, 2, 3],
            vec![1, 2],
            vec![5],
            vec![1, 2],
            vec![1, 4],
        ]);
        let one = trie.child(ROOT, 1).unwrap();
        assert!(!trie.terminal(one));
        let two = trie.child(one, 2).unwrap();
        assert!(trie.terminal(two));
        assert!(trie.terminal(trie.child(two, 3).unwrap()));
        assert!(trie.terminal(trie.child(one, 4).unwrap()));
        assert!(trie.child(one, 3).is_none());
        assert!(trie.terminal(trie.child(ROOT, 5).unwrap()));
        assert!(trie.child(ROOT, 2).is_none());
    }

    #[test]
    fn bytes_and_newlines() {
        let vocab = Vocabulary::parse("\n\0\n\n\n\0\u{FDD0}a\0é", "e4b8\n");
        assert_eq!(vocab.byte_cost('a'), 1);
        assert_eq!(vocab.byte_cost('é'), 1); // a one-character piece
        assert_eq!(vocab.byte_cost('中'), 2); // e4b8 + ad
        assert_eq!(vocab.byte_cost('ж'), 2);
        // 1 + 2 newlines = one piece of three: the frame's own.
        assert_eq!(vocab.frame_tail(1), 0);
        assert_eq!(vocab.frame_tail(2), 1);
        assert_eq!(vocab.frame_tail(0), 0);
    }
}
