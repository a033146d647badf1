//! Small grammars of OpenAI Chat Completions and Anthropic Messages bodies, written
//! to JSON text by hand (see `json_out.rs`): deep nesting (documents in documents,
//! schemas in schemas, unknown fields), numbers out of range, odd output limits,
//! long names, images and PDFs whose headers lie, keys given twice.
//!
//! Writing a body also records what its count must include: the texts an Anthropic
//! body holds (with how often each occurs, and whether it sits in a custom-content
//! document) and the custom tools' parts; the OpenAI checks read the texts back
//! through the parsed request instead.

#![allow(dead_code)]

use libfuzzer_sys::arbitrary::{self, Arbitrary};

use crate::json_out::{
    Deep, Image, MediaType, Name, Num, Out, Pdf, Text, base64, log_scale, max_depth,
};

/// Extra top-level fields: names that tell neither format apart.
const EXTRA_KEYS: &[&str] = &[
    "temperature",
    "metadata",
    "stream",
    "top_p",
    "user",
    "stop",
    "x_vendor",
    "service_tier",
];

#[derive(Arbitrary, Debug, Clone)]
pub struct Extra {
    pub key: u8,
    pub value: Deep,
    /// Write it twice, one time in eight.
    pub twice: u8,
}

fn extras(o: &mut crate::json_out::Obj<'_>, extras: &[Extra]) {
    for extra in extras {
        let key = EXTRA_KEYS[usize::from(extra.key) % EXTRA_KEYS.len()];
        for _ in 0..=usize::from(extra.twice % 8 == 0) {
            o.field(key, |out| extra.value.write(out));
        }
    }
}

/// An image given by data, by URL or by id.
#[derive(Arbitrary, Debug, Clone)]
pub enum ImageSource {
    Data { image: Image, media: MediaType },
    Url(String),
    File(String),
    NotBase64(String),
}

/// An output limit: a plain one, or any number (out of range, negative, a string).
#[derive(Arbitrary, Debug, Clone)]
pub enum Limit {
    Plain(u32),
    Odd(Num),
}

impl Limit {
    pub fn json(&self) -> String {
        match self {
            Limit::Plain(n) => n.to_string(),
            Limit::Odd(n) => n.json(),
        }
    }
}

/// Which known top-level field a body writes twice, one time in five (3 of 16).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct TopDuplicate(u8);

impl TopDuplicate {
    fn model(self) -> bool {
        self.0 % 16 == 1
    }

    fn max_tokens(self) -> bool {
        self.0 % 16 == 2
    }

    fn messages(self) -> bool {
        self.0 % 16 == 3
    }
}

// ---------------------------------------------------------------------------------
// OpenAI Chat Completions

// The fields that make a body interesting come first: `arbitrary` fills fields in
// order, and a short input leaves the last ones empty.

