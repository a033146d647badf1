//! The trimmer: [`ChatTrimmer`] drops whole messages, keeping tool calls with their
//! results, and reports what it kept ([`TrimmedChat`]) and dropped ([`DroppedMessage`]).

use std::collections::HashSet;
use std::fmt;

use thiserror::Error;

use super::context::{ChatElement, TrimContext};
use super::format::{ChatFormat, HistoryBudget};
use super::message::{ChatMessage, Role};
use crate::count::TokenCounter;

/// Which end of the history [`ChatTrimmer`] keeps when it must drop messages
/// (LangChain's `strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ChatStrategy {
    /// Keep the latest messages: drop the oldest first (the default).
    #[default]
    KeepLast,
    /// Keep the earliest messages: drop the newest first.
    KeepFirst,
}

/// Why [`ChatTrimmer`] dropped a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DropReason {
    /// The `on_trim` hook removed it.
    Hook,
    /// It belonged to a tool call and its results, and a partner was missing (removed
    /// by the hook or absent from the history), so it would have been an orphan.
    Unpaired,
    /// The history was over budget, and this was the next message (or tool-call unit)
    /// in drop order.
    OverBudget,
    /// It came before the first user message and
    /// [`with_start_on_user`](ChatTrimmer::with_start_on_user) is set.
    StartOnUser,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            DropReason::Hook => "removed by the on_trim hook",
            DropReason::Unpaired => "tool call and results must stay together",
            DropReason::OverBudget => "over budget",
            DropReason::StartOnUser => "before the first user message",
        })
    }
}

/// A message [`ChatTrimmer`] dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DroppedMessage {
    /// Its seq (index in the caller's history).
    pub seq: usize,
    /// What it cost.
    pub tokens: usize,
    /// Why it was dropped.
    pub reason: DropReason,
}

/// What [`ChatTrimmer`] kept and dropped.
#[derive(Debug)]
pub struct TrimmedChat<'m, M> {
    kept: Vec<ChatElement<'m, M>>,
    dropped: Vec<DroppedMessage>,
    tokens: usize,
    budget: HistoryBudget,
}

impl<'m, M> TrimmedChat<'m, M> {
    /// The kept messages, in history order.
    pub fn messages(&self) -> Vec<&'m M> {
        self.kept.iter().map(|e| e.message).collect()
    }

    /// The kept elements (seq, message, tokens, role), in history order.
    pub fn elements(&self) -> &[ChatElement<'m, M>] {
        &self.kept
    }

    /// The dropped messages, in seq order, with the reason for each.
    pub fn dropped(&self) -> &[DroppedMessage] {
        &self.dropped
    }

    /// What the kept messages cost as a request, reply priming included; never more
    /// than the budget's limit.
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// The budget that was applied.
    pub fn budget(&self) -> HistoryBudget {
        self.budget
    }
}

/// Why a history could not be trimmed to its budget.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ChatTrimError {
    /// Even after dropping every message the policy may drop, what must stay — the
    /// system messages and the latest user message, unless the hook removed them,
    /// plus the reply priming — is over the limit.
    #[error(
        "system messages and the latest user message need {needed} tokens but the budget is {budget} ({over} over)"
    )]
    OverBudget {
        /// What the messages that must stay cost, reply priming included.
        needed: usize,
        /// The budget's limit.
        budget: usize,
        /// `needed - budget`.
        over: usize,
    },
}

