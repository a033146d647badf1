//! Normalised text -> the marked stream the vocabulary tiles: runs of one class,
//! word markers on words and on what borders a space, case markers on capitalised
//! and all-capital words, and the single space between two marked runs written by
//! the markers themselves (the seam).

use super::normalize::{
    Class, classify, digit_border, digit_run, hard_kind, is_selector, is_stray_mark,
    marks_like_punct,
};
use super::unicode::{is_lower, is_upper, lowers_to_itself, new_cased, props, push_lower};
use super::vocab::{BOW, CAPS, EOW, SHIFT, Symbol};

/// What a generation's stream depends on.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules {
    /// The shortest all-capital word that takes the capitals marker (`None`: never).
    pub(super) allcaps_min: Option<usize>,
    /// Whether the message frame ends in a word start that stands for one leading
    /// space.
    pub(super) frame_bow: bool,
}

/// The English contraction suffixes an apostrophe binds to the word before it.
const CONTRACTIONS: [&[char]; 7] = [
    &['s'],
    &['t'],
    &['d'],
    &['m'],
    &['l', 'l'],
    &['r', 'e'],
    &['v', 'e'],
];

#[derive(Debug, Clone, Copy)]
struct Run {
    class: Class,
    start: usize,
    end: usize,
}

/// `norm` cut into maximal runs of one class, hard runs cut again where the kind of
/// character changes.
fn runs(norm: &[char]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    let Some(&first) = norm.first() else {
        return out;
    };
    let mut class = classify(first);
    if class == Class::Wordy && is_stray_mark(first) {
        class = Class::Stray;
    }
    let mut start = 0;
    for (at, &c) in norm.iter().enumerate().skip(1) {
        let next = classify(c);
        if class == Class::Stray && next == Class::Wordy && is_stray_mark(c) {
            continue;
        }
        if next == class {
            continue;
        }
        out.push(Run {
            class,
            start,
            end: at,
        });
        start = at;
        class = if next == Class::Wordy && is_stray_mark(c) && class != Class::Wordy {
            Class::Stray
        } else {
            next
        };
    }
    out.push(Run {
        class,
        start,
        end: norm.len(),
    });

    let mut split = Vec::with_capacity(out.len());
    for run in out {
        if run.class != Class::Hard || run.end - run.start == 1 {
            split.push(run);
            continue;
        }
        let mut start = run.start;
        let mut kind = hard_kind(norm[start]);
        for (at, &c) in norm.iter().enumerate().take(run.end).skip(run.start + 1) {
            if is_selector(c) {
                continue;
            }
            let next = hard_kind(c);
            if next != kind {
                split.push(Run {
                    class: Class::Hard,
                    start,
                    end: at,
                });
                start = at;
                kind = next;
            }
        }
        split.push(Run {
            class: Class::Hard,
            start,
            end: run.end,
        });
    }
    split
}

/// Whether a hard run's first character takes a left border marker.
fn hard_bow(body: &[char]) -> bool {
    body.first()
        .is_some_and(|&c| is_selector(c) || marks_like_punct(c))
}

/// Whether a hard run's last character takes a right border marker.
fn hard_eow(body: &[char]) -> bool {
    body.last()
        .is_some_and(|&c| is_selector(c) || marks_like_punct(c))
}

fn digit_bow(body: &[char]) -> bool {
    digit_run(body) && body.first().is_some_and(|&c| digit_border(c))
}

fn digit_eow(body: &[char]) -> bool {
    digit_run(body) && body.last().is_some_and(|&c| digit_border(c))
}

