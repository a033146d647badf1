//! [`RequestReport`]: what fitting a request did, and a table for people.

use std::fmt;

use super::{Assumption, RequestFormat};
use crate::chat::{DropReason, Role};

/// A message that fitting removed from a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct DroppedRequestMessage {
    /// Its index in the input request's `messages`.
    pub index: usize,
    /// Its role.
    pub role: Role,
    /// What it cost, per-message overhead included.
    pub tokens: usize,
    /// Why it was removed.
    pub reason: DropReason,
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
    /// The input tokens of the request as it came in.
    pub tokens_before: usize,
    /// The input tokens of the fitted request; never more than `limit`.
    pub tokens_after: usize,
    /// What the request costs outside its messages (tool definitions, top-level
    /// system prompt); counted in both `tokens_before` and `tokens_after`.
    pub fixed: usize,
    /// How many messages were kept.
    pub kept: usize,
    /// How many of the kept messages are system (or developer) messages.
    pub system_kept: usize,
    /// The removed messages, in input order.
    pub dropped: Vec<DroppedRequestMessage>,
    /// Why the counts are estimates; empty when they are as exact as the counter.
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

    /// Whether the counts rest on an assumption (see
    /// [`assumptions`](RequestReport::assumptions)).
    pub fn is_estimate(&self) -> bool {
        !self.assumptions.is_empty()
    }
}

impl fmt::Display for RequestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let model = self.model.as_deref().unwrap_or("(no model)");
        writeln!(f, "{} request for {model}", self.format)?;
        let dropped_tokens = self
            .dropped
            .iter()
            .fold(0usize, |sum, d| sum.saturating_add(d.tokens));
        writeln!(
            f,
            "  messages   {:>8} kept, {} dropped ({} tokens)",
            self.kept,
            self.dropped.len(),
            dropped_tokens
        )?;
        writeln!(
            f,
            "  fixed      {:>8} tokens (tools, top-level system)",
            self.fixed
        )?;
        writeln!(f, "  before     {:>8} tokens", self.tokens_before)?;
        writeln!(f, "  after      {:>8} tokens", self.tokens_after)?;
        writeln!(
            f,
            "  limit      {:>8} tokens ({} reserved for output)",
            self.limit, self.output_reserved
        )?;
        write!(f, "  unused     {:>8} tokens", self.unused())?;
        let mut reasons: Vec<(DropReason, usize, usize)> = Vec::new();
        for d in &self.dropped {
            match reasons.iter_mut().find(|(r, _, _)| *r == d.reason) {
                Some((_, n, t)) => {
                    *n += 1;
                    *t = t.saturating_add(d.tokens);
                }
                None => reasons.push((d.reason, 1, d.tokens)),
            }
        }
        for (reason, n, tokens) in reasons {
            write!(
                f,
                "\n  dropped    {n:>8} messages, {tokens} tokens: {reason}"
            )?;
        }
        for assumption in &self.assumptions {
            write!(f, "\n  estimate: {assumption}")?;
        }
        Ok(())
    }
}
