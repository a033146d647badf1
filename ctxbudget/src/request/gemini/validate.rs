//! The checks of a Gemini request: every problem names where it is
//! (`contents[12].parts[1]`, `tools[0]`) and what to fix.

use std::collections::HashMap;

use super::content::GeminiContent;
use super::part::PartKind;
use super::request::GeminiRequest;
use crate::request::error::RequestError;

fn invalid(field: String, problem: impl Into<String>) -> RequestError {
    RequestError::InvalidField {
        field,
        problem: problem.into(),
    }
}

/// Checks the request (see [the module docs](super#checks)).
pub(super) fn validate(request: &GeminiRequest) -> Result<(), RequestError> {
    if let Some(system) = request.system_instruction() {
        let content = GeminiContent::from_raw(system.clone());
        if let Some((part, problem)) = &content.view.problem {
            let field = match part {
                Some(part) => format!("systemInstruction.parts[{part}]"),
                None => "systemInstruction".to_owned(),
            };
            return Err(invalid(field, problem.clone()));
        }
    }
    for (index, tool) in request.tools().iter().enumerate() {
        check_tool(index, tool.get())?;
    }
    let contents = request.contents();
    if contents.is_empty() && request.cached_content().is_none() {
        return Err(invalid(
            "contents".to_owned(),
            "is empty; give at least one content, such as {\"role\": \"user\", \"parts\": [{\"text\": \"Hi\"}]}",
        ));
    }
    // Every call id made, and where.
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (index, content) in contents.iter().enumerate() {
        let field = |part: Option<usize>| match part {
            Some(part) => format!("contents[{index}].parts[{part}]"),
            None => format!("contents[{index}]"),
        };
        if let Some((part, problem)) = &content.view.problem {
            return Err(invalid(field(*part), problem.clone()));
        }
        match content.role_name() {
            None | Some("user" | "model" | "function" | "tool") => {}
            Some(other) => {
                return Err(invalid(
                    field(None),
                    format!(
                        "has the role `{other}`; give \"user\" or \"model\" (put system text in systemInstruction)"
                    ),
                ));
            }
        }
        let model = content.is_model();
        let previous = index.checked_sub(1).and_then(|i| contents.get(i));
        let mut call = 0usize;
        let mut answered = 0usize;
        for (at, part) in content.view.parts.iter().enumerate() {
            match &part.kind {
                PartKind::Call { name, .. } if !model => {
                    return Err(invalid(
                        field(Some(at)),
                        format!(
                            "is a functionCall of `{name}` in a user content; calls are the model's, give this content \"role\": \"model\""
                        ),
                    ));
                }
                PartKind::Call { .. } => {
                    let id = content.calls.get(call).map_or("", String::as_str);
                    call += 1;
                    if let Some(first) = ids.insert(id, index) {
                        return Err(invalid(
                            field(Some(at)),
                            format!(
                                "repeats the call id `{id}` of contents[{first}]; call ids must be unique in a request"
                            ),
                        ));
                    }
                }
                PartKind::Response(response) if model => {
                    return Err(invalid(
                        field(Some(at)),
                        format!(
                            "is a functionResponse of `{}` in a model content; give it to the user content after the call",
                            response.name
                        ),
                    ));
                }
                PartKind::Response(response) => {
                    let id = content.results.get(answered).map_or("", String::as_str);
                    answered += 1;
                    let called =
                        previous.is_some_and(|p| p.is_model() && p.calls.iter().any(|c| c == id));
                    if !called {
                        return Err(invalid(
                            field(Some(at)),
                            format!(
                                "is a functionResponse of `{}` with no call before it; the model content right before must make that functionCall",
                                response.name
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
        check_pairs(contents, index)?;
    }
    Ok(())
}

/// Each response of content `index` answers its call once, and each call of a
/// model content has its response in the content right after it.
fn check_pairs(contents: &[GeminiContent], index: usize) -> Result<(), RequestError> {
    let content = &contents[index];
    let model = content.is_model();
    let field = || format!("contents[{index}]");
    let mut seen: Vec<&str> = Vec::new();
    for id in &content.results {
        if seen.contains(&id.as_str()) {
            return Err(invalid(
                field(),
                format!(
                    "answers call `{id}` twice; each functionCall has one functionResponse, remove one"
                ),
            ));
        }
        seen.push(id);
    }
    if model && !content.calls.is_empty() {
        let next = contents.get(index + 1);
        if let Some(missing) = content
            .calls
            .iter()
            .position(|id| next.is_none_or(|n| n.is_model() || !n.results.contains(id)))
        {
            let name = content.tool_calls_named().nth(missing).unwrap_or_default();
            return Err(invalid(
                field(),
                format!(
                    "calls `{name}` with no functionResponse in the content right after it; add the response there, or remove the call"
                ),
            ));
        }
    }
    Ok(())
}

impl GeminiContent {
    /// The names of the content's calls, in order.
    fn tool_calls_named(&self) -> impl Iterator<Item = &str> {
        self.view.parts.iter().filter_map(|p| match &p.kind {
            PartKind::Call { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }
}

/// A tool is an object; each of its `functionDeclarations` has a string `name`.
fn check_tool(index: usize, tool: &str) -> Result<(), RequestError> {
    #[derive(serde::Deserialize)]
    struct Tool {
        #[serde(
            default,
            rename = "functionDeclarations",
            alias = "function_declarations"
        )]
        declarations: Option<Vec<serde_json::Value>>,
    }
    let field = || format!("tools[{index}]");
    let tool: Tool = serde_json::from_str(tool).map_err(|e| {
        invalid(
            field(),
            format!("cannot be read ({e}); give functionDeclarations as an array of objects"),
        )
    })?;
    for (at, declaration) in tool.declarations.iter().flatten().enumerate() {
        if !declaration
            .get("name")
            .is_some_and(serde_json::Value::is_string)
        {
            return Err(invalid(
                format!("tools[{index}].functionDeclarations[{at}]"),
                "has no string `name`; give each function the name its calls use",
            ));
        }
    }
    Ok(())
}
