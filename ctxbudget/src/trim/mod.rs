//! The boundary-aware trimming engine.
//!
//! [`trim_to_budget`] keeps the longest beginning of a text that fits a token
//! budget, cut at the strongest boundary that does not waste the budget;
//! [`trim_with`] takes [`TrimOptions`] and returns a [`Trimmed`] report.
//!
//! How it works, and why it is fast:
//! 1. **Fit.** The text is counted in chunks that end at the counter's split
//!    points, where counts add up exactly ([`TokenCounter::next_split`]), until the
//!    budget is spent. The cost follows what is kept: trimming a 10 MB document to
//!    1,000 tokens counts about 1,000 tokens. Stretches without split points (a
//!    very long word, CJK text without spaces, base64) are searched with a few
//!    extrapolating probes, each no longer than about twice what fits.
//! 2. **Choose the cut.** Of the boundaries that fit, take the last one of the
//!    strongest level — paragraph, line, sentence, word — that still keeps at
//!    least [`min_fill`](TrimOptions::with_min_fill) of what fits; else (with a
//!    hard limit) the last grapheme boundary, or, when even one grapheme is over
//!    the budget, a char boundary. So a long word after a short sentence (a base64
//!    blob, a URL, a rule of symbols) is cut inside rather than dropped with most
//!    of the budget. In soft mode a word boundary is taken whatever it keeps: no
//!    weaker cut can follow it.
//! 3. **Verify.** The kept text is counted exactly (from the nearest recorded split
//!    point, not from the start): byte-pair encodings do not add up over arbitrary
//!    pieces, so the count is checked, never assumed, and the cut moves back if it
//!    is over. Only this crate's counters are trusted to count from a split point;
//!    for any other counter, the check counts the whole kept text, and when its
//!    split points turn out not to add up, the fit starts again without them (see
//!    [`trim_with`] for what holds for a counter that breaks its contract).

mod boundary;
mod fit;
#[cfg(feature = "tiktoken")]
mod linear;

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::count::{TokenCounter, count_joined, exact_count_within};
use fit::{Fit, Ledger, Side, floor_char_boundary};

/// Rounds in which a cut that is over the budget steps back past one boundary,
/// before each further round gives up a quarter of what is left. A byte-pair
/// count needs a second round only rarely; a counter far from monotone then costs
/// a few dozen rounds at most, however long the text.
const STEP_BACK_ROUNDS: usize = 8;

/// [`Keep::HeadAndTail`]: rounds in which a joined text over the budget gives the
/// tail less by the excess, before the tail's budget is bisected. A byte-pair
/// count needs one.
const SHRINK_ROUNDS: usize = 8;

/// A kind of place where a text can be cut, strongest first.
///
/// The order is meaningful: `Paragraph < Line < Sentence < Word < Grapheme < Char`,
/// so `boundary <= Boundary::Sentence` asks "did the cut end a sentence or better?".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Boundary {
    /// Before a blank line.
    Paragraph,
    /// Before a line break: the level that suits code, lists and logs.
    Line,
    /// After a sentence terminator (`.`, `!`, `?`, `…`, CJK `。！？`, Arabic `؟`,
    /// Devanagari `।`, ...) and any closing quotes or brackets.
    Sentence,
    /// Between words: before whitespace, or between two characters of a script
    /// written without spaces (Chinese, Japanese).
    Word,
    /// Between two grapheme clusters (never inside an emoji sequence or between a
    /// letter and its combining marks). Used only with a hard limit.
    Grapheme,
    /// Between two characters: the last resort, when a single grapheme cluster is
    /// longer than the whole budget. Used only with a hard limit.
    Char,
}

impl Boundary {
    /// The boundaries a cut may use, strongest first.
    pub const ALL: [Boundary; 6] = [
        Boundary::Paragraph,
        Boundary::Line,
        Boundary::Sentence,
        Boundary::Word,
        Boundary::Grapheme,
        Boundary::Char,
    ];

