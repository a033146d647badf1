//! `ctxbudget batch count` and `ctxbudget batch trim`.

use ctxbudget::{TokenCounter, TrimOptions, count::Tiktoken, trim_with};
use serde_json::{Value, json};

use crate::support::{TempDir, arg, fixture_text, run, run_with};

/// `n` JSON lines `{"id": i, "text": ..., "meta": {...}}` of varied lengths.
fn data_set(n: usize) -> (Vec<String>, String) {
    let guide = fixture_text("guide.md");
    let words: Vec<&str> = guide.split_whitespace().collect();
    let texts: Vec<String> = (0..n)
        .map(|i| words[i % 40..(i % 40) + 5 + (i * 7) % 200].join(" "))
        .collect();
    let jsonl = texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            json!({"id": i, "text": text, "meta": {"source": "guide"}}).to_string() + "\n"
        })
        .collect();
    (texts, jsonl)
}

fn lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn count_adds_each_lines_tokens_in_input_order() {
    let (texts, jsonl) = data_set(300);
    let dir = TempDir::new();
    let input = dir.file("in.jsonl", &jsonl);
    let output = dir.path("out.jsonl");
    let out = run(
        &[
            "batch",
            "count",
            "--input",
            arg(&input),
            "--output",
            arg(&output),
        ],
        b"",
    );
    out.ok();
    assert!(
        out.stderr
            .starts_with("ctxbudget batch count: 300 lines, 300 written, 0 errors"),
        "{}",
        out.stderr
    );
    let written = lines(&std::fs::read_to_string(&output).unwrap());
    assert_eq!(written.len(), 300);
    let counter = Tiktoken::o200k_base();
    for (i, (line, text)) in written.iter().zip(&texts).enumerate() {
        assert_eq!(line["id"], i);
        assert_eq!(line["text"], text.as_str());
        assert_eq!(line["meta"], json!({"source": "guide"}));
        assert_eq!(line["tokens"], counter.count(text));
    }
}

#[test]
fn trim_cuts_each_text_and_keeps_the_other_fields() {
    let (texts, jsonl) = data_set(200);
    let out = run(
        &["batch", "trim", "--tokens", "20", "--tokens-field", "n"],
        jsonl.as_bytes(),
    );
    let written = lines(out.ok());
    assert_eq!(written.len(), 200);
    let counter = Tiktoken::o200k_base();
    let mut cut = 0;
    for (i, (line, text)) in written.iter().zip(&texts).enumerate() {
        let kept = trim_with(text, 20, &counter, &TrimOptions::new());
        assert_eq!(line["id"], i);
        assert_eq!(line["text"], kept.text().as_ref());
        assert_eq!(line["n"], kept.tokens);
        assert!(kept.tokens <= 20);
        cut += usize::from(kept.cut);
    }
    assert!(
        cut > 0 && cut < 200,
        "the data set has texts over and under the budget"
    );
    let summary = format!("200 written ({cut} cut, {} unchanged), 0 errors", 200 - cut);
    assert!(out.stderr.contains(&summary), "{}", out.stderr);
}

#[test]
fn one_thread_and_all_cores_write_the_same() {
    let (_, jsonl) = data_set(150);
    let all = run(
        &["batch", "trim", "-n", "15", "-k", "tail"],
        jsonl.as_bytes(),
    );
    let one = run_with(
        &["batch", "trim", "-n", "15", "-k", "tail"],
        jsonl.as_bytes(),
        &[("RAYON_NUM_THREADS", "1")],
    );
    let two = run(
        &["batch", "trim", "-n", "15", "-k", "tail", "--threads", "2"],
        jsonl.as_bytes(),
    );
    assert_eq!(all.ok(), one.ok());
    assert_eq!(all.ok(), two.ok());
}

#[test]
fn more_lines_than_the_window_come_out_in_order_on_two_threads() {
    // More lines than the engine holds in flight (64 chunks of 64 lines), with bad
    // and blank lines among them: the output, the error lines and the summary are
    // those of the input's order, whatever thread handled a line.
    let n = 10_000;
    let mut input = String::new();
    for i in 1..=n {
        input.push_str(&match i {
            i if i % 97 == 0 => "[\"bad\"]".to_owned(),
            i if i % 50 == 0 => String::new(),
            i => json!({"id": i, "text": "word ".repeat(i % 30)}).to_string(),
        });
        input.push('\n');
    }
    let bad: Vec<usize> = (1..=n).filter(|i| i % 97 == 0).collect();
    let blank = (1..=n).filter(|i| i % 50 == 0 && i % 97 != 0).count();
    let good: Vec<usize> = (1..=n).filter(|i| i % 97 != 0 && i % 50 != 0).collect();
    let dir = TempDir::new();
    let errors = dir.path("errors.jsonl");
    let out = run(
        &["batch", "count", "-j", "2", "--errors", arg(&errors)],
        input.as_bytes(),
    );
    out.fails(
        1,
        &format!(
            "ctxbudget batch count: {n} lines, {} written, {} errors (lines 97, 194, ",
            good.len(),
            bad.len()
        ),
    );
    assert!(out.stderr.contains(&format!("{blank} blank lines skipped")));
    let written = lines(out.out());
    let ids: Vec<usize> = written
        .iter()
        .map(|l| usize::try_from(l["id"].as_u64().unwrap()).unwrap())
        .collect();
    assert_eq!(ids, good);
    let counter = Tiktoken::o200k_base();
    for (line, i) in written.iter().zip(&good) {
        assert_eq!(line["tokens"], counter.count(&"word ".repeat(i % 30)));
    }
    let recorded = lines(&std::fs::read_to_string(&errors).unwrap());
    let numbers: Vec<usize> = recorded
        .iter()
        .map(|r| usize::try_from(r["line"].as_u64().unwrap()).unwrap())
        .collect();
    assert_eq!(numbers, bad);
}

