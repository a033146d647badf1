//! Text -> the normalised characters, and what the marked stream asks of each one:
//! its class, and the measured predicates (marks, digits, punctuation-like
//! characters) that decide its markers.

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

use super::unicode::{Props, new_cased, props};

/// The normalised text: NFC, with the API's measured rewrites. `fold_quotes` folds
/// the four curly quotes to ASCII (the first generation does).
pub(super) fn normalize(text: &str, fold_quotes: bool) -> Vec<char> {
    let mut chars: Vec<char> = if is_nfc_quick(text.chars()) == IsNormalized::Yes {
        text.chars().collect()
    } else {
        text.nfc().collect()
    };
    // C0 and C1 controls other than TAB, LF and NUL cost nothing; NUL is a space.
    chars.retain(|&c| !matches!(c, '\u{1}'..='\u{8}' | '\u{B}'..='\u{1F}' | '\u{7F}'..='\u{9F}'));
    // Decomposed Thai SARA AM composes (NFC leaves it, the tokenizer does not).
    if chars.contains(&'\u{0E4D}') {
        let mut out = Vec::with_capacity(chars.len());
        let mut at = 0;
        while at < chars.len() {
            if chars[at] == '\u{0E4D}' && chars.get(at + 1) == Some(&'\u{0E32}') {
                out.push('\u{0E33}');
                at += 2;
            } else {
                out.push(chars[at]);
                at += 1;
            }
        }
        chars = out;
    }
    // Private use of the Basic Multilingual Plane costs nothing.
    chars.retain(|&c| !('\u{E000}'..='\u{F8FF}').contains(&c));
    for c in &mut chars {
        *c = map_char(*c, fold_quotes);
    }
    chars
}

/// [`normalize`] of a text that normalisation keeps character for character (NFC
/// already, no decomposed Thai SARA AM), with the byte offset in `text` of each
/// character kept (`None`: the text is ASCII and every byte is kept, each at its
/// own offset): then the normalised text of any slice of `text` is the slice of
/// the result between the characters kept before its ends. `None` for any other
/// text.
#[allow(clippy::type_complexity)]
pub(super) fn normalize_mapped(
    text: &str,
    fold_quotes: bool,
) -> Option<(Vec<char>, Option<Vec<u32>>)> {
    u32::try_from(text.len()).ok()?;
    let dropped =
        |c: char| matches!(c, '\u{1}'..='\u{8}' | '\u{B}'..='\u{1F}' | '\u{7F}'..='\u{9F}');
    if text.is_ascii() && !text.chars().any(dropped) {
        let chars = text
            .bytes()
            .map(|b| map_char(char::from(b), false))
            .collect();
        return Some((chars, None));
    }
    if is_nfc_quick(text.chars()) != IsNormalized::Yes || text.contains('\u{0E4D}') {
        return None;
    }
    let mut chars = Vec::with_capacity(text.len());
    let mut offsets = Vec::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        if dropped(c) || ('\u{E000}'..='\u{F8FF}').contains(&c) {
            continue;
        }
        chars.push(map_char(c, fold_quotes));
        offsets.push(u32::try_from(at).ok()?);
    }
    Some((chars, Some(offsets)))
}

/// The characters that normalisation rewrites one for one.
fn map_char(c: char, fold_quotes: bool) -> char {
    match c {
        '\0'
        | '\u{A0}'
        | '\u{1680}'
        | '\u{2000}'..='\u{200A}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{202F}'
        | '\u{205F}' => ' ',
        '\u{2018}' | '\u{2019}' if fold_quotes => '\'',
        '\u{201C}' | '\u{201D}' if fold_quotes => '"',
        other => other,
    }
}

/// The class of a character in the marked stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Letters that take the word model (word markers, case markers).
    Wordy,
    /// Characters that stand alone: ideographs, emoji, symbols, unknown.
    Hard,
    /// ASCII and Arabic-Indic decimal digits.
    Digit,
    /// ASCII punctuation and symbols, and a measured set of others.
    Punct,
    /// Whitespace.
    Space,
    /// A combining mark with no base before it (a class of runs, not of
    /// characters).
    Stray,
}

/// Non-ASCII punctuation and symbols that tile with the ASCII punctuation.
const PUNCT_SYMS: [char; 24] = [
    '\u{A3}', '\u{A7}', '\u{AB}', '\u{B0}', '\u{B7}', '\u{BB}', '\u{F0D}', '\u{2013}', '\u{2014}',
    '\u{201E}', '\u{2020}', '\u{2022}', '\u{2026}', '\u{20AC}', '\u{2116}', '\u{2192}', '\u{2212}',
    '\u{221A}', '\u{2500}', '\u{2502}', '\u{2514}', '\u{2550}', '\u{2588}', '\u{FF08}',
];

/// The symbols of the CJK Symbols and Punctuation block that take no markers.
const IDEOGRAPHIC_SYMBOLS: [char; 8] = [
    '\u{3004}', '\u{3012}', '\u{3013}', '\u{3020}', '\u{3036}', '\u{3037}', '\u{303E}', '\u{303F}',
];

/// Symbol letters that take the word model like Latin letters.
const SYMBOL_LETTERS: [(u32, u32); 4] = [
    (0x16EE, 0x16F0),
    (0x2160, 0x2188),
    (0x24B6, 0x24E9),
    (0xA6E6, 0xA6EF),
];

/// A variation selector (U+FE00 to U+FE0F).
pub(super) fn is_selector(c: char) -> bool {
    ('\u{FE00}'..='\u{FE0F}').contains(&c)
}

