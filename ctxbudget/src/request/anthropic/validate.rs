//! Checking a request the way the API does, as far as trimming depends on it, and
//! the one repair ctxbudget offers: [`MessagesRequest::repair_tool_pairing`].

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::blocks::{Content, ContentBlock};
use super::message::{AnthropicMessage, AnthropicRole};
use super::request::MessagesRequest;
use crate::request::{RequestError, WireRequest};

/// Turns: runs of consecutive messages of one role, which the API joins into one
/// turn ("Consecutive `user` or `assistant` turns in your request will be combined
/// into a single turn", Messages API reference).
fn turns(messages: &[AnthropicMessage]) -> Vec<Range<usize>> {
    let mut turns: Vec<Range<usize>> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        match turns.last_mut() {
            Some(turn) if messages[turn.start].role == message.role => turn.end = i + 1,
            _ => turns.push(i..i + 1),
        }
    }
    turns
}

pub(super) fn validate(request: &MessagesRequest) -> Result<(), RequestError> {
    check_tools(request)?;
    check_system(request)?;
    let messages = request.messages();
    let Some(first) = messages.first() else {
        return Err(RequestError::InvalidField {
            field: "messages".to_owned(),
            problem:
                "is empty: Anthropic needs at least one message; keep the user's latest message"
                    .to_owned(),
        });
    };
    if first.role != AnthropicRole::User {
        return Err(RequestError::InvalidMessage {
            message: 0,
            problem: "the request starts with an assistant message, and Anthropic's requests start with a user message: drop the leading assistant messages (when trimming, `ChatTrimmer::with_start_on([Role::User])` does)".to_owned(),
        });
    }
    let last = messages.len() - 1;
    let mut calls: HashMap<&str, usize> = HashMap::new();
    for (i, message) in messages.iter().enumerate() {
        check_message(i, message, i == last)?;
        for call in message.tool_uses() {
            if let Some(&first) = calls.get(call.id.as_str()) {
                return Err(RequestError::DuplicateCallId {
                    id: call.id.clone(),
                    first,
                    second: i,
                });
            }
            calls.insert(&call.id, i);
        }
    }
    check_pairing(messages)?;
    check_thinking_loop(request)
}

