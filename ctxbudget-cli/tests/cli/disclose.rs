//! `ctxbudget disclose`.

use ctxbudget::{TokenCounter, count::Tiktoken, disclose_within};
use serde_json::Value;

use crate::support::{arg, fixture, fixture_text, run};

#[test]
fn prints_the_shown_lines_and_the_note() {
    let text = fixture_text("guide.md");
    let path = fixture("guide.md");
    let out = run(
        &[
            "disclose",
            "--tokens",
            "150",
            "--recovery",
            "read guide.md",
            "--report",
            arg(&path),
        ],
        b"",
    );
    let shown = out.ok();
    let counter = Tiktoken::o200k_base();
    let expected = disclose_within(&text, 150, &counter, "lines", "read guide.md").unwrap();
    assert_eq!(shown, expected.text());
    assert!(shown.ends_with("; full text: read guide.md>"), "{shown}");
    assert!(counter.count(shown) <= 150);
    let report: Value = serde_json::from_str(&out.stderr).unwrap();
    assert_eq!(report["shown"], expected.shown);
    assert_eq!(report["total"], expected.total);
    assert_eq!(report["truncated"], true);
    assert_eq!(report["tokens"], counter.count(shown));
}

#[test]
fn a_document_that_fits_is_unchanged() {
    let text = "# Title\n\nShort.\n";
    let out = run(&["disclose", "-n", "100", "-r", "read it"], text.as_bytes());
    assert_eq!(out.ok(), text);
}

#[test]
fn a_budget_below_the_note_exits_2_with_the_least_budget() {
    let text = fixture_text("guide.md");
    let out = run(
        &["disclose", "-n", "3", "-r", "read guide.md"],
        text.as_bytes(),
    );
    out.fails(2, "the omission note alone costs");
    assert!(
        out.stderr.contains("raise the budget to at least"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_blank_recovery_fails() {
    run(&["disclose", "-n", "100", "-r", "  "], b"text").fails(1, "the recovery text is blank");
    run(&["disclose", "-n", "100"], b"text").fails(1, "--recovery <TEXT>");
}
