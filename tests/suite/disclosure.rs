//! Disclosure: the chars/4 estimate, the section-boundary cut and the omission note in
//! the format of Harn's `std/context/disclosure`, and the counter variant whose text
//! and note fit the budget together.

use ctxbudget::{
    CharEstimate, TokenCounter, disclose_within, disclosure::DisclosureError,
    disclosure::disclosure_trailer, disclosure::estimate, disclosure::heading_boundary_keep_count,
    disclosure::truncate_at_section_boundary,
};
use proptest::prelude::*;

const FIXTURE: &str = include_str!("../fixtures/aho-corasick-docs.md");

fn cl100k(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The lines as the docs define them: split on `'\n'`, a final `'\n'` ends the last
/// line, the empty text has none.
fn lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// Whether `lines` end on a heading: their last non-blank line outside a
/// triple-backtick fence starts with `#` (written apart from the library's scan).
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

/// The requested lines, by brute force: the largest `k` whose first `k` lines,
/// joined, have an estimate within the budget.
fn requested(text: &str, budget: usize) -> usize {
    if budget == 0 {
        return 0;
    }
    let lines = lines(text);
    (0..=lines.len())
        .rev()
        .find(|&k| estimate(lines[..k].join("\n").as_str()) <= budget)
        .unwrap_or(0)
}

#[test]
fn estimate_is_ceil_chars_over_four() {
    assert_eq!(estimate(None), 0);
    assert_eq!(estimate(""), 0);
    assert_eq!(estimate(Some("")), 0);
    assert_eq!(estimate("a"), 1);
    assert_eq!(estimate("abcd"), 1);
    assert_eq!(estimate("abcde"), 2);
    // Characters, not bytes.
    assert_eq!(estimate("ééééé"), 2);
    assert_eq!(estimate("x".repeat(4001).as_str()), 1001);
}

#[test]
fn text_that_fits_is_unchanged() {
    let text = "# Title\n\nbody\n";
    let cut = truncate_at_section_boundary(text, estimate(text));
    assert_eq!(cut.rendered, text);
    assert_eq!((cut.shown, cut.total, cut.truncated), (3, 3, false));
    let empty = truncate_at_section_boundary("", 0);
    assert_eq!(
        (empty.rendered, empty.shown, empty.total, empty.truncated),
        ("", 0, 0, false)
    );
}

#[test]
fn zero_budget_keeps_no_lines() {
    for text in ["\n", "a", "# h\n\nbody", "\n\n\n"] {
        let cut = truncate_at_section_boundary(text, 0);
        assert_eq!(cut.rendered, "", "{text:?}");
        assert_eq!(cut.shown, 0);
        assert_eq!(cut.total, lines(text).len());
        assert!(cut.truncated);
    }
}

#[test]
fn line_counts_include_empty_lines() {
    // 6 lines, 2 of them empty; 3 tokens request "# A\n\nfirst" (10 chars).
    let text = "# A\n\nfirst\n\nsecond line\nthird line\n";
    let cut = truncate_at_section_boundary(text, 3);
    assert_eq!(cut.total, 6);
    assert_eq!(cut.shown, 3);
    assert_eq!(cut.rendered, "# A\n\nfirst");
}

#[test]
fn backs_up_to_the_heading_when_half_survives() {
    let text = "# One\nalpha\nbeta\n# Two\ngamma\ndelta\nepsilon\n";
    // 9 tokens = 36 chars request 6 lines ("...\ngamma\ndelta" is 34 chars).
    assert_eq!(requested(text, 9), 6);
    let cut = truncate_at_section_boundary(text, 9);
    // The heading `# Two` is at index 3: 3 >= 6 / 2, so back up; the heading goes
    // with its section.
    assert_eq!(cut.rendered, "# One\nalpha\nbeta");
    assert_eq!((cut.shown, cut.total, cut.truncated), (3, 7, true));
}

#[test]
fn keeps_the_requested_cut_when_backing_up_loses_more_than_half() {
    let text = "# One\nalpha\n# Two\nl1\nl2\nl3\nl4\nl5\nl6\n";
    // 8 tokens = 32 chars request 8 lines (29 chars); the last boundary is at 2.
    assert_eq!(requested(text, 8), 8);
    let cut = truncate_at_section_boundary(text, 8);
    assert_eq!(cut.shown, 8);
    assert_eq!(cut.rendered, "# One\nalpha\n# Two\nl1\nl2\nl3\nl4\nl5");
}

#[test]
fn crlf_endings_cut_like_lf_and_leave_no_stray_cr() {
    let crlf = "# One\r\nalpha\r\nbeta\r\n# Two\r\ngamma\r\ndelta\r\nepsilon\r\n";
    // 10 tokens = 40 chars request 6 lines (39 chars with their `\r\n`s), then back
    // up to before `# Two`, as for `\n` endings.
    let cut = truncate_at_section_boundary(crlf, 10);
    assert_eq!(cut.rendered, "# One\r\nalpha\r\nbeta");
    assert_eq!((cut.shown, cut.total, cut.truncated), (3, 7, true));

    // One token per line: 4 lines and the note fit 5, then the cut backs up to 3.
    let per_line = |t: &str| t.lines().count();
    let out = disclose_within(crlf, 5, &per_line, "lines", "read it").unwrap();
    assert_eq!(out.rendered, "# One\r\nalpha\r\nbeta");
    assert_eq!(
        out.text(),
        "# One\r\nalpha\r\nbeta\n<truncated: showing 3 of 7 lines; full text: read it>"
    );
}

#[test]
fn blank_lines_after_a_heading_do_not_advance_the_boundary() {
    let lines = ["intro", "# Section", "", "", "body", "body", "body"];
    // A blank right after `# Section` would be at 2 or 3; the boundary stays at 1.
    // That keeps less than half of 4, but the 4 lines end on the heading, so the cut
    // backs up before it all the same.
    assert_eq!(heading_boundary_keep_count(&lines, 4), 1);
    assert_eq!(heading_boundary_keep_count(&lines, 2), 1);
    // With body text kept, the boundary at 1 keeps less than half of 6: keep 6.
    assert_eq!(heading_boundary_keep_count(&lines, 6), 6);
    // A blank after body text is a boundary.
    let lines = ["# A", "text", "", "more", "more"];
    assert_eq!(heading_boundary_keep_count(&lines, 4), 2);
}

#[test]
fn headings_inside_code_fences_are_not_boundaries() {
    let lines = [
        "# Real",
        "text",
        "```sh",
        "# comment",
        "",
        "echo hi",
        "```",
        "after",
    ];
    // Without the fence, `# comment` (3) or the blank (4) would be the boundary.
    assert_eq!(heading_boundary_keep_count(&lines, 6), 6);
    // After the fence closes, boundaries count again.
    let lines = ["# Real", "```", "# c", "```", "", "x", "y"];
    assert_eq!(heading_boundary_keep_count(&lines, 6), 4);
    // A blank before the fence is a boundary, used only when it keeps half.
    let lines = ["intro", "", "```", "", "code", "```", "after"];
    assert_eq!(heading_boundary_keep_count(&lines, 6), 6);
    assert_eq!(heading_boundary_keep_count(&lines, 2), 1);
}

#[test]
fn a_cut_never_ends_on_a_heading_run() {
    // Cutting before `## B` used to keep `# A` alone: a heading with no text.
    let text = "# A\n## B\ntext\n";
    let cut = truncate_at_section_boundary(text, 2);
    assert_eq!((cut.rendered, cut.shown, cut.total), ("", 0, 3));
    assert_eq!(heading_boundary_keep_count(&lines(text), 1), 0);
    // After text, the cut backs up before the whole run, blank lines between
    // headings included.
    let text = "intro\ntext\nmore\n# A\n\n## B\nbody\n";
    let lines = lines(text);
    for keep in 4..=6 {
        assert_eq!(heading_boundary_keep_count(&lines, keep), 3, "keep {keep}");
    }
    // 5 tokens request "intro\ntext\nmore\n# A\n" (20 chars), 5 lines.
    let cut = truncate_at_section_boundary(text, 5);
    assert_eq!(cut.rendered, "intro\ntext\nmore");
    // Even when that keeps less than half of the requested lines.
    let lines = ["intro", "# A", "## B", "", "### C", "body"];
    assert_eq!(heading_boundary_keep_count(&lines, 5), 1);
    // A `#` inside a fence is no heading.
    let lines = ["intro", "```", "# comment", "```", "# A", "## B", "body"];
    assert_eq!(heading_boundary_keep_count(&lines, 3), 3);
    assert_eq!(heading_boundary_keep_count(&lines, 6), 4);

    // The counter variant: one token per word, the note costs 10. Two lines and the
    // note fit 14 tokens; the cut used to show `# A` alone.
    let words = |t: &str| t.split_whitespace().count();
    let body = "text ".repeat(20);
    let text = format!("# A\n## B\n{body}\n");
    let out = disclose_within(&text, 14, &words, "lines", "read it").unwrap();
    assert_eq!((out.rendered, out.shown), ("", 0));
    assert_eq!(
        out.text(),
        "<truncated: showing 0 of 3 lines; full text: read it>"
    );
    let text = format!("intro text\n# A\n## B\n{body}\n");
    let out = disclose_within(&text, 16, &words, "lines", "read it").unwrap();
    assert_eq!((out.rendered, out.shown), ("intro text", 1));
}

#[test]
fn keep_count_is_clamped() {
    let lines = ["a", "", "b"];
    assert_eq!(heading_boundary_keep_count(&lines, usize::MAX), 3);
    assert_eq!(heading_boundary_keep_count(&lines, 0), 0);
    assert_eq!(heading_boundary_keep_count::<&str>(&[], 5), 0);
}

#[test]
fn trailer_format() {
    assert_eq!(
        disclosure_trailer(2, 5, "lines", "read AGENTS.md").unwrap(),
        "<truncated: showing 2 of 5 lines; full text: read AGENTS.md>"
    );
    assert_eq!(
        disclosure_trailer(5, 5, "lines", "read AGENTS.md").unwrap(),
        ""
    );
    assert_eq!(
        disclosure_trailer(9, 5, "lines", "read AGENTS.md").unwrap(),
        ""
    );
    assert_eq!(
        disclosure_trailer(0, usize::MAX, "", "call get_doc(7)").unwrap(),
        format!(
            "<truncated: showing 0 of {} items; full text: call get_doc(7)>",
            usize::MAX
        )
    );
    assert_eq!(
        disclosure_trailer(1, 2, " \t", "x").unwrap(),
        "<truncated: showing 1 of 2 items; full text: x>"
    );
    for blank in ["", "  ", "\n\t"] {
        // Even when nothing was omitted.
        assert_eq!(
            disclosure_trailer(5, 5, "lines", blank),
            Err(DisclosureError::BlankRecovery)
        );
        assert_eq!(
            disclosure_trailer(1, 5, "lines", blank),
            Err(DisclosureError::BlankRecovery)
        );
    }
}

#[test]
fn documented_example_on_the_fixture() {
    let cut = truncate_at_section_boundary(FIXTURE, 8);
    let note = disclosure_trailer(cut.shown, cut.total, "lines", "read DESIGN.md").unwrap();
    assert!(cut.truncated);
    assert_eq!(cut.total, 656);
    assert!(estimate(cut.rendered) <= 8);
    assert_eq!(
        note,
        format!(
            "<truncated: showing {} of 656 lines; full text: read DESIGN.md>",
            cut.shown
        )
    );
}

#[test]
fn counter_variant_fits_text_and_note_together_on_real_markdown() {
    for budget in [40, 100, 500, 2_000, 5_000] {
        let out = disclose_within(FIXTURE, budget, &cl100k, "lines", "read DESIGN.md").unwrap();
        let text = out.text();
        assert!(
            cl100k(&text) <= budget,
            "budget {budget}: {} tokens",
            cl100k(&text)
        );
        assert_eq!(out.tokens, cl100k(&text));
        assert!(out.truncated);
        assert!(FIXTURE.starts_with(out.rendered));
        assert!(text.ends_with(&out.trailer));
        // Not wasteful: one more line (with its note) would not fit, unless the cut
        // backed up to a section boundary.
        let lines = lines(FIXTURE);
        let more = lines[..=out.shown].join("\n");
        let note =
            disclosure_trailer(out.shown + 1, lines.len(), "lines", "read DESIGN.md").unwrap();
        let backed_up = heading_boundary_keep_count(&lines, out.shown + 1) != out.shown + 1;
        assert!(
            backed_up || cl100k(&format!("{more}\n{note}")) > budget || out.shown == 0,
            "budget {budget}: stopped early at {} lines",
            out.shown
        );
    }
    let whole = disclose_within(FIXTURE, 1_000_000, &cl100k, "lines", "x").unwrap();
    assert_eq!(whole.rendered, FIXTURE);
    assert_eq!(whole.trailer, "");
    assert!(!whole.truncated);
}

#[test]
fn counter_variant_shows_every_line_when_only_the_final_newline_is_over() {
    let bytes = |t: &str| t.len();
    // 202 bytes; the two lines without the final `\n` are 201.
    let text = format!("{}\n{}\n", "x".repeat(100), "y".repeat(100));
    let out = disclose_within(&text, 201, &bytes, "lines", "read it").unwrap();
    assert_eq!(out.rendered, &text[..201]);
    assert_eq!((out.shown, out.total, out.truncated), (2, 2, false));
    assert_eq!(out.trailer, "");
    assert_eq!(out.tokens, 201);
    // Even when the note alone would not fit, the lines without the ending do.
    let out = disclose_within("tiny\n", 4, &bytes, "lines", "read it").unwrap();
    assert_eq!((out.rendered, out.shown, out.truncated), ("tiny", 1, false));
    // With CRLF endings the whole "\r\n" is left off.
    let out = disclose_within("ab\r\ncd\r\n", 6, &bytes, "lines", "read it").unwrap();
    assert_eq!((out.rendered, out.shown, out.total), ("ab\r\ncd", 2, 2));
}

#[test]
fn counter_variant_errors() {
    let err = disclose_within(FIXTURE, 3, &CharEstimate, "lines", "read DESIGN.md").unwrap_err();
    let note = "<truncated: showing 0 of 656 lines; full text: read DESIGN.md>";
    let needed = CharEstimate.count(note);
    assert_eq!(
        err,
        DisclosureError::BudgetTooSmall {
            needed,
            budget: 3,
            over: needed - 3
        }
    );
    // The message says what the note costs and what to do.
    assert_eq!(
        err.to_string(),
        format!(
            "the omission note alone costs {needed} tokens but the budget is 3 ({} over): \
             raise the budget to at least {needed} tokens or shorten the recovery action",
            needed - 3
        )
    );
    assert_eq!(needed, 16);
    // The least budget the error names works.
    let out = disclose_within(FIXTURE, needed, &CharEstimate, "lines", "read DESIGN.md").unwrap();
    assert_eq!((out.shown, out.tokens), (0, needed));
    // A blank recovery action is an error even when the text fits.
    assert_eq!(
        disclose_within("short", 100, &CharEstimate, "lines", " "),
        Err(DisclosureError::BlankRecovery)
    );
}

#[test]
fn huge_budgets_and_counts_do_not_overflow() {
    let cut = truncate_at_section_boundary(FIXTURE, usize::MAX);
    assert_eq!(cut.rendered, FIXTURE);
    let out = disclose_within(FIXTURE, usize::MAX, &CharEstimate, "lines", "x").unwrap();
    assert_eq!(out.rendered, FIXTURE);
    // A counter that says every text is enormous: nothing fits, and the error says so.
    let enormous = |_: &str| usize::MAX;
    let err = disclose_within("a\nb", 10, &enormous, "lines", "x").unwrap_err();
    assert_eq!(
        err,
        DisclosureError::BudgetTooSmall {
            needed: usize::MAX,
            budget: 10,
            over: usize::MAX - 10
        }
    );
    assert_eq!(
        heading_boundary_keep_count(&["# a", "", "b"], usize::MAX),
        3
    );
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

fn markdown() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        3 => "[a-zA-Z ,.]{0,30}",
        1 => Just(String::new()),
        1 => "  ",
        1 => "#{1,3} [A-Za-z]{1,10}",
        1 => Just("```".to_owned()),
        1 => "- [a-z éü日本]{0,12}",
    ];
    (prop::collection::vec(line, 0..40), any::<bool>()).prop_map(|(lines, newline)| {
        let mut text = lines.join("\n");
        if newline {
            text.push('\n');
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn estimate_cut_fits_and_is_a_prefix(text in markdown(), budget in 0usize..200) {
        let cut = truncate_at_section_boundary(&text, budget);
        prop_assert!(estimate(cut.rendered) <= budget);
        prop_assert!(text.starts_with(cut.rendered));
        let all = lines(&text);
        prop_assert_eq!(cut.total, all.len());
        prop_assert_eq!(cut.truncated, cut.shown < cut.total);
        if estimate(text.as_str()) <= budget {
            prop_assert_eq!(cut.rendered, text.as_str());
        } else {
            prop_assert_eq!(cut.rendered, all[..cut.shown].join("\n"));
            // The cut is the requested one, a boundary keeping at least half, or
            // before the heading run the requested lines end on.
            let k = requested(&text, budget);
            prop_assert!(
                cut.shown == k
                    || (cut.shown < k && cut.shown * 2 >= k)
                    || ends_on_heading(&all[..k])
            );
            prop_assert_eq!(cut.shown, heading_boundary_keep_count(&all, k));
            // Never on a heading, unless every line is shown (a document that is one
            // heading, over the budget by its final newline alone).
            prop_assert!(
                cut.shown == cut.total || !ends_on_heading(&all[..cut.shown]),
                "{:?}",
                cut.rendered
            );
        }
    }

    #[test]
    fn more_budget_never_shows_fewer_lines(text in markdown(), budget in 0usize..200, extra in 0usize..50) {
        let small = truncate_at_section_boundary(&text, budget);
        let large = truncate_at_section_boundary(&text, budget + extra);
        prop_assert!(large.shown >= small.shown);
    }

    #[test]
    fn keep_count_lands_on_a_boundary_or_the_request(
        text in markdown(),
        keep in 0usize..50,
    ) {
        let all = lines(&text);
        let got = heading_boundary_keep_count(&all, keep);
        let clamped = keep.min(all.len());
        prop_assert!(got <= clamped);
        if got * 2 < clamped {
            // Less than half only to leave a heading run out.
            prop_assert!(ends_on_heading(&all[..clamped]));
        }
        if got != clamped {
            let line = all[got].trim();
            prop_assert!(line.is_empty() || line.starts_with('#'), "cut before {:?}", line);
        }
        if clamped < all.len() {
            prop_assert!(!ends_on_heading(&all[..got]), "{:?}", &all[..got]);
        }
    }

    #[test]
    fn crlf_text_cuts_like_its_lf_twin(text in markdown(), budget in 0usize..120) {
        // Words ignore line endings, so both texts cost the same and cut the same.
        let words = |t: &str| t.split_whitespace().count();
        let crlf = text.replace('\n', "\r\n");
        let lf = disclose_within(&text, budget, &words, "lines", "read it");
        let cr = disclose_within(&crlf, budget, &words, "lines", "read it");
        match (lf, cr) {
            (Ok(lf), Ok(cr)) => {
                prop_assert_eq!((lf.shown, lf.total, lf.truncated), (cr.shown, cr.total, cr.truncated));
                prop_assert_eq!(lf.rendered.replace('\n', "\r\n"), cr.rendered);
                prop_assert_eq!(lf.trailer, cr.trailer);
            }
            (lf, cr) => prop_assert_eq!(lf.err(), cr.err()),
        }
    }

    #[test]
    fn counter_variant_fits_with_its_note(
        text in markdown(),
        budget in 0usize..200,
        words in any::<bool>(),
    ) {
        let word_count = |t: &str| t.split_whitespace().count();
        let counter: &dyn TokenCounter = if words { &word_count } else { &CharEstimate };
        match disclose_within(&text, budget, counter, "lines", "read it") {
            Ok(out) => {
                let joined = out.text();
                prop_assert!(counter.count(&joined) <= budget);
                prop_assert_eq!(out.tokens, counter.count(&joined));
                prop_assert!(text.starts_with(out.rendered));
                prop_assert_eq!(out.truncated, out.shown < out.total);
                prop_assert_eq!(out.trailer.is_empty(), !out.truncated);
                if out.truncated {
                    prop_assert!(!ends_on_heading(&lines(out.rendered)), "{:?}", out.rendered);
                    // Both counters grow with the text, so the search must find the
                    // largest fitting k (brute force here), then back up as the
                    // estimate cut does.
                    let all = lines(&text);
                    let fits = |k: usize| {
                        let note = disclosure_trailer(k, all.len(), "lines", "read it").unwrap();
                        let shown = all[..k].join("\n");
                        let joined = match (k, note.is_empty()) {
                            (0, _) => note,
                            (_, true) => shown,
                            _ => format!("{shown}\n{note}"),
                        };
                        counter.count(&joined) <= budget
                    };
                    let best = (0..=all.len()).rev().find(|&k| fits(k)).unwrap();
                    prop_assert_eq!(out.shown, heading_boundary_keep_count(&all, best));
                }
            }
            Err(DisclosureError::BudgetTooSmall { needed, budget: b, over }) => {
                prop_assert_eq!(b, budget);
                prop_assert!(needed > budget);
                prop_assert_eq!(over, needed - budget);
            }
            Err(other) => prop_assert!(false, "unexpected {}", other),
        }
    }
}
