//! The editing step of a fit: [`fit_edited`] drops the oldest units when edits
//! cannot be enough ([`plan_cut`]), runs the [editing engine](crate::chat::edit)
//! on the rest with the message budget, and [`trim_edited`] drops whole messages
//! after it, from the counts the engine made, with the task pinned.

use super::counted::{Counted, Counts};
use super::cut::plan_cut;
use super::trim::{Trim, TrimSetup, trim};
use crate::chat::edit::{ContextEditor, EditReport, Edited, Edits, Precounted};
use crate::chat::{ChatMessage, DropReason, Role, latest_user};
use crate::request::{DroppedRequestMessage, RequestError, WireRequest};

/// Edits and trims `request`'s messages for `setup`, with the task pinned when
/// `edits` pins it: counts every message once ([`Counts`]), drops the oldest
/// units when even every edit would not bring the messages under the trigger
/// ([`plan_cut`], with the hysteresis of the engine's band and grid), edits what
/// is left with the message budget (the limit less the fixed cost; no
/// compaction, the fitter has no summarizer) and drops whole messages after it as
/// [`trim_edited`] does.
///
/// Returns the trim (in the indices of the messages as they came in; the
/// request is not trimmed yet), the edit report (its message indices those of
/// the messages as they came in) and what the messages cost as they came in.
///
/// # Errors
///
/// As [`trim`].
pub(super) fn fit_edited<R: WireRequest>(
    request: &mut R,
    edits: &Edits,
    setup: TrimSetup<'_>,
) -> Result<(Trim, EditReport, usize), RequestError> {
    let TrimSetup {
        counter,
        format,
        limit,
        fixed,
        ..
    } = setup;
    let budget = limit.saturating_sub(fixed);
    let counts = Counts::of(request.messages(), counter, format);
    let pin = edits.pins_task();
    let task = pin.then(|| pinned_task(request.messages())).flatten();
    let cut = plan_cut(request.messages(), &counts, edits, counter, budget, task);
    let editor = ContextEditor::new(counter, budget)
        .with_format(format)
        .with_edits(edits.clone().compact(false));
    let edited = request.edit_messages(|messages| {
        let mut lent = Counted::lend(messages, &counts, cut.as_deref());
        editor.edit(&mut lent)
    });
    let messages = request.messages();
    let before = usize::try_from(counts.total).unwrap_or(usize::MAX);
    let Some(cut) = cut else {
        let trimmed = trim_edited(messages, &edited, pin, setup)?;
        return Ok((trimmed, edited.into_report(), before));
    };
    // The messages the engine edited, and where each came in.
    let kept: Vec<usize> = (0..messages.len()).filter(|&i| cut[i]).collect();
    let lent: Vec<&R::Message> = kept.iter().map(|&i| &messages[i]).collect();
    let mut trimmed = trim_edited(&lent, &edited, pin, setup)?;
    let mut report = edited.into_report();
    for edit in &mut report.edits {
        edit.message = kept.get(edit.message).copied().unwrap_or(edit.message);
    }
    let mut keep = vec![false; messages.len()];
    for (k, &i) in kept.iter().enumerate() {
        keep[i] = trimmed.keep.as_ref().is_none_or(|keep| keep[k]);
    }
    for dropped in &mut trimmed.dropped {
        dropped.index = kept.get(dropped.index).copied().unwrap_or(dropped.index);
    }
    trimmed
        .dropped
        .extend(
            (0..messages.len())
                .filter(|&i| !cut[i])
                .map(|i| DroppedRequestMessage {
                    index: i,
                    role: messages[i].role(),
                    tokens: Some(counts.tokens[i]),
                    reason: DropReason::OverBudget,
                }),
        );
    trimmed.dropped.sort_by_key(|d| d.index);
    trimmed.keep = Some(keep);
    Ok((trimmed, report, before))
}

/// Drops whole messages of the edited `messages` as [`trim`] does, counting
/// nothing again but the per-message overhead. With `pin`, the task (the first
/// user message, when an earlier one than the latest) is kept outside the trim,
/// its cost spent first, and the history after it need not start on a user
/// message; when even that does not fit, the task is trimmed as any message.
pub(super) fn trim_edited<M: ChatMessage>(
    messages: &[M],
    edited: &Edited,
    pin: bool,
    setup: TrimSetup<'_>,
) -> Result<Trim, RequestError> {
    trim_precounted(messages, edited.content_tokens(), pin, setup)
}

/// [`trim_edited`] with what each message's content costs given
/// (`content_tokens`, one entry per message).
pub(super) fn trim_precounted<M: ChatMessage>(
    messages: &[M],
    content_tokens: &[usize],
    pin: bool,
    setup: TrimSetup<'_>,
) -> Result<Trim, RequestError> {
    let wrapped = Precounted::wrap(messages, content_tokens);
    // Every message was counted: what a dropped one costs is known.
    let setup = TrimSetup {
        count_dropped: true,
        ..setup
    };
    if let Some(task) = pin.then(|| pinned_task(&wrapped)).flatten() {
        let task_tokens = setup.format.message_tokens(setup.counter, &wrapped[task]);
        let rest: Vec<Precounted<'_, M>> = (wrapped.iter().enumerate())
            .filter(|&(i, _)| i != task)
            .map(|(_, m)| Precounted {
                message: m.message,
                content_tokens: m.content_tokens,
            })
            .collect();
        let pinned = TrimSetup {
            fixed: setup.fixed.saturating_add(task_tokens),
            start_on_user: false,
            ..setup
        };
        if let Ok(trimmed) = trim(&rest, pinned) {
            return Ok(trimmed.with_pinned(task, task_tokens));
        }
    }
    trim(&wrapped, setup)
}

/// The task to pin: the first user message that carries more than tool results,
/// when it carries no result itself (it would leave its call behind) and is not
/// the latest user message (which the trim keeps anyway).
pub(super) fn pinned_task<M: ChatMessage>(messages: &[M]) -> Option<usize> {
    let task = messages
        .iter()
        .position(|m| m.role() == Role::User && m.carries_user_content())?;
    let latest = latest_user(messages)?;
    let no_results = messages[task].tool_result_ids().next().is_none();
    (task < latest && no_results).then_some(task)
}
