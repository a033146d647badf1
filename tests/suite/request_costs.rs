//! Request counting at its edges: images a provider would reject, images billed by
//! the rule of the body's model, schemas serde cannot read into a tree, absurd PDFs
//! and output limits, format detection of what the parsers read, and documents
//! nested thousands deep.

// Test code: long table-like tests read best whole.
#![allow(clippy::too_many_lines)]

use std::fmt::Write as _;

use base64::Engine as _;
use ctxbudget::chat::ChatMessage;
use ctxbudget::models::{ImageRule, Model};
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::image::{
    ANTHROPIC_MAX_IMAGE_TOKENS, ImageSize, OPENAI_MAX_IMAGE_TOKENS, OpenAiDetail,
    anthropic_image_tokens, openai_image_tokens, openai_patch_tokens, openai_tile_tokens,
};
use ctxbudget::request::openai::{ChatRequest, OPENAI_MAX_PDF_PAGES, PDF_PAGE_TOKENS};
use ctxbudget::request::{
    Assumption, RequestError, RequestFitter, RequestFormat, WireRequest, detect_format,
};
use ctxbudget::{Tiktoken, TokenCounter};
use proptest::prelude::*;

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The CRC-32 of PNG chunks, bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                0xedb8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A grey 1-bit PNG of `width × height` whose image data is `idat` bytes: its header
/// (with its CRC) is right; whether the data can hold the pixels depends on `idat`.
fn png(width: u32, height: u32, idat: usize) -> Vec<u8> {
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut out = u32::try_from(data.len()).unwrap().to_be_bytes().to_vec();
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
        out
    };
    let mut header = width.to_be_bytes().to_vec();
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[1, 0, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &header));
    png.extend(chunk(b"IDAT", &vec![0x78; idat]));
    png.extend(chunk(b"IEND", &[]));
    png
}

/// A PNG of `width × height` with image data enough for its pixels.
fn good_png(width: u32, height: u32) -> Vec<u8> {
    let raw = usize::try_from(height).unwrap() * (1 + usize::try_from(width).unwrap() / 8);
    png(width, height, raw / 1_000 + 16)
}

/// An OpenAI body for `model` whose one message is an image (and no text).
fn openai_image(model: &str, png: &[u8], detail: &str) -> ChatRequest {
    let body = serde_json::json!({"model": model, "messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(png)), "detail": detail}}
    ]}]});
    ChatRequest::from_json(&body.to_string()).unwrap()
}

/// An Anthropic body whose one message holds `images` (base64 PNGs) and a question.
fn anthropic_images(images: &[Vec<u8>]) -> MessagesRequest {
    let mut blocks: Vec<serde_json::Value> = images
        .iter()
        .map(|png| {
            serde_json::json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(png)}})
        })
        .collect();
    blocks.push(serde_json::json!({"type": "text", "text": "What is it?"}));
    let body = serde_json::json!({"model": "claude-sonnet-4-5", "max_tokens": 100,
        "messages": [{"role": "user", "content": blocks}]});
    MessagesRequest::from_json(&body.to_string()).unwrap()
}

fn invalid_content(error: Result<(), RequestError>) -> (usize, usize, String) {
    match error {
        Err(RequestError::InvalidContent {
            message,
            block,
            problem,
        }) => (message, block, problem),
        other => panic!("expected InvalidContent, got {other:?}"),
    }
}

