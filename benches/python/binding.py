"""What the Python binding costs, measured against its floors in one run.

1. Per-call overhead on small inputs: one ``Counter.count`` call per text against
   ``Counter.count_many`` of the same texts (one crossing, a Rust loop: the Rust
   call's cost plus a conversion per text); one ``fit_request`` call per small body
   (a dict, and a JSON str) against ``RequestBatchFitter(threads=1).fit`` of the same
   bodies in an Arrow array.
2. The Arrow batch against the command line on the same lines: ``ctxbudget batch fit
   --max-input 1700`` (context edits on, its default) of OpenAI request bodies cut from
   the shipped coding session, as ``ctxbudget-cli/benches/cli.rs`` makes them (a port
   of its ``fit_data_set``), against ``RequestBatchFitter(max_input=1700,
   edits=True).fit`` of the same lines in a pyarrow array, on 1 and on 2 threads. The
   CLI reads and writes its files; the Arrow side fits an array already in memory, as
   a Ray or Spark map step gets it.

Every round runs the contenders in a new random order; the medians and their ratios
come from the same run. Run from the repository's root after ``scripts/test-all.sh
--python`` (or ``pip install ./ctxbudget-py pyarrow``) and ``cargo build --release -p
ctxbudget-cli``:

    target/py-venv/bin/python benches/python/binding.py [--rounds 15] [--lines 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

import ctxbudget
from ctxbudget.arrow import RequestBatchFitter

ROOT = Path(__file__).resolve().parents[2]
MASK = (1 << 64) - 1


class XorShift:
    """cli.rs's generator, so the lines are the ones its bench makes."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        x = self.state
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
        self.state = x
        return x


def fit_data_set(lines: int) -> list[str]:
    """A port of ``fit_data_set`` in ctxbudget-cli/benches/cli.rs."""
    session = json.loads((ROOT / "tests/fixtures/requests/openai/coding_session.json").read_text())
    messages = session["messages"]
    role = [m.get("role") for m in messages]
    starts = [i for i, r in enumerate(role) if r == "user"]
    n = len(messages)
    ends = [
        e
        for e in range(1, n + 1)
        if role[e - 1] == "user" or (role[e - 1] == "tool" and (e == n or role[e] != "tool"))
    ]
    rng = XorShift(0x5EED_F17D)
    out = []
    for line in range(lines):
        start = starts[rng.next() % (len(starts) - 1)]
        span = 4 + rng.next() % 52
        candidates = [e for e in ends if start < e <= start + span]
        end = candidates[-1] if candidates else start + 1
        kept = [messages[0]]
        for message in messages[start:end]:
            message = dict(message)
            if message.get("role") == "tool" and isinstance(message.get("content"), str):
                keep = 2 + rng.next() % 8
                message["content"] = "\n".join(message["content"].splitlines()[:keep])
            kept.append(message)
        body = dict(session, messages=kept, metadata={"line": str(line)})
        out.append(json.dumps(body, separators=(",", ":"), ensure_ascii=False))
    return out


def run_rounds(contenders: dict, rounds: int) -> dict:
    """Each contender once per round, in a new random order; all times in seconds."""
    times = {name: [] for name in contenders}
    order = list(contenders)
    for _ in range(rounds):
        random.shuffle(order)
        for name in order:
            started = time.perf_counter()
            contenders[name]()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(t) for name, t in times.items()}


def overhead(rounds: int) -> None:
    counter = ctxbudget.Counter.for_model("gpt-4o")
    texts = [f"A short message number {i}, as a chat turn might be." for i in range(10_000)]
    small = {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is in config.toml?"},
            {"role": "assistant", "content": "Port 8080, deploys on Fridays."},
            {"role": "user", "content": "Which port?"},
        ],
    }
    bodies = [dict(small, metadata={"n": str(i)}) for i in range(2_000)]
    as_json = [json.dumps(b) for b in bodies]
    array = pa.array(as_json, type=pa.large_string())
    batch = RequestBatchFitter(max_input=1_000, threads=1)

    contenders = {
        "count: one call per text": lambda: [counter.count(t) for t in texts],
        "count: count_many (Rust loop)": lambda: counter.count_many(texts),
        "fit_request(dict) per body": lambda: [ctxbudget.fit_request(b, max_input=1_000) for b in bodies],
        "fit_request(str) per body": lambda: [ctxbudget.fit_request(b, max_input=1_000) for b in as_json],
        "arrow fit, 1 thread (Rust loop)": lambda: batch.fit(array),
    }
    medians = run_rounds(contenders, rounds)
    per_text = {k: v / len(texts) for k, v in medians.items() if k.startswith("count")}
    per_body = {k: v / len(bodies) for k, v in medians.items() if not k.startswith("count")}
    print(f"Per-call overhead ({rounds} rounds, medians):")
    floor = per_text["count: count_many (Rust loop)"]
    for name, t in per_text.items():
        print(f"  {name:36} {t * 1e9:9.0f} ns/text   {t / floor:5.2f}x")
    floor = per_body["arrow fit, 1 thread (Rust loop)"]
    for name, t in per_body.items():
        print(f"  {name:36} {t * 1e6:9.2f} us/body   {t / floor:5.2f}x")


def arrow_vs_cli(rounds: int, lines: int, cli: Path) -> None:
    data = fit_data_set(lines)
    array = pa.array(data, type=pa.large_string())
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "requests.jsonl"
        source.write_text("\n".join(data) + "\n", encoding="utf-8")
        target = Path(folder) / "fitted.jsonl"

        def run_cli(threads: int):
            def go():
                subprocess.run(
                    [str(cli), "batch", "fit", "--max-input", "1700", "-j", str(threads),
                     "-i", str(source), "-o", str(target)],
                    check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
            return go

        fitters = {t: RequestBatchFitter(max_input=1_700, edits=True, threads=t) for t in (1, 2)}
        # Same work: the same fitted bodies, line for line.
        run_cli(2)()
        theirs = target.read_text(encoding="utf-8").splitlines()
        ours = fitters[2].fit(array)
        same = sum(
            1 for a, b in zip(ours.field("body").to_pylist(), theirs)
            if a is not None and json.loads(a) == json.loads(b)
        )
        print(f"\nArrow batch vs `ctxbudget batch fit` on {lines} lines ({rounds} rounds, medians); "
              f"{same} of {len(theirs)} fitted bodies equal")
        contenders = {f"cli -j {t}": run_cli(t) for t in (1, 2)}
        contenders.update({f"arrow threads={t}": (lambda f=fitters[t]: f.fit(array)) for t in (1, 2)})
        medians = run_rounds(contenders, rounds)
        for t in (1, 2):
            cli_rate = lines / medians[f"cli -j {t}"]
            arrow_rate = lines / medians[f"arrow threads={t}"]
            print(f"  {t} thread(s): cli {cli_rate:8.0f} lines/s, arrow {arrow_rate:8.0f} lines/s, "
                  f"arrow/cli {arrow_rate / cli_rate:4.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--cli", type=Path, default=ROOT / "target/release/ctxbudget")
    args = parser.parse_args()
    print(f"ctxbudget {ctxbudget.__version__}, Python {sys.version.split()[0]}, pyarrow {pa.__version__}, "
          f"{os.cpu_count()} cores")
    overhead(args.rounds)
    if args.cli.exists():
        arrow_vs_cli(args.rounds, args.lines, args.cli)
    else:
        print(f"\n{args.cli} not found: `cargo build --release -p ctxbudget-cli` for the CLI comparison")


if __name__ == "__main__":
    main()
