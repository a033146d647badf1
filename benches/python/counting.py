#!/usr/bin/env python3
"""The Python side of `benches/counting.rs`: how fast the reference tokenizers count
the same 1 MB inputs, for the ratios of BENCHMARKS.md ("Counting").

- `o200k_base`: tiktoken's `len(encode_ordinary(text))`;
- `hf-anthropic`, `hf-mistral-v1`: Hugging Face tokenizers'
  `len(Tokenizer.from_str(...).encode(text, add_special_tokens=False).ids)`;
- `tekken`: mistral-common's `len(Tekkenizer.from_file(...).encode(text, bos=False,
  eos=False))`.

Each round runs every contender once on one input, in a new random order; the
median over rounds is printed with MB/s and the token count (which must equal the
Rust table's). Write the inputs first with the Rust bench:

    CTXBUDGET_DUMP_SHAPES=/tmp/shapes cargo bench --bench counting
    python3 benches/python/counting.py --shapes /tmp/shapes

Measured with CPython 3.11, tiktoken 0.14.0, tokenizers 0.23.3 and mistral-common
1.13.1 (see README.md here for the o200k_base file without internet).
"""
import argparse
import gzip
import os
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "tests", "fixtures", "tokenizers")
SHAPES = ["prose", "markdown", "code", "one-line", "one-letter", "cjk", "cjk-nopunct",
          "emoji-zwj", "base64", "base64-alnum"]

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--shapes", required=True, help="the directory the Rust bench wrote")
parser.add_argument("--rounds", type=int, default=10)
parser.add_argument("--vocab", help="a local o200k_base.tiktoken file")
args = parser.parse_args()

from vocab import install_vocab  # noqa: E402  (this directory is on the path)

install_vocab(args.vocab)

import tiktoken  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from mistral_common.tokens.tokenizers.tekken import Tekkenizer  # noqa: E402


def gunzipped(name):
    with gzip.open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


o200k = tiktoken.get_encoding("o200k_base")
anthropic = Tokenizer.from_str(gunzipped("anthropic-tokenizer.json.gz").decode())
mistral = Tokenizer.from_str(gunzipped("mistral-v1-tokenizer.json.gz").decode())
with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
    f.write(gunzipped("tekken_240718.json.gz"))
tekken = Tekkenizer.from_file(f.name)
os.unlink(f.name)

CONTENDERS = {
    "o200k_base (tiktoken)": lambda t: len(o200k.encode_ordinary(t)),
    "hf-anthropic (tokenizers)": lambda t: len(anthropic.encode(t, add_special_tokens=False).ids),
    "hf-mistral-v1 (tokenizers)": lambda t: len(mistral.encode(t, add_special_tokens=False).ids),
    "tekken (mistral-common)": lambda t: len(tekken.encode(t, bos=False, eos=False)),
}

print("| counter | input | tokens | median | MB/s |")
print("|---|---|---|---|---|")
for shape in SHAPES:
    with open(os.path.join(args.shapes, f"{shape}.txt"), encoding="utf-8") as f:
        text = f.read()
    size = len(text.encode())
    times = {name: [] for name in CONTENDERS}
    tokens = {}
    for name, count in CONTENDERS.items():
        tokens[name] = count(text)  # warm up
    for _ in range(args.rounds):
        order = list(CONTENDERS.items())
        random.shuffle(order)
        for name, count in order:
            start = time.perf_counter()
            count(text)
            times[name].append(time.perf_counter() - start)
    for name in CONTENDERS:
        median = statistics.median(times[name])
        print(f"| {name} | {shape} | {tokens[name]} | {median * 1e3:.1f} ms | "
              f"{size / 1e6 / median:.1f} |", flush=True)
