//! The batch loop: JSON lines in, each line handled on any core, results written in
//! input order, every line accounted for.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::error::{CliError, EXIT_BAD_INPUT, EXIT_DOES_NOT_FIT};
use crate::input::{cannot_read, io_message};

/// Lines read and handled together: enough to keep every core busy, few enough that
/// memory stays small and the progress bar moves.
const BLOCK_LINES: usize = 4096;
/// ... or this many bytes, whichever comes first.
const BLOCK_BYTES: usize = 16 << 20;
/// Error messages printed in the summary; the rest are counted (and all of them go
/// to `--errors FILE`).
const LISTED_ERRORS: usize = 20;

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
    #[arg(long, value_name = "ERRORS.jsonl")]
    pub errors: Option<PathBuf>,
    /// Threads to use [default: all cores, or `RAYON_NUM_THREADS`]
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
}

/// A line handled: the output line (without its line ending) and which of the
/// command's outcomes it was (an index into its `outcomes`).
#[derive(Debug)]
pub struct Done {
    /// The output line.
    pub line: String,
    /// Index into the outcomes the command names.
    pub outcome: usize,
}

/// A line that gave no output.
#[derive(Debug)]
pub enum Failed {
    /// The line is not valid input: counts as an error.
    Bad(String),
    /// The line is valid but cannot fit its budget.
    Over(String),
}

/// What a batch command is called and the outcomes of a line that succeeded, as the
/// summary names them (e.g. `["cut", "unchanged"]`).
#[derive(Debug, Clone, Copy)]
pub struct Job {
    /// `batch trim`, `batch count`, ...
    pub name: &'static str,
    /// The names of the outcomes [`Done::outcome`] indexes.
    pub outcomes: &'static [&'static str],
}

