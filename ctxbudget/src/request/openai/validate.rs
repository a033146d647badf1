//! [`ChatRequest::validate`](crate::request::WireRequest::validate): the checks that
//! catch what OpenAI rejects with a 400 and what trimming depends on.

use std::collections::{HashMap, HashSet};

use super::ChatRequest;
use super::content::{Content, ContentPart};
use super::message::{MessageRole, RequestMessage};
use crate::request::RequestError;

pub(super) fn validate(request: &ChatRequest) -> Result<(), RequestError> {
    let messages = &request.messages;
    if messages.is_empty() {
        return Err(RequestError::InvalidField {
            field: "messages".to_owned(),
            problem: "is empty: OpenAI needs at least one message; keep the user's latest message"
                .to_owned(),
        });
    }
    for (index, message) in messages.iter().enumerate() {
        check_message(index, message)?;
    }
    let mut calls: HashMap<&str, usize> = HashMap::new();
    for (index, message) in messages.iter().enumerate() {
        for id in message.call_ids() {
            if let Some(first) = calls.insert(id, index) {
                return Err(RequestError::DuplicateCallId {
                    id: id.to_owned(),
                    first,
                    second: index,
                });
            }
        }
    }
    check_pairs(messages)
}

fn invalid(message: usize, problem: impl Into<String>) -> RequestError {
    RequestError::InvalidMessage {
        message,
        problem: problem.into(),
    }
}

fn part_kind(part: &ContentPart) -> &str {
    part.kind().unwrap_or("untyped")
}

/// The checks on one message alone: required fields and the content a role takes.
fn check_message(index: usize, m: &RequestMessage) -> Result<(), RequestError> {
    let role = &m.role;
    if !matches!(role, MessageRole::Assistant) {
        if m.tool_calls.is_some() {
            return Err(invalid(
                index,
                format!(
                    "a `{role}` message has `tool_calls`; only assistant messages make tool calls"
                ),
            ));
        }
        if m.function_call.is_some() {
            return Err(invalid(
                index,
                format!(
                    "a `{role}` message has a `function_call`; only assistant messages make calls"
                ),
            ));
        }
    }
    match role {
        MessageRole::System | MessageRole::Developer | MessageRole::Tool => {
            if *role == MessageRole::Tool && m.tool_call_id.as_deref().is_none_or(str::is_empty) {
                return Err(invalid(
                    index,
                    "a `tool` message has no `tool_call_id`; set it to the id of the call it answers",
                ));
            }
            let content = required_content(index, m)?;
            if let Some(part) = content
                .parts()
                .iter()
                .find(|p| !matches!(p, ContentPart::Text(_)))
            {
                return Err(invalid(
                    index,
                    format!(
                        "a `{role}` message takes only text parts, not `{}`; move that part to a user message",
                        part_kind(part)
                    ),
                ));
            }
        }
        MessageRole::User => {
            let content = required_content(index, m)?;
            if content
                .parts()
                .iter()
                .any(|p| matches!(p, ContentPart::Refusal(_)))
            {
                return Err(invalid(
                    index,
                    "a `user` message has a `refusal` part; refusals belong in assistant messages",
                ));
            }
        }
        MessageRole::Assistant => check_assistant(index, m)?,
        MessageRole::Function => {
            if m.name.as_deref().is_none_or(str::is_empty) {
                return Err(invalid(
                    index,
                    "a `function` message has no `name`; set it to the function whose call it answers",
                ));
            }
        }
        MessageRole::Other(_) => {}
    }
    for part in m.content.iter().flat_map(Content::parts) {
        if let ContentPart::ImageUrl(image) = part {
            if image
                .image_url
                .as_ref()
                .and_then(|i| i.url.as_ref())
                .is_none()
            {
                return Err(invalid(
                    index,
                    "an `image_url` part has no `url`; give the image as `{\"url\": \"https://…\"}` or a data: URL",
                ));
            }
        }
    }
    Ok(())
}

fn required_content(index: usize, m: &RequestMessage) -> Result<&Content, RequestError> {
    m.content.as_ref().ok_or_else(|| {
        invalid(
            index,
            format!(
                "a `{}` message has no `content`; give it a string or an array of parts",
                m.role
            ),
        )
    })
}

