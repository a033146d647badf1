//! Helpers shared by ctxbudget's integration tests, examples and benches: the
//! fixtures shipped in `tests/fixtures/` and the benchmark corpus in
//! `../shared/corpus/` when it is present.

use std::path::PathBuf;

pub mod agent;

/// Real Markdown: README files of Rust crates (about 32 KB).
pub const MARKDOWN: &str = include_str!("../fixtures/markdown.md");
/// Real English prose: Python language reference topics (about 32 KB).
pub const PROSE: &str = include_str!("../fixtures/prose.txt");
/// Real source code: a Rust module of tiktoken-rs (about 32 KB).
pub const CODE: &str = include_str!("../fixtures/code.txt");
/// Japanese, Chinese, Arabic, Hebrew and Hindi paragraphs, emoji sequences and
/// combining marks.
pub const MULTILINGUAL: &str = include_str!("../fixtures/multilingual.txt");

/// All shipped fixtures with their names.
pub const FIXTURES: [(&str, &str); 4] = [
    ("markdown", MARKDOWN),
    ("prose", PROSE),
    ("code", CODE),
    ("multilingual", MULTILINGUAL),
];

/// The benchmark corpus folder, `../shared/corpus` beside the repository, or the
/// folder named by `CTXBUDGET_CORPUS`.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("CTXBUDGET_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    )
}

/// One file of the benchmark corpus (`"markdown.md"`, `"prose.txt"`, `"code.txt"`),
/// or `None` when the corpus is not there.
pub fn corpus(name: &str) -> Option<String> {
    std::fs::read_to_string(corpus_dir().join(name)).ok()
}

/// The corpus file `name`, or the shipped fixture of the same kind when the corpus
/// is not there.
pub fn corpus_or_fixture(name: &str) -> String {
    corpus(name).unwrap_or_else(|| {
        let fixture = match name {
            "markdown.md" => MARKDOWN,
            "code.txt" => CODE,
            _ => PROSE,
        };
        fixture.to_owned()
    })
}

/// The largest char boundary of `text` at or before `index` (`str::floor_char_boundary`
/// is newer than this crate's minimum Rust version).
pub fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// Ranked chunks as the select bench makes them: paragraphs of `text` merged to
/// 700..=1,400 bytes (longer paragraphs left out), those of 100..=300 tokens of
/// `counter`, cycled to `count` chunks, each with a made-up relevance score in
/// `0.0..1.0` that is the same on every run. Every chunk is a sub-slice of `text`.
///
/// # Panics
///
/// When `text` has no paragraph of 100..=300 tokens that fits the merge.
pub fn ranked_chunks<'a>(
    text: &'a str,
    count: usize,
    counter: &dyn ctxbudget::TokenCounter,
) -> Vec<(&'a str, f64)> {
    const MIN_BYTES: usize = 700;
    const MAX_BYTES: usize = 1_400;
    let paragraphs: Vec<&str> = text
        .split("\n\n")
        .filter(|p| !p.trim().is_empty() && p.len() <= MAX_BYTES)
        .collect();
    let mut merged = Vec::with_capacity(count);
    let mut i = 0;
    while merged.len() < count {
        // A run of consecutive paragraphs is a sub-slice of `text`.
        let first = paragraphs[i % paragraphs.len()];
        let start = first.as_ptr() as usize - text.as_ptr() as usize;
        let mut end = start + first.len();
        i += 1;
        while end - start < MIN_BYTES && i % paragraphs.len() != 0 {
            let next = paragraphs[i % paragraphs.len()];
            let next_start = next.as_ptr() as usize - text.as_ptr() as usize;
            if next_start + next.len() - start > MAX_BYTES {
                break;
            }
            end = next_start + next.len();
            i += 1;
        }
        merged.push(&text[start..end]);
    }
    let sized: Vec<&str> = merged
        .into_iter()
        .filter(|t| (100..=300).contains(&counter.count(t)))
        .collect();
    assert!(
        !sized.is_empty(),
        "no chunk of 100..=300 tokens in the text"
    );
    sized
        .iter()
        .copied()
        .cycle()
        .take(count)
        .enumerate()
        .map(|(i, t)| (t, made_up_score(i)))
        .collect()
}