/// The case marker a word takes (capitalised or all capitals), with its lowered
/// body written to `lowered`; `None` when the word stays as it is written.
fn mark_case(
    span: &[char],
    allcaps_min: Option<usize>,
    head_mark: bool,
    lowered: &mut Vec<char>,
) -> Option<Symbol> {
    lowered.clear();
    let &first = span.first()?;
    if head_mark || span.contains(&'\u{1E9E}') {
        return None;
    }
    if span.contains(&'\u{130}') {
        let tail = &span[1..];
        if is_upper(first)
            && first != '\u{130}'
            && !tail.iter().any(|&c| c != '\u{130}' && is_upper(c))
        {
            push_lower(first, lowered);
            for &c in tail {
                if c == '\u{130}' {
                    lowered.push(c);
                } else {
                    push_lower(c, lowered);
                }
            }
            return Some(SHIFT);
        }
        return None;
    }
    if let Some(min) = allcaps_min {
        let unlowerable = span.iter().any(|&c| {
            (new_cased(c) || matches!(props(c).major(), b'L' | b'M'))
                && !is_lower(c)
                && (!is_upper(c) || lowers_to_itself(c))
        });
        let mut cased = span
            .iter()
            .filter(|&&c| is_upper(c) || is_lower(c))
            .peekable();
        let all_upper = cased.peek().is_some() && cased.all(|&c| is_upper(c));
        if all_upper && span.len() >= min && !unlowerable {
            for &c in span {
                push_lower(c, lowered);
            }
            for c in lowered.iter_mut() {
                if *c == 'ς' {
                    *c = 'σ';
                }
            }
            return Some(CAPS);
        }
    }
    if lowers_to_itself(first) {
        return None;
    }
    if is_upper(first) && !span[1..].iter().any(|&c| is_upper(c)) {
        for &c in span {
            push_lower(c, lowered);
        }
        return Some(SHIFT);
    }
    None
}

/// The runs of a text, and the questions about their neighbours that decide their
/// markers.
struct Marking<'a> {
    norm: &'a [char],
    runs: &'a [Run],
    /// Stands for the first run: a text that begins inside it.
    first: Option<Run>,
    /// Stands for the last run: a text that ends inside it.
    last: Option<Run>,
    rules: Rules,
}

impl Marking<'_> {
    fn body(&self, run: &Run) -> &[char] {
        &self.norm[run.start..run.end]
    }

    /// Run `at`, with [`first`](Self::first) and [`last`](Self::last) in place.
    fn run(&self, at: usize) -> Option<Run> {
        match (at, self.first, self.last) {
            (0, Some(first), _) => Some(first),
            (_, _, Some(last)) if at + 1 == self.runs.len() => Some(last),
            _ => self.runs.get(at).copied(),
        }
    }

    /// Run `at` is a lone `'` that opens the word after it.
    fn opens_word(&self, at: usize) -> bool {
        self.run(at).is_some_and(|run| self.body(&run) == ['\''])
            && self
                .run(at + 1)
                .is_some_and(|next| matches!(next.class, Class::Wordy | Class::Stray))
    }

    /// Whether the left (or right) side of run `at` touches a space: the message
    /// start does where the frame ends in a word start; a run of two spaces or more
    /// does not on the right.
    fn borders_space(&self, at: usize, left: bool) -> bool {
        let neighbour = if left {
            match at.checked_sub(1) {
                Some(at) => self.run(at),
                None => return self.rules.frame_bow,
            }
        } else {
            self.run(at + 1)
        };
        let Some(neighbour) = neighbour else {
            return false;
        };
        if neighbour.class != Class::Space {
            return false;
        }
        let space = self.body(&neighbour);
        if left {
            space.last() == Some(&' ')
        } else {
            space.first() == Some(&' ') && space.get(1) != Some(&' ')
        }
    }

    /// Whether run `run` writes a border marker of its own on its right.
    fn takes_right_border(&self, run: &Run) -> bool {
        let body = self.body(run);
        run.class == Class::Punct
            || hard_eow(body)
            || (matches!(run.class, Class::Digit | Class::Hard) && digit_eow(body))
    }

    /// Whether a lone apostrophe before word `at` is that word's start (`it's`).
    fn contraction_seam(&self, at: usize) -> bool {
        let (Some(run), Some(before)) = (self.run(at), at.checked_sub(1).and_then(|b| self.run(b)))
        else {
            return false;
        };
        if !CONTRACTIONS.contains(&self.body(&run)) {
            return false;
        }
        if before.class != Class::Punct || self.body(&before) != ['\''] {
            return false;
        }
        at < 2
            || !self
                .run(at - 2)
                .is_some_and(|run| self.takes_right_border(&run))
    }

    /// Whether the text's first run writes its own word start, so the frame's is
    /// not written for it.
    fn first_has_own_bow(&self, first: &Run) -> bool {
        let body = self.body(first);
        !self.opens_word(0)
            && (matches!(first.class, Class::Wordy | Class::Punct | Class::Stray)
                || hard_bow(body)
                || (matches!(first.class, Class::Digit | Class::Hard) && digit_bow(body))
                || (first.class == Class::Space && body.first() == Some(&' ')))
    }

    /// Writes run `at` with its markers.
    fn write(&self, at: usize, out: &mut Vec<Symbol>, lowered: &mut Vec<char>) {
        let Some(run) = self.run(at) else {
            return;
        };
        let text = self.body(&run);
        let chars = |out: &mut Vec<Symbol>, text: &[char]| {
            out.extend(text.iter().map(|&c| u32::from(c)));
        };
        match run.class {
            Class::Wordy => {
                let fused = at > 0
                    && self
                        .run(at - 1)
                        .is_some_and(|run| run.class == Class::Stray);
                let marker = mark_case(text, self.rules.allcaps_min, fused, lowered);
                out.extend(marker);
                if !(fused || self.contraction_seam(at)) {
                    out.push(BOW);
                }
                chars(out, if marker.is_some() { lowered } else { text });
                out.push(EOW);
            }
            Class::Stray => {
                let letter_follows = self
                    .run(at + 1)
                    .is_some_and(|next| next.class == Class::Wordy);
                out.push(BOW);
                chars(out, text);
                if !letter_follows {
                    out.push(EOW);
                }
            }
            _ if run.class == Class::Punct || hard_bow(text) || hard_eow(text) => {
                let punct = run.class == Class::Punct;
                if self.borders_space(at, true) && !self.opens_word(at) && (punct || hard_bow(text))
                {
                    out.push(BOW);
                }
                chars(out, text);
                if self.borders_space(at, false) && (punct || hard_eow(text)) {
                    out.push(EOW);
                }
            }
            Class::Digit | Class::Hard if digit_run(text) => {
                if digit_bow(text) && self.borders_space(at, true) {
                    out.push(BOW);
                }
                chars(out, text);
                if digit_eow(text) && self.borders_space(at, false) {
                    out.push(EOW);
                }
            }
            _ => chars(out, text),
        }
    }
}

