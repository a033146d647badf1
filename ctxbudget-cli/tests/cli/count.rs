//! `ctxbudget count`.

use ctxbudget::count::{HuggingFace, Tekken};
use ctxbudget::{TokenCounter, count::Tiktoken};

use crate::support::{TempDir, arg, fixture, fixture_text, multilingual_body, run, run_with};

#[test]
fn a_file_and_standard_input_print_the_count() {
    let text = fixture_text("guide.md");
    let expected = format!("{}\n", Tiktoken::o200k_base().count(&text));
    let path = fixture("guide.md");
    assert_eq!(run(&["count", arg(&path)], b"").ok(), expected);
    assert_eq!(run(&["count"], text.as_bytes()).ok(), expected);
    assert_eq!(run(&["count", "-"], text.as_bytes()).ok(), expected);
}

#[test]
fn several_files_print_a_line_each_and_the_total() {
    let dir = TempDir::new();
    let a = dir.file("a.txt", "Hello, world!");
    let b = dir.file(
        "b.txt",
        "A longer text of a few more tokens than the first one.",
    );
    let counter = Tiktoken::o200k_base();
    let (na, nb) = (
        counter.count("Hello, world!"),
        counter.count("A longer text of a few more tokens than the first one."),
    );
    let nc = counter.count("from stdin");
    let out = run(&["count", arg(&a), "-", arg(&b)], b"from stdin");
    assert_eq!(
        out.ok(),
        format!(
            "{na}\t{}\n{nc}\t-\n{nb}\t{}\n{}\ttotal\n",
            arg(&a),
            arg(&b),
            na + nb + nc
        )
    );
}

#[test]
fn a_missing_file_among_several_is_reported_and_the_rest_counted() {
    let dir = TempDir::new();
    let a = dir.file("a.txt", "Hello, world!");
    let missing = dir.path("missing.txt");
    let out = run(&["count", arg(&a), arg(&missing)], b"");
    out.fails(1, &format!("cannot read `{}`: No such file", arg(&missing)));
    let n = Tiktoken::o200k_base().count("Hello, world!");
    assert_eq!(out.out(), format!("{n}\t{}\n{n}\ttotal\n", arg(&a)));
}

