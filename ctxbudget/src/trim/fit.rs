//! Finding how much of a text fits a budget, counting each piece once.
//!
//! The text is walked in chunks that end at the counter's split points (see
//! [`TokenCounter::next_split`]), whose counts add up exactly, so the cost follows
//! what fits rather than what was given. Every chunk end is recorded in a
//! [`Ledger`], which later gives the exact count of any prefix (or suffix) by
//! counting only the stretch after the nearest recorded split point.
//!
//! Only this crate's counters are taken at their word. A split point from any
//! other counter is used only when it lies strictly inside the stretch asked
//! about and on a char boundary, sums saturate, and a count made of more than one
//! piece is checked with one count of the whole part. When that check finds that
//! the split points do not add up, the walk starts again without them.
//!
//! Inside a stretch without split points the search probes: counts of growing
//! parts. A `Tiktoken` answers from one encoding of the piece (`linear.rs`); a
//! `Claude` counter answers each probe from one tiling of the stretch, with the
//! counts the probes would get (so the same text is kept).

use crate::count::{TokenCounter, is_trusted};

/// Chunks are never shorter than this many bytes, so the per-call cost of a
/// counter stays small next to the work of counting.
const MIN_STEP: usize = 48;
/// Chunks are never longer than this many bytes, so overshooting the budget
/// costs at most this much extra counting.
const MAX_STEP: usize = 16 * 1024;
/// Bytes counted per token still missing when sizing the next chunk: a little
/// under the ~4 bytes per token of English, so most chunks fit.
const BYTES_PER_TOKEN_GUESS: usize = 3;
/// Counting one stretch costs at most this many probes when searching inside a
/// stretch that has no split point.
const MAX_PROBES: usize = 48;
/// Inside a stretch without split points, the search stops once the part that
/// fits is known to within 1/`SLACK_DIVISOR` of its length (and never closer
/// than one character): at most 0.2% of the kept text is given up to save the
/// last, costliest probes, and a part that meets the budget exactly is taken as
/// it is. Parts shorter than `SLACK_DIVISOR` bytes are exact.
const SLACK_DIVISOR: usize = 512;
/// A chunk that is over the budget is tried again shorter at most this many
/// times before its inner split points are walked one by one. Honest split points
/// never need more than about ten: the chunk halves each time, from at most
/// `2 * MAX_STEP` bytes down to `2 * MIN_STEP`.
const MAX_RETRIES: usize = 16;

/// Which end of the text is kept.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Side {
    /// Prefixes: offsets grow from 0.
    Head,
    /// Suffixes: offsets shrink from the end.
    Tail,
}

/// Exact counts of the text up to (head) or from (tail) recorded split points.
pub(crate) struct Ledger<'t, C: ?Sized> {
    pub(crate) text: &'t str,
    pub(crate) counter: &'t C,
    side: Side,
    /// `(offset, tokens)`: for the head, `tokens = count(text[..offset])` with
    /// offsets increasing from 0; for the tail, `tokens = count(text[offset..])`
    /// with offsets decreasing from `text.len()`. Every offset other than the
    /// first is a split point.
    marks: Vec<(usize, usize)>,
    /// The exact count of the kept part up to (or from) the offset where the walk
    /// stopped inside a stretch without split points, so that a cut there is not
    /// counted again.
    stopped_at: Option<(usize, usize)>,
    /// Whether the counter is one of this crate's, whose split points add up.
    trusted: bool,
    /// Whether the walk uses split points: not after a check found that they do
    /// not add up.
    splits: bool,
    /// Whether a check found that the split points do not add up.
    lied: bool,
    /// The linear engine of a `Tiktoken`, which searches a long piece without split
    /// points in one pass.
    #[cfg(feature = "tiktoken")]
    linear: Option<crate::count::Linear<'t>>,
    /// What the last search with the linear engine found, and (once the walk
    /// stopped in it) the count of the kept part before its anchor.
    #[cfg(feature = "tiktoken")]
    found: Option<(super::linear::Found, Option<usize>)>,
    /// The `Claude` counter this is, whose tiling counts the parts of a stretch
    /// that the search asks about.
    #[cfg(feature = "claude")]
    claude: Option<crate::count::Claude>,
    /// The parts of the last stretch searched with that tiling, where it starts
    /// and ends, and (once the walk stopped in it) the count of the kept part
    /// before it: the cut the boundary rules choose is counted from the tiling too.
    #[cfg(feature = "claude")]
    parts: Option<ClaudeParts<'t>>,
}

