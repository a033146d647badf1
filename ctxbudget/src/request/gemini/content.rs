//! [`GeminiContent`]: one element of a Gemini request's `contents`, kept as the
//! exact JSON text it was, with what counting, pairing and editing read from it
//! worked out once; and the [`ChatMessage`] view of it.

use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use super::media::{MEDIA_TOKENS, RuleStamp, media_tokens};
use super::part::{PartKind, PartView, read_part, string};
use crate::chat::{ChatMessage, Role, ToolCallRef};
use crate::count::TokenCounter;
use crate::request::openai::RawJson;

/// What ctxbudget reads from a content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct View {
    /// The `role`, when it is a string.
    pub(crate) role: Option<String>,
    /// The parts, in order.
    pub(crate) parts: Vec<PartView>,
    /// What is wrong with the content, for validation: the part's index (or
    /// `None` for the content itself) and the problem.
    pub(crate) problem: Option<(Option<usize>, String)>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Keys<'a> {
    #[serde(borrow)]
    role: Option<&'a RawValue>,
    #[serde(borrow)]
    parts: Option<&'a RawValue>,
}

impl View {
    fn read(json: &str) -> View {
        let mut view = View::default();
        let keys: Keys<'_> = match serde_json::from_str(json) {
            Ok(keys) => keys,
            Err(e) => {
                view.problem = Some((None, format!("cannot be read ({e}); send each key once")));
                return view;
            }
        };
        view.role = string(keys.role);
        if keys.role.is_some_and(|r| r.get() != "null") && view.role.is_none() {
            view.problem = Some((
                None,
                "has a `role` that is not a string; give \"user\" or \"model\"".to_owned(),
            ));
        }
        let Some(parts) = keys.parts.filter(|p| p.get() != "null") else {
            view.problem = Some((
                None,
                "has no `parts`; give it an array of parts such as [{\"text\": \"Hi\"}]".to_owned(),
            ));
            return view;
        };
        let Ok(parts) = serde_json::from_str::<Vec<&RawValue>>(parts.get()) else {
            view.problem = Some((
                None,
                "has `parts` that is not an array; give an array of part objects".to_owned(),
            ));
            return view;
        };
        view.parts.reserve(parts.len());
        for (index, part) in parts.into_iter().enumerate() {
            match read_part(part) {
                Ok(part) => view.parts.push(part),
                Err(problem) => {
                    if view.problem.is_none() {
                        view.problem = Some((Some(index), problem));
                    }
                    view.parts.push(PartView {
                        kind: PartKind::Other(crate::request::json::compact_json(part.get())),
                        thought: false,
                        signature: false,
                        resolution: super::media::Resolution::Default,
                    });
                }
            }
        }
        view
    }
}

/// One element of a Gemini request's `contents`: its exact JSON text, and what
/// ctxbudget reads from it.
///
/// A content is written back as the text it was read from, byte for byte, unless
/// a context edit changed it. As a [`ChatMessage`]:
///
/// - a content whose `role` is `model` is an [`Assistant`](Role::Assistant)
///   message whose [tool calls](ChatMessage::tool_calls) are its `functionCall`
///   parts; any other (`user`, or no role) is a [`User`](Role::User) message whose
///   [results](ChatMessage::tool_result_ids) are its `functionResponse` parts;
/// - a call without an `id` is paired with the `functionResponse` of the same
///   `name` in the content right after it, in order; its id is then one
///   ctxbudget makes up (`name#n`), never written to the body;
/// - a model content with a `thoughtSignature` or a thought part
///   [starts with thinking](ChatMessage::starts_with_thinking): the tool loop it
///   opens after the latest user content is kept whole, signatures and all.
///
/// ```
/// use ctxbudget::chat::{ChatMessage, Role};
/// use ctxbudget::request::gemini::GeminiContent;
///
/// let call = GeminiContent::from_json(r#"{"role": "model", "parts": [
///     {"functionCall": {"name": "ls", "args": {"dir": "."}}, "thoughtSignature": "c2ln"}]}"#)?;
/// assert_eq!(call.role(), Role::Assistant);
/// assert_eq!(call.tool_calls().next().map(|c| c.arguments), Some(r#"{"dir":"."}"#));
/// assert!(call.starts_with_thinking());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone)]
pub struct GeminiContent {
    raw: RawJson,
    pub(crate) view: View,
    /// The id of each `functionCall` part, in order: its `id`, or one made up.
    pub(crate) calls: Vec<String>,
    /// The id of the call each `functionResponse` part answers, in order.
    pub(crate) results: Vec<String>,
    /// The texts, for [`ChatMessage::content`], joined when first asked for.
    text: OnceLock<String>,
    /// The image rule of the request's model.
    pub(crate) rule: RuleStamp,
}

