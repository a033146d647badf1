//! The checks of a Responses request: every problem names where it is
//! (`input[12]`, `tools[0]`) and what to fix.

use std::collections::HashMap;

use super::item::{ItemKind, Side};
use super::request::ResponsesRequest;
use crate::request::error::RequestError;

fn invalid(field: String, problem: impl Into<String>) -> RequestError {
    RequestError::InvalidField {
        field,
        problem: problem.into(),
    }
}

/// Checks the request (see [the module docs](super#checks)).
pub(super) fn validate(request: &ResponsesRequest) -> Result<(), RequestError> {
    if let Some(instructions) = &request.instructions {
        let text = instructions.get();
        if !(text.starts_with('"') || text.starts_with('[')) {
            return Err(invalid(
                "instructions".to_owned(),
                "is neither a string nor an array of items; give the instructions as a string",
            ));
        }
    }
    for (index, tool) in request.tools.iter().flatten().enumerate() {
        check_tool(index, tool)?;
    }
    // Calls by id: the item that makes each, and whether an output answers it.
    let server_history = request.previous_response_id.is_some();
    // Whether the items since the last `item_reference` are all outputs of calls
    // not in the input: those answer the stored call it names.
    let mut after_reference = false;
    let mut calls: HashMap<&str, (usize, bool)> = HashMap::new();
    let items: Vec<_> = request.items().collect();
    for (index, item) in items.iter().enumerate() {
        let field = || format!("input[{index}]");
        if let Some(problem) = &item.view.problem {
            return Err(invalid(field(), problem.clone()));
        }
        let referenced = after_reference;
        after_reference = item.kind() == ItemKind::ItemReference;
        match (item.kind(), item.call_id()) {
            (ItemKind::Call, Some(id)) => {
                if let Some((first, _)) = calls.insert(id, (index, false)) {
                    return Err(invalid(
                        field(),
                        format!(
                            "repeats the call id `{id}` of input[{first}]; call ids must be unique in a request"
                        ),
                    ));
                }
            }
            (ItemKind::CallOutput, Some(id)) => match calls.get_mut(id) {
                Some((_, answered @ false)) => *answered = true,
                Some((_, true)) => {
                    return Err(invalid(
                        field(),
                        format!(
                            "is a second output for call `{id}`; each call has one output, remove this one"
                        ),
                    ));
                }
                None if referenced => {
                    calls.insert(id, (index, true));
                    after_reference = true;
                }
                None if server_history => {}
                None => {
                    return Err(invalid(
                        field(),
                        format!(
                            "answers call id `{id}`, which no earlier item calls; add its call (or an item_reference to it) before it, or set previous_response_id"
                        ),
                    ));
                }
            },
            (ItemKind::Reasoning, _) => {
                let followed = items
                    .get(index.saturating_add(1))
                    .is_some_and(|next| next.side() == Side::Assistant);
                if !followed {
                    return Err(invalid(
                        field(),
                        "is a reasoning item without the output item it came with after it; keep that item after it or remove the reasoning",
                    ));
                }
            }
            _ => {}
        }
    }
    // Function and custom tool calls need their output in the request (other call
    // types, such as a computer_call awaiting a screenshot, are left alone).
    let mut unanswered: Vec<(usize, &str)> = calls
        .iter()
        .filter(|(_, (index, answered))| {
            !answered
                && matches!(
                    items[*index].item_type(),
                    Some("function_call" | "custom_tool_call")
                )
        })
        .map(|(id, (index, _))| (*index, *id))
        .collect();
    unanswered.sort_unstable();
    if let Some((index, id)) = unanswered.first() {
        return Err(invalid(
            format!("input[{index}]"),
            format!(
                "call `{id}` has no output after it; add a function_call_output with its call_id, or remove the call"
            ),
        ));
    }
    Ok(())
}

/// A tool is an object with a string `type`; a `function` or `custom` tool has a
/// `name`.
fn check_tool(index: usize, tool: &crate::request::openai::RawJson) -> Result<(), RequestError> {
    #[derive(serde::Deserialize)]
    struct Shape {
        #[serde(rename = "type")]
        kind: Option<serde_json::Value>,
        name: Option<serde_json::Value>,
    }
    let field = || format!("tools[{index}]");
    let shape: Shape = tool
        .parse()
        .map_err(|e| invalid(field(), format!("cannot be read ({e}); send each key once")))?;
    let Some(serde_json::Value::String(kind)) = shape.kind else {
        return Err(invalid(
            field(),
            "has no string `type`; give it one, such as \"function\" or \"web_search\"",
        ));
    };
    let named = matches!(shape.name, Some(serde_json::Value::String(_)));
    if matches!(kind.as_str(), "function" | "custom") && !named {
        return Err(invalid(
            field(),
            format!("is a {kind} tool without a string `name`; give it the name its calls use"),
        ));
    }
    Ok(())
}