/// The parts of one stretch counted from a `Claude` counter's tiling.
#[cfg(feature = "claude")]
struct ClaudeParts<'t> {
    parts: crate::count::Parts<'t>,
    start: usize,
    end: usize,
    before: Option<usize>,
}

/// Where the walk stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// The whole text fits; its exact count.
    Whole(usize),
    /// The text does not fit. The offset is a char boundary such that the prefix
    /// (head) before it or the suffix (tail) after it fits.
    Until(usize),
}

impl<'t, C: TokenCounter + ?Sized> Ledger<'t, C> {
    pub(crate) fn new(text: &'t str, counter: &'t C, side: Side) -> Self {
        let origin = match side {
            Side::Head => 0,
            Side::Tail => text.len(),
        };
        Ledger {
            text,
            counter,
            side,
            marks: vec![(origin, 0)],
            stopped_at: None,
            trusted: is_trusted(counter),
            splits: true,
            lied: false,
            #[cfg(feature = "tiktoken")]
            linear: crate::count::linear_engine(counter),
            #[cfg(feature = "tiktoken")]
            found: None,
            #[cfg(feature = "claude")]
            claude: crate::count::claude_engine(counter).filter(|_| parts_enabled()),
            #[cfg(feature = "claude")]
            parts: None,
        }
    }

    /// The counter's count of the kept part that ends (head) or starts (tail) at
    /// `at`: from the nearest recorded split point for this crate's counters; for
    /// any other, such a sum is checked with one count of the whole part, which is
    /// the answer (a mismatch is remembered, see [`Self::take_lie`]).
    pub(crate) fn count_kept(&mut self, at: usize) -> usize {
        let (tokens, whole) = self.sum_to(at);
        if whole || self.trusted {
            return tokens;
        }
        let part = match self.side {
            Side::Head => &self.text[..at],
            Side::Tail => &self.text[at..],
        };
        let exact = self.counter.count(part);
        if exact != tokens {
            self.lied = true;
        }
        exact
    }

    /// The count of the kept part up to (head) or from (tail) `at` as a sum over
    /// the recorded pieces, and whether it is one count of the whole part.
    fn sum_to(&mut self, at: usize) -> (usize, bool) {
        if let Some((_, tokens)) = self.stopped_at.filter(|&(offset, _)| offset == at) {
            // The walk stopped inside the stretch after the last mark.
            return (tokens, self.marks.len() == 1);
        }
        #[cfg(feature = "claude")]
        if let Some(found) = &mut self.parts {
            // A part of the stretch the walk stopped in, from its tiling (not the
            // empty one: a text's count is not 0 where the empty text's is not).
            let length = match self.side {
                Side::Head => at.checked_sub(found.start),
                Side::Tail => found.end.checked_sub(at),
            }
            .filter(|&length| length > 0 && length <= found.end - found.start);
            if let (Some(before), Some(length)) = (found.before, length) {
                return (before.saturating_add(found.parts.count(length)), false);
            }
        }
        #[cfg(feature = "tiktoken")]
        if let (Some(linear), Some((found, Some(before)))) = (self.linear, &self.found) {
            // Another part that the search inside the last stretch counted.
            if let Some(tokens) = found.count(linear, self.text, self.side, at) {
                return (before.saturating_add(tokens), false);
            }
        }
        let index = match self.side {
            // Marks increase: the last one at or before `at`.
            Side::Head => self.marks.partition_point(|&(offset, _)| offset <= at),
            // Marks decrease: the last one at or after `at`.
            Side::Tail => self.marks.partition_point(|&(offset, _)| offset >= at),
        };
        let index = index.saturating_sub(1);
        let (offset, tokens) = self.marks[index];
        if offset == at {
            return (tokens, false);
        }
        let stretch = match self.side {
            Side::Head => &self.text[offset..at],
            Side::Tail => &self.text[at..offset],
        };
        let tokens = tokens.saturating_add(self.counter.count(stretch));
        (tokens, index == 0)
    }

