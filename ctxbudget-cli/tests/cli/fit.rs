//! `ctxbudget fit`.

use ctxbudget::count::Tiktoken;
use ctxbudget::models::Model;
use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::{AnyRequest, RequestError, RequestFitter, RequestFormat, WireRequest};
use serde_json::Value;

use crate::support::{TempDir, arg, request_fixture, run};

const OPENAI: &str = "openai/coding_session.json";
const ANTHROPIC: &str = "anthropic/session.json";

fn body(name: &str) -> String {
    std::fs::read_to_string(request_fixture(name)).expect("the fixture is readable")
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("valid JSON")
}

#[test]
fn a_request_that_fits_comes_out_as_an_equal_value() {
    let path = request_fixture(OPENAI);
    let out = run(&["fit", "--model", "gpt-4o", arg(&path)], b"");
    assert_eq!(json(out.ok()), json(&body(OPENAI)));
    assert!(out.stderr.contains(" 0 dropped"), "{}", out.stderr);
    // Standard input, an Anthropic body, a Claude model.
    let out = run(
        &["fit", "--model", "claude-sonnet-4-5", "-"],
        body(ANTHROPIC).as_bytes(),
    );
    assert_eq!(json(out.ok()), json(&body(ANTHROPIC)));
    assert!(
        out.stderr
            .starts_with("Anthropic Messages request for claude-sonnet-4-5"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_trimmed_request_fits_the_limit_and_keeps_the_latest_message() {
    let input = ChatRequest::from_json(&body(OPENAI)).unwrap();
    let counter = Tiktoken::o200k_base();
    let full = RequestFitter::new(&counter).count(&input).tokens;
    let limit = full / 2;
    let path = request_fixture(OPENAI);
    let out = run(
        &[
            "fit",
            "--drop-only",
            "--max-input",
            &limit.to_string(),
            arg(&path),
        ],
        b"",
    );
    let fitted = ChatRequest::from_json(out.ok()).expect("the output is a request");
    let tokens = RequestFitter::new(&counter).count(&fitted).tokens;
    assert!(tokens <= limit, "{tokens} > {limit}");
    assert!(fitted.messages.len() < input.messages.len());
    assert_eq!(fitted.messages.last(), input.messages.last());
    assert_eq!(fitted.tools, input.tools);
    assert!(
        out.stderr
            .contains(&format!("after      {tokens:>8} tokens")),
        "{}",
        out.stderr
    );
}

#[test]
fn the_json_report_adds_up() {
    let input = MessagesRequest::from_json(&body(ANTHROPIC)).unwrap();
    let model = Model::lookup("claude-sonnet-4-5").unwrap();
    let counter = model.counter().unwrap();
    let out = run(
        &[
            "fit",
            "--drop-only",
            "--model",
            "claude-sonnet-4-5",
            "--max-input",
            "20000",
            "--report-json",
            "--count-dropped",
        ],
        body(ANTHROPIC).as_bytes(),
    );
    let fitted = MessagesRequest::from_json(out.ok()).expect("the output is a request");
    let report = json(&out.stderr);
    let tokens = RequestFitter::new(counter.clone()).count(&fitted).tokens;
    assert_eq!(report["limit"], 20_000);
    assert_eq!(report["tokens_after"], tokens);
    assert!(tokens <= 20_000);
    assert_eq!(report["trimmed"], true);
    assert_eq!(report["format"], "Anthropic Messages");
    assert_eq!(report["kept"], fitted.messages().len());
    let dropped = report["dropped"].as_array().unwrap().len();
    assert_eq!(dropped + fitted.messages().len(), input.messages().len());
    assert_eq!(
        report["tokens_before"],
        RequestFitter::new(counter.clone()).count(&input).tokens
    );
}

#[test]
fn a_drop_only_fit_counts_what_it_drops_only_when_asked() {
    let input = MessagesRequest::from_json(&body(ANTHROPIC)).unwrap();
    let args = [
        "fit",
        "--drop-only",
        "--model",
        "claude-sonnet-4-5",
        "--max-input",
        "20000",
        "--report-json",
    ];
    let lean = run(&args, body(ANTHROPIC).as_bytes());
    let counted = run(
        &[&args[..], &["--count-dropped"]].concat(),
        body(ANTHROPIC).as_bytes(),
    );
    // The same fit either way: only the report differs.
    assert_eq!(lean.ok(), counted.ok());
    let (lean, counted) = (json(&lean.stderr), json(&counted.stderr));
    for key in ["tokens_after", "kept", "limit", "trimmed"] {
        assert_eq!(lean[key], counted[key], "{key}");
    }
    let indexes = |report: &Value| -> Vec<Value> {
        let dropped = report["dropped"].as_array().unwrap();
        dropped.iter().map(|d| d["index"].clone()).collect()
    };
    assert_eq!(indexes(&lean), indexes(&counted));
    assert!(!indexes(&lean).is_empty());
    // Not asked: the oldest dropped messages are not counted, and the JSON says
    // so with nulls rather than a figure that would be wrong.
    assert!(lean["tokens_before"].is_null(), "{lean}");
    let dropped = lean["dropped"].as_array().unwrap();
    assert!(dropped.iter().any(|d| d["tokens"].is_null()), "{lean}");
    assert_eq!(
        counted["tokens_before"],
        RequestFitter::new(
            Model::lookup("claude-sonnet-4-5")
                .unwrap()
                .counter()
                .unwrap()
        )
        .count(&input)
        .tokens
    );
    let dropped = counted["dropped"].as_array().unwrap();
    assert!(dropped.iter().all(|d| d["tokens"].is_u64()), "{counted}");

    // The table says how many went, and that the tokens before are a floor.
    let table = run(&args[..6], body(ANTHROPIC).as_bytes());
    assert!(table.stderr.contains("not counted"), "{}", table.stderr);
    assert!(table.stderr.contains("tokens at least"), "{}", table.stderr);
    let help = run(&["fit", "--help"], b"");
    assert!(help.ok().contains("--count-dropped"), "{}", help.ok());
}

#[test]
fn the_model_window_is_the_limit_when_max_input_is_higher() {
    let path = request_fixture(OPENAI);
    let out = run(
        &[
            "fit",
            "--model",
            "gpt-4o",
            "--max-input",
            "10000000",
            "--report-json",
            arg(&path),
        ],
        b"",
    );
    out.ok();
    let report = json(&out.stderr);
    let model = Model::lookup("gpt-4o").unwrap();
    let input = ChatRequest::from_json(&body(OPENAI)).unwrap();
    let output = input
        .max_output_tokens()
        .map_or(model.max_output_tokens().unwrap(), |t| {
            usize::try_from(t).unwrap()
        });
    assert_eq!(report["limit"], model.context_window() - output);
}

#[test]
fn format_overrides_detection() {
    let plain = r#"{"model": "claude-sonnet-4-5", "max_tokens": 100,
        "messages": [{"role": "user", "content": "Hello there"}]}"#;
    let detected = run(
        &["fit", "--max-input", "1000", "--report-json"],
        plain.as_bytes(),
    );
    assert_eq!(json(detected.ok()), json(plain));
    assert_eq!(json(&detected.stderr)["format"], "OpenAI Chat Completions");
    let forced = run(
        &[
            "fit",
            "--max-input",
            "1000",
            "--report-json",
            "--format",
            "anthropic",
        ],
        plain.as_bytes(),
    );
    assert_eq!(json(forced.ok()), json(plain));
    assert_eq!(json(&forced.stderr)["format"], "Anthropic Messages");
}

#[test]
fn what_must_stay_over_the_limit_exits_2_with_how_much() {
    let input = MessagesRequest::from_json(&body(ANTHROPIC)).unwrap();
    // Counted with the body's model's counter (Claude's upper estimate).
    let claude = Model::lookup(input.model().unwrap()).unwrap();
    let err = RequestFitter::new(claude.counter().unwrap())
        .with_max_input(10)
        .fit(input)
        .unwrap_err();
    let (RequestError::DoesNotFit { over, .. } | RequestError::ToolLoopDoesNotFit { over, .. }) =
        err
    else {
        panic!("does not fit: {err}");
    };
    let path = request_fixture(ANTHROPIC);
    let out = run(
        &["fit", "--drop-only", "--max-input", "10", arg(&path)],
        b"",
    );
    out.fails(2, &format!("{over} over the limit of 10"));
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_input_exits_1_with_what_to_fix() {
    let invalid = "{\"messages\": [\n  {\"role\": \"user\",}\n]}";
    let out = run(&["fit", "--max-input", "100"], invalid.as_bytes());
    out.fails(1, "line 2 column");
    assert!(out.stdout.is_empty());
    let orphan = r#"{"messages": [{"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_9", "content": "result"}]}"#;
    run(&["fit", "--max-input", "100"], orphan.as_bytes())
        .fails(1, "a tool result answers call id `call_9`");
    run(&["fit", "--model", "gpt-4-o"], b"{}").fails(1, "unknown model `gpt-4-o`: did you mean");
    run(&["fit"], body(OPENAI).as_bytes()).fails(1, "no input limit: pass `--model MODEL`");
    run(&["fit", "--max-input", "100", "no/such/request.json"], b"")
        .fails(1, "cannot read `no/such/request.json`");
    let dir = TempDir::new();
    let latin1 = dir.file("latin1.json", b"{\"messages\": [\"caf\xe9\"]}");
    run(&["fit", "--max-input", "100", arg(&latin1)], b"").fails(1, "is not UTF-8 text");
    run(&["fit", "--max-input", "100", "--format", "mistral"], b"{}")
        .fails(1, "invalid value 'mistral'");
    // A body of no format says which fields would make it one.
    run(&["fit", "--max-input", "100"], br#"{"model": "gpt-4o"}"#)
        .fails(1, "no request of a format ctxbudget reads; send `messages`");
    // A Gemini body with nothing to send says what to give.
    run(&["fit", "--max-input", "100", "--format", "gemini"], b"{}")
        .fails(1, "`contents` is empty; give at least one content");
}

#[test]
fn a_model_whose_tokenizer_is_a_file_takes_the_file_and_gives_the_window() {
    use ctxbudget::count::HuggingFace;

    let path = request_fixture(OPENAI);
    // Alone, a Llama model cannot count: the message says to give the file.
    run(&["fit", "--model", "llama-3.1-8b", arg(&path)], b"")
        .fails(1, "--model llama-3.1-8b --tokenizer tokenizer.json");
    // With the file: the model's window is the limit, the file counts.
    let tokenizer = crate::support::fixture("word-level.json");
    let out = run(
        &[
            "fit",
            "--model",
            "llama-3.1-8b",
            "--tokenizer",
            arg(&tokenizer),
            arg(&path),
        ],
        b"",
    );
    assert_eq!(
        json(out.ok()),
        json(&body(OPENAI)),
        "fits a 128k window whole"
    );
    let counter = HuggingFace::from_file(&tokenizer).unwrap();
    let expected = RequestFitter::new(&counter)
        .count(&ChatRequest::from_json(&body(OPENAI)).unwrap())
        .tokens;
    assert!(
        out.stderr
            .contains(&format!("after      {expected:>8} tokens")),
        "{}",
        out.stderr
    );
    // An unknown model is still an error with a file.
    run(
        &[
            "fit",
            "--model",
            "my-llama",
            "--tokenizer",
            arg(&tokenizer),
            arg(&path),
        ],
        b"",
    )
    .fails(1, "unknown model `my-llama`");
    // An encoding and a model stay exclusive.
    run(
        &["fit", "-e", "cl100k_base", "-m", "gpt-4o", arg(&path)],
        b"",
    )
    .fails(1, "cannot be used with");
}

#[test]
fn a_body_is_fitted_with_its_own_models_tokenizer() {
    use crate::support::multilingual_body;

    let body = multilingual_body("gpt-4");
    let request = ChatRequest::from_json(&body).unwrap();
    let cl100k = RequestFitter::new(Tiktoken::cl100k_base())
        .count(&request)
        .tokens;
    let o200k = RequestFitter::new(Tiktoken::o200k_base())
        .count(&request)
        .tokens;
    assert!(cl100k > o200k, "{cl100k} against {o200k}");
    // A limit the body fits under o200k_base but not under gpt-4's cl100k_base.
    let limit = o200k.to_string();
    let out = run(
        &["fit", "--max-input", &limit, "--report-json"],
        body.as_bytes(),
    );
    let fitted = ChatRequest::from_json(out.ok()).unwrap();
    let report = json(&out.stderr);
    assert_eq!(report["tokens_before"], cl100k);
    assert_eq!(report["trimmed"], true, "{report}");
    let after = RequestFitter::new(Tiktoken::cl100k_base())
        .count(&fitted)
        .tokens;
    assert_eq!(report["tokens_after"], after);
    assert!(after <= o200k);
    assert_eq!(report["exactness"], "exact");
    assert_eq!(report["counter"], "gpt-4 (tiktoken cl100k_base)");
    assert_eq!(report["warnings"], serde_json::json!([]));
    // The table says so too.
    let out = run(&["fit", "--max-input", &limit], body.as_bytes());
    out.ok();
    assert!(
        out.stderr
            .starts_with("OpenAI Chat Completions request for gpt-4, counted exactly"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_count_with_another_models_tokenizer_is_never_exact() {
    use crate::support::multilingual_body;

    // An unknown model: the default counter, and a warning.
    let body = multilingual_body("my-gateway-model");
    let out = run(&["fit", "--max-input", "100000"], body.as_bytes());
    out.ok();
    assert!(!out.stderr.contains("exactly"), "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "\n  warning: the body's model `my-gateway-model` is not in the catalogue: \
             counted with o200k_base"
        ),
        "{}",
        out.stderr
    );
    let out = run(
        &["fit", "--max-input", "100000", "--report-json"],
        body.as_bytes(),
    );
    out.ok();
    let report = json(&out.stderr);
    assert_eq!(report["exactness"], "estimate");
    assert_eq!(report["estimate"], true);
    assert_eq!(report["warnings"].as_array().unwrap().len(), 1);
    // An encoding that is not the body's model's.
    let body = multilingual_body("gpt-4");
    for counter in [&["-e", "o200k_base"][..], &["--model", "gpt-4o"]] {
        let args = [&["fit", "--max-input", "100000"][..], counter].concat();
        let out = run(&args, body.as_bytes());
        out.ok();
        assert!(
            !out.stderr.contains("exactly"),
            "{counter:?}: {}",
            out.stderr
        );
        assert!(
            out.stderr
                .contains("warning: the body's model `gpt-4` counts with tiktoken cl100k_base"),
            "{counter:?}: {}",
            out.stderr
        );
    }
    // The body's own encoding named: exact, no warning.
    let out = run(
        &["fit", "--max-input", "100000", "-e", "cl100k_base"],
        body.as_bytes(),
    );
    out.ok();
    assert!(out.stderr.contains("counted exactly"), "{}", out.stderr);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

#[test]
fn the_output_reserved_reads_the_same_whatever_sets_the_limit() {
    let path = request_fixture(OPENAI);
    let reports: Vec<Value> = [&[][..], &["--max-input", "10000000"]]
        .iter()
        .map(|extra| {
            let args = [
                &["fit", "--model", "gpt-4o", "--report-json"][..],
                extra,
                &[arg(&path)],
            ]
            .concat();
            let out = run(&args, b"");
            out.ok();
            json(&out.stderr)
        })
        .collect();
    assert_eq!(reports[0]["limit"], reports[1]["limit"]);
    assert_eq!(reports[0]["output_reserved"], reports[1]["output_reserved"]);
    assert_ne!(reports[0]["output_reserved"], 0);
    // A lower --max-input lowers the limit; the window still reserves the same.
    let out = run(
        &[
            "fit",
            "--model",
            "gpt-4o",
            "--max-input",
            "20000",
            "--report-json",
            arg(&path),
        ],
        b"",
    );
    out.ok();
    let lower = json(&out.stderr);
    assert_eq!(lower["limit"], 20_000);
    assert_eq!(lower["output_reserved"], reports[0]["output_reserved"]);
    let table = |extra: &[&str]| {
        let args = [&["fit", "--model", "gpt-4o"][..], extra, &[arg(&path)]].concat();
        let out = run(&args, b"");
        out.ok();
        out.stderr
            .lines()
            .find(|line| line.contains("reserved for output"))
            .map(str::to_owned)
            .unwrap()
    };
    assert_eq!(table(&[]), table(&["--max-input", "10000000"]));
}

#[test]
fn a_byte_order_mark_before_a_body_is_skipped() {
    let body = format!("\u{feff}{}", body(OPENAI));
    let out = run(&["fit", "--max-input", "100000"], body.as_bytes());
    assert_eq!(json(out.ok()), json(&body[3..]));
}

#[test]
fn fit_edits_old_tool_output_before_it_drops_messages_and_drop_only_does_not() {
    let path = request_fixture(OPENAI);
    let messages = |out: &str| json(out)["messages"].as_array().map_or(0, Vec::len);
    let whole = messages(&body(OPENAI));
    let args = [
        "fit",
        "--model",
        "gpt-4o",
        "--max-input",
        "24000",
        "--report-json",
    ];
    let edited = run(&[&args[..], &[arg(&path)]].concat(), b"");
    let report = json(&edited.stderr);
    assert_eq!(messages(edited.ok()), whole, "{}", edited.stderr);
    assert!(
        report["edits"]["cleared_tool_uses"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert!(
        report["edits"]["cleared_input_tokens"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert!(
        report["tokens_after"].as_u64().unwrap() <= 24_000,
        "{report}"
    );

    let dropped = run(&[&args[..], &["--drop-only", arg(&path)]].concat(), b"");
    let report = json(&dropped.stderr);
    assert!(messages(dropped.ok()) < whole, "{}", dropped.stderr);
    assert!(report["edits"].is_null(), "{report}");

    // The knobs reach the library: with every result kept, only truncation and
    // dropping remain.
    let kept = run(
        &[&args[..], &["--keep-tool-results", "1000", arg(&path)]].concat(),
        b"",
    );
    let report = json(&kept.stderr);
    assert_eq!(
        report["edits"]["cleared_tool_uses"].as_u64(),
        Some(0),
        "{report}"
    );
    run(
        &["fit", "--drop-only", "--keep-thinking", "--max-input", "10"],
        b"{}",
    )
    .fails(1, "cannot be used with");
}

#[test]
fn a_model_with_prices_gives_the_requests_cost() {
    let path = request_fixture(OPENAI);
    let out = run(
        &["fit", "--model", "gpt-4o", "--report-json", arg(&path)],
        b"",
    );
    out.ok();
    let report = json(&out.stderr);
    let tokens = report["tokens_after"].as_u64().unwrap();
    let reserved = report["output_reserved"].as_u64().unwrap();
    let cost = &report["cost"];
    assert_eq!(cost["currency"], "USD");
    // gpt-4o: $2.50 per million input tokens, $10 per million output tokens.
    #[allow(clippy::cast_precision_loss)]
    let (input, output) = (tokens as f64 * 2.5e-6, reserved as f64 * 10e-6);
    assert!(
        (cost["input"].as_f64().unwrap() - input).abs() < 1e-9,
        "{cost}"
    );
    assert!(
        (cost["output_reserved"].as_f64().unwrap() - output).abs() < 1e-9,
        "{cost}"
    );
    // The table says it too.
    let out = run(&["fit", "--model", "gpt-4o", arg(&path)], b"");
    out.ok();
    assert!(
        out.stderr
            .contains(&format!("  cost       ${input:.6} input at $2.50/M")),
        "{}",
        out.stderr
    );
    // Without a model's prices, no cost.
    let out = run(
        &["fit", "--max-input", "100000", "--report-json", arg(&path)],
        b"",
    );
    out.ok();
    assert_eq!(json(&out.stderr)["cost"], Value::Null);
}

/// A shipped session of a newer format: detected, kept whole under a high limit,
/// counted as the library counts it, fitted tighter (with `fit_args`) into a body
/// that still reads as a valid request with fewer messages, and counted alike by
/// `count --chat`.
fn a_session_is_detected_fitted_and_counted(
    fixture: &str,
    format: RequestFormat,
    fit_args: &[&str],
) {
    let path = request_fixture(fixture);
    let session = std::fs::read_to_string(&path).expect("the fixture is readable");
    let out = run(
        &[
            "fit",
            "--max-input",
            "1000000",
            "-e",
            "o200k_base",
            "--report-json",
            arg(&path),
        ],
        b"",
    );
    assert_eq!(json(out.ok()), json(&session));
    assert_eq!(json(&out.stderr)["format"], format.as_str());
    let request = AnyRequest::from_json(&session, None).expect("parses");
    assert_eq!(request.format(), format);
    let tokens = RequestFitter::new(Tiktoken::o200k_base())
        .count_any(&request)
        .tokens;
    assert_eq!(json(&out.stderr)["tokens_after"], tokens);
    let mut args = vec!["fit"];
    args.extend_from_slice(fit_args);
    args.push("-");
    let out = run(&args, session.as_bytes());
    let fitted = AnyRequest::from_json(out.ok(), Some(format)).expect("parses");
    fitted.validate().expect("valid");
    assert!(fitted.message_count() < request.message_count());
    let count = run(&["count", "--chat", "-e", "o200k_base", arg(&path)], b"");
    assert_eq!(count.ok().trim(), tokens.to_string());
}

#[test]
fn an_openai_responses_body_is_detected_fitted_and_counted() {
    a_session_is_detected_fitted_and_counted(
        "../responses/agent_session.json",
        RequestFormat::OpenAiResponses,
        &[
            "--max-input",
            "3000",
            "--format",
            "responses",
            "-e",
            "o200k_base",
        ],
    );
}

#[test]
fn a_gemini_body_is_detected_fitted_and_counted() {
    // For a Gemini model, whose image rule --model gives the body.
    a_session_is_detected_fitted_and_counted(
        "../gemini/agent_session.json",
        RequestFormat::GeminiGenerateContent,
        &[
            "--model",
            "gemini-2.5-pro",
            "--max-input",
            "6000",
            "--format",
            "gemini",
        ],
    );
}

#[test]
fn a_bedrock_body_is_detected_fitted_and_counted() {
    // For a Claude model, whose framing --model gives the body.
    a_session_is_detected_fitted_and_counted(
        "../bedrock/agent_session.json",
        RequestFormat::BedrockConverse,
        &[
            "--model",
            "claude-sonnet-4-5",
            "--max-input",
            "6000",
            "--format",
            "bedrock",
        ],
    );
}
