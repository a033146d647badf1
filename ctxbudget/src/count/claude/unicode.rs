//! The per-character facts the marked stream reads: general category, Alphabetic,
//! mark, combining class (from `data/claude/unicode.bin`, made with the Python that
//! generated the parity fixtures, so both read the same Unicode tables), and the case
//! rules of the reconstruction.

use std::sync::LazyLock;

/// Runs of `start: u32 LE, category: u8, flags: u8`, made by `scripts/claude_vocab.py`.
static TABLE: &[u8] = include_bytes!("../../../data/claude/unicode.bin");

/// The general categories, in the order the table's category byte indexes.
const CATEGORIES: [&str; 30] = [
    "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi",
    "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn",
];
/// The index of `Cn`, what a codepoint the table does not cover reads as.
const UNASSIGNED: u8 = 29;

const ALPHABETIC: u8 = 1;
const MARK: u8 = 2;
const COMBINING: u8 = 4;

/// The facts of one character, packed: category index in the low five bits, flags
/// above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Props(u8);

impl Props {
    /// The two-letter general category (`"Lu"`, `"Nd"`, ...).
    pub(super) fn category(self) -> &'static str {
        CATEGORIES
            .get(usize::from(self.0 & 31))
            .copied()
            .unwrap_or("Cn")
    }
    /// The first letter of the category (`'L'`, `'M'`, ...).
    pub(super) fn major(self) -> u8 {
        self.category().as_bytes()[0]
    }
    /// Unicode's derived `Alphabetic` property.
    pub(super) fn alphabetic(self) -> bool {
        self.0 & (ALPHABETIC << 5) != 0
    }
    /// A mark (`\p{M}`).
    pub(super) fn mark(self) -> bool {
        self.0 & (MARK << 5) != 0
    }
    /// A canonical combining class other than 0.
    pub(super) fn combining(self) -> bool {
        self.0 & (COMBINING << 5) != 0
    }
}

struct Table {
    /// Every Basic Multilingual Plane codepoint's props.
    bmp: Vec<Props>,
    /// The runs from U+10000 on: start and props.
    astral: Vec<(u32, Props)>,
}

static UNICODE: LazyLock<Table> = LazyLock::new(|| {
    let mut runs: Vec<(u32, Props)> = TABLE
        .chunks_exact(6)
        .map(|run| {
            let start = u32::from_le_bytes([run[0], run[1], run[2], run[3]]);
            let category = if run[4] < 30 { run[4] } else { UNASSIGNED };
            (start, Props(category | ((run[5] & 7) << 5)))
        })
        .collect();
    if runs.first().is_none_or(|&(start, _)| start != 0) {
        runs.insert(0, (0, Props(UNASSIGNED)));
    }
    let mut bmp = Vec::with_capacity(0x1_0000);
    for (index, &(start, props)) in runs.iter().enumerate() {
        let end = runs.get(index + 1).map_or(0x11_0000, |&(next, _)| next);
        let end = end.min(0x1_0000);
        for _ in start..end {
            bmp.push(props);
        }
    }
    bmp.resize(0x1_0000, Props(UNASSIGNED));
    let astral = runs
        .into_iter()
        .filter(|&(start, _)| start >= 0x1_0000)
        .collect();
    Table { bmp, astral }
});

/// The facts of `c`.
pub(super) fn props(c: char) -> Props {
    let table = &*UNICODE;
    let cp = u32::from(c);
    if let Some(&props) = table.bmp.get(cp as usize) {
        return props;
    }
    match table.astral.partition_point(|&(start, _)| start <= cp) {
        0 => table.bmp.get(0xFFFF).copied().unwrap_or(Props(UNASSIGNED)),
        after => table.astral[after - 1].1,
    }
}

/// Case pairs of Unicode 16 that older Unicode tables lack, capital first.
const NEW_CASE_PAIRS: [(char, char); 2] = [('\u{1C89}', '\u{1C8A}'), ('\u{A7CB}', '\u{0264}')];

/// `ϴ`: a capital for Unicode, caseless for the tokenizer.
const UNCASED: char = '\u{03F4}';

/// A letter of [`NEW_CASE_PAIRS`].
pub(super) fn new_cased(c: char) -> bool {
    NEW_CASE_PAIRS
        .iter()
        .any(|&(upper, lower)| c == upper || c == lower)
}

/// Appends the lowercase of `c` to `out` (full mapping: `İ` is two characters).
pub(super) fn push_lower(c: char, out: &mut Vec<char>) {
    if c == UNCASED {
        out.push(c);
    } else if let Some(&(_, lower)) = NEW_CASE_PAIRS.iter().find(|&&(upper, _)| upper == c) {
        out.push(lower);
    } else {
        out.extend(c.to_lowercase());
    }
}

/// Whether lowering `c` leaves it as it is.
pub(super) fn lowers_to_itself(c: char) -> bool {
    let mut lower = Vec::with_capacity(3);
    push_lower(c, &mut lower);
    lower == [c]
}

/// A capital: one that lowers to something else.
pub(super) fn is_upper(c: char) -> bool {
    if c == UNCASED {
        return false;
    }
    NEW_CASE_PAIRS.iter().any(|&(upper, _)| upper == c)
        || (c.is_uppercase() && !lowers_to_itself(c))
}

/// A lowercase letter.
pub(super) fn is_lower(c: char) -> bool {
    NEW_CASE_PAIRS.iter().any(|&(_, lower)| lower == c) || c.is_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_categories_and_flags() {
        assert_eq!(props('a').category(), "Ll");
        assert_eq!(props('A').category(), "Lu");
        assert_eq!(props('1').category(), "Nd");
        assert_eq!(props(' ').category(), "Zs");
        assert_eq!(props('\u{0301}').category(), "Mn");
        assert!(props('\u{0301}').combining());
        assert!(props('\u{0301}').mark());
        assert!(!props('\u{0301}').alphabetic());
        assert!(props('\u{0BBE}').alphabetic());
        assert_eq!(props('\u{1F600}').category(), "So");
        assert_eq!(props('\u{E000}').category(), "Co");
        assert_eq!(props('\u{10FFFF}').category(), "Cn");
        assert_eq!(props('\u{20000}').category(), "Lo");
    }

    #[test]
    fn case_rules() {
        assert!(is_upper('A') && !is_upper('a') && !is_upper('\u{03F4}'));
        assert!(!is_upper('\u{2102}')); // ℂ has no lowercase
        assert!(is_upper('\u{1C89}') && is_lower('\u{1C8A}'));
        let mut lower = Vec::new();
        push_lower('\u{0130}', &mut lower);
        assert_eq!(lower, ['i', '\u{0307}']);
    }
}