    /// Whether a check found, since the last call, that the counter's split points
    /// do not add up.
    pub(crate) fn take_lie(&mut self) -> bool {
        std::mem::take(&mut self.lied)
    }

    /// Whether the walk still uses the counter's split points.
    pub(crate) fn uses_split_points(&self) -> bool {
        self.splits
    }

    /// Forgets everything recorded and walks without split points from now on:
    /// every count is then of a whole part from the kept end.
    pub(crate) fn forget_split_points(&mut self) {
        self.splits = false;
        self.marks.truncate(1);
        self.stopped_at = None;
        #[cfg(feature = "tiktoken")]
        {
            self.found = None;
        }
        #[cfg(feature = "claude")]
        {
            self.parts = None;
        }
    }

    /// Walks the text from its kept end and stops once `budget` is spent.
    ///
    /// For a counter that is not this crate's, a whole text counted in more than
    /// one piece is counted again whole. When that count differs from the sum and
    /// is over the budget, the walk starts again without split points.
    pub(crate) fn fit(&mut self, budget: usize) -> Fit {
        if self.text.is_empty() {
            return Fit::Whole(self.counter.count(""));
        }
        let fit = self.walk(budget);
        let Fit::Whole(sum) = fit else {
            return fit;
        };
        if self.trusted || self.marks.len() == 1 {
            return fit;
        }
        let whole = self.counter.count(self.text);
        if whole == sum || whole <= budget {
            return Fit::Whole(whole);
        }
        self.forget_split_points();
        self.walk(budget)
    }

    fn walk(&mut self, budget: usize) -> Fit {
        match self.side {
            Side::Head => self.fit_head(budget),
            Side::Tail => self.fit_tail(budget),
        }
    }

    fn fit_head(&mut self, budget: usize) -> Fit {
        let text = self.text;
        let len = text.len();
        let (mut pos, mut used) = (0, 0);
        let mut pace = Pace::default();
        // The length of a chunk that was over, to retry from the same place with a
        // shorter one, and how many times that happened.
        let mut over: Option<usize> = None;
        let mut retries = 0;
        // Every round either moves `pos` forward or retries with a shorter chunk,
        // at most `MAX_RETRIES` times in a row.
        while pos < len {
            let remaining = budget.saturating_sub(used);
            let step = pace.step(remaining, over);
            let mut end = self.next_chunk_end(pos, step);
            if end - pos > giant(step) {
                // No split point near: search from here, up to the end of the text
                // (the search keeps to the piece that starts here, and reads only
                // about what fits; finding where the stretch ends would read all of
                // it).
                end = len;
                let (fitted, tokens) = self.search(pos, end, remaining);
                if fitted < end && !(fitted > pos && tokens < remaining && self.is_split(fitted)) {
                    self.stop(fitted, used, tokens);
                    return Fit::Until(fitted);
                }
                // All of it fits, or the search stopped at a split point (the end of
                // a piece that fits whole) with budget to spare: walk on from there.
                end = fitted;
                used += tokens;
            } else {
                let tokens = match self.count_chunk(pos, end, remaining) {
                    Ok(tokens) => tokens,
                    Err((split, tokens, until)) => {
                        return self.stop_between(split, until, used + tokens, budget);
                    }
                };
                if used.saturating_add(tokens) > budget {
                    let span = end - pos;
                    if span <= 2 * MIN_STEP
                        || over.is_some_and(|last| span >= last)
                        || retries >= MAX_RETRIES
                    {
                        return self.refine_head(pos, end, used, budget);
                    }
                    over = Some(span);
                    retries += 1;
                    continue;
                }
                pace.record(end - pos, tokens);
                used += tokens;
            }
            over = None;
            retries = 0;
            pos = end;
            if pos < len {
                self.marks.push((pos, used));
            }
        }
        Fit::Whole(used)
    }

