//! The trimming engine and `count_within` with counters that break the
//! `TokenCounter` contract: never panics or hangs, returns sub-slices on char
//! boundaries, reports the counter's own count, and fits the budget whenever
//! something is kept (hard limit).
//!
//! Input: 2 bytes of budget (little endian), 1 byte of options (kept part, hard
//! limit, budget scale, marker), 1 byte of counter (how it counts, which split
//! points it declares), 8 bytes of seed for its lies, then the text (lossy UTF-8).
#![no_main]

use ctxbudget::{Keep, TokenCounter, TrimOptions, trim_with};
use libfuzzer_sys::fuzz_target;

/// How the counter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    /// Whitespace-separated words: monotone, additive at whitespace.
    Words,
    /// Words squared: monotone, not additive.
    WordsSquared,
    /// `2^60` tokens a word, saturating: monotone, sums past `usize::MAX`.
    HugeWords,
    /// `usize::MAX` for a text with a `z`, else its bytes: monotone.
    MaxWithZ,
    /// `chars / 4` plus 0 to 2 by hash: neither additive nor monotone.
    Jitter,
    /// `usize::MAX` for one text in five (by hash), else its chars.
    MaxByHash,
    /// A hash of the text modulo 8.
    Chaos,
    /// 1 for `""`, else the bytes: monotone except at the empty text.
    EmptyCostsOne,
}

impl Count {
    fn from_byte(byte: u8) -> Self {
        match byte % 8 {
            0 => Count::Words,
            1 => Count::WordsSquared,
            2 => Count::HugeWords,
            3 => Count::MaxWithZ,
            4 => Count::Jitter,
            5 => Count::MaxByHash,
            6 => Count::Chaos,
            _ => Count::EmptyCostsOne,
        }
    }

    /// Whether a longer prefix or suffix never costs less (the empty text
    /// included).
    fn is_monotone(self) -> bool {
        matches!(
            self,
            Count::Words | Count::WordsSquared | Count::HugeWords | Count::MaxWithZ
        )
    }
}

/// Which split points the counter declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Splits {
    None,
    /// Before whitespace after a non-whitespace character: true for
    /// [`Count::Words`] and [`Count::HugeWords`] (until the sums saturate).
    Whitespace,
    /// Any offset, by hash: out of range, `usize::MAX`, inside a char,
    /// backwards, equal to the offset asked about, or plausible.
    Lying,
}

#[derive(Debug)]
struct Misbehaving {
    count: Count,
    splits: Splits,
    seed: u64,
}

impl Misbehaving {
    fn hash(&self, text: &str, extra: usize) -> u64 {
        let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ self.seed;
        for &byte in text.as_bytes().iter().chain(&(extra as u64).to_le_bytes()) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        hash
    }

    fn lie(&self, text: &str, at: usize, forward: bool) -> Option<usize> {
        let hash = self.hash(text, at);
        let len = text.len();
        let small = (hash >> 32) as usize % 16;
        match hash % 10 {
            0 => None,
            1 => Some(usize::MAX),
            2 => Some(len + 1 + small),
            3 => Some(at),
            4 => Some(at.saturating_sub(1 + small)),
            5 => Some(at.saturating_add(1 + small)),
            6 => (at.min(len)..len).find(|&i| !text.is_char_boundary(i)),
            7 => Some(0),
            8 => Some((hash >> 40) as usize % (len + 3)),
            _ if forward => whitespace_split_after(text, at),
            _ => whitespace_split_before(text, at),
        }
    }
}

fn whitespace_split_after(text: &str, from: usize) -> Option<usize> {
    text.char_indices()
        .skip_while(|&(i, _)| i < from)
        .find(|&(i, c)| i > 0 && c.is_whitespace() && !text[..i].ends_with(char::is_whitespace))
        .map(|(i, _)| i)
}

fn whitespace_split_before(text: &str, before: usize) -> Option<usize> {
    text.char_indices()
        .take_while(|&(i, _)| i < before)
        .filter(|&(i, c)| i > 0 && c.is_whitespace() && !text[..i].ends_with(char::is_whitespace))
        .last()
        .map(|(i, _)| i)
}

