//! The selection itself: [`select`], [`select_by`] and their result.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::options::SelectOptions;
use super::ranked::RankedText;
use crate::count::{TokenCounter, is_trusted};
use crate::trim::{Boundary, trim_with};

/// One chunk [`select`] chose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chosen<'a> {
    /// Its position in the input slice.
    pub index: usize,
    /// The kept text: the whole chunk, or a prefix of it when it was cut (without the
    /// marker). Always a sub-slice of the input.
    pub text: &'a str,
    /// Its score.
    pub score: f64,
    /// What `text` alone costs (for a cut chunk, without the marker).
    pub tokens: usize,
    /// The boundary the cut ended at, or `None` when the chunk is whole.
    pub cut: Option<Boundary>,
}

impl Chosen<'_> {
    /// Whether only a part of the chunk was kept.
    pub fn is_cut(&self) -> bool {
        self.cut.is_some()
    }
}

/// Counts of a [`Selection`].
///
/// Every non-blank chunk was kept whole exactly when `dropped == blank && cut == 0`
/// ([`Selection::is_complete`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SelectStats {
    /// How many chunks were given.
    pub given: usize,
    /// How many were chosen, whole or cut.
    pub used: usize,
    /// How many were left out: `given - used`, the [`blank`](Self::blank) chunks
    /// included.
    pub dropped: usize,
    /// How many of the given chunks are blank (empty or only whitespace). They are
    /// never chosen, so they are all among the [`dropped`](Self::dropped).
    pub blank: usize,
    /// How many of the chosen were cut (0 or 1).
    pub cut: usize,
    /// What the joined text costs ([`Selection::tokens`]).
    pub tokens: usize,
    /// The budget.
    pub budget: usize,
}

/// What [`select`] chose: the chunks, borrowed from the input, and the exact cost of
/// their joined text.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection<'a> {
    /// The chosen chunks in the order they are joined: whole chunks by score, highest
    /// first, then the cut chunk, if any.
    pub chunks: Vec<Chosen<'a>>,
    /// The exact count of [`text`](Self::text), separators and marker included;
    /// never more than `budget`. 0 when nothing was chosen.
    pub tokens: usize,
    /// The budget the chunks were selected for.
    pub budget: usize,
    given: usize,
    blank: usize,
    separator: Cow<'static, str>,
    marker: Cow<'static, str>,
}

impl<'a> Selection<'a> {
    /// The chosen chunks joined by the separator, with the marker after a cut chunk:
    /// the text whose count is [`tokens`](Self::tokens). Borrowed when it is a single
    /// whole chunk.
    ///
    /// ```
    /// use ctxbudget::{select::SelectOptions, select};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let chunks = [("alpha beta", 1.0), ("gamma delta epsilon zeta eta", 0.5)];
    /// let options = SelectOptions::new().with_min_partial(1).with_separator(" | ");
    /// let selection = select(&chunks, 7, &words, &options);
    /// // 2 + 1 (separator) + 3 (cut) + 1 (marker) words.
    /// assert_eq!(selection.text(), "alpha beta | gamma delta epsilon …");
    /// assert_eq!(selection.tokens, 7);
    /// ```
    pub fn text(&self) -> Cow<'a, str> {
        match self.chunks.as_slice() {
            [] => Cow::Borrowed(""),
            [only] if only.cut.is_none() => Cow::Borrowed(only.text),
            chunks => Cow::Owned(join(chunks, &self.separator, &self.marker)),
        }
    }

    /// The counts: given, used, dropped, blank, cut, tokens and budget.
    pub fn stats(&self) -> SelectStats {
        SelectStats {
            given: self.given,
            used: self.chunks.len(),
            dropped: self.given.saturating_sub(self.chunks.len()),
            blank: self.blank,
            cut: self.chunks.iter().filter(|c| c.is_cut()).count(),
            tokens: self.tokens,
            budget: self.budget,
        }
    }

    /// The indices of the chunks left out, ascending, blank chunks included.
    pub fn dropped(&self) -> Vec<usize> {
        let mut chosen = vec![false; self.given];
        for chunk in &self.chunks {
            if let Some(slot) = chosen.get_mut(chunk.index) {
                *slot = true;
            }
        }
        (0..self.given).filter(|&i| !chosen[i]).collect()
    }

    /// Whether every chunk that has text was kept whole: nothing was cut, and the only
    /// chunks left out are blank (empty or only whitespace, never chosen). True for no
    /// chunks at all, or only blank ones.
    ///
    /// This is what a caller that must keep every chunk checks (the assemble layer's
    /// `policy = never`): `dropped > 0` alone also counts the blank chunks.
    ///
    /// ```
    /// use ctxbudget::{select::SelectOptions, select};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let chunks = [("alpha beta", 1.0), ("  ", 0.9), ("gamma", 0.5)];
    /// let all = select(&chunks, 3, &words, &SelectOptions::new());
    /// assert_eq!((all.stats().dropped, all.stats().blank), (1, 1));
    /// assert!(all.is_complete());
    /// // One word short: "gamma" is left out.
    /// assert!(!select(&chunks, 2, &words, &SelectOptions::new()).is_complete());
    /// ```
    pub fn is_complete(&self) -> bool {
        let stats = self.stats();
        stats.cut == 0 && stats.dropped == stats.blank
    }

    /// Whether nothing was chosen.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Whether the joined text fits the budget: always true.
    pub fn fits(&self) -> bool {
        self.tokens <= self.budget
    }
}

