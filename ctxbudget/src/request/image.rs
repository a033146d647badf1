//! What an image costs: its size read from the image data, and the providers'
//! published rules that turn a size into tokens.
//!
//! - OpenAI (vision guide, "Calculating costs"): `detail: low` costs 85 tokens; `high`
//!   first scales the image to fit in 2048 × 2048, then so that its shortest side is
//!   at most 768 px, and costs 85 + 170 per 512-px tile. `auto` lets the model choose;
//!   ctxbudget counts it as `high`, the larger of the two.
//! - Anthropic (vision guide, "Evaluate image size"): `width × height / 750` tokens,
//!   after scaling an image whose long edge is over 1568 px, or that would cost over
//!   about 1,600 tokens, down until it is within both.
//!
//! Sizes are read from the first bytes of the image (PNG, JPEG, GIF, WebP and the
//! other formats the `imagesize` crate knows) without decoding it. An image whose size
//! is unknown — at a remote URL, or unreadable — is counted at the most one image can
//! cost ([`OPENAI_MAX_IMAGE_TOKENS`], [`ANTHROPIC_MAX_IMAGE_TOKENS`]), and the count
//! reports that assumption.

use base64::Engine as _;

/// The most one image costs in OpenAI's tile rule: a 768 × 2048 image, 2 × 4 tiles.
pub const OPENAI_MAX_IMAGE_TOKENS: usize = 85 + 170 * 8;

/// The most one image costs in Anthropic's rule: images are scaled down to about
/// 1,600 tokens.
pub const ANTHROPIC_MAX_IMAGE_TOKENS: usize = 1_600;

/// The width and height of an image, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageSize {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl ImageSize {
    /// An image of `width × height` pixels.
    pub const fn new(width: u32, height: u32) -> Self {
        Self { width, height }
    }

    /// Reads the size from the start of an image file's bytes; `None` for a format
    /// the `imagesize` crate does not know, or bytes too short or corrupt.
    ///
    /// ```
    /// use ctxbudget::request::image::ImageSize;
    ///
    /// // The 24-byte start of a PNG: signature, IHDR length and type, width, height.
    /// let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    /// png.extend_from_slice(&640u32.to_be_bytes());
    /// png.extend_from_slice(&480u32.to_be_bytes());
    /// assert_eq!(ImageSize::from_bytes(&png), Some(ImageSize::new(640, 480)));
    /// assert_eq!(ImageSize::from_bytes(b"not an image"), None);
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let size = imagesize::blob_size(bytes).ok()?;
        Some(Self {
            width: u32::try_from(size.width).ok()?,
            height: u32::try_from(size.height).ok()?,
        })
    }

    /// Reads the size from base64-encoded image data (standard alphabet, padding
    /// optional, whitespace not allowed), decoding only as much as the header needs.
    ///
    /// ```
    /// use ctxbudget::request::image::ImageSize;
    ///
    /// // A 1 × 1 GIF.
    /// let gif = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
    /// assert_eq!(ImageSize::from_base64(gif), Some(ImageSize::new(1, 1)));
    /// assert_eq!(ImageSize::from_base64("%%%"), None);
    /// ```
    pub fn from_base64(data: &str) -> Option<Self> {
        // Most formats state their size in the first few dozen bytes; a JPEG's frame
        // header can come after large metadata, so read more until it is found.
        let data = data.trim_end_matches('=').as_bytes();
        let mut chars = 64usize;
        loop {
            let take = chars.min(data.len());
            // Whole 4-character groups decode alone; the last group of the whole
            // string may be shorter.
            let take = if take == data.len() {
                take
            } else {
                take / 4 * 4
            };
            let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(&data[..take])
                .ok()?;
            if let Some(size) = Self::from_bytes(&bytes) {
                return Some(size);
            }
            if take == data.len() {
                return None;
            }
            chars = chars.saturating_mul(8);
        }
    }

    /// Reads the size from a `data:` URL with base64 data (`data:image/png;base64,…`);
    /// `None` for any other URL (a remote image's size is unknown without
    /// downloading it).
    ///
    /// ```
    /// use ctxbudget::request::image::ImageSize;
    ///
    /// let url = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
    /// assert_eq!(ImageSize::from_data_url(url), Some(ImageSize::new(1, 1)));
    /// assert_eq!(ImageSize::from_data_url("https://example.com/cat.png"), None);
    /// ```
    pub fn from_data_url(url: &str) -> Option<Self> {
        let rest = url.strip_prefix("data:")?;
        let (header, data) = rest.split_once(',')?;
        if !header.ends_with(";base64") {
            return None;
        }
        Self::from_base64(data)
    }
}

/// The `detail` of an OpenAI image part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OpenAiDetail {
    /// A 512 × 512 preview: 85 tokens whatever the size.
    Low,
    /// Tiles of 512 px: 85 + 170 per tile.
    High,
    /// The model chooses; counted as [`High`](OpenAiDetail::High), the larger.
    #[default]
    Auto,
}

impl OpenAiDetail {
    /// Reads the `detail` field: `"low"`, `"high"` or `"auto"`; anything else (or no
    /// field) is [`Auto`](OpenAiDetail::Auto).
    pub fn parse(detail: Option<&str>) -> Self {
        match detail {
            Some("low") => OpenAiDetail::Low,
            Some("high") => OpenAiDetail::High,
            _ => OpenAiDetail::Auto,
        }
    }
}

