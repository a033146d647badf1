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

/// The split points of one counter: a [`PieceRule`], the runs that earlier
/// pre-tokenizer stages isolate, and whether the text is normalised first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitRule {
    pub(crate) pieces: PieceRule,
    /// The character classes whose runs `Split` stages before the [`PieceRule`]'s
    /// isolate (DeepSeek's digits, then Chinese characters and kana).
    pub(crate) isolated: IsolatedRuns,
    /// A Unicode normaliser (NFC, NFKC, lowercase, ...) runs before the
    /// pre-tokenizer: only offsets between two ASCII characters qualify. ASCII
    /// characters never compose with their neighbours, decompose or change class,
    /// so the normalised text is cut at the same place, between the same characters.
    pub(crate) ascii_only: bool,
}

/// Runs of character classes that `Split` stages (`Isolated`, not inverted) cut
/// out of the text before the stage that [`PieceRule`] describes, as DeepSeek's
/// V3 and V4 files do: `\p{N}{1,3}`, then `[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+`,
/// then the word pattern.
///
/// Such a stage makes every run of its class (cut into chunks, for `{1,3}`) a piece
/// and every stretch between runs a piece, and the later stages only cut those
/// pieces further. So an offset where a character of a class meets one of another
/// class, or of none, is a cut whatever the text around it: the run ends (or
/// starts) there, however far it goes on the other side, and the stretch on the
/// other side ends (or starts) there too. Between two characters of the same class
/// no cut is claimed (a `{1,3}` run is chunked from its start, which may be far).
/// Between two characters of no class, the stretch they belong to is cut as the
/// [`PieceRule`] cuts a whole text, so its two-character rule holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct IsolatedRuns {
    /// `\p{N}` runs (`\p{N}{1,3}`, `\p{N}+` or `\p{N}`).
    pub(crate) digits: bool,
    /// Runs of `[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]` (CJK unified
    /// ideographs of the basic block, hiragana, katakana).
    pub(crate) cjk_kana: bool,
}

/// The class-run `Split` patterns [`IsolatedRuns`] understands, and which class
/// each isolates.
pub(crate) fn isolated_run(pattern: &str) -> Option<IsolatedRuns> {
    match pattern {
        r"\p{N}{1,3}" | r"\p{N}+" | r"\p{N}" => Some(IsolatedRuns {
            digits: true,
            cjk_kana: false,
        }),
        "[\u{4e00}-\u{9fa5}\u{3040}-\u{309f}\u{30a0}-\u{30ff}]+" => Some(IsolatedRuns {
            digits: false,
            cjk_kana: true,
        }),
        _ => None,
    }
}

impl IsolatedRuns {
    /// No run isolated: the pre-tokenizer's first stage cuts.
    pub(crate) const NONE: IsolatedRuns = IsolatedRuns {
        digits: false,
        cjk_kana: false,
    };

    /// Both stages' classes.
    pub(crate) fn with(self, other: IsolatedRuns) -> IsolatedRuns {
        IsolatedRuns {
            digits: self.digits || other.digits,
            cjk_kana: self.cjk_kana || other.cjk_kana,
        }
    }

    /// Which isolated class `c` belongs to: 0 for none, else the first stage's
    /// that takes it (the digits come first).
    fn class(self, c: char) -> u8 {
        if self.digits && is_number(c) {
            1
        } else if self.cjk_kana
            && matches!(c, '\u{4e00}'..='\u{9fa5}' | '\u{3040}'..='\u{309f}' | '\u{30a0}'..='\u{30ff}')
        {
            2
        } else {
            0
        }
    }
}

/// `\p{N}`, as the `regex` crate's tables (those of `tokenizers`) say.
fn is_number(c: char) -> bool {
    static NUMBER: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\A\p{N}\z").expect("the pattern is valid"));
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    let mut buffer = [0u8; 4];
    NUMBER.is_match(c.encode_utf8(&mut buffer))
}

