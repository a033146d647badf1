//! The files of `batch`: the input, the output and the `--errors` file, opened and
//! checked to be distinct before anything is written.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use crate::error::CliError;
use crate::input::{cannot_read, io_message};

/// Where `batch` reads and writes, and on how many threads.
#[derive(Debug, Clone, Args)]
pub struct BatchIo {
    /// The JSON lines to read; `-` or none reads standard input
    #[arg(long, short = 'i', value_name = "DATA.jsonl")]
    pub input: Option<PathBuf>,
    /// Where to write the results, one line per input line that succeeded, in input
    /// order; `-` or none writes standard output
    #[arg(long, short = 'o', value_name = "OUT.jsonl")]
    pub output: Option<PathBuf>,
    /// Also write every failed line as `{"line": N, "error": "..."}` to this file
    /// (not the input, not the output)
    #[arg(long, value_name = "ERRORS.jsonl")]
    pub errors: Option<PathBuf>,
    /// Threads that handle the lines (the main thread only reads and writes), at
    /// most the cores the machine runs at once [default: all cores, or
    /// `RAYON_NUM_THREADS`]
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
}

/// The input, the output and the `--errors` file, opened, none of them the same file
/// as another.
pub(super) struct Files {
    pub(super) input: Box<dyn BufRead>,
    pub(super) input_len: Option<u64>,
    pub(super) output: Box<dyn Write>,
    pub(super) errors: Option<BufWriter<File>>,
}

impl Files {
    /// Opens the three. Nothing is created or truncated before all are known to be
    /// distinct: an output that is the input (the same file by device and inode: a
    /// hard link, a symbolic link, the file behind standard input) or `--errors` that
    /// is the output is refused with nothing written.
    pub(super) fn open(io_args: &BatchIo) -> Result<Self, CliError> {
        let input_path = io_args.input.as_deref().filter(|p| p.as_os_str() != "-");
        let output_path = io_args.output.as_deref().filter(|p| p.as_os_str() != "-");
        let (input, input_len, input_id): (Box<dyn BufRead>, _, _) = match input_path {
            None => (
                Box::new(BufReader::with_capacity(1 << 20, io::stdin().lock())),
                None,
                stdin_id(),
            ),
            Some(path) => {
                let file = File::open(path).map_err(|e| cannot_read(path, &e))?;
                let meta = file.metadata().ok();
                let len = meta.as_ref().map(std::fs::Metadata::len);
                let id = meta.as_ref().and_then(file_id);
                (Box::new(BufReader::with_capacity(1 << 20, file)), len, id)
            }
        };
        // By device and inode where the system gives them (regular files only), else
        // by canonical path.
        let is_input = |id: Option<FileId>, path: Option<&Path>| {
            if cfg!(unix) {
                id.is_some() && id == input_id
            } else {
                matches!((path, input_path), (Some(a), Some(b)) if same_path(a, b))
            }
        };
        let output_file = output_path.map(Existing::open).transpose()?;
        match (&output_file, output_path) {
            (Some(existing), Some(path)) if is_input(existing.id(), Some(path)) => {
                return Err(CliError::input(format!(
                    "`--output {}` is the input file: writing would destroy it; write to \
                     another file",
                    path.display()
                )));
            }
            (None, _) if is_input(stdout_id(), None) => {
                return Err(CliError::input(
                    "standard output is the input file: writing would destroy it; write to \
                     another file with `--output FILE`",
                ));
            }
            _ => {}
        }
        let output_id = match &output_file {
            Some(existing) => existing.id(),
            None => stdout_id(),
        };
        let errors_file = match io_args.errors.as_deref() {
            None => None,
            Some(path) => {
                let existing = Existing::open(path)?;
                // Neither there yet: the same name in the same folder.
                let both_new = existing.file.is_none()
                    && output_file
                        .as_ref()
                        .is_some_and(|output| output.file.is_none());
                let same_as_output = existing.id().is_some() && existing.id() == output_id
                    || both_new && output_path.is_some_and(|output| same_new_path(path, output));
                if is_input(existing.id(), Some(path)) {
                    return Err(CliError::input(format!(
                        "`--errors {}` is the input file: writing would destroy it; write the \
                         errors to another file",
                        path.display()
                    )));
                }
                if same_as_output {
                    return Err(CliError::input(format!(
                        "`--errors {}` is also the output: two writers would overwrite each \
                         other's lines; write the errors to another file",
                        path.display()
                    )));
                }
                Some(existing)
            }
        };
        let output: Box<dyn Write> = match output_file {
            Some(existing) => Box::new(BufWriter::with_capacity(1 << 20, existing.truncate()?)),
            None => Box::new(BufWriter::with_capacity(1 << 20, io::stdout().lock())),
        };
        let errors = match errors_file {
            Some(existing) => Some(BufWriter::new(existing.truncate()?)),
            None => None,
        };
        Ok(Files {
            input,
            input_len,
            output,
            errors,
        })
    }
}

