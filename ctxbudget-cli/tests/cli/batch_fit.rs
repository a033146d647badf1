//! `ctxbudget batch fit`.

use ctxbudget::count::Tiktoken;
use ctxbudget::models::Model;
use ctxbudget::request::RequestFitter;
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::ChatRequest;
use serde_json::Value;

use crate::support::{TempDir, arg, request_fixture, run};

/// A fixture request body on one line.
fn line(name: &str) -> String {
    let text = std::fs::read_to_string(request_fixture(name)).expect("the fixture is readable");
    let value: Value = serde_json::from_str(&text).expect("the fixture is JSON");
    value.to_string()
}

const SMALL: &str = r#"{"model": "gpt-4o", "messages": [{"role": "user", "content": "Hello"}]}"#;

#[test]
fn every_request_is_fitted_in_input_order() {
    let openai = line("openai/coding_session.json");
    let anthropic = line("anthropic/session.json");
    let input = format!("{openai}\n{SMALL}\n\n{anthropic}\n");
    let dir = TempDir::new();
    let data = dir.file("requests.jsonl", &input);
    let output = dir.path("fitted.jsonl");
    let out = run(
        &[
            "batch",
            "fit",
            "--drop-only",
            "--max-input",
            "20000",
            "-i",
            arg(&data),
            "-o",
            arg(&output),
        ],
        b"",
    );
    out.ok();
    assert!(
        out.stderr.contains(
            "4 lines, 3 written (2 trimmed, 1 unchanged), 0 errors, 1 blank line skipped"
        ),
        "{}",
        out.stderr
    );
    let written = std::fs::read_to_string(&output).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 3);
    let counter = Tiktoken::o200k_base();
    let first = ChatRequest::from_json(lines[0]).unwrap();
    assert!(RequestFitter::new(&counter).count(&first).tokens <= 20_000);
    assert_eq!(
        serde_json::from_str::<Value>(lines[1]).unwrap(),
        serde_json::from_str::<Value>(SMALL).unwrap()
    );
    let third = MessagesRequest::from_json(lines[2]).unwrap();
    assert!(RequestFitter::new(&counter).count(&third).tokens <= 20_000);
}

#[test]
fn a_model_sets_the_window_and_standard_input_works() {
    let anthropic = line("anthropic/session.json");
    let out = run(
        &["batch", "fit", "--model", "claude-sonnet-4-5"],
        format!("{anthropic}\n").as_bytes(),
    );
    let written = out.ok();
    // The session fits Claude's window: it comes out as an equal value.
    assert_eq!(
        serde_json::from_str::<Value>(written.trim_end()).unwrap(),
        serde_json::from_str::<Value>(&anthropic).unwrap()
    );
    assert!(Model::lookup("claude-sonnet-4-5").is_ok());
    assert!(out.stderr.contains("1 written (0 trimmed, 1 unchanged)"));
}

#[test]
fn lines_over_the_limit_exit_2_and_bad_lines_1() {
    let openai = line("openai/coding_session.json");
    let input = format!("{openai}\n{SMALL}\n");
    let out = run(&["batch", "fit", "--max-input", "10"], input.as_bytes());
    out.fails(2, "1 over the limit (lines 1)");
    assert!(
        out.stderr.contains("over the limit of 10"),
        "{}",
        out.stderr
    );
    // The small request still fits ("Hello" costs 8 tokens) and is written.
    assert!(
        out.stderr.contains("1 written (0 trimmed, 1 unchanged)"),
        "{}",
        out.stderr
    );
    let written: Vec<&str> = out.out().lines().collect();
    assert_eq!(written.len(), 1);
    assert_eq!(
        serde_json::from_str::<Value>(written[0]).unwrap(),
        serde_json::from_str::<Value>(SMALL).unwrap()
    );
    // A bad line makes it exit code 1, and the others are still written.
    let bad = format!("{SMALL}\n{{\"messages\": [\n{openai}\n");
    let dir = TempDir::new();
    let errors = dir.path("errors.jsonl");
    let out = run(
        &[
            "batch",
            "fit",
            "--max-input",
            "100",
            "--errors",
            arg(&errors),
        ],
        bad.as_bytes(),
    );
    out.fails(1, "line 2: the request body is not JSON");
    assert!(out.stderr.contains("1 error (lines 2)"), "{}", out.stderr);
    assert_eq!(out.out().lines().count(), 1);
    let errors = std::fs::read_to_string(&errors).unwrap();
    let errors: Vec<Value> = errors
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0]["line"], 2);
    assert_eq!(errors[0]["over"], false);
    assert_eq!(errors[1]["line"], 3);
    assert_eq!(errors[1]["over"], true);
}

#[test]
fn no_limit_or_an_unknown_model_is_bad_input() {
    run(&["batch", "fit"], SMALL.as_bytes()).fails(1, "no input limit");
    run(&["batch", "fit", "--model", "gpt-4-o"], SMALL.as_bytes())
        .fails(1, "unknown model `gpt-4-o`: did you mean");
    run(
        &["batch", "fit", "--max-input", "100", "-i", "no/such.jsonl"],
        b"",
    )
    .fails(1, "cannot read `no/such.jsonl`");
    run(&["batch", "fit", "--max-input", "100"], b"caf\xe9\n").fails(1, "not UTF-8");
}

#[test]
fn each_line_is_counted_with_its_own_models_tokenizer() {
    use crate::support::multilingual_body;

    let gpt4 = multilingual_body("gpt-4");
    let unknown = multilingual_body("my-gateway-model");
    let request = ChatRequest::from_json(&gpt4).unwrap();
    let cl100k = RequestFitter::new(Tiktoken::cl100k_base())
        .count(&request)
        .tokens;
    let o200k = RequestFitter::new(Tiktoken::o200k_base())
        .count(&request)
        .tokens;
    assert!(cl100k > o200k);
    // At a limit of the o200k_base count, gpt-4's body is over (cl100k_base) and is
    // trimmed; the unknown model's is counted with o200k_base and fits, with a warning.
    let limit = o200k.to_string();
    let input = format!("{gpt4}\n{unknown}\n");
    let out = run(&["batch", "fit", "--max-input", &limit], input.as_bytes());
    let written: Vec<&str> = out.ok().lines().collect();
    assert!(
        out.stderr.contains(
            "2 lines, 2 written (1 trimmed, 1 unchanged), 0 errors, 1 not counted exactly \
             (lines 2)"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "line 2: warning: the body's model `my-gateway-model` is not in the catalogue"
        ),
        "{}",
        out.stderr
    );
    let first = ChatRequest::from_json(written[0]).unwrap();
    assert!(
        RequestFitter::new(Tiktoken::cl100k_base())
            .count(&first)
            .tokens
            <= o200k
    );
    assert_eq!(
        serde_json::from_str::<Value>(written[1]).unwrap(),
        serde_json::from_str::<Value>(&unknown).unwrap()
    );
}
