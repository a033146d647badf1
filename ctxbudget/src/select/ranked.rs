//! What [`select`](super::select) chooses from: the [`RankedText`] trait, and the owned
//! [`RankedChunk`] and [`RankedChunks`].

use std::sync::Arc;

use super::options::SelectOptions;
use super::selection::{Selection, select};
use crate::count::TokenCounter;

/// A piece of text with a relevance score: what [`select`] chooses from.
///
/// Implemented for `(T, f64)` where `T: AsRef<str>` (so `(&str, f64)` and
/// `(String, f64)`), for [`RankedChunk`], and for references, boxes and `Arc`s of
/// any `RankedText`. Implement it for your own chunk type to select from a slice of
/// it without copying; or use [`select_by`](super::select_by) with a closure.
///
/// ```
/// use ctxbudget::{CharEstimate, select::RankedText, select::SelectOptions, select};
///
/// struct Hit {
///     body: String,
///     relevance: f32,
/// }
///
/// impl RankedText for Hit {
///     fn text(&self) -> &str {
///         &self.body
///     }
///     fn score(&self) -> f64 {
///         f64::from(self.relevance)
///     }
/// }
///
/// let hits = [
///     Hit { body: "less relevant".into(), relevance: 0.2 },
///     Hit { body: "most relevant".into(), relevance: 0.9 },
/// ];
/// let selection = select(&hits, 4, &CharEstimate, &SelectOptions::new());
/// assert_eq!(selection.text(), "most relevant");
/// ```
pub trait RankedText {
    /// The chunk's text.
    fn text(&self) -> &str;
    /// Its relevance: higher is better. NaN ranks last.
    fn score(&self) -> f64;
}

impl<T: AsRef<str>> RankedText for (T, f64) {
    fn text(&self) -> &str {
        self.0.as_ref()
    }
    fn score(&self) -> f64 {
        self.1
    }
}

impl<R: RankedText + ?Sized> RankedText for &R {
    fn text(&self) -> &str {
        (**self).text()
    }
    fn score(&self) -> f64 {
        (**self).score()
    }
}

impl<R: RankedText + ?Sized> RankedText for Box<R> {
    fn text(&self) -> &str {
        (**self).text()
    }
    fn score(&self) -> f64 {
        (**self).score()
    }
}

impl<R: RankedText + ?Sized> RankedText for Arc<R> {
    fn text(&self) -> &str {
        (**self).text()
    }
    fn score(&self) -> f64 {
        (**self).score()
    }
}

/// An owned chunk of text with its relevance score.
///
/// ```
/// use ctxbudget::{select::RankedChunk, select::RankedText};
///
/// let chunk = RankedChunk::new("Form 8843 must be filed.", 0.91);
/// assert_eq!((chunk.text(), chunk.score()), ("Form 8843 must be filed.", 0.91));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RankedChunk {
    /// The text.
    pub text: String,
    /// The relevance score: higher is better; NaN ranks last.
    pub score: f64,
}

impl RankedChunk {
    /// A chunk of `text` with `score`.
    pub fn new(text: impl Into<String>, score: f64) -> Self {
        Self {
            text: text.into(),
            score,
        }
    }
}

impl RankedText for RankedChunk {
    fn text(&self) -> &str {
        &self.text
    }
    fn score(&self) -> f64 {
        self.score
    }
}

/// Owned ranked chunks, in the order they were retrieved: a field for a prompt
/// struct whose layer is filled by [`select`](RankedChunks::select).
///
/// Build it with [`push`](RankedChunks::push), from a `Vec<RankedChunk>`, or by
/// collecting `(text, score)` pairs.
///
/// ```
/// use ctxbudget::{CharEstimate, select::RankedChunks, select::SelectOptions};
///
/// struct Prompt {
///     question: String,
///     context: RankedChunks,
/// }
///
/// let prompt = Prompt {
///     question: "Who files Form 8843?".into(),
///     context: [
///         ("Treaties may reduce withholding.", 0.65),
///         ("Form 8843 is filed by all nonresident aliens.", 0.91),
///     ]
///     .into_iter()
///     .collect(),
/// };
/// let selection = prompt.context.select(12, &CharEstimate, &SelectOptions::new());
/// assert_eq!(selection.text(), "Form 8843 is filed by all nonresident aliens.");
/// assert_eq!(selection.stats().dropped, 1);
/// # let _ = prompt.question;
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct RankedChunks {
    chunks: Vec<RankedChunk>,
}

impl RankedChunks {
    /// No chunks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a chunk of `text` with `score` at the end.
    pub fn push(&mut self, text: impl Into<String>, score: f64) {
        self.chunks.push(RankedChunk::new(text, score));
    }

    /// The chunks, in the order they were added.
    pub fn as_slice(&self) -> &[RankedChunk] {
        &self.chunks
    }

    /// The chunks, to change in place.
    pub fn as_mut_vec(&mut self) -> &mut Vec<RankedChunk> {
        &mut self.chunks
    }

    /// The number of chunks.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// Whether there are no chunks.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The chunks, in the order they were added.
    pub fn iter(&self) -> std::slice::Iter<'_, RankedChunk> {
        self.chunks.iter()
    }

    /// Selects the best chunks that fit `budget` tokens of `counter`, borrowing
    /// from `self`. See [`select`]; [`Chosen::index`](super::Chosen::index) is the position in
    /// [`as_slice`](Self::as_slice).
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, select::RankedChunks, select::SelectOptions};
    ///
    /// let mut chunks = RankedChunks::new();
    /// chunks.push("second best", 0.5);
    /// chunks.push("best", 0.9);
    /// let selection = chunks.select(100, &CharEstimate, &SelectOptions::new());
    /// assert_eq!(selection.text(), "best\n\nsecond best");
    /// assert!(selection.tokens <= 100);
    /// ```
    pub fn select<C>(&self, budget: usize, counter: &C, options: &SelectOptions) -> Selection<'_>
    where
        C: TokenCounter + ?Sized,
    {
        select(&self.chunks, budget, counter, options)
    }
}

impl From<Vec<RankedChunk>> for RankedChunks {
    fn from(chunks: Vec<RankedChunk>) -> Self {
        Self { chunks }
    }
}

impl From<RankedChunks> for Vec<RankedChunk> {
    fn from(chunks: RankedChunks) -> Self {
        chunks.chunks
    }
}

impl<S: Into<String>> FromIterator<(S, f64)> for RankedChunks {
    fn from_iter<I: IntoIterator<Item = (S, f64)>>(iter: I) -> Self {
        Self {
            chunks: iter
                .into_iter()
                .map(|(text, score)| RankedChunk::new(text, score))
                .collect(),
        }
    }
}

impl FromIterator<RankedChunk> for RankedChunks {
    fn from_iter<I: IntoIterator<Item = RankedChunk>>(iter: I) -> Self {
        Self {
            chunks: iter.into_iter().collect(),
        }
    }
}

impl Extend<RankedChunk> for RankedChunks {
    fn extend<I: IntoIterator<Item = RankedChunk>>(&mut self, iter: I) {
        self.chunks.extend(iter);
    }
}

impl<'a> IntoIterator for &'a RankedChunks {
    type Item = &'a RankedChunk;
    type IntoIter = std::slice::Iter<'a, RankedChunk>;
    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter()
    }
}

impl IntoIterator for RankedChunks {
    type Item = RankedChunk;
    type IntoIter = std::vec::IntoIter<RankedChunk>;
    fn into_iter(self) -> Self::IntoIter {
        self.chunks.into_iter()
    }
}
