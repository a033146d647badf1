//! What a content part costs, and what that count assumed: images by the rule of
//! the request's model, audio and files by documented estimates; and the parts
//! OpenAI would reject.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use super::content::{Content, ContentPart, FileData, ImagePart, InputAudio};
use super::message::RequestMessage;
use crate::count::TokenCounter;
use crate::request::image::{
    CountRule, OPENAI_MAX_IMAGE_TOKENS, OpenAiDetail, check_base64, data_url_base64,
    openai_problem, read_base64,
};
use crate::request::{Assumption, RequestError};

/// What one second of audio in a user message costs: OpenAI's Realtime API guide
/// ("Managing costs") gives 1 token per 100 ms.
pub const AUDIO_TOKENS_PER_SECOND: usize = 10;

/// The bit rate assumed for audio whose header ctxbudget cannot read: 32 kbit/s,
/// low for speech, so the length (and the count) errs on the long side.
pub const ASSUMED_AUDIO_BYTES_PER_SECOND: usize = 4_000;

/// What one page of a PDF file part is counted at: OpenAI puts the page's text and
/// an image of it in the context and does not publish what that costs, so
/// ctxbudget takes the most an image costs ([`OPENAI_MAX_IMAGE_TOKENS`]) and 1,000
/// tokens of text (a dense page).
pub const PDF_PAGE_TOKENS: usize = OPENAI_MAX_IMAGE_TOKENS + 1_000;

/// The most PDF pages OpenAI takes in one request, across its files (file inputs
/// guide, "File size limitations": "up to 100 pages and 32MB of total content").
pub const OPENAI_MAX_PDF_PAGES: usize = 100;

const AUDIO: &str = "an input_audio part, counted at 10 tokens a second (the rate OpenAI publishes for user audio), its length read from a WAV or MP3 header, or else taken at 32 kbit/s";
const TEXT_FILE: &str = "a text file part, counted as its text";
const PDF_FILE: &str = "a PDF file part, counted at 2,445 tokens a page (its image at the most an image costs, and 1,000 tokens of text); OpenAI does not publish what a page costs";
const PDF_OVER: &str = "a PDF file part of more pages than the 100 OpenAI takes in a request, counted at 100 pages: OpenAI rejects it";
const IMAGE_RULE: &str = "images counted by gpt-4o's 512-px tiles (85 + 170 a tile): OpenAI publishes no image rule for this model, or the catalogue does not know it";
const OPAQUE_FILE: &str = "a file part given by id, or of a type ctxbudget does not read, counted as one PDF page (2,445 tokens): its content is unknown";
const OTHER_PART: &str =
    "a content part of a type ctxbudget does not know, counted as its JSON text";
/// A message-level assumption: an assistant message's `audio`.
pub(super) const ASSISTANT_AUDIO: &str = "an assistant message's `audio` (an earlier spoken reply, by id) is not counted: its length is unknown";

/// Base64 with or without padding.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// What a part costs.
pub(super) fn part_tokens<C: TokenCounter + ?Sized>(counter: &C, part: &ContentPart) -> usize {
    match part {
        ContentPart::Text(text) => text.text.as_deref().map_or(0, |t| counter.count(t)),
        ContentPart::Refusal(refusal) => refusal.refusal.as_deref().map_or(0, |r| counter.count(r)),
        ContentPart::ImageUrl(image) => image_cost(image).tokens(),
        ContentPart::InputAudio(audio) => audio.input_audio.as_ref().map_or(0, audio_tokens),
        ContentPart::File(file) => file
            .file
            .as_ref()
            .map_or(PDF_PAGE_TOKENS, |f| file_tokens(counter, f)),
        ContentPart::Other(fields) => {
            counter.count(&serde_json::to_string(fields).unwrap_or_default())
        }
    }
}

/// Adds what counting a part of message `message` assumed.
pub(super) fn part_assumptions(part: &ContentPart, message: usize, out: &mut Vec<Assumption>) {
    let what = match part {
        ContentPart::Text(_) | ContentPart::Refusal(_) => return,
        ContentPart::ImageUrl(image) => {
            let cost = image_cost(image);
            let assumed_tokens = cost.tokens();
            match cost {
                ImageCost::Known(..) => {}
                ImageCost::Remote(..) => out.push(Assumption::RemoteImage {
                    message,
                    assumed_tokens,
                }),
                ImageCost::Unreadable(..) => out.push(Assumption::UnreadableImage {
                    message,
                    assumed_tokens,
                }),
            }
            if image.rule.get().published {
                return;
            }
            IMAGE_RULE
        }
        ContentPart::InputAudio(_) => AUDIO,
        ContentPart::File(file) => match file.file.as_ref().map(file_kind) {
            Some(FileKind::Text(_)) => TEXT_FILE,
            Some(FileKind::Pdf(pages)) if pages > OPENAI_MAX_PDF_PAGES => PDF_OVER,
            Some(FileKind::Pdf(_)) => PDF_FILE,
            Some(FileKind::Opaque) | None => OPAQUE_FILE,
        },
        ContentPart::Other(_) => OTHER_PART,
    };
    let assumption = Assumption::UnpublishedRule {
        message: Some(message),
        what,
    };
    if !out.contains(&assumption) {
        out.push(assumption);
    }
}