/// Whether the frame's word start stands for the text's leading space: the stream
/// is then that of `norm[1..]`.
fn frame_takes_space(norm: &[char], raw_head_space: bool, rules: Rules) -> bool {
    rules.frame_bow && raw_head_space && norm.first() == Some(&' ') && norm.get(1) != Some(&' ')
}

impl Marking<'_> {
    /// Writes what the frame writes before the first run: its word start (a space
    /// before a quote that opens a word), unless the run writes its own.
    fn write_frame(&self, out: &mut Vec<Symbol>) {
        let Some(first) = self.run(0) else {
            if self.rules.frame_bow {
                out.push(BOW);
            }
            return;
        };
        if self.rules.frame_bow && !self.first_has_own_bow(&first) {
            out.push(if self.opens_word(0) {
                u32::from(' ')
            } else {
                BOW
            });
        }
    }
}

/// The marked stream of `norm` (normalised text, trailing newlines already
/// removed), with `raw_head_space` saying whether the raw text started with a space.
pub(super) fn stream(mut norm: &[char], raw_head_space: bool, rules: Rules) -> Vec<Symbol> {
    if frame_takes_space(norm, raw_head_space, rules) {
        norm = &norm[1..];
    }
    let runs = runs(norm);
    let marking = Marking {
        norm,
        runs: &runs,
        first: None,
        last: None,
        rules,
    };
    let mut out: Vec<Symbol> = Vec::with_capacity(norm.len() + norm.len() / 2 + 2);
    marking.write_frame(&mut out);
    if runs.is_empty() {
        return out;
    }
    let mut lowered = Vec::new();
    for at in 0..runs.len() {
        marking.write(at, &mut out, &mut lowered);
    }
    seam(&out)
}