impl TokenCounter for Misbehaving {
    fn count(&self, text: &str) -> usize {
        let words = text.split_whitespace().count();
        match self.count {
            Count::Words => words,
            Count::WordsSquared => words.saturating_mul(words),
            Count::HugeWords => words.saturating_mul(1 << 60),
            Count::MaxWithZ if text.contains('z') => usize::MAX,
            Count::MaxWithZ => text.len(),
            Count::Jitter => text.chars().count().div_ceil(4) + (self.hash(text, 0) % 3) as usize,
            Count::MaxByHash if self.hash(text, 1) % 5 == 0 => usize::MAX,
            Count::MaxByHash => text.chars().count(),
            Count::Chaos => (self.hash(text, 2) % 8) as usize,
            Count::EmptyCostsOne => text.len().max(1),
        }
    }

    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        match self.splits {
            Splits::None => None,
            Splits::Whitespace => whitespace_split_after(text, from),
            Splits::Lying => self.lie(text, from, true),
        }
    }

    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        match self.splits {
            Splits::None => None,
            Splits::Whitespace => whitespace_split_before(text, before),
            Splits::Lying => self.lie(text, before, false),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<12>() else {
        return;
    };
    let raw_budget = usize::from(u16::from_le_bytes([head[0], head[1]]));
    let flags = head[2];
    let budget = match (flags >> 3) % 4 {
        0 | 1 => raw_budget % 512,
        2 => raw_budget << 48,
        _ => usize::MAX - raw_budget % 4,
    };
    let counter = Misbehaving {
        count: Count::from_byte(head[3]),
        splits: match (head[3] >> 3) % 3 {
            0 => Splits::None,
            1 => Splits::Whitespace,
            _ => Splits::Lying,
        },
        seed: u64::from_le_bytes(head[4..12].try_into().expect("8 bytes")),
    };
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();

    let keep = match flags % 3 {
        0 => Keep::Head,
        1 => Keep::Tail,
        _ => Keep::HeadAndTail,
    };
    let hard_limit = (flags >> 2) & 1 == 0;
    let elision = match flags >> 5 {
        0 => "",
        1 => " zz ",
        _ => TrimOptions::DEFAULT_ELISION,
    };
    let options = TrimOptions::new()
        .keep(keep)
        .with_hard_limit(hard_limit)
        .with_elision(elision);

    let result = trim_with(text, budget, &counter, &options);

    // A sub-slice on char boundaries: a prefix, a suffix, or a prefix and a
    // suffix after it.
    let range = result.kept_range.clone();
    assert!(range.start <= range.end && range.end <= text.len());
    assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
    assert_eq!(&text[range.clone()], result.kept);
    match keep {
        Keep::Head => assert!(range.start == 0 && result.tail.is_none()),
        Keep::Tail => assert!(range.end == text.len() && result.tail.is_none()),
        _ => {
            assert_eq!(range.start, 0);
            if let Some(tail) = result.tail {
                assert!(text.ends_with(tail));
                assert!(range.end + tail.len() <= text.len(), "the parts overlap");
            }
        }
    }
    if !result.cut {
        assert_eq!(result.kept, text);
    }
    // The counter's own count of what is returned.
    let rendered = result.text();
    assert_eq!(result.tokens, counter.count(&rendered), "{counter:?}");
    // Fits whenever something is kept, or the counter is monotone.
    if hard_limit && (!rendered.is_empty() || counter.count.is_monotone()) {
        assert!(
            result.tokens <= budget,
            "{counter:?}: {} > {budget}",
            result.tokens
        );
    }

    // `count_within`: `Some` only with the count of the whole text, within the
    // limit.
    if let Some(tokens) = counter.count_within(text, budget) {
        assert_eq!(tokens, counter.count(text), "{counter:?}");
        assert!(tokens <= budget);
    }
});
