//! Which wire format a request body is in, read from the body itself.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::error::RequestError;
use super::wire::RequestFormat;

/// Which wire format `body` is in, judged by what only one of the formats has.
///
/// - Anthropic Messages: a top-level `system` field, or content blocks of the types
///   only Anthropic has (`tool_use`, `tool_result`, `thinking`, `redacted_thinking`,
///   `document`, `image` with a `source`).
/// - OpenAI Chat Completions: messages with the roles only OpenAI has (`system`,
///   `developer`, `tool`, `function`), assistant `tool_calls` or `function_call`,
///   content parts only OpenAI has (`image_url`, `input_audio`, `file`, `refusal`),
///   or `tools` given as `{"type": "function", ...}`.
/// - OpenAI Responses: no `messages`, and an `input`, `instructions` or
///   `previous_response_id` (fields only that format has).
/// - Gemini `generateContent`: no `messages` and none of those, and `contents`
///   or `systemInstruction` (`system_instruction`), which only Gemini has.
/// - Amazon Bedrock Converse: `inferenceConfig`, `toolConfig` or
///   `additionalModelRequestFields`, or content blocks keyed by their kind
///   (`toolUse`, `toolResult`, `reasoningContent`, `cachePoint`, `guardContent`)
///   where the others have a `type`; it wins over a top-level `system`, which
///   Bedrock shares with Anthropic.
///
/// A body with neither (plain user and assistant text) is valid in both formats and
/// is taken as OpenAI's; choose the format yourself when that matters, or ask
/// [`detect`] what the choice rests on.
///
/// ```
/// use ctxbudget::request::{RequestFormat, detect_format};
///
/// let anthropic = r#"{"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "Be brief.",
///     "messages": [{"role": "user", "content": "Hi"}]}"#;
/// assert_eq!(detect_format(anthropic)?, RequestFormat::AnthropicMessages);
/// let openai = r#"{"model": "gpt-4o", "messages": [{"role": "system", "content": "Be brief."}]}"#;
/// assert_eq!(detect_format(openai)?, RequestFormat::OpenAiChat);
/// assert!(detect_format("{\"messages\": [").is_err());
/// // Not a request of any format: the error says which fields would make it one.
/// assert!(detect_format(r#"{"model": "gpt-4o"}"#).is_err());
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
///
/// Only those keys are read: every other value is skipped as the format parsers keep
/// it, as JSON text, so a body they read (an unknown field nested 200 levels deep, a
/// number out of `f64` range such as `1e400`) is never "not JSON" here.
///
/// # Errors
///
/// [`RequestError::NotJson`] when `body` is not JSON, and
/// [`RequestError::UnknownFormat`] when it is not a JSON object, or has none of the
/// fields a request of any of the five formats has (`messages`; `input`,
/// `instructions`, `previous_response_id`, `prompt` or `conversation`; `contents`
/// or `systemInstruction`).
pub fn detect_format(body: &str) -> Result<RequestFormat, RequestError> {
    detect(body).map(|detection| detection.format)
}

/// [`detect_format`], with what the format was told by: the field, message or block
/// that only it has, or [`FormatClue::Undecided`] for a body valid in more than one
/// format (plain user and assistant text is OpenAI Chat Completions and Anthropic
/// Messages alike), taken as OpenAI's. Its [`Display`](fmt::Display) says so in a
/// sentence, for a log or a warning.
///
/// ```
/// use ctxbudget::request::{FormatClue, RequestFormat, detect};
///
/// let tool = r#"{"messages": [{"role": "user", "content": "Hi"},
///     {"role": "tool", "tool_call_id": "c1", "content": "42"}]}"#;
/// let detection = detect(tool)?;
/// assert_eq!(detection.format, RequestFormat::OpenAiChat);
/// assert_eq!(detection.clue, FormatClue::Message { index: 1, what: "the role `tool`" });
///
/// let plain = r#"{"model": "my-proxy", "messages": [{"role": "user", "content": "Hi"}]}"#;
/// let detection = detect(plain)?;
/// assert_eq!(detection.clue, FormatClue::Undecided);
/// assert!(detection.to_string().contains("--format"), "{detection}");
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
///
/// # Errors
///
/// As [`detect_format`].
pub fn detect(body: &str) -> Result<Detection, RequestError> {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let signals: Signals =
        serde_json::from_str(body).map_err(|source| RequestError::NotJson { source })?;
    signals
        .detection()
        .ok_or_else(|| RequestError::UnknownFormat {
            found: signals.shape(),
        })
}

