//! Searching inside one long piece without split points (a run of one letter, CJK
//! text without punctuation, a run of emoji) with the linear engine of a
//! [`Tiktoken`](crate::Tiktoken), in about one count of what is kept.
//!
//! A byte-pair encoding has the prefix property: any run of consecutive tokens of
//! the encoding of a text is the encoding of the text it spells (the `bpe` crate's
//! "Corollary II"). So one encoding of a beginning (or end) of the piece a little
//! longer than what fits gives the exact count of every part that ends (starts) at
//! one of its token boundaries: the first `k` tokens spell a prefix that costs `k`.
//! Where the pre-tokenizer would cut such a part into more than one piece, the
//! property says nothing, so every answer is checked to be one piece (a scan of the
//! pre-tokenizer's regular expression, much cheaper than encoding) and the caller
//! falls back to counting probes when it is not.
//!
//! The part found is the longest whose count the encoding gives, so that a larger
//! budget never keeps less; the counts of the shorter parts are kept too, so that
//! the cut the boundary rules then choose (the last grapheme boundary, say) is
//! usually not counted again.

use super::fit::{Side, ceil_char_boundary, floor_char_boundary};
use crate::count::{Linear, Run};

/// Pieces shorter than this are left to the counting probes.
pub(crate) const LONG_PIECE: usize = 512;
/// Tokens encoded beyond the budget, so that a part found not to fit is over by a
/// margin no realistic dip of a byte-pair count (a longer text costing fewer
/// tokens than its beginning) can make up.
const MARGIN: usize = 16;
/// Bytes of the piece encoded first, to measure its bytes per token: half a byte
/// per token of the budget, within these bounds, so that the sample stays a small
/// part of what is kept.
const SAMPLE: std::ops::RangeInclusive<usize> = 128..=1024;

fn sample_len(limit: usize) -> usize {
    (limit / 2).clamp(*SAMPLE.start(), *SAMPLE.end())
}

/// The window that pieces are cut from, for `wanted` bytes: a quarter more, so that
/// an estimate a little short does not cut the piece again.
fn window_len(wanted: usize) -> usize {
    wanted.saturating_add(wanted / 4).saturating_add(256)
}

/// What [`search`] found: the far offset of the longest part that fits and its
/// exact count, and the exact count of every other part it knows, ending (head) or
/// starting (tail) at a token boundary on a char boundary, nearest `anchor` first.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// Where the parts start (head) or end (tail).
    pub(crate) anchor: usize,
    /// The far offset of the longest part that fits.
    pub(crate) at: usize,
    /// Its count.
    pub(crate) tokens: usize,
    /// `(far offset, count)` of every part known to be one piece or that may be:
    /// check with [`Found::count`].
    ends: Vec<(usize, usize)>,
    /// The run the piece the parts lie in is, when its characters tell: whether a
    /// part is one piece is then known without the pre-tokenizer.
    run: Option<Run>,
}

impl Found {
    /// Whether the part from the anchor to `at` is one piece.
    fn is_one_piece(&self, linear: Linear, text: &str, side: Side, at: usize) -> bool {
        let part = match side {
            Side::Head => &text[self.anchor..at],
            Side::Tail => &text[at..self.anchor],
        };
        match self.run {
            Some(run) => run.keeps_whole(part),
            None => linear.is_one_piece(part),
        }
    }

    /// The exact count of the part from the anchor to `at`, if it is one of the
    /// parts found and the pre-tokenizer keeps it in one piece.
    pub(crate) fn count(&self, linear: Linear, text: &str, side: Side, at: usize) -> Option<usize> {
        let index = match side {
            Side::Head => self.ends.binary_search_by(|&(end, _)| end.cmp(&at)),
            Side::Tail => self.ends.binary_search_by(|&(start, _)| at.cmp(&start)),
        }
        .ok()?;
        self.is_one_piece(linear, text, side, at)
            .then_some(self.ends[index].1)
    }
}

