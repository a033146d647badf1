//! What depends on the model: the tool-use system prompt Anthropic adds, and whether
//! thinking of earlier turns stays in the context ([`ThinkingRetention`]).

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::count::claude_name::{ClaudeFamily, ClaudeName};

/// A Claude model name read into the families whose tool prompts and thinking
/// Anthropic documents, and the version (see [`ClaudeName`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ClaudeModel {
    pub(super) family: Family,
    /// `(major, minor)`, when the name has one.
    pub(super) version: Option<(u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    Opus,
    Sonnet,
    Haiku,
    /// A Claude model of another family (`claude-mythos-preview`, ...).
    Other,
}

impl ClaudeModel {
    /// `None` when the name does not contain `claude`.
    pub(super) fn parse(name: &str) -> Option<Self> {
        let ClaudeName { family, version } = ClaudeName::parse(name)?;
        let family = match family {
            Some(ClaudeFamily::Opus) => Family::Opus,
            Some(ClaudeFamily::Sonnet) => Family::Sonnet,
            Some(ClaudeFamily::Haiku) => Family::Haiku,
            Some(ClaudeFamily::Fable | ClaudeFamily::Mythos) | None => Family::Other,
        };
        Some(Self { family, version })
    }
}

/// The tokens of the system prompt Anthropic adds when a request has tools, for the
/// request's `tool_choice` (`auto` when absent) and model, and whether the model was
/// one the table knows.
///
/// From Anthropic's pricing page, "Tool use system prompt token count" (read
/// 2025-11): Claude 4 models, Claude Sonnet 3.7 and Claude Sonnet 3.5 add 346 tokens
/// for `auto` and `none`, 313 for `any` and `tool`; Claude Haiku 3.5 and Haiku 3 add
/// 264 and 340; Claude Opus 3 530 and 281; Claude Sonnet 3 159 and 235. Models the
/// table does not know (later ones included) are counted as Claude 4 models.
pub(crate) fn tool_system_prompt(model: Option<&str>, tool_choice: &str) -> (usize, bool) {
    let forced = matches!(tool_choice, "any" | "tool");
    let parsed = model.and_then(ClaudeModel::parse);
    let (auto, any) = match parsed {
        Some(ClaudeModel {
            family: Family::Opus,
            version: Some((3, 0)),
        }) => (530, 281),
        Some(ClaudeModel {
            family: Family::Sonnet,
            version: Some((3, 0)),
        }) => (159, 235),
        Some(ClaudeModel {
            family: Family::Haiku,
            version: Some((3, 0 | 5)),
        }) => (264, 340),
        _ => (346, 313),
    };
    let known = parsed.is_some_and(|m| m.family != Family::Other && m.version.is_some());
    (if forced { any } else { auto }, known)
}

/// Extra input tokens of Anthropic's own client tools, whose definitions Anthropic
/// writes (the request names them by `type` only), from the pricing page's "Specific
/// tool pricing" for Claude 4 models (read 2025-11): `bash_*` 245, `text_editor_*`
/// 700, `computer_*` 735. `None` for other types.
pub(super) fn anthropic_tool_tokens(kind: &str) -> Option<usize> {
    if kind.starts_with("bash_") {
        Some(245)
    } else if kind.starts_with("text_editor_") {
        Some(700)
    } else if kind.starts_with("computer_") {
        Some(735)
    } else {
        None
    }
}

