//! The pieces the trimmer keeps or drops whole ([`Unit`]: one message, or a tool call
//! with its results) and the role sets of `start_on` / `end_on` ([`RoleSet`]).

use std::collections::HashSet;
use std::fmt;

use super::message::{ChatMessage, Role};

/// One message, or a tool call with its results: kept or dropped as a whole.
pub(super) struct Unit {
    /// Seqs, ascending; the first is the message that opens the unit.
    pub(super) members: Vec<usize>,
    /// False for a broken tool-call unit in the input.
    pub(super) complete: bool,
}

impl Unit {
    pub(super) fn first(&self) -> usize {
        self.members[0]
    }

    pub(super) fn last(&self) -> usize {
        self.members[self.members.len() - 1]
    }
}

/// Splits the history into units, in order of their first member (see
/// [`ChatTrimmer`](super::ChatTrimmer) for how calls and results pair up).
pub(super) fn tool_units<M: ChatMessage>(history: &[M]) -> Vec<Unit> {
    let mut units = Vec::with_capacity(history.len());
    let mut i = 0;
    while i < history.len() {
        let message = &history[i];
        if message.role() == Role::Assistant && message.tool_calls().next().is_some() {
            let ids: HashSet<&str> = message.tool_calls().map(|c| c.id).collect();
            let mut answered: HashSet<&str> = HashSet::with_capacity(ids.len());
            let mut members = vec![i];
            let mut strays = Vec::new();
            let mut j = i + 1;
            while let Some(next) = history.get(j).filter(|m| answers_calls(*m)) {
                // A message that answers a call of another turn (or no call, for a
                // tool message without an id) would be an orphan if kept.
                let mut results = next.tool_result_ids().peekable();
                let belongs = results.peek().is_some() && results.all(|id| ids.contains(id));
                if belongs {
                    answered.extend(next.tool_result_ids());
                    members.push(j);
                } else {
                    strays.push(j);
                }
                j += 1;
            }
            units.push(Unit {
                members,
                complete: answered.len() == ids.len(),
            });
            units.extend(strays.into_iter().map(|s| Unit {
                members: vec![s],
                complete: false,
            }));
            i = j;
        } else {
            units.push(Unit {
                members: vec![i],
                complete: !answers_calls(message),
            });
            i += 1;
        }
    }
    // Strays were pushed after their call's unit; keep units ordered by first member.
    units.sort_by_key(Unit::first);
    units
}

/// The latest user message: the last user message that carries something besides
/// tool results ([`ChatMessage::carries_user_content`]), wherever its parts sit.
pub(crate) fn latest_user<M: ChatMessage>(history: &[M]) -> Option<usize> {
    history
        .iter()
        .rposition(|m| m.role() == Role::User && m.carries_user_content())
}

/// Where the tool-use loop after the latest user message starts, when it is one
/// unit with its thinking: the message right after the latest user message is an
/// assistant message that starts with thinking
/// ([`ChatMessage::starts_with_thinking`]), and a call is made from there on.
pub(crate) fn thinking_loop<M: ChatMessage>(history: &[M]) -> Option<usize> {
    let start = latest_user(history)? + 1;
    let first = history.get(start)?;
    let calls = history[start..]
        .iter()
        .any(|m| m.tool_calls().next().is_some());
    (first.role() == Role::Assistant && first.starts_with_thinking() && calls).then_some(start)
}

/// Joins the units of the [thinking loop](thinking_loop) into one: a later step of
/// the loop is never kept without the first, which carries the thinking.
pub(super) fn join_thinking_loop<M: ChatMessage>(history: &[M], units: &mut Vec<Unit>) {
    let Some(start) = thinking_loop(history) else {
        return;
    };
    let at = units.partition_point(|u| u.first() < start);
    if units.len().saturating_sub(at) < 2 {
        return;
    }
    let tail = units.split_off(at);
    let complete = tail.iter().all(|u| u.complete);
    let mut members: Vec<usize> = tail.into_iter().flat_map(|u| u.members).collect();
    members.sort_unstable();
    units.push(Unit { members, complete });
}

