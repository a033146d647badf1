//! The trimming engine on arbitrary text, budgets and options: never panics, and
//! every invariant of `trim_with` holds.
//!
//! Input: 2 bytes of budget (little endian), 1 byte of options (counter, kept
//! part, hard limit, minimum fill), then the text (lossy UTF-8).
#![no_main]

use ctxbudget::{CharEstimate, Keep, Tiktoken, TokenCounter, TrimOptions, trim_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes([head[0], head[1]]) % 2048);
    let flags = head[2];
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();

    let words = |t: &str| t.split_whitespace().count();
    let bytes = |t: &str| t.len();
    let tiktoken = Tiktoken::o200k_base();
    let counter: &dyn TokenCounter = match flags % 4 {
        0 => &CharEstimate,
        1 => &words,
        2 => &bytes,
        _ => &tiktoken,
    };
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
    // Idempotent, and (with a hard limit: the seed's soft mode returns a text whole
    // when its first word is over, and cuts it once the word fits) monotone.
    let again = trim_with(result.kept, budget, counter, &options);
    assert_eq!(again.kept, result.kept);
    if hard_limit {
        let larger = trim_with(text, budget + 1 + usize::from(flags % 7), counter, &options);
        assert!(larger.kept.len() >= result.kept.len());
    }
});
