//! Split points of vocabulary files: where the pre-tokenizer of a Hugging Face
//! `tokenizer.json` or a Tekken file provably cuts a text, so that counts add up
//! (see [`TokenCounter::next_split`](super::TokenCounter::next_split)).
//!
//! A rule here only looks at the two characters around an offset. The counters add
//! what the rule cannot see (added tokens, the vocabulary) as a veto.
// Tekken alone uses only the pattern rule.
#![cfg_attr(not(feature = "huggingface"), allow(dead_code))]

use std::sync::LazyLock;

use regex::Regex;

/// How a pre-tokenizer cuts text into the pieces the model encodes one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PieceRule {
    /// A GPT-style pattern (GPT-2's, `cl100k_base`'s, `o200k_base`'s, Qwen2's,
    /// Tekken's): pieces start at a space that follows a character other than
    /// whitespace and, with `punctuation`, at punctuation that follows a letter or a
    /// digit. Without `punctuation` (a prefix space is added to every text), only the
    /// first kind: a text that starts with a space gets no prefix.
    Pattern {
        /// Whether punctuation after a letter or digit starts a piece.
        punctuation: bool,
    },
    /// `Metaspace`, as in files converted from `SentencePiece` models: spaces become `replacement`, and with `split` every
    /// replacement starts a piece. Without `split` the text is one piece, and the
    /// counter has checked that no token of the vocabulary joins a replacement to
    /// what precedes it (runs of replacements aside), so offsets where a replacement
    /// follows another character are cuts.
    Metaspace {
        /// The character spaces become (`▁`).
        replacement: char,
        /// Whether every replacement starts a piece.
        split: bool,
    },
    /// `WhitespaceSplit`: pieces are runs of non-whitespace.
    WhitespaceSplit,
    /// `Whitespace`: pieces are runs of `\w` and runs of `[^\w\s]`.
    Whitespace,
}

/// The split points of one counter: a [`PieceRule`] and whether the text is
/// normalised first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitRule {
    pub(crate) pieces: PieceRule,
    /// A Unicode normaliser (NFC, NFKC, lowercase, ...) runs before the
    /// pre-tokenizer: only offsets between two ASCII characters qualify. ASCII
    /// characters never compose with their neighbours, decompose or change class,
    /// so the normalised text is cut at the same place, between the same characters.
    pub(crate) ascii_only: bool,
}

impl SplitRule {
    /// Whether the rule cuts between `previous` and `next`.
    pub(crate) fn cuts(self, previous: char, next: char) -> bool {
        if self.ascii_only && !(previous.is_ascii() && next.is_ascii()) {
            return false;
        }
        match self.pieces {
            PieceRule::Pattern { punctuation } => {
                (next == ' ' && !previous.is_whitespace())
                    || (punctuation && punctuation_after_word(previous, next))
            }
            PieceRule::Metaspace { replacement, split } => {
                let is_space = |c: char| c == ' ' || c == replacement;
                is_space(next) && (split || !is_space(previous))
            }
            PieceRule::WhitespaceSplit => previous.is_whitespace() || next.is_whitespace(),
            PieceRule::Whitespace => {
                let (a, b) = (word_class(previous), word_class(next));
                a != b || a == WordClass::Space
            }
        }
    }

    /// The first offset `at >= from` (and `at > 0`) where the rule cuts and `veto`
    /// does not object.
    pub(crate) fn next(
        self,
        text: &str,
        from: usize,
        veto: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let from = ceil_char_boundary(text, from.max(1));
        if from >= text.len() {
            return None;
        }
        let mut previous = text[..from].chars().next_back()?;
        for (offset, next) in text[from..].char_indices() {
            let at = from + offset;
            if self.cuts(previous, next) && !veto(at) {
                return Some(at);
            }
            previous = next;
        }
        None
    }

    /// The last offset `0 < at < before` where the rule cuts and `veto` does not
    /// object.
    pub(crate) fn prev(
        self,
        text: &str,
        before: usize,
        veto: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let before = floor_char_boundary(text, before);
        let mut chars = text[..before].char_indices().rev();
        let (_, mut next) = chars.next()?;
        for (at, previous) in chars {
            let cut = at + previous.len_utf8();
            if self.cuts(previous, next) && !veto(cut) {
                return Some(cut);
            }
            next = previous;
        }
        None
    }
}

/// The pre-tokenizer patterns whose pieces are proven to start at the two kinds of
/// [`PieceRule::Pattern`] offsets, as `tokenizer.json` and Tekken files spell them.
const KNOWN_PATTERNS: [&str; 5] = [
    // GPT-2 (the pattern of Hugging Face's `ByteLevel` itself).
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    // cl100k_base, as Llama 3 ships it.
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    // Qwen2: cl100k_base with single digits.
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    // o200k_base.
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    // Mistral's Tekken (Mistral Nemo and later): o200k_base without contractions,
    // with single digits.
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
];

/// Whether `pattern` is one of the GPT-style patterns [`PieceRule::Pattern`] is
/// proven for. In each, a piece never runs from a character other than whitespace
/// into a space (a space only starts a piece, as the optional prefix of a word,
/// number or punctuation run, or a whitespace run), nor from a letter or digit into
/// punctuation other than an apostrophe; and no alternative looks behind, so the
/// pieces before such an offset are the same whether the text goes on or ends there.
pub(crate) fn is_known_pattern(pattern: &str) -> bool {
    KNOWN_PATTERNS.contains(&pattern)
}

