//! [`ContextEditor`]: the steps, in order, each only as far as needed.

use super::cleared::ClearedResults;
use super::compact;
use super::editable::EditableMessage;
use super::error::EditError;
use super::ledger::{Ledger, Slot};
use super::options::Edits;
use super::outcome::{CompactionPlan, Edited};
use super::precounted::MessageCount;
use super::report::{AppliedEdit, EditKind, EditReport};
use super::truncate::truncate;
use crate::chat::{ChatFormat, Message, Role, ToolCall};
use crate::count::TokenCounter;

/// The context-editing engine: counts a history once, then sheds the bulk of old
/// tool output and thinking, in place, before anything is dropped. See
/// [the module docs](super) for the steps and the defaults.
///
/// ```
/// use ctxbudget::{Message, chat::ToolCall};
/// use ctxbudget::chat::edit::{ContextEditor, Edits};
///
/// let words = |t: &str| t.split_whitespace().count();
/// let mut history = vec![Message::user("Fix the failing test.")];
/// for i in 0..8 {
///     let id = format!("call_{i}");
///     history.push(Message::assistant("").with_tool_call(ToolCall::new(&id, "run_tests", "{}")));
///     history.push(Message::tool(&id, "FAILED test_parse ".repeat(40)));
/// }
/// let editor = ContextEditor::new(words, 450).with_edits(Edits::default().no_truncation());
/// let edited = editor.edit(&mut history);
/// assert!(edited.fits());
/// assert_eq!(history.len(), 17); // every message kept
/// assert_eq!(history[2].content, Edits::DEFAULT_PLACEHOLDER);
/// assert_eq!(history[16].content, "FAILED test_parse ".repeat(40)); // the newest stays
/// assert_eq!(edited.report().totals.cleared_tool_uses, edited.report().edits.len());
/// ```
#[derive(Debug, Clone)]
pub struct ContextEditor<C> {
    counter: C,
    format: ChatFormat,
    limit: usize,
    edits: Edits,
}

impl<C: TokenCounter> ContextEditor<C> {
    /// An editor that counts with `counter` in the OpenAI chat format and edits
    /// histories to fit `limit` tokens (reply priming included), with the default
    /// [`Edits`].
    pub fn new(counter: C, limit: usize) -> Self {
        Self {
            counter,
            format: ChatFormat::openai(),
            limit,
            edits: Edits::default(),
        }
    }

