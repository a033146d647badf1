//! Disclosure: cut Markdown at a section boundary and say how to read the rest.
//!
//! This follows the disclosure format of Harn's `std/context/disclosure`: the leading
//! lines that fit an estimated budget, backed up to a section boundary, and an
//! omission note such as `<truncated: showing 2 of 5 lines; full text: read
//! AGENTS.md>` that names how to get the rest. Two things go further:
//!
//! - [`disclose_within`] measures the cut text *and* its omission note with a real
//!   [`TokenCounter`], so the two together never exceed the budget.
//!   ([`truncate_at_section_boundary`] keeps the note's own cost outside the budget,
//!   as Harn's does, for callers who reserve room for the note themselves.)
//! - A cut text never ends on a heading: a heading whose section is cut away goes
//!   with it, and so does a run of headings (`# A` then `## B`).
//!
//! The definitions of a line and of a section boundary are on
//! [`truncate_at_section_boundary`].

use std::ops::Range;

use thiserror::Error;

use crate::count::{CharEstimate, TokenCounter};

/// The estimate the disclosure budget is measured in: `ceil(chars / 4)` tokens; an
/// absent or empty text costs 0.
///
/// [`CharEstimate::estimate`], taking an optional text as Harn's
/// `disclosure_token_estimate(text: string?)` does.
///
/// ```
/// use ctxbudget::disclosure::estimate;
///
/// assert_eq!(estimate(None), 0);
/// assert_eq!(estimate(""), 0);
/// assert_eq!(estimate("abcd"), 1);
/// assert_eq!(estimate(Some("abcde")), 2);
/// ```
pub fn estimate<'a>(text: impl Into<Option<&'a str>>) -> usize {
    text.into().map_or(0, CharEstimate::estimate)
}

/// The result of [`truncate_at_section_boundary`]: a prefix of the input and line
/// counts (see [`truncate_at_section_boundary`] for what a line is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Truncation<'a> {
    /// The kept text, a prefix of the input. Unless it is the whole input, it ends
    /// with the last kept line's content, without that line's `'\n'` or `"\r\n"`.
    pub rendered: &'a str,
    /// How many lines `rendered` holds.
    pub shown: usize,
    /// How many lines the input holds.
    pub total: usize,
    /// Whether lines were dropped (`shown < total`).
    pub truncated: bool,
}

/// The lines of `text` as defined on [`truncate_at_section_boundary`]: the byte range
/// of each line's content, without the `'\n'` or `"\r\n"` that ends it.
fn line_spans(text: &str) -> Vec<Range<usize>> {
    let mut start = 0;
    text.split_inclusive('\n')
        .map(|piece| {
            let line = piece
                .strip_suffix('\n')
                .map_or(piece, |line| line.strip_suffix('\r').unwrap_or(line));
            let span = start..start + line.len();
            start += piece.len();
            span
        })
        .collect()
}

/// The text of `text` up to the end of line `keep` (1-based count), without that
/// line's ending; `""` for `keep == 0`.
fn prefix_of_lines<'a>(text: &'a str, spans: &[Range<usize>], keep: usize) -> &'a str {
    match keep.checked_sub(1).and_then(|i| spans.get(i)) {
        Some(span) => &text[..span.end],
        None => "",
    }
}

