//! Context edits in a session: [`SessionEdits`] holds the [`Edits`] and the engine
//! calls for the session's message type, and [`ChatSession::with_edits`] turns
//! them on.

use super::ChatSession;
use crate::chat::edit::{ContextEditor, EditTotals, EditableMessage, Edited, Edits};
use crate::chat::edit::{MessageCount, Threshold};
use crate::chat::format::ChatFormat;
use crate::chat::message::ChatMessage;
use crate::chat::session::CutPolicy;
use crate::count::TokenCounter;

/// Counts a message once, as the engine takes it.
type CountFn<M, C> = fn(&M, &C, ChatFormat) -> MessageCount;

/// Runs the engine on a prompt whose messages are counted already.
type EditFn<M, C> = fn(&C, ChatFormat, usize, &Edits, &mut [M], &[MessageCount]) -> Edited;

/// The edits of a session, with the engine's calls for its message type: the
/// session works with any [`ChatMessage`], and only a session whose messages are
/// [`EditableMessage`]s can turn edits on, so the calls are made where that is
/// known ([`ChatSession::with_edits`]) and kept as plain function pointers.
#[derive(Debug, Clone)]
pub(super) struct SessionEdits<M, C> {
    pub(super) edits: Edits,
    pub(super) count: CountFn<M, C>,
    run: EditFn<M, C>,
}

fn count<M: EditableMessage, C: TokenCounter>(
    message: &M,
    counter: &C,
    format: ChatFormat,
) -> MessageCount {
    MessageCount::of(message, counter, format)
}

fn run<M: EditableMessage, C: TokenCounter>(
    counter: &C,
    format: ChatFormat,
    limit: usize,
    edits: &Edits,
    messages: &mut [M],
    counts: &[MessageCount],
) -> Edited {
    // The engine owns its counter: lend it the session's, as a trait object.
    let counter: &dyn TokenCounter = counter;
    ContextEditor::new(counter, limit)
        .with_format(format)
        .with_edits(edits.clone())
        .edit_counted(messages, counts)
}

impl<M, C> SessionEdits<M, C> {
    /// The edits the engine runs with under `policy`: the policy's low-water mark
    /// and grid where the edits keep the defaults, and no compaction plan (the
    /// session's cut and summary do that).
    fn resolved(&self, policy: CutPolicy, limit: usize) -> Edits {
        let mut edits = self.edits.clone().compact(false);
        if edits.low_water_threshold() == Some(Threshold::Share(Edits::DEFAULT_LOW_WATER)) {
            edits = edits.low_water(policy.low_water_tokens(limit));
        }
        #[allow(clippy::float_cmp)] // a default set as is, not a computed value
        if edits.grid_share() == Edits::DEFAULT_GRID {
            let grid = if policy.is_cache_stable() {
                policy.grid()
            } else {
                0.0
            };
            edits = edits.grid(grid);
        }
        edits
    }
}

impl<M: EditableMessage, C: TokenCounter> ChatSession<M, C> {
    /// Turns context edits on: when a prompt would not fit,
    /// [`prepare`](ChatSession::prepare) first sheds the bulk of old tool output
    /// and thinking, in place, and moves the cut only when that was not enough
    /// (see [Context edits](ChatSession#context-edits)). [`Edits::none`] turns
    /// them off again (the default: whole messages are dropped, nothing edited).
    ///
    /// Set it before the first push: messages pushed before are counted again,
    /// once, here.
    #[must_use]
    pub fn with_edits(mut self, edits: Edits) -> Self {
        if edits.is_none() {
            self.edit = None;
            self.counts = Vec::new();
            return self;
        }
        let edit = SessionEdits {
            edits,
            count: count::<M, C>,
            run: run::<M, C>,
        };
        self.counts = self
            .messages
            .iter()
            .map(|m| (edit.count)(m, &self.counter, self.format))
            .collect();
        self.edit = Some(edit);
        // The pinned task is kept from now on: what every prompt keeps changed.
        self.reindex();
        self
    }
}

impl<M: ChatMessage, C: TokenCounter> ChatSession<M, C> {
    /// The context edits, when they are on.
    pub fn edits(&self) -> Option<&Edits> {
        self.edit.as_ref().map(|e| &e.edits)
    }

    /// What the context edits did over the whole session: every prompt's totals
    /// added up.
    pub fn edit_totals(&self) -> EditTotals {
        self.edit_totals
    }

    /// Whether the first user message (the task) is kept in every prompt: with
    /// edits on and [`Edits::pin_task`] (the default).
    pub(super) fn pins_task(&self) -> bool {
        self.edit.as_ref().is_some_and(|e| e.edits.pins_task())
    }

    /// What `message` costs, and its counts for the engine when edits are on.
    pub(super) fn count_one(&self, message: &M) -> (usize, Option<MessageCount>) {
        match &self.edit {
            Some(edit) => {
                let count = (edit.count)(message, &self.counter, self.format);
                (count.tokens, Some(count))
            }
            None => (self.format.message_tokens(&self.counter, message), None),
        }
    }

    /// Runs the engine on the whole prompt, in place, with the counts made when
    /// the messages arrived; takes the edited messages' costs from the engine,
    /// and counts again only what it edited. Returns whether anything changed.
    pub(super) fn edit_prompt(&mut self) -> bool {
        let Some(edit) = &self.edit else {
            return false;
        };
        let edits = edit.resolved(self.policy, self.limit);
        let edited = (edit.run)(
            &self.counter,
            self.format,
            self.limit,
            &edits,
            &mut self.messages,
            &self.counts,
        );
        let mut touched: Vec<usize> = edited.report().edits.iter().map(|e| e.message).collect();
        touched.sort_unstable();
        touched.dedup();
        let tokens = edited.message_tokens();
        for &p in &touched {
            let (Some(message), Some(&now)) = (self.messages.get(p), tokens.get(p)) else {
                continue;
            };
            let mut count = (edit.count)(message, &self.counter, self.format);
            count.tokens = now;
            self.counts[p] = count;
            self.entries[p].tokens = now;
        }
        add_totals(&mut self.edit_totals, &edited.report().totals);
        self.edit_report = Some(edited.into_report());
        let Some(&first) = touched.first() else {
            return false;
        };
        self.dirty_from = self.dirty_from.min(first);
        self.retally();
        true
    }
}

/// `sum += more`, saturating.
fn add_totals(sum: &mut EditTotals, more: &EditTotals) {
    sum.cleared_tool_uses = sum.cleared_tool_uses.saturating_add(more.cleared_tool_uses);
    sum.cleared_input_tokens = sum
        .cleared_input_tokens
        .saturating_add(more.cleared_input_tokens);
    sum.truncated = sum.truncated.saturating_add(more.truncated);
    sum.thinking_dropped = sum.thinking_dropped.saturating_add(more.thinking_dropped);
    sum.summarized = sum.summarized.saturating_add(more.summarized);
    sum.saved_tokens = sum.saved_tokens.saturating_add(more.saved_tokens);
}