/// Whether `message` is a tool result: a [`Role::Tool`] message, or any message that
/// names calls it answers (Anthropic's user message with `tool_result` blocks).
pub(super) fn answers_calls<M: ChatMessage>(message: &M) -> bool {
    message.role() == Role::Tool || message.tool_result_ids().next().is_some()
}

/// A set of roles, for `start_on` and `end_on`; empty means the option is off.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(super) struct RoleSet(u8);

impl RoleSet {
    const ROLES: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

    fn bit(role: Role) -> u8 {
        match role {
            Role::System => 1,
            Role::User => 2,
            Role::Assistant => 4,
            Role::Tool => 8,
        }
    }

    pub(super) fn of(roles: impl IntoIterator<Item = Role>) -> Self {
        Self(roles.into_iter().fold(0, |set, role| set | Self::bit(role)))
    }

    pub(super) fn contains(self, role: Role) -> bool {
        self.0 & Self::bit(role) != 0
    }

    pub(super) fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Debug for RoleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(Self::ROLES.iter().filter(|&&r| self.contains(r)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{Message, ToolCall};

    fn shape(units: &[Unit]) -> Vec<(Vec<usize>, bool)> {
        units
            .iter()
            .map(|u| (u.members.clone(), u.complete))
            .collect()
    }

    #[test]
    fn units_pair_parallel_calls_with_their_results() {
        let history = [
            Message::user("q"),
            Message::assistant("")
                .with_tool_call(ToolCall::new("a", "f", "{}"))
                .with_tool_call(ToolCall::new("b", "f", "{}")),
            Message::tool("b", "1"),
            Message::tool("zzz", "stray"),
            Message::tool("a", "2"),
            Message::tool("a", "late"),
            Message::assistant("").with_tool_call(ToolCall::new("c", "f", "{}")),
            Message::user("unanswered call above"),
            Message::tool("c", "too late"),
        ];
        assert_eq!(
            shape(&tool_units(&history)),
            vec![
                (vec![0], true),
                (vec![1, 2, 4, 5], true),
                (vec![3], false),
                (vec![6], false),
                (vec![7], true),
                (vec![8], false),
            ]
        );
    }

    /// A user message answering several calls at once, as Anthropic's `tool_result`
    /// blocks do.
    struct Answers(Role, Vec<&'static str>, Vec<&'static str>);

    impl ChatMessage for Answers {
        fn role(&self) -> Role {
            self.0
        }
        fn content(&self) -> &'static str {
            ""
        }
        fn tool_calls(&self) -> impl Iterator<Item = crate::chat::ToolCallRef<'_>> {
            self.1.iter().map(|&id| crate::chat::ToolCallRef {
                id,
                name: "f",
                arguments: "{}",
            })
        }
        fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
            self.2.iter().copied()
        }
    }

    #[test]
    fn units_pair_calls_with_messages_that_answer_several() {
        let history = [
            Answers(Role::User, vec![], vec![]),
            Answers(Role::Assistant, vec!["a", "b"], vec![]),
            Answers(Role::User, vec![], vec!["a", "b"]),
            Answers(Role::Assistant, vec!["c"], vec![]),
            // Answers c and a call of another turn: an orphan if kept.
            Answers(Role::User, vec![], vec!["c", "a"]),
            Answers(Role::User, vec![], vec!["zzz"]),
            Answers(Role::User, vec![], vec![]),
        ];
        assert_eq!(
            shape(&tool_units(&history)),
            vec![
                (vec![0], true),
                (vec![1, 2], true),
                (vec![3], false),
                (vec![4], false),
                (vec![5], false),
                (vec![6], true),
            ]
        );
    }

    #[test]
    fn role_sets() {
        let set = RoleSet::of([Role::User, Role::Tool, Role::User]);
        assert!(set.contains(Role::User) && set.contains(Role::Tool));
        assert!(!set.contains(Role::System) && !set.contains(Role::Assistant));
        assert!(RoleSet::of([]).is_empty());
        assert_eq!(format!("{set:?}"), "{User, Tool}");
    }
}
