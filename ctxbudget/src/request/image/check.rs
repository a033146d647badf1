//! The checks of [`request::image`](super#checks): base64 image data read to its
//! format and size, a PNG's or JPEG's data measured against the size its header
//! claims, a GIF's frames counted, and the providers' limits.

use base64::DecodeError;
use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// The longest side Anthropic takes (vision guide, "Basics and limits"): a larger
/// image is rejected.
pub const ANTHROPIC_MAX_SIDE: u32 = 8_000;

/// The longest side Anthropic takes when a request has more than
/// [`ANTHROPIC_MANY_IMAGES`] images.
pub const ANTHROPIC_MANY_IMAGES_MAX_SIDE: u32 = 2_000;

/// Over this many images in one request, Anthropic takes sides of at most
/// [`ANTHROPIC_MANY_IMAGES_MAX_SIDE`].
pub const ANTHROPIC_MANY_IMAGES: usize = 20;

/// The most base64 data one image may have in an Anthropic request: 5 MB.
pub const ANTHROPIC_MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// Base64 with or without padding.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The file formats a provider may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    WebP,
    /// Another format the `imagesize` crate knows, by its name.
    Other(String),
}

impl ImageFormat {
    fn name(&self) -> &str {
        match self {
            ImageFormat::Png => "PNG",
            ImageFormat::Jpeg => "JPEG",
            ImageFormat::Gif => "GIF",
            ImageFormat::WebP => "WebP",
            ImageFormat::Other(name) => name,
        }
    }

    fn media_type(&self) -> Option<&'static str> {
        match self {
            ImageFormat::Png => Some("image/png"),
            ImageFormat::Jpeg => Some("image/jpeg"),
            ImageFormat::Gif => Some("image/gif"),
            ImageFormat::WebP => Some("image/webp"),
            ImageFormat::Other(_) => None,
        }
    }
}

/// Base64 image data that passed the checks of [the module docs](super#checks): its
/// format, its size, its frames (GIF) and the length of its base64 text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImageData {
    pub(crate) format: ImageFormat,
    /// The width in pixels, as the header gives it.
    pub(crate) width: u32,
    /// The height in pixels, as the header gives it.
    pub(crate) height: u32,
    /// The frames of a GIF; 1 for other formats.
    pub(crate) frames: usize,
    /// The length of the base64 text.
    pub(crate) encoded_len: usize,
}

/// Reads base64 image data and checks its structure (see
/// [the module docs](super#checks)), decoding only the header and the pieces the
/// checks look at (a PNG's chunk headers, a JPEG's segment headers, a GIF's block
/// lengths): what a count needs. [`check_base64`] also decodes every character.
///
/// # Errors
///
/// What is wrong with the data, as a sentence for an error message.
pub(crate) fn read_base64(data: &str) -> Result<ImageData, String> {
    // Line breaks would move what is read: data that fails read in place is decoded
    // whole, skipping them, and read again.
    Encoded::new(data)
        .and_then(|encoded| read_image(&encoded, data.len()).ok())
        .map_or_else(|| check_base64(data), Ok)
}

/// [`read_base64`], with every character of the data decoded: what validation
/// needs.
///
/// # Errors
///
/// What is wrong with the data, as a sentence for an error message.
pub(crate) fn check_base64(data: &str) -> Result<ImageData, String> {
    let bytes = decode_base64(data)?;
    read_image(bytes.as_slice(), data.len())
}

/// Image bytes read at any offset: a slice, or base64 text decoded piece by piece.
trait Bytes {
    /// How many bytes there are.
    fn size(&self) -> usize;
    /// The `n` bytes at `at`, fewer at the end; `None` past the end or where they
    /// do not decode.
    fn read(&self, at: usize, n: usize) -> Option<Cow<'_, [u8]>>;
    /// The byte at `at`.
    fn byte(&self, at: usize) -> Option<u8> {
        self.read(at, 1)?.first().copied()
    }
}

impl Bytes for [u8] {
    fn size(&self) -> usize {
        self.len()
    }

    fn read(&self, at: usize, n: usize) -> Option<Cow<'_, [u8]>> {
        let end = at.checked_add(n)?.min(self.len());
        self.get(at..end).map(Cow::Borrowed)
    }
}