/// Inside `text[start..end]`, where `start` (head) or `end` (tail) is a split point
/// or an end of the text, the longest part at the kept side that costs at most
/// `limit` tokens, as far as one long piece at that side reaches. `None` when the
/// kept side does not begin with a long piece, or the part is not one piece: the
/// caller then searches with counting probes. When the whole piece fits and more
/// text follows it without a split point, the part is the piece: shorter than the
/// longest that fits, never over.
pub(crate) fn search(
    linear: Linear,
    text: &str,
    side: Side,
    start: usize,
    end: usize,
    limit: usize,
) -> Option<Found> {
    let mut found = match side {
        Side::Head => search_head(linear, text, start, end, limit)?,
        Side::Tail => search_tail(linear, text, start, end, limit)?,
    };
    // The longest part may end (head) or start (tail) where the pre-tokenizer cuts
    // the text alone differently: inside an emoji sequence, before a variation
    // selector, say. The next shorter parts the encoding counted usually do not.
    for _ in 0..SHORTER_TRIES {
        if found.is_one_piece(linear, text, side, found.at) {
            return Some(found);
        }
        found.ends.pop();
        (found.at, found.tokens) = found.ends.last().copied()?;
    }
    None
}

/// How many of the longest parts [`search`] checks for one that is one piece
/// before it leaves the stretch to the counting probes.
const SHORTER_TRIES: usize = 4;

fn search_head(
    linear: Linear,
    text: &str,
    start: usize,
    end: usize,
    limit: usize,
) -> Option<Found> {
    let bytes = text.as_bytes();
    // How many bytes `limit` tokens take, from a sample of the beginning.
    let sample = floor_char_boundary(text, start + sample_len(limit).min(end - start));
    let wanted = encode_target(
        sample - start,
        linear.token_ends(&bytes[start..sample]).len(),
        limit,
    )
    .unwrap_or(end - start);
    // Cut pieces from a window a little longer, not from the whole stretch.
    let mut window = floor_char_boundary(text, start.saturating_add(window_len(wanted)).min(end));
    let (mut piece_end, mut run) = first_piece(linear, text, start, window);
    if piece_end - start < LONG_PIECE {
        return None;
    }
    let mut until = start.saturating_add(wanted).min(piece_end);
    loop {
        let ends = linear.token_ends(&bytes[start..until]);
        if until < piece_end && ends.len() <= limit.saturating_add(MARGIN) {
            // Too few tokens to decide: encode a longer beginning.
            until = grow(Side::Head, start, until, piece_end);
            continue;
        }
        if until >= piece_end && piece_end == window && window < end && ends.len() <= limit {
            // The whole window is one piece and fits: the piece may go on.
            window = floor_char_boundary(
                text,
                start
                    .saturating_add((window - start).saturating_mul(2))
                    .min(end),
            );
            (piece_end, run) = first_piece(linear, text, start, window);
            until = grow(Side::Head, start, until, piece_end);
            continue;
        }
        if until >= piece_end && piece_end < end && ends.len() <= limit && !linear.knows_pieces() {
            // A run that fits whole, in a piece that may go on past it.
            return None;
        }
        // The first `k` tokens spell `text[start..start + ends[k - 1]]`.
        let ends: Vec<(usize, usize)> = ends
            .into_iter()
            .take(limit)
            .enumerate()
            .map(|(index, end)| (start + end, index + 1))
            .filter(|&(at, _)| text.is_char_boundary(at))
            .collect();
        let (at, tokens) = ends.last().copied().unwrap_or((start, 0));
        return Some(Found {
            anchor: start,
            at,
            tokens,
            ends,
            run,
        });
    }
}

