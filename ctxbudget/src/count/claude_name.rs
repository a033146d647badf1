//! [`ClaudeName`]: a Claude model name as Anthropic, Amazon Bedrock or Google
//! Vertex AI spell it, read into the family word and the version. The Claude
//! counter picks its tokenizer generation from it, and Anthropic requests their
//! tool prompt and which thinking counts.

/// The family word of a Claude model name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClaudeFamily {
    Opus,
    Sonnet,
    Haiku,
    Fable,
    Mythos,
}

/// A Claude model name read into family and version: `claude-sonnet-4-5-20250929`,
/// `claude-3-5-haiku-latest`, `anthropic.claude-3-5-sonnet-20241022-v2:0` (Amazon
/// Bedrock) and `claude-3-5-sonnet-v2@20241022` (Vertex AI) all read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClaudeName {
    /// The family word, when the name has one this knows.
    pub(crate) family: Option<ClaudeFamily>,
    /// `(major, minor)`, when the name has one (a lone major reads as `(major, 0)`).
    pub(crate) version: Option<(u32, u32)>,
}

impl ClaudeName {
    /// `None` when the name does not contain `claude` (in any case). The version
    /// is the first one or two numbers of at most two digits after `claude`; a
    /// longer number (a date), or any other word after them (`latest`, `v2`),
    /// ends it.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        let lower = name.to_ascii_lowercase();
        let start = lower.find("claude")? + "claude".len();
        let mut family = None;
        let mut numbers: Vec<u32> = Vec::with_capacity(2);
        let mut stopped = false;
        for token in lower[start..].split(['-', '.', '@', ':', '_', '/']) {
            match token {
                "opus" => family = Some(ClaudeFamily::Opus),
                "sonnet" => family = Some(ClaudeFamily::Sonnet),
                "haiku" => family = Some(ClaudeFamily::Haiku),
                "fable" => family = Some(ClaudeFamily::Fable),
                "mythos" => family = Some(ClaudeFamily::Mythos),
                "" => {}
                _ if stopped => {}
                _ if token.len() <= 2 && token.bytes().all(|b| b.is_ascii_digit()) => {
                    if numbers.len() < 2 {
                        numbers.extend(token.parse::<u32>().ok());
                    }
                }
                // A date, `latest`, `v2`: the version is over.
                _ => stopped = !numbers.is_empty() || token.bytes().all(|b| b.is_ascii_digit()),
            }
        }
        let version = match numbers[..] {
            [major] => Some((major, 0)),
            [major, minor, ..] => Some((major, minor)),
            [] => None,
        };
        Some(Self { family, version })
    }

    /// The tokens of the frame Anthropic's `count_tokens` adds around one user
    /// message's text, by tokenizer generation (measured by `ctok` 1.3.0): 11 on
    /// Claude Opus 4.7, 6 on the models after it (Opus 4.8 and later, Claude 5,
    /// Fable, Mythos), 7 on Claude 3 through the other 4.x models (and for names
    /// without a version, the most of the generations still counted as 7 or less).
    /// The same table as `ClaudeGeneration::for_model`, which a test checks.
    pub(crate) fn message_frame(self) -> usize {
        let newer = matches!(
            self.family,
            Some(ClaudeFamily::Fable | ClaudeFamily::Mythos)
        );
        let opus = self.family == Some(ClaudeFamily::Opus);
        match self.version {
            None if newer => 6,
            Some((5.., _)) => 6,
            Some((4, 8..)) if opus => 6,
            Some((4, 7)) if opus => 11,
            _ => 7,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 14] = [
        "claude-3-opus-20240229",
        "claude-3-5-haiku-latest",
        "anthropic.claude-3-5-sonnet-20241022-v2:0",
        "claude-sonnet-4-5@20250929",
        "claude-opus-4-6",
        "claude-opus-4-7",
        "us.anthropic.claude-opus-4-7",
        "claude-sonnet-4-7",
        "claude-opus-4-8",
        "claude-sonnet-5",
        "claude-haiku-5-5",
        "claude-fable-5",
        "claude-mythos-preview",
        "claude-opus-4-10",
    ];

    #[test]
    fn frames_follow_the_tokenizer_generation() {
        let frame = |name: &str| ClaudeName::parse(name).map(ClaudeName::message_frame);
        assert_eq!(frame("claude-3-opus-20240229"), Some(7));
        assert_eq!(frame("claude-opus-4-7-20260101"), Some(11));
        assert_eq!(frame("claude-sonnet-4-7"), Some(7));
        assert_eq!(frame("claude-opus-4-8"), Some(6));
        assert_eq!(frame("claude-mythos-preview"), Some(6));
        assert_eq!(frame("gpt-4o"), None);
    }

    /// The frames are the Claude counter's, generation for generation.
    #[cfg(feature = "claude")]
    #[test]
    fn frames_agree_with_the_claude_counter() {
        use crate::count::ClaudeGeneration;
        for name in NAMES {
            let generation = ClaudeGeneration::for_model(name).expect(name);
            let frame = ClaudeName::parse(name).map(ClaudeName::message_frame);
            assert_eq!(frame, Some(generation.message_overhead()), "{name}");
        }
    }

    #[test]
    fn every_listed_name_parses() {
        for name in NAMES {
            assert!(
                ClaudeName::parse(name).and_then(|n| n.version).is_some()
                    || name.contains("mythos"),
                "{name}"
            );
        }
    }
}
