#!/usr/bin/env python3
"""ctxbudget (the Python package and the `ctxbudget` command, 1 and 2 threads)
side by side with LangChain's `trim_messages`, LiteLLM's `trim_messages` and the
Python floor, in one run, on the same request bodies and limits.

The bodies: tool-heavy agent sessions of about 50 KB (some 10,000 `o200k_base`
tokens) made as LangChain messages and written by LangChain's own OpenAI serializer
(`sessions.py`), one set with small tool results (100 to 800 characters, many
messages) and one with large ones (1,500 to 6,000 characters); a new user
instruction every few rounds. The limits are the lowest at which ctxbudget keeps
10%, 40% and 90% of a request's tokens on average (its count, tools included;
found by bisection before the timing).

The contenders, each producing the fitted body as JSON text:

- `fit_request`: `ctxbudget.fit_request(body, model="gpt-4o", max_input=N).json`,
  one call per body (one thread).
- `arrow 1t` / `arrow 2t`: `ctxbudget.arrow.RequestBatchFitter(model="gpt-4o",
  max_input=N, threads=1 or 2).fit(array)`, the bodies in a pyarrow array already in
  memory, the fitter made before the timing.
- `cli 1t` / `cli 2t`: `ctxbudget batch fit --model gpt-4o --max-input N --drop-only
  --threads 1 or 2` as a process, from a file to a file (process start and the
  vocabulary's load included; `--drop-only` so that it only drops messages, as the
  others do).
- `langchain`: `batch_fit.py`'s `fit`: the body parsed, its messages made
  LangChain's, `langchain_core.messages.trim_messages(strategy="last",
  include_system=True, start_on="human")` with a tiktoken `o200k_base` counter
  carrying the cookbook's overheads, the kept messages serialized back.
- `litellm`: the body parsed, `litellm.utils.trim_messages(messages, model="gpt-4o",
  max_tokens=N - tools)` (LiteLLM's own `o200k_base` tiktoken counter), the body
  serialized back.
- `floor`: the body parsed and every message's text and tool calls counted once
  with tiktoken (`encode_ordinary`), nothing written: what any Python fit costs at
  least. It does not depend on the limit, so it runs once a round per set.

ctxbudget's contenders run over the set `--passes` times a round (so that a process
start does not dominate), the Python ones once; rates are requests per second.
Every contender runs once a round, all cells interleaved in a new random order each
round, after a warm-up round; the figures are medians of the rounds, the ratios
those of medians measured in the same run.

Needs the package built in release in the running interpreter, pyarrow,
langchain-core, tiktoken and litellm (`benches/python/requirements-bench.txt`), and
the release `ctxbudget` binary (`cargo build --release -p ctxbudget-cli`):

    python benches/python/side_by_side.py [--rounds 3] [--count 60] [--passes 10]
"""

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--count", type=int, default=60, help="requests per set")
parser.add_argument("--passes", type=int, default=10, help="passes of ctxbudget's contenders over a set")
parser.add_argument("--keep", default="0.1,0.4,0.9", help="fractions of the median request the limits keep")
parser.add_argument("--cli", default=str(ROOT / "target" / "release" / "ctxbudget"), help="the ctxbudget binary")
parser.add_argument("--sets", default="small,large", help="small (tool results), large, or both")
parser.add_argument("--vocab", help="a local o200k_base.tiktoken file")
parser.add_argument("--write", metavar="DIR",
                    help="only write each set's bodies (SET.jsonl) and limits (SET.limits) to DIR, "
                         "for instructions.sh, and time nothing")
args = parser.parse_args()

# No download of LiteLLM's price list at import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from harness import Timed, import_batch_fit, measure  # noqa: E402
from sessions import agent_bodies  # noqa: E402

batch_fit = import_batch_fit(args.vocab)

import ctxbudget  # noqa: E402
import pyarrow as pa  # noqa: E402
from ctxbudget.arrow import RequestBatchFitter  # noqa: E402
from litellm.utils import trim_messages as litellm_trim  # noqa: E402

MODEL = "gpt-4o"
SETS = {
    "small": dict(results=(100, 800), user_every=(2, 4), seed=0x5A11),
    "large": dict(results=(1_500, 6_000), user_every=(1, 2), seed=0x1A6E),
}
LABEL = {"small": "small tool results", "large": "large tool results"}
ENCODING = batch_fit.ENCODING


def tally(outcomes, outcome):
    outcomes[outcome] = outcomes.get(outcome, 0) + 1


# The contenders: each takes the bodies (JSON text) and a limit, fits every body,
# and returns a tally of outcomes.


def run_fit_request(bodies, limit):
    out = {}
    for _ in range(args.passes):
        for body in bodies:
            try:
                fitted = ctxbudget.fit_request(body, model=MODEL, max_input=limit)
                fitted.json
                tally(out, "trimmed" if fitted.report.trimmed else "unchanged")
            except ctxbudget.CtxbudgetError:
                tally(out, "error")
    return out