/// Cuts `text` to an estimated budget of `budget_tokens`, preferring a section
/// boundary.
///
/// # Lines
///
/// The disclosure functions count *lines*: the pieces of the text between `'\n'`
/// characters. A final `'\n'` ends the last line and does not start a new, empty one,
/// so `"a\nb\n"` has two lines and `"a\n\nb"` has three (empty lines count). The empty
/// text has no lines. A `'\r'` right before a `'\n'` is part of the line ending, not of
/// the line, so text with `"\r\n"` endings is cut the same way and the kept text never
/// ends with a stray `'\r'`.
///
/// # Section boundaries
///
/// A *heading* is a line whose trimmed text starts with `#`, outside a triple-backtick
/// fence (a line whose trimmed text starts with ```` ``` ```` opens or closes a
/// fence). Headings with only blank lines between them form a *heading run*.
///
/// A line is a *boundary* when it is blank (empty after trimming whitespace) or a
/// heading, and it is not inside a fence. A blank line that follows a heading with
/// only blank lines in between is not a boundary: it belongs to that heading's section.
/// Cutting at a boundary line means keeping the lines *before* it, so a heading at the
/// cut is dropped together with its section; cutting at a heading inside a run cuts
/// before the whole run, so the parent heading of a dropped section goes too.
///
/// # The requested lines
///
/// The budget *requests* the largest number `k` of leading lines whose text — the
/// first `k` lines with the line endings between them, exactly as they would be
/// rendered — has an [`estimate`] of at most `budget_tokens`. Because the estimate of a
/// prefix never shrinks as the prefix grows, this is also the number of leading lines
/// whose cumulative estimate fits. A zero budget requests no lines.
///
/// # The cut
///
/// - Text whose whole estimate fits is returned unchanged (`truncated == false`).
/// - Otherwise the cut is [`heading_boundary_keep_count`]`(lines, k)`: it backs up to
///   the last section boundary at or before line `k` only when that keeps at least
///   half of the `k` requested lines; otherwise it keeps all `k`, even mid-list or
///   mid-code-block — unless those end on a heading: a cut text never ends on a
///   heading (its last non-blank line outside a fence is never one), so the cut then
///   backs up before the heading run, however little that keeps. When only headings
///   (and blank lines) fit, no line is kept.
///
/// The result always satisfies `estimate(rendered) <= budget_tokens`, and
/// `rendered` is a prefix of `text`. The omission note from [`disclosure_trailer`] is
/// *not* counted, as in Harn's `truncate_at_section_boundary`; use
/// [`disclose_within`] for a budget that covers both.
///
/// ```
/// use ctxbudget::disclosure::truncate_at_section_boundary;
///
/// let text = "# Intro\nShort intro.\n\n# Usage\nline one\nline two\nline three\n";
/// let cut = truncate_at_section_boundary(text, 10);
/// // 10 tokens request the first 5 lines; the cut backs up to before `# Usage`.
/// assert_eq!(cut.rendered, "# Intro\nShort intro.\n");
/// assert_eq!((cut.shown, cut.total, cut.truncated), (3, 7, true));
///
/// // Text that fits comes back unchanged.
/// assert_eq!(truncate_at_section_boundary(text, 100).rendered, text);
/// ```
pub fn truncate_at_section_boundary(text: &str, budget_tokens: usize) -> Truncation<'_> {
    let spans = line_spans(text);
    let total = spans.len();
    if estimate(text) <= budget_tokens {
        return Truncation {
            rendered: text,
            shown: total,
            truncated: false,
            total,
        };
    }
    let requested = if budget_tokens == 0 {
        0
    } else {
        requested_lines(text, &spans, budget_tokens)
    };
    let shown = heading_boundary_keep_count(&lines_of(text, &spans), requested);
    Truncation {
        rendered: prefix_of_lines(text, &spans, shown),
        shown,
        total,
        truncated: shown < total,
    }
}

fn lines_of<'a>(text: &'a str, spans: &[Range<usize>]) -> Vec<&'a str> {
    spans.iter().map(|span| &text[span.clone()]).collect()
}

/// The largest `k` with `estimate(first k lines) <= budget`, in one pass over the
/// characters.
fn requested_lines(text: &str, spans: &[Range<usize>], budget: usize) -> usize {
    // estimate(prefix) <= budget  <=>  chars(prefix) <= 4 * budget.
    let max_chars = budget.saturating_mul(4);
    let mut chars = 0usize;
    // The end of the prefix counted so far.
    let mut counted = 0;
    let mut fitting = 0;
    for (i, span) in spans.iter().enumerate() {
        // The previous line's ending, then this line.
        chars += text[counted..span.end].chars().count();
        if chars > max_chars {
            break;
        }
        fitting = i + 1;
        counted = span.end;
    }
    fitting
}

