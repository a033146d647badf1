//! Disclosure on arbitrary text and budgets: never panics, the estimate cut fits
//! its budget and is a prefix, and `disclose_within`'s text plus note fit theirs.
//!
//! Input: 2 bytes of budget (little endian), 1 byte choosing the counter, then the
//! text (lossy UTF-8).
#![no_main]

use ctxbudget::{CharEstimate, disclosure::DisclosureError, TokenCounter, disclose_within, disclosure::disclosure_trailer, disclosure::estimate, disclosure::heading_boundary_keep_count, disclosure::truncate_at_section_boundary};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes([head[0], head[1]]));
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();

    let cut = truncate_at_section_boundary(text, budget);
    assert!(estimate(cut.rendered) <= budget);
    assert!(text.starts_with(cut.rendered));
    assert!(cut.shown <= cut.total);
    assert_eq!(cut.truncated, cut.shown < cut.total);
    let lines: Vec<&str> = text.lines().collect();
    assert!(heading_boundary_keep_count(&lines, usize::from(head[2])) <= lines.len());
    let note = disclosure_trailer(cut.shown, cut.total, "", "read it").unwrap();
    assert_eq!(note.is_empty(), !cut.truncated);

    let words = |t: &str| t.split_whitespace().count();
    let bytes = |t: &str| t.len();
    let counter: &dyn TokenCounter = match head[2] % 3 {
        0 => &CharEstimate,
        1 => &words,
        _ => &bytes,
    };
    match disclose_within(text, budget, counter, "lines", "read it") {
        Ok(out) => {
            let joined = out.text();
            assert!(counter.count(&joined) <= budget);
            assert_eq!(out.tokens, counter.count(&joined));
            assert!(text.starts_with(out.rendered));
            assert!(out.shown <= out.total);
        }
        Err(DisclosureError::BudgetTooSmall { needed, budget: b, over }) => {
            assert_eq!(b, budget);
            assert!(needed > budget);
            assert_eq!(over, needed - budget);
        }
        Err(err) => panic!("unexpected error: {err}"),
    }
});