impl SplitRule {
    /// Whether the rule cuts between `previous` and `next`.
    pub(crate) fn cuts(self, previous: char, next: char) -> bool {
        if self.ascii_only && !(previous.is_ascii() && next.is_ascii()) {
            return false;
        }
        if self.isolated != IsolatedRuns::default() {
            match (self.isolated.class(previous), self.isolated.class(next)) {
                (0, 0) => {}
                (a, b) => return a != b,
            }
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

/// DeepSeek's word pattern (V3 and V4), the stage after its digit and CJK stages.
/// With the digits cut out first (and only then), it is as the known patterns are:
/// a piece never runs from a character other than whitespace into a space (a space
/// only starts a piece, as the optional prefix of a letter or punctuation run, or a
/// whitespace run; and a match starts at every space), a letter run (which a letter
/// always starts) never takes punctuation in, and nothing looks behind. A digit
/// would break it: one that starts no match is left in an unmatched stretch that
/// may run on into a control character, so it needs the digit stage before.
pub(crate) const DEEPSEEK_WORDS: &str = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";

/// Whether `pattern` is one of the GPT-style patterns [`PieceRule::Pattern`] is
/// proven for. In each, a piece never runs from a character other than whitespace
/// into a space (a space only starts a piece, as the optional prefix of a word,
/// number or punctuation run, or a whitespace run), nor from a letter or digit into
/// punctuation other than an apostrophe; and no alternative looks behind, so the
/// pieces before such an offset are the same whether the text goes on or ends there.
///
/// A file may spell a line break in a class as the regex escape (`\r`, JSON
/// `"\\r"`) or as the character itself (JSON `"\r"`, as DeepSeek's do): both
/// spellings are the same pattern.
pub(crate) fn is_known_pattern(pattern: &str) -> bool {
    let pattern = escaped_line_breaks(pattern);
    KNOWN_PATTERNS.contains(&&*pattern)
}

/// Whether `pattern` is [`DEEPSEEK_WORDS`], with line breaks spelled either way.
pub(crate) fn is_deepseek_words(pattern: &str) -> bool {
    escaped_line_breaks(pattern) == escaped_line_breaks(DEEPSEEK_WORDS)
}

/// `pattern` with each carriage return and line feed character written as its
/// regex escape.
fn escaped_line_breaks(pattern: &str) -> std::borrow::Cow<'_, str> {
    if pattern.contains(['\r', '\n']) {
        pattern.replace('\r', "\\r").replace('\n', "\\n").into()
    } else {
        pattern.into()
    }
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

    /// What follows each split point of `text`, in order.
    fn tails(rule: SplitRule, text: &str) -> Vec<&str> {
        points(rule, text)
            .into_iter()
            .map(|at| &text[at..])
            .collect()
    }

    const PATTERN: SplitRule = SplitRule {
        pieces: PieceRule::Pattern { punctuation: true },
        isolated: IsolatedRuns::NONE,
        ascii_only: false,
    };

    #[test]
    fn patterns_cut_before_a_space_after_a_word_and_at_punctuation() {
        let text = "ab  c\u{3000} d, e's 日本。x";
        assert_eq!(
            tails(PATTERN, text),
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
            isolated: IsolatedRuns::NONE,
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
            isolated: IsolatedRuns::NONE,
            ascii_only: false,
        };
        assert_eq!(points(split, "a  b▁c"), vec![1, 2, 4]);
        let whole = SplitRule {
            pieces: PieceRule::Metaspace {
                replacement: '▁',
                split: false,
            },
            isolated: IsolatedRuns::NONE,
            ascii_only: false,
        };
        assert_eq!(points(whole, "a  b▁c"), vec![1, 4]);
    }

    #[test]
    fn whitespace_rules_cut_between_classes() {
        let split = SplitRule {
            pieces: PieceRule::WhitespaceSplit,
            isolated: IsolatedRuns::NONE,
            ascii_only: false,
        };
        assert_eq!(points(split, "ab  c.d"), vec![2, 3, 4]);
        let classes = SplitRule {
            pieces: PieceRule::Whitespace,
            isolated: IsolatedRuns::NONE,
            ascii_only: false,
        };
        assert_eq!(points(classes, "ab c.d é_1"), vec![2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn isolated_runs_cut_at_their_edges_and_never_inside() {
        let deepseek = SplitRule {
            isolated: IsolatedRuns {
                digits: true,
                cjk_kana: true,
            },
            ..PATTERN
        };
        // Digit and CJK runs are cut at both ends, whatever is on the other side
        // (a letter, a space, each other), never inside; between other characters
        // the pattern rule cuts (the space before "x", the comma).
        let text = "a12b 3日本かなx, ٣٤y";
        assert_eq!(
            tails(deepseek, text),
            vec![
                "12b 3日本かなx, ٣٤y",
                "b 3日本かなx, ٣٤y",
                " 3日本かなx, ٣٤y",
                "3日本かなx, ٣٤y",
                "日本かなx, ٣٤y",
                "x, ٣٤y",
                ", ٣٤y",
                " ٣٤y",
                "٣٤y",
                "y",
            ]
        );
        assert_eq!(
            isolated_run(r"\p{N}{1,3}"),
            Some(IsolatedRuns {
                digits: true,
                cjk_kana: false
            })
        );
        assert_eq!(isolated_run(r"\p{L}+"), None);
    }

    #[test]
    fn line_breaks_may_be_spelled_as_characters() {
        let qwen2 = KNOWN_PATTERNS[2];
        assert!(is_known_pattern(qwen2));
        assert!(is_known_pattern(
            &qwen2.replace("\\r", "\r").replace("\\n", "\n")
        ));
        assert!(!is_known_pattern(&qwen2.replace("\\r", "")));
        assert!(is_deepseek_words(DEEPSEEK_WORDS));
        assert!(is_deepseek_words(&DEEPSEEK_WORDS.replace('\r', "\\r")));
        assert!(!is_known_pattern(DEEPSEEK_WORDS));
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
