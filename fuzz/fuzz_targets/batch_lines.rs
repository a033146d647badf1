//! The engine of `ctxbudget batch` (`ctxbudget_cli::Batch`) over line streams in
//! memory: `count`, `trim` and `fit` with any counter the CLI takes, fed valid and
//! invalid JSON lines, byte order marks, lone surrogate escapes, keys given twice,
//! lines of megabytes, blank lines, bytes that are not UTF-8 and request bodies from
//! the request grammar, into writers that may fail. Checks:
//!
//! - no panic; every line read is blank, written (one output line) or failed (one
//!   `--errors` line), and the summary's counts add up to the lines read;
//! - output lines come in input order, each what the library makes of its line
//!   (the count of the text with the same counter, the trimmed text, the fitted
//!   body), error lines name increasing line numbers of lines that are not blank,
//!   and lines that cannot succeed are errors;
//! - with a writer that fails part way, the output is a prefix of the full run's
//!   and the summary counts exactly the lines written whole; a broken pipe ends the
//!   run without an error, any other failure is one.
//!
//! Input: structured (`arbitrary`); run with `-max_len=1048576`.
#![no_main]

#[path = "exact_counters.rs"]
mod exact_counters;
#[path = "json_out.rs"]
mod json_out;
#[path = "request_grammar.rs"]
mod request_grammar;

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex};

use ctxbudget::request::anthropic::MessagesRequest;
use ctxbudget::request::openai::ChatRequest;
use ctxbudget::request::{RequestError, RequestFitter, RequestFormat, detect_format};
use ctxbudget::{Keep, TokenCounter, TrimOptions, trim_with};
use ctxbudget_cli::Batch;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use exact_counters::Exact;
use json_out::{Deep, Num, Out, Text, Unit};
use request_grammar::{AnthropicBody, OpenAiBody};

#[derive(Arbitrary, Debug)]
struct Input {
    command: Command,
    bom: bool,
    lines: Vec<LineSpec>,
    /// `\n`, `\r\n`, or (for the last line) nothing.
    endings: Vec<u8>,
    errors_file: bool,
    output_fails: Option<Failure>,
    errors_fail: Option<Failure>,
}

#[derive(Arbitrary, Debug)]
enum Command {
    Count {
        counter: Exact,
        other_field: bool,
    },
    Trim {
        counter: Exact,
        tokens: u8,
        keep: u8,
        tokens_field: bool,
        marker: bool,
    },
    Fit {
        max_input: u16,
        format: u8,
    },
}

/// A writer that takes `after` bytes (in pieces of at most `step`), then fails.
#[derive(Arbitrary, Debug, Clone, Copy)]
struct Failure {
    after: u16,
    step: u8,
    broken_pipe: bool,
    in_flush: bool,
}

#[derive(Arbitrary, Debug)]
enum LineSpec {
    /// `{"id": N, ..., "text": "..."}`, with other fields, the text's key given twice
    /// or the count's key already there.
    Object {
        text: Text,
        fields: Vec<(u8, Deep)>,
        text_first: bool,
        earlier_text: Option<Text>,
        tokens_there: bool,
    },
    /// A JSON string: the text itself.
    JsonString(Text),
    /// A text of megabytes.
    Huge {
        unit: Unit,
        times: u32,
    },
    /// `"\ud800"` in the text, or in another field.
    LoneSurrogate {
        in_text: bool,
    },
    /// An object without the text's field.
    NoField,
    /// `{"text": 5}`.
    NotText(Num),
    /// `[1]`, `5`, `true`, `null`.
    NotObject(u8),
    /// Any text (no line end in it).
    Invalid(String),
    /// Any bytes (no line end in them).
    Bytes(Vec<u8>),
    /// Nothing, spaces, tabs, a Unicode space, a `\r`.
    Blank(u8),
    OpenAi(Box<OpenAiBody>),
    Anthropic(Box<AnthropicBody>),
}

/// What a line must become.
#[derive(Debug)]
enum Expect {
    Blank,
    /// An error line: over the limit (`Some(true)`), bad input (`Some(false)`), or
    /// either.
    Fails(Option<bool>),
    /// Written: an object with this `id` (none for a JSON string line) and this
    /// text; or an error, when `or_fails`.
    Text {
        id: Option<usize>,
        text: String,
        or_fails: bool,
    },
    /// Written as exactly this line.
    Exactly(String),
    /// Written or failed: not known here.
    Unknown,
}