/// A file to write, opened without truncating it, or not there yet.
struct Existing<'p> {
    path: &'p Path,
    file: Option<File>,
}

impl<'p> Existing<'p> {
    fn open(path: &'p Path) -> Result<Self, CliError> {
        match OpenOptions::new().write(true).open(path) {
            Ok(file) => Ok(Existing {
                path,
                file: Some(file),
            }),
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                Ok(Existing { path, file: None })
            }
            Err(error) => Err(cannot_write(path, &error)),
        }
    }

    /// The file's identity, if it is there and a regular file.
    fn id(&self) -> Option<FileId> {
        self.file
            .as_ref()
            .and_then(|file| file.metadata().ok())
            .as_ref()
            .and_then(file_id)
    }

    /// The file emptied (or created), to be written from the start. Only a regular
    /// file is emptied: `/dev/null`, a FIFO or a terminal is written as it is.
    fn truncate(self) -> Result<File, CliError> {
        let path = self.path;
        match self.file {
            Some(file) if file.metadata().is_ok_and(|meta| meta.is_file()) => file
                .set_len(0)
                .map(|()| file)
                .map_err(|e| cannot_write(path, &e)),
            Some(file) => Ok(file),
            None => File::create(path).map_err(|e| cannot_write(path, &e)),
        }
    }
}

/// What makes a file the same file: its device and inode.
type FileId = (u64, u64);

/// The identity of a regular file (pipes, terminals and `/dev/null` are shared by
/// design and never "the same file" as another stream).
#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_meta: &std::fs::Metadata) -> Option<FileId> {
    None
}

/// The identity of the file behind standard input, if it is one.
#[cfg(unix)]
fn stdin_id() -> Option<FileId> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    file_id(&File::from(fd).metadata().ok()?)
}

/// The identity of the file behind standard output, if it is one.
#[cfg(unix)]
fn stdout_id() -> Option<FileId> {
    use std::os::fd::AsFd;
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    file_id(&File::from(fd).metadata().ok()?)
}

#[cfg(not(unix))]
fn stdin_id() -> Option<FileId> {
    None
}

#[cfg(not(unix))]
fn stdout_id() -> Option<FileId> {
    None
}

/// Whether two paths that exist name the same file, by their canonical paths (where
/// device and inode cannot be read).
fn same_path(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// Whether two paths, not yet created, would be the same file: the same name in the
/// same folder.
fn same_new_path(a: &Path, b: &Path) -> bool {
    let key = |path: &Path| {
        let folder = match path.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder,
            _ => Path::new("."),
        };
        Some(folder.canonicalize().ok()?.join(path.file_name()?))
    };
    matches!((key(a), key(b)), (Some(a), Some(b)) if a == b)
}

fn cannot_write(path: &Path, error: &io::Error) -> CliError {
    CliError::input(format!(
        "cannot write `{}`: {}; check that its folder exists and is writable",
        path.display(),
        io_message(error)
    ))
}
