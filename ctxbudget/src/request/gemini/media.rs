//! How media parts are counted: the image rule of the request's model
//! ([`ImageRule`]), stamped on each content ([`RuleStamp`]), and what a part the
//! count cannot size costs.

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

/// The image rule a content is counted by, set by the request that holds it
/// each time it counts or hands out its contents. Not part of the content's JSON,
/// nor of its equality.
#[derive(Debug, Default)]
pub(crate) struct RuleStamp(AtomicU8);

impl RuleStamp {
    pub(crate) fn get(&self) -> ImageRule {
        match self.0.load(Ordering::Relaxed) {
            1 => ImageRule::Tiles,
            2 => ImageRule::Flat,
            _ => ImageRule::Unknown,
        }
    }

    pub(crate) fn set(&self, rule: ImageRule) {
        self.0.store(rule as u8, Ordering::Relaxed);
    }
}

impl Clone for RuleStamp {
    fn clone(&self) -> Self {
        RuleStamp(AtomicU8::new(self.0.load(Ordering::Relaxed)))
    }
}

/// What a media part costs under `rule`.
pub(crate) fn media_tokens(rule: ImageRule, part: &PartView) -> usize {
    match part.kind {
        PartKind::Inline {
            image: true,
            size: Some(size),
        } => rule.tokens(size),
        _ => MEDIA_TOKENS,
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
}