/// The number of leading `lines` to keep when `line_keep_count` are requested,
/// backing up to a section boundary when that is cheap.
///
/// `line_keep_count` is first clamped to `lines.len()`; if that keeps every line (or
/// none) it is returned as is. Otherwise:
///
/// 1. Each boundary line (see [`truncate_at_section_boundary`]) at an index in
///    `1..=line_keep_count` is a place to cut: before a blank line, or before the
///    first heading of a heading's run. Let `b` be the last of them that keeps at
///    least one line. A boundary at index `line_keep_count` (the first dropped line)
///    means the requested cut already sits on a boundary.
/// 2. The result is `b` when `2 * b >= line_keep_count` (at least half the requested
///    lines survive) and `line_keep_count` otherwise, including when there is no
///    boundary.
/// 3. If that result is `line_keep_count` and the kept lines end on a heading (their
///    last non-blank line outside a fence is one), the result is the index of the
///    first heading of that run instead, however little it keeps: 0 when the lines
///    up to the cut are only headings and blank lines.
///
/// So unless every line is kept, the kept lines never end on a heading.
///
/// ```
/// use ctxbudget::disclosure::heading_boundary_keep_count;
///
/// let lines = ["# A", "text", "", "# B", "", "body", "body", "body"];
/// // The blank line after `# B` does not count: the cut backs up to before `# B`.
/// assert_eq!(heading_boundary_keep_count(&lines, 6), 3);
/// // Backing up from 7 to 3 would keep less than half: keep 7.
/// assert_eq!(heading_boundary_keep_count(&lines, 7), 7);
/// // Clamped to the available lines.
/// assert_eq!(heading_boundary_keep_count(&lines, 100), 8);
///
/// // A section heading is never kept without its text, nor is its parent.
/// let lines = ["intro", "text", "more", "# A", "## B", "text"];
/// assert_eq!(heading_boundary_keep_count(&lines, 5), 3);
/// // Only headings fit: nothing is kept.
/// assert_eq!(heading_boundary_keep_count(&["# A", "## B", "text"], 2), 0);
/// ```
pub fn heading_boundary_keep_count<S: AsRef<str>>(lines: &[S], line_keep_count: usize) -> usize {
    let keep = line_keep_count.min(lines.len());
    if keep == 0 || keep == lines.len() {
        return keep;
    }
    let mut scan = HeadingScan::default();
    let mut last_boundary = None;
    for line in lines.iter().take(keep) {
        if let Some(b) = scan.cut_before(line.as_ref()).filter(|&b| b >= 1) {
            last_boundary = Some(b);
        }
    }
    // The run the kept lines end in, before the first dropped line is looked at.
    let ends_in = scan.run;
    if let Some(b) = scan.cut_before(lines[keep].as_ref()).filter(|&b| b >= 1) {
        last_boundary = Some(b);
    }
    match last_boundary {
        Some(b) if b.saturating_mul(2) >= keep => b,
        _ => ends_in.unwrap_or(keep),
    }
}

/// Walks lines in order, knowing fences and heading runs (see
/// [`truncate_at_section_boundary`]).
#[derive(Debug, Default)]
struct HeadingScan {
    /// The index of the next line.
    next: usize,
    in_fence: bool,
    /// The first line of the heading run the lines so far end in: set when the last
    /// non-blank line outside a fence is a heading.
    run: Option<usize>,
}

impl HeadingScan {
    /// Takes the next line; returns where to cut if that line is a boundary: before
    /// it (a blank line), or before the first heading of its run (a heading).
    fn cut_before(&mut self, line: &str) -> Option<usize> {
        let i = self.next;
        self.next += 1;
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            self.in_fence = !self.in_fence;
            self.run = None;
            return None;
        }
        if self.in_fence {
            return None;
        }
        if trimmed.is_empty() {
            // A blank line after a heading belongs to that heading's section.
            return if self.run.is_some() { None } else { Some(i) };
        }
        if trimmed.starts_with('#') {
            return Some(*self.run.get_or_insert(i));
        }
        self.run = None;
        None
    }
}

/// Whether `lines` end on a heading: their last non-blank line outside a fence is one.
fn ends_on_heading<S: AsRef<str>>(lines: &[S]) -> bool {
    let mut scan = HeadingScan::default();
    for line in lines {
        scan.cut_before(line.as_ref());
    }
    scan.run.is_some()
}

/// What can go wrong when building an omission note or disclosing within a budget.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DisclosureError {
    /// The recovery action was empty or whitespace: the note would not tell the
    /// reader how to get the omitted text.
    #[error(
        "the recovery action is blank: pass what the reader can do to see the full text, like `read AGENTS.md`"
    )]
    BlankRecovery,
    /// Even the omission note alone does not fit the budget.
    #[error(
        "the omission note alone costs {needed} tokens but the budget is {budget} ({over} over): \
         raise the budget to at least {needed} tokens or shorten the recovery action"
    )]
    BudgetTooSmall {
        /// Tokens the shortest possible output (no lines and the note) costs.
        needed: usize,
        /// The budget that was given.
        budget: usize,
        /// `needed - budget`.
        over: usize,
    },
}