/// What an image costs under OpenAI's tile rule.
///
/// ```
/// use ctxbudget::request::image::{ImageSize, OpenAiDetail, openai_image_tokens};
///
/// // OpenAI's worked examples: 1024 × 1024 high is scaled to 768 × 768, 4 tiles.
/// assert_eq!(openai_image_tokens(ImageSize::new(1024, 1024), OpenAiDetail::High), 765);
/// // 2048 × 4096 fits in 1024 × 2048, then 768 × 1536: 6 tiles.
/// assert_eq!(openai_image_tokens(ImageSize::new(2048, 4096), OpenAiDetail::High), 1105);
/// // 4096 × 8192 low: 85, whatever the size.
/// assert_eq!(openai_image_tokens(ImageSize::new(4096, 8192), OpenAiDetail::Low), 85);
/// ```
pub fn openai_image_tokens(size: ImageSize, detail: OpenAiDetail) -> usize {
    if detail == OpenAiDetail::Low {
        return 85;
    }
    let (mut width, mut height) = (f64::from(size.width), f64::from(size.height));
    if width <= 0.0 || height <= 0.0 {
        return 85;
    }
    if width > 2048.0 || height > 2048.0 {
        let scale = 2048.0 / width.max(height);
        width *= scale;
        height *= scale;
    }
    let shortest = width.min(height);
    if shortest > 768.0 {
        let scale = 768.0 / shortest;
        width *= scale;
        height *= scale;
    }
    let tiles = (width / 512.0).ceil() * (height / 512.0).ceil();
    // At most 4 × 4 tiles after the scaling above: the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let tiles = tiles as usize;
    85 + 170 * tiles
}

/// What an image costs under Anthropic's rule: `width × height / 750`, rounded up,
/// after scaling it down to a long edge of at most 1568 px and at most about 1,600
/// tokens.
///
/// ```
/// use ctxbudget::request::image::{ImageSize, anthropic_image_tokens};
///
/// // Anthropic's table: 1092 × 1092 costs about 1,590 tokens.
/// assert_eq!(anthropic_image_tokens(ImageSize::new(1092, 1092)), 1590);
/// assert_eq!(anthropic_image_tokens(ImageSize::new(200, 200)), 54);
/// // A large photo is scaled down first, to about 1,600 tokens.
/// let photo = anthropic_image_tokens(ImageSize::new(4000, 3000));
/// assert!((1_590..=1_600).contains(&photo));
/// ```
pub fn anthropic_image_tokens(size: ImageSize) -> usize {
    const LONG_EDGE: f64 = 1568.0;
    const MAX_PIXELS: f64 = 750.0 * 1600.0;
    let (mut width, mut height) = (f64::from(size.width), f64::from(size.height));
    let long = width.max(height);
    if long > LONG_EDGE {
        let scale = LONG_EDGE / long;
        width = (width * scale).floor();
        height = (height * scale).floor();
    }
    if width * height > MAX_PIXELS {
        let scale = (MAX_PIXELS / (width * height)).sqrt();
        width = (width * scale).floor();
        height = (height * scale).floor();
    }
    let tokens = (width * height / 750.0).ceil();
    // At most 1,600 after the scaling above: the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let tokens = tokens as usize;
    tokens.min(ANTHROPIC_MAX_IMAGE_TOKENS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_rule_matches_the_published_examples() {
        // 2048 × 4096 high: scaled to 1024 × 2048, then 768 × 1536: 2 × 3 tiles.
        assert_eq!(
            openai_image_tokens(ImageSize::new(2048, 4096), OpenAiDetail::High),
            85 + 170 * 6
        );
        // A small image is not scaled up: 1 tile.
        assert_eq!(
            openai_image_tokens(ImageSize::new(100, 100), OpenAiDetail::Auto),
            255
        );
        // The worst case is the constant.
        assert_eq!(
            openai_image_tokens(ImageSize::new(768, 2048), OpenAiDetail::High),
            OPENAI_MAX_IMAGE_TOKENS
        );
        assert_eq!(
            openai_image_tokens(ImageSize::new(0, 5), OpenAiDetail::High),
            85
        );
        for (w, h) in [(1, u32::MAX), (u32::MAX, u32::MAX), (3000, 1)] {
            assert!(
                openai_image_tokens(ImageSize::new(w, h), OpenAiDetail::High)
                    <= OPENAI_MAX_IMAGE_TOKENS
            );
        }
    }

    #[test]
    fn anthropic_rule_is_bounded() {
        for (w, h) in [(1, u32::MAX), (u32::MAX, u32::MAX), (1568, 1568), (0, 0)] {
            assert!(anthropic_image_tokens(ImageSize::new(w, h)) <= ANTHROPIC_MAX_IMAGE_TOKENS);
        }
        assert_eq!(anthropic_image_tokens(ImageSize::new(750, 1)), 1);
    }

    #[test]
    fn base64_sizes_need_only_the_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&1920u32.to_be_bytes());
        png.extend_from_slice(&1080u32.to_be_bytes());
        png.extend(std::iter::repeat_n(7u8, 10_000));
        let encoded = base64::engine::general_purpose::STANDARD.encode(&png);
        assert_eq!(
            ImageSize::from_base64(&encoded),
            Some(ImageSize::new(1920, 1080))
        );
        let url = format!("data:image/png;base64,{encoded}");
        assert_eq!(
            ImageSize::from_data_url(&url),
            Some(ImageSize::new(1920, 1080))
        );
        assert_eq!(ImageSize::from_data_url("data:image/png,rawbytes"), None);
        assert_eq!(ImageSize::from_base64(""), None);
    }
}
