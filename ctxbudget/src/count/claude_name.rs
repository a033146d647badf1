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
}