/// `x⟨eow⟩ [case markers]⟨bow⟩` -> `x⟨eow⟩[case markers]⟨bow⟩`, left to right and
/// without overlap, `x` any symbol but a newline.
fn seam(out: &[Symbol]) -> Vec<Symbol> {
    let mut result = Vec::with_capacity(out.len());
    seam_from(out, 0, 0, &mut result, |_, _, _| false);
    result
}

/// [`seam`] of `out` from `at` on, where a step of the seam starts, the last
/// rewrite so far having ended at `last_end`; appends to `result`. `stop(at,
/// written, fresh)` is asked at every step (`written`: the length of `result`,
/// `fresh`: whether the last rewrite ended there) and ends the seam there when it
/// says so. Returns where the seam stopped.
fn seam_from(
    out: &[Symbol],
    mut at: usize,
    mut last_end: usize,
    result: &mut Vec<Symbol>,
    mut stop: impl FnMut(usize, usize, bool) -> bool,
) -> usize {
    let space = u32::from(' ');
    let newline = u32::from('\n');
    while at < out.len() {
        if stop(at, result.len(), last_end == at) {
            return at;
        }
        let symbol = out[at];
        result.push(symbol);
        if symbol == EOW
            && at > last_end
            && out[at - 1] != newline
            && out.get(at + 1) == Some(&space)
        {
            let mut next = at + 2;
            while out.get(next).is_some_and(|&s| s == SHIFT || s == CAPS) {
                next += 1;
            }
            if out.get(next) == Some(&BOW) {
                result.extend_from_slice(&out[at + 2..=next]);
                at = next + 1;
                last_end = at;
                continue;
            }
        }
        at += 1;
    }
    at
}

/// A beginning of the text shorter than this many characters is left to a count.
const SHORT: usize = 8;
/// How far before the first symbol that may differ the seam is taken up again: a
/// step of the seam looks at most this far ahead (a word end, a space, two case
/// markers, a word start).
const LOOKAHEAD: usize = 6;

/// The marked stream of a text with what the searches of `parts` need to tell the
/// stream of any beginning (or end) of that text from it: where the symbols of
/// each run start before the seam, and where each step of the seam starts.
///
/// The stream of a beginning of the text is the stream of the whole up to the
/// second last run of the beginning (the runs before it look at most one run
/// ahead), then those two runs written as the beginning ends; of an end, its first
/// three runs written as the end begins (a run looks at most two runs back), then
/// the stream of the whole. The seam is local too: it is taken up again at a step
/// a few symbols before the first symbol that may differ (beginnings) or until it
/// meets a step of the whole (ends).
pub(super) struct Layout {
    /// The characters left to the frame at the start: 1 when it took a leading
    /// space, else 0. The runs index the characters after them.
    pub(super) skipped: usize,
    runs: Vec<Run>,
    /// The stream before the seam.
    raw: Vec<Symbol>,
    /// Where the symbols of each run start in `raw`, and `raw.len()` last.
    starts: Vec<u32>,
    /// The stream.
    pub(super) symbols: Vec<Symbol>,
    /// Each rewrite of the seam, as the indices in `raw` of its word end and of
    /// the symbol after its word start; every index of `raw` outside them starts a
    /// step of the seam, and each rewrite drops one space.
    rewrites: Vec<(u32, u32)>,
    /// For each run: whether it is a long word that no case marker changes, in
    /// whole or in any beginning of it (a lowercase first letter, no `ẞ` or `İ`).
    plain: Vec<bool>,
}

/// Whether a word's case markers and letters stay as they are in every beginning
/// of it: its first letter is lowercase, and neither `ẞ` nor `İ` (which the case
/// rules treat apart) is in it.
fn plain_word(span: &[char]) -> bool {
    span.first()
        .is_some_and(|&c| is_lower(c) && lowers_to_itself(c))
        && !span.iter().any(|&c| c == '\u{1E9E}' || c == '\u{130}')
}

