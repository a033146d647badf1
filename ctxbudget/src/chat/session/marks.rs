//! [`Marks`]: where the parts of the prompt that bound a cut sit (the latest user
//! message with what is carried with it, the last unit, the latest turn when it
//! began with thinking) and what they cost, kept up to date one message at a time.

use std::ops::Range;

use super::entry::{Entry, Slot};
use crate::chat::message::Role;

/// Positions in the session's prompt, and costs, derived from its entries in order:
/// a push [observes](Marks::observe) one more entry in O(1), and a rebuild observes
/// them all, so the two never disagree.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Marks {
    /// The latest user message: the last that carries more than tool results
    /// ([`Entry::is_question`]), wherever its parts sit.
    latest: Option<usize>,
    /// The unit of the latest user message, carried past a cut: the message itself,
    /// or, when it shares its message with tool results (Anthropic's `tool_result`
    /// blocks followed by the next question), the call those results answer with all
    /// its results.
    carry_start: usize,
    carry_end: usize,
    carry_tokens: u128,
    /// When the carried unit starts with a call: the nearest user message before it
    /// that is not a result, and its cost. With `start_on_user` it is carried too,
    /// so that a user message still leads.
    anchor: Option<(usize, u128)>,
    /// The last user message that is not a result, and its cost.
    last_user_start: Option<(usize, u128)>,
    /// Where the last unit starts, and what it costs (system messages apart).
    last_unit: usize,
    unit_tokens: u128,
    unit_system: u128,
    /// The first message of the latest turn that is not a system message: the one
    /// after the latest user message (the first of all, when there is none).
    turn_first: Option<usize>,
    /// Whether `turn_first` is an assistant message that starts with thinking.
    turn_thinks: bool,
    /// The task: the first user message that carries more than tool results, and
    /// its cost (`None` when that message also holds tool results: it cannot be
    /// carried without their call).
    task: Option<(usize, u128)>,
    /// Whether the first such message was seen.
    task_seen: bool,
}

impl Marks {
    /// The marks after `entry`, at `position`, is appended.
    pub(super) fn observe(&mut self, position: usize, entry: &Entry) {
        if entry.slot == Slot::Summary {
            // The summary is in the head before any carried or window message; on
            // the wire it is a message before the latest turn.
            return;
        }
        let tokens = entry.tokens as u128;
        let system = if entry.is_system() { tokens } else { 0 };
        if !entry.result {
            self.last_unit = position;
            self.unit_tokens = 0;
            self.unit_system = 0;
        }
        self.unit_tokens += tokens;
        self.unit_system += system;
        if entry.is_user_start() {
            self.last_user_start = Some((position, tokens));
        }
        if entry.is_question() {
            if !self.task_seen {
                self.task_seen = true;
                self.task = (!entry.result).then_some((position, tokens));
            }
            // A question that shares its message with results is carried with their
            // call: the unit so far.
            self.latest = Some(position);
            self.carry_start = self.last_unit;
            self.carry_end = position + 1;
            self.carry_tokens = self.unit_tokens - self.unit_system;
            self.anchor = if entry.result {
                self.last_user_start
            } else {
                None
            };
            self.turn_first = None;
            self.turn_thinks = false;
            return;
        }
        if entry.result && self.latest.is_some() && self.carry_end == position {
            // A later result of the carried call.
            if self.carry_start == self.last_unit {
                self.carry_end = position + 1;
                self.carry_tokens += tokens;
            }
        }
        if self.turn_first.is_none() && !entry.is_system() {
            self.turn_first = Some(position);
            self.turn_thinks = entry.role == Role::Assistant && entry.thinks;
        }
    }

    /// What is carried past a cut: with `keep_latest_user`, the latest user
    /// message's unit, and with `start_on_user` the user message that leads it
    /// when the unit starts with a call; with `pin_task`, the task.
    pub(super) fn carried(
        &self,
        keep_latest_user: bool,
        start_on_user: bool,
        pin_task: bool,
    ) -> Option<Carried> {
        let task = self.task.filter(|_| pin_task).map(|(at, _)| at);
        if !keep_latest_user || self.latest.is_none() {
            return task.map(|task| Carried {
                unit: 0..0,
                anchor: None,
                task: Some(task),
            });
        }
        Some(Carried {
            unit: self.carry_start..self.carry_end,
            anchor: self.anchor.filter(|_| start_on_user).map(|(at, _)| at),
            task,
        })
    }

    /// Where the latest turn starts when its first message is an assistant message
    /// that starts with thinking: the turn runs to the end, and no cut may land
    /// inside it, since Anthropic rejects a later step of a tool-use loop without the
    /// thinking that began it.
    ///
    /// The trimmer joins such a turn into one unit only when it makes calls; a
    /// session decides its cut for good, before it knows whether a later step will
    /// call a tool, so it keeps the turn whole from its first message on.
    pub(super) fn thinking_turn(&self) -> Option<usize> {
        self.turn_first.filter(|_| self.turn_thinks)
    }