fn join(chunks: &[Chosen<'_>], separator: &str, marker: &str) -> String {
    let len = chunks.iter().map(|c| c.text.len()).sum::<usize>()
        + separator.len() * chunks.len().saturating_sub(1)
        + marker.len();
    let mut text = String::with_capacity(len);
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            text.push_str(separator);
        }
        text.push_str(chunk.text);
        if chunk.cut.is_some() {
            text.push_str(marker);
        }
    }
    text
}

/// Selects the best-scored `chunks` that fit `budget` tokens of `counter`, joined by
/// the separator, and cuts the next one to fill what remains.
///
/// Greedy by score, every count made with `counter`:
///
/// 1. Chunks are ranked by score, highest first. Equal scores keep their input order
///    (`-0.0` equals `0.0`); NaN ranks after everything, `-inf` included. Blank
///    chunks (empty or only whitespace) are never chosen: they are counted in
///    [`SelectStats::blank`], and [`Selection::is_complete`] says whether every other
///    chunk was kept whole.
/// 2. Each chunk is counted once (giving up early on a chunk far over what remains)
///    and taken whole while the sum of the counts of the chunks and separators fits.
/// 3. That sum is too high for byte-pair counts (a separator merges with the text
///    around it) and for a rounded estimate (each piece is rounded up): the pieces can
///    sum to more than the budget while their joined text fits. So when the sum says a
///    chunk does not fit, the joined text with the whole chunk after it is counted,
///    and the chunk is kept whole if that fits. For a counter with split points (see
///    [`TokenCounter::next_split`]; `Tiktoken` has them) the joined text so far is
///    counted once, and from then on each chunk is tested by counting from the last
///    split point of the chunk before it. Without split points the whole joined text is counted, at most 8 times per call; when
///    [scanning on](SelectOptions::with_keep_scanning), only for a chunk that alone
///    costs at most what remains plus a few tokens per join.
/// 4. At the first chunk that does not fit, if more than
///    [`min_partial`](SelectOptions::with_min_partial) tokens remain (by the count of
///    the joined text so far), its beginning is cut with the trimming engine
///    ([`trim_with`]) at a paragraph, line, sentence or word boundary, to fit together
///    with the [marker](SelectOptions::with_marker). Then selection stops, or with
///    [`keep_scanning`](SelectOptions::with_keep_scanning) goes on with smaller chunks
///    and cuts the best skipped one at the end.
/// 5. The joined text is counted once more; should it be over (a counter that
///    charges more for the join than for its pieces), the last chunk is shortened or
///    dropped until it fits.
///
/// The cost is counting each chosen chunk once, a bounded count of each chunk that
/// was tried and did not fit, one count of the result, and, once the sum says a chunk
/// does not fit, one more count of the joined text so far (with split points; up to
/// 8 without).
///
/// Guarantees, for every input, score and budget: `counter.count(&selection.text())
/// == selection.tokens <= budget` (for a counter that charges nothing for `""`),
/// every [`Chosen::text`] is a sub-slice of its chunk, and nothing panics. Without
/// scanning, a chunk is cut only when the joined text with that chunk whole would be
/// over the budget — unless the whole joined text was already counted 8 times, which
/// takes more than 8 chosen chunks.
///
/// ```
/// use ctxbudget::{CharEstimate, select::SelectOptions, select};
///
/// let chunks = [
///     ("Tax treaties may reduce withholding.", 0.65),
///     ("Form 8843 must be filed by all nonresident aliens.", 0.91),
///     ("F-1 students are exempt from FICA taxes. On-campus wages count.", 0.85),
/// ];
/// let options = SelectOptions::new().with_min_partial(5);
/// let selection = select(&chunks, 25, &CharEstimate, &options);
/// assert_eq!(
///     selection.text(),
///     "Form 8843 must be filed by all nonresident aliens.\n\nF-1 students are exempt from FICA taxes. …"
/// );
/// // 13 + 1 + 10 + 1 tokens counted apart; the joined text costs 24.
/// assert_eq!(selection.tokens, 24);
/// let stats = selection.stats();
/// assert_eq!((stats.given, stats.used, stats.dropped, stats.cut), (3, 2, 1, 1));
/// assert_eq!(selection.dropped(), [0]);
/// ```
pub fn select<'a, R, C>(
    chunks: &'a [R],
    budget: usize,
    counter: &C,
    options: &SelectOptions,
) -> Selection<'a>
where
    R: RankedText,
    C: TokenCounter + ?Sized,
{
    select_impl(
        chunks.len(),
        |i| (chunks[i].text(), chunks[i].score()),
        budget,
        counter,
        options,
    )
}

