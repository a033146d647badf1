//! Compaction: plan the span the dropping step would drop ([`plan`]), and put a
//! summary in its place ([`apply`]).

use super::editable::EditableMessage;
use super::error::EditError;
use super::ledger::Ledger;
use super::outcome::{CompactionPlan, Edited};
use super::report::{AppliedEdit, CompactionReport, EditKind};
use crate::chat::{ChatFormat, ChatMessage, Role};
use crate::count::TokenCounter;

/// Whether a cut before `message` leaves no result apart from its call: results
/// follow their call directly, so any message that is not a result starts a unit.
fn starts_unit<M: ChatMessage>(message: &M) -> bool {
    message.role() != Role::Tool && message.tool_result_ids().next().is_none()
}

/// The span to summarize so that the rest, with `reserve` tokens for the summary,
/// costs at most `target`; `None` when no span can.
///
/// The span starts after the pinned task and the system messages before it, holds
/// no system message, and ends before the latest user message (or, when that is
/// the task, before the last unit, unless the tool loop after it starts with
/// thinking and so is one unit), at the first unit boundary at or after a line of
/// the grid (`grid` tokens apart, over the messages as they came in).
pub(super) fn plan<M: EditableMessage>(
    messages: &[M],
    ledger: &Ledger,
    target: usize,
    reserve: usize,
    grid: usize,
) -> Option<CompactionPlan> {
    let n = messages.len();
    let mut start = ledger.task.map_or(0, |t| t + 1);
    while start < n && messages[start].role() == Role::System {
        start += 1;
    }
    let last_unit = (0..n).rev().find(|&i| starts_unit(&messages[i]))?;
    let bound = match ledger.latest_turn {
        Some(latest) if latest >= start => latest,
        // A tool loop that starts with thinking is one unit: no cut inside it.
        Some(latest)
            if messages
                .get(latest + 1)
                .is_some_and(ChatMessage::starts_with_thinking) =>
        {
            return None;
        }
        _ => last_unit,
    };
    let limit = (target as u128).saturating_sub(reserve as u128);
    let mut span: u128 = 0;
    let mut line = 0u128;
    for (cut, message) in messages.iter().enumerate().take(bound + 1).skip(start) {
        if cut > start && starts_unit(message) {
            let offset = ledger.offsets[cut];
            let on_grid = grid == 0 || offset >= line || cut == bound;
            let rest = ledger.total.saturating_sub(span);
            if on_grid && rest <= limit {
                let rest = usize::try_from(rest).unwrap_or(usize::MAX);
                return Some(CompactionPlan {
                    span: start..cut,
                    span_tokens: usize::try_from(span).unwrap_or(usize::MAX),
                    room: target.saturating_sub(rest),
                    planned_len: n,
                });
            }
            if grid > 0 && offset >= line {
                // The next line of the grid after this cut.
                line = (offset / grid as u128)
                    .saturating_add(1)
                    .saturating_mul(grid as u128);
            }
        }
        if cut == bound {
            break;
        }
        if message.role() == Role::System {
            return None;
        }
        span += ledger.tokens[cut] as u128;
    }
    None
}

/// Puts `text` in place of the planned span: merged into the next message when it
/// takes it ([`EditableMessage::prepend_summary`]), else as a message of its own.
pub(super) fn apply<M, C>(
    messages: &mut Vec<M>,
    edited: &mut Edited,
    text: &str,
    counter: &C,
    format: ChatFormat,
    prefix: &str,
) -> Result<bool, EditError>
where
    M: EditableMessage,
    C: TokenCounter + ?Sized,
{
    let Some(plan) = edited.compaction.as_ref() else {
        return Ok(false);
    };
    if messages.len() != plan.planned_len {
        return Err(EditError::StalePlan {
            planned: plan.planned_len,
            now: messages.len(),
        });
    }
    if text.trim().is_empty() {
        edited.compaction = None;
        return Ok(false);
    }
    let full = format!("{prefix}{text}");
    let summary = M::summary(full.clone());
    let alone = format.message_tokens(counter, &summary);
    if alone > plan.room {
        return Err(EditError::SummaryOverRoom {
            tokens: alone,
            room: plan.room,
            over: alone - plan.room,
        });
    }
    let Some(plan) = edited.compaction.take() else {
        return Ok(false);
    };
    let span = plan.span.clone();
    let next = span.end;
    let merged = next < messages.len() && messages[next].prepend_summary(&full);
    let (summary_tokens, summary_at) = if merged {
        let content = messages[next].content_tokens(counter);
        let tokens = format
            .message_overhead(counter, &messages[next])
            .saturating_add(content);
        let added = tokens.saturating_sub(edited.tokens[next]);
        edited.tokens[next] = tokens;
        edited.content[next] = content;
        messages.drain(span.clone());
        edited.tokens.drain(span.clone());
        edited.content.drain(span.clone());
        (added, span.start)
    } else {
        messages.splice(span.clone(), std::iter::once(summary));
        edited.tokens.splice(span.clone(), std::iter::once(alone));
        let content = alone.saturating_sub(format.message_overhead(counter, &messages[span.start]));
        edited
            .content
            .splice(span.clone(), std::iter::once(content));
        (alone, span.start)
    };
    let report = &mut edited.report;
    report.edits.retain(|e| !span.contains(&e.message));
    report.edits.push(AppliedEdit {
        kind: EditKind::Summarize,
        message: span.start,
        tool: None,
        call_id: None,
        tokens_before: plan.span_tokens,
        tokens_after: summary_tokens,
        sticky: false,
    });
    report.tokens_after = report
        .tokens_after
        .saturating_sub(plan.span_tokens)
        .saturating_add(summary_tokens);
    report.compaction = Some(CompactionReport {
        span,
        summary_index: summary_at,
        merged,
    });
    report.total();
    Ok(true)
}