/// [`detect_format`] for a body already parsed. A value that is no request of any
/// format is taken as OpenAI's, whose parser then says what it lacks.
pub fn detect_value(body: &Value) -> RequestFormat {
    Signals::deserialize(body)
        .ok()
        .and_then(|s| s.detection())
        .map_or(RequestFormat::OpenAiChat, |d| d.format)
}

/// A body's format and what told it ([`detect`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Detection {
    /// The format.
    pub format: RequestFormat,
    /// What told it.
    pub clue: FormatClue,
}

/// What told a body's format ([`detect`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatClue {
    /// A top-level field only this format has (`input`, `contents`, `toolConfig`,
    /// `system` for Anthropic, ...).
    Field(&'static str),
    /// A tool given in this format's shape (`{"type": "function", "function": ...}`,
    /// or one with an `input_schema`).
    Tools,
    /// A message with a role, call or content block only this format has.
    Message {
        /// Its index in `messages`.
        index: usize,
        /// What it has, as a phrase (`"the role `tool`"`, "a `tool_use` block").
        what: &'static str,
    },
    /// Nothing only one format has: the body is valid in more than one (plain user
    /// and assistant text in `messages`), and is taken as OpenAI Chat Completions.
    Undecided,
}

impl fmt::Display for Detection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let format = self.format;
        match self.clue {
            FormatClue::Field(field) => {
                write!(
                    f,
                    "{format}: the body has `{field}`, which only {format} has"
                )
            }
            FormatClue::Tools => write!(f, "{format}: its `tools` are in {format}'s shape"),
            FormatClue::Message { index, what } => {
                write!(f, "{format}: messages[{index}] has {what}")
            }
            FormatClue::Undecided => write!(
                f,
                "taken as {format}: nothing in the body is only one format's (plain text \
                 messages read as OpenAI Chat Completions and as Anthropic Messages alike); \
                 name the format (`--format`, `AnyRequest::from_json(body, Some(format))`) \
                 if it is another"
            ),
        }
    }
}

/// What the body says about its format, read in one pass.
///
/// Only the keys that tell the formats apart are read (`system`, `tools`,
/// `messages`, and in messages `role`, `tool_calls`, `function_call`, `content`,
/// and a part's `type` and `source`); every other value is skipped without being
/// parsed, so nesting and numbers the format parsers keep as JSON text (an unknown
/// field 200 levels deep, a `1e400`) do not stop detection.
#[derive(Default)]
struct Signals {
    /// Whether the body is a JSON object.
    object: bool,
    system: bool,
    /// Fields only one format has: the first one read of each.
    only: Only,
    /// Whether the body has `messages` (every format but Responses and Gemini).
    has_messages: bool,
    tools: Option<RequestFormat>,
    messages: Option<(RequestFormat, usize, &'static str)>,
}

/// The first top-level field read that only one format has, per format.
#[derive(Default)]
struct Only {
    /// OpenAI Responses: `input`, `instructions`, `previous_response_id`, `prompt`,
    /// `conversation`.
    responses: Option<&'static str>,
    /// Gemini: `contents`, `systemInstruction`.
    gemini: Option<&'static str>,
    /// Bedrock Converse: `inferenceConfig`, `toolConfig`, `additionalModelRequestFields`.
    bedrock: Option<&'static str>,
}

impl Signals {
    /// The format and its clue; `None` for a body that is no request of any format.
    fn detection(&self) -> Option<Detection> {
        let found = |format, clue| Some(Detection { format, clue });
        if !self.has_messages {
            if let Some(field) = self.only.responses {
                return found(RequestFormat::OpenAiResponses, FormatClue::Field(field));
            }
            if let Some(field) = self.only.gemini {
                return found(
                    RequestFormat::GeminiGenerateContent,
                    FormatClue::Field(field),
                );
            }
            return None;
        }
        if let Some(field) = self.only.bedrock {
            return found(RequestFormat::BedrockConverse, FormatClue::Field(field));
        }
        if let Some((RequestFormat::BedrockConverse, index, what)) = self.messages {
            return found(
                RequestFormat::BedrockConverse,
                FormatClue::Message { index, what },
            );
        }
        if self.system {
            return found(
                RequestFormat::AnthropicMessages,
                FormatClue::Field("system"),
            );
        }
        if let Some(format) = self.tools {
            return found(format, FormatClue::Tools);
        }
        if let Some((format, index, what)) = self.messages {
            return found(format, FormatClue::Message { index, what });
        }
        found(RequestFormat::OpenAiChat, FormatClue::Undecided)
    }