/// Runs `handle` over every line of the input, in parallel, writing results in input
/// order; prints the summary on standard error.
///
/// Exit code: 0 when every line gave an output line, 1 when a line was bad input, 2
/// when no line was bad but some could not fit.
pub fn run<F>(io_args: &BatchIo, job: Job, handle: F) -> Result<ExitCode, CliError>
where
    F: Fn(&str) -> Result<Done, Failed> + Sync,
{
    let (mut input, input_len) = open_input(io_args.input.as_deref())?;
    let mut output = open_output(io_args.output.as_deref(), io_args.input.as_deref())?;
    let mut errors_file = match &io_args.errors {
        Some(path) => Some(BufWriter::new(
            File::create(path).map_err(|e| cannot_write(path, &e))?,
        )),
        None => None,
    };
    let progress = progress_bar(input_len);
    let started = Instant::now();
    let mut tally = Tally::new(job.outcomes.len());
    let mut block: Vec<Vec<u8>> = Vec::with_capacity(BLOCK_LINES);
    let mut first_line = 1usize;
    loop {
        let (bytes_read, more) = read_block(&mut input, &mut block)?;
        let results: Vec<Option<Result<Done, Failed>>> = block
            .par_iter()
            .map(|bytes| handle_line(bytes, &handle))
            .collect();
        for (offset, result) in results.into_iter().enumerate() {
            let line = first_line + offset;
            match result {
                None => tally.blank += 1,
                Some(Ok(done)) => {
                    output
                        .write_all(done.line.as_bytes())
                        .map_err(|e| write_error(&e))?;
                    output.write_all(b"\n").map_err(|e| write_error(&e))?;
                    tally.outcomes[done.outcome] += 1;
                }
                Some(Err(failed)) => {
                    let (over, message) = match failed {
                        Failed::Bad(message) => (false, message),
                        Failed::Over(message) => (true, message),
                    };
                    if let Some(file) = &mut errors_file {
                        let text = super::jsonl::json_string(&message);
                        writeln!(file, r#"{{"line":{line},"error":{text},"over":{over}}}"#)
                            .map_err(|e| write_error(&e))?;
                    }
                    tally.failed.push((line, over, message));
                }
            }
        }
        first_line += block.len();
        tally.lines += block.len();
        progress.inc(bytes_read as u64);
        progress.set_message(format!("{} lines", tally.lines));
        if !more {
            break;
        }
    }
    output.flush().map_err(|e| write_error(&e))?;
    if let Some(file) = &mut errors_file {
        file.flush().map_err(|e| write_error(&e))?;
    }
    progress.finish_and_clear();
    eprint!("{}", tally.summary(job, started.elapsed()));
    Ok(tally.exit_code())
}

/// `None` for a blank line, else what `handle` made of it.
fn handle_line<F>(bytes: &[u8], handle: &F) -> Option<Result<Done, Failed>>
where
    F: Fn(&str) -> Result<Done, Failed>,
{
    match std::str::from_utf8(bytes) {
        Ok(line) if line.trim().is_empty() => None,
        Ok(line) => Some(handle(line)),
        Err(error) => Some(Err(Failed::Bad(format!(
            "not UTF-8: the byte at column {} is not valid UTF-8; convert the file first, \
             e.g. `iconv -f LATIN1 -t UTF-8`",
            error.valid_up_to() + 1
        )))),
    }
}

/// Fills `block` with the next lines (without their line endings). Returns the bytes
/// read and whether there may be more.
fn read_block(
    input: &mut dyn BufRead,
    block: &mut Vec<Vec<u8>>,
) -> Result<(usize, bool), CliError> {
    block.clear();
    let mut bytes = 0usize;
    while block.len() < BLOCK_LINES && bytes < BLOCK_BYTES {
        let mut line = Vec::new();
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(|e| CliError::input(format!("cannot read the input: {}", io_message(&e))))?;
        if read == 0 {
            return Ok((bytes, false));
        }
        bytes += read;
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        block.push(line);
    }
    Ok((bytes, true))
}

fn open_input(path: Option<&Path>) -> Result<(Box<dyn BufRead>, Option<u64>), CliError> {
    match path.filter(|p| p.as_os_str() != "-") {
        None => Ok((
            Box::new(BufReader::with_capacity(1 << 20, io::stdin().lock())),
            None,
        )),
        Some(path) => {
            let file = File::open(path).map_err(|e| cannot_read(path, &e))?;
            let len = file.metadata().ok().map(|m| m.len());
            let reader: Box<dyn Read> = Box::new(file);
            Ok((Box::new(BufReader::with_capacity(1 << 20, reader)), len))
        }
    }
}

fn open_output(path: Option<&Path>, input: Option<&Path>) -> Result<Box<dyn Write>, CliError> {
    let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
        return Ok(Box::new(BufWriter::with_capacity(
            1 << 20,
            io::stdout().lock(),
        )));
    };
    let same = match (input.map(Path::canonicalize), path.canonicalize()) {
        (Some(Ok(input)), Ok(output)) => input == output,
        _ => false,
    };
    if same {
        return Err(CliError::input(format!(
            "`--output {}` is the input file: writing would destroy it; write to another file",
            path.display()
        )));
    }
    let file = File::create(path).map_err(|e| cannot_write(path, &e))?;
    Ok(Box::new(BufWriter::with_capacity(1 << 20, file)))
}

fn cannot_write(path: &Path, error: &io::Error) -> CliError {
    CliError::input(format!(
        "cannot write `{}`: {}; check that its folder exists and is writable",
        path.display(),
        io_message(error)
    ))
}

fn write_error(error: &io::Error) -> CliError {
    if error.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    CliError::input(format!("cannot write the output: {}", io_message(error)))
}