    /// The boundary's name in lower case, e.g. `"sentence"`.
    pub fn name(self) -> &'static str {
        match self {
            Boundary::Paragraph => "paragraph",
            Boundary::Line => "line",
            Boundary::Sentence => "sentence",
            Boundary::Word => "word",
            Boundary::Grapheme => "grapheme",
            Boundary::Char => "char",
        }
    }

    /// Whether the minimum fill applies: a boundary is taken only when it does not
    /// waste the budget, as long as a weaker one can follow. Paragraph, line and
    /// sentence always; a word only with a hard limit, where a grapheme cut follows
    /// (in soft mode the word is the last resort).
    fn keeps_min_fill(self, hard_limit: bool) -> bool {
        self <= Boundary::Sentence || (self == Boundary::Word && hard_limit)
    }
}

impl fmt::Display for Boundary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which part of a text that is over budget is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Keep {
    /// The beginning (documents, instructions). The default.
    #[default]
    Head,
    /// The end (logs, chat histories, anything where the latest matters most).
    Tail,
    /// The beginning and the end, with the middle cut out and replaced by the
    /// [elision marker](TrimOptions::with_elision), whose tokens are counted.
    HeadAndTail,
}

/// How [`trim_with`] cuts a text: which end to keep, which boundaries to use and
/// how much budget a strong boundary may waste.
///
/// ```
/// use ctxbudget::{trim::Boundary, Keep, TrimOptions};
///
/// let options = TrimOptions::new()
///     .keep(Keep::Tail)
///     .with_min_fill(0.9)
///     .without(Boundary::Line);
/// assert_eq!(options.min_fill(), 0.9);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TrimOptions {
    hard_limit: bool,
    keep: Keep,
    min_fill: f64,
    disabled: Vec<Boundary>,
    elision: Cow<'static, str>,
}

impl Default for TrimOptions {
    fn default() -> Self {
        TrimOptions {
            hard_limit: true,
            keep: Keep::Head,
            min_fill: Self::DEFAULT_MIN_FILL,
            disabled: Vec::new(),
            elision: Cow::Borrowed(Self::DEFAULT_ELISION),
        }
    }
}

impl TrimOptions {
    /// The default [`min_fill`](Self::with_min_fill): a paragraph, line, sentence
    /// or word boundary is used when it keeps at least 80% of what fits.
    pub const DEFAULT_MIN_FILL: f64 = 0.8;

    /// The default [elision marker](Self::with_elision) of [`Keep::HeadAndTail`].
    pub const DEFAULT_ELISION: &'static str = "\n[…]\n";

    /// The defaults: hard limit, keep the head, minimum fill 0.8, every boundary.
    pub fn new() -> Self {
        Self::default()
    }

    /// With `true` (the default) the result always fits: when no word boundary
    /// keeps [`min_fill`](Self::with_min_fill) of what fits, the text is cut between
    /// graphemes (or characters). With `false` (soft mode) the last word boundary
    /// that fits is taken whatever it keeps, and when there is none the text is
    /// returned whole, over the budget, and the report says so
    /// ([`Trimmed::fits`] is `false`).
    #[must_use]
    pub fn with_hard_limit(mut self, hard_limit: bool) -> Self {
        self.hard_limit = hard_limit;
        self
    }

    /// Which part of the text to keep. See [`Keep`].
    #[must_use]
    pub fn keep(mut self, keep: Keep) -> Self {
        self.keep = keep;
        self
    }

    /// The least share of what fits that a paragraph, line, sentence or word cut
    /// must keep to be chosen over a weaker boundary nearer the limit (for a word,
    /// a grapheme cut; in soft mode, which has none, a word cut is taken whatever
    /// it keeps). `0.0` always takes the strongest boundary that fits (which can
    /// waste most of the budget: one short paragraph and then a long one keeps only
    /// the short one); `1.0` takes only a boundary that wastes nothing, and cuts
    /// between graphemes otherwise. Values outside `0.0..=1.0` are clamped; NaN
    /// means the default.
    ///
    /// Whatever the value, a larger budget never keeps less.
    #[must_use]
    pub fn with_min_fill(mut self, min_fill: f64) -> Self {
        self.min_fill = if min_fill.is_nan() {
            Self::DEFAULT_MIN_FILL
        } else {
            min_fill.clamp(0.0, 1.0)
        };
        self
    }