/// Base64 text without padding, decoded 4 characters (3 bytes) at a time where it
/// is read. Its offsets hold for text without whitespace, as encoders write it.
struct Encoded<'a> {
    text: &'a [u8],
}

impl<'a> Encoded<'a> {
    /// The text without its padding; `None` when it is empty or has a length no
    /// base64 has (then it is decoded whole, which says what is wrong).
    fn new(data: &'a str) -> Option<Self> {
        let text = data.trim_end_matches('=').as_bytes();
        (!text.is_empty() && text.len() % 4 != 1).then_some(Self { text })
    }
}

impl Bytes for Encoded<'_> {
    fn size(&self) -> usize {
        let tail = match self.text.len() % 4 {
            2 => 1,
            3 => 2,
            _ => 0,
        };
        self.text.len() / 4 * 3 + tail
    }

    fn read(&self, at: usize, n: usize) -> Option<Cow<'_, [u8]>> {
        let end = at.checked_add(n)?.min(self.size());
        if at > end {
            return None;
        }
        if at == end {
            return Some(Cow::Borrowed(&[]));
        }
        let (first, last) = (at / 3, end.div_ceil(3));
        let chars = self.text.get(first * 4..(last * 4).min(self.text.len()))?;
        let bytes = BASE64.decode(chars).ok()?;
        let skip = at - first * 3;
        Some(Cow::Owned(bytes.get(skip..skip + (end - at))?.to_vec()))
    }
}

/// The size `imagesize` reads from the start of the file, reading more until it is
/// found (a JPEG's frame header can come after large metadata).
fn header_size<B: Bytes + ?Sized>(bytes: &B) -> Option<(u32, u32)> {
    let mut take = 64usize;
    loop {
        let head = bytes.read(0, take)?;
        if let Ok(size) = imagesize::blob_size(&head) {
            return Some((
                u32::try_from(size.width).ok()?,
                u32::try_from(size.height).ok()?,
            ));
        }
        if take >= bytes.size() {
            return None;
        }
        take = take.saturating_mul(8);
    }
}

/// Reads the format and size of an image and checks its structure.
fn read_image<B: Bytes + ?Sized>(bytes: &B, encoded_len: usize) -> Result<ImageData, String> {
    let start = bytes.read(0, 64).unwrap_or_default();
    let format = match imagesize::image_type(&start) {
        _ if start.starts_with(b"\x89PNG\r\n\x1a\n") => ImageFormat::Png,
        _ if start.starts_with(b"\xff\xd8\xff") => ImageFormat::Jpeg,
        _ if start.starts_with(b"GIF87a") || start.starts_with(b"GIF89a") => ImageFormat::Gif,
        _ if start.starts_with(b"RIFF") && start.get(8..12) == Some(b"WEBP") => ImageFormat::WebP,
        Ok(other) => ImageFormat::Other(format!("{other:?}").to_uppercase()),
        Err(_) => {
            return Err(
                "the image data is no image file ctxbudget knows (JPEG, PNG, GIF, WebP, ...): check it is the file's bytes".to_owned(),
            );
        }
    };
    let (width, height) = header_size(bytes).ok_or_else(|| {
        format!(
            "the {} image's header is cut off or corrupt: send the whole file",
            format.name()
        )
    })?;
    if width == 0 || height == 0 {
        return Err(format!(
            "the {} image's header gives a size of {width} × {height} px, which no image has",
            format.name(),
        ));
    }
    let frames = match format {
        ImageFormat::Png => check_png(bytes, width, height).map(|()| 1)?,
        ImageFormat::Jpeg => check_jpeg(bytes, width, height).map(|()| 1)?,
        ImageFormat::Gif => gif_frames(bytes),
        _ => 1,
    };
    Ok(ImageData {
        format,
        width,
        height,
        frames,
        encoded_len,
    })
}

/// Decodes base64 (padding optional), skipping ASCII whitespace: in one pass when
/// there is none, as base64 encoders write it.
fn decode_base64(data: &str) -> Result<Vec<u8>, String> {
    let decoded = match BASE64.decode(data) {
        Err(DecodeError::InvalidByte(_, byte)) if byte.is_ascii_whitespace() => {
            let compact: Vec<u8> = data.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
            BASE64.decode(compact)
        }
        decoded => decoded,
    };
    let bytes = decoded.map_err(|error| match error {
        DecodeError::InvalidByte(at, byte) => format!(
            "the image data is not base64: byte {at} is `{}`; send the file's bytes base64-encoded",
            char::from(byte).escape_default()
        ),
        other => {
            format!("the image data is not base64 ({other}): send the file's bytes base64-encoded")
        }
    })?;
    if bytes.is_empty() {
        return Err("the image data is empty: send the image file base64-encoded".to_owned());
    }
    Ok(bytes)
}