#[test]
fn string_lines_are_texts() {
    let input = "\"Hello there, general reader of this line.\"\n\"short\"\n";
    let counter = Tiktoken::o200k_base();
    let out = run(&["batch", "count"], input.as_bytes());
    assert_eq!(
        out.ok(),
        format!(
            "{{\"tokens\":{}}}\n{{\"tokens\":{}}}\n",
            counter.count("Hello there, general reader of this line."),
            counter.count("short")
        )
    );
    let trimmed = run(&["batch", "trim", "-n", "3"], input.as_bytes());
    let kept = trim_with(
        "Hello there, general reader of this line.",
        3,
        &counter,
        &TrimOptions::new(),
    );
    assert_eq!(
        trimmed.ok(),
        format!("{}\n\"short\"\n", serde_json::to_string(kept.kept).unwrap())
    );
}

#[test]
fn bad_lines_are_reported_by_number_and_nothing_is_lost() {
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"id\": 1, \"text\": \"fine\"}\n");
    input.extend_from_slice(b"{\"id\": 2, \"text\": \"trailing comma\",}\n");
    input.extend_from_slice(b"\n");
    input.extend_from_slice(b"{\"id\": 4, \"body\": \"no text field\"}\n");
    input.extend_from_slice(b"{\"id\": 5, \"text\": \"caf\xe9\"}\n");
    input.extend_from_slice(b"{\"id\": 6, \"text\": 6}\n");
    input.extend_from_slice(b"[\"an array\"]\n");
    input.extend_from_slice(b"{\"id\": 8, \"text\": \"also fine\"}");
    let dir = TempDir::new();
    let errors = dir.path("errors.jsonl");
    let out = run(&["batch", "count", "--errors", arg(&errors)], &input);
    out.fails(
        1,
        "ctxbudget batch count: 8 lines, 2 written, 5 errors (lines 2, 4-7), 1 blank line skipped",
    );
    for expected in [
        "line 2: invalid JSON at column 36: trailing comma",
        "line 4: the object has no `text` field: name the text's field with `--field`",
        "line 5: not UTF-8: the byte at column 23 is not valid UTF-8",
        "line 6: the `text` field is a number, not a string",
        "line 7: a line must be a JSON object or a JSON string, not an array",
    ] {
        assert!(
            out.stderr.contains(expected),
            "{expected:?} in {}",
            out.stderr
        );
    }
    let ids: Vec<Value> = lines(out.out()).iter().map(|l| l["id"].clone()).collect();
    assert_eq!(ids, vec![json!(1), json!(8)]);
    let recorded = lines(&std::fs::read_to_string(&errors).unwrap());
    let numbers: Vec<&Value> = recorded.iter().map(|r| &r["line"]).collect();
    assert_eq!(
        numbers,
        [2, 4, 5, 6, 7].map(Value::from).iter().collect::<Vec<_>>()
    );
    assert!(
        recorded
            .iter()
            .all(|r| r["error"].is_string() && r["over"] == false)
    );
}

#[test]
fn a_field_of_another_name() {
    let input = "{\"body\": \"one two three\"}\n";
    let n = Tiktoken::o200k_base().count("one two three");
    let out = run(
        &[
            "batch",
            "count",
            "--field",
            "body",
            "--tokens-field",
            "cost",
        ],
        input.as_bytes(),
    );
    assert_eq!(
        out.ok(),
        format!("{{\"body\":\"one two three\",\"cost\":{n}}}\n")
    );
}