/// Whether the request turns extended thinking on: `"thinking": {"type": "enabled"}`.
/// Adaptive thinking (`"type": "adaptive"`) lets the model think or not, so a step
/// without thinking is no error there.
fn thinking_enabled(request: &MessagesRequest) -> bool {
    #[derive(serde::Deserialize)]
    struct Thinking {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    request
        .extra
        .get("thinking")
        .and_then(|raw| serde_json::from_str::<Thinking>(raw.get()).ok())
        .is_some_and(|t| t.kind.as_deref() == Some("enabled"))
}

/// With thinking enabled, a tool-use loop after the latest user message (the final
/// assistant turn, see [`ThinkingRetention`](super::ThinkingRetention)) starts with
/// the thinking that began it: "a final `assistant` message must start with a
/// thinking block (preceding the lastmost set of `tool_use` and `tool_result`
/// blocks)", Anthropic's 400 says.
fn check_thinking_loop(request: &MessagesRequest) -> Result<(), RequestError> {
    use crate::chat::ChatMessage;

    if !thinking_enabled(request) {
        return Ok(());
    }
    let messages = request.messages();
    let Some(question) = messages.iter().rposition(AnthropicMessage::opens_turn) else {
        return Ok(());
    };
    let turn = &messages[question + 1..];
    let in_loop = turn.iter().any(|m| m.tool_uses().next().is_some());
    match turn.first() {
        Some(first) if in_loop && !first.starts_with_thinking() => {
            Err(RequestError::InvalidMessage {
                message: question + 1,
                problem: "with thinking enabled, the tool-use loop after the latest user message must start with a `thinking` block: keep its first step whole, or disable thinking".to_owned(),
            })
        }
        _ => Ok(()),
    }
}

fn check_tools(request: &MessagesRequest) -> Result<(), RequestError> {
    #[derive(serde::Deserialize)]
    struct Named {
        name: String,
    }
    for (i, tool) in request.tools.iter().flatten().enumerate() {
        if serde_json::from_str::<Named>(tool.get()).is_ok_and(|t| !t.name.is_empty()) {
            continue;
        }
        return Err(RequestError::InvalidField {
            field: format!("tools[{i}]"),
            problem: "is not an object with a `name`; every tool needs one (and an `input_schema`, unless it is one of Anthropic's tools with a `type`)".to_owned(),
        });
    }
    Ok(())
}

fn check_system(request: &MessagesRequest) -> Result<(), RequestError> {
    for (i, block) in request.system.iter().flat_map(Content::blocks).enumerate() {
        if !matches!(block, ContentBlock::Text(_)) {
            return Err(RequestError::InvalidField {
                field: format!("system[{i}]"),
                problem: format!(
                    "is a `{}` block; the system prompt takes only `text` blocks: move it into the first user message",
                    block.kind()
                ),
            });
        }
    }
    Ok(())
}

fn check_message(
    index: usize,
    message: &AnthropicMessage,
    is_last: bool,
) -> Result<(), RequestError> {
    let invalid = |problem: String| RequestError::InvalidMessage {
        message: index,
        problem,
    };
    if message.content.is_empty() && !(is_last && message.role == AnthropicRole::Assistant) {
        return Err(invalid(
            "has empty content, which Anthropic accepts only in a final assistant message: give it content or remove it".to_owned(),
        ));
    }
    for block in message.blocks() {
        match (message.role, block) {
            (AnthropicRole::User, ContentBlock::ToolUse(call)) => {
                return Err(invalid(format!(
                    "a user message holds the `tool_use` block `{}`; tool calls belong to assistant messages: move it to the assistant message before, or remove it",
                    call.id
                )));
            }
            (
                AnthropicRole::User,
                ContentBlock::Thinking(_) | ContentBlock::RedactedThinking(_),
            ) => {
                return Err(invalid(format!(
                    "a user message holds a `{}` block; thinking blocks belong to assistant messages, unmodified",
                    block.kind()
                )));
            }
            (AnthropicRole::Assistant, ContentBlock::ToolResult(result)) => {
                return Err(invalid(format!(
                    "an assistant message holds the `tool_result` block for `{}`; results go in the user message right after the call",
                    result.tool_use_id
                )));
            }
            (_, ContentBlock::ToolUse(call)) if !call.input.get().trim_start().starts_with('{') => {
                return Err(invalid(format!(
                    "the `input` of `tool_use` block `{}` is `{}`, not a JSON object; Anthropic requires an object (`{{}}` for no arguments)",
                    call.id,
                    call.input.get()
                )));
            }
            (_, ContentBlock::ToolResult(result)) => {
                let nested = result.content.iter().flat_map(Content::blocks).find(|b| {
                    matches!(
                        b,
                        ContentBlock::ToolUse(_)
                            | ContentBlock::ToolResult(_)
                            | ContentBlock::Thinking(_)
                            | ContentBlock::RedactedThinking(_)
                    )
                });
                if let Some(nested) = nested {
                    return Err(invalid(format!(
                        "the `tool_result` block for `{}` contains a `{}` block; a result's content is text, images and documents",
                        result.tool_use_id,
                        nested.kind()
                    )));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The `tool_use` ids of the messages in `range`.
fn calls_in<'a>(messages: &'a [AnthropicMessage], range: &Range<usize>) -> HashSet<&'a str> {
    messages[range.clone()]
        .iter()
        .flat_map(AnthropicMessage::tool_uses)
        .map(|c| c.id.as_str())
        .collect()
}

fn check_pairing(messages: &[AnthropicMessage]) -> Result<(), RequestError> {
    let turns = turns(messages);
    for (t, turn) in turns.iter().enumerate() {
        if messages[turn.start].role == AnthropicRole::Assistant {
            let answered: HashSet<&str> = turns.get(t + 1).map_or_else(HashSet::new, |next| {
                messages[next.clone()]
                    .iter()
                    .flat_map(AnthropicMessage::tool_results)
                    .map(|r| r.tool_use_id.as_str())
                    .collect()
            });
            for i in turn.clone() {
                if let Some(call) = messages[i]
                    .tool_uses()
                    .find(|c| !answered.contains(c.id.as_str()))
                {
                    return Err(RequestError::UnansweredToolCall {
                        message: i,
                        id: call.id.clone(),
                    });
                }
            }
            continue;
        }
        let calls = match t.checked_sub(1).and_then(|p| turns.get(p)) {
            Some(previous) => calls_in(messages, previous),
            None => HashSet::new(),
        };
        let mut other: Option<usize> = None;
        let mut answered: HashSet<&str> = HashSet::new();
        for i in turn.clone() {
            let message = &messages[i];
            if let Content::Text(_) = message.content {
                other.get_or_insert(i);
            }
            for block in message.blocks() {
                let ContentBlock::ToolResult(result) = block else {
                    other.get_or_insert(i);
                    continue;
                };
                let id = result.tool_use_id.as_str();
                if let Some(at) = other {
                    let problem = if at == i {
                        format!(
                            "the `tool_result` block for `{id}` follows other content, and Anthropic wants a user message's `tool_result` blocks first: move the results before the text"
                        )
                    } else {
                        format!(
                            "the `tool_result` block for `{id}` follows the content of message {at}; Anthropic joins consecutive user messages into one turn, whose `tool_result` blocks must come first: put the results first"
                        )
                    };
                    return Err(RequestError::InvalidMessage {
                        message: i,
                        problem,
                    });
                }
                if !calls.contains(id) {
                    return Err(RequestError::OrphanToolResult {
                        message: i,
                        id: id.to_owned(),
                    });
                }
                if !answered.insert(id) {
                    return Err(RequestError::InvalidMessage {
                        message: i,
                        problem: format!("two `tool_result` blocks answer `{id}`: keep one"),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Why [`MessagesRequest::repair_tool_pairing`] removed a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RepairReason {
    /// A `tool_use` whose id an earlier `tool_use` already has.
    DuplicateCall,
    /// A `tool_use` with no `tool_result` in the user turn right after it.
    UnansweredCall,
    /// A `tool_result` whose call is not in the assistant turn right before it.
    OrphanResult,
    /// A second `tool_result` for the same call in one turn.
    DuplicateResult,
}

/// One block [`MessagesRequest::repair_tool_pairing`] removed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RemovedBlock {
    /// The index of its message, in the request as it was before the repair.
    pub message: usize,
    /// The call id of the `tool_use` or `tool_result`.
    pub id: String,
    /// Why it went.
    pub reason: RepairReason,
}

/// What [`MessagesRequest::repair_tool_pairing`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolPairingRepair {
    /// The blocks removed, in message order.
    pub removed_blocks: Vec<RemovedBlock>,
    /// The messages removed because no block was left in them, as indices in the
    /// request before the repair.
    pub removed_messages: Vec<usize>,
}

impl ToolPairingRepair {
    /// Whether the request was left as it was.
    pub fn is_empty(&self) -> bool {
        self.removed_blocks.is_empty() && self.removed_messages.is_empty()
    }
}

impl MessagesRequest {
    /// Removes the `tool_use` and `tool_result` blocks that break the pairing, and
    /// the messages left with no block, and says what it removed. Nothing else is
    /// touched.
    ///
    /// Removed: a `tool_use` whose id is already taken, a `tool_use` with no
    /// `tool_result` in the user turn right after it, a `tool_result` whose call is
    /// not in the assistant turn right before it, and a second `tool_result` for one
    /// call. (A turn is a run of messages of one role, which the API joins.)
    ///
    /// This changes messages, which [`ChatTrimmer`](crate::ChatTrimmer) never does:
    /// the trimmer drops a broken call or result whole, with its message. Use the
    /// repair when you would rather keep the rest of those messages, for example the
    /// text of an assistant message whose call was never answered. It does not move
    /// blocks, so a `tool_result` after text stays an error for
    /// [`validate`](WireRequest::validate): run it again after repairing.
    ///
    /// ```
    /// use ctxbudget::request::{WireRequest, anthropic::{MessagesRequest, RepairReason}};
    ///
    /// let mut request = MessagesRequest::from_json(r#"{"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
    ///   {"role": "user", "content": "List the files, then read main.rs"},
    ///   {"role": "assistant", "content": [
    ///     {"type": "text", "text": "Listing."},
    ///     {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}},
    ///     {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "main.rs"}}]},
    ///   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "main.rs"}]}
    /// ]}"#)?;
    /// assert!(request.validate().is_err());
    /// let repair = request.repair_tool_pairing();
    /// assert_eq!(repair.removed_blocks[0].id, "toolu_2");
    /// assert_eq!(repair.removed_blocks[0].reason, RepairReason::UnansweredCall);
    /// assert!(request.validate().is_ok());
    /// # Ok::<(), ctxbudget::request::RequestError>(())
    /// ```
    pub fn repair_tool_pairing(&mut self) -> ToolPairingRepair {
        let messages = self.messages();
        let mut remove: Vec<Vec<bool>> = messages
            .iter()
            .map(|m| vec![false; m.blocks().len()])
            .collect();
        let mut report = ToolPairingRepair::default();
        let mut mark = |message: usize, block: usize, id: &str, reason: RepairReason| {
            remove[message][block] = true;
            report.removed_blocks.push(RemovedBlock {
                message,
                id: id.to_owned(),
                reason,
            });
        };

        // Calls: the first of each id, answered in the next turn.
        let turns = turns(messages);
        let mut seen: HashSet<&str> = HashSet::new();
        let mut kept_calls: Vec<HashSet<&str>> = vec![HashSet::new(); turns.len()];
        for (t, turn) in turns.iter().enumerate() {
            if messages[turn.start].role != AnthropicRole::Assistant {
                continue;
            }
            let answered: HashSet<&str> = turns.get(t + 1).map_or_else(HashSet::new, |next| {
                messages[next.clone()]
                    .iter()
                    .flat_map(AnthropicMessage::tool_results)
                    .map(|r| r.tool_use_id.as_str())
                    .collect()
            });
            for i in turn.clone() {
                for (b, block) in messages[i].blocks().iter().enumerate() {
                    let ContentBlock::ToolUse(call) = block else {
                        continue;
                    };
                    if !seen.insert(&call.id) {
                        mark(i, b, &call.id, RepairReason::DuplicateCall);
                    } else if !answered.contains(call.id.as_str()) {
                        mark(i, b, &call.id, RepairReason::UnansweredCall);
                    } else {
                        kept_calls[t].insert(&call.id);
                    }
                }
            }
        }
        // Results: of a kept call of the turn before, once.
        for (t, turn) in turns.iter().enumerate() {
            if messages[turn.start].role != AnthropicRole::User {
                continue;
            }
            let empty = HashSet::new();
            let calls = t.checked_sub(1).map_or(&empty, |p| &kept_calls[p]);
            let mut answered: HashSet<&str> = HashSet::new();
            for i in turn.clone() {
                for (b, block) in messages[i].blocks().iter().enumerate() {
                    let ContentBlock::ToolResult(result) = block else {
                        continue;
                    };
                    let id = result.tool_use_id.as_str();
                    if !calls.contains(id) {
                        mark(i, b, id, RepairReason::OrphanResult);
                    } else if !answered.insert(id) {
                        mark(i, b, id, RepairReason::DuplicateResult);
                    }
                }
            }
        }
        report.removed_blocks.sort_by_key(|r| r.message);
        if report.removed_blocks.is_empty() {
            return report;
        }

        let mut messages = self.messages_mut();
        let mut index = 0;
        messages.retain_mut(|message| {
            let i = index;
            index += 1;
            if let Content::Blocks(blocks) = &mut message.content {
                if remove[i].iter().any(|&r| r) {
                    let mut b = 0;
                    blocks.retain(|_| {
                        let keep = !remove[i].get(b).copied().unwrap_or(false);
                        b += 1;
                        keep
                    });
                    if blocks.is_empty() {
                        report.removed_messages.push(i);
                        return false;
                    }
                }
            }
            true
        });
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> AnthropicMessage {
        AnthropicMessage::user(text)
    }

    #[test]
    fn consecutive_messages_of_one_role_are_one_turn() {
        let messages = [
            user("a"),
            user("b"),
            AnthropicMessage::assistant("c"),
            user("d"),
            AnthropicMessage::assistant("e"),
            AnthropicMessage::assistant("f"),
        ];
        assert_eq!(turns(&messages), vec![0..2, 2..3, 3..4, 4..6]);
        assert!(turns(&[]).is_empty());
    }
}
