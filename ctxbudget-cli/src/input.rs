//! Reading the input: a file, or standard input for `-` or no file, as UTF-8 text.

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

    /// Reads the whole input as UTF-8 text.
    ///
    /// # Errors
    ///
    /// As [`read_bytes`](Self::read_bytes), and for bytes that are not UTF-8 a
    /// message with the line and byte offset of the first bad byte.
    pub fn read_text(&self) -> Result<String, CliError> {
        let bytes = self.read_bytes()?;
        String::from_utf8(bytes)
            .map_err(|error| not_utf8(self, error.as_bytes(), &error.utf8_error()))
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

/// The message for a file that cannot be opened or read.
pub fn cannot_read(path: &Path, error: &io::Error) -> CliError {
    let fix = match error.kind() {
        io::ErrorKind::NotFound => "; check the path (or pass `-` to read standard input)",
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
/// command quietly instead of with an error.
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
