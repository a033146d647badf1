//! Counting: what blocks, documents, images, tools and the system prompt cost, and
//! the assumptions behind the estimates.

use base64::Engine as _;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::blocks::{Content, ContentBlock, DocumentBlock, Source};
use super::model::anthropic_tool_tokens;
use crate::count::TokenCounter;
use crate::request::Assumption;
use crate::request::image::{ANTHROPIC_MAX_IMAGE_TOKENS, ImageSize, anthropic_image_tokens};

/// What one PDF page is counted at: the top of the 1,500 to 3,000 text tokens a page
/// of Anthropic's PDF guide ("Estimate your costs"), plus the page as an image at the
/// most an image costs ([`ANTHROPIC_MAX_IMAGE_TOKENS`]).
pub const ANTHROPIC_PDF_PAGE_TOKENS: usize = 3_000 + ANTHROPIC_MAX_IMAGE_TOKENS;

/// The most pages a PDF is counted at (Anthropic accepts at most 600 pages in a
/// request), so that a corrupt file cannot claim millions.
const MAX_PDF_PAGES: usize = 600;

pub(super) const TOKENIZER: &str = "Anthropic publishes neither its tokenizer nor its per-message overhead: texts are counted with the counter given, messages with ChatFormat::anthropic()'s estimated overhead; check against the `usage` or the count_tokens endpoint";
const PDF_PAGES: &str = "a PDF document, counted at 4,600 tokens a page (Anthropic's PDF guide: 1,500 to 3,000 text tokens a page, plus each page as an image), its pages counted in the file";
const PDF_UNKNOWN: &str = "a document whose pages could not be counted (at a URL, in the Files API, not base64 PDF, or unreadable), counted as one PDF page of 4,600 tokens";
const REDACTED: &str = "redacted thinking, counted as the text of its encrypted `data`";
const OTHER_BLOCK: &str =
    "a content block of a type ctxbudget does not model, counted as the JSON text of its fields";
pub(super) const SERVER_TOOL: &str = "a tool of Anthropic's whose definition is not published (web search, web fetch, code execution, ...), counted as its JSON text";
pub(super) const UNKNOWN_MODEL: &str = "the model is not one whose tool-use system prompt Anthropic publishes; counted at 346 tokens (313 for `any` and `tool`), as for Claude 4 models";

/// What `content` costs: text, tool results, images, documents, and thinking when
/// `thinking` is set. `tool_use` blocks cost nothing here: the chat format counts
/// them as tool calls.
pub(super) fn content_tokens<C: TokenCounter + ?Sized>(
    content: &Content,
    counter: &C,
    thinking: bool,
) -> usize {
    match content {
        Content::Text(text) => counter.count(text),
        Content::Blocks(blocks) => blocks.iter().fold(0usize, |sum, block| {
            sum.saturating_add(block_tokens(block, counter, thinking))
        }),
    }
}

pub(super) fn block_tokens<C: TokenCounter + ?Sized>(
    block: &ContentBlock,
    counter: &C,
    thinking: bool,
) -> usize {
    match block {
        ContentBlock::Text(b) => counter.count(&b.text),
        ContentBlock::Image(b) => image_cost(&b.source).0,
        ContentBlock::Document(b) => document_cost(b, counter).0,
        ContentBlock::ToolResult(b) => {
            let content = b
                .content
                .as_ref()
                .map_or(0, |c| content_tokens(c, counter, thinking));
            counter.count(&b.tool_use_id).saturating_add(content)
        }
        ContentBlock::Thinking(b) if thinking => counter.count(&b.thinking),
        ContentBlock::RedactedThinking(b) if thinking => counter.count(&b.data),
        // Calls are counted by the chat format, as tool calls.
        ContentBlock::ToolUse(_)
        | ContentBlock::Thinking(_)
        | ContentBlock::RedactedThinking(_) => 0,
        ContentBlock::Other(b) => b.fields.iter().fold(0usize, |sum, (_, v)| {
            sum.saturating_add(counter.count(v.get()))
        }),
    }
}

/// Why an image's count is an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ImageEstimate {
    Exact,
    Remote,
    Unreadable,
}