fn be_u32<B: Bytes + ?Sized>(bytes: &B, at: usize) -> Option<u32> {
    let b: [u8; 4] = bytes.read(at, 4)?.as_ref().try_into().ok()?;
    Some(u32::from_be_bytes(b))
}

fn be_u16<B: Bytes + ?Sized>(bytes: &B, at: usize) -> Option<u16> {
    let b: [u8; 2] = bytes.read(at, 2)?.as_ref().try_into().ok()?;
    Some(u16::from_be_bytes(b))
}

/// The fewest bytes `raw` bytes compress to with deflate, whose longest match (258
/// bytes) takes at least 2 bits: 1,032 : 1.
fn deflate_floor(raw: u128) -> u128 {
    raw / 1_032
}

/// A PNG's header chunk passes its CRC and its image data can hold the pixels it
/// claims (see [the module docs](super#checks)).
fn check_png<B: Bytes + ?Sized>(bytes: &B, width: u32, height: u32) -> Result<(), String> {
    let corrupt = |what: &str| format!("the PNG's {what}: the data is corrupt or cut off");
    let header = bytes
        .read(12, 17)
        .filter(|header| header.len() == 17)
        .ok_or_else(|| corrupt("header is cut off"))?;
    if be_u32(bytes, 8) != Some(13) || header[..4] != *b"IHDR" {
        return Err(corrupt("first chunk is not its header (IHDR)"));
    }
    if be_u32(bytes, 29) != Some(crc32(&header)) {
        return Err(corrupt("header (IHDR) fails its CRC"));
    }
    // Bits per pixel: the bit depth times the channels of the colour type.
    let depth = u128::from(header[12]);
    let channels = match header[13] {
        0 | 3 => 1,
        4 => 2,
        2 => 3,
        6 => 4,
        _ => return Err(corrupt("header names no colour type")),
    };
    let row_bits = u128::from(width) * depth * channels;
    let raw = u128::from(height) * row_bits.div_ceil(8);
    let chunk = |at: usize| {
        let length = be_u32(bytes, at)?;
        let kind = bytes.read(at.checked_add(4)?, 4)?;
        let next = at
            .checked_add(12)?
            .checked_add(usize::try_from(length).ok()?)?;
        Some((length, kind, next))
    };
    let mut data = 0u128;
    let mut at = 33usize;
    while let Some((length, kind, next)) = chunk(at) {
        if *kind == *b"IEND" {
            break;
        }
        if *kind == *b"IDAT" {
            data += u128::from(length);
        }
        at = next;
    }
    if data == 0 {
        return Err(corrupt("image data (IDAT) is missing"));
    }
    let floor = deflate_floor(raw);
    if data < floor {
        return Err(format!(
            "the PNG says {width} × {height} px but holds {data} bytes of image data, under the {floor} that size needs: the data is corrupt or cut off"
        ));
    }
    Ok(())
}

