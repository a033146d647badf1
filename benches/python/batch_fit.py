#!/usr/bin/env python3
"""What `ctxbudget batch fit --max-input N` does, done the way it is done in Python
today: read OpenAI Chat Completions request bodies, one per line; turn each one's
messages into LangChain messages; trim them with `langchain_core.messages.trim_messages`
and a tiktoken `o200k_base` counter; turn them back; write the bodies as JSON lines in
input order.

The Python contender of `ctxbudget-cli/benches/cli.rs`, which writes the data set and
runs both; see `benches/python/README.md` to run it alone.

The counter is the OpenAI cookbook's `num_tokens_from_messages` for gpt-4o, as
ctxbudget's: 3 tokens per message, 1 more for a name, 3 to prime the reply; it
encodes each message's role, text, name and its tool calls' names and arguments. The
tool definitions are counted once per request with the cookbook's
`num_tokens_for_tools` and taken off the budget.
`trim_messages(strategy="last", include_system=True, start_on="human",
allow_partial=False)` keeps the system message and the latest messages that fit,
starting on a user message. A request that fits is written unchanged (as ctxbudget
does); one whose trimmed messages are still over the limit or have no user message is
counted as "over" and not written.

Python tiktoken downloads its vocabularies; with no internet, the `o200k_base` file
the tiktoken-rs crate ships (in the cargo registry once the workspace has been built)
is put in tiktoken's cache, where `tiktoken.get_encoding` finds it and checks its
SHA-256. `--vocab FILE` names another copy of `o200k_base.tiktoken`.
"""
import argparse
import json
import sys
import time

from vocab import install_vocab


parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--max-input", type=int, required=True, help="at most N input tokens")
parser.add_argument("--input", "-i", required=True, help="the JSON lines to read")
parser.add_argument("--output", "-o", required=True, help="where to write the fitted lines")
parser.add_argument("--vocab", help="a local o200k_base.tiktoken file")
args = parser.parse_args()
install_vocab(args.vocab)

import tiktoken  # noqa: E402  (after the cache is filled)
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_openai_messages,
    trim_messages,
)

ENCODING = tiktoken.get_encoding("o200k_base")
PER_MESSAGE = 3
PER_NAME = 1
REPLY_PRIMING = 3
ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


def tokens(text):
    return len(ENCODING.encode_ordinary(text))


def text_of(content):
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def to_langchain(message):
    """One OpenAI message as a LangChain message."""
    role = message["role"]
    content = message.get("content") or ""
    name = message.get("name")
    if role in ("system", "developer"):
        return SystemMessage(content=content, name=name)
    if role == "user":
        return HumanMessage(content=content, name=name)
    if role == "assistant":
        calls = [
            {"name": c["function"]["name"], "args": json.loads(c["function"]["arguments"]),
             "id": c["id"], "type": "tool_call"}
            for c in message.get("tool_calls") or []
        ]
        return AIMessage(content=content, name=name, tool_calls=calls)
    if role == "tool":
        return ToolMessage(content=content, tool_call_id=message["tool_call_id"])
    raise ValueError(f"role {role!r}")


def count(messages: list[BaseMessage]) -> int:
    """The cookbook's count of a list of messages, with the reply priming."""
    total = REPLY_PRIMING
    for message in messages:
        total += PER_MESSAGE + tokens(ROLES.get(message.type, message.type))
        total += tokens(text_of(message.content))
        if message.name:
            total += PER_NAME + tokens(message.name)
        for call in getattr(message, "tool_calls", None) or []:
            total += tokens(call["name"]) + tokens(json.dumps(call["args"]))
    return total


def tools_tokens(tools):
    """The cookbook's `num_tokens_for_tools` for gpt-4o: the tool definitions."""
    total = 12
    for tool in tools:
        function = tool.get("function") or {}
        total += 7 + tokens(f"{function.get('name', '')}:"
                            f"{function.get('description', '').rstrip('.')}")
        properties = (function.get("parameters") or {}).get("properties") or {}
        if properties:
            total += 3
        for key, spec in properties.items():
            total += 3
            for item in spec.get("enum") or []:
                total += 3 + tokens(str(item))
            if spec.get("enum"):
                total -= 3
            total += tokens(f"{key}:{spec.get('type', '')}:"
                            f"{spec.get('description', '').rstrip('.')}")
    return total


def fit(line, max_input):
    """(output line or None, outcome): "unchanged", "trimmed", "over" or "error"."""
    try:
        body = json.loads(line)
        messages = [to_langchain(m) for m in body["messages"]]
    except (ValueError, KeyError, TypeError):
        return None, "error"
    budget = max_input - (tools_tokens(body["tools"]) if body.get("tools") else 0)
    if count(messages) <= budget:
        return line.rstrip("\n"), "unchanged"
    kept = trim_messages(
        messages,
        max_tokens=budget,
        token_counter=count,
        strategy="last",
        include_system=True,
        start_on="human",
        allow_partial=False,
    )
    if count(kept) > budget or not any(m.type == "human" for m in kept):
        return None, "over"
    body["messages"] = convert_to_openai_messages(kept)
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")), "trimmed"


def main():
    started = time.perf_counter()
    tally = {}
    lines = 0
    with open(args.input, encoding="utf-8") as source, \
            open(args.output, "w", encoding="utf-8") as out:
        for line in source:
            lines += 1
            fitted, outcome = fit(line, args.max_input)
            if fitted is not None:
                out.write(fitted + "\n")
            tally[outcome] = tally.get(outcome, 0) + 1
    elapsed = time.perf_counter() - started
    print(f"python batch fit: {lines} lines, {tally} in {elapsed:.2f} s "
          f"({lines / elapsed:.0f} lines/s)", file=sys.stderr)


if __name__ == "__main__":
    main()