/// Trims a chat history to a token budget: an `on_trim` hook first, then a policy
/// that drops whole messages and never splits a tool call from its results.
///
/// The policy, applied to what the hook left:
///
/// 1. Tool-call units with a missing member are dropped (see below).
/// 2. While the request is over budget, the next droppable unit is dropped: the oldest
///    first ([`ChatStrategy::KeepLast`], the default) or the newest first
///    ([`ChatStrategy::KeepFirst`]). A unit is one message, or a tool call with all its
///    results. System messages and the latest user message of the history are never
///    dropped by the policy.
/// 3. With [`with_start_on_user`](ChatTrimmer::with_start_on_user), messages before
///    the first kept user message (other than system messages) are dropped too.
///
/// The caller's history is borrowed, never modified; the result borrows from it.
///
/// # Tool calls and their results
///
/// Providers reject a request in which a tool result has no tool call before it, or a
/// tool call is not followed by a result for each of its call ids. ctxbudget treats
/// a tool call and its results as one unit:
///
/// - A *call* is an [`Assistant`](Role::Assistant) message with at least one tool
///   call. Its *results* are the [`Tool`](Role::Tool) messages that directly follow it
///   (only other tool messages in between) and whose
///   [`tool_call_id`](ChatMessage::tool_call_id) is one of its call ids. Parallel
///   calls (several ids in one message) form a single unit with all their results.
/// - A unit is kept whole or dropped whole. When the hook removes any member of a
///   unit, the rest of it is dropped too ([`DropReason::Unpaired`]).
/// - A unit that is already broken in the input — a call with an id that has no
///   result, or a tool message that answers no call right before it — is dropped
///   ([`DropReason::Unpaired`]): the provider would reject it anyway.
///
/// ```
/// use ctxbudget::{CharEstimate, ChatTrimmer, chat::DropReason, Message, chat::ToolCall};
///
/// let history = vec![
///     Message::system("You answer questions about the weather."),
///     Message::user("What's the weather in Paris? Please be detailed about it."),
///     Message::assistant("").with_tool_call(ToolCall::new("c1", "weather", r#"{"city":"Paris"}"#)),
///     Message::tool("c1", "Paris: 18°C, cloudy, light wind from the west, no rain expected."),
///     Message::assistant("It is 18°C and cloudy in Paris."),
///     Message::user("And tomorrow?"),
/// ];
/// let trimmed = ChatTrimmer::new(CharEstimate, 60).trim(&history)?;
/// let kept: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
/// assert_eq!(kept, [0, 4, 5]);
/// // The tool call and its result went together.
/// assert!(trimmed.dropped().iter().all(|d| d.reason == DropReason::OverBudget));
/// assert!(trimmed.tokens() <= 60);
/// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ChatTrimmer<C> {
    counter: C,
    limit: usize,
    format: ChatFormat,
    strategy: ChatStrategy,
    start_on_user: bool,
}

/// One message, or a tool call with its results: kept or dropped as a whole.
struct Unit {
    members: Vec<usize>,
    /// False for a broken tool-call unit in the input.
    complete: bool,
}

impl<C: TokenCounter> ChatTrimmer<C> {
    /// A trimmer that counts with `counter` and fits requests into `budget` tokens,
    /// in the OpenAI chat format, keeping the latest messages.
    pub fn new(counter: C, budget: usize) -> Self {
        Self {
            counter,
            limit: budget,
            format: ChatFormat::openai(),
            strategy: ChatStrategy::KeepLast,
            start_on_user: false,
        }
    }

    /// Sets the chat format whose overhead is counted.
    #[must_use]
    pub fn with_format(mut self, format: ChatFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets which end of the history is kept.
    #[must_use]
    pub fn with_strategy(mut self, strategy: ChatStrategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// When `true`, the kept history (after system messages) starts with a user
    /// message: earlier assistant and tool messages are dropped.
    #[must_use]
    pub fn with_start_on_user(mut self, start_on_user: bool) -> Self {
        self.start_on_user = start_on_user;
        self
    }

    /// The budget: the limit, with the format's reply priming reserved.
    pub fn budget(&self) -> HistoryBudget {
        HistoryBudget::new(self.limit).with_reserved(self.format.reply_priming())
    }

    /// The counter.
    pub fn counter(&self) -> &C {
        &self.counter
    }

    /// The chat format.
    pub fn format(&self) -> ChatFormat {
        self.format
    }

    /// Trims `history` with the policy alone (no hook).
    ///
    /// # Errors
    ///
    /// [`ChatTrimError::OverBudget`] when the system messages and the latest user
    /// message alone do not fit; the error says by how much.
    pub fn trim<'m, M: ChatMessage>(
        &self,
        history: &'m [M],
    ) -> Result<TrimmedChat<'m, M>, ChatTrimError> {
        self.trim_with(history, |_| {})
    }