    /// Sets the chat format whose overhead is counted.
    #[must_use]
    pub fn with_format(mut self, format: ChatFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets the edits.
    #[must_use]
    pub fn with_edits(mut self, edits: Edits) -> Self {
        self.edits = edits;
        self
    }

    /// The counter.
    pub fn counter(&self) -> &C {
        &self.counter
    }

    /// The chat format.
    pub fn format(&self) -> ChatFormat {
        self.format
    }

    /// The limit for the messages, reply priming included.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The edits.
    pub fn edits(&self) -> &Edits {
        &self.edits
    }

    /// Edits `messages` in place: drops old thinking, truncates oversized tool
    /// results, clears old ones, each step only when the ones before were not
    /// enough; then plans a compaction if still over (see
    /// [`Edited::compaction`]). No message is removed or moved.
    pub fn edit<M: EditableMessage>(&self, messages: &mut [M]) -> Edited {
        self.run(messages, None, None)
    }

    /// [`edit`](ContextEditor::edit) with the messages counted already: `counts`
    /// holds one [`MessageCount`] per message, in order (made with the same
    /// counter and format), and only what the edits write is counted. With a
    /// `counts` of another length, every message is counted as `edit` does.
    pub fn edit_counted<M: EditableMessage>(
        &self,
        messages: &mut [M],
        counts: &[MessageCount],
    ) -> Edited {
        self.run(messages, Some(counts), None)
    }

    /// [`edit`](ContextEditor::edit) for a history that lives on (a
    /// [`ChatSession`](crate::chat::ChatSession)): the results in `cleared` are
    /// cleared first, whatever the trigger, and every result this run clears is
    /// added to it.
    pub fn edit_sticky<M: EditableMessage>(
        &self,
        messages: &mut [M],
        cleared: &mut ClearedResults,
    ) -> Edited {
        self.run(messages, None, Some(cleared))
    }

    /// [`edit`](ContextEditor::edit), then, when a compaction is planned, calls
    /// `summarize` with the span's messages and the plan, and puts the summary it
    /// returns in their place (see [`apply_summary`](ContextEditor::apply_summary)).
    /// A summarizer that returns `None` or an empty text leaves the span for the
    /// dropping step.
    ///
    /// ```
    /// use ctxbudget::{Message, chat::ToolCall};
    /// use ctxbudget::chat::edit::{ContextEditor, Edits};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let mut history = vec![Message::system("Be brief."), Message::user("Plan a trip.")];
    /// for i in 0..20 {
    ///     history.push(Message::assistant(format!("Step {i}: ").repeat(20)));
    ///     history.push(Message::user(format!("Go on with step {i}.")));
    /// }
    /// let editor = ContextEditor::new(words, 300);
    /// let edited = editor.edit_summarizing(&mut history, |span, plan| {
    ///     Some(format!("{} messages about the first steps.", span.len()))
    /// })?;
    /// assert!(edited.fits());
    /// let summary = edited.report().compaction.clone().unwrap();
    /// assert!(history[summary.summary_index].content.contains("messages about the first steps"));
    /// assert_eq!(history[1].content, "Plan a trip."); // the task stays
    /// # Ok::<(), ctxbudget::chat::edit::EditError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`EditError::SummaryOverRoom`] when the summary costs more than the room
    /// the plan left; the messages are then as the other edits left them.
    pub fn edit_summarizing<M, F>(
        &self,
        messages: &mut Vec<M>,
        summarize: F,
    ) -> Result<Edited, EditError>
    where
        M: EditableMessage,
        F: FnOnce(&[M], &CompactionPlan) -> Option<String>,
    {
        let mut edited = self.run(messages, None, None);
        if let Some(plan) = edited.compaction.clone() {
            match summarize(&messages[plan.span()], &plan) {
                Some(summary) => {
                    self.apply_summary(messages, &mut edited, &summary)?;
                }
                None => edited.compaction = None,
            }
        }
        Ok(edited)
    }

    /// Puts `summary` in place of the span `edited`'s compaction planned, marked
    /// with the summary prefix: merged into the next message when the message type
    /// wants it ([`EditableMessage::prepend_summary`]), else as a user message of
    /// its own. The second step of the two-step API, for summarizers that are
    /// `async`:
    ///
    /// ```
    /// use ctxbudget::Message;
    /// use ctxbudget::chat::edit::ContextEditor;
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let mut history = vec![Message::user("Plan a trip.")];
    /// for i in 0..20 {
    ///     history.push(Message::assistant("a long step of the plan ".repeat(4)));
    ///     history.push(Message::user(format!("Go on with step {i}.")));
    /// }
    /// let editor = ContextEditor::new(words, 300);
    /// let mut edited = editor.edit(&mut history);
    /// let plan = edited.compaction().cloned().expect("over the limit");
    /// // let summary = my_model.summarize(&history[plan.span()]).await;
    /// let summary = format!("The first {} messages planned the trip.", plan.span().len());
    /// assert!(editor.apply_summary(&mut history, &mut edited, &summary)?);
    /// assert!(edited.fits());
    /// assert_eq!(edited.report().totals.summarized, plan.span().len());
    /// # Ok::<(), ctxbudget::chat::edit::EditError>(())
    /// ```
    ///
    /// Returns `false`, changing nothing, when no compaction is planned or the
    /// summary is empty (the plan is then dropped).
    ///
    /// # Errors
    ///
    /// [`EditError::SummaryOverRoom`] when the summary message costs more than
    /// [`CompactionPlan::room`] (the plan stays, for a shorter summary);
    /// [`EditError::StalePlan`] when the number of messages changed since the plan.
    pub fn apply_summary<M: EditableMessage>(
        &self,
        messages: &mut Vec<M>,
        edited: &mut Edited,
        summary: &str,
    ) -> Result<bool, EditError> {
        compact::apply(
            messages,
            edited,
            summary,
            &self.counter,
            self.format,
            self.edits.summary_prefix_text(),
        )
    }

    fn run<M: EditableMessage>(
        &self,
        messages: &mut [M],
        counts: Option<&[MessageCount]>,
        cleared: Option<&mut ClearedResults>,
    ) -> Edited {
        let edits = &self.edits;
        let limit = self.limit;
        let mut run = Run {
            counter: &self.counter,
            format: self.format,
            edits,
            ledger: Ledger::count(
                messages,
                counts,
                &self.counter,
                self.format,
                edits.pins_task(),
                |tool| edits.is_excluded(tool),
            ),
            applied: Vec::new(),
            limit,
        };
        if let Some(cleared) = cleared.as_deref() {
            run.clear_sticky(messages, cleared);
        }
        let trigger = edits.trigger_threshold().tokens(limit).min(limit) as u128;
        let low = edits
            .low_water_threshold()
            .map_or(trigger, |low| (low.tokens(limit) as u128).min(trigger));
        let mut compaction = None;
        if run.ledger.total > trigger {
            run.drop_thinking(messages);
        }
        if run.ledger.total > trigger {
            run.truncate(messages);
        }
        if run.ledger.total > trigger {
            run.clear(messages, trigger, trigger - low);
        }
        if run.ledger.total > trigger && edits.compacts() {
            let target = usize::try_from(low).unwrap_or(usize::MAX);
            let reserve = edits.summary_room_threshold().tokens(limit);
            compaction = compact::plan(
                messages,
                &run.ledger,
                target,
                reserve,
                edits.grid_tokens(limit),
            );
        }
        if let Some(cleared) = cleared {
            for slot in run.ledger.results.iter().filter(|s| s.cleared) {
                if !cleared.contains(&slot.call_id) {
                    cleared.insert(slot.call_id.clone());
                }
            }
        }
        let mut report = EditReport {
            edits: run.applied,
            tokens_before: run.ledger.before_tokens(),
            tokens_after: run.ledger.total_tokens(),
            limit,
            ..EditReport::default()
        };
        report.total();
        Edited {
            report,
            tokens: run.ledger.tokens,
            content: run.ledger.content,
            compaction,
        }
    }
}

/// One edit run: the counts, and the edits made so far.
struct Run<'a, C> {
    counter: &'a C,
    format: ChatFormat,
    edits: &'a Edits,
    ledger: Ledger,
    applied: Vec<AppliedEdit>,
    /// The limit shares are taken of.
    limit: usize,
}

