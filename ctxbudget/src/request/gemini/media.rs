//! How media parts are counted: the image rule of the request's model
//! ([`ImageRule`]) and its media resolution ([`Resolution`]), stamped on each
//! content ([`RuleStamp`]), and what a part the count cannot size costs.

use std::sync::atomic::{AtomicU8, Ordering};

use super::part::{PartKind, PartView};
use crate::request::image::ImageSize;

/// What a part the count cannot size costs: one image at Gemini 3's high media
/// resolution ([`MEDIA`](super::MEDIA)).
pub const MEDIA_TOKENS: usize = 1_120;
/// What one image tile (or a whole image of at most 384 × 384 pixels) costs on
/// Gemini 1.5 and 2 models (the token-counting guide).
pub const TILE_TOKENS: usize = 258;
/// The side of an image tile.
const TILE: u32 = 768;
/// The side at or under which an image is one tile.
const SMALL: u32 = 384;

/// How images are counted, by the request's model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum ImageRule {
    /// No model known: the more of the two rules.
    Unknown = 0,
    /// Gemini 1.5 and 2: 258 a tile.
    Tiles = 1,
    /// Gemini 3 and later: 1,120 an image (high media resolution, the default).
    Flat = 2,
}

impl ImageRule {
    pub(crate) fn for_model(model: Option<&str>) -> Self {
        let Some(model) = model else {
            return ImageRule::Unknown;
        };
        let name = model.rsplit('/').next().unwrap_or(model);
        match name.strip_prefix("gemini-") {
            Some(rest) if rest.starts_with("1.") || rest.starts_with("2.") => ImageRule::Tiles,
            Some(_) => ImageRule::Flat,
            None => ImageRule::Unknown,
        }
    }

    /// What an image of `size` costs.
    pub(crate) fn tokens(self, size: ImageSize) -> usize {
        let tiles = if size.width <= SMALL && size.height <= SMALL {
            1
        } else {
            usize::try_from(size.width.div_ceil(TILE))
                .unwrap_or(usize::MAX)
                .saturating_mul(usize::try_from(size.height.div_ceil(TILE)).unwrap_or(usize::MAX))
        };
        let tile_tokens = tiles.saturating_mul(TILE_TOKENS);
        match self {
            ImageRule::Tiles => tile_tokens,
            ImageRule::Flat => MEDIA_TOKENS,
            ImageRule::Unknown => tile_tokens.max(MEDIA_TOKENS),
        }
    }
}

/// A media resolution: `generationConfig.mediaResolution` for the whole request,
/// or a part's own `mediaResolution.level` (Gemini 3). On Gemini 3 an image costs
/// 280 tokens at low, 560 at medium, 1,120 at high (the default) and 2,240 at ultra
/// high (the media-resolution guide); older models are counted by their tiles
/// whatever it says (an upper bound at low resolution).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub(crate) enum Resolution {
    /// Not given (or `MEDIA_RESOLUTION_UNSPECIFIED`): the model's default.
    #[default]
    Default = 0,
    Low = 1,
    Medium = 2,
    High = 3,
    UltraHigh = 4,
}

impl Resolution {
    /// Reads `MEDIA_RESOLUTION_LOW` (or `LOW`, any case) and the rest; `None` for
    /// anything else.
    pub(crate) fn parse(level: &str) -> Option<Self> {
        let level = level.trim();
        let level = level
            .get(.."MEDIA_RESOLUTION_".len())
            .filter(|prefix| prefix.eq_ignore_ascii_case("MEDIA_RESOLUTION_"))
            .map_or(level, |_| &level["MEDIA_RESOLUTION_".len()..]);
        [
            ("UNSPECIFIED", Resolution::Default),
            ("LOW", Resolution::Low),
            ("MEDIUM", Resolution::Medium),
            ("HIGH", Resolution::High),
            ("ULTRA_HIGH", Resolution::UltraHigh),
        ]
        .into_iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(level))
        .map(|(_, resolution)| resolution)
    }

    /// What one image costs at this resolution on Gemini 3.
    pub(crate) const fn image_tokens(self) -> usize {
        match self {
            Resolution::Low => 280,
            Resolution::Medium => 560,
            Resolution::Default | Resolution::High => MEDIA_TOKENS,
            Resolution::UltraHigh => 2 * MEDIA_TOKENS,
        }
    }

    /// `self`, or `fallback` when `self` is the default.
    const fn or(self, fallback: Resolution) -> Resolution {
        match self {
            Resolution::Default => fallback,
            given => given,
        }
    }

    const fn from_bits(bits: u8) -> Self {
        match bits {
            1 => Resolution::Low,
            2 => Resolution::Medium,
            3 => Resolution::High,
            4 => Resolution::UltraHigh,
            _ => Resolution::Default,
        }
    }
}

