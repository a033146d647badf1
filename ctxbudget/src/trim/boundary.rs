//! Where a text may be cut: paragraph, line, sentence, word and grapheme
//! boundaries, found by scanning near the cut only.
//!
//! A *cut* of the head is the end of the kept prefix; of the tail, the start of the
//! kept suffix. Whitespace at a cut is never kept, so every cut returned here is
//! already trimmed: the kept part neither ends (head) nor starts (tail) with
//! whitespace, and is not empty.

use unicode_segmentation::GraphemeCursor;

use super::Boundary;
use super::fit::{Side, ceil_char_boundary, floor_char_boundary};

/// Sentence terminators: Latin, CJK full-width, Arabic, Urdu, Devanagari,
/// Armenian, Ethiopic, and the ellipsis.
fn is_terminator(c: char) -> bool {
    matches!(
        c,
        '.' | '!'
            | '?'
            | '…'
            | '‼'
            | '⁇'
            | '⁈'
            | '⁉'
            | '。'
            | '！'
            | '？'
            | '｡'
            | '؟'
            | '۔'
            | '।'
            | '॥'
            | '։'
            | '።'
    )
}

/// Terminators that end a sentence without a following space (CJK full-width).
fn is_spaceless_terminator(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '｡')
}

/// Closing quotes and brackets that may follow a terminator.
fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | ')' | ']' | '}' | '»' | '”' | '’' | '」' | '』' | '）' | '】' | '》' | '〉'
    )
}

/// Scripts written without spaces between words, where a word boundary may fall
/// between any two characters: CJK ideographs, kana, and CJK punctuation.
fn is_spaceless_script(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F      // CJK symbols and punctuation
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF00..=0xFFEF    // Half- and full-width forms
        | 0x20000..=0x3FFFF  // CJK extensions B and later
    )
}

fn is_grapheme_boundary(text: &str, at: usize) -> bool {
    GraphemeCursor::new(at, text.len(), true)
        .is_boundary(text, 0)
        .unwrap_or(true)
}

/// Whether a word ends at byte `at` (`0 < at < text.len()`, a char boundary):
/// the end of a run of non-whitespace before whitespace, or a boundary between
/// characters of a script written without spaces.
fn is_word_end(text: &str, at: usize) -> bool {
    if between_ascii_non_spaces(text, at) {
        return false;
    }
    let (Some(before), Some(after)) = (text[..at].chars().next_back(), text[at..].chars().next())
    else {
        return false;
    };
    if before.is_whitespace() {
        return false;
    }
    if after.is_whitespace() {
        return true;
    }
    (is_spaceless_script(before) || is_spaceless_script(after)) && is_grapheme_boundary(text, at)
}

/// Whether byte `at` sits between two ASCII characters that are not whitespace,
/// where no word starts or ends (ASCII has no spaceless script): a two-byte check
/// that spares decoding the characters on each side in a long run of letters.
fn between_ascii_non_spaces(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    let ascii_non_space =
        |b: u8| b.is_ascii() && !matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ');
    at > 0 && at < bytes.len() && ascii_non_space(bytes[at - 1]) && ascii_non_space(bytes[at])
}

/// The UTF-8 lengths of the characters [`between_pictographs`] knows.
const PICTOGRAPH_LEN: [usize; 2] = [3, 4];