/// Sets the rule every image part of `messages` is counted by.
pub(super) fn stamp_images(messages: &[RequestMessage], rule: CountRule) {
    for message in messages {
        for part in message.content.iter().flat_map(Content::parts) {
            if let ContentPart::ImageUrl(image) = part {
                image.rule.set(rule);
            }
        }
    }
}

/// Checks the parts of `messages` are ones OpenAI takes: image data that decodes to
/// an image of a format OpenAI takes and holds the size its header claims, and PDFs
/// of at most 100 pages in all.
pub(super) fn check_parts(messages: &[RequestMessage]) -> Result<(), RequestError> {
    let mut pdf_pages = 0usize;
    for (index, message) in messages.iter().enumerate() {
        for (block, part) in message.content.iter().flat_map(Content::parts).enumerate() {
            let invalid = |problem: String| RequestError::InvalidContent {
                message: index,
                block,
                problem,
            };
            match part {
                ContentPart::ImageUrl(image) => {
                    let url = image.image_url.as_ref().and_then(|i| i.url.as_deref());
                    let Some(url) = url.filter(|url| url.starts_with("data:")) else {
                        continue;
                    };
                    let data = data_url_base64(url).ok_or_else(|| {
                        invalid("the image's `data:` URL is not base64: send `data:image/png;base64,...`".to_owned())
                    })?;
                    let image = check_base64(data).map_err(invalid)?;
                    if let Some(problem) = openai_problem(&image) {
                        return Err(invalid(problem));
                    }
                }
                ContentPart::File(file) => {
                    let Some(FileKind::Pdf(pages)) = file.file.as_ref().map(file_kind) else {
                        continue;
                    };
                    pdf_pages = pdf_pages.saturating_add(pages);
                    if pdf_pages > OPENAI_MAX_PDF_PAGES {
                        let whose = if pages == pdf_pages {
                            "the PDF has"
                        } else {
                            "the PDFs reach"
                        };
                        return Err(invalid(format!(
                            "{whose} {pdf_pages} pages, over the 100 OpenAI takes in a request: send fewer pages"
                        )));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// What an image costs under its rule, and why that is an estimate.
enum ImageCost {
    /// The size was read: the rule's tokens.
    Known(usize),
    /// At a remote URL: the most the rule bills.
    Remote(usize),
    /// Data that fails the checks: the most the rule bills.
    Unreadable(usize),
}

impl ImageCost {
    fn tokens(&self) -> usize {
        match *self {
            ImageCost::Known(tokens)
            | ImageCost::Remote(tokens)
            | ImageCost::Unreadable(tokens) => tokens,
        }
    }
}

fn image_cost(part: &ImagePart) -> ImageCost {
    let rule = part.rule.get();
    let image = part.image_url.as_ref();
    let detail = OpenAiDetail::parse(image.and_then(|i| i.detail.as_deref()));
    if let Some(tokens) = rule.sizeless(detail) {
        return ImageCost::Known(tokens);
    }
    match image.and_then(|i| i.url.as_deref()) {
        Some(url) if !url.starts_with("data:") => ImageCost::Remote(rule.max_tokens()),
        Some(url) => match data_url_base64(url).map(read_base64) {
            Some(Ok(data)) => ImageCost::Known(rule.tokens(data.size(), detail)),
            _ => ImageCost::Unreadable(rule.max_tokens()),
        },
        None => ImageCost::Unreadable(rule.max_tokens()),
    }
}

/// `ceil(bytes × 10 / bytes_per_second)`.
fn audio_tokens(audio: &InputAudio) -> usize {
    let data = audio.data.as_deref().unwrap_or_default();
    let (bytes, per_second) = audio_length(data);
    let per_second = per_second.max(1);
    bytes
        .saturating_mul(AUDIO_TOKENS_PER_SECOND)
        .div_ceil(per_second)
}

/// The bytes of audio and how many of them make a second: from a WAV header (its
/// byte rate and `data` chunk) or an MP3 frame header (its bit rate), else the
/// assumed rate.
fn audio_length(data: &str) -> (usize, usize) {
    let total = data.trim_end_matches('=').len() / 4 * 3;
    // The headers are in the first few hundred bytes (an ID3 tag can be longer).
    let head_chars = data.len().min(8_192) / 4 * 4;
    let head = BASE64
        .decode(&data.as_bytes()[..head_chars])
        .unwrap_or_default();
    wav_length(&head, total)
        .or_else(|| mp3_length(&head, total))
        .unwrap_or((total, ASSUMED_AUDIO_BYTES_PER_SECOND))
}

fn le_u32(bytes: &[u8], at: usize) -> Option<usize> {
    let b: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    usize::try_from(u32::from_le_bytes(b)).ok()
}

fn wav_length(head: &[u8], total: usize) -> Option<(usize, usize)> {
    if head.get(..4)? != b"RIFF" || head.get(8..12)? != b"WAVE" {
        return None;
    }
    let mut at = 12usize;
    let mut byte_rate = None;
    while let (Some(id), Some(size)) = (head.get(at..at + 4), le_u32(head, at + 4)) {
        match id {
            b"fmt " => byte_rate = le_u32(head, at + 16),
            b"data" => {
                let data = size.min(total.saturating_sub(at + 8));
                return Some((data, byte_rate.filter(|&r| r > 0)?));
            }
            _ => {}
        }
        at = at
            .checked_add(8)?
            .checked_add(size)?
            .checked_add(size % 2)?;
    }
    Some((total.saturating_sub(at), byte_rate.filter(|&r| r > 0)?))
}

fn mp3_length(head: &[u8], total: usize) -> Option<(usize, usize)> {
    const MPEG1: [usize; 15] = [
        0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
    ];
    const MPEG2: [usize; 15] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
    let mut start = 0usize;
    if head.starts_with(b"ID3") {
        let size = head
            .get(6..10)?
            .iter()
            .fold(0usize, |s, &b| (s << 7) | usize::from(b & 0x7f));
        start = size.checked_add(10)?;
    }
    let frame = head.get(start..)?.windows(3).find(|w| {
        // Frame sync, MPEG version not reserved, layer III, a bit rate index
        // that is neither free nor bad.
        w[0] == 0xff && w[1] & 0xe0 == 0xe0 && (w[1] >> 3) & 3 != 1 && (w[1] >> 1) & 3 == 1 && {
            let index = w[2] >> 4;
            index != 0 && index != 15
        }
    })?;
    let table = if (frame[1] >> 3) & 3 == 3 {
        &MPEG1
    } else {
        &MPEG2
    };
    let kbps = table[usize::from(frame[2] >> 4)];
    Some((total.saturating_sub(start), kbps * 1_000 / 8))
}

enum FileKind {
    /// The decoded text of a text file.
    Text(String),
    /// The number of pages of a PDF.
    Pdf(usize),
    /// A file by id, or one ctxbudget does not read.
    Opaque,
}

fn file_tokens<C: TokenCounter + ?Sized>(counter: &C, file: &FileData) -> usize {
    match file_kind(file) {
        FileKind::Text(text) => counter.count(&text),
        FileKind::Pdf(pages) => pages
            .min(OPENAI_MAX_PDF_PAGES)
            .saturating_mul(PDF_PAGE_TOKENS),
        FileKind::Opaque => PDF_PAGE_TOKENS,
    }
}

fn file_kind(file: &FileData) -> FileKind {
    let Some(data) = file.file_data.as_deref() else {
        return FileKind::Opaque;
    };
    let (mime, data) = match data.strip_prefix("data:").and_then(|d| d.split_once(',')) {
        Some((header, data)) => (header.strip_suffix(";base64").unwrap_or(header), data),
        None => ("", data),
    };
    let name = file
        .filename
        .as_deref()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let texty = mime.starts_with("text/")
        || mime == "application/json"
        || [
            ".txt", ".md", ".json", ".csv", ".py", ".rs", ".js", ".ts", ".html", ".xml",
        ]
        .iter()
        .any(|ext| name.ends_with(ext));
    let Ok(bytes) = BASE64.decode(data) else {
        return FileKind::Opaque;
    };
    if bytes.starts_with(b"%PDF") || mime == "application/pdf" {
        return FileKind::Pdf(pdf_pages(&bytes));
    }
    match (texty, String::from_utf8(bytes)) {
        (true, Ok(text)) => FileKind::Text(text),
        _ => FileKind::Opaque,
    }
}

/// The pages of a PDF, at least 1: the number of `/Type /Page` objects, or the
/// largest `/Count` of a page tree, whichever is larger (compressed object streams
/// hide both, hence the floor).
fn pdf_pages(pdf: &[u8]) -> usize {
    let skip_space = |mut at: usize| {
        while pdf.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    };
    let (mut pages, mut count, mut at) = (0usize, 0usize, 0usize);
    while let Some(rest) = pdf.get(at..).filter(|rest| !rest.is_empty()) {
        if rest.starts_with(b"/Type") {
            let value = skip_space(at + 5);
            if pdf[value..].starts_with(b"/Page") && pdf.get(value + 5) != Some(&b's') {
                pages += 1;
            }
            at += 5;
        } else if rest.starts_with(b"/Count") {
            let mut digit = skip_space(at + 6);
            let mut n = 0usize;
            while let Some(d) = pdf.get(digit).filter(|d| d.is_ascii_digit()) {
                n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                digit += 1;
            }
            count = count.max(n);
            at += 6;
        } else {
            at += 1;
        }
    }
    pages.max(count).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn wav(seconds: usize, byte_rate: u32) -> Vec<u8> {
        let data = usize::try_from(byte_rate).unwrap() * seconds;
        let mut wav = b"RIFF\0\0\0\0WAVEfmt ".to_vec();
        wav.extend_from_slice(&16u32.to_le_bytes());
        wav.extend_from_slice(&[1, 0, 1, 0]);
        wav.extend_from_slice(&byte_rate.to_le_bytes()); // sample rate, 8-bit mono
        wav.extend_from_slice(&byte_rate.to_le_bytes());
        wav.extend_from_slice(&[1, 0, 8, 0]);
        wav.extend_from_slice(b"data");
        wav.extend_from_slice(&u32::try_from(data).unwrap().to_le_bytes());
        wav.extend(std::iter::repeat_n(0x80, data));
        wav
    }

    fn audio(data: String) -> InputAudio {
        InputAudio {
            data: Some(data),
            ..InputAudio::default()
        }
    }

    #[test]
    fn wav_length_comes_from_its_header() {
        assert_eq!(audio_tokens(&audio(b64(&wav(3, 8_000)))), 30);
        assert_eq!(audio_tokens(&audio(b64(&wav(2, 16_000)))), 20);
    }

    #[test]
    fn mp3_length_comes_from_its_bit_rate() {
        // ID3 tag of 5 bytes, then an MPEG-1 layer III frame header at 128 kbit/s.
        let mut mp3 = b"ID3\x04\0\0\0\0\0\x05hello".to_vec();
        mp3.extend_from_slice(&[0xff, 0xfb, 0x90, 0x64]);
        mp3.extend(std::iter::repeat_n(0u8, 32_000 - 4));
        // 32,000 bytes at 16,000 bytes a second: 2 s.
        assert_eq!(audio_tokens(&audio(b64(&mp3))), 20);
    }

    #[test]
    fn unknown_audio_is_taken_at_the_assumed_rate() {
        let data = b64(&[7u8; 12_000]);
        assert_eq!(audio_tokens(&audio(data)), 30);
        // Not base64: 3 bytes at the assumed rate.
        assert_eq!(audio_tokens(&audio("%%%%".into())), 1);
        assert_eq!(audio_tokens(&InputAudio::default()), 0);
    }

    #[test]
    fn pdf_pages_are_counted() {
        let pdf = b"%PDF-1.4\n1 0 obj << /Type /Pages /Count 3 >>\n2 0 obj <</Type/Page>>\n3 0 obj << /Type /Page >>";
        assert_eq!(pdf_pages(pdf), 3);
        assert_eq!(pdf_pages(b"%PDF-1.7 compressed"), 1);
        assert_eq!(
            pdf_pages(b"/Type /Page /Type /Page /Type /Page /Count 2"),
            3
        );
        let file = FileData {
            file_data: Some(format!("data:application/pdf;base64,{}", b64(pdf))),
            ..FileData::default()
        };
        assert_eq!(file_tokens(&|_: &str| 0, &file), 3 * PDF_PAGE_TOKENS);
    }

    #[test]
    fn text_files_are_counted_as_text() {
        let words = |t: &str| t.split_whitespace().count();
        let file = FileData {
            file_data: Some(format!(
                "data:text/plain;base64,{}",
                b64(b"four words of text")
            )),
            ..FileData::default()
        };
        assert_eq!(file_tokens(&words, &file), 4);
        assert!(matches!(file_kind(&file), FileKind::Text(_)));
        let by_id = FileData {
            file_id: Some("file-1".into()),
            ..FileData::default()
        };
        assert_eq!(file_tokens(&words, &by_id), PDF_PAGE_TOKENS);
    }
}
