//! The checks the `trim` and `trim_tokenizers` targets share: trim `text` to
//! `budget` with options chosen by `flags`, and assert the engine's contract.

use ctxbudget::{Keep, TokenCounter, TrimOptions, trim_with};

/// Trims `text` with `counter` under the options `flags` picks (keep mode, hard or
/// soft limit, `min_fill`) and checks: the result is the reported sub-slice, its
/// count is the counter's own, it fits (hard limit), it is a prefix or suffix with no
/// whitespace at the cut, trimming it again changes nothing, and a larger budget
/// never keeps less, but for the documented exception of a byte-pair counter
/// (`byte_pair`): inside one stretch without split points, or before a part whose
/// count is over the larger budget.
pub fn check_trim(text: &str, budget: usize, counter: &dyn TokenCounter, flags: u8, byte_pair: bool) {
    let keep = match (flags >> 2) % 3 {
        0 => Keep::Head,
        1 => Keep::Tail,
        _ => Keep::HeadAndTail,
    };
    let hard_limit = (flags >> 4) & 1 == 0;
    let min_fill = f64::from(flags >> 5) / 7.0;
    let options = TrimOptions::new()
        .keep(keep)
        .with_hard_limit(hard_limit)
        .with_min_fill(min_fill);

    let result = trim_with(text, budget, counter, &options);
    assert_eq!(&text[result.kept_range.clone()], result.kept);
    if keep == Keep::HeadAndTail {
        assert_eq!(result.tokens, counter.count(&result.text()));
        // Soft mode may return a text whole when its first word is over.
        assert!(result.tokens <= budget || !hard_limit);
        assert!(text.starts_with(result.kept));
        if let Some(tail) = result.tail {
            assert!(text.ends_with(tail));
        }
        return;
    }
    assert_eq!(result.tokens, counter.count(result.kept));
    if !result.cut {
        assert_eq!(result.kept, text);
    }
    if hard_limit || result.cut {
        assert!(result.tokens <= budget, "{} > {budget}", result.tokens);
    }
    match keep {
        Keep::Head => {
            assert!(text.starts_with(result.kept));
            if result.cut {
                assert_eq!(result.kept.trim_end(), result.kept);
            }
        }
        _ => {
            assert!(text.ends_with(result.kept));
            if result.cut {
                assert_eq!(result.kept.trim_start(), result.kept);
            }
        }
    }
    // Idempotent, and (with a hard limit: soft mode returns a text whole when its
    // first word is over, and cuts it once the word fits) monotone.
    let again = trim_with(result.kept, budget, counter, &options);
    assert_eq!(again.kept, result.kept);
    if hard_limit {
        let more = budget + 1 + usize::from(flags % 7);
        let larger = trim_with(text, more, counter, &options);
        if larger.kept.len() < result.kept.len() {
            // Only where counts shrink as text grows (a byte-pair dip): some part
            // between the two results costs more than the larger budget.
            let (short, long) = (larger.kept.len(), result.kept.len());
            let over = (short + 1..=long).filter(|&n| match keep {
                Keep::Head => text.is_char_boundary(n),
                _ => text.is_char_boundary(text.len() - n),
            });
            let part = |n: usize| match keep {
                Keep::Head => &text[..n],
                _ => &text[text.len() - n..],
            };
            let dip = over.into_iter().any(|n| counter.count(part(n)) > more);
            // The two cuts, as offsets, and whether a split point lies between.
            let (low, high) = match keep {
                Keep::Head => (short, long),
                _ => (text.len() - long, text.len() - short),
            };
            let split_between = counter
                .next_split(text, low + 1)
                .is_some_and(|at| at < high);
            assert!(
                dip || byte_pair && !split_between,
                "a larger budget kept less, across a split point and with no dip in the counts"
            );
        }
    }
}
