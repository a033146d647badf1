//! What an image costs: its size read from the image data, the providers' published
//! rules that turn a size into tokens, and the checks that tell an image the provider
//! would reject.
//!
//! # Rules
//!
//! - OpenAI (vision guide, "Calculating costs"), by model (the catalogue's
//!   [`ImageRule`](crate::models::ImageRule), read from the body's `model`):
//!   - 512-px tiles (GPT-4o, GPT-4.1, GPT-4o-mini, o1, o3, GPT-5): `detail: low`
//!     costs the model's base tokens; `high` first scales the image to fit in
//!     2048 × 2048, then so that its shortest side is at most 768 px, and costs the
//!     base tokens plus the model's tile tokens per 512-px tile
//!     ([`openai_tile_tokens`]; gpt-4o's 85 and 170 in [`openai_image_tokens`]).
//!     `auto` lets the model choose; ctxbudget counts it as `high`, the larger.
//!   - 32-px patches (GPT-4.1-mini and nano, o4-mini, GPT-5 mini and nano): the
//!     patches that cover the image, scaled down to at most 1,536, times the model's
//!     multiplier, rounded up ([`openai_patch_tokens`]); `detail` does not change it.
//!   - A model whose rule OpenAI does not publish (or a model the catalogue does not
//!     know) is counted with gpt-4o's tiles, and the report says so.
//! - Anthropic (vision guide, "Evaluate image size"): `width × height / 750` tokens,
//!   after scaling an image whose long edge is over 1568 px, or that would cost over
//!   about 1,600 tokens, down until it is within both; a side is never scaled below
//!   1 px ([`anthropic_image_tokens`]).
//!
//! Sizes are read from the first bytes of the image (PNG, JPEG, GIF, WebP and the
//! other formats the `imagesize` crate knows). An image whose size is unknown — at a
//! remote URL, or whose data fails the checks below — is counted at the most one
//! image can cost under the rule ([`OPENAI_MAX_IMAGE_TOKENS`] for gpt-4o,
//! [`ANTHROPIC_MAX_IMAGE_TOKENS`]), and the count reports that assumption.
//!
//! # Checks
//!
//! Counting never fails; [`WireRequest::validate`](super::WireRequest::validate)
//! (and so fitting) refuses an image the provider would reject, naming the message
//! and the block. ctxbudget does not decode the pixels; it checks (a count decodes
//! only the header and the pieces these checks look at, and counts an image that
//! fails them as one of unknown size; validation decodes every character):
//!
//! - the data is base64 (standard alphabet, padding optional, line breaks allowed)
//!   and decodes to the start of a JPEG, PNG, GIF or WebP file, of at least
//!   1 × 1 px;
//! - a PNG: its header chunk (`IHDR`) passes its CRC, an `IDAT` chunk follows, and
//!   the compressed pixel data is at least the size's rows at one bit a pixel
//!   divided by deflate's best ratio (1,032 : 1) — a header that claims more pixels
//!   than the data can hold is refused;
//! - a baseline or progressive JPEG: a scan (`SOS`) follows its frame header, and
//!   the scan data is at least one bit per 8 × 8 block of the claimed size (every
//!   block's DC coefficient takes a Huffman code of at least one bit);
//! - Anthropic: the `media_type` names the format of the data, each side is at most
//!   8,000 px (2,000 px when the request has more than 20 images), and the base64
//!   data is at most 5 MB (5,242,880 bytes) — the vision guide's limits;
//! - OpenAI: the format is PNG, JPEG, WebP or a GIF of one frame (the vision guide
//!   takes "non-animated GIF"); OpenAI publishes no limit on one image's pixels or
//!   bytes, only on the whole request's payload, which ctxbudget does not check.

use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;

mod check;

pub use check::{
    ANTHROPIC_MANY_IMAGES, ANTHROPIC_MANY_IMAGES_MAX_SIDE, ANTHROPIC_MAX_IMAGE_BYTES,
    ANTHROPIC_MAX_SIDE,
};
pub(crate) use check::{ImageData, anthropic_problem, check_base64, openai_problem, read_base64};