/// A made-up relevance score in `0.0..1.0` for the chunk at `index`, the same on
/// every run.
fn made_up_score(index: usize) -> f64 {
    let mut x = (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    #[allow(clippy::cast_precision_loss)]
    let score = (x % 10_000) as f64 / 10_000.0;
    score
}

/// A slice `x..y` of `text` and a split point `split` of `counter` inside it
/// (`x < split < y`), chosen by the property tests' numbers: `x` the char boundary at
/// `start` (modulo), `y` about `span` chars later, the split the first at or after
/// `x + 1 + cut % (y - x)`. `None` when the slice is empty or holds no split point.
/// The split-point contract is `count(x..y) == count(x..split) + count(split..y)`.
pub fn slice_around_split(
    counter: &dyn ctxbudget::TokenCounter,
    text: &str,
    start: usize,
    span: usize,
    cut: usize,
) -> Option<(usize, usize, usize)> {
    let bounds: Vec<usize> = (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    let x = bounds[start % bounds.len()];
    let y = bounds[(bounds.partition_point(|&b| b < x) + span).min(bounds.len() - 1)];
    if x >= y {
        return None;
    }
    let split = counter
        .next_split(text, x + 1 + cut % (y - x))
        .filter(|&s| s < y)?;
    Some((x, split, y))
}

/// The input shapes the trimming and counting benches and the property tests share:
/// real text and the worst cases of a byte-pair tokenizer, where the pre-tokenizer
/// gives one long piece or few split points.
pub mod shapes {
    use super::{MULTILINGUAL, corpus_or_fixture, floor_char_boundary};

    /// The names [`shape`] knows, adversarial shapes after real text.
    pub const NAMES: [&str; 10] = [
        "prose",
        "markdown",
        "code",
        "one-line",
        "one-letter",
        "cjk",
        "cjk-nopunct",
        "emoji-zwj",
        "base64",
        "base64-alnum",
    ];

    /// Emoji ZWJ sequences, skin tones and flags, without spaces: families,
    /// couples with a heart (with U+FE0F), professions, the rainbow flag.
    const EMOJI: [&str; 8] = [
        "👨\u{200d}👩\u{200d}👧\u{200d}👦",
        "👩\u{200d}❤\u{fe0f}\u{200d}👨",
        "👩\u{200d}💻",
        "🧑🏽\u{200d}🚀",
        "🏳\u{fe0f}\u{200d}🌈",
        "👋🏾",
        "🇯🇵",
        "👨\u{200d}👨\u{200d}👧",
    ];

    /// A xorshift generator: the same text on every run.
    fn noise(size: usize, mut pick: impl FnMut(u64) -> char) -> String {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut out = String::with_capacity(size + 8);
        while out.len() < size {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            out.push(pick(state));
        }
        out
    }

    /// `text` repeated (joined by `separator`) to `size` bytes, cut on a char boundary.
    pub fn repeated(text: &str, separator: &str, size: usize) -> String {
        let mut out = String::with_capacity(size + text.len());
        while out.len() < size {
            out.push_str(text);
            out.push_str(separator);
        }
        out.truncate(floor_char_boundary(&out, size));
        out
    }

    /// `size` bytes (cut on a char boundary) of the shape `name`, one of [`NAMES`]:
    ///
    /// - `prose`, `markdown`, `code`: the corpus files (or the shipped fixtures),
    ///   repeated with a blank line between copies;
    /// - `one-line`: the prose corpus as one line of words (line breaks become
    ///   spaces);
    /// - `one-letter`: `a` repeated;
    /// - `cjk`: the Japanese and Chinese paragraphs of the multilingual fixture
    ///   without spaces or line breaks, punctuation (`。`, `、`) kept;
    /// - `cjk-nopunct`: the same ideographs and kana only;
    /// - `emoji-zwj`: emoji ZWJ sequences, skin tones and flags without spaces;
    /// - `base64`: random base64 (with `+` and `/`) on one line;
    /// - `base64-alnum`: random letters and digits on one line.
    ///
    /// # Panics
    ///
    /// For a name not in [`NAMES`].
    pub fn shape(name: &str, size: usize) -> String {
        const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let cjk_lines = || MULTILINGUAL.lines().take(3).collect::<Vec<_>>().concat();
        match name {
            "prose" => repeated(&corpus_or_fixture("prose.txt"), "\n\n", size),
            "markdown" => repeated(&corpus_or_fixture("markdown.md"), "\n\n", size),
            "code" => repeated(&corpus_or_fixture("code.txt"), "\n\n", size),
            "one-line" => {
                let words = corpus_or_fixture("prose.txt").split_whitespace().collect::<Vec<_>>().join(" ");
                repeated(&words, " ", size)
            }
            "one-letter" => "a".repeat(size),
            "cjk" => repeated(&cjk_lines().replace([' ', '\n'], ""), "", size),
            "cjk-nopunct" => {
                let kept: String = cjk_lines()
                    .chars()
                    .filter(|&c| matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF))
                    .collect();
                repeated(&kept, "", size)
            }
            "emoji-zwj" => {
                let mut index = 0;
                let mut out = String::with_capacity(size + 32);
                let mut state = 0x2545_f491_4f6c_dd1d_u64;
                while out.len() < size {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    index = (index + 1 + usize::try_from(state % 5).unwrap_or(0)) % EMOJI.len();
                    out.push_str(EMOJI[index]);
                }
                out.truncate(floor_char_boundary(&out, size));
                out
            }
            "base64" => noise(size, |state| char::from(BASE64[usize::try_from(state % 64).unwrap_or(0)])),
            "base64-alnum" => noise(size, |state| char::from(BASE64[usize::try_from(state % 62).unwrap_or(0)])),
            other => panic!("unknown shape {other}: use one of {NAMES:?}"),
        }
    }
}
