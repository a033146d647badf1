//! [`ContextOverflow`]: a provider's context-overflow error, read from its HTTP error
//! body, and the tighter limit to fit the rejected request again in one call.
//!
//! The wordings read (each shipped as a test fixture, with where it was quoted):
//!
//! - OpenAI (and the servers that copy its wording, such as vLLM):
//!   `This model's maximum context length is 4097 tokens. However, your messages
//!   resulted in 4294 tokens.`, or `... However, you requested 4120 tokens (3120 in
//!   the messages, 1000 in the completion).`; the Responses API's `Your input exceeds
//!   the context window of this model.` states no numbers, nor does any other message
//!   under the code `context_length_exceeded`.
//! - Anthropic: `prompt is too long: 208656 tokens > 200000 maximum`, and
//!   ``input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000``.
//! - Gemini: `The input token count (1200293) exceeds the maximum number of tokens
//!   allowed (1048576).`
//! - Bedrock: `Input is too long for requested model.` (no numbers).

use std::fmt;

use thiserror::Error;

use super::fit::{FittedRequest, RequestFitter};
use super::{RequestError, WireRequest};
use crate::count::TokenCounter;

/// Whose wording a [`ContextOverflow`] is in: the provider that wrote the message,
/// which is not always the host that sent it (Bedrock and gateways pass Anthropic's
/// messages through).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OverflowProvider {
    /// OpenAI, or a server that copies its wording.
    OpenAi,
    /// Anthropic.
    Anthropic,
    /// Google Gemini (AI Studio and Vertex AI).
    Gemini,
    /// Amazon Bedrock's own validation message.
    Bedrock,
}

impl OverflowProvider {
    /// The provider's name, as messages print it.
    pub fn as_str(self) -> &'static str {
        match self {
            OverflowProvider::OpenAi => "OpenAI",
            OverflowProvider::Anthropic => "Anthropic",
            OverflowProvider::Gemini => "Gemini",
            OverflowProvider::Bedrock => "Bedrock",
        }
    }
}

impl fmt::Display for OverflowProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A provider's context-overflow error: the request was over the model's limit,
/// and by how much when the message says.
///
/// Read one from the HTTP error body with [`parse`](ContextOverflow::parse) (or the
/// message alone with [`from_message`](ContextOverflow::from_message)), then fit
/// the rejected request again with [`RequestFitter::refit`], which lowers the limit
/// by what the provider counted over it.
///
/// ```
/// use ctxbudget::request::{ContextOverflow, OverflowProvider};
///
/// let body = r#"{"type":"error","error":{"type":"invalid_request_error",
///     "message":"prompt is too long: 208656 tokens > 200000 maximum"}}"#;
/// let overflow = ContextOverflow::parse(body)?;
/// assert_eq!(overflow.provider, OverflowProvider::Anthropic);
/// assert_eq!((overflow.limit, overflow.input_tokens), (Some(200_000), Some(208_656)));
/// assert_eq!(overflow.excess(), Some(8_656));
/// // The request counted 190,000 tokens here and 208,656 at the provider: fit it
/// // again into 190,000 - 8,656 tokens.
/// assert_eq!(overflow.refit_limit(190_000), Some(181_344));
/// # Ok::<(), ctxbudget::request::OverflowError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ContextOverflow {
    /// Whose wording the message is in.
    pub provider: OverflowProvider,
    /// The limit the message states: the context window (OpenAI, Anthropic) or the
    /// maximum input (Gemini); `None` when it states none.
    pub limit: Option<u64>,
    /// The request's input tokens as the provider counted them, when stated.
    pub input_tokens: Option<u64>,
    /// The output the provider counted against the same limit (OpenAI's tokens "in
    /// the completion", Anthropic's `max_tokens`), when stated.
    pub output_tokens: Option<u64>,
    /// The message the values were read from.
    pub message: String,
}

/// Why an error body is not a [`ContextOverflow`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OverflowError {
    /// The body is empty, or only whitespace.
    #[error("the error body is empty; pass the provider's HTTP error body or its message")]
    Empty,
    /// The body holds no context-overflow message of a provider ctxbudget reads.
    #[error(
        "not a context-overflow error: `{excerpt}`; expected the overflow error of OpenAI, Anthropic, Gemini or Bedrock"
    )]
    NotOverflow {
        /// The start of the message (or body) that was read, at most 40 characters
        /// (`...` ends a longer one).
        excerpt: String,
    },
}

/// How many strings of a JSON body are tried, and how deep: bounds the work on a
/// hostile body.
const MAX_STRINGS: usize = 64;
const MAX_DEPTH: usize = 8;