/// The most one image costs under gpt-4o's tile rule: a 768 × 2048 image, 2 × 4
/// tiles.
pub const OPENAI_MAX_IMAGE_TOKENS: usize = 85 + 170 * 8;

/// The most one image costs in Anthropic's rule: images are scaled down to about
/// 1,600 tokens.
pub const ANTHROPIC_MAX_IMAGE_TOKENS: usize = 1_600;

/// The most 32-px patches OpenAI's patch rule counts for one image.
const PATCH_LIMIT: usize = 1_536;

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
    /// the `imagesize` crate does not know, or bytes too short or corrupt. Only the
    /// header is read: the size is what the file claims.
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
        Self::from_base64(data_url_base64(url)?)
    }
}

impl ImageData {
    /// The size the image's header gives.
    pub(crate) fn size(&self) -> ImageSize {
        ImageSize::new(self.width, self.height)
    }
}

/// The base64 data of a `data:` URL (`data:image/png;base64,…`); `None` for any
/// other URL, or a `data:` URL whose data is not base64.
pub(crate) fn data_url_base64(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("data:")?;
    let (header, data) = rest.split_once(',')?;
    header.ends_with(";base64").then_some(data)
}

/// The `detail` of an OpenAI image part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OpenAiDetail {
    /// A 512 × 512 preview: the model's base tokens whatever the size.
    Low,
    /// Tiles of 512 px: the base tokens plus the tile tokens per tile.
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

/// What an image costs under gpt-4o's tile rule: [`openai_tile_tokens`] with 85 base
/// tokens and 170 a tile.
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
    openai_tile_tokens(size, detail, 85, 170)
}