    /// What the body is, for [`RequestError::UnknownFormat`].
    fn shape(&self) -> &'static str {
        if self.object {
            "a JSON object without `messages`, `input`, `instructions` or `contents`"
        } else {
            "JSON, but not an object"
        }
    }
}

/// A value read by a visitor that takes a JSON object and skips anything else.
trait ObjectProbe: Default {
    /// Reads the value of `key` (skipping it when the key does not matter).
    fn field<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;

    /// Called once the value is known to be an object, before its fields.
    fn object(&mut self) {}
}

/// A value read by a visitor that takes a JSON array and skips anything else.
trait ArrayProbe: Default {
    /// Reads the next element; `false` at the end.
    fn element<'de, A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error>;
}

macro_rules! skip_scalars {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
}

/// Reads a JSON object through `T`'s [`ObjectProbe`]; any other value is skipped
/// and read as `T::default()`.
struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: ObjectProbe> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut probe = T::default();
        probe.object();
        while let Some(key) = map.next_key::<String>()? {
            probe.field(&key, &mut map)?;
        }
        Ok(probe)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }

    skip_scalars!();
}

/// Reads a JSON array through `T`'s [`ArrayProbe`]; any other value is skipped and
/// read as `T::default()`.
struct ArrayVisitor<T>(PhantomData<T>);

impl<'de, T: ArrayProbe> Visitor<'de> for ArrayVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut probe = T::default();
        while probe.element(&mut seq)? {}
        Ok(probe)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }

    skip_scalars!();
}

/// Implements `Deserialize` for a probe through its visitor.
macro_rules! probe {
    ($name:ty, $visitor:ident) => {
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any($visitor(PhantomData))
            }
        }
    };
}

impl ObjectProbe for Signals {
    fn object(&mut self) {
        self.object = true;
    }

    fn field<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "system" => {
                map.next_value::<IgnoredAny>()?;
                self.system = true;
            }
            "tools" => self.tools = map.next_value::<Tools>()?.format(),
            "messages" => {
                self.has_messages = true;
                self.messages = map.next_value::<Messages>()?.verdict;
            }
            "input" | "instructions" | "previous_response_id" | "prompt" | "conversation" => {
                map.next_value::<IgnoredAny>()?;
                first(&mut self.only.responses, key);
            }
            "contents" | "systemInstruction" | "system_instruction" => {
                map.next_value::<IgnoredAny>()?;
                first(&mut self.only.gemini, key);
            }
            "inferenceConfig" | "toolConfig" | "additionalModelRequestFields" => {
                map.next_value::<IgnoredAny>()?;
                first(&mut self.only.bedrock, key);
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}
probe!(Signals, ObjectVisitor);

/// Keeps the first field read: `key` as a `'static` name of the fields matched.
fn first(slot: &mut Option<&'static str>, key: &str) {
    const FIELDS: [&str; 11] = [
        "input",
        "instructions",
        "previous_response_id",
        "prompt",
        "conversation",
        "contents",
        "systemInstruction",
        "system_instruction",
        "inferenceConfig",
        "toolConfig",
        "additionalModelRequestFields",
    ];
    if slot.is_none() {
        *slot = FIELDS.into_iter().find(|field| *field == key);
    }
}

/// The `tools`: whether any is `{"function": ...}` (OpenAI) or has an
/// `input_schema` (Anthropic).
#[derive(Default)]
struct Tools {
    function: bool,
    input_schema: bool,
}

impl Tools {
    fn format(&self) -> Option<RequestFormat> {
        if self.function {
            Some(RequestFormat::OpenAiChat)
        } else if self.input_schema {
            Some(RequestFormat::AnthropicMessages)
        } else {
            None
        }
    }
}

impl ArrayProbe for Tools {
    fn element<'de, A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error> {
        let Some(tool) = seq.next_element::<Tool>()? else {
            return Ok(false);
        };
        self.function |= tool.function;
        self.input_schema |= tool.input_schema;
        Ok(true)
    }
}
probe!(Tools, ArrayVisitor);