impl ContextOverflow {
    /// Reads a provider's HTTP error body: its JSON (the message is looked for in
    /// every string of the body, nested error objects, arrays and gateways' `raw`
    /// strings included), or, for a body that is not JSON, the text as the message.
    /// Bytes that are not UTF-8 are read lossily.
    ///
    /// # Errors
    ///
    /// [`OverflowError::Empty`] for an empty body, [`OverflowError::NotOverflow`]
    /// for a body with no overflow message (another error, or not an error at all).
    pub fn parse(body: impl AsRef<[u8]>) -> Result<Self, OverflowError> {
        let text = String::from_utf8_lossy(body.as_ref());
        let text = text.trim();
        if text.is_empty() {
            return Err(OverflowError::Empty);
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            return Self::from_message(text).ok_or_else(|| not_overflow(text));
        };
        let mut strings = Vec::new();
        let mut coded = false;
        collect_strings(&value, 0, &mut strings, &mut coded);
        // A message that states numbers wins over one that does not.
        let mut found: Option<ContextOverflow> = None;
        for s in &strings {
            if let Some(overflow) = Self::from_message(s) {
                if overflow.limit.is_some() || overflow.input_tokens.is_some() {
                    return Ok(overflow);
                }
                found.get_or_insert(overflow);
            }
        }
        if let Some(overflow) = found {
            return Ok(overflow);
        }
        if coded {
            // OpenAI's code with a message in a wording not known here.
            let message = message_of(&value).unwrap_or_default();
            return Ok(ContextOverflow {
                provider: OverflowProvider::OpenAi,
                limit: None,
                input_tokens: None,
                output_tokens: None,
                message,
            });
        }
        Err(not_overflow(
            &message_of(&value).unwrap_or_else(|| text.to_owned()),
        ))
    }

    /// Reads a provider's overflow message alone (the `message` of its error body),
    /// or `None` when it is not one ctxbudget knows. Numbers that do not fit a `u64`
    /// are read as not stated.
    ///
    /// ```
    /// use ctxbudget::request::ContextOverflow;
    ///
    /// let overflow = ContextOverflow::from_message(
    ///     "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
    /// ).unwrap();
    /// assert_eq!(overflow.excess(), Some(151_717));
    /// assert!(ContextOverflow::from_message("rate limit reached").is_none());
    /// ```
    pub fn from_message(message: &str) -> Option<Self> {
        let lower = message.to_ascii_lowercase();
        let (provider, limit, input_tokens, output_tokens) =
            if let Some(at) = lower.find("maximum context length is") {
                // OpenAI (Chat Completions, the legacy Completions API, and servers that
                // copy its wording: "you requested about N tokens (N of text input)").
                let rest = &lower[at..];
                let limit = number_after(rest, "maximum context length is");
                let (input, output) = if let Some(n) = number_after(rest, "resulted in") {
                    (Some(n), None)
                } else if let Some(r) = rest.find("you requested") {
                    let requested = &rest[r..];
                    let total = number_after(requested, "you requested");
                    let parts = requested.find('(').map(|p| {
                        let inner = &requested[p..];
                        let inner = &inner[..inner.find(')').unwrap_or(inner.len())];
                        numbers(inner)
                    });
                    match parts.as_deref() {
                        Some([input, output, ..]) => (Some(*input), Some(*output)),
                        Some([input]) => (Some(*input), None),
                        _ => (total, None),
                    }
                } else {
                    (None, None)
                };
                (OverflowProvider::OpenAi, limit, input, output)
            } else if let Some(at) = lower.find("exceed the configured limit of") {
                // OpenAI's wording for a limit below the window.
                let rest = &lower[at..];
                let limit = number_after(rest, "exceed the configured limit of");
                let input = number_after(rest, "resulted in");
                (OverflowProvider::OpenAi, limit, input, None)
            } else if lower.contains("exceeds the context window of this model") {
                (OverflowProvider::OpenAi, None, None, None)
            } else if let Some(at) = lower.find("prompt is too long:") {
                // Anthropic: "prompt is too long: N tokens > M maximum".
                let rest = &lower[at + "prompt is too long:".len()..];
                let input = number_after(rest, "");
                let limit = rest.find('>').and_then(|g| number_after(&rest[g..], ">"));
                (OverflowProvider::Anthropic, limit, input, None)
            } else if let Some(at) = lower.find("exceed context limit:") {
                // Anthropic: "input length and `max_tokens` exceed context limit: I + O > L".
                let rest = &lower[at + "exceed context limit:".len()..];
                let rest = &rest[..rest.find(',').unwrap_or(rest.len())];
                match numbers(rest).as_slice() {
                    [input, output, limit, ..] => (
                        OverflowProvider::Anthropic,
                        Some(*limit),
                        Some(*input),
                        Some(*output),
                    ),
                    _ => (OverflowProvider::Anthropic, None, None, None),
                }
            } else if let Some(at) = lower.find("the input token count") {
                let rest = &lower[at..];
                if !rest.contains("exceeds the maximum number of tokens") {
                    return None;
                }
                let input = number_after(rest, "the input token count (");
                let limit = number_after(rest, "tokens allowed (");
                (OverflowProvider::Gemini, limit, input, None)
            } else if lower.contains("input is too long for requested model") {
                (OverflowProvider::Bedrock, None, None, None)
            } else {
                return None;
            };
        Some(ContextOverflow {
            provider,
            limit,
            input_tokens,
            output_tokens,
            message: message.to_owned(),
        })
    }

