//! The tool-call ledger of a session: which call ids are in use, which calls of the
//! last unit still wait for a result, and how a new message fits in.
//!
//! Every check is a hash lookup per id, so a message costs time in its own ids, not in
//! the calls of the session: 30,000 parallel calls and their results push in time
//! linear in 30,000.

use std::collections::{HashMap, HashSet};

use super::error::SessionError;
use crate::chat::message::{ChatMessage, Role};
use crate::chat::units::answers_calls;

/// What a message is, for the ledger.
pub(super) struct Class {
    /// It answers calls (a tool result, or a message of `tool_result` blocks).
    pub(super) result: bool,
    /// The ids of the calls it makes (an assistant message with tool calls).
    pub(super) calls: Vec<String>,
    /// For a result: the positions among the open calls of the calls it answers.
    pub(super) answers: Vec<usize>,
}

/// Call ids in use and the calls waiting for results.
#[derive(Debug, Clone, Default)]
pub(super) struct Ledger {
    /// The ids of every call the session's messages make: the unit that made each
    /// (a count of the units that made calls) and its position among that unit's
    /// calls.
    ids: HashMap<String, (u64, usize)>,
    /// The unit whose calls are open: the last unit, when it is a tool call.
    unit: u64,
    /// Whether each open call has its result.
    answered: Vec<bool>,
    /// How many open calls have no result yet.
    unanswered: usize,
}

impl Ledger {
    /// Checks that `message` may come next, without changing anything.
    pub(super) fn classify<M: ChatMessage>(&self, message: &M) -> Result<Class, SessionError> {
        let calls = calls_of(message);
        if !answers_calls(message) {
            if self.is_waiting() {
                return Err(SessionError::PendingToolCalls {
                    ids: self.waiting(),
                });
            }
            let mut seen = HashSet::with_capacity(calls.len());
            for id in &calls {
                if self.ids.contains_key(id) || !seen.insert(id.as_str()) {
                    return Err(SessionError::DuplicateToolCallId { id: id.clone() });
                }
            }
            return Ok(Class {
                result: false,
                calls,
                answers: Vec::new(),
            });
        }
        if !calls.is_empty() {
            return Err(SessionError::CallsAndResults);
        }
        let mut answers = Vec::new();
        for id in message.tool_result_ids() {
            let Some(at) = self.open(id) else {
                return Err(SessionError::UnknownToolCall { id: id.to_owned() });
            };
            if self.answered[at] {
                return Err(SessionError::DuplicateToolResult { id: id.to_owned() });
            }
            answers.push(at);
        }
        if answers.is_empty() {
            return Err(SessionError::ToolResultWithoutId);
        }
        if answers.len() > 1 {
            // One message answering a call twice: sorted, the repeat is a neighbour.
            let mut sorted = answers.clone();
            sorted.sort_unstable();
            if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
                let id = message
                    .tool_result_ids()
                    .find(|id| self.open(id) == Some(pair[0]))
                    .unwrap_or_default();
                return Err(SessionError::DuplicateToolResult { id: id.to_owned() });
            }
        }
        Ok(Class {
            result: true,
            calls,
            answers,
        })
    }

    /// Records a message [`classify`](Ledger::classify) accepted.
    pub(super) fn record(&mut self, class: Class) {
        if class.result {
            for at in class.answers {
                self.answer(at);
            }
        } else {
            self.open_calls(class.calls);
        }
    }

    /// Whether a call of the last unit still waits for a result.
    pub(super) fn is_waiting(&self) -> bool {
        self.unanswered > 0
    }

    /// The calls of the last unit still waiting for a result, in the order they were
    /// made.
    pub(super) fn waiting(&self) -> Vec<String> {
        if !self.is_waiting() {
            return Vec::new();
        }
        let mut waiting: Vec<(usize, &String)> = self
            .ids
            .iter()
            .filter(|&(_, &(unit, at))| unit == self.unit && !self.answered[at])
            .map(|(id, &(_, at))| (at, id))
            .collect();
        waiting.sort_unstable();
        waiting.into_iter().map(|(_, id)| id.clone()).collect()
    }

    /// The ledger of `messages`, a history the session accepted (possibly with
    /// units removed whole).
    pub(super) fn rebuild<M: ChatMessage>(messages: &[M]) -> Self {
        let mut ledger = Self::default();
        for message in messages {
            if answers_calls(message) {
                for id in message.tool_result_ids() {
                    if let Some(at) = ledger.open(id) {
                        ledger.answer(at);
                    }
                }
            } else {
                ledger.open_calls(calls_of(message));
            }
        }
        ledger
    }

    /// Where the call `id` sits among the open calls, if it is one of them.
    fn open(&self, id: &str) -> Option<usize> {
        match self.ids.get(id) {
            Some(&(unit, at)) if unit == self.unit => Some(at),
            _ => None,
        }
    }

    /// `calls` become the open calls, none answered; the calls open before are
    /// closed.
    fn open_calls(&mut self, calls: Vec<String>) {
        // A new unit: the ids of earlier units no longer match it. (2^64 units
        // cannot be pushed; wrapping keeps the count from panicking all the same.)
        self.unit = self.unit.wrapping_add(1);
        self.answered.clear();
        self.answered.resize(calls.len(), false);
        self.unanswered = calls.len();
        let unit = self.unit;
        self.ids.extend(
            calls
                .into_iter()
                .enumerate()
                .map(|(at, id)| (id, (unit, at))),
        );
    }

    /// The open call at `at` has its result.
    fn answer(&mut self, at: usize) {
        if let Some(answered) = self.answered.get_mut(at) {
            if !*answered {
                *answered = true;
                self.unanswered -= 1;
            }
        }
    }
}

