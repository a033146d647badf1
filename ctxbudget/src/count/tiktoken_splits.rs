//! Split points of every tiktoken encoding (see
//! [`TokenCounter::next_split`](super::TokenCounter::next_split)).
//!
//! Each encoding first cuts a text into pieces with a regular expression and then
//! encodes every piece alone, so counts add up at an offset `at` when no piece of
//! any sub-slice around `at` can reach across it and every piece before `at` is
//! decided without looking past it. These offsets have that property for all four
//! patterns (`r50k_base`, `p50k_base`, `cl100k_base`, `o200k_base`), none of which
//! looks behind; each rule looks at the two characters around `at` only:
//!
//! - **whitespace after a letter or digit**, and **whitespace other than a line
//!   break after any other character that is not whitespace.** Whitespace only ever
//!   starts a piece there (as a piece of its own, or as the optional prefix of a
//!   word), and the piece before is a run of letters, digits or punctuation that
//!   stops at the whitespace in the long text and at the end of the short one alike.
//!   (A line break after punctuation is not one: `cl100k_base` and `o200k_base`
//!   keep `\r` and `\n` with the punctuation before them.)
//! - **punctuation after a letter or digit**: `text[at]` is neither a letter, a
//!   digit, a combining mark nor an apostrophe (`'s`, `'ll`, ... attach to the word
//!   before), and `text[at - 1]` is a letter or digit. Letter and digit runs never
//!   take punctuation in, so a piece starts at `at`. This gives split points to text
//!   without spaces: CJK (`。`, `、`), base64 (`+`, `/`), URLs.
//! - **a digit after a letter, and a letter after a digit**: no pattern puts
//!   letters and digits in one piece. This gives split points to base64 without
//!   `+` and `/`, and to identifiers such as `utf8Decode2`.
//!
//! The property tests in `tests/suite/tiktoken.rs` check every rule on real and
//! adversarial text for every encoding.

use std::sync::LazyLock;

use regex::Regex;

/// Two characters with a split point between them, found by one regular
/// expression (the Unicode classes the tokenizers use). Each alternative is one of
/// the rules of the module documentation; `\s` is Unicode `White_Space`, as in the
/// tokenizers' patterns.
const PAIR: &str =
    r"[\p{L}\p{N}][^\p{L}\p{N}\p{M}']|\p{L}\p{N}|\p{N}\p{L}|[^\s\p{L}\p{N}][\s&&[^\r\n]]";

/// [`PAIR`], searched for in a text.
static SPLIT_PAIR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(PAIR).expect("the pattern is valid"));

/// [`PAIR`], matched against a two-character slice.
static IS_SPLIT_PAIR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\A(?:{PAIR})\z")).expect("the pattern is valid"));

/// Whether counts add up between the adjacent characters `previous` and `next`
/// (the two-character slice `pair`).
fn splits_between(previous: char, next: char, pair: &str) -> bool {
    if previous.is_whitespace() {
        return false;
    }
    if previous.is_ascii() && next.is_ascii() {
        return ascii_splits_between(previous, next);
    }
    IS_SPLIT_PAIR.is_match(pair)
}

/// [`splits_between`] for two ASCII characters, without the regular expression.
#[inline]
fn ascii_splits_between(previous: char, next: char) -> bool {
    if previous.is_ascii_alphanumeric() {
        return next != '\''
            && (!next.is_ascii_alphanumeric()
                || previous.is_ascii_digit() != next.is_ascii_digit());
    }
    // `char::is_whitespace` is Unicode `White_Space`, as `\s` is.
    !previous.is_whitespace() && next.is_whitespace() && next != '\r' && next != '\n'
}

/// Whether `at` is a split point of `text`: strictly inside it, on a char boundary,
/// between two characters the rules split.
#[inline]
pub(crate) fn is_split_point(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    if at == 0 || at >= bytes.len() {
        return false;
    }
    let (previous, next) = (bytes[at - 1], bytes[at]);
    if previous.is_ascii() && next.is_ascii() {
        return ascii_splits_between(char::from(previous), char::from(next));
    }
    is_non_ascii_split_point(text, at)
}