    /// Trims `history`: counts every message once, calls `on_trim` with a
    /// [`TrimContext`], then applies the policy (see [`ChatTrimmer`]).
    ///
    /// # Errors
    ///
    /// [`ChatTrimError::OverBudget`] when what must stay does not fit; the error says
    /// by how much.
    pub fn trim_with<'m, M, F>(
        &self,
        history: &'m [M],
        on_trim: F,
    ) -> Result<TrimmedChat<'m, M>, ChatTrimError>
    where
        M: ChatMessage,
        F: FnOnce(&mut TrimContext<'m, M>),
    {
        let budget = self.budget();
        let elements: Vec<ChatElement<'m, M>> = history
            .iter()
            .enumerate()
            .map(|(seq, message)| ChatElement {
                seq,
                message,
                tokens: self.format.message_tokens(&self.counter, message),
                role: message.role(),
            })
            .collect();
        let mut ctx = TrimContext::new(elements.clone(), budget);
        on_trim(&mut ctx);

        let mut dropped: Vec<Option<DropReason>> = ctx
            .removed
            .iter()
            .map(|&removed| removed.then_some(DropReason::Hook))
            .collect();
        let units = tool_units(history);
        let protected = protected_seqs(history);

        // 1. Pairing: a unit is whole or gone.
        for unit in &units {
            let broken = !unit.complete || unit.members.iter().any(|&s| dropped[s].is_some());
            if broken {
                for &s in &unit.members {
                    dropped[s].get_or_insert(DropReason::Unpaired);
                }
            }
        }
        // Exact sums in u128: a usize total that saturated could not be decreased
        // correctly when messages are dropped.
        let mut total: u128 = elements
            .iter()
            .filter(|e| dropped[e.seq].is_none())
            .map(|e| e.tokens as u128)
            .sum();
        let reserved = budget.reserved() as u128;
        let fits = |total: u128| total + reserved <= budget.limit() as u128;
        let saturate = |tokens: u128| usize::try_from(tokens).unwrap_or(usize::MAX);

        // 2. Budget: drop whole units in strategy order.
        let order: Box<dyn Iterator<Item = &Unit>> = match self.strategy {
            ChatStrategy::KeepFirst => Box::new(units.iter().rev()),
            ChatStrategy::KeepLast => Box::new(units.iter()),
        };
        for unit in order {
            if fits(total) {
                break;
            }
            if droppable(unit, &dropped, &protected) {
                total -= drop_unit(unit, DropReason::OverBudget, &mut dropped, &elements);
            }
        }

        // 3. Start on a user message.
        if self.start_on_user {
            for unit in &units {
                let first = unit.members[0];
                if dropped[first].is_some() || elements[first].role == Role::System {
                    continue;
                }
                if elements[first].role == Role::User {
                    break;
                }
                if droppable(unit, &dropped, &protected) {
                    total -= drop_unit(unit, DropReason::StartOnUser, &mut dropped, &elements);
                }
            }
        }

        if !fits(total) {
            let needed = saturate(total + reserved);
            return Err(ChatTrimError::OverBudget {
                needed,
                budget: budget.limit(),
                over: needed.saturating_sub(budget.limit()),
            });
        }

        let mut kept = Vec::with_capacity(elements.len());
        let mut gone = Vec::new();
        for element in elements {
            match dropped[element.seq] {
                None => kept.push(element),
                Some(reason) => gone.push(DroppedMessage {
                    seq: element.seq,
                    tokens: element.tokens,
                    reason,
                }),
            }
        }
        Ok(TrimmedChat {
            kept,
            dropped: gone,
            tokens: saturate(total + reserved),
            budget,
        })
    }
}

/// Whether the policy may drop `unit`: all of it is still kept and none of it is
/// protected.
fn droppable(unit: &Unit, dropped: &[Option<DropReason>], protected: &[bool]) -> bool {
    unit.members
        .iter()
        .all(|&s| dropped[s].is_none() && !protected[s])
}

/// Marks every member of `unit` dropped for `reason`; returns the tokens freed.
fn drop_unit<M>(
    unit: &Unit,
    reason: DropReason,
    dropped: &mut [Option<DropReason>],
    elements: &[ChatElement<'_, M>],
) -> u128 {
    unit.members
        .iter()
        .map(|&s| {
            dropped[s] = Some(reason);
            elements[s].tokens as u128
        })
        .sum()
}

/// `protected[seq]`: system messages and the latest user message.
fn protected_seqs<M: ChatMessage>(history: &[M]) -> Vec<bool> {
    let latest_user = history.iter().rposition(|m| m.role() == Role::User);
    history
        .iter()
        .enumerate()
        .map(|(seq, m)| m.role() == Role::System || Some(seq) == latest_user)
        .collect()
}

/// Splits the history into units, in order of their first member (see the module
/// docs for how calls and results pair up).
fn tool_units<M: ChatMessage>(history: &[M]) -> Vec<Unit> {
    let mut units = Vec::with_capacity(history.len());
    let mut i = 0;
    while i < history.len() {
        let message = &history[i];
        let role = message.role();
        if role == Role::Assistant && message.tool_calls().next().is_some() {
            let ids: HashSet<&str> = message.tool_calls().map(|c| c.id).collect();
            let mut answered: HashSet<&str> = HashSet::with_capacity(ids.len());
            let mut members = vec![i];
            let mut strays = Vec::new();
            let mut j = i + 1;
            while let Some(next) = history.get(j).filter(|m| m.role() == Role::Tool) {
                match next.tool_call_id().filter(|id| ids.contains(id)) {
                    Some(id) => {
                        answered.insert(id);
                        members.push(j);
                    }
                    None => strays.push(j),
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
                complete: role != Role::Tool,
            });
            i += 1;
        }
    }
    // Strays were pushed after their call's unit; keep units ordered by first member.
    units.sort_by_key(|u| u.members[0]);
    units
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

    #[test]
    fn protected_are_system_and_latest_user() {
        let history = [
            Message::system("s"),
            Message::user("u1"),
            Message::assistant("a"),
            Message::user("u2"),
            Message::assistant("a2"),
        ];
        assert_eq!(
            protected_seqs(&history),
            vec![true, false, false, true, false]
        );
    }
}