#[test]
fn a_forged_png_header_is_an_unreadable_image_and_refused() {
    // 100000 × 100000 over 64 bytes of data: no PNG of that size is so small.
    let forged = png(100_000, 100_000, 64);
    let request = openai_image("gpt-4o", &forged, "high");
    let count = RequestFitter::new(words).count(&request);
    assert_eq!(count.messages, 3 + 1 + OPENAI_MAX_IMAGE_TOKENS + 3);
    assert_eq!(
        count.assumptions,
        [Assumption::UnreadableImage {
            message: 0,
            assumed_tokens: OPENAI_MAX_IMAGE_TOKENS
        }]
    );
    let (message, block, problem) = invalid_content(request.validate());
    assert_eq!((message, block), (0, 0));
    assert!(
        problem.contains("100000 × 100000 px but holds 64 bytes"),
        "{problem}"
    );
    let err = RequestFitter::new(words)
        .with_max_input(100_000)
        .fit(request)
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("message 0, block 0: the PNG says"),
        "{err}"
    );
    assert!(err.to_string().len() < 200, "{err}");

    let anthropic = anthropic_images(&[forged]);
    assert!(anthropic.message_assumptions().iter().any(|a| matches!(
        a,
        Assumption::UnreadableImage {
            message: 0,
            assumed_tokens: ANTHROPIC_MAX_IMAGE_TOKENS
        }
    )));
    let (_, block, problem) = invalid_content(anthropic.validate());
    assert_eq!(block, 0);
    assert!(problem.contains("holds 64 bytes"), "{problem}");

    // Data that is not an image, or not base64, is refused the same way.
    for data in ["bm90IGFuIGltYWdl", "%%%%"] {
        let body = format!(
            r#"{{"model": "gpt-4o", "messages": [{{"role": "user", "content": [{{"type": "text", "text": "x"}}, {{"type": "image_url", "image_url": {{"url": "data:image/png;base64,{data}"}}}}]}}]}}"#
        );
        let request = ChatRequest::from_json(&body).unwrap();
        let (message, block, _) = invalid_content(request.validate());
        assert_eq!((message, block), (0, 1));
    }
}

#[test]
fn anthropic_refuses_images_over_its_limits() {
    let (_, _, problem) = invalid_content(anthropic_images(&[good_png(8001, 16)]).validate());
    assert!(
        problem.contains("8001 × 16 px, over Anthropic's 8000 px a side"),
        "{problem}"
    );
    assert!(anthropic_images(&[good_png(8000, 16)]).validate().is_ok());
    // Over 20 images in a request, each side is at most 2000 px.
    let many = vec![good_png(2001, 16); 21];
    let (_, block, problem) = invalid_content(anthropic_images(&many).validate());
    assert_eq!(block, 0);
    assert!(problem.contains("more than 20 images"), "{problem}");
    assert!(anthropic_images(&many[..20]).validate().is_ok());
    // The media type must name the data's format.
    let body = serde_json::json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": b64(&good_png(10, 10))}}]}]});
    let request = MessagesRequest::from_json(&body.to_string()).unwrap();
    let (_, _, problem) = invalid_content(request.validate());
    assert!(problem.contains("set it to `image/png`"), "{problem}");
    // An image in a tool result is checked too, and named by its result.
    let body = serde_json::json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
        {"role": "user", "content": "Take a screenshot."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "here"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(&png(9000, 10, 200))}}]}]}]});
    let request = MessagesRequest::from_json(&body.to_string()).unwrap();
    let (message, block, problem) = invalid_content(request.validate());
    assert_eq!((message, block), (2, 0));
    assert!(
        problem.starts_with("in its tool_result, block 1: "),
        "{problem}"
    );
}

#[test]
fn degenerate_sizes_cost_what_the_provider_bills() {
    // A 1 × 10,000 strip is scaled to 1 × 1568: 3 tokens, never 0.
    let strip = anthropic_images(&[good_png(1, 10_000)]);
    let tokens = strip.messages()[0].content_tokens(&words);
    assert_eq!(tokens, 3 + words("What is it?"));
    assert!(strip.message_assumptions().is_empty());
    assert_eq!(anthropic_image_tokens(ImageSize::new(10_000, 1)), 3);
    // A header of 0 × 0 px is no image: refused, and counted at the most.
    let empty = openai_image("gpt-4o", &png(0, 0, 10), "auto");
    let (_, _, problem) = invalid_content(empty.validate());
    assert!(problem.contains("0 × 0 px"), "{problem}");
    assert_eq!(
        empty.messages()[0].content_tokens(&words),
        OPENAI_MAX_IMAGE_TOKENS
    );
}

