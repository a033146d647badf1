//! The pre-tokenizer of the linear engine (see [`super::linear`]) with a byte scan
//! for ASCII text: `bpe-openai` runs its regular expression once per piece, a few
//! hundred instructions for a piece of four bytes, where a scan of the pattern's
//! rules on ASCII bytes costs a few a byte. The scan answers only where every
//! character it looks at is ASCII; anything else is left to the regular
//! expression, which, like `bpe-openai`'s own iterator, is run on the text from the
//! piece's start (a piece depends on what follows it, never on what precedes it).
//!
//! The rules, in the patterns' order (leftmost-first: the first alternative that
//! matches wins, and each takes as much as it can):
//!
//! - `cl100k_base`: `'s|'t|'re|'ve|'m|'ll|'d` (any case); `[^\r\n\p{L}\p{N}]?\p{L}+`;
//!   `\p{N}{1,3}`; ` ?[^\s\p{L}\p{N}]+[\r\n]*`; `\s*[\r\n]+`; `\s+$`; `\s+(?!\S)`; `\s+`.
//! - `o200k_base`: `[^\r\n\p{L}\p{N}]?` then upper-case letters and at least one
//!   lower-case letter, or at least one upper-case letter, then an optional
//!   contraction; `\p{N}{1,3}`; ` ?[^\s\p{L}\p{N}]+[\r\n/]*`; then the same
//!   whitespace rules.

use bpe_openai::Tokenizer;

/// Which of the two patterns cuts the pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// `o200k_base`'s: case runs, contractions inside letter pieces, `/` after
    /// symbols.
    O200k,
    /// `cl100k_base`'s: letter runs, contractions as pieces of their own.
    Cl100k,
}

/// `\s` in ASCII: Unicode `White_Space` holds tab, line feed, vertical tab, form
/// feed, carriage return and space (not U+001C to U+001F).
fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// `[^\s\p{L}\p{N}]` in ASCII: punctuation, symbols and control characters.
fn is_symbol(b: u8) -> bool {
    b.is_ascii() && !is_space(b) && !b.is_ascii_alphanumeric()
}

fn is_newline(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// A byte that is not ASCII, where the scan gives up.
struct NotAscii;

/// The byte at `at`, `Ok(None)` at the end of the text, or [`NotAscii`].
fn ascii(text: &[u8], at: usize) -> Result<Option<u8>, NotAscii> {
    match text.get(at) {
        None => Ok(None),
        Some(&b) if b.is_ascii() => Ok(Some(b)),
        Some(_) => Err(NotAscii),
    }
}

/// The end of the longest run from `from` of bytes that `class` holds; `None` if
/// the run stops at a byte that is not ASCII, which could continue it.
fn run_end(text: &[u8], from: usize, class: impl Fn(u8) -> bool) -> Option<usize> {
    let mut end = from;
    while let Some(b) = ascii(text, end).ok()? {
        if !class(b) {
            break;
        }
        end += 1;
    }
    Some(end)
}

/// The length of a contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`, any
/// case) at `at`: `Some(0)` for none, `None` where it depends on a byte that is not
/// ASCII (case folding maps `ſ` to `s`).
fn contraction(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'\'') {
        return Some(0);
    }
    let Some(first) = ascii(text, at + 1).ok()? else {
        return Some(0);
    };
    let second = |expected: u8| -> Option<usize> {
        let Some(b) = ascii(text, at + 2).ok()? else {
            return Some(0);
        };
        Some(if b.eq_ignore_ascii_case(&expected) {
            3
        } else {
            0
        })
    };
    match first.to_ascii_lowercase() {
        b's' | b't' | b'm' | b'd' => Some(2),
        b'r' | b'v' => second(b'e'),
        b'l' => second(b'l'),
        _ => Some(0),
    }
}

/// The length of the first piece of `text` as `pattern` cuts it, or `None` where
/// the answer depends on a character that is not ASCII.
pub(crate) fn first_ascii_piece(pattern: Pattern, text: &[u8]) -> Option<usize> {
    let Some(first) = ascii(text, 0).ok()? else {
        return Some(0);
    };
    if pattern == Pattern::Cl100k && first == b'\'' {
        let length = contraction(text, 0)?;
        if length > 0 {
            return Some(length);
        }
    }
    // A letter run, after one character that is not a line break, letter or digit.
    let letters = if first.is_ascii_alphabetic() {
        Some(0)
    } else if !is_newline(first) && !first.is_ascii_digit() {
        ascii(text, 1)
            .ok()?
            .filter(u8::is_ascii_alphabetic)
            .map(|_| 1)
    } else {
        None
    };
    if let Some(start) = letters {
        return match pattern {
            Pattern::Cl100k => run_end(text, start, |b| b.is_ascii_alphabetic()),
            Pattern::O200k => {
                let upper = run_end(text, start, |b| b.is_ascii_uppercase())?;
                let end = match ascii(text, upper).ok()? {
                    Some(b) if b.is_ascii_lowercase() => {
                        run_end(text, upper, |b| b.is_ascii_lowercase())?
                    }
                    _ => upper,
                };
                Some(end + contraction(text, end)?)
            }
        };
    }
    if first.is_ascii_digit() {
        let end = run_end(text, 0, |b| b.is_ascii_digit());
        // Three digits make a piece whatever follows them.
        return match end {
            Some(end) => Some(end.min(3)),
            None if text[..3.min(text.len())].iter().all(u8::is_ascii_digit) => Some(3),
            None => None,
        };
    }
    // Symbols, after an optional space, then line breaks (and `/` for o200k).
    let symbols = if is_symbol(first) {
        Some(0)
    } else if first == b' ' {
        ascii(text, 1).ok()?.filter(|&b| is_symbol(b)).map(|_| 1)
    } else {
        None
    };
    if let Some(start) = symbols {
        let end = run_end(text, start, is_symbol)?;
        let trailing = |b: u8| is_newline(b) || (pattern == Pattern::O200k && b == b'/');
        let end = text[end..]
            .iter()
            .position(|&b| !trailing(b))
            .map_or(text.len(), |n| end + n);
        return Some(end);
    }
    // Whitespace: up to its last line break; else all of it at the end of the
    // text; else all but its last character, which goes with what follows.
    let end = run_end(text, 0, is_space)?;
    if let Some(last_break) = text[..end].iter().rposition(|&b| is_newline(b)) {
        return Some(last_break + 1);
    }
    if end == text.len() || end == 1 {
        return Some(end);
    }
    Some(end - 1)
}

