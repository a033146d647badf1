//! Chunk selection on arbitrary chunks, scores, budgets and options: never panics,
//! the joined text's count is the reported count and within the budget, and every
//! chosen text is a prefix of its chunk.
//!
//! Input: 2 bytes of budget (little endian; `0xFFFF` means `usize::MAX`), 1 byte of
//! options (counter, keep-scanning, separator, marker), 1 byte of minimum partial,
//! then chunks separated by `0xFF`, each led by 1 byte choosing its score.
#![no_main]

use ctxbudget::{CharEstimate, select::SelectOptions, TokenCounter, select};
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
    let counter: &dyn TokenCounter = match flags % 4 {
        0 => &CharEstimate,
        1 => &words,
        2 => &bytes,
        _ => &joins,
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
    for chosen in &selection.chunks {
        let source = &chunks[chosen.index].0;
        assert!(source.starts_with(chosen.text));
        assert_eq!(chosen.is_cut(), chosen.text.len() < source.len());
    }
});