#[derive(Default)]
struct Tool {
    function: bool,
    input_schema: bool,
}

impl ObjectProbe for Tool {
    fn field<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        map.next_value::<IgnoredAny>()?;
        match key {
            "function" => self.function = true,
            "input_schema" => self.input_schema = true,
            _ => {}
        }
        Ok(())
    }
}
probe!(Tool, ObjectVisitor);

/// The `messages`: the verdict of the first message that has one.
#[derive(Default)]
struct Messages {
    /// The verdict, the message's index and what told it.
    verdict: Option<(RequestFormat, usize, &'static str)>,
    /// Messages read so far.
    read: usize,
}

impl ArrayProbe for Messages {
    fn element<'de, A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error> {
        let Some(message) = seq.next_element::<Message>()? else {
            return Ok(false);
        };
        let index = self.read;
        self.read = self.read.saturating_add(1);
        self.verdict = self
            .verdict
            .or_else(|| message.format().map(|(format, what)| (format, index, what)));
        Ok(true)
    }
}
probe!(Messages, ArrayVisitor);

#[derive(Default)]
struct Message {
    role: Option<String>,
    /// `tool_calls` or `function_call`, when the message has one.
    calls: Option<&'static str>,
    parts: Parts,
}

impl Message {
    fn format(&self) -> Option<(RequestFormat, &'static str)> {
        let role = match self.role.as_deref() {
            Some("system") => Some("the role `system`"),
            Some("developer") => Some("the role `developer`"),
            Some("tool") => Some("the role `tool`"),
            Some("function") => Some("the role `function`"),
            _ => None,
        };
        if let Some(what) = role.or(self.calls) {
            return Some((RequestFormat::OpenAiChat, what));
        }
        self.parts.0
    }
}