/// The omission note: `""` when `shown >= total`, otherwise
/// `<truncated: showing {shown} of {total} {unit}; full text: {recovery}>`.
///
/// `unit` and `recovery` are trimmed; a blank `unit` becomes `items`. Pass the
/// recovery action alone: the note adds `full text:` itself.
///
/// # Errors
///
/// [`DisclosureError::BlankRecovery`] when `recovery` is empty or whitespace, even when
/// nothing was omitted.
///
/// ```
/// use ctxbudget::disclosure::disclosure_trailer;
///
/// assert_eq!(
///     disclosure_trailer(2, 5, "lines", "read AGENTS.md")?,
///     "<truncated: showing 2 of 5 lines; full text: read AGENTS.md>",
/// );
/// assert_eq!(disclosure_trailer(5, 5, "lines", "read AGENTS.md")?, "");
/// assert_eq!(
///     disclosure_trailer(1, 3, " ", "open the link")?,
///     "<truncated: showing 1 of 3 items; full text: open the link>",
/// );
/// assert!(disclosure_trailer(5, 5, "lines", "  ").is_err());
/// # Ok::<(), ctxbudget::disclosure::DisclosureError>(())
/// ```
pub fn disclosure_trailer(
    shown: usize,
    total: usize,
    unit: &str,
    recovery: &str,
) -> Result<String, DisclosureError> {
    let recovery = recovery.trim();
    if recovery.is_empty() {
        return Err(DisclosureError::BlankRecovery);
    }
    if shown >= total {
        return Ok(String::new());
    }
    let unit = match unit.trim() {
        "" => "items",
        unit => unit,
    };
    Ok(format!(
        "<truncated: showing {shown} of {total} {unit}; full text: {recovery}>"
    ))
}

/// The result of [`disclose_within`]: the kept prefix, its omission note and what the
/// two cost together.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Disclosed<'a> {
    /// The kept text, a prefix of the input (see [`Truncation::rendered`]).
    pub rendered: &'a str,
    /// The omission note, `""` when every line is shown.
    pub trailer: String,
    /// How many lines `rendered` holds.
    pub shown: usize,
    /// How many lines the input holds.
    pub total: usize,
    /// Whether lines were dropped (`shown < total`).
    pub truncated: bool,
    /// What [`text`](Disclosed::text) costs under the counter that was used.
    pub tokens: usize,
}

impl Disclosed<'_> {
    /// The text to send: `rendered`, then a `'\n'` and the trailer when there is one
    /// (just the trailer when no line is shown).
    pub fn text(&self) -> String {
        join(self.rendered, &self.trailer)
    }
}

fn join(rendered: &str, trailer: &str) -> String {
    match (rendered.is_empty(), trailer.is_empty()) {
        (_, true) => rendered.to_owned(),
        (true, false) => trailer.to_owned(),
        (false, false) => format!("{rendered}\n{trailer}"),
    }
}