/// Which `thinking` and `redacted_thinking` blocks of earlier turns stay in the
/// context, and so count.
///
/// An *assistant turn* is the run of assistant messages between two user messages
/// that are not only `tool_result` blocks: the model's tool calls, their results and
/// its next messages up to the user's next question are one turn.
///
/// Anthropic's rules (read 2025-11):
///
/// - The context-windows guide, "The context window with extended thinking":
///   thinking blocks of previous turns are stripped from the context window by the
///   API, so `context_window = (input_tokens - previous_thinking_tokens) +
///   current_turn_tokens`; the thinking of the turn in progress (a tool-use loop)
///   counts.
/// - The extended-thinking guide, "Thinking block preservation by model", and the
///   context-editing guide's `clear_thinking_20251015`: Claude Opus 4.5 and later
///   Opus models and Claude Sonnet 4.6 and later Sonnet models keep every earlier
///   thinking block; earlier Opus and Sonnet models and Haiku models through Haiku
///   4.5 keep only the last assistant turn's. A request's `context_management` edit
///   `clear_thinking_20251015` with a `keep` overrides that.
///
/// ```
/// use ctxbudget::request::anthropic::ThinkingRetention;
///
/// assert_eq!(ThinkingRetention::for_model("claude-sonnet-4-5-20250929"), ThinkingRetention::LastTurns(1));
/// assert_eq!(ThinkingRetention::for_model("claude-opus-4-5"), ThinkingRetention::All);
/// assert_eq!(ThinkingRetention::for_model("claude-haiku-4-5"), ThinkingRetention::LastTurns(1));
/// // Unknown names count every thinking block: the safe side.
/// assert_eq!(ThinkingRetention::for_model("my-proxy-model"), ThinkingRetention::All);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThinkingRetention {
    /// The thinking of the last `n` assistant turns counts, earlier thinking does
    /// not.
    LastTurns(usize),
    /// Every thinking block counts.
    All,
}

impl ThinkingRetention {
    /// The model's default, as Anthropic documents it; [`All`](ThinkingRetention::All)
    /// for a name it cannot place (over-counting is the safe side).
    pub fn for_model(model: &str) -> Self {
        let Some(ClaudeModel {
            family,
            version: Some(version),
        }) = ClaudeModel::parse(model)
        else {
            return ThinkingRetention::All;
        };
        let last_turn_only = match family {
            Family::Opus => version < (4, 5),
            Family::Sonnet => version < (4, 6),
            Family::Haiku => version <= (4, 5),
            Family::Other => false,
        };
        if last_turn_only {
            ThinkingRetention::LastTurns(1)
        } else {
            ThinkingRetention::All
        }
    }