/// Whether byte `at` sits between two characters of emoji sequences that are
/// neither whitespace nor of a script written without spaces, so that no word starts
/// or ends there: pictographs of U+1F000–U+1FFFF, the zero-width joiner and the
/// variation selectors. A check of their UTF-8 bytes that spares decoding both
/// characters and looking them up in a long run of emoji.
fn between_pictographs(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    let is_plain = |c: &[u8]| {
        matches!(
            c,
            [0xF0, 0x9F, _, _] | [0xE2, 0x80, 0x8D] | [0xEF, 0xB8, 0x8E | 0x8F]
        )
    };
    let after = match bytes.get(at) {
        Some(0xF0) => bytes.get(at..at + 4),
        Some(0xE2 | 0xEF) => bytes.get(at..at + 3),
        _ => None,
    };
    let before = PICTOGRAPH_LEN
        .iter()
        .filter_map(|&n| at.checked_sub(n).and_then(|start| bytes.get(start..at)))
        .find(|c| matches!(c.first(), Some(0xE2 | 0xEF | 0xF0)) && c.len() == utf8_len(c[0]));
    text.is_char_boundary(at) && after.is_some_and(is_plain) && before.is_some_and(is_plain)
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Whether a word starts at byte `at`: the mirror of [`is_word_end`].
fn is_word_start(text: &str, at: usize) -> bool {
    if between_ascii_non_spaces(text, at) {
        return false;
    }
    let (Some(before), Some(after)) = (text[..at].chars().next_back(), text[at..].chars().next())
    else {
        return false;
    };
    if after.is_whitespace() {
        return false;
    }
    if before.is_whitespace() {
        return true;
    }
    (is_spaceless_script(before) || is_spaceless_script(after)) && is_grapheme_boundary(text, at)
}

/// If a sentence ends right before byte `at`: a terminator, then closing quotes
/// or brackets, then `at` is followed by whitespace (or, after a CJK full-width
/// terminator, by anything but another closer).
fn is_sentence_end(text: &str, at: usize) -> bool {
    let Some(after) = text[at..].chars().next() else {
        return false;
    };
    if is_closer(after) || is_terminator(after) {
        return false;
    }
    let mut before = text[..at].chars().rev();
    let mut last = before.next();
    let mut closers = 0;
    while last.is_some_and(is_closer) {
        closers += 1;
        if closers > 3 {
            return false;
        }
        last = before.next();
    }
    match last {
        Some(terminator) if is_terminator(terminator) => {
            after.is_whitespace() || is_spaceless_terminator(terminator)
        }
        _ => false,
    }
}

/// Whether the line that starts at byte `at` is blank (whitespace only, up to
/// the next line break or the end of the text).
fn line_is_blank(text: &str, at: usize) -> bool {
    text[at..]
        .split('\n')
        .next()
        .is_some_and(|line| line.chars().all(char::is_whitespace))
}

/// The cut that `boundary` gives nearest to `limit` on the kept side of it,
/// not farther from `limit` than `floor` (head: the cut is in `floor..=limit`;
/// tail: in `limit..=floor`), or `None`.
pub(crate) fn find_cut(
    text: &str,
    side: Side,
    boundary: Boundary,
    limit: usize,
    floor: usize,
) -> Option<usize> {
    match side {
        Side::Head => find_head_cut(text, boundary, limit, floor),
        Side::Tail => find_tail_cut(text, boundary, limit, floor),
    }
}

fn find_head_cut(text: &str, boundary: Boundary, limit: usize, floor: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let trimmed_end = |at: usize| text[..at].trim_end().len();
    let accept = |cut: usize| (cut > 0 && cut >= floor).then_some(cut);
    match boundary {
        Boundary::Paragraph | Boundary::Line => {
            // Line breaks at or before `limit` (a break at `limit` itself is fine:
            // the kept text ends before it).
            let mut end = (limit + 1).min(bytes.len());
            while let Some(at) = memrchr(b'\n', &bytes[..end]) {
                let cut = trimmed_end(at);
                if cut == 0 || cut < floor {
                    return None;
                }
                if boundary == Boundary::Line || line_is_blank(text, at + 1) {
                    return Some(cut);
                }
                end = at;
            }
            None
        }
        Boundary::Sentence => {
            let from = ceil_char_boundary(text, floor.min(limit));
            std::iter::once(limit)
                .chain(
                    text[from..limit]
                        .char_indices()
                        .rev()
                        .map(|(index, _)| from + index),
                )
                .find(|&at| at > 0 && is_sentence_end(text, at))
                .and_then(accept)
        }
        Boundary::Word => {
            if limit >= text.len() {
                return accept(trimmed_end(text.len()));
            }
            // Back from `limit`, char by char, and byte by byte over runs of ASCII
            // that is not whitespace (no word ends inside one).
            let mut at = limit;
            while at > 0 && at >= floor {
                if is_word_end(text, at) {
                    return accept(at);
                }
                at -= 1;
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                while at > 0 && at >= floor && between_ascii_non_spaces(text, at) {
                    at -= 1;
                }
                while at > 0 && at >= floor && between_pictographs(text, at) {
                    at -= PICTOGRAPH_LEN
                        .iter()
                        .find(|&&n| text.is_char_boundary(at - n))
                        .copied()
                        .unwrap_or(1);
                }
            }
            None
        }
        Boundary::Grapheme => {
            let mut cursor = GraphemeCursor::new(limit, text.len(), true);
            let at = match cursor.is_boundary(text, 0) {
                Ok(true) => limit,
                _ => cursor.prev_boundary(text, 0).ok().flatten().unwrap_or(0),
            };
            accept(trimmed_end(at))
        }
        Boundary::Char => accept(trimmed_end(limit)),
    }
}

fn find_tail_cut(text: &str, boundary: Boundary, limit: usize, floor: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let len = text.len();
    let trimmed_start = |at: usize| len - text[at..].trim_start().len();
    let accept = |cut: usize| (cut < len && cut <= floor).then_some(cut);
    match boundary {
        Boundary::Paragraph | Boundary::Line => {
            // A line starts after a break at `limit - 1` or later.
            let mut from = limit.saturating_sub(1);
            while let Some(found) = memchr(b'\n', &bytes[from..]) {
                let at = from + found;
                let cut = trimmed_start(at + 1);
                if cut >= len || cut > floor {
                    return None;
                }
                let previous_line_start = memrchr(b'\n', &bytes[..at]).map_or(0, |p| p + 1);
                let follows_blank = memrchr(b'\n', &bytes[..at]).is_some()
                    && text[previous_line_start..at]
                        .chars()
                        .all(char::is_whitespace);
                if boundary == Boundary::Line || follows_blank {
                    return Some(cut);
                }
                from = at + 1;
            }
            None
        }
        Boundary::Sentence => {
            // A sentence that ends before `limit` can still start the kept text
            // when only whitespace lies between its end and `limit`.
            let from = text[..limit].trim_end().len();
            let to = floor_char_boundary(text, floor.min(len));
            if from > to {
                return None;
            }
            text[from..to]
                .char_indices()
                .map(|(index, _)| from + index)
                .chain(std::iter::once(to))
                .filter(|&at| at > 0 && is_sentence_end(text, at))
                .map(trimmed_start)
                .find(|&cut| cut >= limit)
                .and_then(accept)
        }
        Boundary::Word => {
            if limit == 0 {
                return accept(trimmed_start(0));
            }
            // Forward from `limit`, char by char, and byte by byte over runs of
            // ASCII that is not whitespace (no word starts inside one).
            let mut at = limit;
            while at < len && at <= floor {
                if is_word_start(text, at) {
                    return accept(at);
                }
                at += 1;
                while !text.is_char_boundary(at) {
                    at += 1;
                }
                while at < len && at <= floor && between_ascii_non_spaces(text, at) {
                    at += 1;
                }
                while at < len && at <= floor && between_pictographs(text, at) {
                    at += PICTOGRAPH_LEN
                        .iter()
                        .find(|&&n| text.is_char_boundary(at + n))
                        .copied()
                        .unwrap_or(1);
                }
            }
            None
        }
        Boundary::Grapheme => {
            let mut cursor = GraphemeCursor::new(limit, len, true);
            let at = match cursor.is_boundary(text, 0) {
                Ok(true) => limit,
                _ => cursor.next_boundary(text, 0).ok().flatten().unwrap_or(len),
            };
            accept(trimmed_start(at))
        }
        Boundary::Char => accept(trimmed_start(limit)),
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

fn memrchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().rposition(|&b| b == needle)
}

#[cfg(test)]
mod tests {
    /// The byte check agrees with the rules it spares: no word starts or ends
    /// between the characters it names, and it names only those.
    #[test]
    fn between_pictographs_is_never_a_word_boundary() {
        let text = "a 👨\u{200d}👩\u{fe0f}\u{200d}👧🏽🇯🇵\u{fe0e}❤\u{200d}日本 語👋x";
        for at in (0..=text.len()).filter(|&at| text.is_char_boundary(at)) {
            if between_pictographs(text, at) {
                assert!(!is_word_end(text, at) && !is_word_start(text, at), "{at}");
                let before = text[..at].chars().next_back().unwrap();
                let after = text[at..].chars().next().unwrap();
                for c in [before, after] {
                    assert!(
                        matches!(c as u32, 0x1F000..=0x1FFFF | 0x200D | 0xFE0E | 0xFE0F),
                        "{c:?}"
                    );
                }
            }
        }
        assert!(between_pictographs("👨\u{200d}👩", 4));
        assert!(!between_pictographs("👨 👩", 4));
        assert!(!between_pictographs("❤\u{200d}", 3));
    }

    use super::*;

    fn head(text: &str, boundary: Boundary, limit: usize) -> Option<&str> {
        find_cut(text, Side::Head, boundary, limit, 0).map(|cut| &text[..cut])
    }

    fn tail(text: &str, boundary: Boundary, limit: usize) -> Option<&str> {
        find_cut(text, Side::Tail, boundary, limit, text.len()).map(|cut| &text[cut..])
    }

    #[test]
    fn head_cuts_at_each_level() {
        let text = "One. Two!\n\nThree four five.\nSix seven";
        let limit = text.find("seven").unwrap() + 2;
        assert_eq!(head(text, Boundary::Paragraph, limit), Some("One. Two!"));
        assert_eq!(
            head(text, Boundary::Line, limit),
            Some("One. Two!\n\nThree four five.")
        );
        assert_eq!(
            head(text, Boundary::Sentence, limit),
            Some("One. Two!\n\nThree four five.")
        );
        assert_eq!(
            head(text, Boundary::Word, limit),
            Some("One. Two!\n\nThree four five.\nSix")
        );
        assert_eq!(
            head(text, Boundary::Grapheme, limit),
            Some("One. Two!\n\nThree four five.\nSix se")
        );
    }

    #[test]
    fn tail_cuts_at_each_level() {
        let text = "One two. Three\n\nFour five. Six\nSeven eight";
        let limit = 2;
        assert_eq!(
            tail(text, Boundary::Paragraph, limit),
            Some("Four five. Six\nSeven eight")
        );
        assert_eq!(
            tail(text, Boundary::Line, limit),
            Some("Four five. Six\nSeven eight")
        );
        assert_eq!(
            tail(text, Boundary::Sentence, limit),
            Some("Three\n\nFour five. Six\nSeven eight")
        );
        assert_eq!(
            tail(text, Boundary::Word, limit),
            Some("two. Three\n\nFour five. Six\nSeven eight")
        );
        assert_eq!(
            tail(text, Boundary::Grapheme, limit),
            Some("e two. Three\n\nFour five. Six\nSeven eight")
        );
    }

    #[test]
    fn sentences_beyond_english() {
        // CJK full stops need no space; Arabic uses its own question mark.
        let cjk = "今日は晴れです。明日は雨でしょう。傘を持って";
        let limit = cjk.len() - 3;
        assert_eq!(
            head(cjk, Boundary::Sentence, limit),
            Some("今日は晴れです。明日は雨でしょう。")
        );
        let arabic = "كيف حالك؟ أنا بخير شكرا";
        let limit = arabic.len() - 2;
        assert_eq!(head(arabic, Boundary::Sentence, limit), Some("كيف حالك؟"));
        // Closing quotes go with their sentence.
        let quoted = "He said \"Stop.\" Then left";
        assert_eq!(
            head(quoted, Boundary::Sentence, quoted.len() - 1),
            Some("He said \"Stop.\"")
        );
        // A decimal point is not a sentence end.
        assert_eq!(head("Pi is 3.14 or so", Boundary::Sentence, 15), None);
    }

    #[test]
    fn words_in_cjk_fall_between_characters() {
        let text = "日本語の文章です";
        let limit = "日本語の文章".len();
        assert_eq!(head(text, Boundary::Word, limit), Some("日本語の文章"));
        assert_eq!(tail(text, Boundary::Word, 3), Some("本語の文章です"));
    }

    #[test]
    fn graphemes_are_not_split() {
        let family = "👨\u{200d}👩\u{200d}👧";
        let text = format!("ab{family}cd");
        let limit = 2 + "👨\u{200d}👩".len();
        assert_eq!(head(&text, Boundary::Grapheme, limit), Some("ab"));
        assert_eq!(head(&text, Boundary::Char, limit), Some(&text[..limit]));
        let accent = "cafe\u{301} noir";
        assert_eq!(head(accent, Boundary::Grapheme, 4), Some("caf"));
    }

    #[test]
    fn nothing_before_the_floor() {
        let text = "aaaa. bbbbbbbbbbbbbbbbbbbb";
        assert_eq!(find_cut(text, Side::Head, Boundary::Sentence, 20, 10), None);
        assert_eq!(
            find_cut(text, Side::Head, Boundary::Sentence, 20, 5),
            Some(5)
        );
    }
}