    fn fit_tail(&mut self, budget: usize) -> Fit {
        let text = self.text;
        let (mut pos, mut used) = (text.len(), 0);
        let mut pace = Pace::default();
        let mut over: Option<usize> = None;
        let mut retries = 0;
        while pos > 0 {
            let remaining = budget.saturating_sub(used);
            let step = pace.step(remaining, over);
            let mut start = self.prev_chunk_start(pos, step);
            if pos - start > giant(step) {
                start = 0;
                let (fitted, tokens) = self.search(start, pos, remaining);
                if fitted > start && !(fitted < pos && tokens < remaining && self.is_split(fitted))
                {
                    self.stop(fitted, used, tokens);
                    return Fit::Until(fitted);
                }
                start = fitted;
                used += tokens;
            } else {
                let tokens = match self.count_chunk(start, pos, remaining) {
                    Ok(tokens) => tokens,
                    Err((split, tokens, until)) => {
                        return self.stop_between(split, until, used + tokens, budget);
                    }
                };
                if used.saturating_add(tokens) > budget {
                    let span = pos - start;
                    if span <= 2 * MIN_STEP
                        || over.is_some_and(|last| span >= last)
                        || retries >= MAX_RETRIES
                    {
                        return self.refine_tail(start, pos, used, budget);
                    }
                    over = Some(span);
                    retries += 1;
                    continue;
                }
                pace.record(pos - start, tokens);
                used += tokens;
            }
            over = None;
            retries = 0;
            pos = start;
            if pos > 0 {
                self.marks.push((pos, used));
            }
        }
        Fit::Whole(used)
    }

    /// Whether `at` is a split point, asked about the characters around it only.
    fn is_split(&self, at: usize) -> bool {
        let lower = floor_char_boundary(self.text, at.saturating_sub(8));
        self.split_in(lower, at, at.saturating_add(8)) == Some(at)
    }

    /// The first split point in `from..to`, asking the counter about that stretch
    /// only (split points are local, see [`TokenCounter::next_split`]). `lower` is
    /// a char boundary at or before `from` where the stretch may start. An answer
    /// outside `from..to` or off a char boundary counts as none.
    fn split_in(&self, lower: usize, from: usize, to: usize) -> Option<usize> {
        let to = floor_char_boundary(self.text, to);
        if from >= to || !self.splits {
            return None;
        }
        let text = self.text;
        self.counter
            .next_split(&text[lower..to], from - lower)
            .and_then(|at| lower.checked_add(at))
            .filter(|&at| at >= from && at < to && text.is_char_boundary(at))
    }

    /// The last split point in `from..before` (exclusive at both ends), asking the
    /// counter about that stretch only. `from` must be a char boundary. An answer
    /// outside the stretch or off a char boundary counts as none.
    fn split_back_in(&self, from: usize, before: usize) -> Option<usize> {
        let before = floor_char_boundary(self.text, before);
        if before <= from || !self.splits {
            return None;
        }
        let text = self.text;
        self.counter
            .prev_split(&text[from..before], before - from)
            .and_then(|at| from.checked_add(at))
            .filter(|&at| at > from && at < before && text.is_char_boundary(at))
    }

    /// The end of the next chunk: the first split point at or after `pos + step`
    /// when one is near, else the last one before it, else the end of the stretch
    /// without split points (which the caller searches instead of counting).
    fn next_chunk_end(&self, pos: usize, step: usize) -> usize {
        let len = self.text.len();
        let target = pos.saturating_add(step);
        if target >= len {
            return len;
        }
        if let Some(at) = self.split_in(pos, target, target.saturating_add(step + 1)) {
            return at;
        }
        if let Some(at) = self.split_back_in(pos, target) {
            return at;
        }
        // No split point within a step either side: the stretch is long, and is
        // searched, not counted. Hand the search a bound it will not need to pass,
        // without scanning up to it for split points (a search keeps to one piece,
        // and the caller looks for the real end only if all of it fits, and walks
        // on when the search stops at a split point with budget to spare).
        floor_char_boundary(self.text, pos.saturating_add(2 * giant(step)))
    }

    /// The mirror of [`Self::next_chunk_end`] for the tail.
    fn prev_chunk_start(&self, pos: usize, step: usize) -> usize {
        let Some(target) = pos.checked_sub(step).filter(|&target| target > 0) else {
            return 0;
        };
        let target = floor_char_boundary(self.text, target);
        let lower = floor_char_boundary(self.text, target.saturating_sub(step));
        if let Some(at) = self.split_back_in(lower, target + 1) {
            return at;
        }
        if let Some(at) = self.split_in(lower, target, pos) {
            return at;
        }
        ceil_char_boundary(self.text, pos.saturating_sub(2 * giant(step)))
    }