/// What an image costs under OpenAI's tile rule with a model's figures: `base` for
/// `detail: low`; otherwise, after scaling the image to fit in 2048 × 2048 and its
/// shortest side to at most 768 px, `base + tile ×` its 512-px tiles. An image with
/// a side of 0 px costs `base`.
///
/// ```
/// use ctxbudget::request::image::{ImageSize, OpenAiDetail, openai_tile_tokens};
///
/// // gpt-4o-mini's figures: 2,833 and 5,667 (4 tiles for 1024 × 1024).
/// let size = ImageSize::new(1024, 1024);
/// assert_eq!(openai_tile_tokens(size, OpenAiDetail::High, 2_833, 5_667), 2_833 + 4 * 5_667);
/// assert_eq!(openai_tile_tokens(size, OpenAiDetail::Low, 2_833, 5_667), 2_833);
/// ```
pub fn openai_tile_tokens(size: ImageSize, detail: OpenAiDetail, base: u32, tile: u32) -> usize {
    let (base, tile) = (to_usize(base), to_usize(tile));
    if detail == OpenAiDetail::Low {
        return base;
    }
    let (mut width, mut height) = (f64::from(size.width), f64::from(size.height));
    if width <= 0.0 || height <= 0.0 {
        return base;
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
    base.saturating_add(tile.saturating_mul(tiles))
}

/// What an image costs under OpenAI's patch rule: the 32-px patches that cover it
/// (scaled down, as the guide gives, when more than 1,536 would), at most 1,536,
/// times `multiplier_percent / 100`, rounded up. A side of 0 px counts as 1 px; an
/// image so narrow that scaling leaves a side under one patch counts the 1,536.
///
/// ```
/// use ctxbudget::request::image::{ImageSize, openai_patch_tokens};
///
/// // The guide's examples, before the multiplier: 1024 × 1024 is 1,024 patches,
/// // 1800 × 2400 is scaled to 1056 × 1408, 33 × 44 patches.
/// assert_eq!(openai_patch_tokens(ImageSize::new(1024, 1024), 100), 1_024);
/// assert_eq!(openai_patch_tokens(ImageSize::new(1800, 2400), 100), 1_452);
/// // gpt-4.1-mini multiplies by 1.62.
/// assert_eq!(openai_patch_tokens(ImageSize::new(1024, 1024), 162), 1_659);
/// ```
pub fn openai_patch_tokens(size: ImageSize, multiplier_percent: u32) -> usize {
    const PATCH: f64 = 32.0;
    // The limit as a float: 1,536 is exact.
    #[allow(clippy::cast_precision_loss)]
    let limit = PATCH_LIMIT as f64;
    let (width, height) = (f64::from(size.width.max(1)), f64::from(size.height.max(1)));
    let raw = (width / PATCH).ceil() * (height / PATCH).ceil();
    let patches = if raw <= limit {
        raw
    } else {
        let shrink = (PATCH * PATCH * limit / (width * height)).sqrt();
        let (across, down) = (width * shrink / PATCH, height * shrink / PATCH);
        if across < 1.0 || down < 1.0 {
            limit
        } else {
            // Scale again so the tighter side fits a whole number of patches; the
            // small allowance keeps that whole number from rounding up.
            let fit = (across.floor() / across).min(down.floor() / down);
            let cover = |side: f64| (side * fit - 1e-6).ceil().max(1.0);
            (cover(across) * cover(down)).min(limit)
        }
    };
    // At most 1,536 after the steps above: the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let patches = patches as usize;
    patch_tokens(patches, multiplier_percent)
}

/// `ceil(patches × multiplier_percent / 100)`.
fn patch_tokens(patches: usize, multiplier_percent: u32) -> usize {
    let scaled = u64::try_from(patches)
        .unwrap_or(u64::MAX)
        .saturating_mul(u64::from(multiplier_percent));
    usize::try_from(scaled.div_ceil(100)).unwrap_or(usize::MAX)
}

fn to_usize(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// What an image costs under Anthropic's rule: `width × height / 750`, rounded up,
/// after scaling it down to a long edge of at most 1568 px and at most about 1,600
/// tokens. Scaling never takes a side below 1 px, so an image of at least 1 × 1 px
/// costs at least 1 token.
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
/// // A 1 × 10,000 strip is scaled to 1 × 1568: 3 tokens, not 0.
/// assert_eq!(anthropic_image_tokens(ImageSize::new(1, 10_000)), 3);
/// ```
pub fn anthropic_image_tokens(size: ImageSize) -> usize {
    const LONG_EDGE: f64 = 1568.0;
    const MAX_PIXELS: f64 = 750.0 * 1600.0;
    let (mut width, mut height) = (f64::from(size.width), f64::from(size.height));
    let scaled = |side: f64, scale: f64| (side * scale).floor().max(1.0).min(side);
    let long = width.max(height);
    if long > LONG_EDGE {
        let scale = LONG_EDGE / long;
        width = scaled(width, scale);
        height = scaled(height, scale);
    }
    if width * height > MAX_PIXELS {
        let scale = (MAX_PIXELS / (width * height)).sqrt();
        width = scaled(width, scale);
        height = scaled(height, scale);
    }
    let tokens = (width * height / 750.0).ceil();
    // At most 1,600 after the scaling above: the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let tokens = tokens as usize;
    tokens.min(ANTHROPIC_MAX_IMAGE_TOKENS)
}

/// A rule a request counts images by, with whether the provider publishes it for the
/// request's model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CountRule {
    kind: RuleKind,
    /// False when the model's rule is not published and gpt-4o's stands in.
    pub(crate) published: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleKind {
    Tiles { base: u32, tile: u32 },
    Patches { percent: u32 },
    Anthropic,
}

impl CountRule {
    /// gpt-4o's tiles: what an OpenAI image part counted outside a request is counted
    /// by.
    pub(crate) const GPT_4O: CountRule = CountRule {
        kind: RuleKind::Tiles {
            base: 85,
            tile: 170,
        },
        published: true,
    };

    /// The rule of the model named `model`, as the catalogue has it; gpt-4o's tiles,
    /// not published, for a model without a published rule, one the catalogue does
    /// not know, or no model.
    pub(crate) fn for_model(model: Option<&str>) -> CountRule {
        match model.and_then(catalogue_rule) {
            Some(kind) => CountRule {
                kind,
                published: true,
            },
            None => CountRule {
                published: false,
                ..CountRule::GPT_4O
            },
        }
    }

    /// What an image of `size` costs.
    pub(crate) fn tokens(self, size: ImageSize, detail: OpenAiDetail) -> usize {
        match self.kind {
            RuleKind::Tiles { base, tile } => openai_tile_tokens(size, detail, base, tile),
            RuleKind::Patches { percent } => openai_patch_tokens(size, percent),
            RuleKind::Anthropic => anthropic_image_tokens(size),
        }
    }

    /// What any image costs with `detail`, when the size does not matter.
    pub(crate) fn sizeless(self, detail: OpenAiDetail) -> Option<usize> {
        match self.kind {
            RuleKind::Tiles { base, .. } if detail == OpenAiDetail::Low => Some(to_usize(base)),
            _ => None,
        }
    }

    /// The most one image costs.
    pub(crate) fn max_tokens(self) -> usize {
        match self.kind {
            RuleKind::Tiles { base, tile } => {
                to_usize(base).saturating_add(to_usize(tile).saturating_mul(8))
            }
            RuleKind::Patches { percent } => patch_tokens(PATCH_LIMIT, percent),
            RuleKind::Anthropic => ANTHROPIC_MAX_IMAGE_TOKENS,
        }
    }

    /// The rule as 64 bits, 0 for none: a flag, whether it is published, the kind in
    /// 2 bits and two figures of 30 bits (larger figures are taken as 2^30 − 1).
    fn to_bits(self) -> u64 {
        const FIGURE: u64 = (1 << 30) - 1;
        let figure = |n: u32| u64::from(n).min(FIGURE);
        let (kind, a, b) = match self.kind {
            RuleKind::Tiles { base, tile } => (0, figure(base), figure(tile)),
            RuleKind::Patches { percent } => (1, figure(percent), 0),
            RuleKind::Anthropic => (2, 0, 0),
        };
        1 << 63 | u64::from(self.published) << 62 | kind << 60 | a << 30 | b
    }

    fn from_bits(bits: u64) -> Option<CountRule> {
        const FIGURE: u64 = (1 << 30) - 1;
        if bits >> 63 == 0 {
            return None;
        }
        let figure = |n: u64| u32::try_from(n & FIGURE).unwrap_or(u32::MAX);
        let (a, b) = (figure(bits >> 30), figure(bits));
        let kind = match (bits >> 60) & 3 {
            0 => RuleKind::Tiles { base: a, tile: b },
            1 => RuleKind::Patches { percent: a },
            _ => RuleKind::Anthropic,
        };
        Some(CountRule {
            kind,
            published: (bits >> 62) & 1 == 1,
        })
    }
}

/// The published rule of the catalogue's model `name`.
#[cfg(feature = "tiktoken")]
fn catalogue_rule(name: &str) -> Option<RuleKind> {
    use crate::models::{ImageRule, Model};
    match Model::lookup(name).ok()?.image_rule() {
        ImageRule::OpenAiTiles { base, tile } => Some(RuleKind::Tiles { base, tile }),
        ImageRule::OpenAiPatches { multiplier_percent } => Some(RuleKind::Patches {
            percent: multiplier_percent,
        }),
        ImageRule::Anthropic => Some(RuleKind::Anthropic),
        _ => None,
    }
}

/// Without the catalogue (feature `tiktoken`), no model's rule is known.
#[cfg(not(feature = "tiktoken"))]
fn catalogue_rule(_: &str) -> Option<RuleKind> {
    None
}

/// The rule an image part is counted by, set by the request that holds it each time
/// the request counts or hands out its messages (a part is counted on its own, with
/// no request to say its model). Not part of the part's JSON, nor of its equality.
#[derive(Default)]
pub(crate) struct RuleStamp(AtomicU64);

impl RuleStamp {
    /// The rule set, or [`CountRule::GPT_4O`] when none was.
    pub(crate) fn get(&self) -> CountRule {
        CountRule::from_bits(self.0.load(Ordering::Relaxed)).unwrap_or(CountRule::GPT_4O)
    }

    /// Sets the rule.
    pub(crate) fn set(&self, rule: CountRule) {
        self.0.store(rule.to_bits(), Ordering::Relaxed);
    }
}

impl Clone for RuleStamp {
    fn clone(&self) -> Self {
        RuleStamp(AtomicU64::new(self.0.load(Ordering::Relaxed)))
    }
}

impl PartialEq for RuleStamp {
    /// Always equal: the stamp is not part of the value.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for RuleStamp {}

impl std::fmt::Debug for RuleStamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.get(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn openai_tiles_match_the_published_examples() {
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
        for (w, h) in [(1, u32::MAX), (u32::MAX, u32::MAX), (3000, 1), (1, 10_000)] {
            let tokens = openai_image_tokens(ImageSize::new(w, h), OpenAiDetail::High);
            assert!(
                (255..=OPENAI_MAX_IMAGE_TOKENS).contains(&tokens),
                "{w} × {h}"
            );
        }
        assert_eq!(CountRule::GPT_4O.max_tokens(), OPENAI_MAX_IMAGE_TOKENS);
    }

    #[test]
    fn openai_patches_are_bounded_and_never_zero() {
        for (w, h) in [
            (1, 1),
            (0, 0),
            (1, 100_000),
            (100_000, 1),
            (u32::MAX, u32::MAX),
            (u32::MAX, 1),
            (4000, 1474),
            (33, 33),
        ] {
            let tokens = openai_patch_tokens(ImageSize::new(w, h), 100);
            assert!((1..=PATCH_LIMIT).contains(&tokens), "{w} × {h}: {tokens}");
        }
        // 4000 × 1474: scaled to 63 × 23 patches, times 1.62.
        assert_eq!(openai_patch_tokens(ImageSize::new(4000, 1474), 162), 2_348);
        assert_eq!(openai_patch_tokens(ImageSize::new(33, 33), 246), 10);
        assert_eq!(patch_tokens(PATCH_LIMIT, 246), 3_779);
    }

    #[test]
    fn anthropic_rule_is_bounded_and_never_zero() {
        for (w, h) in [(1, u32::MAX), (u32::MAX, u32::MAX), (1568, 1568), (1, 1)] {
            let tokens = anthropic_image_tokens(ImageSize::new(w, h));
            assert!(
                (1..=ANTHROPIC_MAX_IMAGE_TOKENS).contains(&tokens),
                "{w} × {h}"
            );
        }
        assert_eq!(anthropic_image_tokens(ImageSize::new(750, 1)), 1);
        assert_eq!(anthropic_image_tokens(ImageSize::new(10_000, 1)), 3);
    }

    #[test]
    fn stamps_round_trip() {
        let stamp = RuleStamp::default();
        assert_eq!(stamp.get(), CountRule::GPT_4O);
        for rule in [
            CountRule {
                kind: RuleKind::Tiles {
                    base: 2_833,
                    tile: 5_667,
                },
                published: true,
            },
            CountRule {
                kind: RuleKind::Patches { percent: 172 },
                published: true,
            },
            CountRule {
                kind: RuleKind::Anthropic,
                published: false,
            },
        ] {
            stamp.set(rule);
            assert_eq!(stamp.get(), rule);
            assert_eq!(stamp.clone().get(), rule);
        }
        let huge = CountRule {
            kind: RuleKind::Tiles {
                base: u32::MAX,
                tile: 1,
            },
            published: true,
        };
        stamp.set(huge);
        assert!(stamp.get().max_tokens() >= (1 << 30) - 1);
    }

    #[test]
    fn base64_sizes_need_only_the_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&1920u32.to_be_bytes());
        png.extend_from_slice(&1080u32.to_be_bytes());
        png.extend(std::iter::repeat_n(7u8, 10_000));
        let encoded = b64(&png);
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
