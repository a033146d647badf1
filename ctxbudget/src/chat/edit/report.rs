//! What the engine did: each edit ([`AppliedEdit`], [`EditKind`]), the totals
//! ([`EditTotals`], as Anthropic's `applied_edits`), the compaction
//! ([`CompactionReport`]) and all of it together ([`EditReport`]).

use std::fmt;
use std::ops::Range;

/// What one edit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "snake_case")
)]
#[non_exhaustive]
pub enum EditKind {
    /// The thinking blocks of an earlier assistant turn were dropped.
    DropThinking,
    /// A tool result over the largest size kept its head and tail around a marker.
    TruncateToolResult,
    /// The images and documents of an old tool result became a placeholder text.
    ReplaceToolMedia,
    /// A tool result's content became the placeholder.
    ClearToolResult,
    /// A tool call's arguments became `{}`.
    ClearToolInput,
    /// A span of messages became one summary.
    Summarize,
}

impl EditKind {
    /// The kind's name in snake case, as JSON reports write it.
    pub fn as_str(self) -> &'static str {
        match self {
            EditKind::DropThinking => "drop_thinking",
            EditKind::TruncateToolResult => "truncate_tool_result",
            EditKind::ReplaceToolMedia => "replace_tool_media",
            EditKind::ClearToolResult => "clear_tool_result",
            EditKind::ClearToolInput => "clear_tool_input",
            EditKind::Summarize => "summarize",
        }
    }
}

impl fmt::Display for EditKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One edit: where, of what tool, and what the edited part cost before and after.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct AppliedEdit {
    /// What was done.
    pub kind: EditKind,
    /// The index of the edited message in the messages as they came in (for
    /// [`Summarize`](EditKind::Summarize), the first message of the span).
    pub message: usize,
    /// The tool whose result or call was edited, when known.
    pub tool: Option<String>,
    /// The call id of the edited result or call.
    pub call_id: Option<String>,
    /// What the edited part cost before: a result's share of its message, the
    /// thinking blocks, a call's arguments, the span's messages.
    pub tokens_before: usize,
    /// What it costs after.
    pub tokens_after: usize,
    /// Whether the edit repeats one made before ([sticky](super::ClearedResults)).
    pub sticky: bool,
}

impl AppliedEdit {
    /// The tokens the edit saved.
    pub fn saved(&self) -> usize {
        self.tokens_before.saturating_sub(self.tokens_after)
    }
}

/// The totals, named as in Anthropic's `applied_edits`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct EditTotals {
    /// Tool results cleared (Anthropic's `cleared_tool_uses`).
    pub cleared_tool_uses: usize,
    /// The tokens clearing saved, results and arguments together (Anthropic's
    /// `cleared_input_tokens`).
    pub cleared_input_tokens: usize,
    /// Tool results truncated or stripped of their images and documents.
    pub truncated: usize,
    /// Assistant messages whose thinking was dropped.
    pub thinking_dropped: usize,
    /// Messages replaced by a summary.
    pub summarized: usize,
    /// The tokens every edit together saved.
    pub saved_tokens: usize,
}

/// Where a compaction put its summary.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct CompactionReport {
    /// The messages the summary replaced, as indices of the messages as they came
    /// in.
    pub span: Range<usize>,
    /// The summary's index in the edited messages (the message it was merged into,
    /// when [`merged`](CompactionReport::merged)).
    pub summary_index: usize,
    /// Whether the summary went into the next user message rather than a message
    /// of its own (Anthropic, where two user messages in a row would not
    /// alternate).
    pub merged: bool,
}

/// What the engine did to the messages: each edit, the totals, the tokens before
/// and after.
///
/// A message that no edit names is exactly as it came in; an edited one differs
/// only in the edited part.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct EditReport {
    /// Every edit, in the order made (the steps' order, then message order).
    pub edits: Vec<AppliedEdit>,
    /// The totals.
    pub totals: EditTotals,
    /// What the messages cost before, reply priming included.
    pub tokens_before: usize,
    /// What they cost after.
    pub tokens_after: usize,
    /// The limit they were edited for.
    pub limit: usize,
    /// The compaction, if a summary was put in.
    pub compaction: Option<CompactionReport>,
}

impl EditReport {
    /// Whether any message was changed.
    pub fn edited(&self) -> bool {
        !self.edits.is_empty()
    }

    /// Whether the messages fit the limit after the edits.
    pub fn fits(&self) -> bool {
        self.tokens_after <= self.limit
    }

    /// The index in the edited messages of the input message `index`; `None` for a
    /// message a summary replaced.
    pub fn output_index(&self, index: usize) -> Option<usize> {
        match &self.compaction {
            None => Some(index),
            Some(c) if index < c.span.start => Some(index),
            Some(c) if index < c.span.end => None,
            Some(c) => {
                let shift = c.span.len() - usize::from(!c.merged);
                Some(index - shift)
            }
        }
    }

    /// The edits made to the input message `index`.
    pub fn edits_of(&self, index: usize) -> impl Iterator<Item = &AppliedEdit> {
        self.edits.iter().filter(move |e| e.message == index)
    }

    /// Recomputes the totals from the edits.
    pub(super) fn total(&mut self) {
        let mut totals = EditTotals::default();
        for edit in &self.edits {
            let saved = edit.saved();
            totals.saved_tokens = totals.saved_tokens.saturating_add(saved);
            match edit.kind {
                EditKind::DropThinking => totals.thinking_dropped += 1,
                EditKind::TruncateToolResult | EditKind::ReplaceToolMedia => totals.truncated += 1,
                EditKind::ClearToolResult => {
                    totals.cleared_tool_uses += 1;
                    totals.cleared_input_tokens = totals.cleared_input_tokens.saturating_add(saved);
                }
                EditKind::ClearToolInput => {
                    totals.cleared_input_tokens = totals.cleared_input_tokens.saturating_add(saved);
                }
                EditKind::Summarize => {
                    totals.summarized = totals
                        .summarized
                        .saturating_add(self.compaction.as_ref().map_or(0, |c| c.span.len()));
                }
            }
        }
        self.totals = totals;
    }
}

impl fmt::Display for EditReport {
    /// One line of totals, then one line per edit.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.totals;
        writeln!(
            f,
            "edits: {} -> {} tokens (limit {}): {} tool results cleared ({} tokens), {} truncated, thinking dropped in {}, {} messages summarized",
            self.tokens_before,
            self.tokens_after,
            self.limit,
            t.cleared_tool_uses,
            t.cleared_input_tokens,
            t.truncated,
            t.thinking_dropped,
            t.summarized,
        )?;
        for edit in &self.edits {
            write!(
                f,
                "  message {:>4}  {:<20} {:>7} -> {:<7}",
                edit.message, edit.kind, edit.tokens_before, edit.tokens_after
            )?;
            if let Some(tool) = &edit.tool {
                write!(f, " {tool}")?;
            }
            if edit.sticky {
                f.write_str(" (again)")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
