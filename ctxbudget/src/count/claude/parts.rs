//! Exact counts of many beginnings (or ends) of one text, for the searches of the
//! trimming engine inside a stretch without split points: one tiling of the
//! stretch from its kept end, then a few symbols per part asked about.
//!
//! The tiling is a minimum over the marked stream, so one pass gives the fewest
//! tokens of every beginning of the stream of the whole (from the start) or of
//! every end of it (from the end). The stream of a beginning of the text is the
//! stream of the whole up to a point, then a few symbols of its own (its last runs
//! written as the text ends there, see [`Layout`]); its count is the tiling up to
//! that point joined with those symbols. Where that cannot be told (normalisation
//! that rewrites the text, a beginning of a few characters, a long run that the
//! cut changes throughout), the part is counted.

use super::counter::Claude;
use super::normalize::normalize_mapped;
use super::stream::Layout;
use super::tile::{best_prefixes, best_suffixes, tile_after, tile_before};
use crate::count::TokenCounter;

/// Parts shorter than this many bytes are counted.
const SHORT_PART: usize = 256;
/// A beginning that ends in more newlines than this is counted.
const MANY_NEWLINES: usize = 4096;

/// Exact counts of the beginnings (or the ends) of one text by one counter.
pub(crate) struct Parts<'t> {
    counter: Claude,
    text: &'t str,
    head: bool,
    tiled: Option<Tiled>,
    /// Whether normalisation rewrites the text: every part is then counted.
    rewritten: bool,
    /// How many parts were counted, not told from the tiling.
    #[cfg(test)]
    counted: usize,
}

/// The tiling of the window of the text nearest its kept end.
struct Tiled {
    /// The window's length in bytes: `text[..len]` (head) or
    /// `text[text.len() - len..]` (tail).
    len: usize,
    norm: Vec<char>,
    /// The byte offset in the window of each character of `norm` (`None`: the
    /// window is ASCII, each character at its own offset).
    offsets: Option<Vec<u32>>,
    /// The window's trailing newlines (tail), which every end shares.
    newlines: usize,
    layout: Layout,
    /// The fewest tokens of every beginning (head) or end (tail) of the stream.
    best: Vec<u32>,
}

impl Tiled {
    /// How many characters of `norm` come from the first `bytes` bytes of the
    /// window.
    fn chars_before(&self, bytes: usize) -> usize {
        match &self.offsets {
            Some(offsets) => offsets.partition_point(|&offset| (offset as usize) < bytes),
            None => bytes.min(self.norm.len()),
        }
    }
}

impl<'t> Parts<'t> {
    pub(super) fn new(counter: Claude, text: &'t str, head: bool) -> Self {
        Parts {
            counter,
            text,
            head,
            tiled: None,
            rewritten: false,
            #[cfg(test)]
            counted: 0,
        }
    }

    /// The count of the first (head) or last (tail) `length` bytes of the text,
    /// equal to the counter's count of that part; `length` is taken to a char
    /// boundary below.
    pub(crate) fn count(&mut self, length: usize) -> usize {
        let text = self.text;
        let mut length = length.min(text.len());
        let part = if self.head {
            while !text.is_char_boundary(length) {
                length -= 1;
            }
            &text[..length]
        } else {
            while !text.is_char_boundary(text.len() - length) {
                length -= 1;
            }
            &text[text.len() - length..]
        };
        if length < SHORT_PART || self.rewritten {
            return self.counter.count(part);
        }
        if self.tiled.as_ref().is_none_or(|tiled| tiled.len < length) {
            // Grow the window at least twofold, so that a search that keeps
            // asking further tiles about twice what it reaches.
            let len = self
                .tiled
                .as_ref()
                .map_or(length, |tiled| length.max(tiled.len.saturating_mul(2)))
                .min(text.len());
            self.tiled = self.tile(len);
            if self.tiled.is_none() {
                self.rewritten = true;
                return self.counter.count(part);
            }
        }
        let fast = match &self.tiled {
            Some(tiled) if self.head => self.head_count(tiled, length),
            Some(tiled) => self.tail_count(tiled, length),
            None => None,
        };
        if let Some(tokens) = fast {
            return tokens;
        }
        #[cfg(test)]
        {
            self.counted += 1;
        }
        self.counter.count(part)
    }

    /// Tiles the window of `len` bytes at the kept end (a char boundary).
    fn tile(&self, len: usize) -> Option<Tiled> {
        let text = self.text;
        let mut len = len;
        let window = if self.head {
            while !text.is_char_boundary(len) {
                len -= 1;
            }
            &text[..len]
        } else {
            while !text.is_char_boundary(text.len() - len) {
                len -= 1;
            }
            &text[text.len() - len..]
        };
        let generation = self.counter.generation();
        let (norm, offsets) = normalize_mapped(window, generation.folds_quotes())?;
        let rules = self.counter.rules();
        let vocab = self.counter.vocabulary();
        if self.head {
            let layout = Layout::new(&norm, window.starts_with(' '), rules)?;
            let best = best_prefixes(&layout.symbols, vocab);
            Some(Tiled {
                len,
                norm,
                offsets,
                newlines: 0,
                layout,
                best,
            })
        } else {
            let newlines = norm.iter().rev().take_while(|&&c| c == '\n').count();
            let layout = Layout::new(&norm[..norm.len() - newlines], false, rules)?;
            let best = best_suffixes(&layout.symbols, vocab);
            Some(Tiled {
                len,
                norm,
                offsets,
                newlines,
                layout,
                best,
            })
        }
    }