impl<C: TokenCounter> Run<'_, C> {
    fn record(
        &mut self,
        kind: EditKind,
        message: usize,
        slot: Option<&Slot>,
        before: usize,
        after: usize,
    ) {
        self.applied.push(AppliedEdit {
            kind,
            message,
            tool: slot.and_then(|s| s.tool.clone()),
            call_id: slot.map(|s| s.call_id.clone()),
            tokens_before: before,
            tokens_after: after,
            sticky: false,
        });
    }

    /// Clears again the results cleared in earlier runs.
    fn clear_sticky<M: EditableMessage>(&mut self, messages: &mut [M], cleared: &ClearedResults) {
        for j in 0..self.ledger.results.len() {
            let slot = &self.ledger.results[j];
            if slot.frozen || !cleared.contains(&slot.call_id) {
                continue;
            }
            if self.clear_one(messages, j) {
                if let Some(edit) = self.applied.last_mut() {
                    edit.sticky = true;
                }
            }
        }
    }

    /// Step 1: drops the thinking of every assistant message before the latest user
    /// turn (the turn in progress keeps its signed thinking).
    fn drop_thinking<M: EditableMessage>(&mut self, messages: &mut [M]) {
        if !self.edits.drops_old_thinking() {
            return;
        }
        let Some(latest) = self.ledger.latest_turn else {
            return;
        };
        for (i, message) in messages.iter_mut().enumerate().take(latest) {
            let before = self.ledger.thinking[i];
            if before == 0 || message.role() != Role::Assistant || !message.drop_thinking() {
                continue;
            }
            self.ledger.thinking[i] = 0;
            self.ledger.reprice(i, before, 0);
            self.record(EditKind::DropThinking, i, None, before, 0);
        }
    }

    /// Step 2: images and documents of old results become a placeholder, and every
    /// result over the largest size keeps its head and tail.
    fn truncate<M: EditableMessage>(&mut self, messages: &mut [M]) {
        let Some(max) = self.edits.max_tool_result_tokens() else {
            return;
        };
        let limit = self.limit;
        let max = max.tokens(limit);
        let old = self.ledger.recent_from(
            self.edits
                .keep_tool_results()
                .unwrap_or(Edits::DEFAULT_KEEP),
        );
        for j in 0..self.ledger.results.len() {
            if self.ledger.results[j].frozen {
                continue;
            }
            if j < old && self.ledger.results[j].media > 0 {
                self.replace_media(messages, j);
            }
            if self.ledger.results[j].share > max {
                self.truncate_one(messages, j, max);
            }
        }
    }

    fn replace_media<M: EditableMessage>(&mut self, messages: &mut [M], j: usize) {
        let (at, index, before, media) = {
            let s = &self.ledger.results[j];
            (s.message, s.index, s.share, s.media)
        };
        let message = &mut messages[at];
        let placeholder = self.edits.media_placeholder_text();
        // What the result would cost with placeholders for its media: its texts, the
        // placeholders and its other parts (counted as what is left of its share).
        let Some(view) = message.tool_result(index) else {
            return;
        };
        let texts = view
            .texts
            .iter()
            .fold(0usize, |sum, t| sum.saturating_add(self.counter.count(t)));
        let placeholders = self.counter.count(placeholder).saturating_mul(media);
        let estimate = message.tool_result_tokens_with(
            index,
            texts.saturating_add(placeholders),
            self.counter,
        );
        if estimate >= before || !message.replace_tool_result_media(index, placeholder) {
            return;
        }
        let after = message.tool_result_tokens(index, self.counter);
        self.ledger.results[j].share = after;
        self.ledger.results[j].media = 0;
        self.ledger.reprice(at, before, after);
        let slot = self.ledger.results[j].clone();
        self.record(EditKind::ReplaceToolMedia, at, Some(&slot), before, after);
    }

    fn truncate_one<M: EditableMessage>(&mut self, messages: &mut [M], j: usize, max: usize) {
        let (at, index, before) = {
            let s = &self.ledger.results[j];
            (s.message, s.index, s.share)
        };
        let message = &mut messages[at];
        let Some(view) = message.tool_result(index) else {
            return;
        };
        let counts: Vec<usize> = view.texts.iter().map(|t| self.counter.count(t)).collect();
        let text_total = counts.iter().fold(0usize, |s, &t| s.saturating_add(t));
        let other = before.saturating_sub(text_total);
        let Some(room) = max.checked_sub(other).filter(|&r| r > 0) else {
            return;
        };
        let mut cuts = Vec::new();
        let mut predicted = other;
        for (part, (text, &tokens)) in view.texts.iter().zip(&counts).enumerate() {
            // Each text part keeps its share of the room.
            let budget = usize::try_from(room as u128 * tokens as u128 / text_total.max(1) as u128)
                .unwrap_or(usize::MAX);
            match truncate(text, tokens, budget, self.counter, self.edits) {
                Some((cut, cut_tokens)) => {
                    predicted = predicted.saturating_add(cut_tokens);
                    cuts.push((part, cut));
                }
                None => predicted = predicted.saturating_add(tokens),
            }
        }
        if cuts.is_empty() || predicted >= before {
            return;
        }
        let mut changed = false;
        for (part, cut) in cuts {
            changed |= message.set_tool_result_text(index, part, cut);
        }
        if !changed {
            return;
        }
        let after = message.tool_result_tokens(index, self.counter);
        self.ledger.results[j].share = after;
        self.ledger.reprice(at, before, after);
        let slot = self.ledger.results[j].clone();
        self.record(EditKind::TruncateToolResult, at, Some(&slot), before, after);
    }

    /// Step 3: clears the old results, oldest first, up to the first line of the
    /// grid where they save what brings the messages under `trigger`, rounded up
    /// to a multiple of `band` (and at least `clear_at_least`).
    fn clear<M: EditableMessage>(&mut self, messages: &mut [M], trigger: u128, band: u128) {
        let Some(keep) = self.edits.keep_tool_results() else {
            return;
        };
        let grid = self.edits.grid_tokens(self.limit) as u128;
        let at_least = self.edits.clear_at_least_threshold().tokens(self.limit) as u128;
        let placeholder = self.counter.count(self.edits.placeholder_text());
        let old = self.ledger.recent_from(keep);
        // Each candidate with what clearing it would save, in history order.
        let mut savings: Vec<(usize, u128)> = Vec::new();
        for j in 0..old {
            let slot = &self.ledger.results[j];
            if slot.frozen || slot.cleared {
                continue;
            }
            let message = &messages[slot.message];
            let after = message.tool_result_tokens_with(slot.index, placeholder, self.counter);
            let mut saving = slot.share.saturating_sub(after) as u128;
            if saving == 0 {
                continue;
            }
            if self.edits.clears_tool_inputs() {
                saving += self.input_saving(messages, slot) as u128;
            }
            savings.push((j, saving));
        }
        // The excess, rounded up to the band: the same for every request whose
        // excess falls in the same band, so that a growing conversation gets the
        // same edits turn after turn.
        let excess = self.ledger.total.saturating_sub(trigger);
        let need = if band == 0 {
            excess
        } else {
            excess.div_ceil(band).saturating_mul(band)
        }
        .max(at_least);
        let bucket = |j: usize| {
            let offset = self.ledger.offsets[self.ledger.results[j].message];
            offset.checked_div(grid).unwrap_or(j as u128)
        };
        let mut saved: u128 = 0;
        let mut chosen = None;
        for (k, &(j, saving)) in savings.iter().enumerate() {
            saved += saving;
            let last_of_bucket = savings
                .get(k + 1)
                .is_none_or(|&(next, _)| bucket(next) != bucket(j));
            if last_of_bucket && saved >= need {
                chosen = Some(k + 1);
                break;
            }
        }
        let count = match chosen {
            Some(count) => count,
            None if saved >= at_least => savings.len(),
            None => 0,
        };
        for &(j, _) in &savings[..count] {
            self.clear_one(messages, j);
        }
    }

    /// What clearing the arguments of `slot`'s call would save, as the format
    /// counts them.
    fn input_saving<M: EditableMessage>(&self, messages: &[M], slot: &Slot) -> usize {
        let Some(call) = slot.call else {
            return 0;
        };
        let Some(found) = messages[call].tool_calls().find(|c| c.id == slot.call_id) else {
            return 0;
        };
        let with = |arguments: &str| {
            let probe =
                Message::assistant("").with_tool_call(ToolCall::new("", found.name, arguments));
            self.format.message_overhead(self.counter, &probe)
        };
        with(found.arguments).saturating_sub(with("{}"))
    }

    /// Clears result `j` (and its call's arguments, when asked); returns whether
    /// anything changed.
    fn clear_one<M: EditableMessage>(&mut self, messages: &mut [M], j: usize) -> bool {
        let slot = self.ledger.results[j].clone();
        let message = &mut messages[slot.message];
        let before = slot.share;
        let placeholder = self.edits.placeholder_text();
        let placeholder_tokens = self.counter.count(placeholder);
        if message.tool_result_tokens_with(slot.index, placeholder_tokens, self.counter) >= before
            || !message.replace_tool_result(slot.index, placeholder)
        {
            return false;
        }
        let after = message.tool_result_tokens(slot.index, self.counter);
        self.ledger.results[j].share = after;
        self.ledger.results[j].cleared = true;
        self.ledger.reprice(slot.message, before, after);
        // A result truncated in this run is reported once, cleared, from its size
        // as it came in.
        let mut original = before;
        self.applied.retain(|e| {
            let same = e.message == slot.message
                && e.call_id.as_deref() == Some(slot.call_id.as_str())
                && matches!(
                    e.kind,
                    EditKind::TruncateToolResult | EditKind::ReplaceToolMedia
                );
            if same {
                original = original.max(e.tokens_before);
            }
            !same
        });
        self.record(
            EditKind::ClearToolResult,
            slot.message,
            Some(&slot),
            original,
            after,
        );
        if self.edits.clears_tool_inputs() && self.input_saving(messages, &slot) > 0 {
            if let Some(call) = slot.call {
                self.clear_input(messages, call, &slot);
            }
        }
        true
    }

    fn clear_input<M: EditableMessage>(&mut self, messages: &mut [M], call: usize, slot: &Slot) {
        let message = &mut messages[call];
        if !message.clear_tool_input(&slot.call_id) {
            return;
        }
        let content = self.ledger.content[call];
        let overhead = self.ledger.tokens[call].saturating_sub(content);
        let now = self.format.message_overhead(self.counter, &*message);
        self.ledger.set(call, content, now.saturating_add(content));
        let after = self.counter.count("{}");
        let before = overhead.saturating_sub(now).saturating_add(after);
        self.record(EditKind::ClearToolInput, call, Some(slot), before, after);
    }
}
