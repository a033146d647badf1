//! A JSON writer for the structure-aware targets: bodies are written as text, so
//! they can hold what `serde_json::Value` cannot (numbers out of `f64` range, keys
//! given twice, lone surrogate escapes, nesting past 128 levels), within a size
//! budget so one input cannot ask for gigabytes.

#![allow(dead_code)]

use libfuzzer_sys::arbitrary::{self, Arbitrary};

/// The most bytes one generated document may take.
pub const BODY_BUDGET: usize = 4 << 20;

/// The deepest nesting a generator writes: `FUZZ_MAX_DEPTH` when set (to run the
/// targets on a build where deep nesting is known to be slow), else 20,000.
pub fn max_depth() -> usize {
    static DEPTH: std::sync::LazyLock<usize> = std::sync::LazyLock::new(|| {
        std::env::var("FUZZ_MAX_DEPTH")
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(20_000)
    });
    *DEPTH
}

/// The longest name a generator writes, in bytes: `FUZZ_MAX_NAME` when set (to run
/// on a build where a long model name is known to be slow to look up), else no cap
/// below the 200 KB the grammar writes.
pub fn max_name() -> usize {
    static NAME: std::sync::LazyLock<usize> = std::sync::LazyLock::new(|| {
        std::env::var("FUZZ_MAX_NAME")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(usize::MAX)
    });
    *NAME
}

/// A count read on a log scale: the low bits say how far to shift the rest, so that
/// small and large counts are about as likely (a uniform `u16` would nest most
/// bodies the full 20,000 levels, and make every run slow).
pub fn log_scale(raw: u32, bits: u32) -> usize {
    (raw >> (raw % bits)) as usize
}

/// JSON text being written, with what is left of its budget.
#[derive(Debug)]
pub struct Out {
    pub text: String,
    /// Written after every `,` and `:` outside strings (`""` for compact JSON).
    pub space: &'static str,
    budget: usize,
}

impl Out {
    pub fn new(space: &'static str) -> Self {
        Out {
            text: String::new(),
            space,
            budget: BODY_BUDGET,
        }
    }

    /// Bytes the budget still allows.
    pub fn room(&self) -> usize {
        self.budget.saturating_sub(self.text.len())
    }

    pub fn raw(&mut self, raw: &str) {
        self.text.push_str(raw);
    }

    /// A JSON string with `text` (escaped as serde_json escapes).
    pub fn string(&mut self, text: &str) {
        self.text
            .push_str(&serde_json::to_string(text).expect("strings serialize"));
    }

    fn comma(&mut self) {
        self.text.push(',');
        self.text.push_str(self.space);
    }

    /// An object; `fields` writes its fields through [`Obj::field`].
    pub fn object(&mut self, fields: impl FnOnce(&mut Obj<'_>)) {
        self.text.push('{');
        let mut obj = Obj {
            out: self,
            first: true,
        };
        fields(&mut obj);
        self.text.push('}');
    }

    /// An array; `items` writes its items through [`Arr::item`].
    pub fn array(&mut self, items: impl FnOnce(&mut Arr<'_>)) {
        self.text.push('[');
        let mut arr = Arr {
            out: self,
            first: true,
        };
        items(&mut arr);
        self.text.push(']');
    }
}

pub struct Obj<'a> {
    pub out: &'a mut Out,
    first: bool,
}

impl Obj<'_> {
    pub fn field(&mut self, key: &str, value: impl FnOnce(&mut Out)) {
        if !std::mem::take(&mut self.first) {
            self.out.comma();
        }
        self.out.string(key);
        self.out.text.push(':');
        self.out.text.push_str(self.out.space);
        value(self.out);
    }

    pub fn str(&mut self, key: &str, text: &str) {
        self.field(key, |out| out.string(text));
    }

    pub fn raw(&mut self, key: &str, raw: &str) {
        self.field(key, |out| out.raw(raw));
    }
}

pub struct Arr<'a> {
    pub out: &'a mut Out,
    first: bool,
}

impl Arr<'_> {
    pub fn item(&mut self, value: impl FnOnce(&mut Out)) {
        if !std::mem::take(&mut self.first) {
            self.out.comma();
        }
        value(self.out);
    }
}

