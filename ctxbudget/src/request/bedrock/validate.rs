//! The checks of a Bedrock Converse request: every problem names where it is
//! (`messages[12].content[1]`, `toolConfig.tools[0]`) and what to fix.

use std::collections::HashMap;

use super::block::BlockKind;
use super::request::BedrockRequest;
use crate::request::error::RequestError;

fn invalid(field: String, problem: impl Into<String>) -> RequestError {
    RequestError::InvalidField {
        field,
        problem: problem.into(),
    }
}

/// Checks the request (see [the module docs](super#checks)).
pub(super) fn validate(request: &BedrockRequest) -> Result<(), RequestError> {
    check_tools(request)?;
    let messages = request.messages();
    let Some(first) = messages.first() else {
        return Err(invalid(
            "messages".to_owned(),
            "is empty; give at least one message, such as {\"role\": \"user\", \"content\": [{\"text\": \"Hi\"}]}",
        ));
    };
    if first.is_assistant() {
        return Err(invalid(
            "messages[0]".to_owned(),
            "is an assistant message; Converse wants the first message from the user",
        ));
    }
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (index, message) in messages.iter().enumerate() {
        let field = |block: Option<usize>| match block {
            Some(block) => format!("messages[{index}].content[{block}]"),
            None => format!("messages[{index}]"),
        };
        check_message(message, index)?;
        let assistant = message.is_assistant();
        let previous = index.checked_sub(1).and_then(|i| messages.get(i));
        let mut answered: Vec<&str> = Vec::new();
        for (at, block) in message.view.blocks.iter().enumerate() {
            match &block.kind {
                BlockKind::ToolUse { name, .. } if !assistant => {
                    return Err(invalid(
                        field(Some(at)),
                        format!(
                            "is a toolUse of `{name}` in a user message; tool uses are the assistant's"
                        ),
                    ));
                }
                BlockKind::ToolUse { id, .. } => {
                    if let Some(first) = ids.insert(id, index) {
                        return Err(invalid(
                            field(Some(at)),
                            format!(
                                "repeats the toolUseId `{id}` of messages[{first}]; ids must be unique in a request"
                            ),
                        ));
                    }
                }
                BlockKind::ToolResult(result) if assistant => {
                    return Err(invalid(
                        field(Some(at)),
                        format!(
                            "is a toolResult for `{}` in an assistant message; give it to the user message after the toolUse",
                            result.id
                        ),
                    ));
                }
                BlockKind::ToolResult(result) => {
                    let called = previous.is_some_and(|p| {
                        p.is_assistant()
                            && p.view.blocks.iter().any(|b| matches!(&b.kind, BlockKind::ToolUse { id, .. } if *id == result.id))
                    });
                    if !called {
                        return Err(invalid(
                            field(Some(at)),
                            format!(
                                "is a toolResult for `{}` with no toolUse of that id in the assistant message right before; add the toolUse or remove the result",
                                result.id
                            ),
                        ));
                    }
                    if answered.contains(&result.id.as_str()) {
                        return Err(invalid(
                            field(Some(at)),
                            format!(
                                "is a second toolResult for `{}`; each toolUse has one result, remove one",
                                result.id
                            ),
                        ));
                    }
                    answered.push(&result.id);
                }
                _ => {}
            }
        }
        check_answered(messages, index)?;
    }
    Ok(())
}

/// Message `index` reads, and has the role `user` or `assistant`.
fn check_message(
    message: &super::message::BedrockMessage,
    index: usize,
) -> Result<(), RequestError> {
    if let Some((block, problem)) = &message.view.problem {
        let field = match block {
            Some(block) => format!("messages[{index}].content[{block}]"),
            None => format!("messages[{index}]"),
        };
        return Err(invalid(field, problem.clone()));
    }
    let problem = match message.role_name() {
        Some("user" | "assistant") => return Ok(()),
        Some(other) => format!(
            "has the role `{other}`; give \"user\" or \"assistant\" (put system text in `system`)"
        ),
        None => "has no string `role`; give \"user\" or \"assistant\"".to_owned(),
    };
    Err(invalid(format!("messages[{index}]"), problem))
}

/// Each `toolUse` of assistant message `index` has its result in the message
/// right after it.
fn check_answered(
    messages: &[super::message::BedrockMessage],
    index: usize,
) -> Result<(), RequestError> {
    let message = &messages[index];
    let assistant = message.is_assistant();
    let field = || format!("messages[{index}]");
    if assistant {
        let next = messages.get(index + 1);
        for block in &message.view.blocks {
            if let BlockKind::ToolUse { id, name, .. } = &block.kind {
                let answered =
                    next.is_some_and(|n| !n.is_assistant() && n.result_ids().any(|r| r == id));
                if !answered {
                    return Err(invalid(
                        field(),
                        format!(
                            "uses the tool `{name}` (`{id}`) with no toolResult in the message right after it; add the result there, or remove the toolUse"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `system` blocks read; each tool has a `toolSpec` with a string `name`, or is
/// a `cachePoint`.
fn check_tools(request: &BedrockRequest) -> Result<(), RequestError> {
    if let Some(system) = request.get("system") {
        let blocks: Vec<&serde_json::value::RawValue> =
            serde_json::from_str(system.get()).unwrap_or_default();
        for (index, block) in blocks.into_iter().enumerate() {
            if let Err(problem) = super::block::read_block(block) {
                return Err(invalid(format!("system[{index}]"), problem));
            }
        }
    }
    let Some(config) = request.get("toolConfig") else {
        return Ok(());
    };
    let config: serde_json::Value = config.to_value().map_err(|e| {
        invalid(
            "toolConfig".to_owned(),
            format!("cannot be read ({e}); nest it less deeply"),
        )
    })?;
    let Some(tools) = config.get("tools") else {
        return Ok(());
    };
    let Some(tools) = tools.as_array() else {
        return Err(invalid(
            "toolConfig.tools".to_owned(),
            "is not an array; give [{\"toolSpec\": ...}]",
        ));
    };
    for (index, tool) in tools.iter().enumerate() {
        if tool.get("cachePoint").is_some() {
            continue;
        }
        let named = tool
            .get("toolSpec")
            .and_then(|s| s.get("name"))
            .is_some_and(serde_json::Value::is_string);
        if !named {
            return Err(invalid(
                format!("toolConfig.tools[{index}]"),
                "has no toolSpec with a string `name`; give {\"toolSpec\": {\"name\": ..., \"inputSchema\": {\"json\": {...}}}}",
            ));
        }
    }
    Ok(())
}