impl GeminiContent {
    /// Reads one content from its JSON text, which must be an object.
    ///
    /// # Errors
    ///
    /// When `json` is not a JSON object.
    pub fn from_json(json: impl Into<String>) -> Result<Self, serde_json::Error> {
        let raw = RawJson::from_json(json)?;
        if !raw.get().trim_start().starts_with('{') {
            return Err(de::Error::custom(
                "a content must be a JSON object, such as {\"role\": \"user\", \"parts\": [{\"text\": \"Hi\"}]}",
            ));
        }
        let mut content = Self::from_raw(raw);
        content.pair_alone();
        Ok(content)
    }

    /// A `user` content of one text part.
    pub fn user(text: &str) -> Self {
        let value = serde_json::json!({"role": "user", "parts": [{"text": text}]});
        // A map of strings always serializes.
        let raw = RawJson::from_value(&value)
            .unwrap_or_else(|_| RawJson::from(RawValue::NULL.to_owned()));
        Self::from_raw(raw)
    }

    pub(crate) fn from_raw(raw: RawJson) -> Self {
        let view = View::read(raw.get());
        Self {
            raw,
            view,
            calls: Vec::new(),
            results: Vec::new(),
            text: OnceLock::new(),
            rule: RuleStamp::default(),
        }
    }

    /// Pairs the content's calls and results as if it stood alone: calls by their
    /// `id` or a made-up one, results by their `id` or their `name`.
    fn pair_alone(&mut self) {
        let mut made = 0usize;
        pair(std::slice::from_mut(self), &mut made);
    }

    /// The content's JSON text.
    pub fn raw(&self) -> &RawJson {
        &self.raw
    }

    /// The `role`, when it is a string.
    pub fn role_name(&self) -> Option<&str> {
        self.view.role.as_deref()
    }

    /// Whether the content is the model's (`"role": "model"`).
    pub fn is_model(&self) -> bool {
        self.view.role.as_deref() == Some("model")
    }

    /// Changes the content's JSON through `edit` (on its value as a tree), then
    /// reads it again, keeping its pairing. Returns whether the text changed; a
    /// content that does not parse into a tree, or an edit that returns false,
    /// changes nothing.
    pub(crate) fn edit_value(
        &mut self,
        edit: impl FnOnce(&mut Vec<serde_json::Value>) -> bool,
    ) -> bool {
        let Ok(serde_json::Value::Object(mut map)) = self.raw.to_value() else {
            return false;
        };
        let Some(parts) = map
            .get_mut("parts")
            .and_then(serde_json::Value::as_array_mut)
        else {
            return false;
        };
        if !edit(parts) {
            return false;
        }
        let Ok(raw) = RawJson::from_value(&map) else {
            return false;
        };
        if raw.get() == self.raw.get() {
            return false;
        }
        let view = View::read(raw.get());
        self.raw = raw;
        self.view = view;
        self.text = OnceLock::new();
        true
    }

    fn join_texts(&self) -> String {
        let mut text = String::new();
        for part in &self.view.parts {
            let piece = match &part.kind {
                PartKind::Text(t) => t.as_str(),
                PartKind::Response(r) => r.text.as_str(),
                PartKind::Other(json) => json.as_str(),
                _ => continue,
            };
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(piece);
        }
        text
    }
}

impl PartialEq for GeminiContent {
    fn eq(&self, other: &Self) -> bool {
        self.raw.get() == other.raw.get()
            && self.calls == other.calls
            && self.results == other.results
    }
}

impl Eq for GeminiContent {}

impl fmt::Debug for GeminiContent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw.get())
    }
}

/// Written as the JSON text it was read from.
impl Serialize for GeminiContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

/// Read from any JSON object (pairs its calls and results as if it stood
/// alone; a [`GeminiRequest`](super::GeminiRequest) pairs them across its
/// contents).
impl<'de> Deserialize<'de> for GeminiContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(deserializer)?;
        if !raw.get().starts_with('{') {
            return Err(de::Error::invalid_type(
                de::Unexpected::Other(first_word(raw.get())),
                &"a content object with `role` and `parts`",
            ));
        }
        Ok(Self::from_raw(raw))
    }
}