const BLANKS: &[&str] = &["", " ", "\t\t", "\u{3000}", " \r", "\u{a0}"];
const FIELD_KEYS: &[&str] = &["meta", "tokens", "text", "n", "", "id"];

/// The tokenizer files, written once where `--tokenizer` can read them.
static FILES: LazyLock<[PathBuf; 3]> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join("ctxbudget-fuzz-tokenizers");
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        if std::fs::metadata(&path).map(|m| m.len()).ok() != Some(bytes.len() as u64) {
            let partial = dir.join(format!("{name}.{}", std::process::id()));
            std::fs::write(&partial, bytes).expect("a temporary file");
            std::fs::rename(&partial, &path).expect("a temporary file");
        }
        path
    };
    [
        write("anthropic-tokenizer.json", &exact_counters::ANTHROPIC_JSON),
        write("mistral-v1-tokenizer.json", &exact_counters::MISTRAL_JSON),
        write("tekken_240718.json", &exact_counters::TEKKEN_JSON),
    ]
});

fn counter_args(counter: Exact) -> Vec<String> {
    let file = |i: usize| vec!["--tokenizer".to_owned(), FILES[i].display().to_string()];
    match counter {
        Exact::O200k => vec!["--encoding".to_owned(), "o200k_base".to_owned()],
        Exact::Cl100k => vec!["-e".to_owned(), "CL100K-BASE".to_owned()],
        Exact::AnthropicJson => file(0),
        Exact::MistralJson => file(1),
        Exact::Tekken => file(2),
    }
}

/// Budgets `batch trim` is run with (a few, so that loaded counters are reused).
const BUDGETS: &[usize] = &[0, 1, 2, 3, 5, 8, 13, 40, 100, 512, 4096, 1 << 20];

/// Batches built from their arguments, kept: a tokenizer file loads once.
static BATCHES: LazyLock<Mutex<HashMap<Vec<String>, Arc<Batch>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn batch(args: Vec<String>) -> Arc<Batch> {
    let mut batches = BATCHES.lock().expect("not poisoned");
    if batches.len() > 512 {
        batches.clear();
    }
    batches
        .entry(args)
        .or_insert_with_key(|args| {
            Arc::new(Batch::from_args(args).unwrap_or_else(|e| panic!("{args:?}: {e}")))
        })
        .clone()
}

/// The command's arguments, and what it does to a text (for count and trim).
struct Job {
    args: Vec<String>,
    name: &'static str,
    field: &'static str,
    tokens_field: Option<&'static str>,
}

impl Command {
    fn job(&self) -> Job {
        match *self {
            Command::Count {
                counter,
                other_field,
            } => {
                let mut args = vec!["count".to_owned()];
                args.extend(counter_args(counter));
                let (field, tokens_field) = if other_field {
                    args.extend(["--field", "body", "--tokens-field", "n"].map(String::from));
                    ("body", "n")
                } else {
                    ("text", "tokens")
                };
                Job {
                    args,
                    name: "batch count",
                    field,
                    tokens_field: Some(tokens_field),
                }
            }
            Command::Trim {
                counter,
                tokens,
                keep,
                tokens_field,
                marker,
            } => {
                let mut args = vec!["trim".to_owned(), "--tokens".to_owned()];
                args.push(BUDGETS[usize::from(tokens) % BUDGETS.len()].to_string());
                let keep = ["head", "tail", "both"][usize::from(keep % 3)];
                args.extend(["--keep".to_owned(), keep.to_owned()]);
                if marker && keep == "both" {
                    args.extend(["--marker".to_owned(), " [cut] ".to_owned()]);
                }
                if tokens_field {
                    args.extend(["--tokens-field".to_owned(), "tokens".to_owned()]);
                }
                args.extend(counter_args(counter));
                Job {
                    args,
                    name: "batch trim",
                    field: "text",
                    tokens_field: tokens_field.then_some("tokens"),
                }
            }
            Command::Fit { max_input, format } => {
                let mut args = vec!["fit".to_owned(), "--max-input".to_owned()];
                args.push(max_input.to_string());
                args.extend(["--encoding".to_owned(), "o200k_base".to_owned()]);
                match format % 3 {
                    0 => {}
                    1 => args.extend(["--format".to_owned(), "openai".to_owned()]),
                    _ => args.extend(["--format".to_owned(), "anthropic".to_owned()]),
                }
                Job {
                    args,
                    name: "batch fit",
                    field: "text",
                    tokens_field: None,
                }
            }
        }
    }
}

