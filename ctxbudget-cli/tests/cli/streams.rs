//! Where output goes when it must not: into the input, into two writers at once, into
//! a closed pipe, onto a full disk. Nothing is lost without a message and an exit
//! code that say so.

use std::io::{Read, Write};
use std::process::Stdio;

use crate::support::{TempDir, arg, code, command, full_disk, run};

/// `n` lines, every other one bad input (`text` is a number).
fn half_bad(n: usize) -> String {
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                format!("{{\"id\": {i}, \"text\": \"line {i} is fine\"}}\n")
            } else {
                format!("{{\"id\": {i}, \"text\": {i}}}\n")
            }
        })
        .collect()
}

#[test]
fn errors_written_to_the_input_are_refused_before_it_is_read() {
    let dir = TempDir::new();
    let data = half_bad(2_000);
    let input = dir.file("in.jsonl", &data);
    run(
        &["batch", "count", "-i", arg(&input), "--errors", arg(&input)],
        b"",
    )
    .fails(1, "is the input file: writing would destroy it");
    assert_eq!(std::fs::read_to_string(&input).unwrap(), data);
}

#[test]
fn a_hard_link_to_the_input_is_the_input() {
    let dir = TempDir::new();
    let data = half_bad(100);
    let input = dir.file("in.jsonl", &data);
    let link = dir.path("link.jsonl");
    std::fs::hard_link(&input, &link).unwrap();
    for option in ["-o", "--errors"] {
        run(
            &["batch", "count", "-i", arg(&input), option, arg(&link)],
            b"",
        )
        .fails(1, "is the input file: writing would destroy it");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), data, "{option}");
    }
}

#[test]
fn the_file_behind_standard_input_is_the_input() {
    let dir = TempDir::new();
    let data = half_bad(100);
    let input = dir.file("in.jsonl", &data);
    for option in ["-o", "--errors"] {
        let output = command(&["batch", "count", option, arg(&input)])
            .stdin(std::fs::File::open(&input).unwrap())
            .output()
            .unwrap();
        assert_eq!(code(output.status), 1, "{option}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains("is the input file"), "{option}: {stderr}");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), data, "{option}");
    }
}

#[test]
fn standard_output_appending_to_the_input_is_refused() {
    let dir = TempDir::new();
    let data = half_bad(100);
    let input = dir.file("in.jsonl", &data);
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap();
    let output = command(&["batch", "count", "-i", arg(&input)])
        .stdin(Stdio::null())
        .stdout(append)
        .output()
        .unwrap();
    assert_eq!(code(output.status), 1);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("standard output is the input file"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&input).unwrap(), data);
}

#[test]
fn devices_are_written_as_they_are() {
    // Not regular files: never "the input", never emptied, and shared by design.
    let out = run(
        &["batch", "count", "-o", "/dev/null", "--errors", "/dev/null"],
        half_bad(10).as_bytes(),
    );
    out.fails(1, "10 lines, 5 written, 5 errors");
    let out = run(
        &["batch", "count", "-i", "/dev/null", "-o", "/dev/null"],
        b"",
    );
    out.ok();
}

#[test]
fn errors_and_output_in_one_file_are_refused() {
    let dir = TempDir::new();
    let data = half_bad(100);
    let both = dir.path("both.jsonl");
    run(
        &["batch", "count", "-o", arg(&both), "--errors", arg(&both)],
        data.as_bytes(),
    )
    .fails(
        1,
        "is also the output: two writers would overwrite each other's lines",
    );
    assert!(!both.exists(), "nothing was created");
    // Existing, or named another way, or as standard output.
    std::fs::write(&both, "kept").unwrap();
    let other_name = dir.path(".").join("both.jsonl");
    run(
        &[
            "batch",
            "count",
            "-o",
            arg(&both),
            "--errors",
            arg(&other_name),
        ],
        data.as_bytes(),
    )
    .fails(1, "is also the output");
    let stdout = std::fs::OpenOptions::new().write(true).open(&both).unwrap();
    let output = command(&["batch", "count", "--errors", arg(&both)])
        .stdin(Stdio::null())
        .stdout(stdout)
        .output()
        .unwrap();
    assert_eq!(code(output.status), 1);
    assert_eq!(std::fs::read_to_string(&both).unwrap(), "kept");
}

#[test]
fn a_closed_pipe_still_flushes_the_errors_and_prints_the_summary() {
    let dir = TempDir::new();
    let errors = dir.path("errors.jsonl");
    let data = half_bad(20_000);
    let input = dir.file("in.jsonl", &data);
    let mut child = command(&[
        "batch",
        "count",
        "-i",
        arg(&input),
        "--errors",
        arg(&errors),
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // The reader goes away before reading anything.
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(stderr.contains("ctxbudget batch count: "), "{stderr}");
    assert!(
        stderr.contains("standard output was closed by its reader"),
        "{stderr}"
    );
    // Every error of the lines handled is in the file, each line whole.
    let handled: usize = stderr["ctxbudget batch count: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let recorded = std::fs::read_to_string(&errors).unwrap();
    assert_eq!(recorded.lines().count(), handled / 2, "{stderr}");
    for line in recorded.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
    // The errors make it exit code 1.
    assert_eq!(code(status), 1, "{stderr}");
}

#[test]
fn a_full_disk_under_the_output_is_exit_1_with_the_summary() {
    let output = command(&["batch", "count"])
        .stdin(Stdio::piped())
        .stdout(full_disk())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(
                half_bad(10)
                    .replace("\"text\": 1", "\"text\": \"x\"")
                    .as_bytes(),
            )?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(code(output.status), 1);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.starts_with("ctxbudget batch count: "), "{stderr}");
    assert!(
        stderr.contains("error: cannot write the output: No space left on device"),
        "{stderr}"
    );
}

#[test]
fn a_full_disk_under_standard_error_is_exit_1_not_a_panic() {
    let dir = TempDir::new();
    let text = dir.file("text.txt", "Hello there, general reader. ".repeat(50));
    let body = crate::support::request_fixture("openai/coding_session.json");
    for args in [
        &["trim", "-n", "10", "--report", arg(&text)][..],
        &["fit", "--max-input", "100000", arg(&body)],
        &["fit", "--max-input", "100000", "--report-json", arg(&body)],
        &[
            "disclose",
            "-n",
            "50",
            "-r",
            "read it",
            "--report",
            arg(&text),
        ],
        &["count", arg(&text), "no/such/file"],
        &["count", "no/such/file"],
    ] {
        let output = command(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(full_disk())
            .output()
            .unwrap();
        assert_eq!(code(output.status), 1, "{args:?}");
    }
}

#[test]
fn help_that_cannot_be_written_is_exit_1() {
    let output = command(&["--help"]).stdout(full_disk()).output().unwrap();
    assert_eq!(code(output.status), 1);
}

#[test]
fn threads_are_capped_at_what_the_machine_runs() {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let out = run(
        &["batch", "count", "-j", "18446744073709551615"],
        b"\"x\"\n",
    );
    out.ok();
    assert!(
        out.stderr.starts_with(&format!(
            "warning: `--threads 18446744073709551615` is more threads than the {cores} this \
             machine runs at once: using {cores}"
        )),
        "{}",
        out.stderr
    );
    let out = crate::support::run_with(
        &["batch", "count"],
        b"\"x\"\n",
        &[("RAYON_NUM_THREADS", "100000")],
    );
    out.ok();
    assert!(
        out.stderr
            .contains("`RAYON_NUM_THREADS=100000` is more threads"),
        "{}",
        out.stderr
    );
}