/// [`is_split_point`] where a character around `at` is not ASCII.
#[cold]
fn is_non_ascii_split_point(text: &str, at: usize) -> bool {
    if !text.is_char_boundary(at) {
        return false;
    }
    let (Some(previous), Some(next)) = (text[..at].chars().next_back(), text[at..].chars().next())
    else {
        return false;
    };
    splits_between(
        previous,
        next,
        &text[at - previous.len_utf8()..at + next.len_utf8()],
    )
}

/// The first split point of `text` at or after `from`.
pub(crate) fn next_split(text: &str, from: usize) -> Option<usize> {
    // A match that starts one character before `from` gives a split at `from`.
    let mut search = floor_char_boundary(text, from.saturating_sub(4));
    // No split point lies inside a run of ASCII letters (nor of ASCII digits): skip
    // it bytewise, up to its last character, which may split from what follows.
    let bytes = text.as_bytes();
    if let Some(&first) = bytes.get(search) {
        let same_class = |b: &u8| {
            (first.is_ascii_alphabetic() && b.is_ascii_alphabetic())
                || (first.is_ascii_digit() && b.is_ascii_digit())
        };
        let run = bytes[search..].iter().take_while(|b| same_class(b)).count();
        if run > 1 {
            search += run - 1;
        }
    }
    while let Some(found) = SPLIT_PAIR.find_at(text, search) {
        let first = text[found.start()..].chars().next()?;
        let at = found.start() + first.len_utf8();
        if at >= from.max(1) {
            return Some(at);
        }
        // Matches may overlap (`a1b` splits twice): search again from the second
        // character of this one.
        search = at;
    }
    None
}

/// The last split point of `text` strictly before `before`.
pub(crate) fn prev_split(text: &str, before: usize) -> Option<usize> {
    let mut before = floor_char_boundary(text, before);
    // No split point lies inside a run of ASCII letters (nor of ASCII digits): skip
    // it bytewise, back to its first character, which may split from what precedes.
    let bytes = text.as_bytes();
    if let Some(&last) = before.checked_sub(1).and_then(|i| bytes.get(i)) {
        let same_class = |b: &u8| {
            (last.is_ascii_alphabetic() && b.is_ascii_alphabetic())
                || (last.is_ascii_digit() && b.is_ascii_digit())
        };
        let run = bytes[..before]
            .iter()
            .rev()
            .take_while(|b| same_class(b))
            .count();
        if run > 1 {
            before -= run - 1;
        }
    }
    let mut chars = text[..before].char_indices().rev();
    let (mut next_at, mut next) = chars.next()?;
    // `next_at` is the offset asked about, `next` the character at it.
    for (at, previous) in chars {
        if !previous.is_ascii() || !next.is_ascii() {
            // Past ASCII, a pair costs the regular expression: search forward with
            // its automaton instead, a few instructions a byte.
            return last_split_in(text, next_at + next.len_utf8());
        }
        let pair = &text[at..next_at + next.len_utf8()];
        if splits_between(previous, next, pair) {
            return Some(next_at);
        }
        (next_at, next) = (at, previous);
    }
    None
}

/// The last split point between two characters of `text[..end]`, found by searching
/// forward in windows that grow back from `end` (each four times the last), so
/// that the cost follows the distance to it.
fn last_split_in(text: &str, end: usize) -> Option<usize> {
    let mut width = 64usize;
    // The window searched last began here: a pair that starts before it and ends
    // after it was not searched yet.
    let mut upper = end;
    loop {
        let lower = floor_char_boundary(text, end.saturating_sub(width));
        let haystack = &text[..ceil_char_boundary(text, upper.saturating_add(1)).min(end)];
        let mut search = lower;
        let mut last = None;
        while let Some(found) = SPLIT_PAIR.find_at(haystack, search) {
            let first = haystack[found.start()..].chars().next()?;
            let at = found.start() + first.len_utf8();
            last = Some(at);
            // Matches may overlap: search again from the second character.
            search = at;
        }
        if last.is_some() || lower == 0 {
            return last;
        }
        upper = lower;
        width = width.saturating_mul(4);
    }
}

