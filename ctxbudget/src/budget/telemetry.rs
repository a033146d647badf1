//! Telemetry (feature `serde`): usage trackers as JSON, and [`UsageLog`], a JSON-lines
//! log of them.
//!
//! Every tracker, [`ContextUsage`] or a compile-time [`TypedUsage`], serialises to one
//! flat JSON object:
//!
//! - `total`: the context window, in tokens;
//! - `spent`: the tokens spent across all layers;
//! - `remaining`: `total - spent`, everything not spent yet, *including* reservations
//!   not spent yet (such as the output's);
//! - then one key per layer, named after it, in declaration order:
//!   `{"budget": B, "spent": N}`, its reservation and what it spent.
//!
//! ```json
//! {"total": 8192, "spent": 1300, "remaining": 6892,
//!  "system": {"budget": 512, "spent": 300}, "user": {"budget": 1024, "spent": 1000}}
//! ```
//!
//! The object leaves out `reserved` (the sum of the layers' `budget`s) and
//! `available` (`total - reserved`, the tokens no layer reserves); add the entries up
//! for them. Layers cannot be named `total`, `spent` or `remaining`, so the keys never
//! clash.

use super::context::ContextUsage;
use super::layers::{ContextLayers, TypedUsage};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::io;

/// Serialises `total`, `spent`, `remaining` and one `{"budget", "spent"}` entry per
/// layer.
fn serialize_usage<'a, S: Serializer>(
    serializer: S,
    total: usize,
    spent: usize,
    remaining: usize,
    layers: impl ExactSizeIterator<Item = (&'a str, usize, usize)>,
) -> Result<S::Ok, S::Error> {
    #[derive(serde::Serialize)]
    struct Entry {
        budget: usize,
        spent: usize,
    }
    let mut map = serializer.serialize_map(Some(3 + layers.len()))?;
    map.serialize_entry("total", &total)?;
    map.serialize_entry("spent", &spent)?;
    map.serialize_entry("remaining", &remaining)?;
    for (name, budget, spent) in layers {
        map.serialize_entry(name, &Entry { budget, spent })?;
    }
    map.end()
}

impl Serialize for ContextUsage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_usage(
            serializer,
            self.budget().total(),
            self.total_spent(),
            self.remaining(),
            self.layers(),
        )
    }
}

impl<C: ContextLayers> Serialize for TypedUsage<C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_usage(
            serializer,
            C::TOTAL,
            self.total_spent(),
            self.remaining(),
            self.layers(),
        )
    }
}

/// Serialises a value that cannot fail to serialise (string keys, integer values).
fn to_json_string<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl ContextUsage {
    /// The telemetry JSON object, on one line.
    ///
    /// ```
    /// use ctxbudget::ContextBudget;
    ///
    /// let mut usage = ContextBudget::new(4096, [("system", 512), ("user", 1024)])?.usage();
    /// usage.spend("user", 1000)?;
    /// assert_eq!(
    ///     usage.to_json(),
    ///     r#"{"total":4096,"spent":1000,"remaining":3096,"system":{"budget":512,"spent":0},"user":{"budget":1024,"spent":1000}}"#,
    /// );
    /// # Ok::<(), ctxbudget::BudgetError>(())
    /// ```
    pub fn to_json(&self) -> String {
        to_json_string(self)
    }
}

impl<C: ContextLayers> TypedUsage<C> {
    /// The telemetry JSON object, on one line: the same shape as
    /// [`ContextUsage::to_json`].
    pub fn to_json(&self) -> String {
        to_json_string(self)
    }
}

/// How many [`io::ErrorKind::Interrupted`] in a row [`UsageLog::record`] retries
/// before it returns the error: a writer that is always interrupted must not hang it.
const INTERRUPTS: u32 = 64;

/// A JSON-lines usage log: each [`record`](Self::record) appends one telemetry object
/// and a newline to the writer, then flushes it, so a crash loses at most the line
/// being written.
///
/// A write that fails partway (a full disk) leaves half a line behind. The log
/// remembers it and starts the next record on a new line, so the half line is the
/// only one lost: a reader that skips lines which do not parse as JSON gets every
/// record that was written whole.
///
/// ```
/// use ctxbudget::{ContextBudget, budget::UsageLog};
///
/// let mut usage = ContextBudget::new(4096, [("system", 512)])?.usage();
/// let mut log = UsageLog::new(Vec::new());
/// log.record(&usage)?;
/// usage.spend("system", 100)?;
/// log.record(&usage)?;
///
/// let text = String::from_utf8(log.into_inner()).unwrap();
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines.len(), 2);
/// assert!(lines[1].starts_with(r#"{"total":4096,"spent":100,"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct UsageLog<W: io::Write> {
    out: W,
    line: Vec<u8>,
    /// Whether the last byte the writer accepted ended a line (true before any).
    at_line_start: bool,
}

impl<W: io::Write> UsageLog<W> {
    /// A log appending to `out` (a file opened for append, a socket, `stderr`, ..).
    pub fn new(out: W) -> Self {
        UsageLog {
            out,
            line: Vec::new(),
            at_line_start: true,
        }
    }

    /// Appends `usage` as one JSON line and flushes.
    ///
    /// The whole line is serialised first, so a serialisation failure writes
    /// nothing. If an earlier record failed after the writer had accepted part of
    /// its line, this one starts with a newline to end that half line.
    ///
    /// # Errors
    ///
    /// The writer's I/O errors, and [`io::ErrorKind::InvalidData`] if `usage` fails
    /// to serialise (the trackers of this crate never do). A writer that accepts no
    /// bytes is [`io::ErrorKind::WriteZero`].
    pub fn record<T: Serialize + ?Sized>(&mut self, usage: &T) -> io::Result<()> {
        self.line.clear();
        if !self.at_line_start {
            self.line.push(b'\n');
        }
        serde_json::to_writer(&mut self.line, usage)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        self.line.push(b'\n');
        self.write_line()?;
        self.out.flush()
    }

    /// `write_all` that keeps track of where the writer's bytes end, so that a
    /// failure partway is known. Retries [`io::ErrorKind::Interrupted`] as
    /// `write_all` does, but gives up after [`INTERRUPTS`] in a row.
    fn write_line(&mut self) -> io::Result<()> {
        let mut rest = &self.line[..];
        let mut interrupts = 0;
        while !rest.is_empty() {
            match self.out.write(rest) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "the usage log's writer accepted no bytes; the line was not written whole",
                    ));
                }
                Ok(n) => {
                    // A writer reporting more than it was given is taken at its word
                    // for what it was given.
                    let (written, unwritten) = rest.split_at(n.min(rest.len()));
                    self.at_line_start = written.last() == Some(&b'\n');
                    rest = unwritten;
                    interrupts = 0;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted && interrupts < INTERRUPTS => {
                    interrupts += 1;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// The writer, mutably. Bytes written through it bypass the log's record of
    /// where its last line ended.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// The writer, giving up the log.
    pub fn into_inner(self) -> W {
        self.out
    }
}