    /// The count of the chunk `[start, end)` (whose ends are split points or ends
    /// of the text), or, when it is over `remaining` and the counter has a linear
    /// engine, `Err((split, tokens, until))`: the part from the kept end of the chunk
    /// to the split point `split` costs `tokens`, within `remaining`, and what takes
    /// it over lies between `split` and `until` (see [`PieceWalk`]). The engine
    /// counts the chunk piece by piece and stops where it goes over, so a chunk
    /// that is over costs no more than what fits.
    ///
    /// [`PieceWalk`]: crate::count::PieceWalk
    #[cfg_attr(
        not(feature = "tiktoken"),
        allow(unused_variables, clippy::unnecessary_wraps)
    )]
    fn count_chunk(
        &self,
        start: usize,
        end: usize,
        remaining: usize,
    ) -> Result<usize, (usize, usize, usize)> {
        let chunk = &self.text[start..end];
        #[cfg(feature = "tiktoken")]
        if let Some(linear) = self
            .linear
            .and_then(crate::count::Linear::walker)
            .filter(|_| self.splits)
        {
            use crate::count::PieceWalk;
            let walk = match self.side {
                Side::Head => linear.walk_head(chunk, remaining),
                Side::Tail => linear.walk_tail(chunk, remaining),
            };
            return match walk {
                PieceWalk::Fits(tokens) => Ok(tokens),
                PieceWalk::Over {
                    split,
                    tokens,
                    until,
                } => Err((start + split, tokens, start + until)),
            };
        }
        Ok(self.counter.count(chunk))
    }

    /// The kept part reaches the split point `split` at `used` tokens, and what
    /// takes it over the budget lies between `split` and `until`: search there.
    fn stop_between(&mut self, split: usize, until: usize, used: usize, budget: usize) -> Fit {
        let origin = self.marks.last().map_or(split, |&(offset, _)| offset);
        if split != origin {
            self.marks.push((split, used));
        }
        let (start, end) = match self.side {
            Side::Head => (split, until),
            Side::Tail => (until, split),
        };
        let (fitted, tokens) = self.search(start, end, budget.saturating_sub(used));
        self.stop(fitted, used, tokens);
        Fit::Until(fitted)
    }

    /// The chunk `[start, end)` does not fit: walk its inner split points.
    fn refine_head(&mut self, start: usize, end: usize, mut used: usize, budget: usize) -> Fit {
        let text = self.text;
        let mut pos = start;
        loop {
            let next = self.split_in(pos, pos + 1, end).unwrap_or(end);
            let tokens = self.counter.count(&text[pos..next]);
            if used.saturating_add(tokens) > budget {
                let (fitted, tokens) = self.search(pos, next, budget.saturating_sub(used));
                self.stop(fitted, used, tokens);
                return Fit::Until(fitted);
            }
            used += tokens;
            pos = next;
            if pos == end {
                // Only a counter whose split points do not add up gets here.
                return Fit::Until(pos);
            }
            self.marks.push((pos, used));
        }
    }

    /// The mirror of [`Self::refine_head`] for the tail.
    fn refine_tail(&mut self, start: usize, end: usize, mut used: usize, budget: usize) -> Fit {
        let text = self.text;
        let mut pos = end;
        loop {
            let next = self.split_back_in(start, pos).unwrap_or(start);
            let tokens = self.counter.count(&text[next..pos]);
            if used.saturating_add(tokens) > budget {
                let (fitted, tokens) = self.search(next, pos, budget.saturating_sub(used));
                self.stop(fitted, used, tokens);
                return Fit::Until(fitted);
            }
            used += tokens;
            pos = next;
            if pos == start {
                return Fit::Until(pos);
            }
            self.marks.push((pos, used));
        }
    }

    /// Inside `[start, end)`, the longest part at the kept side whose count is at
    /// most `limit`: returns its far offset and its count. `start` (head) or
    /// `end` (tail) must be a split point or an end of the text.
    ///
    /// Counts of growing parts are nearly linear, so the search extrapolates and
    /// interpolates from the counts it has, and bisects when that stalls: a few
    /// probes, each no longer than about twice what fits.
    fn search(&mut self, start: usize, end: usize, limit: usize) -> (usize, usize) {
        #[cfg(feature = "tiktoken")]
        if let Some(linear) = self
            .linear
            .filter(|_| end - start >= super::linear::LONG_PIECE)
        {
            self.found = super::linear::search(linear, self.text, self.side, start, end, limit)
                .map(|found| (found, None));
            if let Some((found, _)) = &self.found {
                return (found.at, found.tokens);
            }
        }
        #[cfg(feature = "claude")]
        if let Some(claude) = self.claude {
            // A `Claude` counter tiles the stretch once and counts each part the
            // probes ask about from that tiling, with the same counts.
            let mut parts = claude.parts(&self.text[start..end], self.side == Side::Head);
            let found = self.probe_by(start, end, limit, |length| parts.count(length));
            self.parts = Some(ClaudeParts {
                parts,
                start,
                end,
                before: None,
            });
            return found;
        }
        self.probe(start, end, limit)
    }

    /// The walk stopped at `fitted`, inside the stretch after the last mark, which
    /// `used` tokens reach; the part up to (head) or from (tail) `fitted` costs
    /// `tokens` more.
    fn stop(&mut self, fitted: usize, used: usize, tokens: usize) {
        self.stopped_at = Some((fitted, used + tokens));
        #[cfg(feature = "claude")]
        if let Some(found) = &mut self.parts {
            if (found.start..=found.end).contains(&fitted) {
                found.before = Some(used);
            }
        }
        #[cfg(feature = "tiktoken")]
        if let Some((found, before)) = &mut self.found {
            if found.at == fitted {
                *before = Some(used);
            }
        }
    }

    /// [`Self::search`] by counting probes, for any counter.
    fn probe(&self, start: usize, end: usize, limit: usize) -> (usize, usize) {
        let text = self.text;
        let side = self.side;
        self.probe_by(start, end, limit, |length| match side {
            Side::Head => self.counter.count(&text[start..start + length]),
            Side::Tail => self.counter.count(&text[end - length..end]),
        })
    }

    /// [`Self::probe`] with `count(length)` the count of the part of `length`
    /// bytes at the kept side of the stretch.
    fn probe_by(
        &self,
        start: usize,
        end: usize,
        limit: usize,
        mut count: impl FnMut(usize) -> usize,
    ) -> (usize, usize) {
        let text = self.text;
        let span = end - start;
        let side = self.side;
        // A length measured from the kept side, snapped to a char boundary.
        let snap = |length: usize| -> usize {
            match side {
                Side::Head => floor_char_boundary(text, start + length.min(span)) - start,
                Side::Tail => end - ceil_char_boundary(text, end - length.min(span)),
            }
        };
        let far = |length: usize| match side {
            Side::Head => start + length,
            Side::Tail => end - length,
        };

        let (mut low, mut low_tokens) = (0usize, 0usize);
        let mut high: Option<(usize, usize)> = None;
        let mut guess = limit
            .saturating_mul(BYTES_PER_TOKEN_GUESS)
            .saturating_add(8);
        for round in 0..MAX_PROBES {
            if limit == 0 || low_tokens == limit && low >= SLACK_DIVISOR {
                // In a long stretch, a part that meets the budget exactly is at most
                // one token short of the longest one: not worth more full probes.
                break;
            }
            let ceiling = high.map_or(span, |(length, _)| length);
            let mut length = snap(guess.clamp(low + 1, ceiling));
            if length <= low {
                // The guess snapped back into the part known to fit: step to the
                // next char boundary instead.
                length = snap(next_char_len(text, side, start, end, low));
            }
            if length <= low || length >= ceiling && high.is_some() {
                break;
            }
            let tokens = count(length);
            if tokens <= limit {
                (low, low_tokens) = (length, tokens);
                if length == span {
                    break;
                }
            } else {
                high = Some((length, tokens));
            }
            guess = match high {
                None => {
                    // Extrapolate from the density so far, aiming a little past
                    // the budget so that the next probe brackets it.
                    let target = low.saturating_mul(limit) / low_tokens.max(1);
                    target
                        .saturating_add(target / 16)
                        .max(low.saturating_mul(2))
                }
                Some((high_length, high_tokens)) => {
                    let gap = high_length - low;
                    if gap <= 1 || gap <= low / SLACK_DIVISOR {
                        break;
                    }
                    if round % 3 == 2 || low_tokens == limit {
                        // Bisect: every third round, so that a count far from
                        // linear still converges, and once the budget is met,
                        // to find the longest part that still meets it.
                        low + gap / 2
                    } else {
                        // Interpolate, kept away from both ends of the bracket.
                        let wanted = (limit - low_tokens) as u128;
                        let rise = (high_tokens - low_tokens).max(1) as u128;
                        let offset = (gap as u128 * wanted / rise) as usize;
                        low + offset.clamp(gap / 16 + 1, gap - gap / 16 - 1)
                    }
                }
            };
        }
        (far(low), low_tokens)
    }
}