#[test]
fn a_missing_file_fails_with_the_fix() {
    let out = run(&["count", "no/such/file.txt"], b"");
    out.fails(
        1,
        "error: cannot read `no/such/file.txt`: No such file or directory; check the path",
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn invalid_utf8_fails_with_where_and_how_to_convert() {
    let out = run(&["count"], b"fine first line\ncaf\xe9\n");
    out.fails(
        1,
        "standard input is not UTF-8 text: the byte at offset 19 (line 2)",
    );
    assert!(out.stderr.contains("iconv"), "{}", out.stderr);
    let dir = TempDir::new();
    let latin1 = dir.file("latin1.txt", b"caf\xe9");
    run(&["count", arg(&latin1)], b"").fails(1, &format!("`{}` is not UTF-8 text", arg(&latin1)));
}

#[test]
fn encodings_and_models_choose_the_counter() {
    let text = "Encodings differ: ünïcödé, emoji 🦀, and code `fn main() {}`.";
    let cl100k = Tiktoken::cl100k_base().count(text);
    let o200k = Tiktoken::o200k_base().count(text);
    assert_ne!(cl100k, o200k, "the text tells the encodings apart");
    let input = text.as_bytes();
    assert_eq!(
        run(&["count", "--encoding", "cl100k_base"], input).ok(),
        format!("{cl100k}\n")
    );
    assert_eq!(
        run(&["count", "-e", "o200k_base"], input).ok(),
        format!("{o200k}\n")
    );
    assert_eq!(
        run(&["count", "--model", "gpt-4"], input).ok(),
        format!("{cl100k}\n")
    );
    assert_eq!(
        run(&["count", "--model", "gpt-4o"], input).ok(),
        format!("{o200k}\n")
    );
}

#[test]
fn an_unknown_encoding_or_model_fails_with_what_to_use() {
    run(&["count", "--encoding", "o300k_base"], b"x").fails(
        1,
        "unknown tiktoken encoding `o300k_base`: expected one of `o200k_base`, `cl100k_base`",
    );
    run(&["count", "--model", "my-llama"], b"x").fails(1, "unknown model `my-llama`");
    // A name far longer than any in the catalogue is refused without a search.
    let long = "anthropic.".repeat(10_000);
    let out = run(&["count", "--model", &long], b"x");
    out.fails(1, "is 100000 bytes, over the 256 a model name may have");
    assert!(out.stderr.len() < 400, "{} bytes", out.stderr.len());
    // Two counters at once is a usage error, also exit code 1.
    run(&["count", "-e", "cl100k_base", "-m", "gpt-4"], b"x").fails(1, "cannot be used with");
}

#[test]
fn encodings_are_named_as_the_library_names_them() {
    // One parser, the library's: names the CLI's own table lacked parse too.
    let text = "Encodings differ: ünïcödé, emoji 🦀, and code `fn main() {}`.";
    let p50k = Tiktoken::p50k_base().count(text);
    let o200k = Tiktoken::o200k_base().count(text);
    assert_ne!(p50k, o200k);
    for name in ["p50k_edit", "P50K-EDIT", "p50k_base"] {
        assert_eq!(
            run(&["count", "-e", name], text.as_bytes()).ok(),
            format!("{p50k}\n"),
            "{name}"
        );
    }
    assert_eq!(
        run(&["count", "-e", "o200k_harmony"], text.as_bytes()).ok(),
        format!("{o200k}\n")
    );
}

#[test]
fn a_byte_order_mark_is_not_counted() {
    let text = "Hello, world! A byte order mark is not text.";
    let expected = format!("{}\n", Tiktoken::o200k_base().count(text));
    assert_ne!(
        Tiktoken::o200k_base().count(&format!("\u{feff}{text}")),
        Tiktoken::o200k_base().count(text),
        "the mark would change the count"
    );
    assert_eq!(
        run(&["count"], format!("\u{feff}{text}").as_bytes()).ok(),
        expected
    );
    let dir = TempDir::new();
    let file = dir.file("bom.txt", format!("\u{feff}{text}"));
    assert_eq!(run(&["count", arg(&file)], b"").ok(), expected);
}

#[test]
fn a_tokenizer_is_never_read_from_standard_input() {
    let out = run(&["count", "--tokenizer", "-"], b"text");
    out.fails(
        1,
        "`--tokenizer -`: a tokenizer is read from a file, not standard input",
    );
    assert!(!out.stderr.contains("pass `-` to read"), "{}", out.stderr);
    // A missing tokenizer file does not suggest `-` either.
    let out = run(&["count", "--tokenizer", "no/such/tokenizer.json"], b"text");
    out.fails(
        1,
        "cannot read `no/such/tokenizer.json`: No such file or directory; check the path",
    );
    assert!(!out.stderr.contains("standard input"), "{}", out.stderr);
}

#[test]
fn tokenizer_files_are_told_apart_by_their_content() {
    let text = "Hello world, hello budget! hello tokens.";
    let word_level = fixture("word-level.json");
    let tekken = fixture("bytes-tekken.json");
    let expected_hf = HuggingFace::from_file(&word_level).unwrap().count(text);
    let expected_tekken = Tekken::from_file(&tekken).unwrap().count(text);
    assert_ne!(expected_hf, expected_tekken);
    assert_eq!(
        run(&["count", "--tokenizer", arg(&word_level)], text.as_bytes()).ok(),
        format!("{expected_hf}\n")
    );
    assert_eq!(
        run(&["count", "-t", arg(&tekken)], text.as_bytes()).ok(),
        format!("{expected_tekken}\n")
    );
    // The names do not matter: a Tekken file called tokenizer.json is still Tekken.
    let dir = TempDir::new();
    let renamed = dir.file("tokenizer.json", std::fs::read(&tekken).unwrap());
    assert_eq!(
        run(&["count", "-t", arg(&renamed)], text.as_bytes()).ok(),
        format!("{expected_tekken}\n")
    );
}

#[test]
fn bad_tokenizer_files_fail_with_the_file_and_the_problem() {
    let dir = TempDir::new();
    let other = dir.file(
        "package.json",
        r#"{"name": "left-pad", "version": "1.3.0"}"#,
    );
    run(&["count", "-t", arg(&other)], b"x")
        .fails(1, "is neither a Hugging Face tokenizer.json (it has no `model` section) nor a Mistral Tekken file");
    let full = std::fs::read_to_string(fixture("word-level.json")).unwrap();
    let cut = dir.file("tokenizer.json", &full[..full.len() / 2]);
    run(&["count", "-t", arg(&cut)], b"x").fails(1, "the file is truncated");
    let missing = dir.path("nope.json");
    run(&["count", "-t", arg(&missing)], b"x").fails(1, "cannot read `");
}

#[test]
fn a_long_text_counted_on_all_cores_gives_the_library_count() {
    // Over 1 MB: the binary counts pieces cut at split points in parallel.
    let text = [
        fixture_text("guide.md"),
        "日本語のテキスト、句読点つき。".repeat(20),
        "a".repeat(3000),
    ]
    .concat()
    .repeat(400);
    assert!(text.len() > 1 << 20);
    let expected = format!("{}\n", Tiktoken::o200k_base().count(&text));
    assert_eq!(run(&["count"], text.as_bytes()).ok(), expected);
    let one_thread = run_with(&["count"], text.as_bytes(), &[("RAYON_NUM_THREADS", "1")]);
    assert_eq!(one_thread.ok(), expected);
}

#[test]
fn chat_counts_a_request_body_as_the_provider_bills_it() {
    use ctxbudget::models::Model;
    use ctxbudget::request::RequestFitter;
    use ctxbudget::request::anthropic::MessagesRequest;
    use ctxbudget::request::openai::ChatRequest;

    use crate::support::request_fixture;

    let openai = request_fixture("openai/coding_session.json");
    let body = std::fs::read_to_string(&openai).unwrap();
    let request = ChatRequest::from_json(&body).unwrap();
    let expected = RequestFitter::new(Tiktoken::o200k_base())
        .count(&request)
        .tokens;
    // More than the text of the messages alone: overhead and tool definitions count.
    assert!(expected > Tiktoken::o200k_base().count(&body) / 10);
    assert_eq!(
        run(&["count", "--chat", arg(&openai)], b"").ok(),
        format!("{expected}\n")
    );
    let cl100k = RequestFitter::new(Tiktoken::cl100k_base())
        .count(&request)
        .tokens;
    assert_ne!(cl100k, expected);
    assert_eq!(
        run(&["count", "--chat", "-e", "cl100k_base"], body.as_bytes()).ok(),
        format!("{cl100k}\n")
    );
    let anthropic = request_fixture("anthropic/session.json");
    let request =
        MessagesRequest::from_json(&std::fs::read_to_string(&anthropic).unwrap()).unwrap();
    let claude = Model::lookup("claude-sonnet-4-5")
        .unwrap()
        .counter()
        .unwrap();
    let expected = RequestFitter::new(claude).count(&request).tokens;
    assert_eq!(
        run(
            &[
                "count",
                "--chat",
                "--model",
                "claude-sonnet-4-5",
                arg(&anthropic)
            ],
            b""
        )
        .ok(),
        format!("{expected}\n")
    );
    run(&["count", "--chat"], b"{\"messages\": [}").fails(1, "line 1 column");
    run(&["count", "--format", "openai"], b"x").fails(1, "--chat");
    run(&["count", "--chat", arg(&openai), arg(&anthropic)], b"")
        .fails(1, "`--chat` counts one request body");
}

#[test]
fn models_of_the_catalogue_count_with_their_tokenizer() {
    use ctxbudget::models::Model;

    let text = "Claude counts with an upper estimate: ünïcödé and code `fn main() {}`.";
    for name in ["claude-sonnet-4-5", "gemini-2.5-pro", "gpt-4o-2024-08-06"] {
        let expected = Model::lookup(name).unwrap().counter().unwrap().count(text);
        assert_eq!(
            run(&["count", "--model", name], text.as_bytes()).ok(),
            format!("{expected}\n"),
            "{name}"
        );
    }
    run(&["count", "--model", "claude-sonet-4-5"], b"x")
        .fails(1, "did you mean `claude-sonnet-4-5`");
    // A model whose tokenizer is a file: the message says to pass it.
    run(&["count", "--model", "llama-3.1-8b"], b"x").fails(1, "--tokenizer tokenizer.json");
}

#[test]
fn chat_counts_a_body_with_its_own_models_tokenizer() {
    use ctxbudget::request::RequestFitter;
    use ctxbudget::request::openai::ChatRequest;

    let body = multilingual_body("gpt-4");
    let request = ChatRequest::from_json(&body).unwrap();
    let cl100k = RequestFitter::new(Tiktoken::cl100k_base())
        .count(&request)
        .tokens;
    let o200k = RequestFitter::new(Tiktoken::o200k_base())
        .count(&request)
        .tokens;
    assert!(cl100k > o200k + o200k / 10, "{cl100k} against {o200k}");
    let out = run(&["count", "--chat"], body.as_bytes());
    assert_eq!(out.ok(), format!("{cl100k}\n"));
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    // A model the catalogue does not know: the default, with a warning.
    let body = multilingual_body("my-gateway-model");
    let out = run(&["count", "--chat"], body.as_bytes());
    assert_eq!(out.ok(), format!("{o200k}\n"));
    assert!(
        out.stderr.starts_with(
            "warning: the body's model `my-gateway-model` is not in the catalogue: counted \
             with o200k_base"
        ),
        "{}",
        out.stderr
    );
    // An encoding named on the command line counts, with a warning when the body's
    // model uses another.
    let body = multilingual_body("gpt-4");
    let out = run(&["count", "--chat", "-e", "o200k_base"], body.as_bytes());
    assert_eq!(out.ok(), format!("{o200k}\n"));
    assert!(
        out.stderr
            .contains("`gpt-4` counts with tiktoken cl100k_base, not o200k_base"),
        "{}",
        out.stderr
    );
}

#[test]
fn chat_takes_the_format_as_fit_does() {
    use ctxbudget::request::RequestFitter;
    use ctxbudget::request::anthropic::MessagesRequest;
    use ctxbudget::request::openai::ChatRequest;

    // A top-level `system`: detected as Anthropic's; as OpenAI's it is a field the
    // format does not know, and not counted.
    let body = r#"{"model": "gpt-4o", "max_tokens": 100,
        "system": "You are a helpful assistant that answers briefly.",
        "messages": [{"role": "user", "content": "Hello there"}]}"#;
    let counter = Tiktoken::o200k_base();
    let openai = RequestFitter::new(&counter)
        .count(&ChatRequest::from_json(body).unwrap())
        .tokens;
    let anthropic = RequestFitter::new(&counter)
        .count(&MessagesRequest::from_json(body).unwrap())
        .tokens;
    assert_ne!(openai, anthropic);
    let count = |format: &str| {
        run(&["count", "--chat", "--format", format], body.as_bytes())
            .ok()
            .to_owned()
    };
    assert_eq!(count("anthropic"), format!("{anthropic}\n"));
    assert_eq!(count("openai"), format!("{openai}\n"));
    assert_eq!(
        run(&["count", "--chat"], body.as_bytes()).ok(),
        format!("{anthropic}\n")
    );
}
