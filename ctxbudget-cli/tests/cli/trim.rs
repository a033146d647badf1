//! `ctxbudget trim`.

use ctxbudget::{Keep, TokenCounter, TrimOptions, count::Tiktoken, trim_with};
use serde_json::Value;

use crate::support::{arg, fixture, fixture_text, run};

/// What the library makes of `text` with `options`.
fn library(text: &str, budget: usize, options: &TrimOptions) -> String {
    trim_with(text, budget, &Tiktoken::o200k_base(), options)
        .text()
        .into_owned()
}

#[test]
fn head_is_a_prefix_within_the_budget() {
    let text = fixture_text("guide.md");
    let path = fixture("guide.md");
    let out = run(&["trim", "--tokens", "60", arg(&path)], b"");
    let kept = out.ok();
    assert!(text.starts_with(kept) && kept.len() < text.len());
    assert!(Tiktoken::o200k_base().count(kept) <= 60);
    assert_eq!(kept, library(&text, 60, &TrimOptions::new()));
    assert!(
        out.stderr.is_empty(),
        "no report unless asked: {}",
        out.stderr
    );
}

#[test]
fn tail_from_standard_input_is_a_suffix() {
    let text = fixture_text("guide.md");
    let out = run(&["trim", "-n", "45", "--keep", "tail"], text.as_bytes());
    let kept = out.ok();
    assert!(text.ends_with(kept) && !kept.is_empty() && kept.len() < text.len());
    assert_eq!(
        kept,
        library(&text, 45, &TrimOptions::new().keep(Keep::Tail))
    );
}

#[test]
fn both_keeps_head_and_tail_around_the_marker() {
    let text = fixture_text("guide.md");
    let out = run(
        &["trim", "-n", "80", "-k", "both", "--marker", "\n<cut>\n"],
        text.as_bytes(),
    );
    let kept = out.ok();
    let (head, tail) = kept.split_once("\n<cut>\n").expect("the marker is there");
    assert!(text.starts_with(head) && text.ends_with(tail), "{kept}");
    assert!(Tiktoken::o200k_base().count(kept) <= 80);
    let options = TrimOptions::new()
        .keep(Keep::HeadAndTail)
        .with_elision("\n<cut>\n");
    assert_eq!(kept, library(&text, 80, &options));
    // The default marker.
    let kept = run(&["trim", "-n", "80", "-k", "both"], text.as_bytes())
        .ok()
        .to_owned();
    assert!(kept.contains(TrimOptions::DEFAULT_ELISION), "{kept}");
}

#[test]
fn text_that_fits_comes_back_byte_for_byte() {
    let text = "No trailing newline, two  spaces,\r\nand a CRLF.   ";
    let out = run(&["trim", "-n", "1000"], text.as_bytes());
    assert_eq!(out.stdout, text.as_bytes());
}

#[test]
fn the_report_is_one_line_of_json_on_stderr() {
    let text = fixture_text("guide.md");
    let out = run(&["trim", "-n", "50", "--report"], text.as_bytes());
    let kept = out.ok().to_owned();
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stderr).unwrap();
    assert_eq!(report["tokens"], Tiktoken::o200k_base().count(&kept));
    assert_eq!(report["budget"], 50);
    assert_eq!(report["cut"], true);
    assert_eq!(report["keep"], "head");
    assert_eq!(report["input_bytes"], text.len());
    assert_eq!(report["output_bytes"], kept.len());
    assert_eq!(report["kept_range"], serde_json::json!([0, kept.len()]));
    assert_eq!(report["counter"], "o200k_base");
    assert!(report["boundary"].is_string());
    let uncut = run(&["trim", "-n", "5000", "--report"], text.as_bytes());
    let report: Value = serde_json::from_str(&uncut.stderr).unwrap();
    assert_eq!(report["cut"], false);
    assert_eq!(report["boundary"], Value::Null);
}

#[test]
fn bad_arguments_fail_with_the_fix() {
    run(&["trim", "-n", "5", "--marker", "x"], b"text")
        .fails(1, "`--marker` is only used with `--keep both`");
    run(&["trim", "guide.md"], b"").fails(1, "--tokens <N>");
    run(&["trim", "-n", "lots"], b"").fails(1, "invalid value 'lots'");
    run(&["trim", "-n", "5", "--keep", "middle"], b"")
        .fails(1, "[possible values: head, tail, both]");
    run(&["trim", "-n", "5", "missing.md"], b"").fails(1, "cannot read `missing.md`");
    run(&["trim", "-n", "5"], b"\xff\xfe").fails(1, "not UTF-8 text");
}

#[test]
fn a_model_of_the_catalogue_chooses_the_counter() {
    let text = fixture_text("guide.md");
    let claude = ctxbudget::models::Model::lookup("claude-sonnet-4-5")
        .unwrap()
        .counter()
        .unwrap();
    let expected = trim_with(&text, 60, &claude, &TrimOptions::new())
        .text()
        .into_owned();
    assert_ne!(expected, library(&text, 60, &TrimOptions::new()));
    let out = run(
        &[
            "trim",
            "-n",
            "60",
            "--model",
            "claude-sonnet-4-5",
            "--report",
        ],
        text.as_bytes(),
    );
    assert_eq!(out.ok(), expected);
    let report: Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert!(
        report["counter"]
            .as_str()
            .unwrap()
            .starts_with("claude-sonnet-4-5"),
        "{report}"
    );
    run(&["trim", "-n", "60", "--model", "claude-sonet-4-5"], b"x")
        .fails(1, "did you mean `claude-sonnet-4-5`");
}
