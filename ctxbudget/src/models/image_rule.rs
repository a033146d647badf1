//! [`ImageRule`]: how a model's provider bills an image, as the catalogue records it.

/// How a model bills an image in its input, as its provider's documentation publishes
/// it: the rule and its figures. The arithmetic is
/// [`request::image`](crate::request::image)'s (feature `requests`); the catalogue
/// only says which rule a model follows.
///
/// ```
/// use ctxbudget::models::{ImageRule, Model};
///
/// assert_eq!(
///     Model::lookup("gpt-4o-mini")?.image_rule(),
///     ImageRule::OpenAiTiles { base: 2_833, tile: 5_667 }
/// );
/// assert_eq!(
///     Model::lookup("gpt-4.1-mini")?.image_rule(),
///     ImageRule::OpenAiPatches { multiplier_percent: 162 }
/// );
/// assert_eq!(Model::lookup("claude-sonnet-4-5")?.image_rule(), ImageRule::Anthropic);
/// # Ok::<(), ctxbudget::models::ModelNotFound>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ImageRule {
    /// OpenAI's 512-px tiles (vision guide, "Calculating costs", for GPT-4o, GPT-4.1,
    /// GPT-4o-mini, computer use and the o-series but o4-mini): `detail: low` costs
    /// `base`; otherwise the image is scaled to fit in 2048 × 2048, then so that its
    /// shortest side is at most 768 px, and costs `base + tile ×` its 512-px tiles.
    OpenAiTiles {
        /// The tokens of every image (and all of a `detail: low` one).
        base: u32,
        /// The tokens of each 512-px tile.
        tile: u32,
    },
    /// OpenAI's 32-px patches (vision guide, for GPT-4.1-mini, GPT-4.1-nano, o4-mini
    /// and the GPT-5 mini and nano models): the 32-px patches that cover the image,
    /// at most 1,536 after scaling it down, times the model's multiplier. `detail`
    /// does not change it.
    OpenAiPatches {
        /// The multiplier in hundredths: 162 for ×1.62.
        multiplier_percent: u32,
    },
    /// Anthropic's rule (vision guide, "Evaluate image size"): `width × height / 750`
    /// tokens after scaling the image to a long edge of at most 1568 px and about
    /// 1,600 tokens.
    Anthropic,
    /// The provider publishes no rule for this model (or the model takes no images).
    #[default]
    Unpublished,
}

impl ImageRule {
    /// gpt-4o's figures, 85 and 170: the rule OpenAI's guide gives first, and the one
    /// requests are counted by when their model's rule is unknown.
    pub const GPT_4O: ImageRule = ImageRule::OpenAiTiles {
        base: 85,
        tile: 170,
    };
}