    /// What every prompt keeps beside the system messages, the summary and the reply
    /// priming: the last unit (system messages apart), with `keep_latest_user`
    /// what is carried with the latest user message, and with `pin_task` the task.
    pub(super) fn kept_tokens(
        &self,
        keep_latest_user: bool,
        start_on_user: bool,
        pin_task: bool,
    ) -> u128 {
        let task = match self.task {
            Some((at, tokens)) if pin_task && at < self.last_unit => {
                let latest = keep_latest_user && self.latest.is_some();
                let carried = latest
                    && ((self.carry_start..self.carry_end).contains(&at)
                        || (start_on_user && self.anchor.is_some_and(|(a, _)| a == at)));
                if carried { 0 } else { tokens }
            }
            _ => 0,
        };
        task + self.kept_without_task(keep_latest_user, start_on_user)
    }

    fn kept_without_task(&self, keep_latest_user: bool, start_on_user: bool) -> u128 {
        let tail = self.unit_tokens - self.unit_system;
        if !keep_latest_user || self.latest.is_none() {
            return tail;
        }
        // The carried unit is the last one, or lies wholly before it.
        let carry = if self.carry_start < self.last_unit {
            self.carry_tokens
        } else {
            0
        };
        let anchor = match self.anchor {
            Some((_, tokens)) if start_on_user => tokens,
            _ => 0,
        };
        tail + carry + anchor
    }
}

/// The positions carried past a cut with the latest user message.
#[derive(Debug, Clone)]
pub(super) struct Carried {
    /// The latest user message's unit.
    pub(super) unit: Range<usize>,
    /// The user message carried before it.
    pub(super) anchor: Option<usize>,
    /// The pinned task.
    pub(super) task: Option<usize>,
}

impl Carried {
    /// Whether position `p` is carried.
    pub(super) fn contains(&self, p: usize) -> bool {
        self.unit.contains(&p) || self.anchor == Some(p) || self.task == Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(role: Role, tokens: usize, result: bool, asks: bool, thinks: bool) -> Entry {
        Entry {
            seq: 0,
            tokens,
            offset: 0,
            role,
            result,
            asks,
            thinks,
            slot: Slot::Window,
        }
    }

    fn system(tokens: usize) -> Entry {
        entry(Role::System, tokens, false, false, false)
    }

    fn question(tokens: usize) -> Entry {
        entry(Role::User, tokens, false, true, false)
    }

    /// Tool results, followed by a question when `asks`.
    fn results(tokens: usize, asks: bool) -> Entry {
        entry(Role::User, tokens, true, asks, false)
    }

    fn assistant(tokens: usize, thinks: bool) -> Entry {
        entry(Role::Assistant, tokens, false, false, thinks)
    }

    fn observe_all(entries: &[Entry]) -> Marks {
        let mut marks = Marks::default();
        for (p, e) in entries.iter().enumerate() {
            marks.observe(p, e);
        }
        marks
    }

    #[test]
    fn a_question_beside_results_is_carried_with_its_call_and_led_by_a_user_message() {
        let entries = [
            system(1),
            question(10),
            assistant(20, false),
            results(40, true),
            assistant(80, true),
            results(160, false),
        ];
        let marks = observe_all(&entries);
        let carried = marks.carried(true, false, false).unwrap();
        assert_eq!((carried.unit, carried.anchor), (2..4, None));
        assert_eq!(marks.carried(true, true, false).unwrap().anchor, Some(1));
        assert_eq!(marks.thinking_turn(), Some(4));
        // The last unit, the carried unit, and the user message that leads it.
        assert_eq!(marks.kept_tokens(true, false, false), 240 + 60);
        assert_eq!(marks.kept_tokens(true, true, false), 240 + 60 + 10);
        assert_eq!(marks.kept_tokens(false, true, false), 240);
        // Observing one entry at a time gives what observing them all does.
        let mut step = Marks::default();
        for (p, e) in entries.iter().enumerate() {
            step.observe(p, e);
            let all = observe_all(&entries[..=p]);
            assert_eq!(
                step.kept_tokens(true, true, false),
                all.kept_tokens(true, true, false)
            );
            assert_eq!(step.thinking_turn(), all.thinking_turn());
        }
    }

    #[test]
    fn a_turn_starts_after_the_latest_question_or_at_the_first_message() {
        // No question: the turn starts at the first message that is not a system
        // message.
        let marks = observe_all(&[system(1), assistant(2, true), assistant(3, false)]);
        assert_eq!(marks.thinking_turn(), Some(1));
        assert!(marks.carried(true, true, false).is_none());
        // A system message after the question is skipped; a new question ends the
        // turn.
        let mut entries = vec![question(1), system(1), assistant(2, true)];
        assert_eq!(observe_all(&entries).thinking_turn(), Some(2));
        entries.push(question(1));
        assert_eq!(observe_all(&entries).thinking_turn(), None);
        // A turn whose first step does not think is not held whole.
        entries.extend([assistant(2, false), assistant(2, true)]);
        assert_eq!(observe_all(&entries).thinking_turn(), None);
    }
}
