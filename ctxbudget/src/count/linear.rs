//! The linear byte-pair engine behind [`Tiktoken`](super::Tiktoken) for `o200k_base`
//! and `cl100k_base`: `bpe-openai`'s pre-tokenizer and backtracking encoder, which
//! give the token ids of `tiktoken-rs` (checked by the property tests in
//! `tests/suite/tiktoken_linear.rs`) in time linear in the text, where `tiktoken-rs` is
//! super-linear on one long piece (a run of one letter, CJK text without
//! punctuation, a run of emoji).
//!
//! Besides counting, the engine answers what the trimming engine needs inside a long
//! piece without split points. Byte-pair encodings have the *prefix property*: any
//! run of consecutive tokens of the encoding of a text is itself the encoding of the
//! text it spells (the `bpe` crate's README, "Corollary II"). So one encoding of a
//! stretch gives the exact count of every prefix (and suffix) that ends at one of its
//! token boundaries, at the cost of one count.

use bpe_openai::Tokenizer;

/// A handle on the linear engine of one encoding; `Copy`, a shared reference.
#[derive(Clone, Copy)]
pub struct Linear {
    tokenizer: &'static Tokenizer,
}

impl std::fmt::Debug for Linear {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Linear").finish_non_exhaustive()
    }
}

/// The longest token of the OpenAI vocabularies is 128 bytes: a piece of `n` bytes
/// costs at least `n / 128` tokens, whatever it holds.
pub(crate) const MAX_TOKEN_BYTES: usize = 128;

impl Linear {
    pub(crate) fn o200k_base() -> Self {
        Linear {
            tokenizer: bpe_openai::o200k_base(),
        }
    }

    pub(crate) fn cl100k_base() -> Self {
        Linear {
            tokenizer: bpe_openai::cl100k_base(),
        }
    }

    /// The exact count of `text`, equal to `tiktoken`'s `encode_ordinary(text).len()`.
    pub(crate) fn count(self, text: &str) -> usize {
        self.pieces(text)
            .map(|piece| self.tokenizer.bpe.count(piece.as_bytes()))
            .sum()
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
            total += self.tokenizer.bpe.count(piece.as_bytes());
            if total > limit {
                return None;
            }
        }
        Some(total)
    }

    /// The token ids of `text`, as `tiktoken`'s `encode_ordinary` gives them.
    #[cfg(test)]
    pub(crate) fn encode(self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text)
    }

    /// The pieces the pre-tokenizer cuts `text` into, each encoded alone.
    pub(crate) fn pieces(self, text: &str) -> impl Iterator<Item = &str> {
        self.tokenizer.split(text)
    }

    /// The length of the first piece of `text` (0 for `""`).
    pub(crate) fn first_piece_len(self, text: &str) -> usize {
        if is_one_case_letter_run(text) {
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
    use super::*;

    #[test]
    fn one_case_letter_runs_are_one_piece_as_the_patterns_say() {
        let runs = ["a", "zzzz", "QUICK", "abcdefghijklmnopqrstuvwxyz", "ABCXYZ"];
        let not_runs = ["", "aB", "Ab", "a b", "a1", "é", "a's", "aaaa\n"];
        for linear in [Linear::o200k_base(), Linear::cl100k_base()] {
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

    #[test]
    fn no_token_is_longer_than_the_bound() {
        for linear in [Linear::o200k_base(), Linear::cl100k_base()] {
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
        let linear = Linear::o200k_base();
        let text = "a".repeat(10_000);
        assert_eq!(linear.count_within(&text, 10), None);
        let count = linear.count(&text);
        assert_eq!(linear.count_within(&text, count), Some(count));
        assert_eq!(linear.encode(&text).len(), count);
    }
}
