//! The editing step of a fit: [`edit`] runs the [editing engine](crate::chat::edit)
//! on a request's messages with the message budget, and [`trim_edited`] drops
//! whole messages after it, from the counts the engine made, with the task pinned.

use super::trim::{Trim, TrimSetup, trim};
use crate::chat::edit::{ContextEditor, Edited, Edits, Precounted};
use crate::chat::{ChatFormat, ChatMessage, Role, latest_user};
use crate::count::TokenCounter;
use crate::request::{RequestError, WireRequest};

/// Edits `request`'s messages in place to fit `budget` tokens (the limit less the
/// fixed cost). The fitter has no summarizer, so no compaction is planned.
pub(super) fn edit<R: WireRequest>(
    request: &mut R,
    edits: &Edits,
    counter: &dyn TokenCounter,
    format: ChatFormat,
    budget: usize,
) -> Edited {
    let editor = ContextEditor::new(counter, budget)
        .with_format(format)
        .with_edits(edits.clone().compact(false));
    request.edit_messages(|messages| editor.edit(messages))
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
    let wrapped = Precounted::wrap(messages, edited.content_tokens());
    // Every message was counted by the engine: what a dropped one costs is known.
    let setup = TrimSetup {
        count_dropped: true,
        ..setup
    };
    if let Some(task) = pin.then(|| pinned_task(&wrapped)).flatten() {
        let task_tokens = edited.message_tokens().get(task).copied().unwrap_or(0);
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
fn pinned_task<M: ChatMessage>(messages: &[M]) -> Option<usize> {
    let task = messages
        .iter()
        .position(|m| m.role() == Role::User && m.carries_user_content())?;
    let latest = latest_user(messages)?;
    let no_results = messages[task].tool_result_ids().next().is_none();
    (task < latest && no_results).then_some(task)
}
