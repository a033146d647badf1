#!/usr/bin/env python3
"""`ctxbudget.fit_request` from Python against LangChain's `trim_messages` with a
tiktoken counter, on the same requests, one thread; and the Ray Data and Spark
recipes of docs/python-ray-spark.md on 1 and on 2 workers.

- small: the requests of `benches/python/batch_fit.py` (OpenAI bodies cut from the
  coding session, as `ctxbudget-cli/benches/cli.rs` cuts them), limit 1,700 tokens;
  the LangChain side is `batch_fit.py`'s own `fit` (imported, not copied).
- large: tool-heavy bodies of about 50 KB, built as LangChain messages (a task,
  then rounds of parallel tool calls whose results are source files and documents of
  the fixtures) and written by LangChain's own OpenAI serializer,
  `convert_to_openai_messages`; limit 8,000 tokens.

Each round runs every contender once over its whole set, in a new random order;
the figures are the medians of the rounds, and the ratios are of medians measured
in the same run. With `--distributed`, also the Ray and Spark recipes over the
100,000 requests of `ctxbudget-py/tests/datasets.py` with 1 and 2 workers (one
thread each), interleaved the same way.

Run from the repository root, in a virtual environment with the package and the
pinned test requirements installed (see docs/python-ray-spark.md):

    python benches/python/fit_vs_langchain.py [--rounds 5] [--distributed]
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ctxbudget-py" / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--small", type=int, default=2_000, help="small requests")
parser.add_argument("--large", type=int, default=200, help="large requests")
parser.add_argument("--distributed", action="store_true", help="also Ray and Spark, 1 vs 2 workers")
parser.add_argument("--only-distributed", action="store_true", help="only Ray and Spark")
parser.add_argument("--lines", type=int, default=100_000, help="requests of the Ray and Spark jobs")
parser.add_argument("--vocab", help="a local o200k_base.tiktoken file")
args = parser.parse_args()

import ctxbudget  # noqa: E402
import datasets  # noqa: E402
from harness import Timed, import_batch_fit, measure  # noqa: E402
from sessions import agent_bodies  # noqa: E402

batch_fit = import_batch_fit(args.vocab)

SMALL_LIMIT = 1_700
LARGE_LIMIT = 8_000


def large_bodies(count: int) -> list:
    """Tool-heavy requests of about 50 KB (tool results of 1,500 to 6,000
    characters), made as LangChain messages and written by LangChain's OpenAI
    serializer."""
    return agent_bodies(count)


def run_ctxbudget(bodies, limit):
    out = {"fits": 0, "error": 0}
    for body in bodies:
        try:
            fitted = ctxbudget.fit_request(body, model="gpt-4o", max_input=limit)
            out["fits"] += bool(fitted.report.fits)
        except ctxbudget.CtxbudgetError:
            out["error"] += 1
    return out


def run_langchain(bodies, limit):
    out = {}
    for body in bodies:
        _, outcome = batch_fit.fit(body, limit)
        out[outcome] = out.get(outcome, 0) + 1
    return out


def fit_vs_langchain():
    small = list(datasets.openai_bodies(args.small))
    large = large_bodies(args.large)
    size = sum(map(len, large)) / len(large)
    print(f"small: {len(small)} requests, {sum(map(len, small)) / len(small) / 1e3:.1f} KB each; "
          f"large: {len(large)} requests, {size / 1e3:.1f} KB each")
    contenders = {
        "ctxbudget small": lambda: run_ctxbudget(small, SMALL_LIMIT),
        "langchain small": lambda: run_langchain(small, SMALL_LIMIT),
        "ctxbudget large": lambda: run_ctxbudget(large, LARGE_LIMIT),
        "langchain large": lambda: run_langchain(large, LARGE_LIMIT),
    }
    medians = measure(contenders, args.rounds)
    print(f"| set | ctxbudget.fit_request | LangChain trim_messages + tiktoken | ratio |")
    print("| --- | --- | --- | --- |")
    for name, bodies in (("small", small), ("large", large)):
        ours, theirs = medians[f"ctxbudget {name}"], medians[f"langchain {name}"]
        print(f"| {name} ({len(bodies)} requests) | {len(bodies) / ours:,.0f} requests/s "
              f"| {len(bodies) / theirs:,.0f} requests/s | **{theirs / ours:.1f}x** |")


def distributed():
    import recipes

    path = datasets.jsonl(args.lines)
    ray_recipe = recipes.load("python-ray-spark.md", "ray")
    spark_recipe = recipes.load("python-ray-spark.md", "spark")
    import ray

    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)

    def ray_job(workers):
        fitted = ray_recipe["fit_with_ray"](path, model="gpt-4o", max_input=4_000, workers=workers)
        return fitted.sum("input_tokens")

    def spark_job(workers):
        spark = (
            SparkSession.builder.master(f"local[{workers}]")
            .config("spark.ui.enabled", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        # The session starts (a JVM, then its Python workers) outside the timing.
        spark.range(workers * 4).repartition(workers).count()
        try:
            started = time.perf_counter()
            fitted = spark_recipe["fit_with_spark"](spark, path, model="gpt-4o", max_input=4_000)
            tokens = fitted.selectExpr("sum(input_tokens)").collect()[0][0]
            return Timed(tokens, time.perf_counter() - started)
        finally:
            spark.stop()

    contenders = {
        "ray 1 worker": lambda: ray_job(1),
        "ray 2 workers": lambda: ray_job(2),
        "spark 1 worker": lambda: spark_job(1),
        "spark 2 workers": lambda: spark_job(2),
    }
    medians = measure(contenders, max(1, args.rounds // 2))
    ray.shutdown()
    print(f"\n{args.lines:,} requests ({os.path.getsize(path) / 1e6:,.0f} MB), max_input 4,000:")
    print("| job | 1 worker | 2 workers | 2 / 1 |")
    print("| --- | --- | --- | --- |")
    for name in ("ray", "spark"):
        one, two = medians[f"{name} 1 worker"], medians[f"{name} 2 workers"]
        print(f"| {name} | {args.lines / one:,.0f} requests/s | {args.lines / two:,.0f} requests/s "
              f"| {one / two:.2f}x |")


if __name__ == "__main__":
    if not args.only_distributed:
        fit_vs_langchain()
    if args.distributed or args.only_distributed:
        distributed()