/// `batch fit` of one body, done with the library: the fitted body, or whether the
/// error is "does not fit".
fn fit_line(line: &str, max_input: usize, format: Option<RequestFormat>) -> Result<String, bool> {
    let fitter = RequestFitter::new(&*exact_counters::O200K)
        .with_count_dropped(true)
        .with_max_input(max_input);
    let over = |e: RequestError| {
        matches!(
            e,
            RequestError::DoesNotFit { .. } | RequestError::OutputOverWindow { .. }
        )
    };
    let format = match format {
        Some(format) => format,
        None => detect_format(line).map_err(|_| false)?,
    };
    match format {
        RequestFormat::AnthropicMessages => {
            let request = MessagesRequest::from_json(line).map_err(|_| false)?;
            fitter
                .fit(request)
                .map(|f| f.request.to_json())
                .map_err(over)
        }
        _ => {
            let request = ChatRequest::from_json(line).map_err(|_| false)?;
            fitter
                .fit(request)
                .map(|f| f.request.to_json())
                .map_err(over)
        }
    }
}

/// A generated line: its bytes (no line end) and what it must become.
fn line(
    spec: &LineSpec,
    id: usize,
    command: &Command,
    job: &Job,
    room: usize,
) -> (Vec<u8>, Expect) {
    let field = job.field;
    let fitting = matches!(command, Command::Fit { .. });
    let text_line = |text: String, or_fails: bool| {
        if fitting {
            Expect::Fails(Some(false))
        } else {
            Expect::Text {
                id: Some(id),
                text,
                or_fails,
            }
        }
    };
    match spec {
        LineSpec::Object {
            text,
            fields,
            text_first,
            earlier_text,
            tokens_there,
        } => {
            let text = text.value(room);
            let mut out = Out::new("");
            let mut deep = false;
            out.object(|o| {
                o.raw("id", &id.to_string());
                if let Some(earlier) = earlier_text {
                    let earlier = earlier.value(room);
                    o.str(field, &earlier);
                }
                if *text_first {
                    o.str(field, &text);
                }
                for (key, value) in fields {
                    let key = FIELD_KEYS[usize::from(*key) % FIELD_KEYS.len()];
                    if key == field || key == "id" {
                        continue;
                    }
                    deep |= value.depth > 100;
                    o.field(key, |out| value.write(out));
                }
                if *tokens_there {
                    o.raw(job.tokens_field.unwrap_or("tokens"), "-1");
                }
                if !*text_first {
                    o.str(field, &text);
                }
            });
            // A value that is not JSON (a lone surrogate escape, nesting serde_json
            // refuses) may make the line an error.
            let or_fails = deep || out.text.contains("\\ud800");
            (out.text.into_bytes(), text_line(text, or_fails))
        }
        LineSpec::JsonString(text) => {
            let text = text.value(room);
            let json = serde_json::to_string(&text).expect("strings serialize");
            let expect = if fitting {
                Expect::Fails(Some(false))
            } else {
                Expect::Text {
                    id: None,
                    text,
                    or_fails: false,
                }
            };
            (json.into_bytes(), expect)
        }
        LineSpec::Huge { unit, times } => {
            // Past 1 MB, the command counts the text in pieces on all cores.
            let text = Text::Repeat {
                unit: unit.clone(),
                times: *times,
            }
            .long_value(room.saturating_mul(2));
            let mut out = Out::new("");
            out.object(|o| {
                o.raw("id", &id.to_string());
                o.str(field, &text);
            });
            (out.text.into_bytes(), text_line(text, false))
        }
        LineSpec::LoneSurrogate { in_text } => {
            let line = if *in_text {
                format!("{{\"id\":{id},\"{field}\":\"a\\ud800b\"}}")
            } else {
                format!("{{\"id\":{id},\"x\":\"\\ud800\",\"{field}\":\"ab\"}}")
            };
            let expect = if *in_text || fitting {
                Expect::Fails(Some(false))
            } else {
                text_line("ab".to_owned(), true)
            };
            (line.into_bytes(), expect)
        }
        LineSpec::NoField => (
            format!("{{\"id\":{id},\"other\":\"x\"}}").into_bytes(),
            Expect::Fails(Some(false)),
        ),
        LineSpec::NotText(n) => (
            format!("{{\"id\":{id},\"{field}\":{}}}", n.json()).into_bytes(),
            match n {
                Num::Quoted(n) => text_line(n.to_string(), false),
                _ => Expect::Fails(Some(false)),
            },
        ),
        LineSpec::NotObject(kind) => (
            ["[1]", "5", "true", "null", "1e400", "[]"][usize::from(*kind % 6)]
                .as_bytes()
                .to_vec(),
            Expect::Fails(Some(false)),
        ),
        LineSpec::Invalid(text) => (text.replace('\n', " ").into_bytes(), Expect::Unknown),
        LineSpec::Bytes(bytes) => (
            bytes
                .iter()
                .map(|&b| if b == b'\n' { b' ' } else { b })
                .collect(),
            Expect::Unknown,
        ),
        LineSpec::Blank(kind) => (
            BLANKS[usize::from(*kind) % BLANKS.len()]
                .as_bytes()
                .to_vec(),
            Expect::Unknown,
        ),
        LineSpec::OpenAi(body) => request_line(body.write("").0, command),
        LineSpec::Anthropic(body) => request_line(body.write("").0, command),
    }
}