/// [`select`] for a slice of any type, with a closure that gives each item's text
/// and score.
///
/// ```
/// use ctxbudget::{CharEstimate, select::SelectOptions, select::select_by};
///
/// struct Doc {
///     id: u32,
///     body: String,
///     relevance: f64,
/// }
///
/// let docs = vec![
///     Doc { id: 7, body: "The cheaper answer.".into(), relevance: 0.4 },
///     Doc { id: 9, body: "The best answer.".into(), relevance: 0.8 },
/// ];
/// let selection = select_by(&docs, |d| (d.body.as_str(), d.relevance), 6, &CharEstimate, &SelectOptions::new());
/// let ids: Vec<u32> = selection.chunks.iter().map(|c| docs[c.index].id).collect();
/// assert_eq!(ids, [9]);
/// ```
pub fn select_by<'a, T, F, C>(
    items: &'a [T],
    key: F,
    budget: usize,
    counter: &C,
    options: &SelectOptions,
) -> Selection<'a>
where
    F: Fn(&'a T) -> (&'a str, f64),
    C: TokenCounter + ?Sized,
{
    select_impl(items.len(), |i| key(&items[i]), budget, counter, options)
}

/// Highest first; NaN last; `-0.0 == 0.0`; ties keep input order (stable sort).
fn by_score(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => b.partial_cmp(&a).unwrap_or(Ordering::Equal),
    }
}

/// How many times one call may count the whole joined text to test a chunk that
/// the sum of the pieces' counts says does not fit (see [`select`]).
const JOIN_CHECKS: usize = 8;

/// The chunks chosen so far, with the full text of each (to shorten a cut again).
struct Picks<'a> {
    chosen: Vec<Chosen<'a>>,
    sources: Vec<&'a str>,
    /// What the joined text costs: its exact count when `exact`, otherwise the last
    /// exact count plus the pieces (separators, chunks, marker) added since, an
    /// estimate that is too high for byte-pair counts.
    used: usize,
    /// Whether `used` is the counter's count of the joined text as it is now.
    exact: bool,
    /// How many chunks were added since `used` was last exact.
    estimated: usize,
    /// The last exact count: how many of the first chosen chunks it covers, and what
    /// their joined text costs. [`verify`] counts on from there.
    anchor: (usize, usize),
}

impl<'a> Picks<'a> {
    fn new() -> Self {
        // Nothing joined costs nothing (for a counter that charges nothing for "").
        Self {
            chosen: Vec::new(),
            sources: Vec::new(),
            used: 0,
            exact: true,
            estimated: 0,
            anchor: (0, 0),
        }
    }