    /// How many tokens the request was over the limit, as the provider counted:
    /// input plus the output counted against the same limit, less the limit; `None`
    /// when the message states no numbers, or numbers that are not over.
    pub fn excess(&self) -> Option<u64> {
        let requested = self
            .input_tokens?
            .checked_add(self.output_tokens.unwrap_or(0))?;
        requested.checked_sub(self.limit?).filter(|&over| over > 0)
    }

    /// The input limit, in the fitter's own tokens, to fit again a request that the
    /// fitter counted at `counted` tokens and the provider rejected: the smaller of
    ///
    /// - `counted - excess`: sheds what the provider counted over, token for token.
    ///   Safe whenever the provider's count of a message is at least the fitter's
    ///   (an under-counting estimate, a frame the fitter does not see): what the
    ///   fitter drops then weighs at least as much at the provider.
    /// - `counted × room / input_tokens`, where room is the limit less the output
    ///   counted against it: scales the count by the provider's ratio. Exact when
    ///   the two counts differ by a ratio, and the smaller of the two when the
    ///   fitter over-counts (then token for token would shed too little).
    ///
    /// The first alone can fail only when the fitter over-counts; the second alone
    /// fails when part of the difference is a fixed overhead (the request shrinks,
    /// the overhead does not). The smaller of the two is right in both cases.
    /// `None` when the message does not state the numbers (Bedrock, OpenAI's
    /// Responses API).
    pub fn refit_limit(&self, counted: usize) -> Option<usize> {
        let excess = self.excess()?;
        let input = self.input_tokens?;
        let room = input.saturating_sub(excess);
        let counted64 = u64::try_from(counted).unwrap_or(u64::MAX);
        let by_excess = counted64.saturating_sub(excess);
        // input > 0: excess > 0 and excess <= input + output ... input may be 0
        // only when the output alone is over, and then there is no ratio.
        let by_ratio = u128::from(counted64)
            .checked_mul(u128::from(room))
            .and_then(|p| p.checked_div(u128::from(input)))
            .map_or(by_excess, |r| u64::try_from(r).unwrap_or(u64::MAX));
        let tighter = by_excess.min(by_ratio);
        Some(usize::try_from(tighter).unwrap_or(usize::MAX))
    }
}

impl<C: TokenCounter> RequestFitter<C> {
    /// Fits again a request the provider rejected with `overflow`, in one call: the
    /// input limit becomes the smaller of the fitter's own and
    /// [`ContextOverflow::refit_limit`] of what the fitter counts for `request`.
    /// Pass the request as it was sent (the one fitted before), so that the count
    /// and the provider's describe the same body.
    ///
    /// ```
    /// use ctxbudget::request::{ContextOverflow, RequestFitter, openai::ChatRequest};
    ///
    /// let body = r#"{"model": "gpt-4o", "messages": [
    ///     {"role": "user", "content": "An old question, far too long to keep in a small window."},
    ///     {"role": "assistant", "content": "An old answer, just as long as the old question was."},
    ///     {"role": "user", "content": "What is 2 + 2?"}
    /// ]}"#;
    /// let request = ChatRequest::from_json(body)?;
    /// let words = |t: &str| t.split_whitespace().count();
    /// let fitter = RequestFitter::new(words).with_max_input(50);
    /// let sent = fitter.fit(request)?.request; // 43 tokens by this counter: fits
    /// assert_eq!(sent.messages.len(), 3);
    /// // ... but the provider counts 55 and rejects it, 5 over its 50.
    /// let overflow = ContextOverflow::parse(r#"{"error": {"message": "This model's maximum context length is 50 tokens. However, your messages resulted in 55 tokens.",
    ///     "type": "invalid_request_error", "code": "context_length_exceeded"}}"#).unwrap();
    /// let fitted = fitter.refit(sent, &overflow)?;
    /// assert_eq!(fitted.report.limit, 43 - 5);
    /// assert_eq!(fitted.request.messages.len(), 1);
    /// # Ok::<(), ctxbudget::request::RequestError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`RequestError::OverflowWithoutCounts`] when the message states no numbers,
    /// and the errors of [`fit`](RequestFitter::fit) (without a limit of the
    /// fitter's own, the overflow's is used alone).
    pub fn refit<R: WireRequest>(
        &self,
        request: R,
        overflow: &ContextOverflow,
    ) -> Result<FittedRequest<R>, RequestError> {
        let counted = self.count(&request).tokens;
        let cap =
            overflow
                .refit_limit(counted)
                .ok_or_else(|| RequestError::OverflowWithoutCounts {
                    provider: overflow.provider.as_str(),
                })?;
        self.fit_capped(request, Some(cap))
    }
}