fn request_line(json: String, command: &Command) -> (Vec<u8>, Expect) {
    let expect = match *command {
        Command::Fit { max_input, format } => {
            let format = match format % 3 {
                0 => None,
                1 => Some(RequestFormat::OpenAiChat),
                _ => Some(RequestFormat::AnthropicMessages),
            };
            match fit_line(&json, usize::from(max_input), format) {
                Ok(fitted) => Expect::Exactly(fitted),
                // "Does not fit" as the library says it; other errors may be
                // either, as the command sorts them.
                Err(true) => Expect::Fails(Some(true)),
                Err(false) => Expect::Fails(None),
            }
        }
        // A body has no `text` (nor `body`) field.
        _ => Expect::Fails(Some(false)),
    };
    (json.into_bytes(), expect)
}

/// A JSON object's fields as written (keys unescaped, values raw), in order.
struct Fields(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(V)
    }
}

impl Fields {
    fn all(&self, key: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.get())
            .collect()
    }
}

/// The lines `batch` reads from `bytes`: split at `\n`, one `\r` before it
/// dropped, no line after a final `\n`, a byte order mark at the start of the first
/// line skipped (a file of a byte order mark alone is one blank line).
fn split(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        lines.pop();
    }
    if let Some(first) = lines.first_mut() {
        *first = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first);
    }
    lines
        .into_iter()
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect()
}

/// A writer that fails as its [`Failure`] says, or never.
struct Failing {
    bytes: Vec<u8>,
    failure: Option<Failure>,
}

impl Failing {
    fn new(failure: Option<Failure>) -> Self {
        Failing {
            bytes: Vec::new(),
            failure,
        }
    }