#[test]
fn openai_images_follow_the_models_published_rule() {
    let square = good_png(1024, 1024);
    // The vision guide's rules for a 1024 × 1024 image, detail high.
    for (model, tokens) in [
        ("gpt-4o", 85 + 4 * 170),
        ("gpt-4o-2024-08-06", 85 + 4 * 170),
        ("gpt-4.1", 85 + 4 * 170),
        ("gpt-4o-mini", 2_833 + 4 * 5_667),
        ("o1", 75 + 4 * 150),
        ("o3", 75 + 4 * 150),
        ("gpt-5", 70 + 4 * 140),
        // 32 × 32 patches times the model's multiplier, rounded up.
        ("gpt-4.1-mini", 1_659),
        ("gpt-4.1-nano", 2_520),
        ("o4-mini", 1_762),
        ("gpt-5-mini", 1_659),
    ] {
        let request = openai_image(model, &square, "high");
        assert_eq!(
            request.messages()[0].content_tokens(&words),
            tokens,
            "{model}"
        );
        assert!(request.message_assumptions().is_empty(), "{model}");
    }
    // `detail: low` is the base tokens of a tile rule, and no change to patches.
    assert_eq!(
        openai_image("gpt-4o-mini", &square, "low").messages()[0].content_tokens(&words),
        2_833
    );
    assert_eq!(
        openai_image("gpt-4.1-mini", &square, "low").messages()[0].content_tokens(&words),
        1_659
    );
    // A model whose rule is not published, or unknown: gpt-4o's tiles, and the report
    // says so.
    for model in ["o3-pro", "my-gateway-model"] {
        let request = openai_image(model, &square, "high");
        assert_eq!(request.messages()[0].content_tokens(&words), 765);
        let assumptions = request.message_assumptions();
        assert_eq!(assumptions.len(), 1, "{model}: {assumptions:?}");
        assert!(
            assumptions[0].to_string().contains("gpt-4o's 512-px tiles"),
            "{assumptions:?}"
        );
    }
    // A remote image is counted at the most the model's rule bills.
    let body = r#"{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]}"#;
    let remote = ChatRequest::from_json(body).unwrap();
    assert_eq!(
        remote.message_assumptions(),
        [Assumption::RemoteImage {
            message: 0,
            assumed_tokens: 2_833 + 8 * 5_667
        }]
    );
    // The model set after reading is the one counted.
    let mut request = openai_image("gpt-4o", &square, "high");
    request.model = Some("gpt-4.1-nano".to_owned());
    assert_eq!(request.messages()[0].content_tokens(&words), 2_520);
    assert_eq!(
        RequestFitter::new(words).count(&request).messages,
        3 + 1 + 2_520 + 3
    );
    // The catalogue says which rule.
    assert_eq!(
        Model::lookup("o4-mini").unwrap().image_rule(),
        ImageRule::OpenAiPatches {
            multiplier_percent: 172
        }
    );
    assert_eq!(
        Model::lookup("gpt-4.1").unwrap().image_rule(),
        ImageRule::GPT_4O
    );
    assert_eq!(
        Model::lookup("gpt-4").unwrap().image_rule(),
        ImageRule::Unpublished
    );
}

#[test]
fn a_schema_serde_cannot_read_costs_its_text() {
    let counter = Tiktoken::o200k_base();
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let body = format!(
        r#"{{"model": "gpt-4o", "messages": [{{"role": "user", "content": "hi"}}],
        "tools": [{{"type": "function", "function": {{"name": "f", "description": "d",
            "parameters": {{"type": "object", "properties": {{
                "limit": {{"type": "number", "maximum": 1e400}},
                "grid": {{"type": "array", "default": {deep}}},
                "name": {{"type": "string"}}}}}}}}}}]}}"#
    );
    let request = ChatRequest::from_json(&body).unwrap();
    let cost = request.fixed_cost(&counter);
    let unread = counter.count(r#"limit:{"type":"number","maximum":1e400}"#)
        + counter.count(&format!(r#"grid:{{"type":"array","default":{deep}}}"#));
    assert!(cost.tokens > unread, "{} <= {unread}", cost.tokens);
    assert!(
        cost.assumptions
            .iter()
            .any(|a| a.to_string().contains("out of f64 range")),
        "{:?}",
        cost.assumptions
    );
    // The readable property is still counted by the formula.
    let without = body.replace(r#""name": {"type": "string"}"#, r#""x": 1"#);
    let less = ChatRequest::from_json(&without)
        .unwrap()
        .fixed_cost(&counter);
    assert!(less.tokens < cost.tokens);

    let body = format!(
        r#"{{"model": "gpt-4o", "messages": [], "response_format": {{"type": "json_schema",
            "json_schema": {{"name": "grid", "schema": {{"type": "array", "maxItems": 1e400, "default": {deep}}}}}}}}}"#
    );
    let cost = ChatRequest::from_json(&body).unwrap().fixed_cost(&counter);
    assert!(cost.tokens >= counter.count(&deep), "{}", cost.tokens);
}

