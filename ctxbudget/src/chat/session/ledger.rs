//! The tool-call ledger of a session: which call ids are in use, which calls of the
//! last unit still wait for a result, and how a new message fits in.

use std::collections::HashSet;

use super::error::SessionError;
use crate::chat::message::{ChatMessage, Role};
use crate::chat::units::answers_calls;

/// What a message is, for the ledger.
pub(super) struct Class {
    /// It answers calls (a tool result, or a message of `tool_result` blocks).
    pub(super) result: bool,
    /// The ids of the calls it makes (an assistant message with tool calls).
    pub(super) calls: Vec<String>,
    /// For a result: the positions in [`Ledger::open`] of the calls it answers.
    pub(super) answers: Vec<usize>,
}

/// Call ids in use and the calls waiting for results.
#[derive(Debug, Clone, Default)]
pub(super) struct Ledger {
    /// The ids of every call the session's messages make.
    ids: HashSet<String>,
    /// The calls of the last unit, when it is a tool call, and whether each has its
    /// result.
    open: Vec<(String, bool)>,
}

impl Ledger {
    /// Checks that `message` may come next, without changing anything.
    pub(super) fn classify<M: ChatMessage>(&self, message: &M) -> Result<Class, SessionError> {
        let calls = calls_of(message);
        if !answers_calls(message) {
            let waiting = self.waiting();
            if !waiting.is_empty() {
                return Err(SessionError::PendingToolCalls { ids: waiting });
            }
            for (i, id) in calls.iter().enumerate() {
                if self.ids.contains(id) || calls[..i].contains(id) {
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
            let Some(at) = self.open.iter().position(|(open, _)| open == id) else {
                return Err(SessionError::UnknownToolCall { id: id.to_owned() });
            };
            if self.open[at].1 || answers.contains(&at) {
                return Err(SessionError::DuplicateToolResult { id: id.to_owned() });
            }
            answers.push(at);
        }
        if answers.is_empty() {
            return Err(SessionError::ToolResultWithoutId);
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
                self.open[at].1 = true;
            }
        } else {
            self.open = class.calls.iter().map(|id| (id.clone(), false)).collect();
            self.ids.extend(class.calls);
        }
    }

    /// The calls of the last unit still waiting for a result.
    pub(super) fn waiting(&self) -> Vec<String> {
        self.open
            .iter()
            .filter(|(_, answered)| !answered)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// The ledger of `messages`, a history the session accepted (possibly with
    /// units removed whole).
    pub(super) fn rebuild<M: ChatMessage>(messages: &[M]) -> Self {
        let mut ledger = Self::default();
        for message in messages {
            if answers_calls(message) {
                for id in message.tool_result_ids() {
                    if let Some(open) = ledger.open.iter_mut().find(|(open, _)| open == id) {
                        open.1 = true;
                    }
                }
            } else {
                let calls = calls_of(message);
                ledger.open = calls.iter().map(|id| (id.clone(), false)).collect();
                ledger.ids.extend(calls);
            }
        }
        ledger
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
