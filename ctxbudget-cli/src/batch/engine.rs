//! The batch loop: JSON lines in, each chunk of lines parsed, handled and
//! serialized on any core, the bytes written in input order by one thread, every
//! line accounted for.

use std::collections::BTreeMap;
use std::io::{self, BufRead, IsTerminal, Write};
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::{ScopeFifo, ThreadPool};

use super::files::{BatchIo, Files};
use super::tally::{Job, Tally};
use crate::error::{CliError, EXIT_BAD_INPUT};
use crate::input::{eprint_line, io_message, strip_bom};

/// Lines handed to a worker together: enough that handing them out costs little
/// next to handling them, few enough that the workers share the work evenly.
const CHUNK_LINES: usize = 64;
/// ... or this many bytes, whichever comes first.
const CHUNK_BYTES: usize = 256 << 10;
/// Chunks read and not yet written, at most: enough to keep every core busy while
/// an earlier chunk is still handled, few enough that memory stays small.
const WINDOW_CHUNKS: u64 = 64;
/// ... and input bytes read and not yet written, at most (a chunk may go over).
const WINDOW_BYTES: usize = 16 << 20;
/// A line handled: the output line (without its line ending), which of the
/// command's outcomes it was (an index into its `outcomes`) and a warning about it.
#[derive(Debug)]
pub struct Done {
    /// The output line.
    pub line: String,
    /// Index into the outcomes the command names.
    pub outcome: usize,
    /// Why its counts are not exact, when they are not (see `ctxbudget fit`).
    pub warning: Option<String>,
}

/// A line that gave no output.
#[derive(Debug)]
pub enum Failed {
    /// The line is not valid input: counts as an error.
    Bad(String),
    /// The line is valid but cannot fit its budget.
    Over(String),
}

/// Why the run stopped before the end of the input.
#[derive(Debug)]
enum Stop {
    /// The input could not be read further.
    Read(io::Error),
    /// The output could not be written (a full disk, ...).
    Output(io::Error),
    /// Standard output's reader went away (`| head`): its choice, not an error.
    Closed,
    /// The `--errors` file could not be written.
    Errors(io::Error),
}

/// Runs `handle` over every line of the input, in parallel on `pool` (the global
/// pool when `None`), writing results in input order; prints the summary on
/// standard error on every way out, `--errors` flushed first.
///
/// Exit code: 0 when every line gave an output line, 1 when a line was bad input or
/// the output could not be written, 2 when no line was bad but some could not fit.
pub fn run<F>(
    io_args: &BatchIo,
    job: Job,
    handle: F,
    pool: Option<&ThreadPool>,
) -> Result<ExitCode, CliError>
where
    F: Fn(&str) -> Result<Done, Failed> + Sync,
{
    let Files {
        mut input,
        input_len,
        mut output,
        mut errors,
    } = Files::open(io_args)?;
    let progress = progress_bar(input_len);
    let ran = stream(
        &mut *input,
        &mut *output,
        errors.as_mut().map(|file| file as &mut dyn Write),
        job,
        &handle,
        &progress,
        pool,
    );
    progress.finish_and_clear();
    eprint_line(ran.summary().trim_end())?;
    match ran.error() {
        Some(error) => Err(error),
        None => Ok(ExitCode::from(ran.exit_code())),
    }
}

/// The batch loop on any streams. This thread reads `input` chunk by chunk and
/// hands each chunk to `pool` (the current pool when `None`), whose threads parse,
/// handle and serialize its lines into the bytes to write; this thread then writes
/// those bytes in input order to `output` (and the failures to `errors`), and
/// flushes both on every way out. At most `WINDOW_CHUNKS` chunks and about
/// `WINDOW_BYTES` of input are read and not yet written at any time.
pub fn stream<F>(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    errors: Option<&mut dyn Write>,
    job: Job,
    handle: &F,
    progress: &ProgressBar,
    pool: Option<&ThreadPool>,
) -> Ran
where
    F: Fn(&str) -> Result<Done, Failed> + Sync,
{
    let errors_file = errors.is_some();
    let mut sinks = Sinks { output, errors };
    let started = Instant::now();
    let mut tally = Tally::new(job.outcomes.len());
    let (why, panicked) = match pool {
        Some(pool) => pool.in_place_scope_fifo(|scope| {
            pipeline(scope, input, &mut sinks, &mut tally, handle, progress)
        }),
        None => rayon::in_place_scope_fifo(|scope| {
            pipeline(scope, input, &mut sinks, &mut tally, handle, progress)
        }),
    };
    let mut stop = why;
    // A handler that panicked is a bug: its panic goes on once the others are done.
    if let Some(payload) = panicked {
        std::panic::resume_unwind(payload);
    }
    // Every way out flushes what was written and reports.
    sinks.flush(&mut stop);
    Ran {
        job,
        tally,
        stop,
        elapsed: started.elapsed(),
        errors_file,
    }
}