/// Ideographs, Hangul syllables, every astral character and a few iteration marks:
/// letters that stand alone.
fn is_hard_codepoint(cp: u32) -> bool {
    cp >= 0x1_0000
        || (0x4E00..=0x9FFF).contains(&cp)
        || (0x3400..=0x4DBF).contains(&cp)
        || (0xF900..=0xFAFF).contains(&cp)
        || (0xAC00..=0xD7A3).contains(&cp)
        || matches!(
            cp,
            0x3005 | 0x3006 | 0x3031 | 0x3032 | 0x3033 | 0x3034 | 0x3035 | 0x303B | 0x303C
        )
}

/// The class of `c`.
pub(super) fn classify(c: char) -> Class {
    if new_cased(c) {
        return Class::Wordy;
    }
    let cp = u32::from(c);
    let p = props(c);
    let major = p.major();
    if major == b'Z' || matches!(c, '\t' | '\n' | '\r' | '\u{C}' | '\u{B}') {
        return Class::Space;
    }
    if SYMBOL_LETTERS
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&cp))
    {
        return Class::Wordy;
    }
    if p.category() == "Nd"
        && (cp < 0x80 || (0x0660..=0x0669).contains(&cp) || (0x06F0..=0x06F9).contains(&cp))
    {
        return Class::Digit;
    }
    if cp < 0x80 && matches!(major, b'P' | b'S') {
        return Class::Punct;
    }
    if PUNCT_SYMS.contains(&c) {
        return Class::Punct;
    }
    if is_selector(c) {
        return Class::Hard;
    }
    if p.mark() {
        return if cp < 0x1_0000 && p.alphabetic() {
            Class::Wordy
        } else {
            Class::Hard
        };
    }
    if major == b'L' && !is_hard_codepoint(cp) {
        return Class::Wordy;
    }
    Class::Hard
}

/// A mark of the Basic Multilingual Plane that is not Alphabetic (variation
/// selectors aside): it closes a word and stands outside it.
pub(super) fn is_separator(c: char) -> bool {
    let p = props(c);
    is_separator_props(c, p)
}

fn is_separator_props(c: char, p: Props) -> bool {
    u32::from(c) < 0x1_0000 && p.mark() && !is_selector(c) && !p.alphabetic()
}

/// A Syriac vowel point or superscript alaph: a letter where no base can hold it.
fn is_syriac_vowel(c: char) -> bool {
    let cp = u32::from(c);
    cp == 0x0711 || (0x0730..=0x073F).contains(&cp)
}

/// A combining mark that opens a word of its own where nothing before it can be its
/// base.
pub(super) fn is_stray_mark(c: char) -> bool {
    !is_syriac_vowel(c) && props(c).combining() && !is_separator(c)
}

/// Whether the border-marker branch claims `c`: punctuation, symbols, format and
/// unassigned characters and separator marks of the Basic Multilingual Plane, except
/// ideographic punctuation.
pub(super) fn marks_like_punct(c: char) -> bool {
    let cp = u32::from(c);
    if cp >= 0x1_0000 {
        return false;
    }
    let p = props(c);
    if is_separator_props(c, p) {
        return true;
    }
    let category = p.category();
    let major = p.major();
    let ideographic =
        (0x3001..=0x303F).contains(&cp) && (major == b'P' || IDEOGRAPHIC_SYMBOLS.contains(&c));
    (matches!(major, b'P' | b'S') || matches!(category, "Cf" | "Cn")) && !ideographic
}

/// A digit that takes border markers: non-ASCII decimal digits and other numbers of
/// the Basic Multilingual Plane.
pub(super) fn digit_border(c: char) -> bool {
    let category = props(c).category();
    (category == "No" || (category == "Nd" && !c.is_ascii())) && u32::from(c) < 0x1_0000
}

/// A run of decimal digits (`Nd`) or of other numbers (`No`), all of one category.
pub(super) fn digit_run(body: &[char]) -> bool {
    let Some(&first) = body.first() else {
        return false;
    };
    let category = props(first).category();
    matches!(category, "Nd" | "No") && body[1..].iter().all(|&c| props(c).category() == category)
}

/// Which kind of a hard run's characters `c` is (punctuation-like, number, letter):
/// a hard run splits where the kind changes.
pub(super) fn hard_kind(c: char) -> u8 {
    if marks_like_punct(c) {
        0
    } else if digit_border(c) {
        1
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_strips_folds_and_composes() {
        let text: String = normalize("e\u{301}\u{1}\r\n\0\u{E000}\u{2019}\u{A0}", true)
            .into_iter()
            .collect();
        assert_eq!(text, "é\n ' ");
        let text: String = normalize("\u{2019}\u{E4D}\u{E32}", false)
            .into_iter()
            .collect();
        assert_eq!(text, "\u{2019}\u{E33}");
    }

    #[test]
    fn classes() {
        assert_eq!(classify('a'), Class::Wordy);
        assert_eq!(classify('中'), Class::Hard);
        assert_eq!(classify('7'), Class::Digit);
        assert_eq!(classify('{'), Class::Punct);
        assert_eq!(classify('—'), Class::Punct);
        assert_eq!(classify('\u{3000}'), Class::Space);
        assert_eq!(classify('\u{2160}'), Class::Wordy);
        assert_eq!(classify('\u{FE0F}'), Class::Hard);
        assert_eq!(classify('\u{301}'), Class::Hard);
    }
}