fn ceil_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(text: &str) -> Vec<usize> {
        (0..text.len())
            .filter(|&i| is_split_point(text, i))
            .collect()
    }

    /// The split points of `text`, walked forward with `next_split` and checked
    /// against the backward walk with `prev_split` and against `is_split_point`.
    fn walk(text: &str) -> Vec<usize> {
        let mut forward = Vec::new();
        let mut from = 0;
        while let Some(at) = next_split(text, from) {
            forward.push(at);
            from = at + 1;
        }
        let mut backward = Vec::new();
        let mut before = text.len();
        while let Some(at) = prev_split(text, before) {
            backward.push(at);
            before = at;
        }
        backward.reverse();
        assert_eq!(forward, backward, "{text:?}");
        assert_eq!(forward, points(text), "{text:?}");
        forward
    }

    /// The backward search past ASCII (forward in growing windows) finds what the
    /// pair-by-pair rules find, from every offset of mixed-script text.
    #[test]
    fn prev_and_next_split_agree_with_the_rules_from_every_offset() {
        let mixed = include_str!("../../../tests/fixtures/multilingual.txt");
        let mut text = mixed[..mixed.floor_char_boundary(3000)].to_owned();
        text.push_str(&"日本語のテキスト".repeat(40));
        text.push_str("👨\u{200d}👩\u{200d}👧 x1y2 ");
        text.push_str(&"🧑🏽\u{200d}🚀".repeat(30));
        let points = points(&text);
        for before in 0..=text.len() + 2 {
            let expected =
                points.iter().rev().copied().find(|&p| {
                    p < before.min(text.len()) && p < floor_char_boundary(&text, before)
                });
            assert_eq!(prev_split(&text, before), expected, "before {before}");
            let expected = points.iter().copied().find(|&p| p >= before.max(1));
            assert_eq!(next_split(&text, before), expected, "from {before}");
        }
    }

    #[test]
    fn whitespace_after_non_whitespace() {
        let text = "ab  c\u{3000} d e";
        // "ab" then a space (2); the second space follows a space; the ideographic
        // space U+3000 after "c" is whitespace after a letter; "d" then a space.
        assert_eq!(
            walk(text),
            vec![2, text.find('\u{3000}').unwrap(), text.find(" e").unwrap()]
        );
        // A line break after a word is one; after punctuation it is not (it joins
        // the punctuation's piece), while a tab there is.
        assert_eq!(walk("a\nb.\nc!\td"), vec![1, 3, 6, 7]);
    }

    #[test]
    fn punctuation_after_a_word_and_letters_next_to_digits() {
        let text = "日本。語、x+y/z's e\u{301}. 1,2";
        let split: Vec<&str> = walk(text).into_iter().map(|i| &text[i..]).collect();
        // Not before the apostrophe (a contraction), nor after a combining mark;
        // a space after the full stop is one.
        assert_eq!(
            split,
            vec![
                "。語、x+y/z's e\u{301}. 1,2",
                "、x+y/z's e\u{301}. 1,2",
                "+y/z's e\u{301}. 1,2",
                "/z's e\u{301}. 1,2",
                " e\u{301}. 1,2",
                " 1,2",
                ",2",
            ]
        );
        assert_eq!(walk("ab1cD23e"), vec![2, 3, 5, 7]);
        assert_eq!(walk("٣ب"), vec!["٣".len()]);
    }

    #[test]
    fn offsets_off_the_text_or_inside_a_char_are_none() {
        assert!(!is_split_point("a b", 0));
        assert!(!is_split_point("a b", 3));
        assert!(!is_split_point("é b", 1));
        assert_eq!(next_split("a b", 10), None);
        assert_eq!(prev_split("a b", 0), None);
        assert_eq!(prev_split("é b", 3), Some(2));
    }
}