def run_arrow(fitter, array):
    out = {}
    for _ in range(args.passes):
        fitted = fitter.fit(array)
    out["fits"] = fitted.field("fits").true_count
    out["dropped"] = sum(fitted.field("dropped").to_pylist())
    return out


def run_cli(path, limit, threads):
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as output:
        command = [args.cli, "batch", "fit", "--model", MODEL, "--max-input", str(limit),
                   "--drop-only", "--threads", str(threads), "-i", path, "-o", output.name]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode not in (0, 1):
            sys.exit(f"{' '.join(command)}: exit code {done.returncode}: {done.stderr}")
        written = sum(1 for _ in open(output.name, encoding="utf-8"))
    return Timed({"written": written, "summary": done.stderr.strip().splitlines()[-1:]}, elapsed)


def run_langchain(bodies, limit):
    out = {}
    for body in bodies:
        _, outcome = batch_fit.fit(body, limit)
        tally(out, outcome)
    return out


def litellm_fit(line, limit):
    """(output line, outcome) of LiteLLM's `trim_messages` on one body; the tool
    definitions (the cookbook's count) taken off the limit, as batch_fit.py does."""
    body = json.loads(line)
    budget = limit - (batch_fit.tools_tokens(body["tools"]) if body.get("tools") else 0)
    messages = body["messages"]
    kept = litellm_trim(messages, model=MODEL, max_tokens=budget)
    # trim_messages returns its input itself when it failed (it logs the error).
    if kept is messages:
        return None, "error"
    body["messages"] = kept
    if kept == messages:
        outcome = "unchanged"
    elif orphaned(kept):
        outcome = "trimmed, orphaned tool result"
    else:
        outcome = "trimmed"
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")), outcome


def orphaned(messages):
    """Whether a tool result is kept without the assistant message that called it
    (a body the OpenAI API refuses)."""
    called = set()
    for message in messages:
        for call in message.get("tool_calls") or []:
            called.add(call.get("id"))
        if message.get("role") == "tool" and message.get("tool_call_id") not in called:
            return True
    return False


def run_litellm(bodies, limit):
    out = {}
    for body in bodies:
        _, outcome = litellm_fit(body, limit)
        tally(out, outcome)
    return out


def floor_count(line):
    """The body parsed and each message counted once: text, name, tool calls."""
    body = json.loads(line)
    total = 0
    for message in body["messages"]:
        total += len(ENCODING.encode_ordinary(batch_fit.text_of(message.get("content") or "")))
        if message.get("name"):
            total += len(ENCODING.encode_ordinary(message["name"]))
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            total += len(ENCODING.encode_ordinary(function.get("name", "")))
            total += len(ENCODING.encode_ordinary(function.get("arguments", "")))
    return total


def run_floor(bodies):
    return {"tokens": sum(floor_count(body) for body in bodies)}


def kept_share(limit, array, before):
    """The mean share of its tokens a request keeps when ctxbudget fits it to `limit`."""
    fitter = RequestBatchFitter(model=MODEL, max_input=limit, threads=1)
    kept = fitter.fit(array).field("input_tokens").to_pylist()
    return sum(k / b for k, b in zip(kept, before)) / len(before)


def limit_keeping(share, array, before):
    """(limit, share kept): the lowest limit at which ctxbudget keeps `share` of the
    tokens on average (a fit keeps whole turns, so a limit of 40% of a request keeps
    less than 40% of it)."""
    low, high = 1, max(before)
    while low < high:
        middle = (low + high) // 2
        if kept_share(middle, array, before) >= share:
            high = middle
        else:
            low = middle + 1
    return low, kept_share(low, array, before)


def write(folder, sets, keeps):
    """Each set's bodies, one per line, and its limits, one per line, in `folder`."""
    os.makedirs(folder, exist_ok=True)
    for name, s in sets.items():
        with open(os.path.join(folder, f"{name}.jsonl"), "w", encoding="utf-8") as file:
            file.writelines(b + "\n" for b in s["bodies"])
        before = [ctxbudget.count_request(b, model=MODEL).tokens for b in s["bodies"]]
        with open(os.path.join(folder, f"{name}.limits"), "w", encoding="utf-8") as file:
            for keep in keeps:
                limit, kept = limit_keeping(keep, s["array"], before)
                file.write(f"{limit} {kept:.3f}\n")
        print(f"wrote {folder}/{name}.jsonl and {name}.limits", file=sys.stderr)


