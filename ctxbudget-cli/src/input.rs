//! Reading the input (a file, or standard input for `-` or no file, as UTF-8 text
//! without a byte order mark) and writing to standard output and standard error, every
//! write checked.

use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::CliError;

/// Where a command reads its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input (no file, or `-`).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// The source a path argument names: `-` and no path are standard input.
    pub fn from_arg(path: Option<&Path>) -> Self {
        match path {
            None => Source::Stdin,
            Some(path) if path.as_os_str() == "-" => Source::Stdin,
            Some(path) => Source::File(path.to_owned()),
        }
    }

    /// The name to print in a `COUNT<TAB>PATH` line: the path, or `-`.
    pub fn label(&self) -> String {
        match self {
            Source::Stdin => "-".to_owned(),
            Source::File(path) => path.display().to_string(),
        }
    }

    /// Reads the whole input as bytes.
    ///
    /// # Errors
    ///
    /// A message naming the file and what the system said, with the fix.
    pub fn read_bytes(&self) -> Result<Vec<u8>, CliError> {
        match self {
            Source::Stdin => {
                let mut bytes = Vec::new();
                io::stdin()
                    .lock()
                    .read_to_end(&mut bytes)
                    .map_err(|error| {
                        CliError::input(format!("cannot read standard input: {error}"))
                    })?;
                Ok(bytes)
            }
            Source::File(path) => std::fs::read(path).map_err(|error| cannot_read(path, &error)),
        }
    }

    /// Reads the whole input as UTF-8 text, without the byte order mark a file may
    /// start with (see [`strip_bom`]).
    ///
    /// # Errors
    ///
    /// As [`read_bytes`](Self::read_bytes), and for bytes that are not UTF-8 a
    /// message with the line and byte offset of the first bad byte.
    pub fn read_text(&self) -> Result<String, CliError> {
        let bytes = self.read_bytes()?;
        let mut text = String::from_utf8(bytes)
            .map_err(|error| not_utf8(self, error.as_bytes(), &error.utf8_error()))?;
        let bom = text.len() - strip_bom(text.as_bytes()).len();
        text.drain(..bom);
        Ok(text)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Stdin => f.write_str("standard input"),
            Source::File(path) => write!(f, "`{}`", path.display()),
        }
    }
}

/// The UTF-8 byte order mark. Every reader skips it at the start of its input: it
/// marks the encoding and is not text.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without the UTF-8 byte order mark they may start with: the one place every
/// command's input loses it (whole texts and bodies, and the first line of `batch`).
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// The message for an input that cannot be opened or read, where `-` would read
/// standard input instead.
pub fn cannot_read(path: &Path, error: &io::Error) -> CliError {
    cannot(
        path,
        error,
        "; check the path (or pass `-` to read standard input)",
    )
}

/// The message for a file that cannot be opened or read (a tokenizer file: standard
/// input is no alternative).
pub fn cannot_open(path: &Path, error: &io::Error) -> CliError {
    cannot(path, error, "; check the path")
}

fn cannot(path: &Path, error: &io::Error, not_found: &str) -> CliError {
    let fix = match error.kind() {
        io::ErrorKind::NotFound => not_found,
        io::ErrorKind::PermissionDenied => "; check the file's permissions",
        _ => "",
    };
    CliError::input(format!(
        "cannot read `{}`: {}{fix}",
        path.display(),
        io_message(error)
    ))
}

/// What the system said, without Rust's ` (os error N)` suffix.
pub fn io_message(error: &io::Error) -> String {
    let message = error.to_string();
    match message.find(" (os error ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}

/// The message for input that is not UTF-8: where the first bad byte is, and how to
/// convert the text.
fn not_utf8(source: &Source, bytes: &[u8], error: &std::str::Utf8Error) -> CliError {
    let offset = error.valid_up_to();
    let line = bytes[..offset].split(|&b| b == b'\n').count();
    CliError::input(format!(
        "{source} is not UTF-8 text: the byte at offset {offset} (line {line}) is not valid UTF-8; \
         convert the text first, e.g. `iconv -f LATIN1 -t UTF-8`"
    ))
}

/// Standard output, buffered, where a reader that went away (`| head`) ends the
/// command quietly instead of with an error, and any other failed write (a full
/// disk) is an error: exit code 1.
pub struct Output {
    out: io::BufWriter<io::StdoutLock<'static>>,
}

impl Output {
    /// Buffered standard output.
    pub fn stdout() -> Self {
        Output {
            out: io::BufWriter::with_capacity(64 * 1024, io::stdout().lock()),
        }
    }

    /// Writes `bytes`.
    ///
    /// # Errors
    ///
    /// A message when standard output cannot be written (a full disk, ...).
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        self.out.write_all(bytes).map_err(|e| write_error(&e))
    }

    /// Writes everything buffered.
    ///
    /// # Errors
    ///
    /// As [`write`](Self::write).
    pub fn flush(&mut self) -> Result<(), CliError> {
        self.out.flush().map_err(|e| write_error(&e))
    }
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Output")
    }
}

/// Writes `text` and a line end to standard error: a report, a warning, a message.
///
/// # Errors
///
/// When standard error cannot be written (a full disk): exit code 1, with a message
/// that can only be tried on standard error again.
pub fn eprint_line(text: &str) -> Result<(), CliError> {
    let mut err = io::stderr().lock();
    err.write_all(text.as_bytes())
        .and_then(|()| err.write_all(b"\n"))
        .and_then(|()| err.flush())
        .map_err(|error| {
            CliError::input(format!(
                "cannot write to standard error: {}",
                io_message(&error)
            ))
        })
}

/// Writes `warning: TEXT` to standard error.
///
/// # Errors
///
/// As [`eprint_line`].
pub fn warn(text: &str) -> Result<(), CliError> {
    eprint_line(&format!("warning: {text}"))
}

fn write_error(error: &io::Error) -> CliError {
    if error.kind() == io::ErrorKind::BrokenPipe {
        // The reader has what it wanted (`ctxbudget trim ... | head`): stop quietly.
        std::process::exit(0);
    }
    CliError::input(format!(
        "cannot write to standard output: {}",
        io_message(error)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_byte_order_mark_is_skipped() {
        assert_eq!(strip_bom(b"\xEF\xBB\xBFtext"), b"text");
        assert_eq!(strip_bom(b"text\xEF\xBB\xBF"), b"text\xEF\xBB\xBF");
        assert_eq!(strip_bom(b"\xEF\xBB"), b"\xEF\xBB");
        assert_eq!(strip_bom(b""), b"");
    }
}