#[cfg(all(feature = "claude", test))]
thread_local! {
    /// Off: searches count every part, as for any counter (the tests compare).
    pub(crate) static PARTS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether searches may count parts from a `Claude` counter's tiling.
#[cfg(feature = "claude")]
fn parts_enabled() -> bool {
    #[cfg(test)]
    {
        PARTS.with(std::cell::Cell::get)
    }
    #[cfg(not(test))]
    {
        true
    }
}

/// How many bytes a token has taken so far, to size the next chunk.
#[derive(Default)]
struct Pace {
    bytes: usize,
    tokens: usize,
}

impl Pace {
    fn record(&mut self, bytes: usize, tokens: usize) {
        self.bytes = self.bytes.saturating_add(bytes);
        self.tokens = self.tokens.saturating_add(tokens);
    }

    /// The chunk length for `remaining` tokens: seven eighths of what they took
    /// so far (before anything was counted, half the budget at a guess of a little
    /// under 4 bytes per token), and under half of a chunk that was just over.
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    fn step(&self, remaining: usize, over: Option<usize>) -> usize {
        let step = if self.tokens == 0 {
            // Nothing counted yet: aim at half the budget, so that dense text (base64
            // has under 1.5 bytes per token) is not overshot by much.
            remaining.saturating_mul(BYTES_PER_TOKEN_GUESS) / 2
        } else {
            let per_token = self.bytes as f64 / self.tokens as f64;
            (remaining as f64 * per_token * 0.875) as usize
        };
        let step = step.clamp(MIN_STEP, MAX_STEP);
        match over {
            Some(last) => step.min(last / 2).max(1),
            None => step,
        }
    }
}

/// Beyond this many bytes, a stretch without split points is searched, not counted.
fn giant(step: usize) -> usize {
    step.saturating_mul(4).saturating_add(1024)
}

/// The length, measured from the kept side, one character beyond `length`.
fn next_char_len(text: &str, side: Side, start: usize, end: usize, length: usize) -> usize {
    match side {
        Side::Head => text[start + length..end]
            .chars()
            .next()
            .map_or(length, |c| length + c.len_utf8()),
        Side::Tail => text[start..end - length]
            .chars()
            .next_back()
            .map_or(length, |c| length + c.len_utf8()),
    }
}

/// The largest char boundary of `text` at or before `index`.
pub(crate) fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    let mut index = index;
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The smallest char boundary of `text` at or after `index`.
pub(crate) fn ceil_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index;
    while index < text.len() && !text.is_char_boundary(index) {
        index += 1;
    }
    index.min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::CharEstimate;

    #[test]
    fn search_finds_the_longest_fitting_part_without_split_points() {
        let text = "x".repeat(10_000);
        let counter = CharEstimate;
        for limit in [0, 1, 7, 100, 2_499, 2_500, 3_000] {
            let mut ledger = Ledger::new(&text, &counter, Side::Head);
            let (end, tokens) = ledger.search(0, text.len(), limit);
            let expected = (limit * 4).min(text.len());
            // Exact below SLACK_DIVISOR bytes, within 1/SLACK_DIVISOR above.
            let slack = expected / SLACK_DIVISOR;
            assert!(
                end <= expected && end + slack >= expected,
                "limit {limit}: {end}"
            );
            assert_eq!(tokens, end.div_ceil(4));
            let mut ledger = Ledger::new(&text, &counter, Side::Tail);
            let (start, _) = ledger.search(0, text.len(), limit);
            let kept = text.len() - start;
            assert!(
                kept <= expected && kept + slack >= expected,
                "tail, limit {limit}: {kept}"
            );
        }
    }

    #[test]
    fn search_never_splits_a_char() {
        let text = "é".repeat(1_000);
        let mut ledger = Ledger::new(&text, &CharEstimate, Side::Head);
        let (end, tokens) = ledger.search(0, text.len(), 3);
        assert_eq!((end, tokens), (24, 3));
    }

    #[test]
    fn ledger_counts_prefixes_from_marks() {
        let words = |text: &str| text.split_whitespace().count();
        let text = "a b c d e f g h";
        let mut ledger = Ledger::new(text, &words, Side::Head);
        assert_eq!(ledger.fit(100), Fit::Whole(8));
        for end in (0..=text.len()).filter(|&end| text.is_char_boundary(end)) {
            assert_eq!(ledger.count_kept(end), words(&text[..end]));
        }
    }
}