    /// Never cut at `boundary`. Disabling [`Boundary::Line`] leaves paragraph,
    /// sentence and word cuts, for prose whose line breaks mean nothing. Grapheme
    /// and char cuts cannot be disabled (they are the hard limit's last resort);
    /// asking to is ignored.
    #[must_use]
    pub fn without(mut self, boundary: Boundary) -> Self {
        if boundary < Boundary::Grapheme && !self.disabled.contains(&boundary) {
            self.disabled.push(boundary);
        }
        self
    }

    /// The text that stands for the cut middle in [`Keep::HeadAndTail`] mode
    /// (default `"\n[…]\n"`). Its tokens are part of the budget.
    #[must_use]
    pub fn with_elision(mut self, elision: impl Into<Cow<'static, str>>) -> Self {
        self.elision = elision.into();
        self
    }

    /// Whether the result must fit (see [`with_hard_limit`](Self::with_hard_limit)).
    pub fn hard_limit(&self) -> bool {
        self.hard_limit
    }

    /// The kept part (see [`keep`](Self::keep)).
    pub fn kept_part(&self) -> Keep {
        self.keep
    }

    /// The minimum fill (see [`with_min_fill`](Self::with_min_fill)).
    pub fn min_fill(&self) -> f64 {
        self.min_fill
    }

    /// The elision marker (see [`with_elision`](Self::with_elision)).
    pub fn elision(&self) -> &str {
        &self.elision
    }

    /// Whether cuts may use `boundary`.
    pub fn allows(&self, boundary: Boundary) -> bool {
        !self.disabled.contains(&boundary)
    }
}

/// What [`trim_with`] kept, and how.
///
/// `kept` is always a sub-slice of the input: trimming never rewrites text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trimmed<'a> {
    /// The kept text: a prefix of the input ([`Keep::Head`]), a suffix
    /// ([`Keep::Tail`]), or the kept beginning ([`Keep::HeadAndTail`]).
    pub kept: &'a str,
    /// Where `kept` lies in the input, in bytes.
    pub kept_range: Range<usize>,
    /// [`Keep::HeadAndTail`] only: the kept end of the input, when something of it
    /// was kept.
    pub tail: Option<&'a str>,
    /// The token count of the result, measured with the counter that trimmed it:
    /// `counter.count(&result.text())`, that is of `kept`, or in head-and-tail mode
    /// of `kept`, the marker and `tail` joined. This holds for any counter (see
    /// [`trim_with`]).
    pub tokens: usize,
    /// The boundary the cut used (the weaker of the two in head-and-tail mode), or
    /// `None` when nothing was cut.
    pub boundary: Option<Boundary>,
    /// Whether anything of the input was left out.
    pub cut: bool,
    /// The budget the text was trimmed to.
    pub budget: usize,
    elision: Option<Cow<'static, str>>,
}

impl<'a> Trimmed<'a> {
    /// The result as one text: `kept`, or in head-and-tail mode `kept`, the elision
    /// marker and `tail`.
    pub fn text(&self) -> Cow<'a, str> {
        match (self.tail, &self.elision) {
            (Some(tail), Some(elision)) => Cow::Owned([self.kept, elision.as_ref(), tail].concat()),
            (Some(tail), None) => Cow::Owned([self.kept, tail].concat()),
            (None, Some(elision)) if self.cut => Cow::Owned([self.kept, elision.as_ref()].concat()),
            (None, _) => Cow::Borrowed(self.kept),
        }
    }

    /// Whether the result fits its budget: always with a hard limit, unless nothing
    /// is kept and the counter charges more than the budget for `""`.
    pub fn fits(&self) -> bool {
        self.tokens <= self.budget
    }

    /// The share of the budget the result uses, from 0.0 to 1.0 (1.0 for a zero
    /// budget). Over 1.0 only in soft mode.
    #[allow(clippy::cast_precision_loss)]
    pub fn fill(&self) -> f64 {
        if self.budget == 0 {
            1.0
        } else {
            self.tokens as f64 / self.budget as f64
        }
    }
}