/// Like [`truncate_at_section_boundary`] followed by [`disclosure_trailer`], but
/// measured with `counter`, and the kept text *plus its note* fit `budget_tokens`:
/// `counter.count(&result.text()) <= budget_tokens`, always.
///
/// The requested lines are the largest `k` for which the first `k` lines, a `'\n'`
/// and the note for `k` shown lines count at most `budget_tokens` (found by binary
/// search, assuming a longer text never costs less). The cut then backs up to a
/// section boundary exactly as in [`heading_boundary_keep_count`], so a cut text never
/// ends on a heading, and when only headings fit no line is shown. Each candidate is
/// checked with the counter before it is returned, so even a counter that breaks that
/// assumption cannot make the result exceed the budget (nor end on a heading: should
/// the backed-up cut not fit, no line is shown). Text whose whole count fits
/// is returned unchanged with an empty note; text that fits once its final line
/// ending is left off shows every line without that ending, with an empty note
/// (`truncated == false`: no line was omitted).
///
/// # Errors
///
/// - [`DisclosureError::BlankRecovery`] when `recovery` is blank.
/// - [`DisclosureError::BudgetTooSmall`] when not even the note alone (no lines
///   shown) fits; the error carries what it costs, the least budget that works.
///
/// ```
/// use ctxbudget::{disclose_within, TokenCounter};
///
/// let words = |t: &str| t.split_whitespace().count();
/// let text = "# Setup\nrun the installer\n\n# Usage\ncall it twice\nthen stop\nand wait a bit longer please\n";
/// let out = disclose_within(text, 16, &words, "lines", "read SETUP.md")?;
/// assert_eq!(out.rendered, "# Setup\nrun the installer\n");
/// assert_eq!(out.trailer, "<truncated: showing 3 of 7 lines; full text: read SETUP.md>");
/// assert!(words.count(&out.text()) <= 16);
/// # Ok::<(), ctxbudget::disclosure::DisclosureError>(())
/// ```
pub fn disclose_within<'a, C: TokenCounter + ?Sized>(
    text: &'a str,
    budget_tokens: usize,
    counter: &C,
    unit: &str,
    recovery: &str,
) -> Result<Disclosed<'a>, DisclosureError> {
    // Validates `recovery` even when everything fits.
    disclosure_trailer(0, 0, unit, recovery)?;
    let spans = line_spans(text);
    let total = spans.len();
    if crate::count::is_trusted(counter) {
        return disclose_by_prefixes(text, &spans, budget_tokens, counter, unit, recovery);
    }
    if let Some(tokens) = counter.count_within(text, budget_tokens) {
        return Ok(Disclosed {
            rendered: text,
            trailer: String::new(),
            shown: total,
            total,
            truncated: false,
            tokens,
        });
    }
    // The cost of showing `k` lines with the note for `k`, if it fits.
    let attempt = |k: usize| -> Result<Option<Disclosed<'a>>, DisclosureError> {
        let rendered = prefix_of_lines(text, &spans, k);
        let trailer = disclosure_trailer(k, total, unit, recovery)?;
        let joined = join(rendered, &trailer);
        Ok(counter
            .count_within(&joined, budget_tokens)
            .map(|tokens| Disclosed {
                rendered,
                trailer,
                shown: k,
                total,
                truncated: k < total,
                tokens,
            }))
    };
    // Every line, without the final line ending: no note is needed.
    if let Some(all) = attempt(total)? {
        return Ok(all);
    }
    let Some(nothing) = attempt(0)? else {
        let needed = counter.count(&join("", &disclosure_trailer(0, total, unit, recovery)?));
        return Err(DisclosureError::BudgetTooSmall {
            needed,
            budget: budget_tokens,
            over: needed.saturating_sub(budget_tokens),
        });
    };
    let mut best = nothing.clone();
    // Largest k in 0..total that fits (k == total was ruled out above).
    let (mut lo, mut hi) = (0usize, total.saturating_sub(1));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        match attempt(mid)? {
            Some(found) => {
                lo = mid;
                best = found;
            }
            None => hi = mid - 1,
        }
    }
    let lines = lines_of(text, &spans);
    let backed = heading_boundary_keep_count(&lines, best.shown);
    if backed != best.shown {
        match attempt(backed)? {
            Some(found) => best = found,
            // Only a counter that charges less for more text gets here: keep the
            // search's cut, unless it ends on a heading.
            None if lines.get(..best.shown).is_some_and(ends_on_heading) => best = nothing,
            None => {}
        }
    }
    Ok(best)
}