/// The searches of a `Claude` counter count parts from its tiling: they keep
/// exactly what the searches that count every part keep.
#[cfg(all(test, feature = "claude"))]
mod claude_parts {
    use crate::count::{Claude, ClaudeGeneration};
    use crate::{Keep, TrimOptions, trim_with};

    use super::PARTS;

    /// What trimming keeps of `text` with the tiling's counts and without them.
    fn both(text: &str, budget: usize, counter: Claude, keep: Keep) -> [(String, usize); 2] {
        let options = TrimOptions::new().keep(keep);
        [true, false].map(|on| {
            PARTS.with(|parts| parts.set(on));
            let trimmed = trim_with(text, budget, &counter, &options);
            PARTS.with(|parts| parts.set(true));
            (trimmed.kept.to_owned(), trimmed.tokens)
        })
    }

    fn assert_same(text: &str, budgets: &[usize]) {
        for generation in ClaudeGeneration::ALL {
            let counter = Claude::new(generation);
            for &budget in budgets {
                for keep in [Keep::Head, Keep::Tail] {
                    let [fast, probes] = both(text, budget, counter, keep);
                    assert_eq!(
                        fast.1,
                        probes.1,
                        "{generation} {keep:?} budget {budget} of {:?}",
                        text.chars().take(30).collect::<String>()
                    );
                    assert!(
                        fast.0 == probes.0,
                        "{generation} {keep:?} budget {budget}: {} bytes kept, not {}",
                        fast.0.len(),
                        probes.0.len()
                    );
                }
            }
        }
    }

