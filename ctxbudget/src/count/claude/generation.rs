//! Which tokenizer generation a Claude model counts with, and what differs between
//! generations: vocabulary, quote folding, the capitals marker and the message
//! frame.

use std::fmt;

use crate::count::claude_name::{ClaudeFamily, ClaudeName};

/// A generation of Claude's tokenizer, as `ctok` 1.3.0 reconstructs it.
///
/// | generation | models |
/// |---|---|
/// | [`V3`](Self::V3) | Claude 3 through Claude Opus 4.6, every Sonnet 4.x and Haiku 4.x |
/// | [`V4_7`](Self::V4_7) | Claude Opus 4.7 |
/// | [`V4_8`](Self::V4_8) | Claude Opus 4.8 and later Opus models, every Claude 5 model (Sonnet 5, Fable 5, Mythos 5), and Mythos Preview |
///
/// Anthropic's token-counting documentation says that Opus 4.7 and later use a
/// newer tokenizer that gives about 30% more tokens for the same text. `V4_8` uses
/// `V4_7`'s vocabulary with a shorter message frame (6 tokens instead of 11) that
/// does not absorb a leading space.
///
/// ```
/// use ctxbudget::count::ClaudeGeneration;
///
/// assert_eq!(ClaudeGeneration::for_model("claude-sonnet-4-5-20250929"), Some(ClaudeGeneration::V3));
/// assert_eq!(ClaudeGeneration::for_model("anthropic.claude-opus-4-7-v1:0"), Some(ClaudeGeneration::V4_7));
/// assert_eq!(ClaudeGeneration::for_model("claude-sonnet-5@20260301"), Some(ClaudeGeneration::V4_8));
/// assert_eq!(ClaudeGeneration::for_model("claude-mythos-preview"), Some(ClaudeGeneration::V4_8));
/// assert_eq!(ClaudeGeneration::for_model("claude-latest"), None); // no version
/// assert_eq!(ClaudeGeneration::for_model("gpt-4o"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ClaudeGeneration {
    /// Claude 3 through Claude Opus 4.6 (`ctok`'s `v3` family, measured on Claude
    /// Opus 4.5).
    V3,
    /// Claude Opus 4.7 (`ctok`'s `v4.7` family).
    V4_7,
    /// Claude Opus 4.8 and later, Claude 5 models (`ctok`'s `v4.8` family).
    V4_8,
}

impl ClaudeGeneration {
    /// Every generation, oldest first.
    pub const ALL: [ClaudeGeneration; 3] = [Self::V3, Self::V4_7, Self::V4_8];

    /// The newest generation: what a Claude model of unknown version is most likely
    /// to count with.
    pub const NEWEST: ClaudeGeneration = Self::V4_8;

    /// The generation of a Claude model, from its name as Anthropic's API, Amazon
    /// Bedrock or Google Vertex AI spell it (`claude-opus-4-7`,
    /// `anthropic.claude-3-5-sonnet-20241022-v2:0`, `claude-sonnet-4-5@20250929`).
    /// `None` for a name without `claude`, older than Claude 3, or without a version
    /// number (Fable and Mythos aside: Anthropic's documentation puts all of them,
    /// Mythos Preview included, with the newer tokenizer, so they read as `V4_8`;
    /// `V4_7` and `V4_8` share a vocabulary and differ only at the message frame).
    pub fn for_model(name: &str) -> Option<Self> {
        let ClaudeName { family, version } = ClaudeName::parse(name)?;
        let newer = matches!(family, Some(ClaudeFamily::Fable | ClaudeFamily::Mythos));
        let opus = family == Some(ClaudeFamily::Opus);
        Some(match version {
            None if newer => Self::V4_8,
            None | Some((0..=2, _)) => return None,
            Some((5.., _)) => Self::V4_8,
            Some((4, 8..)) if opus => Self::V4_8,
            Some((4, 7)) if opus => Self::V4_7,
            Some(_) => Self::V3,
        })
    }

    /// The tokens of the frame around a single user message's text, which the API's
    /// `count_tokens` adds to the text's own tokens: 7, 11 and 6.
    pub const fn message_overhead(self) -> usize {
        match self {
            Self::V3 => 7,
            Self::V4_7 => 11,
            Self::V4_8 => 6,
        }
    }

    /// `"v3"`, `"v4.7"` or `"v4.8"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V3 => "v3",
            Self::V4_7 => "v4.7",
            Self::V4_8 => "v4.8",
        }
    }

    /// Whether the four curly quotes are read as ASCII quotes.
    pub(super) const fn folds_quotes(self) -> bool {
        matches!(self, Self::V3)
    }

    /// The shortest all-capital word that takes the capitals marker.
    pub(super) const fn allcaps_min(self) -> Option<usize> {
        match self {
            Self::V3 => Some(4),
            Self::V4_7 | Self::V4_8 => None,
        }
    }

    /// Whether the frame ends in a word start that stands for one leading space.
    pub(super) const fn frame_bow(self) -> bool {
        !matches!(self, Self::V4_8)
    }
}

impl fmt::Display for ClaudeGeneration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ClaudeGeneration::{self, V3, V4_7, V4_8};

    #[test]
    fn model_names_of_every_platform_map_to_their_generation() {
        let cases = [
            ("claude-3-haiku-20240307", Some(V3)),
            ("claude-3-5-sonnet-20241022", Some(V3)),
            ("anthropic.claude-3-5-sonnet-20241022-v2:0", Some(V3)),
            ("claude-3-5-sonnet-v2@20241022", Some(V3)),
            ("claude-sonnet-4-20250514", Some(V3)),
            ("claude-sonnet-4-5", Some(V3)),
            ("claude-sonnet-4-6", Some(V3)),
            ("claude-haiku-4-5-20251001", Some(V3)),
            ("claude-opus-4-1", Some(V3)),
            ("claude-opus-4-6", Some(V3)),
            ("claude-opus-4-7", Some(V4_7)),
            ("us.anthropic.claude-opus-4-7-20260101-v1:0", Some(V4_7)),
            ("claude-opus-4-8", Some(V4_8)),
            ("claude-opus-4-10", Some(V4_8)),
            ("claude-opus-5", Some(V4_8)),
            ("claude-sonnet-5", Some(V4_8)),
            ("claude-fable-5", Some(V4_8)),
            ("Claude-Mythos-5", Some(V4_8)),
            ("claude-mythos-preview", Some(V4_8)),
            ("claude-fable", Some(V4_8)),
            ("claude-latest", None),
            ("claude-2.1", None),
            ("claude-instant-1.2", None),
            ("gpt-4o", None),
        ];
        for (name, expected) in cases {
            assert_eq!(ClaudeGeneration::for_model(name), expected, "{name}");
        }
    }
}
