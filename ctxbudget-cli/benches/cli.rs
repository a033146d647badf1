//! Speed of the `ctxbudget` binary, each figure measured against its floor in the
//! same run, with the contenders interleaved in a new random order every round.
//!
//! - `count` of a 10 MB file against the library's count of it in a process that does
//!   nothing else (this bench binary run again as a child: read the file, count with
//!   `Tiktoken::o200k_base()`, print), on all cores and on one (`RAYON_NUM_THREADS=1`).
//! - Process start: `ctxbudget --version` (no tokenizer), and start to first output
//!   of `echo hi | ctxbudget count` (the `o200k_base` vocabulary loaded).
//! - `batch count` and `batch trim --tokens 256` of JSON lines: lines per second on 1
//!   and on 2 threads.
//! - `batch fit --max-input 1700` of OpenAI request bodies cut from the shipped coding
//!   session (see `fit_data_set`; most are over the limit and get trimmed): lines per
//!   second on 1 and on 2 threads.
//! - The same job in Python, `benches/python/batch_fit.py` (LangChain's `trim_messages`
//!   with a tiktoken `o200k_base` counter), against `batch fit` on the same subset of
//!   the requests (Python is too slow for all of them in a bench). After the warm-up
//!   round the bench checks both wrote the same number of lines and prints how many
//!   requests kept a different number of messages. The Python contender runs when
//!   `CTXBUDGET_PYTHON` (default `python3`) can import `tiktoken` and `langchain_core`
//!   (`benches/python/README.md`), else it is left out with a note.
//!
//! Run with `cargo bench -p ctxbudget-cli --bench cli`. The text is the benchmark
//! corpus (the folder named by `CTXBUDGET_CORPUS`, else `../shared/corpus` beside the
//! workspace when it exists, else the workspace's `tests/fixtures/`), repeated to
//! 10 MB. `CTXBUDGET_BENCH_ROUNDS` sets the rounds (default 10); `CTXBUDGET_BATCH_LINES`
//! the lines of the batch data sets (default 100,000); `CTXBUDGET_PYTHON_LINES` the
//! requests of the Python comparison (default 10,000); `CTXBUDGET_FIT_MAX_INPUT` the
//! limit (default 1,700). `CTXBUDGET_WRITE_FIT_DATA=FILE` only writes the requests
//! (`CTXBUDGET_BATCH_LINES` of them) to `FILE`, to run either side by hand.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ctxbudget::TokenCounter;
use ctxbudget::count::Tiktoken;

/// Set in the child that plays the library's count.
const CHILD: &str = "CTXBUDGET_BENCH_LIBRARY_COUNT";
const TEN_MB: usize = 10_000_000;

