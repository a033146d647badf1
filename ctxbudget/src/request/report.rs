//! [`RequestReport`]: what fitting a request did, and a table for people.

use std::fmt;

use super::{Assumption, RequestFormat};
use crate::chat::edit::EditReport;
use crate::chat::{DropReason, Role};
use crate::count::Exactness;

/// A message that fitting removed from a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct DroppedRequestMessage {
    /// Its index in the input request's `messages`.
    pub index: usize,
    /// Its role.
    pub role: Role,
    /// What it cost, per-message overhead included; `None` when it was dropped
    /// without being counted (see
    /// [`with_count_dropped`](super::RequestFitter::with_count_dropped)).
    pub tokens: Option<usize>,
    /// Why it was removed.
    pub reason: DropReason,
}

/// Where the output reserved from a window came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutputReservation {
    /// Nothing reserved: the limit was given as a maximum input.
    None,
    /// The body's own output limit (`max_tokens`, `max_completion_tokens`).
    Body,
    /// The fitter's default output, the body setting no limit of its own (see
    /// [`InputLimit::for_model`](super::InputLimit::for_model)).
    Default,
}

/// What [`RequestFitter::fit`](super::RequestFitter::fit) did: what was dropped and
/// why, the tokens before and after, the limit.
///
/// Its [`Display`](fmt::Display) is a short table for logs and terminals.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RequestReport {
    /// The request's wire format.
    pub format: RequestFormat,
    /// The body's `model`, if it has one.
    pub model: Option<String>,
    /// The input limit the request was fitted to.
    pub limit: usize,
    /// The output reserved from the window (0 when the limit was given as a maximum
    /// input).
    pub output_reserved: usize,
    /// Where `output_reserved` came from.
    pub output: OutputReservation,
    /// The input tokens of the request as it came in; `None` when messages were
    /// dropped without being counted (see
    /// [`with_count_dropped`](super::RequestFitter::with_count_dropped)).
    pub tokens_before: Option<usize>,
    /// The input tokens of the fitted request; never more than `limit`.
    pub tokens_after: usize,
    /// What the request costs outside its messages (tool definitions, top-level
    /// system prompt); counted in both `tokens_before` and `tokens_after`.
    pub fixed: usize,
    /// How many messages were kept.
    pub kept: usize,
    /// How many of the kept messages are system (or developer) messages.
    pub system_kept: usize,
    /// The removed messages, in input order. With edits, what a message cost is
    /// what it cost after its edits.
    pub dropped: Vec<DroppedRequestMessage>,
    /// What the editing step did, before anything was dropped: each edit (kind,
    /// message index in the input, tool, tokens before and after) and the totals
    /// (`cleared_tool_uses`, `cleared_input_tokens`, `truncated`,
    /// `thinking_dropped`, `summarized`). `None` when edits are off
    /// ([`Edits::none`](crate::chat::edit::Edits::none), the default; see
    /// [`with_edits`](super::RequestFitter::with_edits)). A kept message no edit
    /// names is exactly as it came in.
    pub edits: Option<EditReport>,
    /// How exact the counter is: an exact tokenizer, an upper estimate (Claude,
    /// Gemini), or a rule of thumb.
    pub exactness: Exactness,
    /// Why the counts are estimates beyond the counter; empty when they are as exact
    /// as the counter.
    pub assumptions: Vec<Assumption>,
}

impl RequestReport {
    /// Whether any message was removed.
    pub fn trimmed(&self) -> bool {
        !self.dropped.is_empty()
    }

    /// The input tokens left unused under the limit.
    pub fn unused(&self) -> usize {
        self.limit.saturating_sub(self.tokens_after)
    }

    /// Whether the counts are estimates: the counter is not exact, or a count rests
    /// on an assumption (see [`assumptions`](RequestReport::assumptions)).
    pub fn is_estimate(&self) -> bool {
        !self.exactness.is_exact() || !self.assumptions.is_empty()
    }
}

impl fmt::Display for RequestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let model = self.model.as_deref().unwrap_or("(no model)");
        writeln!(
            f,
            "{} request for {model}, counted {}",
            self.format,
            match self.exactness {
                Exactness::Exact => "exactly",
                Exactness::UpperEstimate => "with an upper estimate",
                _ => "with an estimate",
            }
        )?;
        let counted = self.dropped.iter().filter_map(|d| d.tokens);
        let dropped_tokens = counted.clone().fold(0usize, usize::saturating_add);
        let uncounted = self.dropped.len() - counted.count();
        write!(
            f,
            "  messages   {:>8} kept, {} dropped ({dropped_tokens} tokens",
            self.kept,
            self.dropped.len(),
        )?;
        if uncounted > 0 {
            write!(f, ", {uncounted} of them not counted")?;
        }
        writeln!(f, ")")?;
        writeln!(
            f,
            "  fixed      {:>8} tokens (tools, top-level system)",
            self.fixed
        )?;
        match self.tokens_before {
            Some(tokens) => writeln!(f, "  before     {tokens:>8} tokens")?,
            None => writeln!(
                f,
                "  before     {:>8} tokens at least (older messages dropped uncounted)",
                self.tokens_after.saturating_add(dropped_tokens)
            )?,
        }
        if let Some(edits) = &self.edits {
            let t = &edits.totals;
            writeln!(
                f,
                "  edits      {:>8} tokens saved: {} tool results cleared ({} tokens), {} truncated, thinking dropped in {}",
                t.saved_tokens,
                t.cleared_tool_uses,
                t.cleared_input_tokens,
                t.truncated,
                t.thinking_dropped,
            )?;
        }
        writeln!(f, "  after      {:>8} tokens", self.tokens_after)?;
        write!(
            f,
            "  limit      {:>8} tokens ({} reserved for output",
            self.limit, self.output_reserved
        )?;
        match self.output {
            OutputReservation::Default => writeln!(f, ": the default, the body sets no limit)")?,
            _ => writeln!(f, ")")?,
        }
        write!(f, "  unused     {:>8} tokens", self.unused())?;
        let mut reasons: Vec<(DropReason, usize)> = Vec::new();
        for d in &self.dropped {
            match reasons.iter_mut().find(|(r, _)| *r == d.reason) {
                Some((_, n)) => *n += 1,
                None => reasons.push((d.reason, 1)),
            }
        }
        for (reason, n) in reasons {
            write!(f, "\n  dropped    {n:>8} messages: {reason}")?;
        }
        for assumption in &self.assumptions {
            write!(f, "\n  estimate: {assumption}")?;
        }
        Ok(())
    }
}