impl Layout {
    /// The layout of `norm` (normalised text; trailing newlines are taken as they
    /// are); `None` when it is too long for the offsets kept.
    pub(super) fn new(norm: &[char], raw_head_space: bool, rules: Rules) -> Option<Layout> {
        let skipped = usize::from(frame_takes_space(norm, raw_head_space, rules));
        let norm = &norm[skipped..];
        // Offsets are kept in 31 bits: the stream is at most four symbols a
        // character (a case marker, a word start and end around a letter).
        if norm.len() >= (1 << 28) {
            return None;
        }
        let runs = runs(norm);
        let marking = Marking {
            norm,
            runs: &runs,
            first: None,
            last: None,
            rules,
        };
        let mut raw: Vec<Symbol> = Vec::with_capacity(norm.len() + norm.len() / 2 + 2);
        marking.write_frame(&mut raw);
        let mut starts = Vec::with_capacity(runs.len() + 1);
        let mut lowered = Vec::new();
        for at in 0..runs.len() {
            starts.push(u32::try_from(raw.len()).ok()?);
            marking.write(at, &mut raw, &mut lowered);
        }
        starts.push(u32::try_from(raw.len()).ok()?);
        let mut symbols = Vec::with_capacity(raw.len());
        let mut rewrites = Vec::new();
        let (mut dropped, mut previous) = (0, 0);
        seam_from(&raw, 0, 0, &mut symbols, |at, written, _| {
            if at - written != dropped {
                // The step before was a rewrite.
                dropped = at - written;
                // Indices are below 2^31: the stream is shorter than 2^31 symbols.
                #[allow(clippy::cast_possible_truncation)]
                rewrites.push((previous as u32, at as u32));
            }
            previous = at;
            false
        });
        let plain = runs
            .iter()
            .map(|run| {
                run.class == Class::Wordy
                    && run.end - run.start >= SHORT
                    && plain_word(&norm[run.start..run.end])
            })
            .collect();
        Some(Layout {
            skipped,
            runs,
            raw,
            starts,
            symbols,
            rewrites,
            plain,
        })
    }

    fn start(&self, run: usize) -> usize {
        self.starts[run] as usize
    }

    /// Whether a step of the seam starts at index `at` of `raw`: `Some((written,
    /// fresh))`, the length of `symbols` then and whether a rewrite ended there.
    fn step(&self, at: usize) -> Option<(usize, bool)> {
        let done = self
            .rewrites
            .partition_point(|&(_, end)| end as usize <= at);
        if self
            .rewrites
            .get(done)
            .is_some_and(|&(eow, _)| (eow as usize) < at)
        {
            return None;
        }
        let fresh = at == 0 || done > 0 && self.rewrites[done - 1].1 as usize == at;
        Some((at - done, fresh))
    }

    /// The stream of the beginning `norm[..end]` of the text (`norm` as given to
    /// [`Layout::new`], `end` past the beginning's trailing newlines) as
    /// `(at, tail)`: `symbols[..at]` followed by `tail`. `None` where the
    /// beginning is short or this cannot tell.
    pub(super) fn prefix(
        &self,
        norm: &[char],
        end: usize,
        rules: Rules,
    ) -> Option<(usize, Vec<Symbol>)> {
        let norm = &norm[self.skipped..];
        let end = end.checked_sub(self.skipped)?;
        if end < SHORT {
            return None;
        }
        // The run the beginning ends in: `start < end <= run.end`.
        let index = self.runs.partition_point(|run| run.end < end);
        let run = *self.runs.get(index)?;
        let (differs, tail) = if self.plain[index] && end - run.start >= SHORT {
            // Deep in a long lowercase word: its letters so far, then its end.
            let (from, to) = (self.start(index), self.start(index + 1));
            let kept = (to - from).checked_sub(1 + (run.end - end))?;
            let differs = from + kept;
            if self.raw.get(differs.checked_sub(1)?) != Some(&u32::from(norm[end - 1]))
                || self.raw.get(to - 1) != Some(&EOW)
            {
                return None;
            }
            (differs, vec![EOW])
        } else if index >= 1 {
            // The run before the last looks at the last one: write both again.
            let marking = Marking {
                norm,
                runs: &self.runs[..=index],
                first: None,
                last: Some(Run { end, ..run }),
                rules,
            };
            let mut tail = Vec::new();
            let mut lowered = Vec::new();
            marking.write(index - 1, &mut tail, &mut lowered);
            marking.write(index, &mut tail, &mut lowered);
            (self.start(index - 1), tail)
        } else {
            return None;
        };
        // Take the seam up again at a step a little before `differs`: the steps
        // before it look only at symbols the beginning shares with the whole.
        let mut from = differs.checked_sub(LOOKAHEAD)?;
        let (written, fresh) = loop {
            match self.step(from) {
                Some(step) => break step,
                None => from = from.checked_sub(1)?,
            }
        };
        if from == 0 {
            return None;
        }
        let mut joined = Vec::with_capacity(differs + 1 - from + tail.len());
        joined.extend_from_slice(&self.raw[from - 1..differs]);
        joined.extend_from_slice(&tail);
        let mut seamed = Vec::with_capacity(joined.len());
        seam_from(&joined, 1, usize::from(fresh), &mut seamed, |_, _, _| false);
        Some((written, seamed))
    }