/// What a worker sends back: a chunk handled (its sequence number and its output),
/// or the panic of a handler.
type Handled = Result<(u64, Chunk), Box<dyn std::any::Any + Send>>;

/// Reads, hands out and writes in order until the input ends or a stream fails;
/// returns why it stopped early, and a handler's panic. The chunks still being
/// handled when it returns are told to stop (the scope waits for them).
fn pipeline<'s, F>(
    scope: &ScopeFifo<'s>,
    input: &mut dyn BufRead,
    sinks: &mut Sinks<'_, '_>,
    tally: &mut Tally,
    handle: &'s F,
    progress: &ProgressBar,
) -> (Option<Stop>, Option<Box<dyn std::any::Any + Send>>)
where
    F: Fn(&str) -> Result<Done, Failed> + Sync,
{
    let (sender, receiver) = mpsc::channel::<Handled>();
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    // Chunks handled and waiting for an earlier one, by sequence number.
    let mut waiting: BTreeMap<u64, Chunk> = BTreeMap::new();
    let (mut next_read, mut next_write) = (0u64, 0u64);
    let mut in_flight = 0usize;
    let mut more = true;
    let mut first = true;
    let mut stop = None;
    let mut panicked = None;
    'run: loop {
        // Keep the window full: the workers never wait for this thread's reads.
        while more && next_read - next_write < WINDOW_CHUNKS && in_flight < WINDOW_BYTES {
            let mut lines = RawChunk::default();
            let bytes = match read_chunk(input, &mut lines) {
                Ok((bytes, again)) => {
                    more = again;
                    bytes
                }
                Err(error) => {
                    more = false;
                    stop = Some(Stop::Read(error));
                    break;
                }
            };
            if lines.lines.is_empty() {
                break;
            }
            if std::mem::take(&mut first) {
                let line = lines.lines[0].clone();
                let bom = line.len() - strip_bom(&lines.bytes[line]).len();
                lines.lines[0].start += bom;
            }
            in_flight = in_flight.saturating_add(bytes);
            let (sender, cancel, seq) = (sender.clone(), cancel.clone(), next_read);
            scope.spawn_fifo(move |_| {
                let handled = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    handle_chunk(&lines, bytes, handle, &cancel)
                }));
                // The receiver is gone only once the run is over.
                let _ = sender.send(handled.map(|chunk| (seq, chunk)));
            });
            next_read += 1;
        }
        if next_write == next_read {
            break;
        }
        match receive(&receiver) {
            Ok((seq, chunk)) => {
                waiting.insert(seq, chunk);
            }
            Err(payload) => {
                panicked = Some(payload);
                break;
            }
        }
        while let Some(chunk) = waiting.remove(&next_write) {
            next_write += 1;
            in_flight = in_flight.saturating_sub(chunk.bytes_read);
            if let Err(why) = sinks.put(tally, chunk.entries, &chunk.text) {
                stop = Some(why);
                break 'run;
            }
            progress.inc(chunk.bytes_read as u64);
            progress.set_message(format!("{} lines", tally.lines));
        }
    }
    cancel.store(true, Ordering::Relaxed);
    (stop, panicked)
}