/// What an image costs: `width × height / 750` after Anthropic's resizing, with the
/// size read from base64 data; a URL or file id costs the most an image can.
fn image_cost(source: &Source) -> (usize, ImageEstimate) {
    match source.kind() {
        "base64" => match source.data.as_deref().and_then(ImageSize::from_base64) {
            Some(size) => (anthropic_image_tokens(size), ImageEstimate::Exact),
            None => (ANTHROPIC_MAX_IMAGE_TOKENS, ImageEstimate::Unreadable),
        },
        "url" | "file" => (ANTHROPIC_MAX_IMAGE_TOKENS, ImageEstimate::Remote),
        _ => (ANTHROPIC_MAX_IMAGE_TOKENS, ImageEstimate::Unreadable),
    }
}

/// What a document costs, and the assumption behind it when it is an estimate.
///
/// - Plain text (`"type": "text"`): its text, exactly.
/// - Custom content (`"type": "content"`): its blocks, like a message's.
/// - A base64 PDF: [`ANTHROPIC_PDF_PAGE_TOKENS`] a page, pages counted in the file.
/// - Anything else (a URL, a file id, unreadable data): one PDF page.
///
/// A `title` and a `context` are counted as text.
fn document_cost<C: TokenCounter + ?Sized>(
    document: &DocumentBlock,
    counter: &C,
) -> (usize, Option<&'static str>) {
    let source = &document.source;
    let (body, assumption) = match source.kind() {
        "text" => (source.data.as_deref().map_or(0, |t| counter.count(t)), None),
        "content" => {
            let content = source
                .extra
                .get("content")
                .and_then(|raw| serde_json::from_str::<Content>(raw.get()).ok());
            match content {
                Some(content) => (content_tokens(&content, counter, true), None),
                None => (ANTHROPIC_PDF_PAGE_TOKENS, Some(PDF_UNKNOWN)),
            }
        }
        "base64" => match source.data.as_deref().and_then(pdf_pages) {
            Some(pages) => (
                pages.saturating_mul(ANTHROPIC_PDF_PAGE_TOKENS),
                Some(PDF_PAGES),
            ),
            None => (ANTHROPIC_PDF_PAGE_TOKENS, Some(PDF_UNKNOWN)),
        },
        _ => (ANTHROPIC_PDF_PAGE_TOKENS, Some(PDF_UNKNOWN)),
    };
    let labels = ["title", "context"].iter().fold(0usize, |sum, key| {
        let text = document
            .extra
            .get(key)
            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
        sum.saturating_add(text.map_or(0, |t| counter.count(&t)))
    });
    (body.saturating_add(labels), assumption)
}