/// Every string of `value`, depth first, at most [`MAX_STRINGS`], and whether a
/// string is OpenAI's `context_length_exceeded` code. A string that is JSON itself
/// (a gateway's `raw` body) is read too.
fn collect_strings(
    value: &serde_json::Value,
    depth: usize,
    out: &mut Vec<String>,
    coded: &mut bool,
) {
    use serde_json::Value;
    if depth > MAX_DEPTH || out.len() >= MAX_STRINGS {
        return;
    }
    match value {
        Value::String(s) => {
            if s == "context_length_exceeded" {
                *coded = true;
            }
            let inner = s.trim_start();
            if inner.starts_with('{') || inner.starts_with('[') {
                if let Ok(nested) = serde_json::from_str::<Value>(s) {
                    collect_strings(&nested, depth + 1, out, coded);
                    return;
                }
            }
            out.push(s.clone());
        }
        Value::Array(items) => {
            for item in items {
                collect_strings(item, depth + 1, out, coded);
            }
        }
        Value::Object(map) => {
            for item in map.values() {
                collect_strings(item, depth + 1, out, coded);
            }
        }
        _ => {}
    }
}

/// The first `message` string of a JSON error body, to quote.
fn message_of(value: &serde_json::Value) -> Option<String> {
    fn find(value: &serde_json::Value, depth: usize) -> Option<String> {
        use serde_json::Value;
        if depth > MAX_DEPTH {
            return None;
        }
        match value {
            Value::Object(map) => map
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| map.values().find_map(|v| find(v, depth + 1))),
            Value::Array(items) => items.iter().find_map(|v| find(v, depth + 1)),
            _ => None,
        }
    }
    find(value, 0)
}

fn not_overflow(text: &str) -> OverflowError {
    let excerpt = if text.chars().nth(40).is_some() {
        let mut short: String = text.chars().take(37).collect();
        short.push_str("...");
        short
    } else {
        text.to_owned()
    };
    OverflowError::NotOverflow { excerpt }
}

/// The number right after `prefix` in `text` (spaces and `(` skipped), if it fits
/// a `u64`.
fn number_after(text: &str, prefix: &str) -> Option<u64> {
    let at = text.find(prefix)? + prefix.len();
    let rest = text[at..].trim_start_matches([' ', '(']);
    let rest = rest.strip_prefix("about").unwrap_or(rest).trim_start();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .map_or(rest, |end| &rest[..end]);
    digits.parse().ok()
}

/// Every run of ASCII digits in `text` that fits a `u64`, in order; at most 8.
fn numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .take(8)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_after_their_words() {
        assert_eq!(number_after("is 4097 tokens", "is"), Some(4_097));
        assert_eq!(
            number_after("requested about 42 tokens", "requested"),
            Some(42)
        );
        assert_eq!(number_after("count (12)", "count"), Some(12));
        assert_eq!(number_after("is tokens", "is"), None);
        assert_eq!(number_after("is 99999999999999999999999", "is"), None);
        assert_eq!(
            numbers("(3120 in the messages, 1000 in the"),
            vec![3_120, 1_000]
        );
    }

    #[test]
    fn the_refit_limit_is_the_smaller_of_excess_and_ratio() {
        let overflow = ContextOverflow::from_message(
            "This model's maximum context length is 100 tokens. However, your messages resulted in 125 tokens.",
        )
        .unwrap();
        // Under-counted (90 here, 125 there): token for token sheds 25 -> 65; the
        // ratio would give 72, which fails if the 35 were a fixed overhead.
        assert_eq!(overflow.refit_limit(90), Some(65));
        // Over-counted (200 here, 125 there): the ratio, 160, sheds 40 of ours =
        // 25 of theirs; token for token (175) would shed 15.6 of theirs.
        assert_eq!(overflow.refit_limit(200), Some(160));
        assert_eq!(overflow.refit_limit(0), Some(0));
        assert_eq!(overflow.refit_limit(usize::MAX).map(|n| n > 0), Some(true));
    }

    #[test]
    fn numbers_that_are_not_over_give_no_excess() {
        let overflow =
            ContextOverflow::from_message("prompt is too long: 100 tokens > 200 maximum").unwrap();
        assert_eq!(overflow.excess(), None);
        assert_eq!(overflow.refit_limit(100), None);
    }
}
