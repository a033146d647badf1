//! Helpers shared by ctxbudget's integration tests, examples and benches: the
//! fixtures shipped in `tests/fixtures/` and the benchmark corpus in
//! `../shared/corpus/` when it is present.

use std::path::PathBuf;

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