    /// Records that `used` is the exact count of the chunks chosen so far.
    fn anchor_here(&mut self) {
        self.anchor = (self.chosen.len(), self.used);
    }

    /// Adds a chunk whose own cost (with its separator and marker) is `cost`. The
    /// first chunk alone is its own joined text, so its count stays exact when it
    /// has no marker.
    fn push(&mut self, chosen: Chosen<'a>, source: &'a str, cost: usize) {
        let alone = self.chosen.is_empty() && chosen.cut.is_none();
        self.used = self.used.saturating_add(cost);
        self.exact = self.exact && alone;
        if !self.exact {
            self.estimated = self.estimated.saturating_add(1);
        }
        self.chosen.push(chosen);
        self.sources.push(source);
        if self.exact {
            self.anchor_here();
        }
    }

    /// Adds a whole chunk after which the joined text was counted: `tokens`.
    fn push_counted(&mut self, chosen: Chosen<'a>, source: &'a str, tokens: usize) {
        self.chosen.push(chosen);
        self.sources.push(source);
        self.used = tokens;
        self.exact = true;
        self.estimated = 0;
        self.anchor_here();
    }

    /// The joined text, as [`Selection::text`] renders it.
    fn text(&self, options: &SelectOptions) -> String {
        join(&self.chosen, &options.separator, &options.marker)
    }

    /// The joined text followed by the separator and `next`.
    fn text_with(&self, next: &str, options: &SelectOptions) -> String {
        let mut text = self.text(options);
        if !self.chosen.is_empty() {
            text.push_str(&options.separator);
        }
        text.push_str(next);
        text
    }

    /// Replaces the estimate with the count of the joined text.
    fn recount<C: TokenCounter + ?Sized>(&mut self, counter: &C, options: &SelectOptions) {
        if !self.exact {
            self.used = counter.count(&self.text(options));
            self.exact = true;
            self.estimated = 0;
            self.anchor_here();
        }
    }

    /// The count of the joined text from the last exact count on, for a counter whose
    /// split points are trusted to add up (see [`crate::count::is_trusted`]): what the
    /// anchored chunks cost before the last split point of the last of them, plus one
    /// count of the rest. `None` when that is not possible (no anchor left, or no
    /// split point in the anchored chunk), and the whole text must be counted.
    fn count_from_anchor<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        options: &SelectOptions,
    ) -> Option<usize> {
        let (covered, tokens) = self.anchor;
        if covered == 0 || covered > self.chosen.len() || !is_trusted(counter) {
            return None;
        }
        if covered == self.chosen.len() {
            return Some(tokens);
        }
        let anchored = self.chosen[covered - 1];
        if anchored.cut.is_some() {
            return None;
        }
        let split = counter.prev_split(anchored.text, anchored.text.len())?;
        let tail = anchored
            .text
            .get(split..)
            .filter(|t| split > 0 && !t.is_empty())?;
        let head = tokens.checked_sub(counter.count(tail))?;
        let mut rest = String::from(tail);
        for chunk in &self.chosen[covered..] {
            rest.push_str(&options.separator);
            rest.push_str(chunk.text);
            if chunk.cut.is_some() {
                rest.push_str(&options.marker);
            }
        }
        Some(head.saturating_add(counter.count(&rest)))
    }

    /// The count of the joined text: for a counter whose split points add up, from
    /// each chunk's own count, counting again only around the separators and markers
    /// (see [`crate::count::count_joined`]); for any other, whole.
    fn count_joined<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        options: &SelectOptions,
    ) -> usize {
        let mut parts: Vec<(&str, Option<usize>)> = Vec::with_capacity(self.chosen.len() * 3);
        for (i, chunk) in self.chosen.iter().enumerate() {
            if i > 0 {
                parts.push((&options.separator, None));
            }
            parts.push((chunk.text, Some(chunk.tokens)));
            if chunk.cut.is_some() {
                parts.push((&options.marker, None));
            }
        }
        crate::count::count_joined(counter, &parts)
    }

    /// What one more chunk's separator costs.
    fn join_tokens(&self, separator_tokens: usize) -> usize {
        if self.chosen.is_empty() {
            0
        } else {
            separator_tokens
        }
    }
}