#[test]
fn files_that_cannot_be_used_fail_before_anything_is_written() {
    let dir = TempDir::new();
    run(
        &["batch", "count", "-i", arg(&dir.path("missing.jsonl"))],
        b"",
    )
    .fails(1, "missing.jsonl`: No such file or directory");
    let input = dir.file("in.jsonl", "\"x\"\n");
    run(
        &["batch", "count", "-i", arg(&input), "-o", arg(&input)],
        b"",
    )
    .fails(1, "is the input file: writing would destroy it");
    assert_eq!(std::fs::read_to_string(&input).unwrap(), "\"x\"\n");
    run(
        &[
            "batch",
            "count",
            "-o",
            arg(&dir.path("no/such/dir/out.jsonl")),
        ],
        b"\"x\"\n",
    )
    .fails(1, "check that its folder exists");
    run(&["batch", "trim", "-n", "5", "--threads", "0"], b"").fails(1, "`--threads 0`");
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let (_, jsonl) = data_set(50);
    let out = run(&["batch", "count"], jsonl.as_bytes());
    out.ok();
    assert_eq!(
        out.stderr.lines().count(),
        1,
        "only the summary: {}",
        out.stderr
    );
    assert!(!out.stderr.contains('\u{1b}') && !out.stderr.contains('\r'));
}

#[test]
fn a_text_key_given_twice_means_its_last_value() {
    let counter = Tiktoken::o200k_base();
    let line = r#"{"id": 1, "text": "short", "text": "the second text, which is longer and wins"}"#;
    let out = run(&["batch", "count"], format!("{line}\n").as_bytes());
    let written = lines(out.ok());
    assert_eq!(
        written[0]["tokens"],
        counter.count("the second text, which is longer and wins")
    );
    // Trimming writes the trimmed last value, once: nothing of the first is merged in.
    let out = run(
        &["batch", "trim", "-n", "3"],
        format!("{line}\n").as_bytes(),
    );
    let kept = trim_with(
        "the second text, which is longer and wins",
        3,
        &counter,
        &TrimOptions::new(),
    );
    assert_eq!(
        out.ok(),
        format!(
            "{{\"id\":1,\"text\":{}}}\n",
            serde_json::to_string(kept.kept).unwrap()
        )
    );
}

#[test]
fn a_byte_order_mark_starts_the_first_line_and_is_skipped() {
    let counter = Tiktoken::o200k_base();
    let input = "\u{feff}{\"text\": \"first line\"}\n{\"text\": \"second\"}\n";
    let out = run(&["batch", "count"], input.as_bytes());
    assert_eq!(
        out.ok(),
        format!(
            "{{\"text\":\"first line\",\"tokens\":{}}}\n{{\"text\":\"second\",\"tokens\":{}}}\n",
            counter.count("first line"),
            counter.count("second")
        )
    );
    let out = run(&["batch", "trim", "-n", "100"], input.as_bytes());
    assert!(
        out.ok().starts_with("{\"text\":\"first line\"}\n"),
        "{}",
        out.out()
    );
    // Only at the start of the input: further on it is text.
    let input = "\"a\"\n\"\u{feff}b\"\n";
    let out = run(&["batch", "count"], input.as_bytes());
    assert_eq!(
        out.ok(),
        format!(
            "{{\"tokens\":{}}}\n{{\"tokens\":{}}}\n",
            counter.count("a"),
            counter.count("\u{feff}b")
        )
    );
}

#[test]
fn a_lone_surrogate_is_named_for_what_it_is() {
    let out = run(&["batch", "count"], b"{\"text\": \"ab\\ud800\"}\n");
    out.fails(
        1,
        "line 1: the `text` string has an escape that is no character at column 19",
    );
    assert!(!out.stderr.contains("not a string"), "{}", out.stderr);
}

#[test]
fn the_count_field_cannot_be_the_texts() {
    run(&["batch", "count", "--tokens-field", "text"], b"\"x\"\n")
        .fails(1, "`--tokens-field text` is the text's field too");
    run(
        &[
            "batch",
            "trim",
            "-n",
            "5",
            "--field",
            "body",
            "--tokens-field",
            "body",
        ],
        b"\"x\"\n",
    )
    .fails(1, "`--tokens-field body` is the text's field too");
}

#[test]
fn the_summary_names_the_first_bad_lines_and_counts_the_rest() {
    // Every other line bad: line numbers that do not fold into ranges.
    let input: String = (0..30_000)
        .map(|i| {
            if i % 2 == 0 {
                "{\"text\": 1}\n"
            } else {
                "\"fine\"\n"
            }
        })
        .collect();
    let dir = TempDir::new();
    let errors = dir.path("errors.jsonl");
    let out = run(
        &["batch", "count", "--errors", arg(&errors)],
        input.as_bytes(),
    );
    out.fails(
        1,
        "30000 lines, 15000 written, 15000 errors (lines 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, \
         21, 23, 25, 27, 29, 31, 33, 35, 37, 39, …)",
    );
    assert!(out.stderr.len() < 4_000, "{} bytes", out.stderr.len());
    assert!(
        out.stderr
            .contains("... and 14980 more (all of them in the --errors file)"),
        "{}",
        out.stderr
    );
    let recorded = std::fs::read_to_string(&errors).unwrap();
    assert_eq!(recorded.lines().count(), 15_000);
}