    fn error(failure: Failure) -> io::Error {
        if failure.broken_pipe {
            io::Error::from(io::ErrorKind::BrokenPipe)
        } else {
            io::Error::other("no space left on device")
        }
    }
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(failure) = self.failure else {
            self.bytes.extend_from_slice(buf);
            return Ok(buf.len());
        };
        let left = usize::from(failure.after).saturating_sub(self.bytes.len());
        if left == 0 && !buf.is_empty() {
            return Err(Self::error(failure));
        }
        let n = buf.len().min(left).min(usize::from(failure.step).max(1));
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.failure {
            Some(failure) if failure.in_flush && self.bytes.len() >= usize::from(failure.after) => {
                Err(Self::error(failure))
            }
            _ => Ok(()),
        }
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn check_text_line(out: &str, id: Option<usize>, text: &str, command: &Command, job: &Job) {
    let counter: &(dyn TokenCounter + Send + Sync) = match command {
        Command::Count { counter, .. } | Command::Trim { counter, .. } => counter.counter(),
        Command::Fit { .. } => unreachable!("fit writes no text lines"),
    };
    let (text, tokens) = match command {
        Command::Trim {
            tokens,
            keep,
            marker,
            ..
        } => {
            let keep = [Keep::Head, Keep::Tail, Keep::HeadAndTail][usize::from(keep % 3)];
            let mut options = TrimOptions::new().keep(keep);
            if *marker && keep == Keep::HeadAndTail {
                options = options.with_elision(" [cut] ");
            }
            let budget = BUDGETS[usize::from(*tokens) % BUDGETS.len()];
            let trimmed = trim_with(text, budget, counter, &options);
            (trimmed.text().into_owned(), trimmed.tokens)
        }
        _ => (text.to_owned(), counter.count(text)),
    };
    // A JSON string line trimmed without a count field: the kept text, as a string.
    if id.is_none() && job.tokens_field.is_none() {
        let kept: String = serde_json::from_str(out).expect("a JSON string line");
        assert_eq!(kept, text);
        return;
    }
    let fields: Fields = serde_json::from_str(out)
        .unwrap_or_else(|e| panic!("an output line is not a JSON object ({e}): {out}"));
    match id {
        Some(id) => assert_eq!(fields.all("id"), [id.to_string()], "{out}"),
        None => assert!(fields.all("id").is_empty()),
    }
    let counting = matches!(command, Command::Count { .. });
    // `batch count` of a JSON string line writes the count alone.
    if !(counting && id.is_none()) {
        let texts = fields.all(job.field);
        let last = texts.last().unwrap_or_else(|| panic!("no text: {out}"));
        let kept: String = serde_json::from_str(last).expect("the text is a string");
        assert_eq!(kept, text, "{out}");
        if !counting {
            assert_eq!(texts.len(), 1, "the trimmed text is written once: {out}");
        }
    }
    if let Some(tokens_field) = job.tokens_field {
        assert_eq!(
            fields.all(tokens_field),
            [tokens.to_string()],
            "the count is written once, with the text's count: {out}"
        );
    }
}

fuzz_target!(|input: Input| {
    let job = input.command.job();
    let batch = batch(job.args.clone());

    // The input, and what each line must become.
    let mut bytes = Vec::new();
    if input.bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let mut expects = Vec::new();
    let mut room = json_out::BODY_BUDGET;
    for (i, spec) in input.lines.iter().enumerate() {
        let (line, expect) = line(spec, i + 1, &input.command, &job, room);
        room = room.saturating_sub(line.len());
        let last = i + 1 == input.lines.len();
        bytes.extend_from_slice(&line);
        match input.endings.get(i).copied().unwrap_or(0) % 3 {
            0 => bytes.push(b'\n'),
            1 => bytes.extend_from_slice(b"\r\n"),
            _ if last => {}
            _ => bytes.push(b'\n'),
        }
        expects.push(expect);
        if room == 0 {
            break;
        }
    }
    let lines = split(&bytes);
    // A final empty line without a line end is no line; a byte order mark alone is
    // one.
    expects.truncate(lines.len());
    if expects.is_empty() && lines.len() == 1 {
        expects.push(Expect::Unknown);
    }
    assert_eq!(
        lines.len(),
        expects.len(),
        "the harness splits as it writes"
    );
    for (line, expect) in lines.iter().zip(expects.iter_mut()) {
        if std::str::from_utf8(line).is_ok_and(|l| l.trim().is_empty()) {
            *expect = Expect::Blank;
        }
    }

    // The whole run.
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    let summary = batch.run(&mut bytes.as_slice(), &mut output, Some(&mut errors));
    assert!(summary.error().is_none() && !summary.closed());
    let written = summary.written();
    let (bad, over, blank) = (summary.bad(), summary.over(), summary.blank());
    assert_eq!(summary.lines(), lines.len());
    assert_eq!(
        summary.lines(),
        written + bad + over + blank,
        "every line is written, an error or blank: {summary}"
    );
    let out_lines: Vec<&[u8]> = output.split(|&b| b == b'\n').collect();
    assert_eq!(
        out_lines.last(),
        Some(&&b""[..]),
        "the output ends with a line end"
    );
    assert_eq!(
        out_lines.len() - 1,
        written,
        "one output line per line written"
    );
    let exit = if bad > 0 {
        1
    } else if over > 0 {
        2
    } else {
        0
    };
    assert_eq!(summary.exit_code(), exit);
    let shown = summary.to_string();
    let head = format!(
        "ctxbudget {}: {}, {written} written",
        job.name,
        plural(summary.lines(), "line")
    );
    assert!(shown.starts_with(&head), "{shown}");
    assert!(
        shown.contains(&format!(", {}", plural(bad, "error"))),
        "{shown}"
    );
    assert_eq!(summary.outcomes().map(|(_, n)| n).sum::<usize>(), written);

    // Which lines failed, from the errors written.
    let mut failed = vec![None; lines.len()];
    let mut previous = 0;
    let mut count = [0usize; 2];
    for error in errors.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let value: serde_json::Value = serde_json::from_slice(error).expect("error lines are JSON");
        let n = value["line"].as_u64().expect("a line number") as usize;
        let is_over = value["over"].as_bool().expect("over or not");
        assert!(value["error"].as_str().is_some_and(|e| !e.is_empty()));
        assert!(
            n > previous && n <= lines.len(),
            "error lines in order: {n} after {previous}"
        );
        previous = n;
        failed[n - 1] = Some(is_over);
        count[usize::from(is_over)] += 1;
    }
    assert_eq!(count, [bad, over], "one error line per failed line");

    // Each line became what it must, in input order.
    let mut outputs = out_lines.iter();
    for (n, expect) in expects.iter().enumerate() {
        if matches!(expect, Expect::Blank) {
            assert!(failed[n].is_none(), "line {} is blank and an error", n + 1);
            continue;
        }
        if let Some(is_over) = failed[n] {
            match expect {
                Expect::Fails(Some(over)) => assert_eq!(*over, is_over, "line {}", n + 1),
                Expect::Fails(None) | Expect::Unknown => {}
                Expect::Text { or_fails: true, .. } => {}
                _ => panic!("line {} failed, expected {expect:?}", n + 1),
            }
            continue;
        }
        let out =
            std::str::from_utf8(outputs.next().unwrap_or_else(|| {
                panic!("line {} has no output line, expected {expect:?}", n + 1)
            }))
            .expect("output lines are UTF-8");
        match expect {
            Expect::Fails(_) => panic!("line {} was written, not refused: {out}", n + 1),
            Expect::Text { id, text, .. } => check_text_line(out, *id, text, &input.command, &job),
            Expect::Exactly(line) => assert!(out == line, "line {}: {out} is not {line}", n + 1),
            Expect::Blank | Expect::Unknown => {}
        }
    }
    assert_eq!(
        outputs.next(),
        Some(&&b""[..]),
        "no output line is left over"
    );

    // Again without an errors writer, or with writers that fail part way: a prefix of
    // the whole run, and the lines written whole are those counted.
    if input.errors_file && input.output_fails.is_none() && input.errors_fail.is_none() {
        return;
    }
    let full_errors = errors;
    let mut out = Failing::new(input.output_fails);
    let mut errs = Failing::new(input.errors_fail);
    let cut = batch.run(
        &mut bytes.as_slice(),
        &mut out,
        input.errors_file.then_some(&mut errs as &mut dyn Write),
    );
    assert!(
        output.starts_with(&out.bytes),
        "the output is a prefix of the whole run's"
    );
    assert!(
        full_errors.starts_with(&errs.bytes),
        "the errors are a prefix of the whole run's"
    );
    let whole = out.bytes.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(
        cut.written(),
        whole,
        "the lines counted are those written whole"
    );
    if input.errors_file {
        let whole = errs.bytes.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(cut.bad() + cut.over(), whole);
    }
    assert!(cut.lines() <= summary.lines());
    if cut.closed() {
        assert!(cut.error().is_none());
    }
    if let Some(error) = cut.error() {
        assert_eq!(cut.exit_code(), 1);
        assert!(error.to_string().starts_with("cannot "), "{error}");
    }
    let stopped = cut.closed() || cut.error().is_some();
    if !stopped {
        assert_eq!(out.bytes, output);
        assert_eq!(cut.lines(), summary.lines());
    }
});