    /// The stream of the end `norm[start..]` of the text (`norm` as given to
    /// [`Layout::new`], which must have been told of no leading space; its
    /// trailing newlines removed) as `(head, at)`: `head` followed by
    /// `symbols[at..]`. `raw_head_space` says whether the raw end starts with a
    /// space. `None` where the end is short or this cannot tell.
    pub(super) fn suffix(
        &self,
        norm: &[char],
        start: usize,
        raw_head_space: bool,
        rules: Rules,
    ) -> Option<(Vec<Symbol>, usize)> {
        if self.skipped != 0 {
            return None;
        }
        let mut start = start;
        if frame_takes_space(norm.get(start..)?, raw_head_space, rules) {
            start += 1;
        }
        // A mark at the start would open a run of its own.
        if props(*norm.get(start)?).mark() {
            return None;
        }
        let index = self.runs.partition_point(|run| run.end <= start);
        let run = *self.runs.get(index)?;
        let mut joined = Vec::new();
        let shared =
            if self.plain[index] && run.end - start >= SHORT && plain_word(&norm[start..=start]) {
                // Deep in a long lowercase word: its start, then its letters from
                // here, as in the whole (the runs after it look back at its class and
                // its last letter only).
                let from = self.start(index);
                let bow = usize::from(self.raw.get(from) == Some(&BOW));
                let shared = from + bow + (start - run.start);
                if self.raw.get(shared) != Some(&u32::from(norm[start])) {
                    return None;
                }
                joined.push(BOW);
                shared
            } else {
                // The first three runs are written again; the fourth is the whole's.
                let shared = self.start(index.checked_add(3).filter(|&at| at < self.runs.len())?);
                let marking = Marking {
                    norm,
                    runs: &self.runs[index..],
                    first: Some(Run { start, ..run }),
                    last: None,
                    rules,
                };
                let mut lowered = Vec::new();
                marking.write_frame(&mut joined);
                for at in 0..3 {
                    marking.write(at, &mut joined, &mut lowered);
                }
                shared
            };
        let head = joined.len();
        let window = self.raw.len().min(shared.saturating_add(64));
        joined.extend_from_slice(&self.raw[shared..window]);
        // Seam until a step of the end meets a step of the whole, in the same
        // state, past the first shared symbol.
        let mut met = None;
        let mut seamed = Vec::with_capacity(joined.len());
        let limit = joined.len().saturating_sub(LOOKAHEAD + 2);
        let last = window == self.raw.len();
        seam_from(&joined, 0, 0, &mut seamed, |at, written, fresh| {
            if at > head {
                let whole = shared + (at - head);
                if let Some((symbols, _)) = self.step(whole).filter(|&(_, f)| f == fresh) {
                    met = Some((written, symbols));
                    return true;
                }
            }
            !last && at >= limit
        });
        let (written, at) = match met {
            Some(met) => met,
            // The seam ran to the end of the stream: nothing is shared.
            None if last => (seamed.len(), self.symbols.len()),
            None => return None,
        };
        seamed.truncate(written);
        Some((seamed, at))
    }
}
