//! Running the `ctxbudget` binary and reading what it did.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a run of the binary did.
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// Standard output, as bytes.
    pub stdout: Vec<u8>,
    /// Standard error, as text.
    pub stderr: String,
}

impl Run {
    /// Standard output as text.
    pub fn out(&self) -> &str {
        std::str::from_utf8(&self.stdout).expect("stdout is UTF-8")
    }

    /// Asserts the run succeeded and returns standard output.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        self.out()
    }

    /// Asserts the run failed with `code` and an error message containing `what`.
    #[track_caller]
    pub fn fails(&self, code: i32, what: &str) {
        assert_eq!(self.code, code, "stderr: {}", self.stderr);
        assert!(
            self.stderr.contains(what),
            "expected {what:?} in stderr: {}",
            self.stderr
        );
    }
}

/// Runs `ctxbudget ARGS` with `stdin` as standard input.
pub fn run(args: &[&str], stdin: &[u8]) -> Run {
    run_with(args, stdin, &[])
}

/// The `ctxbudget ARGS` command, its streams left for the caller to set.
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ctxbudget"));
    command.args(args).env_remove("RAYON_NUM_THREADS");
    command
}

/// The exit code of a finished child.
pub fn code(status: std::process::ExitStatus) -> i32 {
    status.code().expect("an exit code, not a signal")
}

/// `/dev/full` opened for writing: every write fails with "No space left on device".
pub fn full_disk() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full is writable")
}

/// Runs `ctxbudget ARGS` with `stdin` and extra environment variables.
pub fn run_with(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let mut command = command(args);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("the binary runs");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    // Write from another thread: a large input would otherwise fill the pipe while
    // the child's output fills the other one.
    let writer = std::thread::spawn(move || {
        // The child may exit before reading everything (an early error).
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("the binary finishes");
    writer.join().expect("the writer thread finishes");
    Run {
        code: output.status.code().expect("an exit code, not a signal"),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// A file of `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The text of a fixture.
pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("the fixture is readable")
}

/// A path as an argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// A fresh folder that is removed when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "ctxbudget-cli-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).expect("the temporary folder is created");
        TempDir(path)
    }

    /// Writes `bytes` to `name` in the folder and returns its path.
    pub fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).expect("the file is written");
        path
    }

    /// The path of `name` in the folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A request body of the workspace's `tests/fixtures/requests/` (the library's
/// fixtures): `openai/coding_session.json`, `anthropic/session.json`, ...
pub fn request_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/requests")
        .join(name)
}

/// A request body for `model` with text whose `cl100k_base` and `o200k_base` counts
/// differ by far (multilingual text, as in the issue).
pub fn multilingual_body(model: &str) -> String {
    let text = "Привет, как дела? これは日本語の文章です。 नमस्ते, आप कैसे हैं? \
                Ελληνικά κείμενα και 한국어 문장도 있습니다. "
        .repeat(20);
    serde_json::json!({
        "model": model,
        "messages": [
            {"role": "system", "content": "Answer in the user's language."},
            {"role": "user", "content": text},
            {"role": "assistant", "content": text},
            {"role": "user", "content": "And in one word?"}
        ]
    })
    .to_string()
}