/// Words text is made of, so that counters see words, punctuation and spaces.
const WORDS: &[&str] = &[
    "the",
    "budget",
    " ",
    "token",
    "Paris",
    "\n",
    "é",
    "日本語",
    "👩‍💻",
    ".",
    ",",
    "don't",
    "0123456789",
    "\t",
    "\u{FFFD}",
    "^^^^",
    "naïve",
    "ﬁ",
    "Ω",
    "\r\n",
    "  ",
    "{\"a\":1}",
    "<|endoftext|>",
    "[INST]",
    "▁",
    "é",
    "\u{200d}",
    "🇫🇷",
    "x",
    "ab",
    "ZZ",
    "\\",
];

/// A text, written as a JSON string.
#[derive(Arbitrary, Debug, Clone)]
pub enum Text {
    /// Any string.
    Plain(String),
    /// Words of a small vocabulary, each byte choosing one.
    Words(Vec<u8>),
    /// A unit repeated (long texts from short inputs), within the budget.
    Repeat { unit: Unit, times: u32 },
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Unit {
    Word(u8),
    Custom(String),
}

/// The most bytes a repeated text takes, unless it asks to be long.
pub const TEXT_MAX: usize = 64 << 10;

impl Text {
    /// The text: a repeated one at most `TEXT_MAX` bytes and about a quarter of
    /// `room`.
    pub fn value(&self, room: usize) -> String {
        self.long_value(room.min(TEXT_MAX * 4))
    }

