//! Counting: what blocks, documents, images, tools and the system prompt cost, and
//! the assumptions behind the estimates.

use std::borrow::Cow;

use base64::Engine as _;
use serde::Deserialize;
use serde::de::DeserializeSeed;
use serde_json::value::RawValue;

use super::blocks::{Content, ContentBlock, ContentReader, Depth, DocumentBlock, Source};
use super::message::AnthropicMessage;
use super::model::anthropic_tool_tokens;
use crate::count::TokenCounter;
use crate::request::image::{
    ANTHROPIC_MANY_IMAGES, ANTHROPIC_MANY_IMAGES_MAX_SIDE, ANTHROPIC_MAX_IMAGE_TOKENS,
    ANTHROPIC_MAX_SIDE, anthropic_image_tokens, anthropic_problem, check_base64, read_base64,
};
use crate::request::json::compact_json;
use crate::request::{Assumption, RequestError};

/// What one PDF page is counted at: the top of the 1,500 to 3,000 text tokens a page
/// of Anthropic's PDF guide ("Estimate your costs"), plus the page as an image at the
/// most an image costs ([`ANTHROPIC_MAX_IMAGE_TOKENS`]).
pub const ANTHROPIC_PDF_PAGE_TOKENS: usize = 3_000 + ANTHROPIC_MAX_IMAGE_TOKENS;

/// The most PDF pages Anthropic takes in a request (PDF guide, "Check PDF
/// requirements": 600, or 100 for models with a window under a million tokens): a
/// PDF is counted at no more, and [`validate`](crate::request::WireRequest::validate)
/// refuses a request over it.
const MAX_PDF_PAGES: usize = 600;

/// How many levels of custom-content documents (a document whose `source` is
/// `{"type": "content", "content": [...]}`) a count reads into blocks; the content of
/// documents nested deeper is counted as its JSON text, read once.
const DOCUMENT_DEPTH: usize = 32;

pub(super) const TOKENIZER: &str = "Anthropic publishes neither its tokenizer nor its per-message overhead: texts are counted with the counter given, messages with ChatFormat::anthropic_for_model()'s estimated overhead; check against the `usage` or the count_tokens endpoint";
const PDF_PAGES: &str = "a PDF document, counted at 4,600 tokens a page (Anthropic's PDF guide: 1,500 to 3,000 text tokens a page, plus each page as an image), its pages counted in the file";
const PDF_UNKNOWN: &str = "a document whose pages could not be counted (at a URL, in the Files API, not base64 PDF, or unreadable), counted as one PDF page of 4,600 tokens";
const DEEP_DOCUMENT: &str = "documents nested more than 32 levels deep in custom-content documents, counted as the JSON text of their content";
const UNREAD_CONTENT: &str =
    "a custom-content document whose content could not be read as blocks, counted as its JSON text";
const REDACTED: &str = "redacted thinking, counted as the text of its encrypted `data`";
const OTHER_BLOCK: &str =
    "a content block of a type ctxbudget does not model, counted as the JSON text of its fields";
pub(super) const SERVER_TOOL: &str = "a tool of Anthropic's whose definition is not published (web search, web fetch, code execution, ...), counted as its JSON text";
pub(crate) const UNKNOWN_MODEL: &str = "the model is not one whose tool-use system prompt Anthropic publishes; counted at 346 tokens (313 for `any` and `tool`), as for Claude 4 models";

/// What `content` costs: text, tool results, images, documents, and thinking when
/// `thinking` is set. `tool_use` blocks cost nothing here: the chat format counts
/// them as tool calls.
pub(super) fn content_tokens<C: TokenCounter + ?Sized>(
    content: &Content,
    counter: &C,
    thinking: bool,
) -> usize {
    tokens_at(content, counter, thinking, DOCUMENT_DEPTH)
}

/// [`content_tokens`], with custom-content documents read `depth` levels down.
fn tokens_at<C: TokenCounter + ?Sized>(
    content: &Content,
    counter: &C,
    thinking: bool,
    depth: usize,
) -> usize {
    match content {
        Content::Text(text) => counter.count(text),
        Content::Blocks(blocks) => blocks.iter().fold(0usize, |sum, block| {
            sum.saturating_add(block_tokens_at(block, counter, thinking, depth))
        }),
    }
}

/// What one block costs, as [`content_tokens`] counts it.
pub(super) fn block_tokens<C: TokenCounter + ?Sized>(
    block: &ContentBlock,
    counter: &C,
    thinking: bool,
) -> usize {
    block_tokens_at(block, counter, thinking, DOCUMENT_DEPTH)
}