/// A base64 PDF whose page tree says `/Count pages`.
fn pdf(pages: &str) -> String {
    b64(format!("%PDF-1.7\n1 0 obj << /Type /Pages /Count {pages} >>\n").as_bytes())
}

#[test]
fn absurd_pdfs_are_refused_and_counted_at_the_limit() {
    let file = |data: &str| {
        format!(
            r#"{{"type": "file", "file": {{"filename": "a.pdf", "file_data": "data:application/pdf;base64,{data}"}}}}"#
        )
    };
    let body = format!(
        r#"{{"model": "gpt-4o", "messages": [{{"role": "user", "content": [{}]}}]}}"#,
        file(&pdf("999999999999"))
    );
    let request = ChatRequest::from_json(&body).unwrap();
    let tokens = request.messages()[0].content_tokens(&words);
    assert_eq!(tokens, OPENAI_MAX_PDF_PAGES * PDF_PAGE_TOKENS);
    assert!(
        request
            .message_assumptions()
            .iter()
            .any(|a| a.to_string().contains("OpenAI rejects it"))
    );
    let (_, block, problem) = invalid_content(request.validate());
    assert_eq!(block, 0);
    assert!(problem.contains("over the 100 OpenAI takes"), "{problem}");
    // Within the limit, pages are counted as documented; over it in all, refused.
    let body = format!(
        r#"{{"model": "gpt-4o", "messages": [{{"role": "user", "content": [{}, {}]}}]}}"#,
        file(&pdf("60")),
        file(&pdf("60"))
    );
    let request = ChatRequest::from_json(&body).unwrap();
    assert_eq!(
        request.messages()[0].content_tokens(&words),
        120 * PDF_PAGE_TOKENS
    );
    let (_, block, problem) = invalid_content(request.validate());
    assert_eq!(block, 1);
    assert!(problem.contains("the PDFs reach 120 pages"), "{problem}");

    let body = serde_json::json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf("999999999999")}},
        {"type": "text", "text": "Summarise."}]}]});
    let request = MessagesRequest::from_json(&body.to_string()).unwrap();
    let (_, _, problem) = invalid_content(request.validate());
    assert!(
        problem.contains("over the 600 Anthropic takes"),
        "{problem}"
    );
}