/// The next chunk handled. On a thread of the pool itself (`Batch::run` inside
/// `ThreadPool::install`), it runs waiting work while it waits, so that a pool of
/// one thread cannot wait for itself.
fn receive(receiver: &mpsc::Receiver<Handled>) -> Handled {
    if rayon::current_thread_index().is_none() {
        // Every chunk sends exactly once, and this thread holds a sender.
        if let Ok(handled) = receiver.recv() {
            return handled;
        }
    }
    loop {
        match receiver.try_recv() {
            Ok(handled) => return handled,
            Err(mpsc::TryRecvError::Disconnected) => {
                return Err(Box::new("the batch workers went away"));
            }
            Err(mpsc::TryRecvError::Empty) => {
                if !matches!(rayon::yield_now(), Some(rayon::Yield::Executed)) {
                    if let Ok(handled) = receiver.recv_timeout(Duration::from_millis(1)) {
                        return handled;
                    }
                }
            }
        }
    }
}

/// A chunk of lines handled on a worker: the output bytes of its lines that
/// succeeded (each with its line end) and what became of each line, in order.
struct Chunk {
    /// The input bytes the chunk was read from.
    bytes_read: usize,
    /// The output lines, one after the other.
    text: Vec<u8>,
    entries: Vec<Entry>,
}

/// What became of one line of a chunk.
enum Entry {
    /// A blank line, skipped.
    Blank,
    /// An output line: it ends at `end` in the chunk's text.
    Written {
        end: usize,
        outcome: usize,
        warning: Option<String>,
    },
    /// A line that gave no output.
    Failed(Failed),
}

/// Handles a chunk's lines and serializes their output; stops early (the rest
/// unhandled) once `cancel` is set: nothing it returns will be written then.
fn handle_chunk<F>(lines: &RawChunk, bytes_read: usize, handle: &F, cancel: &AtomicBool) -> Chunk
where
    F: Fn(&str) -> Result<Done, Failed>,
{
    let mut text = Vec::with_capacity(bytes_read);
    let mut entries = Vec::with_capacity(lines.lines.len());
    for line in &lines.lines {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        let bytes = lines.bytes.get(line.clone()).unwrap_or_default();
        entries.push(match handle_line(bytes, handle) {
            None => Entry::Blank,
            Some(Ok(done)) => {
                text.extend_from_slice(done.line.as_bytes());
                text.push(b'\n');
                Entry::Written {
                    end: text.len(),
                    outcome: done.outcome,
                    warning: done.warning,
                }
            }
            Some(Err(failed)) => Entry::Failed(failed),
        });
    }
    Chunk {
        bytes_read,
        text,
        entries,
    }
}

/// What a run did: the tally of its lines, and why it stopped early if it did.
#[derive(Debug)]
pub struct Ran {
    job: Job,
    tally: Tally,
    stop: Option<Stop>,
    elapsed: Duration,
    errors_file: bool,
}

impl Ran {
    /// The summary, as `batch` prints it on standard error (ends with a line end).
    pub fn summary(&self) -> String {
        self.tally.summary(
            self.job,
            self.elapsed,
            matches!(self.stop, Some(Stop::Closed)),
            self.errors_file,
        )
    }

    /// The exit code of the lines: 0 when every line gave an output line, 1 when a
    /// line was bad input, 2 when none was bad but some could not fit. A run stopped
    /// by a stream that failed is 1 too (see [`error`](Self::error)).
    pub fn exit_code(&self) -> u8 {
        if self.error().is_some() {
            EXIT_BAD_INPUT
        } else {
            self.tally.exit_code()
        }
    }

    /// Why the run stopped before the end of the input, when a stream failed (not when
    /// the output's reader went away: that ends the run without an error).
    pub fn error(&self) -> Option<CliError> {
        let lines = self.tally.lines;
        match self.stop.as_ref()? {
            Stop::Closed => None,
            Stop::Read(error) => Some(CliError::input(format!(
                "cannot read the input after line {lines}: {}",
                io_message(error)
            ))),
            Stop::Output(error) => Some(CliError::input(format!(
                "cannot write the output: {}; the lines after line {lines} were not handled",
                io_message(error),
            ))),
            Stop::Errors(error) => Some(CliError::input(format!(
                "cannot write the --errors file: {}; the lines after line {lines} were not \
                 handled",
                io_message(error),
            ))),
        }
    }