fn search_tail(
    linear: Linear,
    text: &str,
    start: usize,
    end: usize,
    limit: usize,
) -> Option<Found> {
    let bytes = text.as_bytes();
    let sample = ceil_char_boundary(text, end - sample_len(limit).min(end - start));
    let wanted = encode_target(
        end - sample,
        linear.token_ends(&bytes[sample..end]).len(),
        limit,
    )
    .unwrap_or(end - start);
    // The last piece of a window a little longer: pieces are cut from the left,
    // but whatever offset the cutting starts at, a suffix that starts at one of its
    // pieces is cut the same way alone (the patterns do not look behind).
    let mut window = ceil_char_boundary(text, end.saturating_sub(window_len(wanted)).max(start));
    let (mut piece_start, mut run) = last_piece(linear, text, window, end)?;
    if end - piece_start < LONG_PIECE {
        return None;
    }
    let mut from = end.saturating_sub(wanted).max(piece_start);
    loop {
        let ends = linear.token_ends(&bytes[from..end]);
        if from > piece_start && ends.len() <= limit.saturating_add(MARGIN) {
            from = grow(Side::Tail, end, from, piece_start);
            continue;
        }
        if from <= piece_start && piece_start == window && window > start && ends.len() <= limit {
            // The whole window is one piece and fits: the piece may go on.
            window = ceil_char_boundary(
                text,
                end.saturating_sub((end - window).saturating_mul(2))
                    .max(start),
            );
            (piece_start, run) = last_piece(linear, text, window, end)?;
            from = grow(Side::Tail, end, from, piece_start);
            continue;
        }
        if from <= piece_start
            && piece_start > start
            && ends.len() <= limit
            && !linear.knows_pieces()
        {
            // A run that fits whole, in a piece that may go on past it.
            return None;
        }
        // The last `k` tokens spell `text[from + ends[count - k - 1]..end]` (all
        // of it for `k == count`).
        let count = ends.len();
        let starts: Vec<(usize, usize)> = (1..=count.min(limit))
            .map(|k| {
                let at = if k == count {
                    from
                } else {
                    from + ends[count - k - 1]
                };
                (at, k)
            })
            .filter(|&(at, _)| text.is_char_boundary(at))
            .collect();
        let (at, tokens) = starts.last().copied().unwrap_or((end, 0));
        return Some(Found {
            anchor: end,
            at,
            tokens,
            ends: starts,
            run,
        });
    }
}

/// Where the first piece of `text[start..window]` ends, and the run it is when its
/// characters tell (then it is all of the window).
fn first_piece(linear: Linear, text: &str, start: usize, window: usize) -> (usize, Option<Run>) {
    match Run::of(&text[start..window]) {
        Some(run) => (window, Some(run)),
        None => (start + linear.first_piece_len(&text[start..window]), None),
    }
}

/// Where the last piece of `text[from..end]` starts, cutting from `from`, and the
/// run it is when its characters tell.
fn last_piece(linear: Linear, text: &str, from: usize, end: usize) -> Option<(usize, Option<Run>)> {
    if from < end {
        if let Some(run) = Run::of(&text[from..end]) {
            return Some((from, Some(run)));
        }
    }
    let start = from + linear.last_piece_start(&text[from..end]);
    // The last piece alone may be a run (a piece the pattern cut after a
    // variation selector, say).
    (start < end).then(|| (start, Run::of(&text[start..end])))
}

/// The length to encode for `limit` tokens and a margin, from a sample of `bytes`
/// that encoded to `tokens`; `None` (encode it all) when the sample had no token.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
fn encode_target(bytes: usize, tokens: usize, limit: usize) -> Option<usize> {
    if tokens == 0 {
        return None;
    }
    let per_token = bytes as f64 / tokens as f64;
    let wanted = limit.saturating_add(2 * MARGIN) as f64 * per_token * 1.05;
    Some((wanted as usize).saturating_add(64))
}

/// Half as much again of the piece, and at least 64 bytes more (head: up to
/// `piece_end`; tail: down to it). Offsets need not be char boundaries: the
/// encoder works on bytes, and only parts on char boundaries are kept.
fn grow(side: Side, anchor: usize, reached: usize, piece_end: usize) -> usize {
    match side {
        Side::Head => {
            let length = reached - anchor;
            anchor
                .saturating_add(length + length / 2 + 64)
                .min(piece_end)
        }
        Side::Tail => {
            let length = anchor - reached;
            anchor
                .saturating_sub(length + length / 2 + 64)
                .max(piece_end)
        }
    }
}