/// A progress bar on standard error when it is a terminal; hidden otherwise, so
/// logs and pipes get only the summary.
fn progress_bar(len: Option<u64>) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match len {
        Some(len) => ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
    };
    let template = if len.is_some() {
        "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg} (eta {eta})"
    } else {
        "{spinner} [{elapsed_precise}] {bytes} {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// What happened to the lines.
#[derive(Debug)]
struct Tally {
    lines: usize,
    blank: usize,
    outcomes: Vec<usize>,
    /// Line number, whether it was over the budget (else bad input), message.
    failed: Vec<(usize, bool, String)>,
}

impl Tally {
    fn new(outcomes: usize) -> Self {
        Tally {
            lines: 0,
            blank: 0,
            outcomes: vec![0; outcomes],
            failed: Vec::new(),
        }
    }

    fn exit_code(&self) -> ExitCode {
        if self.failed.iter().any(|(_, over, _)| !over) {
            ExitCode::from(EXIT_BAD_INPUT)
        } else if self.failed.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_DOES_NOT_FIT)
        }
    }

    /// `ctxbudget batch trim: 1000 lines, 998 written (120 cut, 878 unchanged),
    /// 2 errors (lines 7, 12) in 0.41 s`, then the first error messages.
    fn summary(&self, job: Job, elapsed: Duration) -> String {
        let written: usize = self.outcomes.iter().sum();
        let mut out = format!(
            "ctxbudget {}: {}, {written} written",
            job.name,
            plural(self.lines, "line")
        );
        if job.outcomes.len() > 1 {
            let parts: Vec<String> = job
                .outcomes
                .iter()
                .zip(&self.outcomes)
                .map(|(name, n)| format!("{n} {name}"))
                .collect();
            let _ = write!(out, " ({})", parts.join(", "));
        }
        let over: Vec<usize> = self.failed.iter().filter(|f| f.1).map(|f| f.0).collect();
        let bad: Vec<usize> = self.failed.iter().filter(|f| !f.1).map(|f| f.0).collect();
        if !over.is_empty() {
            let _ = write!(
                out,
                ", {} over the limit (lines {})",
                over.len(),
                ranges(&over)
            );
        }
        let _ = write!(out, ", {}", plural(bad.len(), "error"));
        if !bad.is_empty() {
            let _ = write!(out, " (lines {})", ranges(&bad));
        }
        if self.blank > 0 {
            let _ = write!(out, ", {} skipped", plural(self.blank, "blank line"));
        }
        let seconds = elapsed.as_secs_f64();
        #[allow(clippy::cast_precision_loss)]
        let rate = if seconds > 0.0 {
            self.lines as f64 / seconds
        } else {
            0.0
        };
        let _ = writeln!(out, " in {seconds:.2} s ({rate:.0} lines/s)");
        for (line, _, message) in self.failed.iter().take(LISTED_ERRORS) {
            let _ = writeln!(out, "  line {line}: {message}");
        }
        if self.failed.len() > LISTED_ERRORS {
            let _ = writeln!(
                out,
                "  ... and {} more (write them all with `--errors ERRORS.jsonl`)",
                self.failed.len() - LISTED_ERRORS
            );
        }
        out
    }
}

/// `1 error`, `2 errors`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Sorted line numbers as ranges: `3, 7-9, 12`.
fn ranges(lines: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut iter = lines.iter().copied().peekable();
    while let Some(start) = iter.next() {
        let mut end = start;
        while iter.peek() == Some(&(end + 1)) {
            end += 1;
            iter.next();
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_print_as_ranges() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[3]), "3");
        assert_eq!(ranges(&[3, 7, 8, 9, 12, 13]), "3, 7-9, 12-13");
    }

    #[test]
    fn blocks_strip_line_endings_and_stop_at_the_end() {
        let mut input: &[u8] = b"a\r\nb\n\nc";
        let mut block = Vec::new();
        let (bytes, more) = read_block(&mut input, &mut block).unwrap();
        assert_eq!(bytes, 7);
        assert!(!more);
        assert_eq!(
            block,
            vec![b"a".to_vec(), b"b".to_vec(), Vec::new(), b"c".to_vec()]
        );
    }
}