/// A Huffman-coded JPEG has a scan after its frame header, of at least one bit per
/// 8 × 8 block of the size it claims (see [the module docs](super#checks)).
fn check_jpeg<B: Bytes + ?Sized>(bytes: &B, width: u32, height: u32) -> Result<(), String> {
    let mut at = 2usize;
    let mut huffman = None;
    let scan = loop {
        // Markers may be padded with any number of 0xFF bytes.
        while bytes.byte(at) == Some(0xff) && bytes.byte(at + 1) == Some(0xff) {
            at += 1;
        }
        let (Some(0xff), Some(marker)) = (bytes.byte(at), bytes.byte(at + 1)) else {
            break None;
        };
        if matches!(marker, 0x01 | 0xd0..=0xd8) {
            at += 2;
            continue;
        }
        let Some(length) = be_u16(bytes, at + 2) else {
            break None;
        };
        let end = at + 2 + usize::from(length);
        match marker {
            0xc0..=0xc3 | 0xc5..=0xc7 => huffman = Some(true),
            0xc9..=0xcb | 0xcd..=0xcf => huffman = Some(false),
            0xda => break Some(end),
            0xd9 => break None,
            _ => {}
        }
        at = end;
    };
    let Some(scan) = scan.filter(|&s| s <= bytes.size()) else {
        return Err(
            "the JPEG has no scan (SOS) after its header: the data is corrupt or cut off"
                .to_owned(),
        );
    };
    if huffman == Some(true) {
        let blocks = u128::from(width.div_ceil(8)) * u128::from(height.div_ceil(8));
        let floor = blocks / 8;
        let data = u128::try_from(bytes.size() - scan).unwrap_or(u128::MAX);
        if data < floor {
            return Err(format!(
                "the JPEG says {width} × {height} px but holds {data} bytes of scan data, under the {floor} that size needs: the data is corrupt or cut off"
            ));
        }
    }
    Ok(())
}

/// The frames (image descriptors) of a GIF, walking its blocks; a walk cut short by
/// corrupt data counts the frames found so far, at least 1.
fn gif_frames<B: Bytes + ?Sized>(bytes: &B) -> usize {
    let skip_sub_blocks = |mut at: usize| -> Option<usize> {
        loop {
            let length = usize::from(bytes.byte(at)?);
            at = at.checked_add(1)?.checked_add(length)?;
            if length == 0 {
                return Some(at);
            }
        }
    };
    let table = |packed: u8| {
        if packed & 0x80 == 0 {
            0
        } else {
            3usize << ((packed & 7) + 1)
        }
    };
    let mut frames = 0usize;
    let Some(packed) = bytes.byte(10) else {
        return 1;
    };
    let mut at = 13 + table(packed);
    while let Some(block) = bytes.byte(at) {
        let next = match block {
            0x2c => bytes.byte(at + 9).and_then(|packed| {
                frames += 1;
                skip_sub_blocks(at + 10 + table(packed) + 1)
            }),
            0x21 => skip_sub_blocks(at + 2),
            _ => None,
        };
        match next {
            Some(next) => at = next,
            None => break,
        }
    }
    frames.max(1)
}

/// The CRC-32 of PNG chunks (ISO 3309, reflected, polynomial 0xEDB88320).
fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut n = 0u32;
        while n < 256 {
            let mut c = n;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[n as usize] = c;
            n += 1;
        }
        table
    };
    let crc = bytes.iter().fold(!0u32, |crc, &b| {
        TABLE[usize::from((crc ^ u32::from(b)).to_le_bytes()[0])] ^ (crc >> 8)
    });
    !crc
}

/// Why Anthropic would reject an image: a format it does not take, a `media_type`
/// that is not the data's, a side over `max_side` px, or base64 data over 5 MB.
pub(crate) fn anthropic_problem(
    image: &ImageData,
    media_type: Option<&str>,
    max_side: u32,
) -> Option<String> {
    let format = image.format.name();
    let Some(actual) = image.format.media_type() else {
        return Some(format!(
            "the image is {format} data; Anthropic takes JPEG, PNG, GIF and WebP: convert it"
        ));
    };
    if let Some(declared) = media_type.filter(|&m| m != actual) {
        return Some(format!(
            "the `media_type` is `{declared}` but the data is {format}: set it to `{actual}`"
        ));
    }
    let (width, height) = (image.width, image.height);
    if width.max(height) > max_side {
        let why = if max_side < ANTHROPIC_MAX_SIDE {
            " in a request of more than 20 images"
        } else {
            ""
        };
        return Some(format!(
            "the image is {width} × {height} px, over Anthropic's {max_side} px a side{why}: scale it down"
        ));
    }
    if image.encoded_len > ANTHROPIC_MAX_IMAGE_BYTES {
        return Some(format!(
            "the image's base64 data is {} bytes, over Anthropic's 5 MB an image: compress or scale it down",
            image.encoded_len
        ));
    }
    None
}

