//! Ranked chunks fitted to arbitrary budgets under every policy: never panics, the
//! fitted text's count is the reported count and within the budget, blank chunks are
//! neither sent nor counted, and `policy = never` keeps every chunk or reports a real
//! excess.
//!
//! Input: 2 bytes of budget (little endian; `0xFFFF` means `usize::MAX`), 1 byte of
//! options (counter, policy), then chunks separated by `0xFF`, each led by 1 byte
//! choosing its score.
#![no_main]

use ctxbudget::assemble::{FitError, LayerPolicy, fit_ranked};
use ctxbudget::select::RankedChunk;
use ctxbudget::{CharEstimate, TokenCounter};
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
    let Some((head, rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let budget = match u16::from_le_bytes([head[0], head[1]]) {
        u16::MAX => usize::MAX,
        b => usize::from(b),
    };
    let flags = head[2];
    let chunks: Vec<RankedChunk> = rest
        .split(|&b| b == 0xFF)
        .map(|chunk| match chunk.split_first() {
            Some((&s, text)) => {
                let score = if s < 8 {
                    SCORES[usize::from(s)]
                } else {
                    f64::from(s) / 7.0
                };
                RankedChunk::new(String::from_utf8_lossy(text), score)
            }
            None => RankedChunk::new("", 0.0),
        })
        .collect();

    let words = |t: &str| t.split_whitespace().count();
    let bytes = |t: &str| t.len();
    // Charges for every blank line: counts that do not add up across separators.
    let joins = |t: &str| CharEstimate.count(t) + 3 * t.matches("\n\n").count();
    // Near `usize::MAX` for any text with a `z`: sums that must not overflow.
    let huge = |t: &str| if t.contains('z') { usize::MAX - 1 } else { t.len() };
    let counter: &dyn TokenCounter = match flags % 5 {
        0 => &CharEstimate,
        1 => &words,
        2 => &bytes,
        3 => &joins,
        _ => &huge,
    };
    let policy = match (flags >> 3) % 5 {
        0 => LayerPolicy::Head,
        1 => LayerPolicy::Tail,
        2 => LayerPolicy::HeadAndTail,
        3 => LayerPolicy::disclose("read it"),
        _ => LayerPolicy::Never,
    };
    let non_blank = chunks.iter().filter(|c| !c.text.trim().is_empty()).count();

    match fit_ranked(&chunks, budget, counter, &policy) {
        Ok(fitted) => {
            assert!(fitted.tokens <= budget);
            assert_eq!(fitted.tokens, counter.count(&fitted.text));
            assert_eq!(fitted.total, non_blank);
            assert!(fitted.kept <= fitted.total);
            if policy == LayerPolicy::Never {
                assert_eq!(fitted.kept, non_blank);
            }
            for chunk in &chunks {
                if !chunk.text.trim().is_empty() && fitted.kept == non_blank {
                    assert!(fitted.text.contains(chunk.text.as_str()));
                }
            }
        }
        Err(FitError::NeverCut { tokens, budget: b, over }) => {
            assert_eq!(policy, LayerPolicy::Never);
            assert_eq!(b, budget);
            assert!(tokens > budget);
            assert_eq!(over, tokens - budget);
        }
        Err(err) => panic!("unexpected error: {err}"),
    }
});