/// Cuts `text` down to at most `budget` tokens of `counter`, keeping its beginning
/// and ending at the strongest boundary that does not waste the budget.
///
/// The text comes back unchanged when it fits and as `""` for a budget of 0;
/// otherwise the result is a prefix of `text` (never rewritten), without trailing
/// whitespace, cut at a paragraph, line, sentence or word boundary that keeps at
/// least 80% of what fits, and as a last resort between graphemes (inside a word
/// that does not fit); its count is at most `budget`, checked with `counter`. A
/// text that is whitespace only up to where the budget runs out keeps nothing.
/// The cost follows the length of the result, not of `text`. For the other modes
/// and the full report, see [`trim_with`].
///
/// ```
/// use ctxbudget::{CharEstimate, trim_to_budget};
///
/// let text = "The first paragraph is short.\n\nThe second one goes on. And on. And on.";
/// // 15 tokens of chars/4: the first paragraph only wastes too much, so the cut
/// // takes the first sentence of the second paragraph as well.
/// assert_eq!(
///     trim_to_budget(text, 15, &CharEstimate),
///     "The first paragraph is short.\n\nThe second one goes on."
/// );
/// assert_eq!(trim_to_budget(text, 1000, &CharEstimate), text);
/// assert_eq!(trim_to_budget(text, 0, &CharEstimate), "");
/// ```
pub fn trim_to_budget<'a, C>(text: &'a str, budget: usize, counter: &C) -> &'a str
where
    C: TokenCounter + ?Sized,
{
    trim_with(text, budget, counter, &TrimOptions::default()).kept
}

/// Cuts `text` down to at most `budget` tokens of `counter` as `options` say, and
/// reports what was kept. See [`trim_to_budget`] for the behaviour with default
/// options.
///
/// Guarantees, for every `&str` and every budget, with a hard limit:
/// - `result.tokens == counter.count(result text) <= budget`;
/// - `kept` is a prefix ([`Keep::Head`]) or suffix ([`Keep::Tail`]) of `text`,
///   on a char boundary, and not on a grapheme boundary only when a single
///   grapheme is over the budget ([`Boundary::Char`]);
/// - whitespace at the cut is never kept, so a text that is whitespace only up to
///   where the budget runs out keeps nothing (`kept == ""`);
/// - trimming the result again to the same budget changes nothing, and a larger
///   budget never keeps less, except inside one stretch without split points:
///   there byte-pair counts are not monotone (in a run of one punctuation mark, 47
///   bytes may cost 15 `o200k_base` tokens and 45 bytes 16), the search finds a
///   longest part that fits among those it counts, and a larger budget can stop a
///   few tokens' worth short of what a smaller one kept.
///
/// # Counters that break their contract
///
/// A counter of your own may answer anything: split points out of range, off a
/// char boundary, behind the offset asked about or where counts do not add up,
/// counts that are not additive, not monotone or `usize::MAX`. Whatever it
/// answers (as long as it gives the same text the same count):
/// - `trim_with` does not panic, and every loop in it has a bound that does not
///   depend on the answers: the number of counts is at most proportional to the
///   length of `text`;
/// - `kept` is a prefix ([`Keep::Head`], [`Keep::HeadAndTail`]) or a suffix
///   ([`Keep::Tail`]) of `text`, and `tail` a suffix after it, on char boundaries;
/// - `result.tokens == counter.count(&result.text())`: the counter's own count,
///   never a sum of counts that was assumed to add up;
/// - with a hard limit, `result.tokens <= budget` whenever something is kept (and
///   so always when the counter counts `""` as 0).
///
/// What may not hold for such a counter: the result may be shorter than the
/// longest one that fits (a counter that is not monotone can make every longer
/// cut look over), trimming it again may cut more, and a larger budget may keep
/// less.
///
/// ```
/// use ctxbudget::{trim::Boundary, Keep, TrimOptions, trim_with};
///
/// let words = |text: &str| text.split_whitespace().count();
/// let log = "boot ok\nload config\nconnect db\nserve requests";
/// let result = trim_with(log, 4, &words, &TrimOptions::new().keep(Keep::Tail));
/// assert_eq!(result.kept, "connect db\nserve requests");
/// assert_eq!(result.tokens, 4);
/// assert_eq!(result.boundary, Some(Boundary::Line));
/// assert!(result.cut);
/// ```
pub fn trim_with<'a, C>(
    text: &'a str,
    budget: usize,
    counter: &C,
    options: &TrimOptions,
) -> Trimmed<'a>
where
    C: TokenCounter + ?Sized,
{
    match options.keep {
        Keep::Head => trim_side(text, budget, counter, options, Side::Head),
        Keep::Tail => trim_side(text, budget, counter, options, Side::Tail),
        Keep::HeadAndTail => trim_both(text, budget, counter, options),
    }
}

