//! The trimming engine on arbitrary text, budgets and options: never panics, and
//! every invariant of `trim_with` holds.
//!
//! Input: 2 bytes of budget (little endian), 1 byte of options (counter, kept
//! part, hard limit, minimum fill), then the text (lossy UTF-8).
#![no_main]

use ctxbudget::{CharEstimate, Tiktoken, TokenCounter};
use libfuzzer_sys::fuzz_target;

#[path = "trim_checks.rs"]
mod trim_checks;

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
    trim_checks::check_trim(text, budget, counter, flags, flags % 4 == 3);
});
