//! The [`Claude`] counter: normalise, mark, tile, add the frame's tail; and the
//! split points where its counts add up.

use std::sync::LazyLock;

use super::generation::ClaudeGeneration;
use super::normalize::normalize;
use super::parts::Parts;
use super::stream::{Rules, stream};
use super::tile::tile;
use super::vocab::Vocabulary;
use crate::count::{Exactness, TokenCounter, seal};

static V3: LazyLock<Vocabulary> = LazyLock::new(|| {
    Vocabulary::parse(
        include_str!("../../../data/claude/v3.pieces"),
        include_str!("../../../data/claude/v3.bytes"),
    )
});

static V4_7: LazyLock<Vocabulary> = LazyLock::new(|| {
    Vocabulary::parse(
        include_str!("../../../data/claude/v4_7.pieces"),
        include_str!("../../../data/claude/v4_7.bytes"),
    )
});

/// Exact offline token counts of Claude models, per tokenizer generation: a
/// reconstruction of Claude's tokenizer from the vocabularies that
/// [`ctok`](https://github.com/sanderland/ctok) 1.3.0 (MIT) measured against
/// Anthropic's `count_tokens`, whose README reports exact agreement on held-out
/// sets and no under-count in 2.3 million texts.
///
/// [`count`](TokenCounter::count) is the text's own tokens: what `count_tokens` says
/// of a request with this text as its one user message, less the message frame
/// ([`message_overhead`](Self::message_overhead)). It equals `ctok`'s
/// `token_count(text, version) - overhead` (checked on the corpus, the fixtures and
/// adversarial text by the parity test). Cloning is free; the vocabularies are
/// loaded once, on first use.
///
/// ```
/// use ctxbudget::TokenCounter;
/// use ctxbudget::count::{Claude, ClaudeGeneration};
///
/// let older = Claude::new(ClaudeGeneration::V3);
/// assert_eq!(older.count("hello, world"), 3);
/// assert_eq!(older.count_message("hello, world"), 10);
/// let newer = Claude::for_model("claude-opus-4-8").unwrap();
/// assert_eq!(newer.generation(), ClaudeGeneration::V4_8);
/// assert_eq!(newer.count("hello, world"), 4);
/// ```
///
/// # How it counts
///
/// The text is normalised (NFC; controls and private-use characters dropped; the
/// first generation reads curly quotes as ASCII ones), cut into runs of letters,
/// digits, punctuation, whitespace and characters that stand alone, and written as
/// a *marked stream*: word start and end markers around words and around
/// punctuation that borders a space, a capital or all-capitals marker before a word
/// whose letters it lowers, and the single space between two marked runs left to
/// the markers. The count is the fewest pieces of the vocabulary that tile the
/// stream, a character no piece covers costing its UTF-8 bytes (fewer where a byte
/// prefix is one token), plus what trailing newlines cost against the frame's own.
///
/// # Split points
///
/// Counts add up where no piece can run across and both sides are marked as in the
/// whole text:
///
/// - before an ASCII letter or a kana that follows ASCII punctuation (not `'`), an
///   ASCII digit, an ideograph, a Hangul syllable, an emoji or `、` `。` (no piece
///   runs into a word's start marker);
/// - `V3`, `V4_7`: before a space between two ASCII letters (the frame's word start
///   stands for a leading space as the seam does between two words);
/// - `V4_8`, whose frame absorbs no space: before a newline after printable ASCII,
///   between an ASCII letter and ASCII punctuation or a digit, and between two
///   ideographs, Hangul syllables or emoji.
///
/// No piece of either vocabulary runs past a word end marker, into a word start
/// marker, or mixes whitespace, ideographs or emoji with anything else; the property
/// tests and the fuzz target check that counts add up at every split point.
///
/// # Trimming
///
/// Inside a stretch without split points (a run of one letter, emoji sequences in
/// `V3` and `V4_7`), the trimming engine searches with counting probes. For this
/// counter it tiles the stretch once from its kept end and takes every probe's
/// count from that tiling (the stream of a beginning or an end of a text is the
/// stream of the whole but for a few symbols at the cut), with the same counts, so
/// it keeps the same text as probes that count each part.
#[derive(Debug, Clone, Copy)]
pub struct Claude {
    generation: ClaudeGeneration,
}

impl Claude {
    /// The counter of `generation`.
    pub fn new(generation: ClaudeGeneration) -> Self {
        Self { generation }
    }

    /// The counter of a Claude model's generation (see
    /// [`ClaudeGeneration::for_model`]); `None` when the name does not say one.
    pub fn for_model(name: &str) -> Option<Self> {
        ClaudeGeneration::for_model(name).map(Self::new)
    }

    /// The generation this counter counts.
    pub fn generation(&self) -> ClaudeGeneration {
        self.generation
    }