/// A letter or digit, then a character that is neither whitespace, a letter, a digit,
/// a combining mark nor an apostrophe. Letter and digit runs of the GPT-style
/// patterns never take punctuation in, and an apostrophe may start a contraction
/// (`'s`, `'ll`) that attaches to the word before.
fn punctuation_after_word(previous: char, next: char) -> bool {
    if previous.is_ascii() && next.is_ascii() {
        return previous.is_ascii_alphanumeric()
            && !next.is_ascii_alphanumeric()
            && !next.is_ascii_whitespace()
            && next != '\'';
    }
    if next.is_ascii_alphanumeric() || next.is_whitespace() || next == '\'' {
        return false;
    }
    let mut pair = [0u8; 8];
    let first = previous.encode_utf8(&mut pair[..4]).len();
    let second = next.encode_utf8(&mut pair[first..]).len();
    std::str::from_utf8(&pair[..first + second])
        .is_ok_and(|pair| WORD_THEN_PUNCTUATION.is_match(pair))
}

/// The same Unicode classes the patterns use.
static WORD_THEN_PUNCTUATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\A[\p{L}\p{N}][^\s\p{L}\p{N}\p{M}']\z").expect("the pattern is valid")
});

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WordClass {
    Word,
    Space,
    Other,
}

/// The class of `c` in the `Whitespace` pre-tokenizer's `\w+|[^\w\s]+` (the `regex`
/// crate's Unicode `\w` and `\s`, as in `tokenizers`).
fn word_class(c: char) -> WordClass {
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\A\w\z").expect("the pattern is valid"));
    static SPACE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\A\s\z").expect("the pattern is valid"));
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() || c == '_' {
            WordClass::Word
        } else if c.is_ascii_whitespace() || c == '\x0b' {
            WordClass::Space
        } else {
            WordClass::Other
        };
    }
    let mut buffer = [0u8; 4];
    let c = &*c.encode_utf8(&mut buffer);
    if WORD.is_match(c) {
        WordClass::Word
    } else if SPACE.is_match(c) {
        WordClass::Space
    } else {
        WordClass::Other
    }
}

pub(crate) fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

pub(crate) fn ceil_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(rule: SplitRule, text: &str) -> Vec<usize> {
        let mut forward = Vec::new();
        let mut from = 0;
        while let Some(at) = rule.next(text, from, |_| false) {
            forward.push(at);
            from = at + 1;
        }
        let mut backward = Vec::new();
        let mut before = text.len();
        while let Some(at) = rule.prev(text, before, |_| false) {
            backward.push(at);
            before = at;
        }
        backward.reverse();
        assert_eq!(forward, backward, "{rule:?} {text:?}");
        forward
    }

    const PATTERN: SplitRule = SplitRule {
        pieces: PieceRule::Pattern { punctuation: true },
        ascii_only: false,
    };

    #[test]
    fn patterns_cut_before_a_space_after_a_word_and_at_punctuation() {
        let text = "ab  c\u{3000} d, e's 日本。x";
        let got: Vec<&str> = points(PATTERN, text)
            .into_iter()
            .map(|at| &text[at..])
            .collect();
        assert_eq!(
            got,
            vec![
                "  c\u{3000} d, e's 日本。x",
                ", e's 日本。x",
                " e's 日本。x",
                " 日本。x",
                "。x"
            ]
        );
    }

    #[test]
    fn prefix_space_and_normalisers_restrict_the_cuts() {
        let prefix = SplitRule {
            pieces: PieceRule::Pattern { punctuation: false },
            ascii_only: false,
        };
        assert_eq!(points(prefix, "a.b c"), vec![3]);
        let ascii = SplitRule {
            ascii_only: true,
            ..PATTERN
        };
        assert_eq!(points(ascii, "é b.c 日。"), vec![4, 6]);
    }

    #[test]
    fn metaspace_cuts_before_every_space_or_after_a_word() {
        let split = SplitRule {
            pieces: PieceRule::Metaspace {
                replacement: '▁',
                split: true,
            },
            ascii_only: false,
        };
        assert_eq!(points(split, "a  b▁c"), vec![1, 2, 4]);
        let whole = SplitRule {
            pieces: PieceRule::Metaspace {
                replacement: '▁',
                split: false,
            },
            ascii_only: false,
        };
        assert_eq!(points(whole, "a  b▁c"), vec![1, 4]);
    }

    #[test]
    fn whitespace_rules_cut_between_classes() {
        let split = SplitRule {
            pieces: PieceRule::WhitespaceSplit,
            ascii_only: false,
        };
        assert_eq!(points(split, "ab  c.d"), vec![2, 3, 4]);
        let classes = SplitRule {
            pieces: PieceRule::Whitespace,
            ascii_only: false,
        };
        assert_eq!(points(classes, "ab c.d é_1"), vec![2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn offsets_inside_a_char_are_rounded() {
        let text = "日本 語";
        assert_eq!(PATTERN.next(text, 1, |_| false), Some(6));
        assert_eq!(PATTERN.prev(text, 8, |_| false), Some(6));
        assert_eq!(PATTERN.next(text, 7, |_| false), None);
        assert_eq!(PATTERN.next("", 0, |_| false), None);
        assert_eq!(PATTERN.prev("", 5, |_| false), None);
        assert_eq!(PATTERN.next("a b", usize::MAX, |_| false), None);
    }
}