/// What a JSON value that is not an object is, for an error message.
pub(crate) fn first_word(json: &str) -> &'static str {
    match json.as_bytes().first() {
        Some(b'"') => "a string",
        Some(b'[') => "an array",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// What a part costs as content, its call aside (the chat format counts a
/// `functionCall` as a tool call): see [the module docs](super#counting).
pub(crate) fn part_tokens<C: TokenCounter + ?Sized>(
    part: &PartView,
    counter: &C,
    image: &dyn Fn(&PartView) -> usize,
) -> usize {
    match &part.kind {
        PartKind::Text(text) => counter.count(text),
        PartKind::Call { .. } => 0,
        PartKind::Response(r) => response_tokens(r, counter.count(&r.text), counter),
        PartKind::Inline { .. } | PartKind::File => image(part),
        PartKind::Other(json) => counter.count(json),
    }
}

/// What a `functionResponse` costs with a result text of `text_tokens`: its
/// name, the text, the rest of its `response`, and the media it carries.
pub(crate) fn response_tokens<C: TokenCounter + ?Sized>(
    response: &super::part::Response,
    text_tokens: usize,
    counter: &C,
) -> usize {
    counter
        .count(&response.name)
        .saturating_add(text_tokens)
        .saturating_add(if response.rest.is_empty() {
            0
        } else {
            counter.count(&response.rest)
        })
        .saturating_add(response.media.saturating_mul(MEDIA_TOKENS))
}

/// As the chat engine sees the content: see [`GeminiContent`].
impl ChatMessage for GeminiContent {
    fn role(&self) -> Role {
        if self.is_model() {
            Role::Assistant
        } else {
            Role::User
        }
    }

    /// The texts of its parts, one a line: text and thought parts, result texts,
    /// and the JSON text of parts ctxbudget does not read.
    fn content(&self) -> &str {
        self.text.get_or_init(|| self.join_texts())
    }

    fn tool_calls(&self) -> impl Iterator<Item = ToolCallRef<'_>> {
        let model = self.is_model();
        self.view
            .parts
            .iter()
            .filter_map(move |p| match &p.kind {
                PartKind::Call { name, args, .. } if model => Some((name, args)),
                _ => None,
            })
            .zip(&self.calls)
            .map(|((name, args), id)| ToolCallRef {
                id,
                name,
                arguments: args,
            })
    }

    fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        let user = !self.is_model();
        self.results
            .iter()
            .filter(move |_| user)
            .map(String::as_str)
    }

    fn carries_user_content(&self) -> bool {
        !self.is_model()
            && (self.results.is_empty()
                || self
                    .view
                    .parts
                    .iter()
                    .any(|p| !matches!(p.kind, PartKind::Response(_))))
    }

    fn starts_with_thinking(&self) -> bool {
        self.is_model() && self.view.parts.iter().any(|p| p.thought || p.signature)
    }

    /// Every part: see [the module docs](super#counting).
    fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
        content_tokens(self, counter)
    }
}

/// What `content` costs as content, under `rule`.
pub(crate) fn content_tokens<C: TokenCounter + ?Sized>(
    content: &GeminiContent,
    counter: &C,
) -> usize {
    let rule = content.rule.get();
    content.view.parts.iter().fold(0usize, |sum, part| {
        sum.saturating_add(part_tokens(part, counter, &|p| media_tokens(rule, p)))
    })
}

/// Pairs the calls and responses of `contents`: each call's id is its `id`, or
/// one made up (`name#n`, `n` counted in `made`); each response answers the call
/// of its `id`, or, without an `id`, the first call of its `name` not yet
/// answered, in the model content right before its own. A response that answers
/// no call there keeps its `id`, or gets one no call has (`name#?`): validation
/// reports it.
pub(crate) fn pair(contents: &mut [GeminiContent], made: &mut usize) {
    // The previous content's calls: (name, id, answered).
    let mut previous: Vec<(String, String, bool)> = Vec::new();
    for content in contents.iter_mut() {
        let model = content.is_model();
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for part in &content.view.parts {
            match &part.kind {
                PartKind::Call { name, id, .. } => {
                    let id = id.clone().unwrap_or_else(|| {
                        *made = made.saturating_add(1);
                        format!("{name}#{made}")
                    });
                    calls.push(id);
                }
                PartKind::Response(response) => {
                    let found = previous.iter_mut().find(|(name, id, answered)| {
                        !*answered
                            && match &response.id {
                                Some(given) => given == id,
                                None => *name == response.name,
                            }
                    });
                    let id = match (found, &response.id) {
                        (Some(call), _) => {
                            call.2 = true;
                            call.1.clone()
                        }
                        (None, Some(given)) => given.clone(),
                        (None, None) => format!("{}#?", response.name),
                    };
                    results.push(id);
                }
                _ => {}
            }
        }
        previous = if model {
            content
                .view
                .parts
                .iter()
                .filter_map(|p| match &p.kind {
                    PartKind::Call { name, .. } => Some(name.clone()),
                    _ => None,
                })
                .zip(&calls)
                .map(|(name, id)| (name, id.clone(), false))
                .collect()
        } else {
            Vec::new()
        };
        content.calls = calls;
        content.results = results;
    }
}