    /// The tokens of the frame around one user message: 7, 11 or 6.
    pub fn message_overhead(&self) -> usize {
        self.generation.message_overhead()
    }

    /// What `count_tokens` says of a request whose one user message is `text`:
    /// [`count`](TokenCounter::count) plus [`message_overhead`](Self::message_overhead).
    pub fn count_message(&self, text: &str) -> usize {
        self.count(text).saturating_add(self.message_overhead())
    }

    pub(super) fn vocabulary(self) -> &'static Vocabulary {
        match self.generation {
            ClaudeGeneration::V3 => &V3,
            ClaudeGeneration::V4_7 | ClaudeGeneration::V4_8 => &V4_7,
        }
    }

    /// What the marked stream of this generation depends on.
    pub(super) fn rules(self) -> Rules {
        Rules {
            allcaps_min: self.generation.allcaps_min(),
            frame_bow: self.generation.frame_bow(),
        }
    }

    /// Exact counts of the beginnings (`head`) or ends of `text`, cheaper than a
    /// count each: what the trimming engine asks when it searches a stretch
    /// without split points.
    pub(crate) fn parts(self, text: &str, head: bool) -> Parts<'_> {
        Parts::new(self, text, head)
    }

    /// Whether counts add up at byte offset `at` of `text`.
    fn splits_at(self, text: &str, at: usize) -> bool {
        if at == 0 || at >= text.len() || !text.is_char_boundary(at) {
            return false;
        }
        let (Some(before), Some(here)) =
            (text[..at].chars().next_back(), text[at..].chars().next())
        else {
            return false;
        };
        // Before a word whose start marker no piece reaches across, after a character
        // that ends its own run and leaves no marker to the word.
        if starts_word(here) && ends_run(before) {
            return true;
        }
        if self.generation.frame_bow() {
            here == ' '
                && before.is_ascii_alphabetic()
                && text
                    .as_bytes()
                    .get(at + 1)
                    .is_some_and(u8::is_ascii_alphabetic)
        } else {
            (here == '\n' && before.is_ascii_graphic())
                || (before.is_ascii_alphabetic()
                    && (here.is_ascii_punctuation() || here.is_ascii_digit()))
                || (stands_alone(before) && stands_alone(here))
        }
    }
}

/// A character that starts a word of its own after any character of
/// [`ends_run`]: an ASCII letter or a kana (letters that are neither marks nor
/// composed with what precedes them).
fn starts_word(c: char) -> bool {
    c.is_ascii_alphabetic()
        || ('\u{3041}'..='\u{3096}').contains(&c)
        || ('\u{30A1}'..='\u{30FA}').contains(&c)
}

/// A character that survives normalisation unchanged whatever follows, ends the run
/// it is in before a letter, and writes no marker on that side: ASCII punctuation
/// (the apostrophe aside: it binds contractions), ASCII digits, ideographs, Hangul
/// syllables, emoji and the ideographic comma and full stop.
fn ends_run(c: char) -> bool {
    (c.is_ascii_punctuation() && c != '\'')
        || c.is_ascii_digit()
        || stands_alone(c)
        || c == '\u{3001}'
        || c == '\u{3002}'
}

/// A character that is a run of its own kind, takes no marker, and that no piece
/// of more than one symbol contains: CJK ideographs, Hangul syllables and emoji.
fn stands_alone(c: char) -> bool {
    let cp = u32::from(c);
    (0x4E00..=0x9FFF).contains(&cp)
        || (0x3400..=0x4DBF).contains(&cp)
        || (0xAC00..=0xD7A3).contains(&cp)
        || (cp >= 0x1_0000 && super::unicode::props(c).category() == "So")
}

impl TokenCounter for Claude {
    /// The text's own tokens in this generation, without the message frame.
    fn count(&self, text: &str) -> usize {
        let generation = self.generation;
        let norm = normalize(text, generation.folds_quotes());
        let content = norm.len() - norm.iter().rev().take_while(|&&c| c == '\n').count();
        let vocab = self.vocabulary();
        let marked = stream(&norm[..content], text.starts_with(' '), self.rules());
        tile(&marked, vocab).saturating_add(vocab.frame_tail(norm.len() - content))
    }

    fn next_split(&self, text: &str, from: usize) -> Option<usize> {
        (from.max(1)..text.len()).find(|&at| self.splits_at(text, at))
    }

    fn prev_split(&self, text: &str, before: usize) -> Option<usize> {
        (1..before.min(text.len()))
            .rev()
            .find(|&at| self.splits_at(text, at))
    }

    fn exactness(&self) -> Exactness {
        Exactness::Exact
    }

    // The split points are checked to add up by the property tests in
    // `tests/suite/claude.rs`: the trimming engine need not count again.
    fn __trusted(&self, _: seal::Seal) -> bool {
        true
    }

    fn __claude(&self, _: seal::Seal) -> Option<Claude> {
        Some(*self)
    }
}