fn unchanged(text: &str, tokens: usize, budget: usize) -> Trimmed<'_> {
    Trimmed {
        kept: text,
        kept_range: 0..text.len(),
        tail: None,
        tokens,
        boundary: None,
        cut: false,
        budget,
        elision: None,
    }
}

fn trim_side<'a, C>(
    text: &'a str,
    budget: usize,
    counter: &C,
    options: &TrimOptions,
    side: Side,
) -> Trimmed<'a>
where
    C: TokenCounter + ?Sized,
{
    if budget == 0 && !text.is_empty() {
        return nothing_kept(text, counter, side, budget);
    }
    let mut ledger = Ledger::new(text, counter, side);
    let mut limit = match ledger.fit(budget) {
        Fit::Whole(tokens) => return unchanged(text, tokens, budget),
        Fit::Until(limit) => limit,
    };
    let len = text.len();
    let kept_len = |limit: usize| match side {
        Side::Head => limit,
        Side::Tail => len - limit,
    };
    // Byte-pair counts do not always shrink with the text: verify the chosen cut,
    // and when it is over, look again before it. Each round keeps less than the
    // one before, and a quarter less or more after `STEP_BACK_ROUNDS`. The one
    // exception is the round after a check finds that the split points do not add
    // up: the fit starts again without them, once. A byte-pair count almost never
    // takes a second round.
    let mut rounds = 0;
    loop {
        let Some((cut, boundary)) = choose_cut(text, side, limit, options) else {
            if !options.hard_limit {
                // Soft mode: no word boundary fits, keep the whole text.
                return unchanged(text, counter.count(text), budget);
            }
            return nothing_kept(text, counter, side, budget);
        };
        let tokens = ledger.count_kept(cut);
        if tokens <= budget {
            return kept_part(text, side, cut, tokens, boundary, budget);
        }
        if ledger.take_lie() && ledger.uses_split_points() {
            // The pieces' counts did not add up to the count of the kept part.
            ledger.forget_split_points();
            limit = match ledger.fit(budget) {
                Fit::Whole(tokens) => return unchanged(text, tokens, budget),
                Fit::Until(limit) => limit,
            };
            continue;
        }
        rounds += 1;
        let kept = kept_len(cut);
        let shorter = if rounds <= STEP_BACK_ROUNDS {
            kept.saturating_sub(1)
        } else {
            (kept - kept / 4).saturating_sub(1)
        };
        limit = match side {
            Side::Head => floor_char_boundary(text, shorter),
            Side::Tail => fit::ceil_char_boundary(text, len - shorter),
        };
    }
}

/// Not even the first grapheme (or word, in soft mode) fits.
fn nothing_kept<'a, C>(text: &'a str, counter: &C, side: Side, budget: usize) -> Trimmed<'a>
where
    C: TokenCounter + ?Sized,
{
    let at = match side {
        Side::Head => 0,
        Side::Tail => text.len(),
    };
    Trimmed {
        kept: &text[at..at],
        kept_range: at..at,
        tail: None,
        // 0 for any sensible counter, but the report is the counter's own count.
        tokens: counter.count(""),
        boundary: None,
        cut: true,
        budget,
        elision: None,
    }
}

fn kept_part(
    text: &str,
    side: Side,
    cut: usize,
    tokens: usize,
    boundary: Boundary,
    budget: usize,
) -> Trimmed<'_> {
    let kept_range = match side {
        Side::Head => 0..cut,
        Side::Tail => cut..text.len(),
    };
    Trimmed {
        kept: &text[kept_range.clone()],
        kept_range,
        tail: None,
        tokens,
        boundary: Some(boundary),
        cut: true,
        budget,
        elision: None,
    }
}