fn check_assistant(index: usize, m: &RequestMessage) -> Result<(), RequestError> {
    if let Some(part) = m.content.iter().flat_map(Content::parts).find(|p| {
        !matches!(
            p,
            ContentPart::Text(_) | ContentPart::Refusal(_) | ContentPart::Other(_)
        )
    }) {
        return Err(invalid(
            index,
            format!(
                "an `assistant` message takes only text and refusal parts, not `{}`; move that part to a user message",
                part_kind(part)
            ),
        ));
    }
    if let Some(calls) = &m.tool_calls {
        if calls.is_empty() {
            return Err(invalid(
                index,
                "an `assistant` message has an empty `tool_calls` array; remove the field or add the calls",
            ));
        }
        if let Some(n) = calls
            .iter()
            .position(|c| c.id.as_deref().is_none_or(str::is_empty))
        {
            return Err(invalid(
                index,
                format!("tool call {n} has no `id`; give every call an id its result can answer"),
            ));
        }
    }
    let says_something = m.content.is_some()
        || m.tool_calls.is_some()
        || m.function_call.is_some()
        || m.refusal.is_some()
        || m.extra.contains_key("audio");
    if !says_something {
        return Err(invalid(
            index,
            "an `assistant` message has no `content`, `tool_calls` or `function_call`; give it one of them",
        ));
    }
    Ok(())
}

/// Every tool result follows its call (only other results between), and every call
/// has its results: the units the trimmer keeps or drops whole.
fn check_pairs(messages: &[RequestMessage]) -> Result<(), RequestError> {
    let mut i = 0;
    while let Some(message) = messages.get(i) {
        let is_call = message.role == MessageRole::Assistant
            && (message.tool_calls.as_ref().is_some_and(|c| !c.is_empty())
                || message.function_call.is_some());
        if !is_call {
            match message.role {
                MessageRole::Tool => {
                    return Err(RequestError::OrphanToolResult {
                        message: i,
                        id: message.tool_call_id.clone().unwrap_or_default(),
                    });
                }
                MessageRole::Function => return Err(orphan_function(i, message)),
                _ => {}
            }
            i += 1;
            continue;
        }
        let ids: HashSet<&str> = message.call_ids().collect();
        let legacy = message
            .function_call
            .as_ref()
            .map(|f| f.name.as_deref().unwrap_or_default());
        let mut answered: HashSet<&str> = HashSet::with_capacity(ids.len());
        let mut legacy_answered = false;
        let mut j = i + 1;
        while let Some(result) = messages.get(j) {
            match result.role {
                MessageRole::Tool => {
                    let id = result.tool_call_id.as_deref().unwrap_or_default();
                    if !ids.contains(id) {
                        return Err(RequestError::OrphanToolResult {
                            message: j,
                            id: id.to_owned(),
                        });
                    }
                    if !answered.insert(id) {
                        return Err(invalid(
                            j,
                            format!(
                                "a second `tool` message answers `{id}`: keep one result per call"
                            ),
                        ));
                    }
                }
                MessageRole::Function => {
                    if legacy.is_none() || result.name.as_deref() != legacy {
                        return Err(orphan_function(j, result));
                    }
                    legacy_answered = true;
                }
                _ => break,
            }
            j += 1;
        }
        let mut unanswered: Vec<&str> = ids.difference(&answered).copied().collect();
        unanswered.sort_unstable();
        if let Some(id) = unanswered.first() {
            return Err(RequestError::UnansweredToolCall {
                message: i,
                id: (*id).to_owned(),
            });
        }
        if let (Some(name), false) = (legacy, legacy_answered) {
            return Err(invalid(
                i,
                format!(
                    "the `function_call` of `{name}` has no `function` message right after it; add its result or remove the call"
                ),
            ));
        }
        i = j;
    }
    Ok(())
}

fn orphan_function(index: usize, message: &RequestMessage) -> RequestError {
    invalid(
        index,
        format!(
            "a `function` message answers `{}`, which the assistant message right before it does not call; remove the result or add its `function_call`",
            message.name.as_deref().unwrap_or_default()
        ),
    )
}
