//! [`plan_cut`]: with edits on, the oldest whole units to drop before editing,
//! when even every edit would leave the messages over the trigger: what they
//! would cost edited over the low-water mark, rounded up to the band between the
//! trigger and that mark, the cut on a line of the grid. Every request whose
//! excess falls in one band drops the same oldest units, so the turns of a growing
//! conversation keep the same prefix.

use std::collections::HashMap;

use super::counted::Counts;
use crate::chat::edit::{EditableMessage, Edits, Threshold};
use crate::chat::{ChatMessage, Role, latest_user};
use crate::count::TokenCounter;

/// Whether a cut before `message` leaves no result apart from its call: results
/// follow their call directly, so any message that is not a result starts a unit.
fn starts_unit<M: ChatMessage>(message: &M) -> bool {
    message.role() != Role::Tool && message.tool_result_ids().next().is_none()
}

/// The band, the trigger and the grid of `edits`, in tokens of `budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hysteresis {
    /// Edits start over this.
    pub(super) trigger: u128,
    /// The excess is rounded up to a multiple of this.
    pub(super) band: u128,
    /// The cut lands on the first unit boundary at or after a line this far apart.
    pub(super) grid: u128,
}

impl Hysteresis {
    /// As the editing engine reads `edits` for `budget` tokens.
    pub(super) fn of(edits: &Edits, budget: usize) -> Self {
        let trigger = edits.trigger_threshold().tokens(budget).min(budget) as u128;
        let low = edits
            .low_water_threshold()
            .map_or(trigger, |low| (low.tokens(budget) as u128).min(trigger));
        let share = edits.grid_share();
        let share = if share.is_nan() {
            Edits::DEFAULT_GRID
        } else {
            share
        };
        Self {
            trigger,
            band: trigger - low,
            grid: Threshold::share(share).tokens(budget) as u128,
        }
    }
}

/// What the messages would cost after every edit `edits` may make, message by
/// message, as a sum that only grows as a conversation does.
struct Floors {
    /// What each message would cost with its old thinking dropped and every
    /// result that may be cleared (not excluded, not in the pinned task) at its
    /// placeholder (at most the largest size, when results are not cleared).
    each: Vec<usize>,
    /// What the results kept whole (the `keep` most recent) add to `each`, in
    /// their messages.
    kept: Vec<usize>,
    /// What is reserved for the results kept whole: `keep` times the largest
    /// size, so that the sum does not shrink when a result grows old (their
    /// own sizes, when results are not truncated).
    reserve: usize,
}

/// What each message would cost after every edit: an estimate, made from the
/// counts alone. It places the cut; the engine and the trim after it make the
/// fit exact.
fn floors<M: EditableMessage>(
    messages: &[M],
    counts: &Counts,
    edits: &Edits,
    counter: &dyn TokenCounter,
    budget: usize,
    task: Option<usize>,
) -> Floors {
    let latest_turn = latest_user(messages);
    let results: usize = (0..messages.len()).map(|i| counts.shares(i).len()).sum();
    let keep = edits.keep_tool_results();
    let old = keep.map_or(0, |keep| results.saturating_sub(keep));
    let placeholder = counter.count(edits.placeholder_text());
    let max = edits.max_tool_result_tokens().map(|max| max.tokens(budget));
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut result = 0usize;
    let mut floors = Floors {
        each: Vec::with_capacity(messages.len()),
        kept: Vec::with_capacity(messages.len()),
        reserve: 0,
    };
    let mut kept_total = 0usize;
    for (i, message) in messages.iter().enumerate() {
        let mut floor = counts.tokens[i];
        if edits.drops_old_thinking()
            && message.role() == Role::Assistant
            && latest_turn.is_some_and(|latest| i < latest)
        {
            floor = floor.saturating_sub(counts.splits[i].thinking);
        }
        for call in message.tool_calls() {
            names.entry(call.id).or_insert(call.name);
        }
        let mut kept = 0usize;
        for (index, &share) in counts.shares(i).iter().enumerate() {
            let frozen = task == Some(i)
                || message
                    .tool_result(index)
                    .and_then(|r| names.get(r.call_id))
                    .is_some_and(|tool| edits.excluded_tools().iter().any(|t| t == tool));
            let truncated = max.map_or(share, |max| share.min(max));
            let after = if frozen {
                share
            } else if keep.is_some() {
                let cleared = message
                    .tool_result_tokens_with(index, placeholder, counter)
                    .min(truncated);
                if result >= old {
                    kept = kept.saturating_add(truncated - cleared);
                }
                cleared
            } else {
                truncated
            };
            floor = floor.saturating_sub(share.saturating_sub(after));
            result += 1;
        }
        kept_total = kept_total.saturating_add(kept);
        floors.each.push(floor);
        floors.kept.push(kept);
    }
    floors.reserve = match (keep, max) {
        (Some(keep), Some(max)) => keep.saturating_mul(max),
        _ => kept_total,
    };
    floors
}