#[test]
fn output_limits_must_be_plain_unsigned_integers() {
    for value in [
        "18446744073709551616",
        "1e400",
        "-1",
        "1.5",
        "\"5000\"",
        "true",
    ] {
        for field in ["max_tokens", "max_completion_tokens"] {
            let body = format!(r#"{{"model": "gpt-4o", "messages": [], "{field}": {value}}}"#);
            let err = ChatRequest::from_json(&body).unwrap_err().to_string();
            assert!(err.contains(&format!("`{field}` is `{value}`")), "{err}");
            assert!(err.len() < 220, "{err}");
        }
        let body =
            format!(r#"{{"model": "claude-sonnet-4-5", "messages": [], "max_tokens": {value}}}"#);
        let err = MessagesRequest::from_json(&body).unwrap_err().to_string();
        assert!(err.contains(&format!("`max_tokens` is `{value}`")), "{err}");
    }
    let request =
        ChatRequest::from_json(r#"{"messages": [], "max_completion_tokens": 1024}"#).unwrap();
    assert_eq!(request.max_output_tokens(), Some(1024));
    let request = ChatRequest::from_json(r#"{"messages": [], "max_tokens": null}"#).unwrap();
    assert_eq!(request.max_output_tokens(), None);
    assert_eq!(
        request.to_json(),
        r#"{"messages":[],"max_tokens":null}"#,
        "kept as it was"
    );
}

#[test]
fn detection_reads_what_the_parsers_read() {
    let deep = format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200));
    let openai = format!(
        r#"{{"model": "gpt-4o", "temperature": 1e400, "x-trace": {deep},
            "messages": [{{"role": "developer", "content": "Be brief."}}]}}"#
    );
    assert_eq!(detect_format(&openai).unwrap(), RequestFormat::OpenAiChat);
    assert!(ChatRequest::from_json(&openai).is_ok());
    let anthropic = format!(
        r#"{{"model": "claude-sonnet-4-5", "max_tokens": 10, "system": "Be brief.", "metadata": {deep},
            "messages": [{{"role": "user", "content": [{{"type": "text", "text": "hi", "x": 1e400}}]}}]}}"#
    );
    assert_eq!(
        detect_format(&anthropic).unwrap(),
        RequestFormat::AnthropicMessages
    );
    assert!(MessagesRequest::from_json(&anthropic).is_ok());
    // Blocks nested past serde's 128 levels (results in results) are told as such.
    let mut result = r#""done""#.to_owned();
    for i in 0..100 {
        result =
            format!(r#"[{{"type": "tool_result", "tool_use_id": "t{i}", "content": {result}}}]"#);
    }
    let body =
        format!(r#"{{"max_tokens": 10, "messages": [{{"role": "user", "content": {result}}}]}}"#);
    assert_eq!(
        detect_format(&body).unwrap(),
        RequestFormat::AnthropicMessages
    );
    let err = MessagesRequest::from_json(&body).unwrap_err().to_string();
    assert!(err.contains("128 levels"), "{err}");
    assert!(!err.contains("quotes, commas and brackets"), "{err}");
}

/// An Anthropic body whose user message is `levels` custom-content documents, each
/// holding a line of text and the next document.
fn nested_documents(levels: usize) -> String {
    let mut document = String::new();
    for level in 0..levels {
        write!(
            document,
            r#"{{"type":"document","source":{{"type":"content","content":[{{"type":"text","text":"line {level}"}}"#
        )
        .unwrap();
        if level + 1 < levels {
            document.push(',');
        }
    }
    document.push_str(&"]}}".repeat(levels));
    format!(
        r#"{{"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{{"role": "user", "content": [{document}, {{"type": "text", "text": "Which line is last?"}}]}}]}}"#
    )
}

#[test]
fn nested_documents_count_fit_and_report_in_one_pass() {
    // 20,000 levels (1.4 MB): cubic in the depth before, minutes; one pass now.
    let request = MessagesRequest::from_json(&nested_documents(20_000)).unwrap();
    let count = RequestFitter::new(words).count(&request);
    assert!(count.tokens > 20_000, "{}", count.tokens);
    assert!(
        count
            .assumptions
            .iter()
            .any(|a| a.to_string().contains("nested more than 32 levels")),
        "{:?}",
        count.assumptions
    );
    let fitted = RequestFitter::new(words)
        .with_max_input(count.tokens)
        .fit(request)
        .unwrap();
    assert_eq!(fitted.report.tokens_after, count.tokens);
    // Under the depth read into blocks, a document costs its texts exactly.
    let shallow = MessagesRequest::from_json(&nested_documents(20)).unwrap();
    assert_eq!(
        shallow.messages()[0].content_tokens(&words),
        20 * 2 + words("Which line is last?")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// No rule costs 0 for an image it bills, nor more than its most.
    #[test]
    fn image_rules_are_bounded_and_never_zero(
        width in prop_oneof![1u32..5_000, Just(1u32), Just(u32::MAX)],
        height in prop_oneof![1u32..5_000, Just(1u32), Just(u32::MAX)],
        multiplier in 1u32..500,
        base in 1u32..5_000,
        tile in 1u32..10_000,
    ) {
        let size = ImageSize::new(width, height);
        let wide = |n: u32| usize::try_from(n).unwrap();
        let patches = openai_patch_tokens(size, multiplier);
        prop_assert!(patches >= 1);
        prop_assert!(patches <= (1_536 * wide(multiplier)).div_ceil(100));
        let tiles = openai_tile_tokens(size, OpenAiDetail::High, base, tile);
        prop_assert!(tiles >= wide(base) + wide(tile) && tiles <= wide(base) + 8 * wide(tile));
        let area = anthropic_image_tokens(size);
        prop_assert!((1..=ANTHROPIC_MAX_IMAGE_TOKENS).contains(&area));
    }

    /// The checks take every image whose data can hold its pixels: it is counted by
    /// its size, with nothing assumed.
    #[test]
    fn images_that_hold_their_pixels_pass_the_checks(width in 1u32..3_000, height in 1u32..3_000) {
        let request = openai_image("gpt-4o", &good_png(width, height), "high");
        prop_assert!(request.validate().is_ok());
        prop_assert_eq!(
            request.messages()[0].content_tokens(&words),
            openai_image_tokens(ImageSize::new(width, height), OpenAiDetail::High)
        );
        prop_assert!(request.message_assumptions().is_empty());
        let anthropic = anthropic_images(&[good_png(width, height)]);
        prop_assert!(anthropic.validate().is_ok());
    }
}
