//! Chunk selection on arbitrary chunks, scores, budgets and options: never panics,
//! the joined text's count is the reported count and within the budget, every
//! chosen text is a prefix of its chunk, blank chunks are counted and never chosen,
//! `is_complete` means every other chunk was kept whole, and (without scanning) a
//! chunk is cut only when the joined text with that chunk whole is over the budget.
//!
//! Input: 2 bytes of budget (little endian; `0xFFFF` means `usize::MAX`), 1 byte of
//! options (counter, keep-scanning, separator, marker, `o200k_base`), 1 byte of
//! minimum partial, then chunks separated by `0xFF`, each led by 1 byte choosing its
//! score.
#![no_main]

use std::sync::LazyLock;

use ctxbudget::{CharEstimate, Tiktoken, TokenCounter, select, select::SelectOptions};
use libfuzzer_sys::fuzz_target;

const SCORES: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    0.5,
    1.0,
    -1.0,
];

static O200K: LazyLock<Tiktoken> = LazyLock::new(Tiktoken::o200k_base);

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let budget = match u16::from_le_bytes([head[0], head[1]]) {
        u16::MAX => usize::MAX,
        b => usize::from(b),
    };
    let flags = head[2];
    let chunks: Vec<(String, f64)> = rest
        .split(|&b| b == 0xFF)
        .map(|chunk| match chunk.split_first() {
            Some((&s, text)) => {
                let score = if s < 8 {
                    SCORES[usize::from(s)]
                } else {
                    f64::from(s) / 7.0
                };
                (String::from_utf8_lossy(text).into_owned(), score)
            }
            None => (String::new(), 0.0),
        })
        .collect();

    let words = |t: &str| t.split_whitespace().count();
    let bytes = |t: &str| t.len();
    // Charges for every blank line: counts that do not add up across separators.
    let joins = |t: &str| CharEstimate.count(t) + 3 * t.matches("\n\n").count();
    // Byte-pair counts and the rounded estimate sum to more over pieces than over
    // their join: the case where a chunk that fits must not be cut.
    let counter: &dyn TokenCounter = if flags & 32 != 0 {
        &*O200K
    } else {
        match flags % 4 {
            0 => &CharEstimate,
            1 => &words,
            2 => &bytes,
            _ => &joins,
        }
    };
    let options = SelectOptions::new()
        .with_keep_scanning(flags & 4 != 0)
        .with_separator(if flags & 8 != 0 { "\n\n" } else { " " })
        .with_marker(if flags & 16 != 0 { " …" } else { "" })
        .with_min_partial(usize::from(head[3]));

    let selection = select(&chunks, budget, counter, &options);
    let text = selection.text();
    assert!(selection.tokens <= budget);
    if selection.is_empty() {
        assert_eq!(selection.tokens, 0);
    } else {
        assert_eq!(selection.tokens, counter.count(&text));
    }
    let stats = selection.stats();
    assert_eq!(stats.used + stats.dropped, chunks.len());
    let blank = chunks.iter().filter(|(t, _)| t.trim().is_empty()).count();
    assert_eq!(stats.blank, blank);
    assert!(stats.dropped >= stats.blank);
    for chosen in &selection.chunks {
        let source = &chunks[chosen.index].0;
        assert!(source.starts_with(chosen.text));
        assert_eq!(chosen.is_cut(), chosen.text.len() < source.len());
        assert!(!chosen.text.trim().is_empty());
    }
    let mut whole = vec![false; chunks.len()];
    for chosen in selection.chunks.iter().filter(|c| !c.is_cut()) {
        whole[chosen.index] = true;
    }
    let every_chunk_whole = chunks
        .iter()
        .zip(&whole)
        .all(|((t, _), &kept)| kept || t.trim().is_empty());
    assert_eq!(selection.is_complete(), every_chunk_whole);

    // Without scanning, the cut chunk does not fit whole after the chunks before it
    // (the joined text is tested at most 8 times a call: sure up to 8 chunks).
    let cut = selection.chunks.last().filter(|c| c.is_cut());
    if let Some(cut) = cut.filter(|_| !options.keep_scanning() && selection.chunks.len() <= 8) {
        let mut texts: Vec<&str> = selection.chunks.iter().map(|c| c.text).collect();
        texts.pop();
        texts.push(&chunks[cut.index].0);
        let joined = texts.join(options.separator());
        assert!(counter.count(&joined) > budget, "{joined:?} fits {budget}");
    }
});