#[allow(clippy::too_many_lines)] // one list of measurements, in the order they print
fn main() {
    if let Ok(path) = std::env::var(CHILD) {
        library_count(Path::new(&path));
        return;
    }
    if let Ok(path) = std::env::var("CTXBUDGET_WRITE_FIT_DATA") {
        let lines = env_number("CTXBUDGET_BATCH_LINES", 100_000);
        std::fs::write(&path, fit_data_set(lines)).expect("the fit data set is written");
        return;
    }
    let rounds = env_number("CTXBUDGET_BENCH_ROUNDS", 10);
    let batch_lines = env_number("CTXBUDGET_BATCH_LINES", 100_000);
    let dir = std::env::temp_dir().join(format!("ctxbudget-cli-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let corpus = corpus();
    let big = dir.join("10mb.txt");
    std::fs::write(&big, repeat_to(&corpus, TEN_MB)).expect("the 10 MB file is written");
    let data = dir.join("data.jsonl");
    std::fs::write(&data, data_set(&corpus, batch_lines)).expect("the data set is written");
    let python_lines = env_number("CTXBUDGET_PYTHON_LINES", 10_000).min(batch_lines);
    let max_input = env_number("CTXBUDGET_FIT_MAX_INPUT", 1_700).to_string();
    let requests = dir.join("requests.jsonl");
    std::fs::write(&requests, fit_data_set(batch_lines)).expect("the requests are written");
    // The generator is deterministic: the first lines of the big set.
    let subset = dir.join("requests-subset.jsonl");
    std::fs::write(&subset, fit_data_set(python_lines)).expect("the subset is written");
    let big = big.to_str().expect("a UTF-8 path").to_owned();
    let data = data.to_str().expect("a UTF-8 path").to_owned();
    let path = |name: &str| dir.join(name).to_str().expect("a UTF-8 path").to_owned();
    let requests = requests.to_str().expect("a UTF-8 path").to_owned();
    let subset = subset.to_str().expect("a UTF-8 path").to_owned();
    let (fit_out, subset_out, python_out) = (
        path("fitted.jsonl"),
        path("fitted-subset.jsonl"),
        path("fitted-python.jsonl"),
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/python/batch_fit.py");
    let script = script.to_str().expect("a UTF-8 path");
    let python = std::env::var("CTXBUDGET_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let fit = |file: &str, out: &str| {
        [
            "batch",
            "fit",
            "--max-input",
            &max_input,
            "-i",
            file,
            "-o",
            out,
        ]
        .map(str::to_owned)
        .to_vec()
    };

    let bin = env!("CARGO_BIN_EXE_ctxbudget");
    let me = std::env::current_exe().expect("the bench binary");
    let me = me.to_str().expect("a UTF-8 path");
    let mut contenders: Vec<Contender> = vec![
        Contender::new("count 10 MB (all cores)", bin, &["count", &big]),
        Contender::new("count 10 MB (1 thread)", bin, &["count", &big])
            .env("RAYON_NUM_THREADS", "1"),
        Contender::new("library count 10 MB", me, &[]).env(CHILD, &big),
        Contender::new("start: --version", bin, &["--version"]),
        Contender::new("start to first output: echo hi | count", bin, &["count"]).stdin(b"hi\n"),
        Contender::new(
            "batch count (1 thread)",
            bin,
            &["batch", "count", "-i", &data],
        )
        .env("RAYON_NUM_THREADS", "1"),
        Contender::new(
            "batch count (2 threads)",
            bin,
            &["batch", "count", "-i", &data],
        )
        .env("RAYON_NUM_THREADS", "2"),
        Contender::new(
            "batch trim 256 (1 thread)",
            bin,
            &["batch", "trim", "-n", "256", "-i", &data],
        )
        .env("RAYON_NUM_THREADS", "1"),
        Contender::new(
            "batch trim 256 (2 threads)",
            bin,
            &["batch", "trim", "-n", "256", "-i", &data],
        )
        .env("RAYON_NUM_THREADS", "2"),
        Contender::owned("batch fit (1 thread)", bin, fit(&requests, &fit_out))
            .env("RAYON_NUM_THREADS", "1")
            .may_not_fit(),
        Contender::owned("batch fit (2 threads)", bin, fit(&requests, &fit_out))
            .env("RAYON_NUM_THREADS", "2")
            .may_not_fit(),
        Contender::owned(
            "batch fit, subset (1 thread)",
            bin,
            fit(&subset, &subset_out),
        )
        .env("RAYON_NUM_THREADS", "1")
        .may_not_fit(),
        Contender::owned(
            "batch fit, subset (2 threads)",
            bin,
            fit(&subset, &subset_out),
        )
        .env("RAYON_NUM_THREADS", "2")
        .may_not_fit(),
    ];
    let has_python = Command::new(&python)
        .args(["-c", "import tiktoken, langchain_core"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if has_python {
        let args = [
            script,
            "--max-input",
            &max_input,
            "-i",
            &subset,
            "-o",
            &python_out,
        ];
        contenders.push(Contender::new("python batch fit, subset", &python, &args));
    } else {
        eprintln!("no Python contender: `{python}` cannot import tiktoken and langchain_core");
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); contenders.len()];
    let mut cpu: Vec<Vec<Duration>> = vec![Vec::new(); contenders.len()];
    let mut order: Vec<usize> = (0..contenders.len()).collect();
    let mut random = Random::new();
    // One round to warm the page cache and check the outputs agree.
    let counts: Vec<String> = contenders[..3].iter().map(|c| c.run().0).collect();
    assert!(
        counts.windows(2).all(|w| w[0] == w[1]),
        "the binary and the library disagree: {counts:?}"
    );
    for contender in &contenders[3..] {
        contender.run();
    }
    if has_python {
        compare_fits(&subset_out, &python_out);
    }
    for round in 0..rounds {
        random.shuffle(&mut order);
        for &i in &order {
            let before = children_cpu();
            times[i].push(contenders[i].run().1);
            cpu[i].push(children_cpu().saturating_sub(before));
        }
        eprintln!("round {}/{rounds} done", round + 1);
    }
    let median_cpu: Vec<Duration> = cpu.iter_mut().map(|t| median(t)).collect();
    let median: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
    println!("\nmedians of {rounds} rounds, 10 MB = {TEN_MB} bytes, batch = {batch_lines} lines\n");
    println!("{:<44} {:>13} {:>17}", "", "wall", "CPU (user+sys)");
    for ((contender, time), cpu) in contenders.iter().zip(&median).zip(&median_cpu) {
        println!(
            "{:<44} {:>10.1} ms {:>14.0} ms",
            contender.name,
            time.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3
        );
    }
    let cpu_ratio = |a: usize, b: usize| median_cpu[a].as_secs_f64() / median_cpu[b].as_secs_f64();
    let ratio = |a: usize, b: usize| median[a].as_secs_f64() / median[b].as_secs_f64();
    let rate = |i: usize| {
        #[allow(clippy::cast_precision_loss)]
        let lines = batch_lines as f64;
        lines / median[i].as_secs_f64()
    };
    println!();
    println!(
        "count all cores / library count:  {:.2}x wall, {:.2}x CPU",
        ratio(0, 2),
        cpu_ratio(0, 2)
    );
    println!(
        "count 1 thread / library count:   {:.2}x wall, {:.2}x CPU",
        ratio(1, 2),
        cpu_ratio(1, 2)
    );
    println!(
        "batch count: {:.0} lines/s on 1 thread, {:.0} on 2 ({:.2}x)",
        rate(5),
        rate(6),
        ratio(5, 6)
    );
    println!(
        "batch trim:  {:.0} lines/s on 1 thread, {:.0} on 2 ({:.2}x)",
        rate(7),
        rate(8),
        ratio(7, 8)
    );
    let subset_rate = |i: usize| {
        #[allow(clippy::cast_precision_loss)]
        let lines = python_lines as f64;
        lines / median[i].as_secs_f64()
    };
    println!(
        "batch fit:   {:.0} lines/s on 1 thread, {:.0} on 2 ({:.2}x)",
        rate(9),
        rate(10),
        ratio(9, 10)
    );
    if has_python {
        println!(
            "subset of {python_lines}: batch fit {:.0} lines/s on 1 thread, {:.0} on 2; \
             Python {:.0} lines/s: {:.1}x faster on 1 thread, {:.1}x on 2",
            subset_rate(11),
            subset_rate(12),
            subset_rate(13),
            ratio(13, 11),
            ratio(13, 12)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Prints how many lines each fit wrote and how many requests kept a different
/// number of messages (paired by `metadata.line`).
fn compare_fits(ours: &str, theirs: &str) {
    let kept = |path: &str| -> std::collections::HashMap<String, usize> {
        let text = std::fs::read_to_string(path).expect("the fitted lines");
        text.lines()
            .map(|line| {
                let body: serde_json::Value = serde_json::from_str(line).expect("JSON");
                let id = body["metadata"]["line"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                (id, body["messages"].as_array().map_or(0, Vec::len))
            })
            .collect()
    };
    let (ours, theirs) = (kept(ours), kept(theirs));
    let differ = ours
        .iter()
        .filter(|(id, n)| theirs.get(*id).is_some_and(|m| m != *n))
        .count();
    let fewer = ours
        .iter()
        .filter(|(id, n)| theirs.get(*id).is_some_and(|m| m < *n))
        .count();
    println!(
        "outputs: ctxbudget wrote {} lines, Python {}; {differ} requests kept a different \
         number of messages (Python fewer in {fewer})",
        ours.len(),
        theirs.len()
    );
}

/// The child that stands for "the library's count plus process start".
fn library_count(path: &Path) {
    let text = std::fs::read_to_string(path).expect("the file is UTF-8 text");
    println!("{}", Tiktoken::o200k_base().count(&text));
}

/// A process to time.
struct Contender {
    name: &'static str,
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stdin: Option<&'static [u8]>,
    /// Exit code 2 (some request could not fit) is a success.
    may_not_fit: bool,
}

impl Contender {
    fn new(name: &'static str, program: &str, args: &[&str]) -> Self {
        Self::owned(name, program, args.iter().map(|&a| a.to_owned()).collect())
    }

    fn owned(name: &'static str, program: &str, args: Vec<String>) -> Self {
        Contender {
            name,
            program: program.to_owned(),
            args,
            env: Vec::new(),
            stdin: None,
            may_not_fit: false,
        }
    }

    fn may_not_fit(mut self) -> Self {
        self.may_not_fit = true;
        self
    }

    fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    fn stdin(mut self, bytes: &'static [u8]) -> Self {
        self.stdin = Some(bytes);
        self
    }

    /// Runs the process to its end: its first line of output, and the time from
    /// spawning it to its exit.
    fn run(&self) -> (String, Duration) {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .env_remove("RAYON_NUM_THREADS")
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (key, value) in &self.env {
            command.env(key, value);
        }
        let start = Instant::now();
        let mut child = command.spawn().expect("the process starts");
        if let Some(bytes) = self.stdin {
            let mut pipe = child.stdin.take().expect("piped");
            pipe.write_all(bytes).expect("stdin is written");
        }
        let output = child.wait_with_output().expect("the process ends");
        let elapsed = start.elapsed();
        assert!(
            output.status.success() || (self.may_not_fit && output.status.code() == Some(2)),
            "{} failed",
            self.name
        );
        let first = String::from_utf8_lossy(&output.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        (first, elapsed)
    }
}

/// The CPU time of the children this process has waited for (Linux: the `cutime` and
/// `cstime` fields of `/proc/self/stat`, in clock ticks of 10 ms); zero elsewhere.
fn children_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    let Some(after_name) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
        return Duration::ZERO;
    };
    // Fields from the third (state) on: cutime is the 16th field, cstime the 17th.
    let fields: Vec<u64> = after_name
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks = fields.get(12).copied().unwrap_or(0) + fields.get(13).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The Markdown, prose and code of the corpus, joined.
fn corpus() -> String {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dirs: Vec<PathBuf> = std::env::var_os("CTXBUDGET_CORPUS")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            workspace.join("../shared/corpus"),
            workspace.join("tests/fixtures"),
        ])
        .collect();
    for dir in dirs {
        let files =
            ["markdown.md", "prose.txt", "code.txt"].map(|f| std::fs::read_to_string(dir.join(f)));
        if let [Ok(markdown), Ok(prose), Ok(code)] = files {
            eprintln!("corpus: {}", dir.display());
            return [markdown, prose, code].join("\n\n");
        }
    }
    panic!("no corpus: set CTXBUDGET_CORPUS to a folder with markdown.md, prose.txt and code.txt");
}

/// `text` repeated to `size` bytes (cut on a char boundary).
fn repeat_to(text: &str, size: usize) -> String {
    let mut out = String::with_capacity(size + text.len());
    while out.len() < size {
        out.push_str(text);
        out.push_str("\n\n");
    }
    let mut end = size;
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out
}

/// `lines` JSON lines `{"id": i, "text": ...}` of 200 to 4,000 bytes of the corpus.
fn data_set(corpus: &str, lines: usize) -> String {
    let mut out = String::new();
    let mut start = 0usize;
    for i in 0..lines {
        let len = 200 + (i * 7919) % 3800;
        if start + len >= corpus.len() {
            start = 0;
        }
        let mut from = start;
        while !corpus.is_char_boundary(from) {
            from += 1;
        }
        let mut to = (from + len).min(corpus.len());
        while !corpus.is_char_boundary(to) {
            to -= 1;
        }
        let text = serde_json::to_string(&corpus[from..to]).expect("a string serializes");
        let _ = writeln!(out, "{{\"id\":{i},\"text\":{text}}}");
        start = to;
    }
    out
}

/// `lines` OpenAI request bodies, one per line, cut from the shipped coding session
/// (`tests/fixtures/requests/openai/coding_session.json`, 120 messages): each keeps the
/// session's system message, tools and settings, and a run of its messages that starts
/// on a user question and ends on a user question or on the last result of a group of
/// tool calls (an assistant's calls are never parted from their results), at most 55
/// messages (four tasks) long. Tool results are clipped to their first 2 to 9 lines,
/// so a line is 11 KB on average. `metadata.line` holds the line number, to pair
/// outputs. Deterministic: a shorter set is the start of a longer one.
fn fit_data_set(lines: usize) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/requests/openai/coding_session.json");
    let text = std::fs::read_to_string(&path).expect("the coding session fixture");
    let session: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let messages = session["messages"].as_array().expect("messages");
    let role = |i: usize| messages[i]["role"].as_str().unwrap_or_default();
    let starts: Vec<usize> = (0..messages.len()).filter(|&i| role(i) == "user").collect();
    // Exclusive ends: after a user message, or after a tool result not followed by one.
    let ends: Vec<usize> = (1..=messages.len())
        .filter(|&e| {
            role(e - 1) == "user"
                || (role(e - 1) == "tool" && (e == messages.len() || role(e) != "tool"))
        })
        .collect();
    let mut random = Random(0x5eed_f17d);
    let mut out = String::new();
    for line in 0..lines {
        let start = starts[usize::try_from(random.next() % (starts.len() as u64 - 1)).unwrap_or(0)];
        let span = 4 + usize::try_from(random.next() % 52).unwrap_or(0);
        let candidates: Vec<usize> = ends
            .iter()
            .copied()
            .filter(|&e| e > start && e <= start + span)
            .collect();
        let end = candidates.last().copied().unwrap_or(start + 1);
        let mut body = session.clone();
        let mut kept = vec![messages[0].clone()];
        for message in &messages[start..end] {
            let mut message = message.clone();
            if message["role"] == "tool" {
                if let Some(content) = message["content"].as_str() {
                    let keep = 2 + usize::try_from(random.next() % 8).unwrap_or(0);
                    let clipped: Vec<&str> = content.lines().take(keep).collect();
                    message["content"] = clipped.join("\n").into();
                }
            }
            kept.push(message);
        }
        body["messages"] = kept.into();
        body["metadata"] = serde_json::json!({ "line": line.to_string() });
        out.push_str(&serde_json::to_string(&body).expect("a body serializes"));
        out.push('\n');
    }
    out
}

/// A small xorshift generator for the order of each round.
struct Random(u64);

impl Random {
    fn new() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9e37_79b9, |d| d.subsec_nanos());
        Random(u64::from(nanos) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = usize::try_from(self.next() % (i as u64 + 1)).unwrap_or(0);
            items.swap(i, j);
        }
    }
}