    /// Pseudo-random text over `alphabet`.
    fn noise(alphabet: &[char], len: usize) -> String {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[usize::try_from(state % alphabet.len() as u64).unwrap_or(0)]
            })
            .collect()
    }

    #[test]
    fn worst_shapes_keep_what_the_probes_keep() {
        let base64: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
            .chars()
            .collect();
        let emoji = [
            "👨\u{200d}👩\u{200d}👧",
            "🏽",
            "🇯🇵",
            "❤\u{fe0f}",
            "👋🏾",
            "🏳\u{fe0f}\u{200d}🌈",
            "😀",
        ];
        let mut emoji_text = String::new();
        for (index, &at) in noise(&['0', '1', '2', '3', '4', '5', '6'], 3000)
            .as_bytes()
            .iter()
            .enumerate()
        {
            emoji_text.push_str(emoji[usize::from(at - b'0')]);
            if index % 997 == 996 {
                emoji_text.push('x');
            }
        }
        let texts = [
            "a".repeat(40_000),
            format!(" {}", "q".repeat(20_000)),
            emoji_text,
            noise(&base64, 20_000),
            noise(&base64[..62], 20_000),
        ];
        for text in &texts {
            assert_same(text, &[1, 7, 50, 512, 2_000]);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// Any text, long runs of anything the stream treats apart, and many
        /// budgets, in every generation, head and tail.
        #[test]
        fn any_text_keeps_what_the_probes_keep(
            any in "\\PC{0,200}",
            unit in "[a-zA-Z0-9ÀéΣİẞ \t\n\r\0.,;'’!?+/_\u{a0}日本。あ한\u{301}\u{fe0f}\u{200d}😀👍🏽-]{1,12}",
            repeat in 1usize..300,
            budgets in proptest::collection::vec(1usize..400, 3),
        ) {
            let text = format!("{any}{}{any}", unit.repeat(repeat));
            assert_same(&text, &budgets);
        }
    }
}