/// The cut for a text whose part up to (head) or from (tail) `limit` fits.
fn choose_cut(
    text: &str,
    side: Side,
    limit: usize,
    options: &TrimOptions,
) -> Option<(usize, Boundary)> {
    let len = text.len();
    let fits = match side {
        Side::Head => limit,
        Side::Tail => len - limit,
    };
    // A paragraph, line, sentence or (with a hard limit, when a grapheme cut can
    // follow) word cut must keep at least `min_fill` of what fits. The floor grows
    // with the limit, so a larger budget never keeps less.
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let least = ((fits as f64) * options.min_fill).ceil() as usize;
    let least = least.min(fits);
    for boundary in Boundary::ALL {
        if !options.allows(boundary) {
            continue;
        }
        if boundary >= Boundary::Grapheme && !options.hard_limit {
            return None;
        }
        let floor = match (boundary.keeps_min_fill(options.hard_limit), side) {
            (true, Side::Head) => least,
            (true, Side::Tail) => len - least,
            (false, Side::Head) => 0,
            (false, Side::Tail) => len,
        };
        if let Some(cut) = boundary::find_cut(text, side, boundary, limit, floor) {
            return Some((cut, boundary));
        }
    }
    None
}

/// [`Keep::HeadAndTail`]: half the budget (after the marker) for the beginning, the
/// rest and whatever the beginning left for the end.
fn trim_both<'a, C>(text: &'a str, budget: usize, counter: &C, options: &TrimOptions) -> Trimmed<'a>
where
    C: TokenCounter + ?Sized,
{
    if let Some(tokens) = exact_count_within(counter, text, budget) {
        return unchanged(text, tokens, budget);
    }
    let elision = options.elision.clone();
    let elision_tokens = counter.count(&elision);
    let head_options = options.clone().keep(Keep::Head);
    let Some(parts) = budget.checked_sub(elision_tokens) else {
        // Not even the marker fits: keep what the budget allows of the beginning.
        return trim_side(text, budget, counter, &head_options, Side::Head);
    };
    let head = trim_side(text, parts / 2, counter, &head_options, Side::Head);
    if !head.cut {
        // Soft mode: the first word is over, so the text comes back whole.
        return unchanged(text, head.tokens, budget);
    }
    let rest = &text[head.kept_range.end..];
    let tail_options = options.clone().keep(Keep::Tail);
    // The head, the marker and as much of the end as `tail_budget` allows. The
    // pieces were counted apart; the joined text is what the model sees.
    let join = |tail_budget: usize| {
        let tail = trim_side(rest, tail_budget, counter, &tail_options, Side::Tail);
        let mut result = Trimmed {
            kept: head.kept,
            kept_range: head.kept_range.clone(),
            tail: (!tail.kept.is_empty()).then_some(tail.kept),
            tokens: 0,
            boundary: head.boundary.max(tail.boundary),
            cut: true,
            budget,
            elision: Some(elision.clone()),
        };
        // The joined text is what the model sees: counted from the parts' counts
        // where counts add up near the junctions (`count_joined`), else whole.
        result.tokens = count_joined(
            counter,
            &[
                (head.kept, Some(head.tokens)),
                (&elision, None),
                (tail.kept, Some(tail.tokens)),
            ],
        );
        result
    };
    // Only the marker and the head are left, and they are over: drop the marker's
    // cost by keeping the head alone.
    let head_alone = || trim_side(text, budget, counter, &head_options, Side::Head);

    // When the joined text is over, give the tail less by the excess.
    let mut tail_budget = parts.saturating_sub(head.tokens);
    for _ in 0..SHRINK_ROUNDS {
        let result = join(tail_budget);
        if result.tokens <= budget {
            return result;
        }
        if tail_budget == 0 {
            return head_alone();
        }
        tail_budget = tail_budget.saturating_sub(result.tokens - budget);
    }
    // A count far from additive: bisect the tail's budget between nothing and
    // the one reached so far, in at most 65 rounds, and keep the largest that
    // fits (`high` is the least budget known to be too much).
    let (mut low, mut high) = (0, tail_budget.saturating_add(1));
    let mut best = None;
    while low < high {
        let middle = low + (high - low) / 2;
        let result = join(middle);
        if result.tokens <= budget {
            best = Some(result);
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    best.unwrap_or_else(head_alone)
}

/// Exact counts of the beginnings of a text, up to the longest one that fits a
/// budget, for this crate's counters: one walk like trimming's, then each beginning
/// is counted from the nearest split point the walk recorded. What
/// [`disclose_within`](crate::disclose_within) searches its cut with.
pub(crate) struct Prefixes<'t, C: TokenCounter + ?Sized> {
    ledger: Ledger<'t, C>,
    whole: Option<usize>,
    limit: usize,
}

impl<'t, C: TokenCounter + ?Sized> Prefixes<'t, C> {
    /// Walks `text` until `budget` tokens of `counter` are spent.
    pub(crate) fn new(text: &'t str, counter: &'t C, budget: usize) -> Self {
        let mut ledger = Ledger::new(text, counter, Side::Head);
        let (whole, limit) = match ledger.fit(budget) {
            Fit::Whole(tokens) => (Some(tokens), text.len()),
            Fit::Until(limit) => (None, limit),
        };
        Prefixes {
            ledger,
            whole,
            limit,
        }
    }

    /// The count of the whole text, when it fits the budget.
    pub(crate) fn whole(&self) -> Option<usize> {
        self.whole
    }

    /// Where the longest beginning that fits the budget ends: a longer one does not
    /// fit (byte-pair counts grow with the text, but for rare dips of a token or two
    /// inside one long piece).
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The exact count of `text[..end]` followed by `suffix`.
    pub(crate) fn count_with(&mut self, end: usize, suffix: &str) -> usize {
        let head = &self.ledger.text[..end];
        let tokens = self.ledger.count_kept(end);
        count_joined(self.ledger.counter, &[(head, Some(tokens)), (suffix, None)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::CharEstimate;

    #[test]
    fn fits_unchanged_and_zero_budget_is_empty() {
        let result = trim_with("hello", 5, &CharEstimate, &TrimOptions::new());
        assert_eq!(
            (result.kept, result.cut, result.tokens),
            ("hello", false, 2)
        );
        let result = trim_with("hello", 0, &CharEstimate, &TrimOptions::new());
        assert_eq!((result.kept, result.cut, result.tokens), ("", true, 0));
        assert!(!trim_with("", 0, &CharEstimate, &TrimOptions::new()).cut);
    }

    #[test]
    fn soft_mode_returns_the_whole_text_when_no_word_fits() {
        let text = "Supercalifragilisticexpialidocious indeed";
        let soft = TrimOptions::new().with_hard_limit(false);
        let result = trim_with(text, 2, &CharEstimate, &soft);
        assert_eq!(result.kept, text);
        assert!(!result.fits());
        let hard = trim_with(text, 2, &CharEstimate, &TrimOptions::new());
        assert_eq!(hard.kept, "Supercal");
        assert_eq!(hard.boundary, Some(Boundary::Grapheme));
    }

    #[test]
    fn min_fill_trades_strength_for_budget() {
        let text =
            "Short one.\n\nA much longer paragraph follows here and it goes on and on for a while";
        let strongest_first = TrimOptions::new().with_min_fill(0.0);
        let result = trim_with(text, 15, &CharEstimate, &strongest_first);
        assert_eq!(result.kept, "Short one.");
        assert_eq!(result.boundary, Some(Boundary::Paragraph));
        let result = trim_with(text, 15, &CharEstimate, &TrimOptions::new());
        assert_eq!(result.boundary, Some(Boundary::Word));
        assert!(result.tokens >= 13, "{result:?}");
    }

    #[test]
    fn head_and_tail_counts_the_marker() {
        let text = (0..50)
            .map(|i| format!("Line {i}."))
            .collect::<Vec<_>>()
            .join("\n");
        let options = TrimOptions::new().keep(Keep::HeadAndTail);
        let result = trim_with(&text, 20, &CharEstimate, &options);
        assert!(result.kept.starts_with("Line 0."));
        let tail = result.tail.expect("a tail");
        assert!(tail.ends_with("Line 49."));
        assert_eq!(result.tokens, CharEstimate.count(&result.text()));
        assert!(result.tokens <= 20);
        assert!(result.text().contains(TrimOptions::DEFAULT_ELISION));
    }
}