    /// The count of the first `length` bytes, from the tiling.
    fn head_count(&self, tiled: &Tiled, length: usize) -> Option<usize> {
        let chars = tiled.chars_before(length);
        let mut end = chars;
        while end > 0 && tiled.norm[end - 1] == '\n' {
            end -= 1;
            if chars - end > MANY_NEWLINES {
                return None;
            }
        }
        let (at, tail) = tiled
            .layout
            .prefix(&tiled.norm, end, self.counter.rules())?;
        let vocab = self.counter.vocabulary();
        let pieces = tile_after(&tiled.layout.symbols, &tiled.best, at, &tail, vocab);
        Some(pieces.saturating_add(vocab.frame_tail(chars - end)))
    }

    /// The count of the last `length` bytes, from the tiling.
    fn tail_count(&self, tiled: &Tiled, length: usize) -> Option<usize> {
        let from = tiled.len.checked_sub(length)?;
        let start = tiled.chars_before(from);
        let content = tiled.norm.len() - tiled.newlines;
        if start >= content {
            return None;
        }
        let window = &self.text[self.text.len() - tiled.len..];
        let (head, at) = tiled.layout.suffix(
            &tiled.norm[..content],
            start,
            window[from..].starts_with(' '),
            self.counter.rules(),
        )?;
        let vocab = self.counter.vocabulary();
        let pieces = tile_before(&head, &tiled.layout.symbols, &tiled.best, at, vocab);
        Some(pieces.saturating_add(vocab.frame_tail(tiled.newlines)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::ClaudeGeneration;
    use super::*;

    /// Every part asked of `text` (every char boundary from `SHORT_PART` on, in
    /// steps of `step` bytes, asked in an order that grows the window) counts as
    /// the counter does; returns how many were counted.
    fn check(text: &str, step: usize) -> usize {
        let mut fallbacks = 0;
        for generation in ClaudeGeneration::ALL {
            let counter = Claude::new(generation);
            for head in [true, false] {
                let mut parts = counter.parts(text, head);
                let lengths: Vec<usize> = (0..=text.len()).step_by(step.max(1)).collect();
                // Short first, then long, then back: the window grows and is reused.
                let (short, long) = lengths.split_at(lengths.len() / 3);
                for &length in short.iter().chain(long).chain(short.iter().rev()) {
                    let mut length = length;
                    let part = if head {
                        while !text.is_char_boundary(length) {
                            length -= 1;
                        }
                        &text[..length]
                    } else {
                        while !text.is_char_boundary(text.len() - length) {
                            length -= 1;
                        }
                        &text[text.len() - length..]
                    };
                    assert_eq!(
                        parts.count(length),
                        counter.count(part),
                        "{generation} head {head} length {length} of {:?}",
                        text.chars().take(40).collect::<String>()
                    );
                }
                fallbacks += parts.counted;
            }
        }
        fallbacks
    }

    #[test]
    fn parts_of_worst_shapes_count_from_the_tiling() {
        let letters = "a".repeat(2000);
        assert_eq!(check(&letters, 7), 0);
        let spaced = format!(" {}", "b".repeat(1500));
        assert_eq!(check(&spaced, 11), 0);
        let emoji = "👨\u{200d}👩\u{200d}👧🏽🇯🇵❤\u{fe0f}👋🏾".repeat(60);
        check(&emoji, 5);
        let base64 = "QmFzZTY0IGlzIGEgZ3JvdXAgb2YgYmluYXJ5LXRvLXRleHQ+/==aB3".repeat(40);
        check(&base64, 3);
    }

    #[test]
    fn parts_of_real_text_count_as_the_counter() {
        let prose = include_str!("../../../../tests/fixtures/prose.txt");
        let code = include_str!("../../../../tests/fixtures/code.txt");
        let mixed = include_str!("../../../../tests/fixtures/multilingual.txt");
        for text in [prose, code, mixed] {
            let end = (0..=2000)
                .rev()
                .find(|&at| text.is_char_boundary(at))
                .unwrap_or(0);
            check(&text[..end], 17);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Any text, and text made of what changes the stream at a cut: case,
        /// contractions, digits, marks, whitespace and newlines, punctuation,
        /// ideographs, emoji, controls, private use.
        #[test]
        fn parts_of_any_text_count_as_the_counter(
            any in "\\PC{0,300}",
            unit in "[a-zA-Z0-9ÀéΣİẞϴ \t\n\r\0\u{1}.,;'’“!?+/_\u{a0}\u{3000}日本。、々あカー한\u{301}\u{3099}\u{903}\u{730}क١²\u{e000}\u{fe0f}\u{200d}😀👍🏽-]{1,40}",
            repeat in 1usize..40,
        ) {
            let long = format!("{any}{}", unit.repeat(repeat));
            check(&long.repeat(1 + 400 / long.len().max(1)), 2 + long.len() % 5);
        }
    }
}