/// [`disclose_within`] for this crate's counters, whose split points add up: the
/// same result, found in one walk of the text up to what fits (see
/// [`Prefixes`](crate::trim::Prefixes)) instead of counting every candidate from
/// the start. A candidate that ends past the longest beginning that fits the budget
/// is not tried (it would not fit: the search's assumption that a longer text never
/// costs less), and the largest `k` that fits is found by galloping down from the
/// last line that ends within it, where the answer is (the note costs a line or
/// two), then bisecting.
fn disclose_by_prefixes<'a, C: TokenCounter + ?Sized>(
    text: &'a str,
    spans: &[Range<usize>],
    budget_tokens: usize,
    counter: &C,
    unit: &str,
    recovery: &str,
) -> Result<Disclosed<'a>, DisclosureError> {
    let total = spans.len();
    let mut prefixes = crate::trim::Prefixes::new(text, counter, budget_tokens);
    if let Some(tokens) = prefixes.whole() {
        return Ok(Disclosed {
            rendered: text,
            trailer: String::new(),
            shown: total,
            total,
            truncated: false,
            tokens,
        });
    }
    let limit = prefixes.limit();
    let mut attempt = |k: usize| -> Result<Option<Disclosed<'a>>, DisclosureError> {
        let rendered = prefix_of_lines(text, spans, k);
        if rendered.len() > limit {
            return Ok(None);
        }
        let trailer = disclosure_trailer(k, total, unit, recovery)?;
        let tokens = match (rendered.is_empty(), trailer.is_empty()) {
            (true, _) => counter.count(&trailer),
            (false, true) => prefixes.count_with(rendered.len(), ""),
            (false, false) => prefixes.count_with(rendered.len(), &format!("\n{trailer}")),
        };
        Ok((tokens <= budget_tokens).then_some(Disclosed {
            rendered,
            trailer,
            shown: k,
            total,
            truncated: k < total,
            tokens,
        }))
    };
    // Every line, without the final line ending: no note is needed.
    if let Some(all) = attempt(total)? {
        return Ok(all);
    }
    let Some(nothing) = attempt(0)? else {
        let needed = counter.count(&disclosure_trailer(0, total, unit, recovery)?);
        return Err(DisclosureError::BudgetTooSmall {
            needed,
            budget: budget_tokens,
            over: needed.saturating_sub(budget_tokens),
        });
    };
    // The largest k in 0..total that fits: none past the last line within `limit`.
    let within = spans
        .partition_point(|span| span.end <= limit)
        .min(total.saturating_sub(1));
    let mut best = nothing.clone();
    // Gallop down from `within` to a k that fits, then bisect the gap above it.
    let (mut lo, mut hi) = (0usize, within);
    let mut step = 1;
    let mut top = within;
    while top > 0 {
        if let Some(found) = attempt(top)? {
            lo = top;
            best = found;
            break;
        }
        hi = top - 1;
        top = top.saturating_sub(step);
        step = step.saturating_mul(2);
    }
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        match attempt(mid)? {
            Some(found) => {
                lo = mid;
                best = found;
            }
            None => hi = mid - 1,
        }
    }
    let lines = lines_of(text, spans);
    let backed = heading_boundary_keep_count(&lines, best.shown);
    if backed != best.shown {
        match attempt(backed)? {
            Some(found) => best = found,
            None if lines.get(..best.shown).is_some_and(ends_on_heading) => best = nothing,
            None => {}
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_follow_the_module_definition() {
        let lines = |text| lines_of(text, &line_spans(text));
        assert_eq!(line_spans(""), Vec::<Range<usize>>::new());
        assert_eq!(line_spans("a"), vec![0..1]);
        assert_eq!(line_spans("a\n"), vec![0..1]);
        assert_eq!(line_spans("a\n\nb"), vec![0..1, 2..2, 3..4]);
        assert_eq!(line_spans("\n"), vec![0..0]);
        assert_eq!(lines("a\n\nb"), vec!["a", "", "b"]);
        // `"\r\n"` ends a line like `'\n'`; a `'\r'` elsewhere is content.
        assert_eq!(lines("a\r\n\r\nb\r\n"), vec!["a", "", "b"]);
        assert_eq!(lines("a\rb\r"), vec!["a\rb\r"]);
    }

    #[test]
    fn requested_lines_counts_separators() {
        let text = "abcd\nefg\nhij";
        let spans = line_spans(text);
        // "abcd" = 4 chars (1 token), "abcd\nefg" = 8 chars (2 tokens).
        assert_eq!(requested_lines(text, &spans, 1), 1);
        assert_eq!(requested_lines(text, &spans, 2), 2);
        assert_eq!(requested_lines(text, &spans, 3), 3);
        // A `"\r\n"` ending costs its two characters: "ab\r\ncd" is 6 chars.
        let text = "ab\r\ncd\r\n";
        let spans = line_spans(text);
        assert_eq!(requested_lines(text, &spans, 1), 1);
        assert_eq!(requested_lines(text, &spans, 2), 2);
    }
}
