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
    runs: Vec<Run>,
    rules: Rules,
}

impl Marking<'_> {
    fn body(&self, run: &Run) -> &[char] {
        &self.norm[run.start..run.end]
    }

    /// Run `at` is a lone `'` that opens the word after it.
    fn opens_word(&self, at: usize) -> bool {
        self.body(&self.runs[at]) == ['\'']
            && self
                .runs
                .get(at + 1)
                .is_some_and(|next| matches!(next.class, Class::Wordy | Class::Stray))
    }

    /// Whether the left (or right) side of run `at` touches a space: the message
    /// start does where the frame ends in a word start; a run of two spaces or more
    /// does not on the right.
    fn borders_space(&self, at: usize, left: bool) -> bool {
        let neighbour = if left {
            match at.checked_sub(1) {
                Some(at) => &self.runs[at],
                None => return self.rules.frame_bow,
            }
        } else {
            match self.runs.get(at + 1) {
                Some(run) => run,
                None => return false,
            }
        };
        if neighbour.class != Class::Space {
            return false;
        }
        let space = self.body(neighbour);
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
        if at == 0 || !CONTRACTIONS.contains(&self.body(&self.runs[at])) {
            return false;
        }
        let before = &self.runs[at - 1];
        if before.class != Class::Punct || self.body(before) != ['\''] {
            return false;
        }
        at < 2 || !self.takes_right_border(&self.runs[at - 2])
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
        let run = &self.runs[at];
        let text = self.body(run);
        let chars = |out: &mut Vec<Symbol>, text: &[char]| {
            out.extend(text.iter().map(|&c| u32::from(c)));
        };
        match run.class {
            Class::Wordy => {
                let fused = at > 0 && self.runs[at - 1].class == Class::Stray;
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
                    .runs
                    .get(at + 1)
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

/// The marked stream of `norm` (normalised text, trailing newlines already
/// removed), with `raw_head_space` saying whether the raw text started with a space.
pub(super) fn stream(mut norm: &[char], raw_head_space: bool, rules: Rules) -> Vec<Symbol> {
    if rules.frame_bow && raw_head_space && norm.first() == Some(&' ') && norm.get(1) != Some(&' ')
    {
        norm = &norm[1..];
    }
    let marking = Marking {
        norm,
        runs: runs(norm),
        rules,
    };
    let mut out: Vec<Symbol> = Vec::with_capacity(norm.len() + norm.len() / 2 + 2);
    let Some(first) = marking.runs.first() else {
        if rules.frame_bow {
            out.push(BOW);
        }
        return out;
    };
    if rules.frame_bow && !marking.first_has_own_bow(first) {
        out.push(if marking.opens_word(0) {
            u32::from(' ')
        } else {
            BOW
        });
    }
    let mut lowered = Vec::new();
    for at in 0..marking.runs.len() {
        marking.write(at, &mut out, &mut lowered);
    }
    seam(&out)
}

/// `x⟨eow⟩ [case markers]⟨bow⟩` -> `x⟨eow⟩[case markers]⟨bow⟩`, left to right and
/// without overlap, `x` any symbol but a newline.
fn seam(out: &[Symbol]) -> Vec<Symbol> {
    let space = u32::from(' ');
    let newline = u32::from('\n');
    let mut result = Vec::with_capacity(out.len());
    let mut last_end = 0;
    let mut at = 0;
    while at < out.len() {
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
    result
}