/// The pieces of `text`, as `tokenizer`'s pre-tokenizer cuts them.
#[derive(Clone)]
pub(crate) struct Pieces<'a> {
    pattern: Pattern,
    tokenizer: &'static Tokenizer,
    text: &'a str,
}

impl<'a> Pieces<'a> {
    pub(crate) fn new(pattern: Pattern, tokenizer: &'static Tokenizer, text: &'a str) -> Self {
        Pieces {
            pattern,
            tokenizer,
            text,
        }
    }
}

impl std::fmt::Debug for Pieces<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pieces")
            .field("pattern", &self.pattern)
            .field("rest", &self.text)
            .finish_non_exhaustive()
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        if self.text.is_empty() {
            return None;
        }
        let length = match first_ascii_piece(self.pattern, self.text.as_bytes()) {
            Some(length) => length,
            None => self.tokenizer.split(self.text).next().map_or(0, str::len),
        };
        // Every piece is non-empty and ends on a char boundary; the checks keep a
        // wrong length from looping or panicking.
        let length = if length == 0 || !self.text.is_char_boundary(length) {
            self.text.len()
        } else {
            length
        };
        let (piece, rest) = self.text.split_at(length);
        self.text = rest;
        Some(piece)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn both() -> [(Pattern, &'static Tokenizer); 2] {
        [
            (Pattern::O200k, bpe_openai::o200k_base()),
            (Pattern::Cl100k, bpe_openai::cl100k_base()),
        ]
    }

    /// The scan's pieces are the regular expression's, for both patterns.
    fn assert_same_pieces(text: &str) {
        for (pattern, tokenizer) in both() {
            let ours: Vec<&str> = Pieces::new(pattern, tokenizer, text).collect();
            let theirs: Vec<&str> = tokenizer.split(text).collect();
            assert_eq!(ours, theirs, "{pattern:?} on {text:?}");
        }
    }

    #[test]
    fn the_scan_cuts_the_fixtures_and_worst_cases_as_the_pattern_does() {
        for text in [
            include_str!("../../../tests/fixtures/prose.txt"),
            include_str!("../../../tests/fixtures/code.txt"),
            include_str!("../../../tests/fixtures/multilingual.txt"),
            include_str!("../../../tests/fixtures/markdown.md"),
            "HELLOworld helloWorld HELLO'S it's IT'LL we'Re they'VE I'm 'sup 'S x'ſ x'\u{17f}",
            "  \n\n \t x\r\n\r\n  y   \u{a0}z \u{3000}  \u{85} \x0b\x0c\x1c\x1f end   ",
            "12345 1234567 1२3 12٣ a1b2 (x) [[y]] //\n/// +/=\n\n\r",
            "aaaaaaaaaaaaaaaaaaaa ZZZZ éa aé Éa \u{301}a a\u{301} ǅa",
            "👨\u{200d}👩 !👍 !!! ...\u{fe0f} 日本a a日本 '日",
            "",
            " ",
            "'",
            "\n",
        ] {
            assert_same_pieces(text);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// ASCII of every class, with the non-ASCII characters that sit next to
        /// the scan's decisions (letters, marks, digits, spaces, symbols, `ſ`).
        #[test]
        fn the_scan_cuts_any_text_as_the_pattern_does(
            ascii in "[\\x00-\\x7f]{0,40}",
            mixed in "([a-zA-Z]{1,4}|[0-9]{1,4}|[ \\t\\n\\r\\x0b\\x0c]{1,4}|['/.,!?(){}\\-]{1,3}|'[sStTmMdDrRvVlLeE]{1,2}|[éÉ\u{301}ǅſ日٣२\u{a0}\u{3000}\u{85}👍\u{200d}·])*",
            any in "\\PC{0,40}",
        ) {
            assert_same_pieces(&ascii);
            assert_same_pieces(&mixed);
            assert_same_pieces(&any);
        }
    }
}