/// What remains for the next chunk after its separator, or `None` when not even the
/// separator fits.
fn room(budget: usize, picks: &Picks<'_>, separator_tokens: usize) -> Option<usize> {
    budget
        .checked_sub(picks.used)?
        .checked_sub(picks.join_tokens(separator_tokens))
}

/// The beginning of `text` that fits `room` tokens with the marker, or `None`.
fn cut<'a, C>(
    text: &'a str,
    room: usize,
    marker_tokens: usize,
    counter: &C,
    options: &SelectOptions,
) -> Option<(&'a str, usize, Boundary)>
where
    C: TokenCounter + ?Sized,
{
    let budget = room.checked_sub(marker_tokens)?;
    if budget == 0 {
        return None;
    }
    let trimmed = trim_with(text, budget, counter, &options.trim);
    // Soft mode (no hard limit) may hand the whole chunk back over the budget.
    if !trimmed.cut || !trimmed.fits() || trimmed.kept.trim().is_empty() {
        return None;
    }
    // A cut always has a boundary; a word cut, should it ever lack one.
    let boundary = trimmed.boundary.unwrap_or(Boundary::Word);
    Some((trimmed.kept, trimmed.tokens, boundary))
}

/// What a call to [`select_impl`] shares between its steps.
struct Selector<'c, 'o, C: ?Sized> {
    budget: usize,
    counter: &'c C,
    options: &'o SelectOptions,
    separator_tokens: usize,
    marker_tokens: usize,
    /// How many more times the whole joined text may be counted to test a chunk.
    full_counts: usize,
    /// Whether the joined text was counted to test a chunk: from then on, while its
    /// count is exact, chunks are tested by counting from its last split point.
    near_full: bool,
}

/// Whether a chunk fits whole, and how that was found.
enum Fit {
    /// By the sum of the pieces' counts; the chunk alone costs this much.
    Sum(usize),
    /// By the count of the joined text with the chunk, which is this much.
    Joined(usize),
    /// It does not fit.
    No,
}

impl<C: TokenCounter + ?Sized> Selector<'_, '_, C> {
    /// Whether `text` fits whole after the chunks chosen so far.
    ///
    /// Byte-pair counts of pieces add up to more than the count of their join (a
    /// separator merges with the text around it), and so does a rounded estimate, so
    /// the sum of the pieces' counts can be over the budget while the joined text is
    /// not. When the sum says no, the joined text with the chunk is counted instead.
    fn fits(&mut self, picks: &mut Picks<'_>, text: &str) -> Fit {
        if self.near_full && picks.exact {
            if let Some(fit) = self.count_from_split(picks, text) {
                return fit;
            }
        }
        let room = room(self.budget, picks, self.separator_tokens).unwrap_or(0);
        if room > 0 {
            if let Some(tokens) = self.counter.count_within(text, room) {
                return Fit::Sum(tokens);
            }
        }
        self.joined(picks, text, room).map_or(Fit::No, Fit::Joined)
    }

    /// The count of the joined text with `text` after it, if it fits the budget.
    ///
    /// With a split point in the last chosen chunk, the joined text so far is counted
    /// once (if its count is not exact already) and then only from that split point
    /// on. Without one, the whole joined text with `text` is counted, at most
    /// [`JOIN_CHECKS`] times per call; when scanning, only for a chunk that alone
    /// costs at most what remains plus a few tokens per estimated join (a chunk far
    /// over is not worth counting everything again for).
    fn joined(&mut self, picks: &mut Picks<'_>, text: &str, room: usize) -> Option<usize> {
        // With nothing chosen the joined text is the chunk, already counted.
        let last = picks.chosen.last()?.text;
        if self.tail(last).is_some() {
            if !picks.exact {
                self.full_counts = self.full_counts.checked_sub(1)?;
                picks.recount(self.counter, self.options);
            }
            self.near_full = true;
            return match self.count_from_split(picks, text) {
                Some(Fit::Joined(tokens)) => Some(tokens),
                _ => None,
            };
        }
        if self.options.keep_scanning {
            let per_join = self.separator_tokens.saturating_add(2);
            let slack = picks.estimated.saturating_add(1).saturating_mul(per_join);
            self.counter
                .count_within(text, room.saturating_add(slack))?;
        }
        self.full_counts = self.full_counts.checked_sub(1)?;
        self.counter
            .count_within(&picks.text_with(text, self.options), self.budget)
    }

    /// With the exact count of the joined text so far, whether it fits with `text`
    /// after it, counting only from the last split point of the last chosen chunk:
    /// [`Fit::Joined`] or [`Fit::No`], or `None` when there is no split point to count
    /// from.
    fn count_from_split(&self, picks: &Picks<'_>, text: &str) -> Option<Fit> {
        let tail = self.tail(picks.chosen.last()?.text)?;
        // Counts add up at a split point: the text before it costs this much.
        let head = picks.used.checked_sub(self.counter.count(tail))?;
        let Some(limit) = self.budget.checked_sub(head) else {
            return Some(Fit::No);
        };
        let separator = self.options.separator();
        let mut joined = String::with_capacity(tail.len() + separator.len() + text.len());
        joined.push_str(tail);
        joined.push_str(separator);
        joined.push_str(text);
        Some(
            self.counter
                .count_within(&joined, limit)
                .map_or(Fit::No, |rest| Fit::Joined(head.saturating_add(rest))),
        )
    }

    /// `last` from its last split point on (see [`TokenCounter::prev_split`]), if the
    /// counter knows one inside it.
    fn tail<'t>(&self, last: &'t str) -> Option<&'t str> {
        let split = self.counter.prev_split(last, last.len())?;
        last.get(split..)
            .filter(|tail| split > 0 && !tail.is_empty())
    }
}