/// The messages to drop before editing, as `keep` flags over `messages`; `None`
/// when every edit together would bring them under the trigger (or nothing can
/// be dropped).
///
/// Droppable are whole units before the latest user message, but for the system
/// messages and the pinned `task`. When what the messages would cost after every
/// edit ([`floors`]) is over the trigger, the excess over the low-water mark of
/// that cost with every result cleared and a reserve for the `keep` results kept
/// whole (a sum that only grows as the conversation does) is rounded up to the
/// band; the cut is the first
/// unit boundary at or after a line of the grid (over the messages as they came
/// in) where what is dropped before it reaches that; without a task kept in
/// front, only a user message may follow the cut, as the trim wants.
pub(super) fn plan_cut<M: EditableMessage>(
    messages: &[M],
    counts: &Counts,
    edits: &Edits,
    counter: &dyn TokenCounter,
    budget: usize,
    task: Option<usize>,
) -> Option<Vec<bool>> {
    let Hysteresis {
        trigger,
        band,
        grid,
    } = Hysteresis::of(edits, budget);
    // The latest user message stays with the call its results answer, if any.
    let latest = latest_user(messages)?;
    let bound = (0..=latest).rev().find(|&i| starts_unit(&messages[i]))?;
    let Floors {
        each: floors,
        kept,
        reserve,
    } = floors(messages, counts, edits, counter, budget, task);
    let sum = |values: &[usize]| values.iter().fold(0u128, |sum, &v| sum + v as u128);
    let floor = counts.priming as u128 + sum(&floors);
    // Only when every edit together would not be enough: dropping is the last
    // step. Then the excess over the low-water mark, with the reserve for the
    // results kept whole, rounded up to the band: the clearing after the cut has
    // room to move on its own bands (a history whose every old result must be
    // cleared would clear one more result every turn), and the sum grows with
    // the conversation, so the cut moves only forward.
    if floor + sum(&kept) <= trigger {
        return None;
    }
    let excess = (floor + reserve as u128).saturating_sub(trigger - band);
    let need = if band == 0 {
        excess
    } else {
        excess.div_ceil(band).saturating_mul(band)
    };
    // A task that does not fit beside what must stay is trimmed as any message
    // (see `trim_edited`): then the history after the cut starts on a user message.
    let must = (0..messages.len())
        .filter(|&i| i >= bound || messages[i].role() == Role::System)
        .fold(counts.priming as u128, |sum, i| {
            sum + floors[i] as u128 + kept[i] as u128
        });
    let task = task.filter(|&t| must + floors[t] as u128 <= budget as u128);
    let droppable = |i: usize| messages[i].role() != Role::System && task != Some(i);
    let may_follow = |c: usize| {
        starts_unit(&messages[c]) && (task.is_some() || messages[c].role() == Role::User)
    };
    let start = (0..bound).find(|&i| droppable(i))?;
    let mut dropped: u128 = 0;
    let mut line: u128 = 0;
    let mut cut = None;
    for (c, &floor) in floors.iter().enumerate().take(bound + 1).skip(start) {
        if c > start && may_follow(c) {
            let offset = counts.offsets[c];
            let on_grid = grid == 0 || offset >= line;
            if (on_grid && dropped >= need) || c == bound {
                cut = Some(c);
                break;
            }
            if grid > 0 && offset >= line {
                line = (offset / grid).saturating_add(1).saturating_mul(grid);
            }
        }
        if c < bound && droppable(c) {
            dropped += floor as u128;
        }
    }
    let cut = cut?;
    let keep = (0..messages.len())
        .map(|i| i >= cut || !droppable(i))
        .collect();
    Some(keep)
}
