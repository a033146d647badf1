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
//!
//! Run with `cargo bench -p ctxbudget-cli --bench cli`. The text is the benchmark
//! corpus (the folder named by `CTXBUDGET_CORPUS`, else `../shared/corpus` beside the
//! workspace when it exists, else the workspace's `tests/fixtures/`), repeated to
//! 10 MB. `CTXBUDGET_BENCH_ROUNDS` sets the rounds (default 10); `CTXBUDGET_BATCH_LINES`
//! the lines of the batch data set (default 100,000).

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
    let rounds = env_number("CTXBUDGET_BENCH_ROUNDS", 10);
    let batch_lines = env_number("CTXBUDGET_BATCH_LINES", 100_000);
    let dir = std::env::temp_dir().join(format!("ctxbudget-cli-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let corpus = corpus();
    let big = dir.join("10mb.txt");
    std::fs::write(&big, repeat_to(&corpus, TEN_MB)).expect("the 10 MB file is written");
    let data = dir.join("data.jsonl");
    std::fs::write(&data, data_set(&corpus, batch_lines)).expect("the data set is written");
    let big = big.to_str().expect("a UTF-8 path").to_owned();
    let data = data.to_str().expect("a UTF-8 path").to_owned();

    let bin = env!("CARGO_BIN_EXE_ctxbudget");
    let me = std::env::current_exe().expect("the bench binary");
    let me = me.to_str().expect("a UTF-8 path");
    let contenders: Vec<Contender> = vec![
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
    ];
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
    let _ = std::fs::remove_dir_all(&dir);
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
}

impl Contender {
    fn new(name: &'static str, program: &str, args: &[&str]) -> Self {
        Contender {
            name,
            program: program.to_owned(),
            args: args.iter().map(|&a| a.to_owned()).collect(),
            env: Vec::new(),
            stdin: None,
        }
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
        assert!(output.status.success(), "{} failed", self.name);
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
