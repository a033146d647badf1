//! What an edit run gives back: [`Edited`] (the report, what each message costs
//! now, and a planned compaction) and [`CompactionPlan`].

use std::ops::Range;

use super::report::EditReport;

/// A planned compaction: the span of messages a summary would replace, and the
/// room it may take.
///
/// The span is what the trimmer's dropping step would drop: whole units (a
/// message, or a tool call with its results), after the system messages and the
/// pinned task, before the latest user message (never inside a tool loop that
/// starts with thinking, which the provider needs whole), its end on a line of the
/// grid.
/// Hand `&messages[plan.span()]` to your summarizer (a model call, as long as it
/// takes), then [`ContextEditor::apply_summary`](super::ContextEditor::apply_summary).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompactionPlan {
    pub(super) span: Range<usize>,
    pub(super) span_tokens: usize,
    pub(super) room: usize,
    pub(super) planned_len: usize,
}

impl CompactionPlan {
    /// The messages the summary replaces: indices of the messages as edited (the
    /// edits before compaction never move a message).
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// What the span's messages cost now.
    pub fn span_tokens(&self) -> usize {
        self.span_tokens
    }

    /// What the summary message may cost, chat format overhead and the summary
    /// prefix included.
    pub fn room(&self) -> usize {
        self.room
    }
}

/// The outcome of an edit run: the report, what each message costs now, and the
/// compaction still to apply, if one was planned.
///
/// [`message_tokens`](Edited::message_tokens) lets the dropping step that follows
/// count nothing again (see [`Precounted`](super::Precounted)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub(super) report: EditReport,
    pub(super) tokens: Vec<usize>,
    pub(super) content: Vec<usize>,
    pub(super) compaction: Option<CompactionPlan>,
}

impl Edited {
    /// What was done.
    pub fn report(&self) -> &EditReport {
        &self.report
    }

    /// What was done, taken out.
    pub fn into_report(self) -> EditReport {
        self.report
    }

    /// What each message costs now, chat format overhead included, in the order
    /// of the edited messages.
    pub fn message_tokens(&self) -> &[usize] {
        &self.tokens
    }

    /// What each message's content costs now
    /// ([`ChatMessage::content_tokens`](crate::chat::ChatMessage::content_tokens)).
    pub fn content_tokens(&self) -> &[usize] {
        &self.content
    }

    /// What the messages cost now, reply priming included.
    pub fn tokens(&self) -> usize {
        self.report.tokens_after
    }

    /// Whether they fit the limit.
    pub fn fits(&self) -> bool {
        self.report.fits()
    }

    /// The compaction planned when the edits were not enough, until a summary is
    /// applied.
    pub fn compaction(&self) -> Option<&CompactionPlan> {
        self.compaction.as_ref()
    }
}