def main():
    keeps = [float(k) for k in args.keep.split(",")]
    sets = {}
    workdir = tempfile.mkdtemp(prefix="ctxbudget-side-by-side-")
    for name in args.sets.split(","):
        bodies = agent_bodies(args.count, **SETS[name])
        tokens = sorted(ctxbudget.count_request(b, model=MODEL).tokens for b in bodies)
        messages = sum(len(json.loads(b)["messages"]) for b in bodies) / len(bodies)
        path = os.path.join(workdir, f"{name}.jsonl")
        with open(path, "w", encoding="utf-8") as file:
            for _ in range(args.passes):
                file.writelines(b + "\n" for b in bodies)
        sets[name] = dict(bodies=bodies, tokens=tokens, median=tokens[len(tokens) // 2],
                          array=pa.array(bodies, type=pa.large_string()), path=path,
                          kb=sum(map(len, bodies)) / len(bodies) / 1e3, messages=messages)
        print(f"{name}: {len(bodies)} requests, {sets[name]['kb']:.1f} KB, {messages:.0f} messages "
              f"and {sets[name]['median']:,} tokens (median; {tokens[0]:,} to {tokens[-1]:,}) each",
              file=sys.stderr)

    if args.write:
        write(args.write, sets, keeps)
        return
    empty = os.path.join(workdir, "empty.jsonl")
    open(empty, "w").close()
    contenders = {("cli", None, "start"): lambda: run_cli(empty, 1_000, 1)}
    cells = []
    for name, s in sets.items():
        bodies = s["bodies"]
        contenders[(name, None, "floor")] = lambda bodies=bodies: run_floor(bodies)
        before = [ctxbudget.count_request(b, model=MODEL).tokens for b in bodies]
        for keep in keeps:
            limit, s[keep] = limit_keeping(keep, s["array"], before)
            cells.append((name, keep, limit))
            one = RequestBatchFitter(model=MODEL, max_input=limit, threads=1)
            two = RequestBatchFitter(model=MODEL, max_input=limit, threads=2)
            cell = (name, keep)
            contenders[cell + ("fit_request",)] = lambda b=bodies, l=limit: run_fit_request(b, l)
            contenders[cell + ("arrow 1t",)] = lambda f=one, a=s["array"]: run_arrow(f, a)
            contenders[cell + ("arrow 2t",)] = lambda f=two, a=s["array"]: run_arrow(f, a)
            contenders[cell + ("cli 1t",)] = lambda p=s["path"], l=limit: run_cli(p, l, 1)
            contenders[cell + ("cli 2t",)] = lambda p=s["path"], l=limit: run_cli(p, l, 2)
            contenders[cell + ("langchain",)] = lambda b=bodies, l=limit: run_langchain(b, l)
            contenders[cell + ("litellm",)] = lambda b=bodies, l=limit: run_litellm(b, l)

    def load(round_):
        print(f"  round {round_} done at {time.strftime('%H:%M:%S')}, load average "
              f"{os.getloadavg()[0]:.2f}", file=sys.stderr)

    loads = [os.getloadavg()]
    medians = measure({" ".join(map(str, key)): job for key, job in contenders.items()}, args.rounds, load)
    loads.append(os.getloadavg())

    def rate(name, keep, who):
        requests = len(sets[name]["bodies"])
        if who in ("fit_request", "arrow 1t", "arrow 2t", "cli 1t", "cli 2t"):
            requests *= args.passes
        return requests / medians[f"{name} {keep} {who}"]

    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in
                         ("litellm", "langchain-core", "tiktoken", "pyarrow", "ctxbudget"))
    print(f"\nCPython {sys.version.split()[0]}, {versions}; "
          f"{args.count} requests a set, {args.rounds} rounds; load average "
          f"{loads[0][0]:.2f} before, {loads[1][0]:.2f} after ({loads[1][2]:.2f} over 15 min)\n")
    print("| set, limit (share kept) | fit_request | arrow 1t | arrow 2t | cli 1t | cli 2t "
          "| LangChain | LiteLLM | floor |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, keep, limit in cells:
        s = sets[name]
        whos = ["fit_request", "arrow 1t", "arrow 2t", "cli 1t", "cli 2t", "langchain", "litellm"]
        rates = [rate(name, keep, w) for w in whos] + [rate(name, None, "floor")]
        print(f"| {name}, {limit:,} ({s[keep]:.0%}) | " + " | ".join(f"{r:,.0f}" if r >= 10 else f"{r:.1f}" for r in rates) + " |")
    print("\nratios (ctxbudget's rate / the other's):\n")
    print("| set, limit | arrow 1t / LangChain | arrow 1t / LiteLLM | arrow 1t / floor "
          "| cli 1t / LangChain | cli 1t / LiteLLM | cli 1t / floor | 2t / 1t arrow | 2t / 1t cli |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, keep, limit in cells:
        r = {w: rate(name, keep, w) for w in ("arrow 1t", "arrow 2t", "cli 1t", "cli 2t", "langchain", "litellm")}
        floor = rate(name, None, "floor")
        cols = [r["arrow 1t"] / r["langchain"], r["arrow 1t"] / r["litellm"], r["arrow 1t"] / floor,
                r["cli 1t"] / r["langchain"], r["cli 1t"] / r["litellm"], r["cli 1t"] / floor,
                r["arrow 2t"] / r["arrow 1t"], r["cli 2t"] / r["cli 1t"]]
        print(f"| {name}, {keep:.0%} | " + " | ".join(f"{c:.2f}x" for c in cols) + " |")
    print(f"\n`ctxbudget batch fit` on an empty file (process start, vocabulary load): "
          f"{medians['cli None start'] * 1e3:.0f} ms")
    print(f"\n(inputs in {workdir})", file=sys.stderr)


if __name__ == "__main__":
    main()
