//! [`SelectOptions`]: how [`select`](super::select) joins and cuts chunks.

use std::borrow::Cow;

use crate::trim::{Keep, TrimOptions};

/// How [`select`](super::select()) joins and cuts chunks.
///
/// ```
/// use ctxbudget::{trim::Boundary, select::SelectOptions, TrimOptions};
///
/// let options = SelectOptions::new()
///     .with_separator("\n---\n")
///     .with_marker(" [cut]")
///     .with_min_partial(20)
///     .with_keep_scanning(true)
///     .with_trim_options(TrimOptions::new().without(Boundary::Line));
/// assert_eq!(options.separator(), "\n---\n");
/// assert_eq!(options.min_partial(), 20);
/// assert!(options.keep_scanning());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SelectOptions {
    pub(super) min_partial: usize,
    pub(super) separator: Cow<'static, str>,
    pub(super) marker: Cow<'static, str>,
    pub(super) keep_scanning: bool,
    pub(super) trim: TrimOptions,
}

impl Default for SelectOptions {
    fn default() -> Self {
        Self {
            min_partial: Self::DEFAULT_MIN_PARTIAL,
            separator: Cow::Borrowed(Self::DEFAULT_SEPARATOR),
            marker: Cow::Borrowed(Self::DEFAULT_MARKER),
            keep_scanning: false,
            trim: TrimOptions::default(),
        }
    }
}

impl SelectOptions {
    /// The default [minimum](Self::with_min_partial) for a partial chunk: 50 tokens.
    pub const DEFAULT_MIN_PARTIAL: usize = 50;
    /// The default [separator](Self::with_separator): a blank line.
    pub const DEFAULT_SEPARATOR: &'static str = "\n\n";
    /// The default [marker](Self::with_marker) after a cut chunk: a space and an
    /// ellipsis.
    pub const DEFAULT_MARKER: &'static str = " …";

    /// The defaults: partial chunks when more than 50 tokens remain, chunks joined
    /// by a blank line, `" …"` after a cut chunk, stop at the first chunk that does
    /// not fit, default [`TrimOptions`].
    pub fn new() -> Self {
        Self::default()
    }

    /// When the next chunk does not fit and *more than* `tokens` remain (after its
    /// separator), a cut of it is kept; otherwise it is left out. `usize::MAX`
    /// never cuts.
    #[must_use]
    pub fn with_min_partial(mut self, tokens: usize) -> Self {
        self.min_partial = tokens;
        self
    }

    /// The text between two chosen chunks (default `"\n\n"`). Its tokens count.
    #[must_use]
    pub fn with_separator(mut self, separator: impl Into<Cow<'static, str>>) -> Self {
        self.separator = separator.into();
        self
    }

    /// The text after a cut chunk (default `" …"`). Its tokens count.
    #[must_use]
    pub fn with_marker(mut self, marker: impl Into<Cow<'static, str>>) -> Self {
        self.marker = marker.into();
        self
    }

    /// With `false` (the default) selection stops at the first chunk that does not
    /// fit, after cutting it if enough remains. With `true` it
    /// skips that chunk and goes on looking for lower-scored chunks that fit whole;
    /// once every chunk has been seen, the best skipped chunk is cut to fill what
    /// remains, if more than the minimum does.
    #[must_use]
    pub fn with_keep_scanning(mut self, keep_scanning: bool) -> Self {
        self.keep_scanning = keep_scanning;
        self
    }

    /// How the partial chunk is cut (default [`TrimOptions::new`]). The chunk's
    /// beginning is always kept: [`Keep`] is set to [`Keep::Head`].
    #[must_use]
    pub fn with_trim_options(mut self, trim: TrimOptions) -> Self {
        self.trim = trim.keep(Keep::Head);
        self
    }

    /// The minimum for a partial chunk (see [`with_min_partial`](Self::with_min_partial)).
    pub fn min_partial(&self) -> usize {
        self.min_partial
    }

    /// The separator (see [`with_separator`](Self::with_separator)).
    pub fn separator(&self) -> &str {
        &self.separator
    }

    /// The cut marker (see [`with_marker`](Self::with_marker)).
    pub fn marker(&self) -> &str {
        &self.marker
    }

    /// Whether selection goes on past a chunk that does not fit (see
    /// [`with_keep_scanning`](Self::with_keep_scanning)).
    pub fn keep_scanning(&self) -> bool {
        self.keep_scanning
    }

    /// The options of the partial cut (see [`with_trim_options`](Self::with_trim_options)).
    pub fn trim_options(&self) -> &TrimOptions {
        &self.trim
    }
}