impl ObjectProbe for Message {
    fn field<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "role" => self.role = map.next_value::<Text>()?.0,
            "content" => self.parts = map.next_value()?,
            "tool_calls" => {
                map.next_value::<IgnoredAny>()?;
                self.calls = Some("`tool_calls`");
            }
            "function_call" => {
                map.next_value::<IgnoredAny>()?;
                self.calls = Some("a `function_call`");
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}
probe!(Message, ObjectVisitor);

/// A message's `content` parts: the verdict of the first part that has one.
#[derive(Default)]
struct Parts(Option<(RequestFormat, &'static str)>);

impl ArrayProbe for Parts {
    fn element<'de, A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error> {
        let Some(part) = seq.next_element::<Part>()? else {
            return Ok(false);
        };
        self.0 = self.0.or(part.format());
        Ok(true)
    }
}
probe!(Parts, ArrayVisitor);

#[derive(Default)]
struct Part {
    kind: Option<String>,
    source: bool,
    /// A key only a Bedrock block has (`toolUse`, `toolResult`, ...), as a phrase.
    bedrock: Option<&'static str>,
}

impl Part {
    fn format(&self) -> Option<(RequestFormat, &'static str)> {
        use RequestFormat::{AnthropicMessages, BedrockConverse, OpenAiChat};
        if let (Some(key), None) = (self.bedrock, &self.kind) {
            return Some((BedrockConverse, key));
        }
        Some(match self.kind.as_deref()? {
            "tool_use" => (AnthropicMessages, "a `tool_use` block"),
            "tool_result" => (AnthropicMessages, "a `tool_result` block"),
            "thinking" => (AnthropicMessages, "a `thinking` block"),
            "redacted_thinking" => (AnthropicMessages, "a `redacted_thinking` block"),
            "document" => (AnthropicMessages, "a `document` block"),
            "image" if self.source => (AnthropicMessages, "an `image` block with a `source`"),
            "image_url" => (OpenAiChat, "an `image_url` part"),
            "input_audio" => (OpenAiChat, "an `input_audio` part"),
            "file" => (OpenAiChat, "a `file` part"),
            "refusal" => (OpenAiChat, "a `refusal` part"),
            _ => return None,
        })
    }
}

impl ObjectProbe for Part {
    fn field<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "type" => self.kind = map.next_value::<Text>()?.0,
            "source" => {
                map.next_value::<IgnoredAny>()?;
                self.source = true;
            }
            "toolUse" | "toolResult" | "reasoningContent" | "cachePoint" | "guardContent" => {
                map.next_value::<IgnoredAny>()?;
                self.bedrock = self.bedrock.or(match key {
                    "toolUse" => Some("a `toolUse` block"),
                    "toolResult" => Some("a `toolResult` block"),
                    "reasoningContent" => Some("a `reasoningContent` block"),
                    "cachePoint" => Some("a `cachePoint` block"),
                    _ => Some("a `guardContent` block"),
                });
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}
probe!(Part, ObjectVisitor);

/// A string, or `None` for any other value (skipped).
#[derive(Default)]
struct Text(Option<String>);

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
        Ok(Text(Some(v.to_owned())))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Text, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Text(None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Text, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Text(None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Text, E> {
        Ok(Text(None))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Text, E> {
        Ok(Text(None))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Text, E> {
        Ok(Text(None))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Text, E> {
        Ok(Text(None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
        Ok(Text(None))
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(body: &str) -> RequestFormat {
        detect_format(body).unwrap()
    }

    #[test]
    fn each_format_is_told_by_what_only_it_has() {
        use RequestFormat::{
            AnthropicMessages as A, BedrockConverse as B, GeminiGenerateContent as G,
            OpenAiChat as O, OpenAiResponses as R,
        };
        let cases = [
            (
                r#"{"messages":[{"role":"tool","tool_call_id":"1","content":"x"}]}"#,
                O,
            ),
            (r#"{"messages":[{"role":"developer","content":"x"}]}"#, O),
            (r#"{"messages":[{"role":"assistant","tool_calls":[]}]}"#, O),
            (
                r#"{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"u"}}]}]}"#,
                O,
            ),
            (
                r#"{"tools":[{"type":"function","function":{"name":"f"}}],"messages":[]}"#,
                O,
            ),
            (
                r#"{"tools":[{"name":"f","input_schema":{}}],"messages":[]}"#,
                A,
            ),
            (
                r#"{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"1"}]}]}"#,
                A,
            ),
            (
                r#"{"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}"#,
                A,
            ),
            (
                r#"{"system":[{"type":"text","text":"x"}],"messages":[]}"#,
                A,
            ),
            (r#"{"messages":[{"role":"user","content":"plain"}]}"#, O),
            ("\u{feff}{\"messages\": []}", O),
            (r#"{"model":"gpt-5","prompt":{"id":"pmpt_1"}}"#, R),
            (r#"{"conversation":"conv_1","input":"hi"}"#, R),
            (r#"{"model":"gpt-5","input":"hi"}"#, R),
            (
                r#"{"input":[{"type":"function_call_output","call_id":"c","output":"x"}]}"#,
                R,
            ),
            (
                r#"{"instructions":"Be brief.","tools":[{"type":"function","name":"f"}]}"#,
                R,
            ),
            (r#"{"previous_response_id":"resp_1"}"#, R),
            (
                r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#,
                G,
            ),
            (
                r#"{"system_instruction":{"parts":[]},"contents":[],"tools":[{"function_declarations":[]}]}"#,
                G,
            ),
            // `messages` decides: a body with `messages` is never Gemini's.
            (
                r#"{"contents":[],"messages":[{"role":"developer","content":"x"}]}"#,
                O,
            ),
            (
                r#"{"system":[{"text":"x"}],"messages":[{"role":"user","content":[{"text":"a"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"f","input":{}}}]}]}"#,
                B,
            ),
            (
                r#"{"messages":[{"role":"user","content":[{"text":"a"}]}],"inferenceConfig":{"maxTokens":5}}"#,
                B,
            ),
            // `messages` decides: a Chat body with a stray `input` stays Chat.
            (
                r#"{"input":"x","messages":[{"role":"user","content":"plain"}]}"#,
                O,
            ),
        ];
        for (body, expected) in cases {
            assert_eq!(format(body), expected, "{body}");
        }
    }

    #[test]
    fn what_the_parsers_keep_as_text_does_not_stop_detection() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let body = format!(
            r#"{{"x-extra": {deep}, "temperature": 1e400, "messages": [{{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "1", "content": {deep}}}]}}]}}"#
        );
        assert_eq!(format(&body), RequestFormat::AnthropicMessages);
        let body = format!(r#"{{"messages": [{{"role": "tool", "n": 1e400, "x": {deep}}}]}}"#);
        assert_eq!(format(&body), RequestFormat::OpenAiChat);
        // Odd shapes are read past too: the parsers say what is wrong with them.
        for body in [
            r#"{"messages": 5, "tools": "x"}"#,
            r#"{"messages": [5, {"role": [1], "content": {"a": 1}}]}"#,
            r#"{"messages": [{"content": [{"type": {"x": 1}}, "text"]}]}"#,
        ] {
            assert_eq!(format(body), RequestFormat::OpenAiChat, "{body}");
        }
    }

    #[test]
    fn a_body_of_no_format_says_what_it_lacks() {
        for (body, found) in [
            ("[]", "not an object"),
            ("5", "not an object"),
            ("\"messages\"", "not an object"),
            ("{}", "without `messages`"),
            (
                r#"{"model": "gpt-4o", "max_tokens": 5}"#,
                "without `messages`",
            ),
            (
                r#"{"system": "Be brief.", "tools": []}"#,
                "without `messages`",
            ),
        ] {
            let error = detect_format(body).unwrap_err();
            assert!(
                matches!(error, RequestError::UnknownFormat { .. }),
                "{body}: {error:?}"
            );
            let message = error.to_string();
            assert!(message.contains(found), "{body}: {message}");
            assert!(message.contains("`contents` (Gemini)"), "{message}");
            // A parsed value falls back to OpenAI's, whose parser says what is missing.
            let value: Value = serde_json::from_str(body).unwrap();
            assert_eq!(detect_value(&value), RequestFormat::OpenAiChat, "{body}");
        }
    }

    #[test]
    fn the_clue_names_what_told_the_format() {
        let clue = |body: &str| detect(body).unwrap().clue;
        assert_eq!(
            clue(
                r#"{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"thinking","thinking":"t"}]}]}"#
            ),
            FormatClue::Message {
                index: 1,
                what: "a `thinking` block"
            }
        );
        assert_eq!(
            clue(r#"{"messages":[{"role":"assistant","content":"a","tool_calls":[]}]}"#),
            FormatClue::Message {
                index: 0,
                what: "`tool_calls`"
            }
        );
        assert_eq!(
            clue(r#"{"messages":[{"role":"user","content":[{"cachePoint":{"type":"default"}}]}]}"#),
            FormatClue::Message {
                index: 0,
                what: "a `cachePoint` block"
            }
        );
        assert_eq!(
            clue(r#"{"instructions":"x","input":"y"}"#),
            FormatClue::Field("instructions")
        );
        assert_eq!(
            clue(r#"{"messages":[],"toolConfig":{}}"#),
            FormatClue::Field("toolConfig")
        );
        assert_eq!(
            clue(r#"{"system":"x","messages":[]}"#),
            FormatClue::Field("system")
        );
        assert_eq!(
            clue(r#"{"tools":[{"name":"f","input_schema":{}}],"messages":[]}"#),
            FormatClue::Tools
        );
        let undecided = detect(r#"{"messages":[{"role":"user","content":"plain"}]}"#).unwrap();
        assert_eq!(undecided.clue, FormatClue::Undecided);
        assert_eq!(undecided.format, RequestFormat::OpenAiChat);
        let said = undecided.to_string();
        assert!(said.contains("Anthropic Messages alike"), "{said}");
        let told = detect(r#"{"messages":[{"role":"developer","content":"x"}]}"#).unwrap();
        assert_eq!(
            told.to_string(),
            "OpenAI Chat Completions: messages[0] has the role `developer`"
        );
    }

    #[test]
    fn a_parsed_value_is_told_the_same_way() {
        for body in [
            r#"{"system": "x", "messages": []}"#,
            r#"{"messages": [{"role": "developer", "content": "x"}]}"#,
            r#"{"tools": [{"name": "f", "input_schema": {}}], "messages": []}"#,
            r#"{"messages": [{"role": "user", "content": "x"}]}"#,
        ] {
            let value: Value = serde_json::from_str(body).unwrap();
            assert_eq!(detect_value(&value), format(body), "{body}");
        }
    }

    #[test]
    fn malformed_json_has_its_position() {
        let err = detect_format("{\n  \"messages\": [}").unwrap_err();
        let message = err.to_string();
        assert!(message.contains("line 2"), "{message}");
        assert!(message.contains("request body is not JSON"), "{message}");
    }
}