fn block_tokens_at<C: TokenCounter + ?Sized>(
    block: &ContentBlock,
    counter: &C,
    thinking: bool,
    depth: usize,
) -> usize {
    match block {
        ContentBlock::Text(b) => counter.count(&b.text),
        ContentBlock::Image(b) => image_cost(&b.source).0,
        ContentBlock::Document(b) => document_tokens(b, counter, depth),
        ContentBlock::ToolResult(b) => {
            let content = b
                .content
                .as_ref()
                .map_or(0, |c| tokens_at(c, counter, thinking, depth));
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
/// size read from base64 data that passes the checks of
/// [`request::image`](crate::request::image#checks); a URL, a file id or data that
/// fails them costs the most an image can.
fn image_cost(source: &Source) -> (usize, ImageEstimate) {
    match source.kind() {
        "base64" => match source.data.as_deref().map(read_base64) {
            Some(Ok(image)) => (anthropic_image_tokens(image.size()), ImageEstimate::Exact),
            _ => (ANTHROPIC_MAX_IMAGE_TOKENS, ImageEstimate::Unreadable),
        },
        "url" | "file" => (ANTHROPIC_MAX_IMAGE_TOKENS, ImageEstimate::Remote),
        _ => (ANTHROPIC_MAX_IMAGE_TOKENS, ImageEstimate::Unreadable),
    }
}

/// A custom-content document's blocks, as a count at some depth reads them.
enum Nested<'a> {
    /// Read into blocks (when the request was read, or now).
    Blocks(Cow<'a, Content>),
    /// Too deep to read: its JSON text.
    TooDeep(&'a RawValue),
    /// Not blocks: its JSON text.
    Unreadable(&'a RawValue),
    /// No `content` at all.
    Missing,
}

/// The blocks of the custom-content document whose source is `source`, read with
/// the documents in them `depth − 1` levels further.
fn nested(source: &Source, depth: usize) -> Nested<'_> {
    if let Some(blocks) = source.read_blocks() {
        return Nested::Blocks(Cow::Borrowed(blocks));
    }
    let Some(raw) = source.extra.get("content") else {
        return Nested::Missing;
    };
    if depth == 0 {
        return Nested::TooDeep(raw);
    }
    match read_content(raw.get(), Depth(depth - 1)) {
        Some(blocks) => Nested::Blocks(Cow::Owned(blocks)),
        None => Nested::Unreadable(raw),
    }
}

/// Reads a document's `content` into blocks, with the documents in them to `depth`,
/// in one pass over `json`.
fn read_content(json: &str, depth: Depth) -> Option<Content> {
    #[cfg(test)]
    tests::READ_BYTES.with(|read| read.set(read.get() + json.len()));
    ContentReader(depth)
        .deserialize(&mut serde_json::Deserializer::from_str(json))
        .ok()
}

/// What a document costs (see [`document_body`]), with its `title` and `context` as
/// text.
fn document_tokens<C: TokenCounter + ?Sized>(
    document: &DocumentBlock,
    counter: &C,
    depth: usize,
) -> usize {
    let labels = ["title", "context"].iter().fold(0usize, |sum, key| {
        let text = document
            .extra
            .get(key)
            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
        sum.saturating_add(text.map_or(0, |t| counter.count(&t)))
    });
    let source = &document.source;
    let body = match source.kind() {
        "content" => match nested(source, depth) {
            Nested::Blocks(blocks) => tokens_at(&blocks, counter, true, depth.saturating_sub(1)),
            Nested::TooDeep(raw) | Nested::Unreadable(raw) => {
                counter.count(&compact_json(raw.get()))
            }
            Nested::Missing => ANTHROPIC_PDF_PAGE_TOKENS,
        },
        _ => document_body(source, counter).0,
    };
    body.saturating_add(labels)
}

/// What a document that is not custom content costs, and the assumption behind it
/// when it is an estimate.
///
/// - Plain text (`"type": "text"`): its text, exactly.
/// - A base64 PDF: [`ANTHROPIC_PDF_PAGE_TOKENS`] a page, pages counted in the file
///   (at most 600).
/// - Anything else (a URL, a file id, unreadable data): one PDF page.
fn document_body<C: TokenCounter + ?Sized>(
    source: &Source,
    counter: &C,
) -> (usize, Option<&'static str>) {
    match source.kind() {
        "text" => (source.data.as_deref().map_or(0, |t| counter.count(t)), None),
        "base64" => match source.data.as_deref().and_then(pdf_pages) {
            Some(pages) => (
                pages
                    .clamp(1, MAX_PDF_PAGES)
                    .saturating_mul(ANTHROPIC_PDF_PAGE_TOKENS),
                Some(PDF_PAGES),
            ),
            None => (ANTHROPIC_PDF_PAGE_TOKENS, Some(PDF_UNKNOWN)),
        },
        _ => (ANTHROPIC_PDF_PAGE_TOKENS, Some(PDF_UNKNOWN)),
    }
}

/// The pages of a base64 PDF: its `/Type /Page` objects, or the largest `/Count`
/// of its page trees when the page objects are compressed (at least 1; a count
/// read from at most 7 digits); `None` when the data is not a PDF in standard
/// base64.
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
    Some(pages.max(count).max(1))
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
    assumptions_at(content, message, thinking, DOCUMENT_DEPTH, out);
}

fn assumptions_at(
    content: &Content,
    message: usize,
    thinking: bool,
    depth: usize,
    out: &mut Vec<Assumption>,
) {
    let push = |out: &mut Vec<Assumption>, what| {
        out.push(Assumption::UnpublishedRule {
            message: Some(message),
            what,
        });
    };
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
            ContentBlock::Document(b) if b.source.kind() == "content" => {
                match nested(&b.source, depth) {
                    Nested::Blocks(blocks) => {
                        assumptions_at(&blocks, message, true, depth.saturating_sub(1), out);
                    }
                    Nested::TooDeep(_) => push(out, DEEP_DOCUMENT),
                    Nested::Unreadable(_) => push(out, UNREAD_CONTENT),
                    Nested::Missing => push(out, PDF_UNKNOWN),
                }
            }
            ContentBlock::Document(b) => {
                // Counting with a counter of zeros finds the assumption without the
                // cost of counting text.
                if let (_, Some(what)) = document_body(&b.source, &|_: &str| 0) {
                    push(out, what);
                }
            }
            ContentBlock::ToolResult(b) => {
                if let Some(content) = &b.content {
                    assumptions_at(content, message, thinking, depth, out);
                }
            }
            ContentBlock::RedactedThinking(_) if thinking => push(out, REDACTED),
            ContentBlock::Other(_) => push(out, OTHER_BLOCK),
            _ => {}
        }
    }
}

/// Checks the blocks of `messages` are ones Anthropic takes: base64 images that
/// decode to the size their header claims, in a format Anthropic takes with the
/// `media_type` that names it, within its limits of pixels and bytes (see
/// [`request::image`](crate::request::image#checks)), and base64 PDFs of at most 600
/// pages in all. Images in tool results are checked too.
pub(super) fn check_content(messages: &[AnthropicMessage]) -> Result<(), RequestError> {
    let images: usize = messages
        .iter()
        .flat_map(AnthropicMessage::blocks)
        .map(|block| match block {
            ContentBlock::Image(_) => 1,
            ContentBlock::ToolResult(result) => result
                .content
                .iter()
                .flat_map(Content::blocks)
                .filter(|b| matches!(b, ContentBlock::Image(_)))
                .count(),
            _ => 0,
        })
        .sum();
    let max_side = if images > ANTHROPIC_MANY_IMAGES {
        ANTHROPIC_MANY_IMAGES_MAX_SIDE
    } else {
        ANTHROPIC_MAX_SIDE
    };
    let mut pages = 0usize;
    for (index, message) in messages.iter().enumerate() {
        for (at, block) in message.blocks().iter().enumerate() {
            let invalid = |problem: String| RequestError::InvalidContent {
                message: index,
                block: at,
                problem,
            };
            check_block(block, max_side, &mut pages).map_err(invalid)?;
            let ContentBlock::ToolResult(result) = block else {
                continue;
            };
            for (inner, nested) in result.content.iter().flat_map(Content::blocks).enumerate() {
                check_block(nested, max_side, &mut pages).map_err(|problem| {
                    invalid(format!("in its tool_result, block {inner}: {problem}"))
                })?;
            }
        }
    }
    Ok(())
}

/// Checks one image or PDF document, adding the PDF's pages to `pages`.
fn check_block(block: &ContentBlock, max_side: u32, pages: &mut usize) -> Result<(), String> {
    match block {
        ContentBlock::Image(b) if b.source.kind() == "base64" => {
            let image = check_base64(b.source.data.as_deref().unwrap_or_default())?;
            match anthropic_problem(&image, b.source.media_type.as_deref(), max_side) {
                Some(problem) => Err(problem),
                None => Ok(()),
            }
        }
        ContentBlock::Document(b) if b.source.kind() == "base64" => {
            let Some(count) = b.source.data.as_deref().and_then(pdf_pages) else {
                return Ok(());
            };
            *pages = pages.saturating_add(count);
            if *pages <= MAX_PDF_PAGES {
                return Ok(());
            }
            let whose = if count == *pages {
                "the PDF has"
            } else {
                "the PDFs reach"
            };
            Err(format!(
                "{whose} {pages} pages, over the 600 Anthropic takes in a request: send fewer pages"
            ))
        }
        _ => Ok(()),
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

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::fmt::Write as _;

    use super::*;

    thread_local! {
        /// The bytes of JSON text counting read into blocks on this thread.
        pub(super) static READ_BYTES: Cell<usize> = const { Cell::new(0) };
    }

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    #[test]
    fn pdf_pages_are_counted_in_the_file() {
        let three = b"%PDF-1.4\n1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R 4 0 R] /Count 3 >>\n2 0 obj << /Type /Page >>\n3 0 obj <</Type/Page/Parent 1 0 R>>\n4 0 obj << /Type\n/Page >>";
        assert_eq!(pdf_pages(&b64(three)), Some(3));
        // Page objects in compressed streams: the page tree's count.
        let compressed = b"%PDF-1.7\n1 0 obj << /Type /Pages /Count 12 >> stream...";
        assert_eq!(pdf_pages(&b64(compressed)), Some(12));
        assert_eq!(pdf_pages(&b64(b"%PDF-1.7 nothing")), Some(1));
        // At most 7 digits are read: enough to tell a count over the limit.
        assert_eq!(pdf_pages(&b64(b"%PDF /Count 99999999999")), Some(9_999_999));
        assert_eq!(pdf_pages(&b64(b"%PDF /Count 9999")), Some(9_999));
        assert_eq!(pdf_pages(&b64(b"GIF89a")), None);
        assert_eq!(pdf_pages("%%% not base64"), None);
        assert_eq!(pdf_pages(""), None);
        // A count stops at the most Anthropic takes.
        let source = Source::base64("application/pdf", b64(b"%PDF /Count 9999"));
        assert_eq!(
            document_body(&source, &words).0,
            MAX_PDF_PAGES * ANTHROPIC_PDF_PAGE_TOKENS
        );
    }

    /// `levels` documents, each a custom-content document holding a text block and
    /// the next document.
    fn nested_documents(levels: usize) -> String {
        let mut json = String::new();
        for level in 0..levels {
            write!(
                json,
                r#"{{"type":"document","source":{{"type":"content","content":[{{"type":"text","text":"level {level}"}}"#
            )
            .unwrap();
            if level + 1 < levels {
                json.push(',');
            }
        }
        json.push_str(&"]}}".repeat(levels));
        json
    }

    #[test]
    fn nested_documents_are_read_once() {
        for levels in [1, DOCUMENT_DEPTH - 1, DOCUMENT_DEPTH + 1, 20_000] {
            let json = format!("[{}]", nested_documents(levels));
            let content: Content = serde_json::from_str(&json).unwrap();
            READ_BYTES.with(|read| read.set(0));
            let tokens = content_tokens(&content, &words, true);
            let mut assumptions = Vec::new();
            content_assumptions(&content, 0, true, &mut assumptions);
            // Each level's text is counted, the deep ones inside their JSON text.
            assert!(tokens >= levels, "{levels}: {tokens}");
            let deep = assumptions
                .iter()
                .any(|a| a.to_string().contains("32 levels"));
            assert_eq!(deep, levels > DOCUMENT_DEPTH, "{levels}: {assumptions:?}");
            // One read of the document's text for the count and one for the
            // assumptions, whatever the depth (a read per level was cubic).
            let read = READ_BYTES.with(Cell::get);
            assert!(
                read <= 2 * json.len(),
                "{levels}: read {read} of {}",
                json.len()
            );
        }
    }

    #[test]
    fn a_document_read_at_depth_counts_like_the_request() {
        let json = format!("[{}]", nested_documents(3));
        let raw: Content = serde_json::from_str(&json).unwrap();
        let read = ContentReader(Depth(5))
            .deserialize(&mut serde_json::Deserializer::from_str(&json))
            .unwrap();
        assert_ne!(raw, read);
        assert_eq!(
            content_tokens(&raw, &words, true),
            content_tokens(&read, &words, true)
        );
        // Written back, the blocks read are the same JSON.
        let again: serde_json::Value = serde_json::to_value(&read).unwrap();
        assert_eq!(
            again,
            serde_json::from_str::<serde_json::Value>(&json).unwrap()
        );
    }
}
