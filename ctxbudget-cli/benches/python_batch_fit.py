#!/usr/bin/env python3
"""What `ctxbudget batch fit` does, the way it is done in Python today: read OpenAI
Chat Completions request bodies, one per line, trim each one's messages to an input
limit with LangChain's `trim_messages` and a tiktoken counter, write the trimmed
bodies in input order.

The comparison contender of `ctxbudget-cli/benches/cli.rs` (which writes the data
set and runs both); it can also be run alone:

    python3 -m venv venv && . venv/bin/activate
    pip install tiktoken==0.14.0 langchain-core==1.8.3
    python3 ctxbudget-cli/benches/python_batch_fit.py --max-input 2000 \
        --input requests.jsonl --output fitted.jsonl [--processes 2]

The counter follows the OpenAI cookbook's `num_tokens_from_messages` (3 tokens per
message, 1 more for a name, 3 to prime the reply), as ctxbudget does, with
`o200k_base`. It counts the text of each message and the JSON of its tool calls;
tool definitions are not counted (ctxbudget counts them with the cookbook's
formula), so the Python side does a little less work. `trim_messages` keeps the
system message, keeps the latest messages that fit (strategy "last") and starts the
history on a user message, as `ctxbudget fit` does; a request whose kept messages
still do not fit is reported as over and not written.

Python tiktoken downloads its vocabularies from the internet; like
`tests/fixtures/make_tiktoken_counts.py`, this script loads `o200k_base` from the
tiktoken-rs crate in the cargo registry instead, checked against the hash tiktoken
expects, so both sides count with the same vocabulary.
"""
import argparse
import base64
import glob
import hashlib
import json
import os
import pathlib
import sys
import time
from multiprocessing import Pool

import tiktoken
import tiktoken_ext.openai_public as public
from langchain_core.messages import (
    BaseMessage,
    convert_to_messages,
    convert_to_openai_messages,
    trim_messages,
)


def local_bpe(url, expected_hash=None):
    """tiktoken's load_tiktoken_bpe, reading the tiktoken-rs crate's copy of `url`."""
    assets = sorted(glob.glob(os.path.expanduser(
        "~/.cargo/registry/src/*/tiktoken-rs-0.12.*/assets")))[-1]
    data = (pathlib.Path(assets) / url.rsplit("/", 1)[-1]).read_bytes()
    assert expected_hash is None or hashlib.sha256(data).hexdigest() == expected_hash, url
    return {base64.b64decode(token): int(rank)
            for token, rank in (line.split() for line in data.splitlines() if line)}


public.load_tiktoken_bpe = local_bpe
ENCODING = tiktoken.Encoding(**public.o200k_base())

PER_MESSAGE = 3
PER_NAME = 1
REPLY_PRIMING = 3


def text_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def message_tokens(message: BaseMessage) -> int:
    """The cookbook's count of one message."""
    tokens = PER_MESSAGE + len(ENCODING.encode_ordinary(text_of(message)))
    tokens += len(ENCODING.encode_ordinary(message.type))
    if getattr(message, "name", None):
        tokens += PER_NAME + len(ENCODING.encode_ordinary(message.name))
    for call in getattr(message, "tool_calls", None) or []:
        tokens += len(ENCODING.encode_ordinary(call["name"]))
        tokens += len(ENCODING.encode_ordinary(json.dumps(call["args"])))
    return tokens


def fit(line: str, max_input: int):
    """(output line or None, outcome): outcome is "fitted", "trimmed", "over" or an
    error message."""
    try:
        body = json.loads(line)
        messages = convert_to_messages(body["messages"])
    except Exception as error:  # a bad line is reported, not fatal
        return None, f"error: {error}"
    before = sum(message_tokens(m) for m in messages) + REPLY_PRIMING
    if before <= max_input:
        return line.rstrip("\n"), "fitted"
    kept = trim_messages(
        messages,
        max_tokens=max_input - REPLY_PRIMING,
        token_counter=message_tokens,
        strategy="last",
        include_system=True,
        start_on="human",
        allow_partial=False,
    )
    after = sum(message_tokens(m) for m in kept) + REPLY_PRIMING
    if not kept or after > max_input or not any(m.type == "human" for m in kept):
        return None, "over"
    body["messages"] = convert_to_openai_messages(kept)
    return json.dumps(body, ensure_ascii=False), "trimmed"


def fit_chunk(args):
    lines, max_input = args
    return [fit(line, max_input) for line in lines]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-input", type=int, required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    with open(args.input, encoding="utf-8") as f:
        lines = f.readlines()
    if args.processes > 1:
        size = 256
        chunks = [(lines[i:i + size], args.max_input) for i in range(0, len(lines), size)]
        with Pool(args.processes) as pool:
            results = [r for chunk in pool.imap(fit_chunk, chunks) for r in chunk]
    else:
        results = [fit(line, args.max_input) for line in lines]
    tally = {}
    with open(args.output, "w", encoding="utf-8") as out:
        for line, outcome in results:
            if line is not None:
                out.write(line + "\n")
            key = outcome if not outcome.startswith("error") else "errors"
            tally[key] = tally.get(key, 0) + 1
    elapsed = time.perf_counter() - started
    print(f"python batch fit: {len(lines)} lines, {tally} in {elapsed:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