    /// The text, a repeated one at most about a quarter of `room` bytes.
    pub fn long_value(&self, room: usize) -> String {
        match self {
            Text::Plain(text) => text.clone(),
            Text::Words(picks) => picks
                .iter()
                .map(|&i| WORDS[usize::from(i) % WORDS.len()])
                .collect(),
            Text::Repeat { unit, times } => {
                let unit = match unit {
                    Unit::Word(i) => WORDS[usize::from(*i) % WORDS.len()],
                    Unit::Custom(text) => text.as_str(),
                };
                if unit.is_empty() {
                    return String::new();
                }
                let times = log_scale(*times, 32).min(room / 4 / unit.len());
                unit.repeat(times)
            }
        }
    }
}

/// A number as its JSON text, including those `f64` and `u64` cannot hold.
#[derive(Arbitrary, Debug, Clone)]
pub enum Num {
    U64(u64),
    I64(i64),
    F64(f64),
    /// `1e400`.
    Huge,
    /// `-1e400`.
    NegHuge,
    /// `1e-400`.
    Tiny,
    /// `18446744073709551616` (2^64).
    PastU64,
    /// A run of this many digits.
    Digits(u16),
    NegZero,
    Half,
    /// `"5000"`.
    Quoted(u32),
    Bool(bool),
    Null,
}

impl Num {
    pub fn json(&self) -> String {
        match self {
            Num::U64(n) => n.to_string(),
            Num::I64(n) => n.to_string(),
            Num::F64(x) if x.is_finite() => serde_json::to_string(x).expect("finite"),
            Num::F64(_) => "1.7976931348623157e308".to_owned(),
            Num::Huge => "1e400".to_owned(),
            Num::NegHuge => "-1e400".to_owned(),
            Num::Tiny => "1e-400".to_owned(),
            Num::PastU64 => "18446744073709551616".to_owned(),
            Num::Digits(n) => "9".repeat(usize::from(*n % 4096) + 1),
            Num::NegZero => "-0".to_owned(),
            Num::Half => "1.5".to_owned(),
            Num::Quoted(n) => format!("\"{n}\""),
            Num::Bool(b) => b.to_string(),
            Num::Null => "null".to_owned(),
        }
    }
}

/// A JSON value of any shape, nested `depth` levels (written without recursion).
#[derive(Arbitrary, Debug, Clone)]
pub struct Deep {
    pub depth: u16,
    /// How each level nests (cycled).
    pub levels: Vec<Level>,
    pub leaf: Leaf,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Level {
    Array,
    /// `{"k": ...}` with one of a few keys.
    Object(u8),
    /// `[1e400, ...]`: an out-of-range number beside the nested value.
    ArrayAfterHuge,
    /// `{"a": 1, "a": ...}`: a key given twice.
    Duplicate,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Leaf {
    Num(Num),
    Str(Text),
    /// `"\ud800"`: an escape of a lone surrogate.
    LoneSurrogate,
    EmptyObject,
    EmptyArray,
    Pairs(Vec<(u8, Num)>),
}

const KEYS: &[&str] = &[
    "type",
    "properties",
    "items",
    "anyOf",
    "$ref",
    "enum",
    "description",
    "a",
    "",
    "content",
    "text",
    "maximum",
];

impl Deep {
    pub fn write(&self, out: &mut Out) {
        let depth = log_scale(u32::from(self.depth), 16).min(max_depth());
        // Each level costs at most ~12 bytes.
        let depth = depth.min(out.room() / 16);
        let level = |i: usize| {
            if self.levels.is_empty() {
                Level::Array
            } else {
                self.levels[i % self.levels.len()]
            }
        };
        for i in 0..depth {
            match level(i) {
                Level::Array => out.raw("["),
                Level::Object(k) => {
                    out.raw("{");
                    out.string(KEYS[usize::from(k) % KEYS.len()]);
                    out.raw(":");
                }
                Level::ArrayAfterHuge => out.raw("[1e400,"),
                Level::Duplicate => out.raw("{\"a\":1,\"a\":"),
            }
        }
        self.leaf.write(out);
        for i in (0..depth).rev() {
            match level(i) {
                Level::Array | Level::ArrayAfterHuge => out.raw("]"),
                Level::Object(_) | Level::Duplicate => out.raw("}"),
            }
        }
    }
}

impl Leaf {
    pub fn write(&self, out: &mut Out) {
        match self {
            Leaf::Num(n) => out.raw(&n.json()),
            Leaf::Str(text) => {
                let text = text.value(out.room());
                out.string(&text);
            }
            Leaf::LoneSurrogate => out.raw("\"a\\ud800b\""),
            Leaf::EmptyObject => out.raw("{}"),
            Leaf::EmptyArray => out.raw("[]"),
            Leaf::Pairs(pairs) => out.object(|o| {
                for (k, n) in pairs {
                    o.raw(KEYS[usize::from(*k) % KEYS.len()], &n.json());
                }
            }),
        }
    }
}

/// A name (a model, a tool, an id): known ones, odd ones and very long ones.
#[derive(Arbitrary, Debug, Clone)]
pub enum Name {
    Known(u8),
    Any(String),
    /// A unit repeated: up to 100 KB and more (`anthropic.anthropic.…`).
    Long {
        unit: u8,
        times: u32,
    },
}

const MODELS: &[&str] = &[
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-nano",
    "gpt-4",
    "gpt-3.5-turbo",
    "o3",
    "o4-mini",
    "gpt-5",
    "claude-sonnet-4-5",
    "claude-3-5-haiku-20241022",
    "claude-opus-4-1",
    "anthropic.claude-3-haiku-20240307-v1:0",
    "openai/gpt-4o",
    "ft:gpt-4o-mini:acme::x",
    "",
];

const UNITS: &[&str] = &["anthropic.", "a", "gpt-4o-", "é", "-", "openai/"];

impl Name {
    pub fn value(&self, room: usize) -> String {
        match self {
            Name::Known(i) => MODELS[usize::from(*i) % MODELS.len()].to_owned(),
            Name::Any(name) => name.clone(),
            Name::Long { unit, times } => {
                // Up to 100 KB and a little more.
                let unit = UNITS[usize::from(*unit) % UNITS.len()];
                let times = (*times as usize % 20_000)
                    .min(room / 4 / unit.len())
                    .min(max_name() / unit.len());
                unit.repeat(times)
            }
        }
    }
}

/// Base64 (standard alphabet, padded).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// An image file, honest or lying about its size.
#[derive(Arbitrary, Debug, Clone)]
pub enum Image {
    /// A real PNG of `width × height` (at most 64 × 64) whose header may claim
    /// another size, with its data intact, missing or with a bad checksum.
    Png {
        width: u8,
        height: u8,
        claim: Option<(u32, u32)>,
        body: PngBody,
    },
    /// A JPEG start-of-frame claiming a size, with no scan after it.
    Jpeg { width: u16, height: u16 },
    /// A GIF header claiming a size.
    Gif { width: u16, height: u16 },
    /// A WebP (VP8X) header claiming a size.
    Webp { width: u32, height: u32 },
    /// Bytes that are no image.
    Garbage(Vec<u8>),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum PngBody {
    Honest,
    NoData,
    BadChecksum,
    Truncated,
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8], bad_crc: bool) {
    out.extend_from_slice(&u32::try_from(data.len()).unwrap_or(0).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    let sum = if bad_crc { !crc.sum() } else { crc.sum() };
    out.extend_from_slice(&sum.to_be_bytes());
}

impl Image {
    /// The file's bytes and its media type.
    pub fn bytes(&self) -> (Vec<u8>, &'static str) {
        match self {
            Image::Png {
                width,
                height,
                claim,
                body,
            } => {
                use std::io::Write;
                let (w, h) = (u32::from(*width % 64) + 1, u32::from(*height % 64) + 1);
                let (cw, ch) = claim.unwrap_or((w, h));
                let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
                let mut ihdr = Vec::new();
                ihdr.extend_from_slice(&cw.to_be_bytes());
                ihdr.extend_from_slice(&ch.to_be_bytes());
                ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
                png_chunk(&mut png, b"IHDR", &ihdr, false);
                let mut rows = Vec::new();
                for _ in 0..h {
                    rows.push(0);
                    rows.extend(std::iter::repeat_n(0x7f, w as usize * 3));
                }
                let mut z =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
                z.write_all(&rows).expect("in memory");
                let data = z.finish().expect("in memory");
                match body {
                    PngBody::Honest => png_chunk(&mut png, b"IDAT", &data, false),
                    PngBody::NoData => {}
                    PngBody::BadChecksum => png_chunk(&mut png, b"IDAT", &data, true),
                    PngBody::Truncated => {
                        png_chunk(&mut png, b"IDAT", &data[..data.len() / 2], false);
                    }
                }
                png_chunk(&mut png, b"IEND", &[], false);
                (png, "image/png")
            }
            Image::Jpeg { width, height } => {
                let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08];
                jpeg.extend_from_slice(&height.to_be_bytes());
                jpeg.extend_from_slice(&width.to_be_bytes());
                jpeg.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
                (jpeg, "image/jpeg")
            }
            Image::Gif { width, height } => {
                let mut gif = b"GIF89a".to_vec();
                gif.extend_from_slice(&width.to_le_bytes());
                gif.extend_from_slice(&height.to_le_bytes());
                gif.extend_from_slice(&[0, 0, 0, 0x3B]);
                (gif, "image/gif")
            }
            Image::Webp { width, height } => {
                let mut webp =
                    b"RIFF\x1e\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00".to_vec();
                let (w, h) = (
                    width.saturating_sub(1) & 0xFF_FFFF,
                    height.saturating_sub(1) & 0xFF_FFFF,
                );
                webp.extend_from_slice(&w.to_le_bytes()[..3]);
                webp.extend_from_slice(&h.to_le_bytes()[..3]);
                (webp, "image/webp")
            }
            Image::Garbage(bytes) => (bytes.clone(), "image/png"),
        }
    }
}

/// A PDF file: `pages` page objects and a page tree that claims `count` pages.
#[derive(Arbitrary, Debug, Clone)]
pub struct Pdf {
    pub pages: u8,
    pub count: Num,
    pub not_pdf: bool,
}

impl Pdf {
    pub fn bytes(&self) -> Vec<u8> {
        let mut pdf = if self.not_pdf {
            b"GIF89a".to_vec()
        } else {
            b"%PDF-1.7\n".to_vec()
        };
        pdf.extend_from_slice(
            format!("1 0 obj << /Type /Pages /Count {} >>\n", self.count.json()).as_bytes(),
        );
        for i in 0..self.pages {
            pdf.extend_from_slice(
                format!("{} 0 obj << /Type /Page >>\n", u16::from(i) + 2).as_bytes(),
            );
        }
        pdf
    }
}

/// A media type to write in place of the file's own (a data URL's header that lies).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum MediaType {
    Own,
    Png,
    Jpeg,
    Pdf,
    Text,
    Empty,
}

impl MediaType {
    pub fn or<'a>(self, own: &'a str) -> &'a str {
        match self {
            MediaType::Own => own,
            MediaType::Png => "image/png",
            MediaType::Jpeg => "image/jpeg",
            MediaType::Pdf => "application/pdf",
            MediaType::Text => "text/plain",
            MediaType::Empty => "",
        }
    }
}