#[derive(Arbitrary, Debug, Clone)]
pub struct OpenAiBody {
    pub messages: Vec<OaMessage>,
    pub tools: Option<Vec<OaTool>>,
    pub response_format: Option<ResponseFormat>,
    pub model: Option<Name>,
    pub functions: Option<Vec<OaFunction>>,
    pub max_tokens: Option<Limit>,
    pub max_completion_tokens: Option<Limit>,
    pub extras: Vec<Extra>,
    pub duplicate: TopDuplicate,
    /// Messages before the other fields, or after.
    pub messages_last: bool,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct OaMessage {
    pub role: OaRole,
    pub content: Option<OaContent>,
    pub name: Option<Name>,
    pub tool_calls: Option<Vec<OaCall>>,
    pub tool_call_id: Option<Name>,
    pub refusal: Option<Text>,
    pub audio: bool,
    pub extra: Option<Deep>,
    /// `role` written after the other fields.
    pub role_last: bool,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum OaRole {
    System,
    Developer,
    User,
    Assistant,
    Tool,
    Function,
    Other(String),
}

#[derive(Arbitrary, Debug, Clone)]
pub enum OaContent {
    Null,
    Text(Text),
    Parts(Vec<OaPart>),
}

#[derive(Arbitrary, Debug, Clone)]
pub enum OaPart {
    Text(Text),
    Refusal(Text),
    Image {
        source: ImageSource,
        detail: Option<u8>,
    },
    Audio {
        header: Option<(u16, u32, u32)>,
        data: Vec<u8>,
        format: u8,
    },
    File(OaFile),
    Other {
        kind: u8,
        value: Deep,
    },
}

#[derive(Arbitrary, Debug, Clone)]
pub enum OaFile {
    Pdf {
        pdf: Pdf,
        media: MediaType,
        name: Option<String>,
    },
    Id(String),
    Text(Text),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct OaCall {
    pub id: Option<Name>,
    pub kind: u8,
    pub name: Name,
    pub arguments: Text,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct OaTool {
    pub kind: u8,
    pub function: Option<OaFunction>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct OaFunction {
    pub name: Option<Name>,
    pub description: Option<Text>,
    pub parameters: Option<Schema>,
}

/// A JSON schema of tool parameters.
#[derive(Arbitrary, Debug, Clone)]
pub struct Schema {
    pub typed: bool,
    pub properties: Vec<Property>,
    pub extras: Vec<(u8, Deep)>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Property {
    pub name: Name,
    pub kind: Option<u8>,
    pub description: Option<Text>,
    pub choices: Option<Vec<Num>>,
    pub maximum: Option<Num>,
    /// `items` of any shape and depth.
    pub items: Option<Deep>,
    /// Object properties nested this many levels (`{"type": "object",
    /// "properties": {"p": ...}}`).
    pub nested: Option<u16>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct ResponseFormat {
    pub kind: u8,
    pub name: Name,
    pub schema: Option<Schema>,
    pub strict: bool,
}

const SCHEMA_KEYS: &[&str] = &[
    "$defs",
    "additionalProperties",
    "required",
    "anyOf",
    "title",
];
const TYPES: &[&str] = &[
    "string", "integer", "number", "object", "array", "boolean", "null",
];
const PART_KINDS: &[&str] = &["input_text", "output_text", "", "x_part", "video_url"];

/// What an OpenAI body holds that its checks need.
#[derive(Debug, Default)]
pub struct OpenAiFacts {
    /// Indices of the `tools` whose function parameters have a `properties` object
    /// with at least one property.
    pub tools_with_properties: Vec<usize>,
    /// Whether `response_format` is a `json_schema` with a schema object.
    pub response_schema: bool,
}

impl OpenAiBody {
    /// The body as JSON text (`space` after every `,` and `:`), and its facts.
    pub fn write(&self, space: &'static str) -> (String, OpenAiFacts) {
        let mut out = Out::new(space);
        let mut facts = OpenAiFacts::default();
        out.object(|o| {
            if !self.messages_last {
                self.write_messages(o);
            }
            if let Some(model) = &self.model {
                let name = model.value(o.out.room());
                o.str("model", &name);
                if self.duplicate.model() {
                    o.str("model", "gpt-4o");
                }
            }
            for (key, value) in [
                ("max_tokens", &self.max_tokens),
                ("max_completion_tokens", &self.max_completion_tokens),
            ] {
                if let Some(n) = value {
                    o.raw(key, &n.json());
                    if self.duplicate.max_tokens() {
                        o.raw(key, "16");
                    }
                }
            }
            if let Some(tools) = &self.tools {
                o.field("tools", |out| {
                    out.array(|a| {
                        for (i, tool) in tools.iter().enumerate() {
                            a.item(|out| {
                                if tool.write(out) {
                                    facts.tools_with_properties.push(i);
                                }
                            });
                        }
                    });
                });
            }
            if let Some(functions) = &self.functions {
                o.field("functions", |out| {
                    out.array(|a| {
                        for function in functions {
                            a.item(|out| {
                                function.write(out);
                            });
                        }
                    });
                });
            }
            if let Some(format) = &self.response_format {
                let kind = ["json_schema", "json_object", "text"][usize::from(format.kind % 3)];
                facts.response_schema = kind == "json_schema";
                o.field("response_format", |out| {
                    out.object(|o| {
                        o.str("type", kind);
                        o.field("json_schema", |out| {
                            out.object(|o| {
                                let name = format.name.value(o.out.room());
                                o.str("name", &name);
                                if let Some(schema) = &format.schema {
                                    o.field("schema", |out| {
                                        schema.write(out);
                                    });
                                }
                                o.raw("strict", if format.strict { "true" } else { "false" });
                            });
                        });
                    });
                });
            }
            extras(o, &self.extras);
            if self.messages_last {
                self.write_messages(o);
            }
        });
        (out.text, facts)
    }

    fn write_messages(&self, o: &mut crate::json_out::Obj<'_>) {
        for _ in 0..=usize::from(self.duplicate.messages()) {
            o.field("messages", |out| {
                out.array(|a| {
                    for message in &self.messages {
                        a.item(|out| message.write(out));
                    }
                });
            });
        }
    }
}

impl OaMessage {
    fn write(&self, out: &mut Out) {
        let role = match &self.role {
            OaRole::System => "system",
            OaRole::Developer => "developer",
            OaRole::User => "user",
            OaRole::Assistant => "assistant",
            OaRole::Tool => "tool",
            OaRole::Function => "function",
            OaRole::Other(role) => role.as_str(),
        };
        out.object(|o| {
            if !self.role_last {
                o.str("role", role);
            }
            match &self.content {
                None => {}
                Some(OaContent::Null) => o.raw("content", "null"),
                Some(OaContent::Text(text)) => {
                    let text = text.value(o.out.room());
                    o.str("content", &text);
                }
                Some(OaContent::Parts(parts)) => o.field("content", |out| {
                    out.array(|a| {
                        for part in parts {
                            a.item(|out| part.write(out));
                        }
                    });
                }),
            }
            if let Some(name) = &self.name {
                let name = name.value(o.out.room());
                o.str("name", &name);
            }
            if let Some(calls) = &self.tool_calls {
                o.field("tool_calls", |out| {
                    out.array(|a| {
                        for call in calls {
                            a.item(|out| call.write(out));
                        }
                    });
                });
            }
            if let Some(id) = &self.tool_call_id {
                let id = id.value(o.out.room());
                o.str("tool_call_id", &id);
            }
            if let Some(refusal) = &self.refusal {
                let refusal = refusal.value(o.out.room());
                o.str("refusal", &refusal);
            }
            if self.audio {
                o.raw("audio", "{\"id\":\"audio_1\"}");
            }
            if let Some(extra) = &self.extra {
                o.field("x_extra", |out| extra.write(out));
            }
            if self.role_last {
                o.str("role", role);
            }
        });
    }
}

fn data_url(media: &str, bytes: &[u8]) -> String {
    format!("data:{media};base64,{}", base64(bytes))
}

impl OaPart {
    fn write(&self, out: &mut Out) {
        out.object(|o| match self {
            OaPart::Text(text) => {
                o.str("type", "text");
                let text = text.value(o.out.room());
                o.str("text", &text);
            }
            OaPart::Refusal(text) => {
                o.str("type", "refusal");
                let text = text.value(o.out.room());
                o.str("refusal", &text);
            }
            OaPart::Image { source, detail } => {
                o.str("type", "image_url");
                let url = match source {
                    ImageSource::Data { image, media } => {
                        let (bytes, own) = image.bytes();
                        data_url(media.or(own), &bytes)
                    }
                    ImageSource::Url(url) => url.clone(),
                    ImageSource::File(id) => format!("file-{id}"),
                    ImageSource::NotBase64(text) => format!("data:image/png;base64,{text}"),
                };
                o.field("image_url", |out| {
                    out.object(|o| {
                        o.str("url", &url);
                        if let Some(detail) = detail {
                            o.str(
                                "detail",
                                ["low", "high", "auto", "LOW", ""][usize::from(*detail % 5)],
                            );
                        }
                    });
                });
            }
            OaPart::Audio {
                header,
                data,
                format,
            } => {
                o.str("type", "input_audio");
                let mut bytes = Vec::new();
                if let Some((channels, rate, length)) = header {
                    bytes.extend_from_slice(b"RIFF");
                    bytes.extend_from_slice(&length.to_le_bytes());
                    bytes.extend_from_slice(b"WAVEfmt \x10\x00\x00\x00\x01\x00");
                    bytes.extend_from_slice(&channels.to_le_bytes());
                    bytes.extend_from_slice(&rate.to_le_bytes());
                    bytes.extend_from_slice(&rate.wrapping_mul(2).to_le_bytes());
                    bytes.extend_from_slice(b"\x02\x00\x10\x00data");
                    bytes.extend_from_slice(&length.to_le_bytes());
                }
                bytes.extend_from_slice(data);
                o.field("input_audio", |out| {
                    out.object(|o| {
                        o.str("data", &base64(&bytes));
                        o.str(
                            "format",
                            ["wav", "mp3", "flac", ""][usize::from(*format % 4)],
                        );
                    });
                });
            }
            OaPart::File(file) => {
                o.str("type", "file");
                o.field("file", |out| {
                    out.object(|o| match file {
                        OaFile::Pdf { pdf, media, name } => {
                            o.str(
                                "file_data",
                                &data_url(media.or("application/pdf"), &pdf.bytes()),
                            );
                            if let Some(name) = name {
                                o.str("filename", name);
                            }
                        }
                        OaFile::Id(id) => o.str("file_id", id),
                        OaFile::Text(text) => {
                            let text = text.value(o.out.room() / 2);
                            o.str("file_data", &data_url("text/plain", text.as_bytes()));
                        }
                    });
                });
            }
            OaPart::Other { kind, value } => {
                o.str("type", PART_KINDS[usize::from(*kind) % PART_KINDS.len()]);
                o.field("value", |out| value.write(out));
            }
        });
    }
}

impl OaCall {
    fn write(&self, out: &mut Out) {
        out.object(|o| {
            if let Some(id) = &self.id {
                let id = id.value(o.out.room());
                o.str("id", &id);
            }
            let kind = ["function", "custom", "x_kind"][usize::from(self.kind % 3)];
            o.str("type", kind);
            let name = self.name.value(o.out.room());
            let arguments = self.arguments.value(o.out.room());
            o.field(
                if kind == "custom" {
                    "custom"
                } else {
                    "function"
                },
                |out| {
                    out.object(|o| {
                        o.str("name", &name);
                        o.str(
                            if kind == "custom" {
                                "input"
                            } else {
                                "arguments"
                            },
                            &arguments,
                        );
                    });
                },
            );
        });
    }
}

impl OaTool {
    /// Writes the tool; true when its function's parameters have properties.
    fn write(&self, out: &mut Out) -> bool {
        let kind = ["function", "custom", "web_search"][usize::from(self.kind % 3)];
        let mut with_properties = false;
        out.object(|o| {
            o.str("type", kind);
            if let Some(function) = &self.function {
                o.field(
                    if kind == "custom" {
                        "custom"
                    } else {
                        "function"
                    },
                    |out| {
                        with_properties = function.write(out);
                    },
                );
            }
        });
        with_properties && kind == "function"
    }
}

impl OaFunction {
    /// Writes the function; true when its parameters have properties.
    fn write(&self, out: &mut Out) -> bool {
        let mut with_properties = false;
        out.object(|o| {
            if let Some(name) = &self.name {
                let name = name.value(o.out.room());
                o.str("name", &name);
            }
            if let Some(description) = &self.description {
                let description = description.value(o.out.room());
                o.str("description", &description);
            }
            if let Some(schema) = &self.parameters {
                o.field("parameters", |out| with_properties = schema.write(out));
            }
        });
        with_properties
    }
}

impl Schema {
    /// Writes the schema; true when it has at least one property.
    fn write(&self, out: &mut Out) -> bool {
        out.object(|o| {
            if self.typed {
                o.str("type", "object");
            }
            o.field("properties", |out| {
                out.object(|o| {
                    for property in &self.properties {
                        let name = property.name.value(o.out.room().min(1 << 16));
                        o.field(&name, |out| property.write(out));
                    }
                });
            });
            for (key, value) in &self.extras {
                o.field(SCHEMA_KEYS[usize::from(*key) % SCHEMA_KEYS.len()], |out| {
                    value.write(out)
                });
            }
        });
        !self.properties.is_empty()
    }
}

impl Property {
    fn write(&self, out: &mut Out) {
        let depth = self.nested.map_or(0, |d| {
            log_scale(u32::from(d), 16)
                .min(max_depth())
                .min(out.room() / 64)
        });
        for _ in 0..depth {
            out.raw("{\"type\":\"object\",\"properties\":{\"p\":");
        }
        out.object(|o| {
            if let Some(kind) = self.kind {
                o.str("type", TYPES[usize::from(kind) % TYPES.len()]);
            }
            if let Some(description) = &self.description {
                let description = description.value(o.out.room());
                o.str("description", &description);
            }
            if let Some(choices) = &self.choices {
                o.field("enum", |out| {
                    out.array(|a| {
                        for choice in choices {
                            a.item(|out| out.raw(&choice.json()));
                        }
                    });
                });
            }
            if let Some(maximum) = &self.maximum {
                o.raw("maximum", &maximum.json());
            }
            if let Some(items) = &self.items {
                o.field("items", |out| items.write(out));
            }
        });
        for _ in 0..depth {
            out.raw("}}");
        }
    }
}

// ---------------------------------------------------------------------------------
// Anthropic Messages

#[derive(Arbitrary, Debug, Clone)]
pub struct AnthropicBody {
    pub messages: Vec<AnMessage>,
    pub system: Option<System>,
    pub tools: Option<Vec<AnTool>>,
    pub max_tokens: Option<Limit>,
    pub model: Option<Name>,
    pub tool_choice: Option<u8>,
    pub thinking: Option<u32>,
    pub extras: Vec<Extra>,
    pub duplicate: TopDuplicate,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum System {
    Text(Text),
    Blocks(Vec<(Text, bool)>),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct AnMessage {
    pub assistant: bool,
    pub content: AnContent,
    pub extra: Option<Deep>,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum AnContent {
    Text(Text),
    Blocks(Vec<Block>),
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Block {
    /// A custom-content document with a chain of documents nested in it (as
    /// [`DocumentSource::Content`] can hold, here more often).
    Nested(Chain),
    Text {
        text: Text,
        cache: bool,
    },
    Image(ImageSource),
    Document(Document),
    ToolUse {
        id: Name,
        name: Name,
        input: Deep,
    },
    ToolResult {
        id: Name,
        content: Option<ResultContent>,
        is_error: Option<bool>,
    },
    Thinking {
        thinking: Text,
    },
    RedactedThinking {
        data: Text,
    },
    Other {
        kind: u8,
        value: Deep,
    },
}

#[derive(Arbitrary, Debug, Clone)]
pub enum ResultContent {
    Text(Text),
    Blocks(Vec<Inner>),
}

/// A block of a tool result.
#[derive(Arbitrary, Debug, Clone)]
pub enum Inner {
    Nested(Chain),
    Text(Text),
    Image(ImageSource),
    Document(Document),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Document {
    pub source: DocumentSource,
    pub title: Option<Text>,
    pub context: Option<Text>,
    pub citations: bool,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum DocumentSource {
    Text {
        text: Text,
        media: MediaType,
    },
    Pdf {
        pdf: Pdf,
        media: MediaType,
    },
    Url(String),
    File(String),
    /// `{"type": "content", "content": "..."}`.
    ContentText(Text),
    /// `{"type": "content", "content": [...]}`, with a chain of documents nested in it.
    Content {
        blocks: Vec<Leaf>,
        chain: Option<Chain>,
    },
}

/// A block of a custom-content document.
#[derive(Arbitrary, Debug, Clone)]
pub enum Leaf {
    Text(Text),
    Image(ImageSource),
    TextDocument(Text),
}

/// Documents nested `depth` levels through custom content: each level may hold a
/// text block (the `texts`, cycled, every `every`-th level) and a title.
#[derive(Arbitrary, Debug, Clone)]
pub struct Chain {
    pub depth: u16,
    pub texts: Vec<Text>,
    pub every: u8,
    pub title_every: u8,
    pub innermost: Vec<Text>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct AnTool {
    pub kind: u8,
    pub name: Name,
    pub description: Option<Text>,
    pub schema: Option<Deep>,
}

const OTHER_BLOCKS: &[&str] = &[
    "server_tool_use",
    "web_search_tool_result",
    "search_result",
    "container_upload",
    "x_block",
];
const TOOL_KINDS: &[&str] = &[
    "",
    "custom",
    "bash_20250124",
    "web_search_20250305",
    "x_tool",
];

/// A text the count of an Anthropic body includes, how many times it occurs, and
/// whether it is inside a custom-content document.
#[derive(Debug)]
pub struct Counted {
    pub text: String,
    pub times: usize,
    pub in_document: bool,
}

/// What an Anthropic body holds that its checks need.
#[derive(Debug, Default)]
pub struct AnthropicFacts {
    /// Every text the count includes (not thinking, which the count may leave out).
    pub texts: Vec<Counted>,
    /// The custom tools' name, description and compact `input_schema` text.
    pub tools: Vec<[String; 3]>,
    /// The deepest chain of documents written.
    pub depth: usize,
}

impl AnthropicFacts {
    fn text(&mut self, text: String, times: usize, in_document: bool) {
        if times > 0 {
            self.texts.push(Counted {
                text,
                times,
                in_document,
            });
        }
    }
}

impl AnthropicBody {
    /// The body as JSON text (`space` after every `,` and `:`), and its facts.
    pub fn write(&self, space: &'static str) -> (String, AnthropicFacts) {
        let mut out = Out::new(space);
        let mut facts = AnthropicFacts::default();
        out.object(|o| {
            if let Some(model) = &self.model {
                let name = model.value(o.out.room());
                o.str("model", &name);
                if self.duplicate.model() {
                    o.str("model", "claude-sonnet-4-5");
                }
            }
            if let Some(n) = &self.max_tokens {
                o.raw("max_tokens", &n.json());
                if self.duplicate.max_tokens() {
                    o.raw("max_tokens", "16");
                }
            }
            match &self.system {
                None => {}
                Some(System::Text(text)) => {
                    let text = text.value(o.out.room());
                    o.str("system", &text);
                    facts.text(text, 1, false);
                }
                Some(System::Blocks(blocks)) => o.field("system", |out| {
                    out.array(|a| {
                        for (text, cache) in blocks {
                            a.item(|out| {
                                let text = text.value(out.room());
                                text_block(out, &text, *cache);
                                facts.text(text, 1, false);
                            });
                        }
                    });
                }),
            }
            if let Some(tools) = &self.tools {
                o.field("tools", |out| {
                    out.array(|a| {
                        for tool in tools {
                            a.item(|out| tool.write(out, &mut facts));
                        }
                    });
                });
            }
            if let Some(choice) = self.tool_choice {
                let kind = ["auto", "any", "tool", "none", "x"][usize::from(choice % 5)];
                o.field("tool_choice", |out| {
                    out.object(|o| {
                        o.str("type", kind);
                        if kind == "tool" {
                            o.str("name", "f");
                        }
                    });
                });
            }
            if let Some(budget) = self.thinking {
                o.raw(
                    "thinking",
                    &format!("{{\"type\":\"enabled\",\"budget_tokens\":{budget}}}"),
                );
            }
            extras(o, &self.extras);
            for _ in 0..=usize::from(self.duplicate.messages()) {
                o.field("messages", |out| {
                    out.array(|a| {
                        for message in &self.messages {
                            a.item(|out| message.write(out, &mut facts));
                        }
                    });
                });
            }
        });
        (out.text, facts)
    }
}

fn text_block(out: &mut Out, text: &str, cache: bool) {
    out.object(|o| {
        o.str("type", "text");
        o.str("text", text);
        if cache {
            o.raw("cache_control", "{\"type\":\"ephemeral\"}");
        }
    });
}

impl AnTool {
    fn write(&self, out: &mut Out, facts: &mut AnthropicFacts) {
        let kind = TOOL_KINDS[usize::from(self.kind) % TOOL_KINDS.len()];
        let name = self.name.value(out.room());
        let description = self.description.as_ref().map(|d| d.value(out.room()));
        let schema = self.schema.as_ref().map(|schema| {
            let mut compact = Out::new("");
            schema.write(&mut compact);
            compact.text
        });
        out.object(|o| {
            if !kind.is_empty() {
                o.str("type", kind);
            }
            o.str("name", &name);
            if let Some(description) = &description {
                o.str("description", description);
            }
            if let Some(schema) = &self.schema {
                o.field("input_schema", |out| schema.write(out));
            }
        });
        if kind.is_empty() || kind == "custom" {
            facts.tools.push([
                name,
                description.unwrap_or_default(),
                schema.unwrap_or_default(),
            ]);
        }
    }
}

impl AnMessage {
    fn write(&self, out: &mut Out, facts: &mut AnthropicFacts) {
        out.object(|o| {
            o.str("role", if self.assistant { "assistant" } else { "user" });
            match &self.content {
                AnContent::Text(text) => {
                    let text = text.value(o.out.room());
                    o.str("content", &text);
                    facts.text(text, 1, false);
                }
                AnContent::Blocks(blocks) => o.field("content", |out| {
                    out.array(|a| {
                        for block in blocks {
                            a.item(|out| block.write(out, facts));
                        }
                    });
                }),
            }
            if let Some(extra) = &self.extra {
                o.field("x_extra", |out| extra.write(out));
            }
        });
    }
}

fn image_block(out: &mut Out, source: &ImageSource) {
    out.object(|o| {
        o.str("type", "image");
        o.field("source", |out| {
            out.object(|o| match source {
                ImageSource::Data { image, media } => {
                    let (bytes, own) = image.bytes();
                    o.str("type", "base64");
                    o.str("media_type", media.or(own));
                    o.str("data", &base64(&bytes));
                }
                ImageSource::Url(url) => {
                    o.str("type", "url");
                    o.str("url", url);
                }
                ImageSource::File(id) => {
                    o.str("type", "file");
                    o.str("file_id", id);
                }
                ImageSource::NotBase64(data) => {
                    o.str("type", "base64");
                    o.str("media_type", "image/png");
                    o.str("data", data);
                }
            });
        });
    });
}

impl Block {
    fn write(&self, out: &mut Out, facts: &mut AnthropicFacts) {
        match self {
            Block::Text { text, cache } => {
                let text = text.value(out.room());
                text_block(out, &text, *cache);
                facts.text(text, 1, false);
            }
            Block::Nested(chain) => Document {
                source: DocumentSource::Content {
                    blocks: Vec::new(),
                    chain: Some(chain.clone()),
                },
                title: None,
                context: None,
                citations: false,
            }
            .write(out, facts, false),
            Block::Image(source) => image_block(out, source),
            Block::Document(document) => document.write(out, facts, false),
            Block::ToolUse { id, name, input } => out.object(|o| {
                o.str("type", "tool_use");
                let id = id.value(o.out.room());
                o.str("id", &id);
                let name = name.value(o.out.room());
                o.str("name", &name);
                o.field("input", |out| input.write(out));
            }),
            Block::ToolResult {
                id,
                content,
                is_error,
            } => out.object(|o| {
                o.str("type", "tool_result");
                let id = id.value(o.out.room());
                o.str("tool_use_id", &id);
                facts.text(id, 1, false);
                match content {
                    None => {}
                    Some(ResultContent::Text(text)) => {
                        let text = text.value(o.out.room());
                        o.str("content", &text);
                        facts.text(text, 1, false);
                    }
                    Some(ResultContent::Blocks(blocks)) => o.field("content", |out| {
                        out.array(|a| {
                            for block in blocks {
                                a.item(|out| match block {
                                    Inner::Text(text) => {
                                        let text = text.value(out.room());
                                        text_block(out, &text, false);
                                        facts.text(text, 1, false);
                                    }
                                    Inner::Nested(chain) => {
                                        Block::Nested(chain.clone()).write(out, facts)
                                    }
                                    Inner::Image(source) => image_block(out, source),
                                    Inner::Document(document) => document.write(out, facts, false),
                                });
                            }
                        });
                    }),
                }
                if let Some(is_error) = is_error {
                    o.raw("is_error", if *is_error { "true" } else { "false" });
                }
            }),
            Block::Thinking { thinking } => out.object(|o| {
                o.str("type", "thinking");
                let thinking = thinking.value(o.out.room());
                o.str("thinking", &thinking);
                o.str("signature", "sig");
            }),
            Block::RedactedThinking { data } => out.object(|o| {
                o.str("type", "redacted_thinking");
                let data = data.value(o.out.room());
                o.str("data", &data);
            }),
            Block::Other { kind, value } => out.object(|o| {
                o.str(
                    "type",
                    OTHER_BLOCKS[usize::from(*kind) % OTHER_BLOCKS.len()],
                );
                o.field("value", |out| value.write(out));
            }),
        }
    }
}

impl Document {
    fn write(&self, out: &mut Out, facts: &mut AnthropicFacts, in_document: bool) {
        out.object(|o| {
            o.str("type", "document");
            o.field("source", |out| {
                out.object(|o| match &self.source {
                    DocumentSource::Text { text, media } => {
                        o.str("type", "text");
                        o.str("media_type", media.or("text/plain"));
                        let text = text.value(o.out.room());
                        o.str("data", &text);
                        facts.text(text, 1, in_document);
                    }
                    DocumentSource::Pdf { pdf, media } => {
                        o.str("type", "base64");
                        o.str("media_type", media.or("application/pdf"));
                        o.str("data", &base64(&pdf.bytes()));
                    }
                    DocumentSource::Url(url) => {
                        o.str("type", "url");
                        o.str("url", url);
                    }
                    DocumentSource::File(id) => {
                        o.str("type", "file");
                        o.str("file_id", id);
                    }
                    DocumentSource::ContentText(text) => {
                        o.str("type", "content");
                        let text = text.value(o.out.room());
                        o.str("content", &text);
                        facts.text(text, 1, true);
                    }
                    DocumentSource::Content { blocks, chain } => {
                        o.str("type", "content");
                        o.field("content", |out| {
                            out.array(|a| {
                                for block in blocks {
                                    a.item(|out| block.write(out, facts));
                                }
                                if let Some(chain) = chain {
                                    a.item(|out| chain.write(out, facts));
                                }
                            });
                        });
                    }
                });
            });
            for (key, text) in [("title", &self.title), ("context", &self.context)] {
                if let Some(text) = text {
                    let text = text.value(o.out.room());
                    o.str(key, &text);
                    facts.text(text, 1, in_document);
                }
            }
            if self.citations {
                o.raw("citations", "{\"enabled\":true}");
            }
        });
    }
}

impl Leaf {
    fn write(&self, out: &mut Out, facts: &mut AnthropicFacts) {
        match self {
            Leaf::Text(text) => {
                let text = text.value(out.room());
                text_block(out, &text, false);
                facts.text(text, 1, true);
            }
            Leaf::Image(source) => image_block(out, source),
            Leaf::TextDocument(text) => out.object(|o| {
                o.str("type", "document");
                let text = text.value(o.out.room());
                o.raw(
                    "source",
                    "{\"type\":\"text\",\"media_type\":\"text/plain\",\"data\":",
                );
                o.out.string(&text);
                o.out.raw("}");
                facts.text(text, 1, true);
            }),
        }
    }
}

impl Chain {
    /// Writes `depth` documents, each in the content of the one before, without
    /// recursion; each level's text is written once per level it is on.
    fn write(&self, out: &mut Out, facts: &mut AnthropicFacts) {
        // Each level's text, rendered once.
        let room = out.room() / 4;
        let texts: Vec<String> = self
            .texts
            .iter()
            .map(|t| t.value(room / (self.texts.len() + 1)))
            .collect();
        let encoded: Vec<String> = texts
            .iter()
            .map(|t| serde_json::to_string(t).expect("strings serialize"))
            .collect();
        let every = usize::from(self.every);
        let title_every = usize::from(self.title_every);
        // Bytes a level takes: its document, its text and its title.
        let longest = encoded.iter().map(String::len).max().unwrap_or(0);
        let per_level = 80 + longest + 40;
        let depth = log_scale(u32::from(self.depth), 16)
            .min(max_depth())
            .min(out.room() / per_level);
        facts.depth = facts.depth.max(depth);
        let mut times = vec![0usize; texts.len()];
        let mut titles = 0usize;
        let text_at = |level: usize| {
            (every > 0 && !texts.is_empty() && level % every == 0)
                .then(|| level / every % texts.len())
        };
        let title_at = |level: usize| title_every > 0 && level % title_every == 0;
        // Whether the content array being written has an item already.
        let mut after_item = false;
        for level in 0..depth {
            if after_item {
                out.raw(",");
            }
            out.raw("{\"type\":\"document\",\"source\":{\"type\":\"content\",\"content\":[");
            after_item = false;
            if let Some(i) = text_at(level) {
                out.raw("{\"type\":\"text\",\"text\":");
                out.raw(&encoded[i]);
                out.raw("}");
                times[i] += 1;
                after_item = true;
            }
        }
        for text in &self.innermost {
            if after_item {
                out.raw(",");
            }
            let text = text.value(out.room() / 8);
            text_block(out, &text, false);
            facts.text(text, 1, true);
            after_item = true;
        }
        if depth == 0 && !after_item {
            // Nothing nested and no text: the chain's place holds an empty text.
            text_block(out, "", false);
        }
        for level in (0..depth).rev() {
            out.raw("]}");
            if title_at(level) {
                out.raw(",\"title\":\"t\"");
                titles += 1;
            }
            out.raw("}");
        }
        for (text, times) in texts.into_iter().zip(times) {
            facts.text(text, times, true);
        }
        facts.text("t".to_owned(), titles, true);
    }
}