/// How a content's media are counted: the model's image rule and the request's
/// media resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MediaRule {
    pub(crate) images: ImageRule,
    pub(crate) resolution: Resolution,
}

/// The media rule a content is counted by, set by the request that holds it
/// each time it counts or hands out its contents. Not part of the content's JSON,
/// nor of its equality.
#[derive(Debug, Default)]
pub(crate) struct RuleStamp(AtomicU8);

impl RuleStamp {
    pub(crate) fn get(&self) -> MediaRule {
        let bits = self.0.load(Ordering::Relaxed);
        let images = match bits & 0b11 {
            1 => ImageRule::Tiles,
            2 => ImageRule::Flat,
            _ => ImageRule::Unknown,
        };
        MediaRule {
            images,
            resolution: Resolution::from_bits(bits >> 2),
        }
    }

    pub(crate) fn set(&self, rule: MediaRule) {
        let bits = rule.images as u8 | ((rule.resolution as u8) << 2);
        self.0.store(bits, Ordering::Relaxed);
    }
}

impl Clone for RuleStamp {
    fn clone(&self) -> Self {
        RuleStamp(AtomicU8::new(self.0.load(Ordering::Relaxed)))
    }
}

/// What a media part costs under `rule`: an image of known size by the model's
/// image rule; on Gemini 3 any image by its resolution (the part's own, else the
/// request's); any other media (and any media of an unknown model) at least one
/// image at high resolution, more when the resolution asks for more.
pub(crate) fn media_tokens(rule: MediaRule, part: &PartView) -> usize {
    let resolution = part.resolution.or(rule.resolution);
    match (rule.images, &part.kind) {
        (ImageRule::Flat, PartKind::Inline { image: true, .. }) => resolution.image_tokens(),
        (
            images,
            PartKind::Inline {
                image: true,
                size: Some(size),
            },
        ) => {
            let tiles = images.tokens(*size);
            if images == ImageRule::Unknown {
                tiles.max(resolution.image_tokens())
            } else {
                tiles
            }
        }
        _ => MEDIA_TOKENS.max(resolution.image_tokens()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_count_by_the_model_rule() {
        let small = ImageSize::new(300, 200);
        let big = ImageSize::new(1_000, 2_000);
        assert_eq!(
            ImageRule::for_model(Some("gemini-2.5-pro")).tokens(small),
            258
        );
        assert_eq!(
            ImageRule::for_model(Some("models/gemini-2.0-flash")).tokens(big),
            258 * 6
        );
        assert_eq!(
            ImageRule::for_model(Some("gemini-3-pro-preview")).tokens(big),
            1_120
        );
        assert_eq!(ImageRule::for_model(None).tokens(big), 1_548);
        assert_eq!(ImageRule::for_model(None).tokens(small), 1_120);
        let huge = ImageSize::new(u32::MAX, u32::MAX);
        assert!(ImageRule::Tiles.tokens(huge) > 0);
    }

    #[test]
    fn resolutions_read_and_survive_the_stamp() {
        assert_eq!(
            Resolution::parse("MEDIA_RESOLUTION_LOW"),
            Some(Resolution::Low)
        );
        assert_eq!(
            Resolution::parse("media_resolution_ultra_high"),
            Some(Resolution::UltraHigh)
        );
        assert_eq!(Resolution::parse("medium"), Some(Resolution::Medium));
        assert_eq!(
            Resolution::parse("MEDIA_RESOLUTION_UNSPECIFIED"),
            Some(Resolution::Default)
        );
        assert_eq!(Resolution::parse("MEDIA_RESOLUTION_"), None);
        assert_eq!(Resolution::parse("ultra"), None);
        assert_eq!(Resolution::parse("é"), None);
        let stamp = RuleStamp::default();
        for images in [ImageRule::Unknown, ImageRule::Tiles, ImageRule::Flat] {
            for resolution in [
                Resolution::Default,
                Resolution::Low,
                Resolution::Medium,
                Resolution::High,
                Resolution::UltraHigh,
            ] {
                let rule = MediaRule { images, resolution };
                stamp.set(rule);
                assert_eq!(stamp.get(), rule);
            }
        }
    }
}