/// The pages of a base64 PDF: its `/Type /Page` objects, or the largest `/Count`
/// of its page trees when the page objects are compressed; `None` when the data is
/// not a PDF in standard base64.
fn pdf_pages(data: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(data.trim_end_matches('='))
        .ok()?;
    if !bytes.starts_with(b"%PDF") {
        return None;
    }
    let mut pages = 0usize;
    let mut count = 0usize;
    let mut rest = &bytes[..];
    while let Some(at) = find(rest, b"/Type") {
        rest = &rest[at + b"/Type".len()..];
        let after = trim_pdf_space(rest);
        if let Some(tail) = after.strip_prefix(b"/Page") {
            if !tail.first().is_some_and(u8::is_ascii_alphanumeric) {
                pages += 1;
            }
        }
    }
    let mut rest = &bytes[..];
    while let Some(at) = find(rest, b"/Count") {
        rest = &rest[at + b"/Count".len()..];
        let digits: Vec<u8> = trim_pdf_space(rest)
            .iter()
            .take(7)
            .take_while(|b| b.is_ascii_digit())
            .copied()
            .collect();
        if let Some(n) = std::str::from_utf8(&digits)
            .ok()
            .and_then(|d| d.parse::<usize>().ok())
        {
            count = count.max(n);
        }
    }
    Some(pages.max(count).clamp(1, MAX_PDF_PAGES))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn trim_pdf_space(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0'))
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// Adds the assumptions counting `content` of message `message` rests on.
pub(super) fn content_assumptions(
    content: &Content,
    message: usize,
    thinking: bool,
    out: &mut Vec<Assumption>,
) {
    for block in content.blocks() {
        match block {
            ContentBlock::Image(b) => match image_cost(&b.source) {
                (_, ImageEstimate::Exact) => {}
                (tokens, ImageEstimate::Remote) => out.push(Assumption::RemoteImage {
                    message,
                    assumed_tokens: tokens,
                }),
                (tokens, ImageEstimate::Unreadable) => out.push(Assumption::UnreadableImage {
                    message,
                    assumed_tokens: tokens,
                }),
            },
            ContentBlock::Document(b) => {
                // Counting with a counter of zeros finds the assumption without the
                // cost of counting text.
                if let (_, Some(what)) = document_cost(b, &|_: &str| 0) {
                    out.push(Assumption::UnpublishedRule {
                        message: Some(message),
                        what,
                    });
                }
                if b.source.kind() == "content" {
                    if let Some(content) = b
                        .source
                        .extra
                        .get("content")
                        .and_then(|raw| serde_json::from_str::<Content>(raw.get()).ok())
                    {
                        content_assumptions(&content, message, true, out);
                    }
                }
            }
            ContentBlock::ToolResult(b) => {
                if let Some(content) = &b.content {
                    content_assumptions(content, message, thinking, out);
                }
            }
            ContentBlock::RedactedThinking(_) if thinking => {
                out.push(Assumption::UnpublishedRule {
                    message: Some(message),
                    what: REDACTED,
                });
            }
            ContentBlock::Other(_) => out.push(Assumption::UnpublishedRule {
                message: Some(message),
                what: OTHER_BLOCK,
            }),
            _ => {}
        }
    }
}

/// What one entry of `tools` costs, and whether it rests on an assumption.
///
/// A tool you define (`type` absent or `"custom"`) costs its name, its description
/// and its `input_schema` as compact JSON. One of Anthropic's client tools (bash,
/// text editor, computer) costs what the pricing page says it adds. Any other tool
/// of Anthropic's costs its JSON text, as an assumption.
pub(super) fn tool_tokens<C: TokenCounter + ?Sized>(tool: &RawValue, counter: &C) -> (usize, bool) {
    #[derive(Deserialize)]
    struct Tool {
        #[serde(rename = "type")]
        kind: Option<String>,
        name: Option<String>,
        description: Option<String>,
        input_schema: Option<Box<RawValue>>,
    }
    let Ok(parsed) = serde_json::from_str::<Tool>(tool.get()) else {
        return (counter.count(&compact_json(tool.get())), true);
    };
    match parsed.kind.as_deref() {
        None | Some("custom") => {
            let name = parsed.name.as_deref().map_or(0, |n| counter.count(n));
            let description = parsed
                .description
                .as_deref()
                .map_or(0, |d| counter.count(d));
            let schema = parsed
                .input_schema
                .as_deref()
                .map_or(0, |s| counter.count(&compact_json(s.get())));
            (
                name.saturating_add(description).saturating_add(schema),
                false,
            )
        }
        Some(kind) => match anthropic_tool_tokens(kind) {
            Some(tokens) => (tokens, false),
            None => (counter.count(&compact_json(tool.get())), true),
        },
    }
}

/// `json` without the whitespace between tokens (strings untouched).
pub(super) fn compact_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn pdf_pages_are_counted_in_the_file() {
        let three = b"%PDF-1.4\n1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R 4 0 R] /Count 3 >>\n2 0 obj << /Type /Page >>\n3 0 obj <</Type/Page/Parent 1 0 R>>\n4 0 obj << /Type\n/Page >>";
        assert_eq!(pdf_pages(&b64(three)), Some(3));
        // Page objects in compressed streams: the page tree's count.
        let compressed = b"%PDF-1.7\n1 0 obj << /Type /Pages /Count 12 >> stream...";
        assert_eq!(pdf_pages(&b64(compressed)), Some(12));
        assert_eq!(pdf_pages(&b64(b"%PDF-1.7 nothing")), Some(1));
        assert_eq!(
            pdf_pages(&b64(b"%PDF /Count 99999999999")),
            Some(MAX_PDF_PAGES)
        );
        assert_eq!(pdf_pages(&b64(b"%PDF /Count 9999")), Some(MAX_PDF_PAGES));
        assert_eq!(pdf_pages(&b64(b"GIF89a")), None);
        assert_eq!(pdf_pages("%%% not base64"), None);
        assert_eq!(pdf_pages(""), None);
    }

    #[test]
    fn compact_json_keeps_strings() {
        assert_eq!(
            compact_json("{ \"a b\" : [1, 2],\n \"c\": \"x \\\" y\" }"),
            r#"{"a b":[1,2],"c":"x \" y"}"#
        );
    }
}