/// The ids of the calls `message` makes: an assistant message's tool calls (the
/// trimmer pairs no other role's calls with results).
fn calls_of<M: ChatMessage>(message: &M) -> Vec<String> {
    if message.role() == Role::Assistant {
        message.tool_calls().map(|c| c.id.to_owned()).collect()
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{Message, ToolCall};

    fn parallel(n: usize) -> Message {
        (0..n).fold(Message::assistant(""), |m, i| {
            m.with_tool_call(ToolCall::new(format!("c{i}"), "f", "{}"))
        })
    }

    #[test]
    fn results_answer_open_calls_in_any_order() {
        let mut ledger = Ledger::default();
        let class = ledger.classify(&parallel(3)).unwrap();
        ledger.record(class);
        assert_eq!(ledger.waiting(), ["c0", "c1", "c2"]);
        for id in ["c2", "c0"] {
            let class = ledger.classify(&Message::tool(id, "ok")).unwrap();
            ledger.record(class);
        }
        assert_eq!(ledger.waiting(), ["c1"]);
        assert!(matches!(
            ledger.classify(&Message::tool("c0", "again")),
            Err(SessionError::DuplicateToolResult { .. })
        ));
        assert!(matches!(
            ledger.classify(&Message::user("next")),
            Err(SessionError::PendingToolCalls { ids }) if ids == ["c1"]
        ));
        let class = ledger.classify(&Message::tool("c1", "ok")).unwrap();
        ledger.record(class);
        assert!(!ledger.is_waiting());
        // A new unit closes the old calls: their ids stay in use, but cannot be answered.
        let class = ledger.classify(&Message::user("next")).unwrap();
        ledger.record(class);
        assert!(matches!(
            ledger.classify(&Message::tool("c1", "late")),
            Err(SessionError::UnknownToolCall { .. })
        ));
        assert!(matches!(
            ledger.classify(&parallel(1)),
            Err(SessionError::DuplicateToolCallId { id }) if id == "c0"
        ));
    }

    #[test]
    fn a_call_repeated_in_one_message_is_refused() {
        let message = parallel(2).with_tool_call(ToolCall::new("c1", "f", "{}"));
        assert!(matches!(
            Ledger::default().classify(&message),
            Err(SessionError::DuplicateToolCallId { id }) if id == "c1"
        ));
    }

    /// Answers the calls it lists, all in one message.
    struct Answers(Vec<&'static str>);

    impl ChatMessage for Answers {
        fn role(&self) -> Role {
            Role::User
        }
        fn content(&self) -> &'static str {
            ""
        }
        fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
            self.0.iter().copied()
        }
    }

    #[test]
    fn a_message_answering_a_call_twice_is_refused() {
        let mut ledger = Ledger::default();
        let class = ledger.classify(&parallel(3)).unwrap();
        ledger.record(class);
        assert!(matches!(
            ledger.classify(&Answers(vec!["c2", "c0", "c2"])),
            Err(SessionError::DuplicateToolResult { id }) if id == "c2"
        ));
        let class = ledger.classify(&Answers(vec!["c2", "c0", "c1"])).unwrap();
        assert_eq!(class.answers, [2, 0, 1]);
        ledger.record(class);
        assert!(!ledger.is_waiting());
    }

    #[test]
    fn rebuild_matches_the_pushes() {
        let messages = [
            Message::user("go"),
            parallel(3),
            Message::tool("c1", "ok"),
            Message::tool("c0", "ok"),
        ];
        let mut pushed = Ledger::default();
        for message in &messages {
            let class = pushed.classify(message).unwrap();
            pushed.record(class);
        }
        let rebuilt = Ledger::rebuild(&messages);
        assert_eq!(rebuilt.waiting(), ["c2"]);
        assert_eq!(pushed.waiting(), rebuilt.waiting());
        assert_eq!(
            pushed.ids.keys().collect::<HashSet<_>>(),
            rebuilt.ids.keys().collect::<HashSet<_>>()
        );
    }
}
