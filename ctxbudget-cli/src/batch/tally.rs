//! What became of the lines of a batch: the counts, the first line numbers and
//! messages of each kind, and the summary that names them.

use std::fmt::Write as _;
use std::time::Duration;

use crate::error::{EXIT_BAD_INPUT, EXIT_DOES_NOT_FIT};

/// Error messages printed in the summary; the rest are counted (and all of them go
/// to `--errors FILE`).
const LISTED_ERRORS: usize = 20;
/// Warnings printed in the summary; the rest are counted.
const LISTED_WARNINGS: usize = 5;
/// Line numbers of each kind (errors, over the limit, warned) the summary names.
const LISTED_LINES: usize = 20;

/// What a batch command is called and the outcomes of a line that succeeded, as the
/// summary names them (e.g. `["cut", "unchanged"]`).
#[derive(Debug, Clone, Copy)]
pub struct Job {
    /// `batch trim`, `batch count`, ...
    pub name: &'static str,
    /// The names of the outcomes [`Done::outcome`] indexes.
    pub outcomes: &'static [&'static str],
}

/// Line numbers of one kind: how many, and the first few.
#[derive(Debug, Default)]
struct Lines {
    count: usize,
    first: Vec<usize>,
}

impl Lines {
    fn push(&mut self, line: usize) {
        self.count += 1;
        if self.first.len() < LISTED_LINES {
            self.first.push(line);
        }
    }

    /// ` (lines 3, 7-9, …)`: the first line numbers, `…` when there are more.
    fn numbers(&self) -> String {
        let more = if self.count > self.first.len() {
            ", …"
        } else {
            ""
        };
        format!(" (lines {}{more})", ranges(&self.first))
    }
}

/// What happened to the lines: counts, the first line numbers of each kind and the
/// first messages; its size does not grow with the input.
#[derive(Debug)]
pub struct Tally {
    pub(super) lines: usize,
    pub(super) blank: usize,
    pub(super) outcomes: Vec<usize>,
    bad: Lines,
    over: Lines,
    warned: Lines,
    /// `line N: message` for the first failed lines.
    messages: Vec<String>,
    /// `line N: warning: message` for the first lines counted with a warning.
    warnings: Vec<String>,
}

impl Tally {
    pub(super) fn new(outcomes: usize) -> Self {
        Tally {
            lines: 0,
            blank: 0,
            outcomes: vec![0; outcomes],
            bad: Lines::default(),
            over: Lines::default(),
            warned: Lines::default(),
            messages: Vec::new(),
            warnings: Vec::new(),
        }
    }

    pub(super) fn failed(&mut self, line: usize, over: bool, message: &str) {
        if over {
            self.over.push(line);
        } else {
            self.bad.push(line);
        }
        if self.messages.len() < LISTED_ERRORS {
            self.messages.push(format!("line {line}: {message}"));
        }
    }

    pub(super) fn warn(&mut self, line: usize, warning: &str) {
        self.warned.push(line);
        if self.warnings.len() < LISTED_WARNINGS {
            self.warnings
                .push(format!("line {line}: warning: {warning}"));
        }
    }

    pub(super) fn exit_code(&self) -> u8 {
        if self.bad.count > 0 {
            EXIT_BAD_INPUT
        } else if self.over.count > 0 {
            EXIT_DOES_NOT_FIT
        } else {
            0
        }
    }

    /// The lines read, blank ones included.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The blank lines, skipped.
    pub fn blank(&self) -> usize {
        self.blank
    }

    /// How many output lines each outcome of the job had, in the job's order.
    pub fn outcomes(&self) -> &[usize] {
        &self.outcomes
    }

    /// The lines that were bad input.
    pub fn bad(&self) -> usize {
        self.bad.count
    }

    /// The lines that could not fit their budget.
    pub fn over(&self) -> usize {
        self.over.count
    }

    /// The lines written with a warning that their counts are not exact.
    pub fn warned(&self) -> usize {
        self.warned.count
    }

    /// `ctxbudget batch trim: 1000 lines, 998 written (120 cut, 878 unchanged),
    /// 2 errors (lines 7, 12) in 0.41 s`, then the first error messages.
    pub(super) fn summary(
        &self,
        job: Job,
        elapsed: Duration,
        closed: bool,
        errors_file: bool,
    ) -> String {
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
        if self.over.count > 0 {
            let _ = write!(
                out,
                ", {} over the limit{}",
                self.over.count,
                self.over.numbers()
            );
        }
        let _ = write!(out, ", {}", plural(self.bad.count, "error"));
        if self.bad.count > 0 {
            out.push_str(&self.bad.numbers());
        }
        if self.blank > 0 {
            let _ = write!(out, ", {} skipped", plural(self.blank, "blank line"));
        }
        if self.warned.count > 0 {
            let _ = write!(
                out,
                ", {} not counted exactly{}",
                self.warned.count,
                self.warned.numbers()
            );
        }
        let seconds = elapsed.as_secs_f64();
        #[allow(clippy::cast_precision_loss)]
        let rate = if seconds > 0.0 {
            self.lines as f64 / seconds
        } else {
            0.0
        };
        let _ = writeln!(out, " in {seconds:.2} s ({rate:.0} lines/s)");
        if closed {
            let _ = writeln!(
                out,
                "  standard output was closed by its reader: the output stops at or before \
                 line {}, and the input after it was not read",
                self.lines
            );
        }
        for message in self.messages.iter().chain(&self.warnings) {
            let _ = writeln!(out, "  {message}");
        }
        let failed = self.bad.count.saturating_add(self.over.count);
        if failed > self.messages.len() {
            let rest = failed - self.messages.len();
            if errors_file {
                let _ = writeln!(
                    out,
                    "  ... and {rest} more (all of them in the --errors file)"
                );
            } else {
                let _ = writeln!(
                    out,
                    "  ... and {rest} more (write them all with `--errors ERRORS.jsonl`)"
                );
            }
        }
        if self.warned.count > self.warnings.len() {
            let _ = writeln!(
                out,
                "  ... and {} more lines not counted exactly",
                self.warned.count - self.warnings.len()
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
}
