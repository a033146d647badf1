//! Disclosure on arbitrary text and budgets: never panics, the estimate cut fits
//! its budget and is a prefix, `disclose_within`'s text plus note fit theirs, a cut
//! text never ends on a heading, and a too-small budget's error names the least
//! budget that works.
//!
//! Input: 2 bytes of budget (little endian), 1 byte choosing the counter, then the
//! text (lossy UTF-8).
#![no_main]

use ctxbudget::{
    CharEstimate, TokenCounter, disclose_within, disclosure::DisclosureError,
    disclosure::disclosure_trailer, disclosure::estimate, disclosure::heading_boundary_keep_count,
    disclosure::truncate_at_section_boundary,
};
use libfuzzer_sys::fuzz_target;

/// Whether `lines` end on a heading: their last non-blank line outside a
/// triple-backtick fence starts with `#`.
fn ends_on_heading(lines: &[&str]) -> bool {
    let mut in_fence = false;
    let mut last = None;
    for line in lines {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            last = Some(false);
        } else if !in_fence && !trimmed.is_empty() {
            last = Some(trimmed.starts_with('#'));
        }
    }
    last == Some(true)
}

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes([head[0], head[1]]));
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();
    let lines: Vec<&str> = text.lines().collect();

    let cut = truncate_at_section_boundary(text, budget);
    assert!(estimate(cut.rendered) <= budget);
    assert!(text.starts_with(cut.rendered));
    assert!(cut.shown <= cut.total);
    assert_eq!(cut.total, lines.len());
    assert_eq!(cut.truncated, cut.shown < cut.total);
    if cut.truncated {
        assert!(!ends_on_heading(&lines[..cut.shown]), "{:?}", cut.rendered);
    }
    let keep = heading_boundary_keep_count(&lines, usize::from(head[2]));
    assert!(keep <= lines.len());
    if keep < lines.len() {
        assert!(!ends_on_heading(&lines[..keep]));
    }
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
            if out.truncated {
                assert!(!ends_on_heading(&lines[..out.shown]), "{:?}", out.rendered);
            }
        }
        Err(
            err @ DisclosureError::BudgetTooSmall {
                needed,
                budget: b,
                over,
            },
        ) => {
            assert_eq!(b, budget);
            assert!(needed > budget);
            assert_eq!(over, needed - budget);
            let message = err.to_string();
            assert!(message.contains(&format!("raise the budget to at least {needed} tokens")));
            // That budget works.
            assert!(disclose_within(text, needed, counter, "lines", "read it").is_ok());
        }
        Err(err) => panic!("unexpected error: {err}"),
    }
});