fn select_impl<'a, G, C>(
    len: usize,
    get: G,
    budget: usize,
    counter: &C,
    options: &SelectOptions,
) -> Selection<'a>
where
    G: Fn(usize) -> (&'a str, f64),
    C: TokenCounter + ?Sized,
{
    let mut blank = 0;
    let mut order: Vec<(usize, f64)> = Vec::with_capacity(len);
    for i in 0..len {
        let (text, score) = get(i);
        if text.trim().is_empty() {
            blank += 1;
        } else {
            order.push((i, score));
        }
    }
    order.sort_by(|a, b| by_score(a.1, b.1));

    let mut selector = Selector {
        budget,
        counter,
        options,
        separator_tokens: counter.count(&options.separator),
        marker_tokens: counter.count(&options.marker),
        full_counts: JOIN_CHECKS,
        near_full: false,
    };
    let mut picks = Picks::new();
    // The best chunk that did not fit, with what remained for it then.
    let mut skipped: Option<(usize, f64)> = None;
    for &(index, score) in &order {
        let text = get(index).0;
        let chosen = |tokens| Chosen {
            index,
            text,
            score,
            tokens,
            cut: None,
        };
        match selector.fits(&mut picks, text) {
            Fit::Sum(tokens) => {
                let cost = picks
                    .join_tokens(selector.separator_tokens)
                    .saturating_add(tokens);
                picks.push(chosen(tokens), text, cost);
            }
            Fit::Joined(joined) => {
                picks.push_counted(chosen(counter.count(text)), text, joined);
            }
            Fit::No if options.keep_scanning => {
                skipped = skipped.or(Some((index, score)));
            }
            Fit::No => {
                skipped = Some((index, score));
                break;
            }
        }
    }
    if let Some((index, score)) = skipped {
        let text = get(index).0;
        // Cut to what really remains, not to what the pieces' sum leaves.
        picks.recount(counter, options);
        let room =
            room(budget, &picks, selector.separator_tokens).filter(|&r| r > options.min_partial);
        if let Some((kept, tokens, boundary)) =
            room.and_then(|room| cut(text, room, selector.marker_tokens, counter, options))
        {
            let chosen = Chosen {
                index,
                text: kept,
                score,
                tokens,
                cut: Some(boundary),
            };
            let cost = picks
                .join_tokens(selector.separator_tokens)
                .saturating_add(tokens)
                .saturating_add(selector.marker_tokens);
            picks.push(chosen, text, cost);
        }
    }
    let tokens = verify(&mut picks, budget, counter, options, selector.marker_tokens);
    Selection {
        chunks: picks.chosen,
        tokens,
        budget,
        given: len,
        blank,
        separator: options.separator.clone(),
        marker: options.marker.clone(),
    }
}

/// Counts the joined text and, while it is over `budget`, shortens a cut last chunk
/// (a few times at most) or drops the last chunk. Returns the final count.
fn verify<C>(
    picks: &mut Picks<'_>,
    budget: usize,
    counter: &C,
    options: &SelectOptions,
    marker_tokens: usize,
) -> usize
where
    C: TokenCounter + ?Sized,
{
    let mut shortened = 0;
    loop {
        let Some(last) = picks.chosen.last().copied() else {
            return 0;
        };
        // The reported count is always `counter.count` of the text, whatever
        // `count_within` said: counted whole, or, for a counter whose split points are
        // trusted to add up, from the last exact count on.
        let tokens = picks
            .count_from_anchor(counter, options)
            .unwrap_or_else(|| picks.count_joined(counter, options));
        if tokens <= budget {
            return tokens;
        }
        let over = tokens - budget;
        let source = picks.sources[picks.sources.len() - 1];
        picks.chosen.pop();
        picks.sources.pop();
        if last.cut.is_some() && shortened < 3 {
            shortened += 1;
            let room = last
                .tokens
                .saturating_add(marker_tokens)
                .saturating_sub(over);
            let shorter = cut(source, room, marker_tokens, counter, options)
                .filter(|(kept, _, _)| kept.len() < last.text.len());
            if let Some((kept, tokens, boundary)) = shorter {
                let shorter = Chosen {
                    text: kept,
                    tokens,
                    cut: Some(boundary),
                    ..last
                };
                picks.chosen.push(shorter);
                picks.sources.push(source);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::CharEstimate;
    use crate::trim::TrimOptions;

    #[test]
    fn order_is_descending_stable_with_nan_last() {
        let scores = [
            0.5,
            f64::NAN,
            1.0,
            -0.0,
            0.0,
            f64::NEG_INFINITY,
            1.0,
            f64::INFINITY,
        ];
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| by_score(scores[a], scores[b]));
        assert_eq!(order, [7, 2, 6, 0, 3, 4, 5, 1]);
    }

    #[test]
    fn verify_drops_the_last_chunk_when_the_join_costs_more() {
        // A counter that charges 5 extra tokens for every separator it sees.
        let counter = |t: &str| CharEstimate.count(t) + 5 * t.matches("\n\n").count();
        let chunks = [("aaaa", 1.0), ("bbbb", 0.5)];
        let options = SelectOptions::new().with_separator("\n\n");
        // Counted alone the separator is 1 token, so the estimate is 3: fits 3,
        // but the joined text costs 8.
        let selection = select(&chunks, 3, &counter, &options);
        assert_eq!(selection.text(), "aaaa");
        assert_eq!(selection.tokens, 1);
    }

    #[test]
    fn soft_trim_options_never_keep_a_chunk_over_budget() {
        let chunks = [("Supercalifragilisticexpialidocious indeed", 1.0)];
        let options = SelectOptions::new()
            .with_min_partial(0)
            .with_marker("")
            .with_trim_options(TrimOptions::new().with_hard_limit(false));
        let selection = select(&chunks, 3, &CharEstimate, &options);
        assert!(selection.is_empty(), "{selection:?}");
        let hard = select(
            &chunks,
            3,
            &CharEstimate,
            &options.with_trim_options(TrimOptions::new()),
        );
        assert_eq!(hard.text(), "Supercalifra");
    }

    #[test]
    fn verify_shortens_a_cut_chunk() {
        let counter = |t: &str| t.split_whitespace().count() + 3 * t.matches('|').count();
        let chunks = [("one two", 1.0), ("a b c d e f g h i j", 0.5)];
        let options = SelectOptions::new()
            .with_separator(" | ")
            .with_min_partial(0);
        let selection = select(&chunks, 10, &counter, &options);
        assert!(selection.tokens <= 10, "{selection:?}");
        assert_eq!(selection.tokens, counter.count(&selection.text()));
        assert!(selection.chunks.len() == 2 && selection.chunks[1].is_cut());
    }
}