    /// Whether the output's reader went away before the end (`| head`).
    pub fn closed(&self) -> bool {
        matches!(self.stop, Some(Stop::Closed))
    }

    /// The tally of the lines.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }
}

/// Where lines go: the output, and the `--errors` file.
struct Sinks<'o, 'e> {
    output: &'o mut dyn Write,
    errors: Option<&'e mut dyn Write>,
}

impl Sinks<'_, '_> {
    /// Writes what became of a chunk's lines, in order, and tallies them: the
    /// output lines are slices of `text`, one after the other.
    fn put(&mut self, tally: &mut Tally, entries: Vec<Entry>, text: &[u8]) -> Result<(), Stop> {
        let mut start = 0;
        for entry in entries {
            tally.lines += 1;
            let line = tally.lines;
            match entry {
                Entry::Blank => tally.blank += 1,
                Entry::Written {
                    end,
                    outcome,
                    warning,
                } => {
                    let bytes = text.get(start..end).unwrap_or_default();
                    start = end;
                    self.output.write_all(bytes).map_err(output_stop)?;
                    tally.outcomes[outcome] += 1;
                    if let Some(warning) = &warning {
                        tally.warn(line, warning);
                    }
                }
                Entry::Failed(failed) => {
                    let (over, message) = match &failed {
                        Failed::Bad(message) => (false, message),
                        Failed::Over(message) => (true, message),
                    };
                    if let Some(file) = self.errors.as_deref_mut() {
                        let text = super::jsonl::json_string(message);
                        writeln!(file, r#"{{"line":{line},"error":{text},"over":{over}}}"#)
                            .map_err(Stop::Errors)?;
                    }
                    tally.failed(line, over, message);
                }
            }
        }
        Ok(())
    }

    /// Flushes both, keeping the first reason to stop.
    fn flush(&mut self, stop: &mut Option<Stop>) {
        if !matches!(stop, Some(Stop::Output(_) | Stop::Closed)) {
            if let Err(error) = self.output.flush() {
                *stop = Some(output_stop(error));
            }
        }
        if let Some(file) = self.errors.as_deref_mut() {
            if let Err(error) = file.flush() {
                stop.get_or_insert(Stop::Errors(error));
            }
        }
    }
}

/// A failed write to the output: its reader went away, or a real failure.
fn output_stop(error: io::Error) -> Stop {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Stop::Closed
    } else {
        Stop::Output(error)
    }
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

/// Lines read together, handed to one worker: their bytes one after the other in
/// one buffer (one allocation a chunk, not one a line), and where each line is in
/// it, without its line ending.
#[derive(Debug, Default)]
struct RawChunk {
    bytes: Vec<u8>,
    lines: Vec<Range<usize>>,
}

/// Fills `chunk` with the next lines. Returns the bytes read and whether there may
/// be more.
fn read_chunk(input: &mut dyn BufRead, chunk: &mut RawChunk) -> io::Result<(usize, bool)> {
    chunk.bytes.clear();
    chunk.lines.clear();
    while chunk.lines.len() < CHUNK_LINES && chunk.bytes.len() < CHUNK_BYTES {
        let start = chunk.bytes.len();
        let read = input.read_until(b'\n', &mut chunk.bytes)?;
        if read == 0 {
            return Ok((chunk.bytes.len(), false));
        }
        let line = &chunk.bytes[start..];
        let line = match line.strip_suffix(b"\n") {
            Some(line) => line.strip_suffix(b"\r").unwrap_or(line),
            None => line,
        };
        chunk.lines.push(start..start + line.len());
    }
    Ok((chunk.bytes.len(), true))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_strip_line_endings_and_stop_at_the_end() {
        let mut input: &[u8] = b"a\r\nb\n\nc";
        let mut chunk = RawChunk::default();
        let (bytes, more) = read_chunk(&mut input, &mut chunk).unwrap();
        assert_eq!(bytes, 7);
        assert!(!more);
        let lines: Vec<&[u8]> = chunk
            .lines
            .iter()
            .map(|l| &chunk.bytes[l.clone()])
            .collect();
        assert_eq!(lines, [&b"a"[..], b"b", b"", b"c"]);
    }

    use std::fmt::Write as _;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    /// Numbered lines, counting how many were read.
    struct Counted {
        text: Vec<u8>,
        at: usize,
        lines: Arc<AtomicUsize>,
    }

    impl io::Read for Counted {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = io::BufRead::fill_buf(self)?.len().min(buf.len());
            buf[..n].copy_from_slice(&self.text[self.at..self.at + n]);
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for Counted {
        // One line at a time, so that what was read is what was consumed.
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            let rest = &self.text[self.at..];
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| i + 1);
            Ok(&rest[..end])
        }

        fn consume(&mut self, amount: usize) {
            let line = &self.text[self.at..self.at + amount];
            if line.ends_with(b"\n") {
                self.lines.fetch_add(1, Ordering::SeqCst);
            }
            self.at += amount;
        }
    }