/// Why OpenAI would reject an image: a format other than PNG, JPEG, WebP and a GIF
/// of one frame.
pub(crate) fn openai_problem(image: &ImageData) -> Option<String> {
    match image.format {
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP => None,
        ImageFormat::Gif if image.frames <= 1 => None,
        ImageFormat::Gif => Some(format!(
            "the GIF has {} frames; OpenAI takes GIFs of one frame only: send a still image",
            image.frames
        )),
        ImageFormat::Other(ref name) => Some(format!(
            "the image is {name} data; OpenAI takes PNG, JPEG, WebP and still GIF: convert it"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// A PNG chunk: length, type, data, CRC.
    fn chunk(kind: [u8; 4], data: &[u8]) -> Vec<u8> {
        let mut out = u32::try_from(data.len()).unwrap().to_be_bytes().to_vec();
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
        out
    }

    /// A grey 8-bit PNG of `width × height` with `idat` bytes of image data.
    fn png(width: u32, height: u32, idat: usize) -> Vec<u8> {
        let mut header = width.to_be_bytes().to_vec();
        header.extend_from_slice(&height.to_be_bytes());
        header.extend_from_slice(&[8, 0, 0, 0, 0]);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(chunk(*b"IHDR", &header));
        png.extend(chunk(*b"IDAT", &vec![0; idat]));
        png.extend(chunk(*b"IEND", &[]));
        png
    }

    #[test]
    fn a_png_that_holds_its_pixels_passes() {
        let image = read_base64(&b64(&png(640, 480, 1_000))).unwrap();
        assert_eq!(image.format, ImageFormat::Png);
        assert_eq!((image.width, image.height), (640, 480));
        // Line breaks in the base64 are skipped.
        let mut wrapped = String::new();
        for line in b64(&png(640, 480, 1_000)).as_bytes().chunks(76) {
            wrapped.push_str(std::str::from_utf8(line).unwrap());
            wrapped.push('\n');
        }
        assert_eq!(read_base64(&wrapped).map(|image| image.width), Ok(640));
    }

    #[test]
    fn a_png_header_over_too_little_data_is_refused() {
        let err = read_base64(&b64(&png(100_000, 100_000, 64))).unwrap_err();
        assert!(
            err.contains("100000 × 100000 px but holds 64 bytes"),
            "{err}"
        );
        assert!(err.len() < 160, "{err}");
        let mut bad_crc = png(10, 10, 100);
        bad_crc[20] ^= 1;
        let err = read_base64(&b64(&bad_crc)).unwrap_err();
        assert!(err.contains("CRC"), "{err}");
        let mut no_data = png(10, 10, 100);
        no_data.truncate(33);
        let err = read_base64(&b64(&no_data)).unwrap_err();
        assert!(err.contains("IDAT"), "{err}");
        let err = read_base64(&b64(&png(0, 10, 100))).unwrap_err();
        assert!(err.contains("0 × 10"), "{err}");
    }

    #[test]
    fn data_that_is_not_an_image_is_refused() {
        for (data, expected) in [
            ("%%%%", "not base64"),
            ("", "empty"),
            ("QQ=Q", "not base64"),
            ("QUJD\u{0}", "byte 4 is `\\u{0}`"),
            (&b64(b"plain text, not an image")[..], "no image file"),
        ] {
            let err = check_base64(data).unwrap_err();
            assert!(err.contains(expected), "{data}: {err}");
            assert!(read_base64(data).is_err(), "{data}");
        }
    }

    #[test]
    fn base64_is_read_where_it_is_looked_at() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(1_000).collect();
        for len in [1, 2, 3, 4, 5, 999, 1_000] {
            let text = b64(&bytes[..len]);
            let encoded = Encoded::new(&text).unwrap();
            assert_eq!(encoded.size(), len);
            for at in [0, 1, 2, 3, 4, len / 2, len.saturating_sub(1), len] {
                for n in [0, 1, 2, 3, 4, 7, 100] {
                    assert_eq!(
                        encoded.read(at, n).as_deref(),
                        bytes[..len].read(at, n).as_deref(),
                        "{len} {at} {n}"
                    );
                }
            }
            assert_eq!(encoded.read(len + 1, 1), None);
        }
        assert!(Encoded::new("").is_none());
        assert!(Encoded::new("QUJDR").is_none());
    }

    #[test]
    fn a_count_reads_the_structure_and_validation_every_character() {
        let good = png(640, 480, 1_000);
        let text = b64(&good);
        assert_eq!(read_base64(&text), check_base64(&text));
        // A bad character inside the image data: the structure still holds (a count
        // reads the size), every character does not (validation refuses it).
        let mut bad = text.clone().into_bytes();
        bad[200] = b'%';
        let bad = String::from_utf8(bad).unwrap();
        assert!(read_base64(&bad).is_ok());
        let err = check_base64(&bad).unwrap_err();
        assert!(err.contains("byte 200 is `%`"), "{err}");
        // With line breaks, both decode it whole.
        let wrapped = format!("{}\n{}", &text[..76], &text[76..]);
        assert_eq!(read_base64(&wrapped).map(|i| i.width), Ok(640));
        let mut wrapped = String::new();
        for line in text.as_bytes().chunks(60) {
            wrapped.push_str(std::str::from_utf8(line).unwrap());
            wrapped.push_str("\r\n");
        }
        assert_eq!(read_base64(&wrapped), check_base64(&wrapped));
        assert!(read_base64(&wrapped).is_ok());
    }

    #[test]
    fn a_jpeg_needs_a_scan_as_long_as_its_blocks() {
        // SOI, SOF0 (8-bit, height, width, one component), SOS, then scan bytes.
        let jpeg = |width: u16, height: u16, scan: usize| {
            let mut jpeg = vec![0xff, 0xd8, 0xff, 0xc0, 0, 11, 8];
            jpeg.extend_from_slice(&height.to_be_bytes());
            jpeg.extend_from_slice(&width.to_be_bytes());
            jpeg.extend_from_slice(&[1, 1, 0x11, 0]);
            jpeg.extend_from_slice(&[0xff, 0xda, 0, 8, 1, 1, 0, 0, 0x3f, 0]);
            jpeg.extend(std::iter::repeat_n(0u8, scan));
            jpeg.extend_from_slice(&[0xff, 0xd9]);
            jpeg
        };
        assert!(read_base64(&b64(&jpeg(640, 480, 1_000))).is_ok());
        let err = read_base64(&b64(&jpeg(60_000, 60_000, 1_000))).unwrap_err();
        assert!(err.contains("scan data"), "{err}");
        let mut cut = jpeg(64, 64, 100);
        cut.truncate(12);
        let err = read_base64(&b64(&cut)).unwrap_err();
        assert!(err.contains("no scan") || err.contains("cut off"), "{err}");
    }

    #[test]
    fn gif_frames_are_counted() {
        let one = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
        let image = read_base64(one).unwrap();
        assert_eq!(image.frames, 1);
        assert_eq!(openai_problem(&image), None);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(one)
            .unwrap();
        // Repeat the frame (graphic control extension and image) before the trailer.
        let frame = &bytes[19..bytes.len() - 1];
        let mut two = bytes[..bytes.len() - 1].to_vec();
        two.extend_from_slice(frame);
        two.push(0x3b);
        let image = read_base64(&b64(&two)).unwrap();
        assert_eq!(image.frames, 2);
        assert!(openai_problem(&image).unwrap().contains("2 frames"));
    }

    #[test]
    fn anthropic_limits() {
        let image = read_base64(&b64(&png(8001, 16, 1_000))).unwrap();
        let err = anthropic_problem(&image, Some("image/png"), ANTHROPIC_MAX_SIDE).unwrap();
        assert!(
            err.contains("8001 × 16 px, over Anthropic's 8000 px"),
            "{err}"
        );
        let ok = read_base64(&b64(&png(2001, 16, 1_000))).unwrap();
        assert_eq!(anthropic_problem(&ok, None, ANTHROPIC_MAX_SIDE), None);
        let err = anthropic_problem(&ok, None, ANTHROPIC_MANY_IMAGES_MAX_SIDE).unwrap();
        assert!(err.contains("more than 20 images"), "{err}");
        let err = anthropic_problem(&ok, Some("image/jpeg"), ANTHROPIC_MAX_SIDE).unwrap();
        assert!(err.contains("set it to `image/png`"), "{err}");
        let big = ImageData {
            encoded_len: ANTHROPIC_MAX_IMAGE_BYTES + 1,
            ..ok
        };
        let err = anthropic_problem(&big, None, ANTHROPIC_MAX_SIDE).unwrap();
        assert!(err.contains("over Anthropic's 5 MB"), "{err}");
        assert!(err.len() < 160, "{err}");
    }
}
