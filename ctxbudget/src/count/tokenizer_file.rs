//! Reading tokenizer files, and what is wrong with one that cannot be used.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a tokenizer file (a Hugging Face `tokenizer.json` or a Mistral `tekken_*.json`)
/// could not be loaded. Every variant names the file, or says the bytes were given
/// directly.
///
/// ```
/// use ctxbudget::count::{HuggingFace, TokenizerFileError};
///
/// let err = HuggingFace::from_bytes(r#"{"version": "1.0", "model": {"#).unwrap_err();
/// assert!(matches!(err, TokenizerFileError::Truncated { .. }));
/// assert!(err.to_string().contains("truncated"), "{err}");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenizerFileError {
    /// The file could not be read.
    #[error("cannot read the tokenizer file `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The JSON ends before it is complete: the file was cut short (an interrupted
    /// download or copy).
    #[error(
        "{file} ends early, at line {line}, column {column}: the file is truncated; \
         download or copy it again"
    )]
    Truncated {
        /// The file, or bytes given directly.
        file: TokenizerSource,
        /// The line where the JSON stops, from 1.
        line: usize,
        /// The column where the JSON stops, from 1.
        column: usize,
    },
    /// The bytes are not JSON (or not UTF-8): the file is corrupt, or it is another
    /// kind of file.
    #[error(
        "{file} is not valid JSON: {message} at line {line}, column {column}; the file is \
         corrupt or not a tokenizer file: download or copy it again"
    )]
    Json {
        /// The file, or bytes given directly.
        file: TokenizerSource,
        /// The JSON parser's message.
        message: String,
        /// The line of the error, from 1.
        line: usize,
        /// The column of the error, from 1.
        column: usize,
    },
    /// The JSON is complete but does not describe a tokenizer this counter can use
    /// (a missing or malformed section, an unknown version, a vocabulary that does
    /// not add up).
    #[error("{file} is not a usable {kind} file: {message}")]
    Invalid {
        /// The file, or bytes given directly.
        file: TokenizerSource,
        /// `"Hugging Face tokenizer.json"` or `"Tekken"`.
        kind: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// Where tokenizer bytes came from, for error messages: a file, or bytes given
/// directly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenizerSource {
    /// A file on disk.
    File(PathBuf),
    /// Bytes given to `from_bytes`.
    Bytes,
}

impl fmt::Display for TokenizerSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenizerSource::File(path) => write!(f, "the tokenizer file `{}`", path.display()),
            TokenizerSource::Bytes => f.write_str("the given tokenizer data"),
        }
    }
}

impl TokenizerSource {
    pub(crate) fn of(path: Option<&Path>) -> Self {
        path.map_or(TokenizerSource::Bytes, |path| {
            TokenizerSource::File(path.to_owned())
        })
    }
}

/// A sample text that every loaded tokenizer must count: letters, digits,
/// punctuation, every kind of whitespace, CJK, Hangul, Arabic, combining marks and
/// emoji. A file that fails on it (or, for Tekken, leaves part of it out) would fail
/// on ordinary text.
pub(crate) const SAMPLE: &str = "Hello, world! It's 1234.\tTabs\r\nand\u{a0}more: \
    <>{}[]()#$%&*+-/=@\\^_`|~\"'; 日本語の文章。한국어 مرحبا e\u{301} \
    👨\u{200d}👩\u{200d}👧 😀\n\n  end ";

/// Reads `path` whole.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, TokenizerFileError> {
    std::fs::read(path).map_err(|source| TokenizerFileError::Read {
        path: path.to_owned(),
        source,
    })
}

/// The error for bytes that `serde_json` could not read as `T`: truncated, not JSON,
/// or JSON of the wrong shape.
pub(crate) fn json_error(
    file: TokenizerSource,
    kind: &'static str,
    error: &serde_json::Error,
) -> TokenizerFileError {
    use serde_json::error::Category;
    let (line, column) = (error.line(), error.column());
    match error.classify() {
        Category::Eof => TokenizerFileError::Truncated { file, line, column },
        Category::Syntax | Category::Io => TokenizerFileError::Json {
            file,
            message: error_message(error),
            line,
            column,
        },
        Category::Data => TokenizerFileError::Invalid {
            file,
            kind,
            message: error.to_string(),
        },
    }
}

/// `serde_json`'s message without its " at line L column C" suffix (the error
/// carries the position itself).
fn error_message(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}

/// Bytes that are valid UTF-8 JSON of any shape, or the error that says why not.
#[cfg(feature = "huggingface")]
pub(crate) fn check_json(
    bytes: &[u8],
    file: &TokenizerSource,
    kind: &'static str,
) -> Result<(), TokenizerFileError> {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
        .map(drop)
        .map_err(|error| json_error(file.clone(), kind, &error))
}