    /// The `keep` of a `clear_thinking_20251015` edit in a request's
    /// `context_management`, if it has one: `"all"` or `{"type": "thinking_turns",
    /// "value": n}`.
    pub(super) fn from_context_management(raw: &RawValue) -> Option<Self> {
        #[derive(Deserialize)]
        struct Management {
            #[serde(default)]
            edits: Vec<Edit>,
        }
        #[derive(Deserialize)]
        struct Edit {
            #[serde(rename = "type")]
            kind: Option<String>,
            keep: Option<serde_json::Value>,
        }
        let management: Management = serde_json::from_str(raw.get()).ok()?;
        let keep = management
            .edits
            .into_iter()
            .find(|e| e.kind.as_deref() == Some("clear_thinking_20251015"))?
            .keep?;
        if keep.as_str() == Some("all") {
            return Some(ThinkingRetention::All);
        }
        let turns = keep
            .get("value")
            .and_then(serde_json::Value::as_u64)
            .filter(|_| keep.get("type").and_then(|t| t.as_str()) == Some("thinking_turns"))?;
        Some(ThinkingRetention::LastTurns(
            usize::try_from(turns).unwrap_or(usize::MAX),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(name: &str) -> Option<(Family, Option<(u32, u32)>)> {
        ClaudeModel::parse(name).map(|m| (m.family, m.version))
    }

    #[test]
    fn model_names_of_every_platform_parse() {
        use Family::{Haiku, Opus, Other, Sonnet};
        let cases = [
            ("claude-sonnet-4-5-20250929", Some((Sonnet, Some((4, 5))))),
            ("claude-sonnet-4-20250514", Some((Sonnet, Some((4, 0))))),
            ("claude-opus-4-1", Some((Opus, Some((4, 1))))),
            ("claude-3-opus-20240229", Some((Opus, Some((3, 0))))),
            ("claude-3-5-haiku-latest", Some((Haiku, Some((3, 5))))),
            ("claude-3-7-sonnet-20250219", Some((Sonnet, Some((3, 7))))),
            (
                "anthropic.claude-3-5-sonnet-20241022-v2:0",
                Some((Sonnet, Some((3, 5)))),
            ),
            (
                "anthropic.claude-sonnet-4-20250514-v1:0",
                Some((Sonnet, Some((4, 0)))),
            ),
            (
                "claude-3-5-sonnet-v2@20241022",
                Some((Sonnet, Some((3, 5)))),
            ),
            ("Claude-Haiku-4-5", Some((Haiku, Some((4, 5))))),
            ("claude-mythos-preview", Some((Other, None))),
            ("gpt-4o", None),
        ];
        for (name, expected) in cases {
            assert_eq!(parsed(name), expected, "{name}");
        }
    }

    #[test]
    fn tool_prompt_follows_the_pricing_table() {
        assert_eq!(
            tool_system_prompt(Some("claude-sonnet-4-5"), "auto"),
            (346, true)
        );
        assert_eq!(
            tool_system_prompt(Some("claude-sonnet-4-5"), "none"),
            (346, true)
        );
        assert_eq!(
            tool_system_prompt(Some("claude-opus-4-1"), "any"),
            (313, true)
        );
        assert_eq!(
            tool_system_prompt(Some("claude-3-opus-20240229"), "auto"),
            (530, true)
        );
        assert_eq!(
            tool_system_prompt(Some("claude-3-opus-20240229"), "tool"),
            (281, true)
        );
        assert_eq!(
            tool_system_prompt(Some("claude-3-sonnet-20240229"), "auto"),
            (159, true)
        );
        assert_eq!(
            tool_system_prompt(Some("claude-3-5-haiku-latest"), "any"),
            (340, true)
        );
        assert_eq!(
            tool_system_prompt(Some("claude-3-haiku-20240307"), "auto"),
            (264, true)
        );
        assert_eq!(tool_system_prompt(None, "auto"), (346, false));
        assert_eq!(tool_system_prompt(Some("my-proxy"), "tool"), (313, false));
    }

    #[test]
    fn thinking_retention_by_model_and_context_management() {
        use ThinkingRetention::{All, LastTurns};
        for (name, expected) in [
            ("claude-opus-4-1-20250805", LastTurns(1)),
            ("claude-opus-4-5-20251101", All),
            ("claude-opus-4-6", All),
            ("claude-sonnet-4-5", LastTurns(1)),
            ("claude-sonnet-4-6", All),
            ("claude-3-7-sonnet-latest", LastTurns(1)),
            ("claude-haiku-4-5", LastTurns(1)),
            ("claude-opus", All),
            ("claude-mythos-preview", All),
        ] {
            assert_eq!(ThinkingRetention::for_model(name), expected, "{name}");
        }
        let raw = |s: &str| RawValue::from_string(s.to_owned()).unwrap();
        let edit = |keep: &str| {
            raw(&format!(
                r#"{{"edits": [{{"type": "clear_tool_uses_20250919"}}, {{"type": "clear_thinking_20251015", "keep": {keep}}}]}}"#
            ))
        };
        assert_eq!(
            ThinkingRetention::from_context_management(&edit(r#""all""#)),
            Some(All)
        );
        assert_eq!(
            ThinkingRetention::from_context_management(&edit(
                r#"{"type": "thinking_turns", "value": 3}"#
            )),
            Some(LastTurns(3))
        );
        assert_eq!(ThinkingRetention::from_context_management(&edit("7")), None);
        assert_eq!(
            ThinkingRetention::from_context_management(&raw(r#"{"edits": []}"#)),
            None
        );
        assert_eq!(
            ThinkingRetention::from_context_management(&raw("[1]")),
            None
        );
    }
}