    /// An output that records, at each line, how far the reading ran ahead.
    struct Ahead {
        written: usize,
        read: Arc<AtomicUsize>,
        most: usize,
        out: Vec<u8>,
    }

    impl Write for Ahead {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let lines = buf.iter().fold(0, |n, &b| n + usize::from(b == b'\n'));
            self.written += lines;
            let ahead = self
                .read
                .load(Ordering::SeqCst)
                .saturating_sub(self.written);
            self.most = self.most.max(ahead);
            self.out.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    const JOB: Job = Job {
        name: "batch test",
        outcomes: &["done"],
    };

    /// The numbers from 0, one a line.
    fn numbered(n: usize) -> String {
        (0..n).fold(String::new(), |mut text, i| {
            let _ = writeln!(text, "{i}");
            text
        })
    }

    #[allow(clippy::unnecessary_wraps)] // a handler's signature
    fn echo(line: &str) -> Result<Done, Failed> {
        Ok(Done {
            line: line.to_owned(),
            outcome: 0,
            warning: None,
        })
    }

    #[test]
    fn reading_runs_ahead_of_writing_by_the_window_at_most() {
        let n = 20_000;
        let text = numbered(n);
        let read = Arc::new(AtomicUsize::new(0));
        let mut input = Counted {
            text: text.clone().into_bytes(),
            at: 0,
            lines: read.clone(),
        };
        let mut output = Ahead {
            written: 0,
            read,
            most: 0,
            out: Vec::new(),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let ran = stream(
            &mut input,
            &mut output,
            None,
            JOB,
            &echo,
            &ProgressBar::hidden(),
            Some(&pool),
        );
        assert_eq!(ran.tally().lines(), n);
        assert_eq!(String::from_utf8(output.out).unwrap(), text);
        let window = usize::try_from(WINDOW_CHUNKS).unwrap() * CHUNK_LINES;
        assert!(output.most <= window, "{} lines ahead", output.most);
    }

    #[test]
    fn lines_are_handled_on_the_pool_and_written_here() {
        let caller = std::thread::current().id();
        let elsewhere = AtomicUsize::new(0);
        let handle = |line: &str| {
            if std::thread::current().id() != caller {
                elsewhere.fetch_add(1, Ordering::SeqCst);
            }
            echo(line)
        };
        let text = numbered(1000);
        let mut output = Vec::new();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let ran = stream(
            &mut text.as_bytes(),
            &mut output,
            None,
            JOB,
            &handle,
            &ProgressBar::hidden(),
            Some(&pool),
        );
        assert_eq!(ran.tally().lines(), 1000);
        assert_eq!(elsewhere.load(Ordering::SeqCst), 1000);
        assert_eq!(output, text.as_bytes());
    }

    #[test]
    fn a_pool_of_one_thread_can_run_a_batch_from_inside() {
        let text = numbered(5000);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let output = pool.install(|| {
            let mut output = Vec::new();
            stream(
                &mut text.as_bytes(),
                &mut output,
                None,
                JOB,
                &echo,
                &ProgressBar::hidden(),
                None,
            );
            output
        });
        assert_eq!(output, text.as_bytes());
    }
}
