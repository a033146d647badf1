"""Real-shaped request bodies made from the repository's fixtures, deterministically,
for the Ray and Spark recipes' tests and the Python benches.

Each body is a window of one of the three agent sessions the repository ships:

- OpenAI Chat Completions, `tests/fixtures/requests/openai/coding_session.json`: the
  system message and the messages from a user message up to 4 to 55 messages later,
  ending after a user message or after the last tool result of a round; tool results
  clipped to 2 to 9 lines. The same windows as `ctxbudget-cli/benches/cli.rs`'s
  `fit_data_set` (same generator, same seed), so the first bodies are the CLI bench's.
- Anthropic Messages, `tests/fixtures/requests/anthropic/session.json`: from a task
  (a user message of text) to the user message that closes a round 2 to 40 messages
  later, with `system`, `tools` and `thinking`; tool results clipped the same way.
- OpenAI Responses, `tests/fixtures/responses/agent_session.json`: the developer
  item and the items from the user's task to the last output of a round 3 to 60
  items later; outputs clipped the same way.

Nothing is downloaded and nothing is written: `requests(100_000)` builds the list in
memory in a few seconds.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Iterator, List

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
MASK = (1 << 64) - 1


class Random:
    """The xorshift generator of `ctxbudget-cli/benches/cli.rs`."""

    def __init__(self, state: int) -> None:
        self.state = state

    def next(self) -> int:
        x = self.state
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
        self.state = x
        return x


def _load(path: str) -> dict:
    return json.loads((FIXTURES / path).read_text(encoding="utf-8"))


def _clip(text: str, random: Random) -> str:
    keep = 2 + random.next() % 8
    return "\n".join(text.splitlines()[:keep])


def _dumps(body: dict) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def openai_bodies(count: int, seed: int = 0x5EEDF17D) -> Iterator[str]:
    """Chat Completions windows of the coding session, as the CLI bench cuts them."""
    session = _load("requests/openai/coding_session.json")
    messages = session["messages"]
    role = [m.get("role") for m in messages]
    starts = [i for i, r in enumerate(role) if r == "user"]
    ends = [
        e
        for e in range(1, len(messages) + 1)
        if role[e - 1] == "user"
        or (role[e - 1] == "tool" and (e == len(messages) or role[e] != "tool"))
    ]
    random = Random(seed)
    for line in range(count):
        start = starts[random.next() % (len(starts) - 1)]
        span = 4 + random.next() % 52
        candidates = [e for e in ends if start < e <= start + span]
        end = candidates[-1] if candidates else start + 1
        kept = [messages[0]]
        for message in messages[start:end]:
            if message.get("role") == "tool" and isinstance(message.get("content"), str):
                message = dict(message, content=_clip(message["content"], random))
            kept.append(message)
        body = dict(session, messages=kept, metadata={"line": str(line)})
        yield _dumps(body)


def anthropic_bodies(count: int, seed: int = 0xA17B0D1E) -> Iterator[str]:
    """Messages API windows of the Anthropic coding session."""
    session = _load("requests/anthropic/session.json")
    messages = session["messages"]
    tasks = [
        i
        for i, m in enumerate(messages)
        if m["role"] == "user" and isinstance(m["content"], str)
    ]
    ends = [i + 1 for i, m in enumerate(messages) if m["role"] == "user"]
    random = Random(seed)
    for line in range(count):
        start = tasks[random.next() % len(tasks)]
        span = 2 + random.next() % 39
        candidates = [e for e in ends if start < e <= start + span]
        end = candidates[-1] if candidates else start + 1
        kept = []
        for message in messages[start:end]:
            if message["role"] == "user" and isinstance(message["content"], list):
                message = copy.deepcopy(message)
                for block in message["content"]:
                    if block.get("type") == "tool_result" and isinstance(
                        block.get("content"), str
                    ):
                        block["content"] = _clip(block["content"], random)
            kept.append(message)
        body = dict(session, messages=kept, metadata={"user_id": f"line-{line}"})
        yield _dumps(body)


def responses_bodies(count: int, seed: int = 0x0BADCAFE) -> Iterator[str]:
    """Responses API windows of the agent session."""
    session = _load("responses/agent_session.json")
    items = session["input"]
    developer = next(it for it in items if it.get("role") == "developer")
    outputs = ("function_call_output", "custom_tool_call_output")
    tasks = [i for i, it in enumerate(items) if it.get("role") == "user"]
    ends = [
        e
        for e in range(1, len(items) + 1)
        if items[e - 1].get("role") == "user"
        or (
            items[e - 1].get("type") in outputs
            and (e == len(items) or items[e].get("type") not in outputs)
        )
    ]
    random = Random(seed)
    for line in range(count):
        start = tasks[random.next() % len(tasks)]
        span = 3 + random.next() % 58
        candidates = [e for e in ends if start < e <= start + span]
        end = candidates[-1] if candidates else start + 1
        kept = [developer]
        for item in items[start:end]:
            if item.get("type") in outputs and isinstance(item.get("output"), str):
                item = dict(item, output=_clip(item["output"], random))
            kept.append(item)
        body = dict(session, input=kept, metadata={"line": str(line)})
        yield _dumps(body)


def requests(count: int = 100_000) -> List[str]:
    """`count` request bodies as JSON text: three Chat Completions windows, then one
    Anthropic and one Responses window, in turn."""
    per_five = -(-count // 5)
    openai = openai_bodies(3 * per_five)
    anthropic = anthropic_bodies(per_five)
    responses = responses_bodies(per_five)
    out: List[str] = []
    while len(out) < count:
        for source in (openai, openai, openai, anthropic, responses):
            if len(out) < count:
                out.append(next(source))
    return out


def jsonl(count: int = 100_000) -> str:
    """The path of a JSON-lines file of `requests(count)`, written once to the
    temporary directory and reused by later calls (and runs of the same generator)."""
    import hashlib
    import os
    import tempfile

    version = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    name = f"ctxbudget-requests-{count}-{version}.jsonl"
    path = os.path.join(tempfile.gettempdir(), name)
    if not os.path.exists(path):
        partial = f"{path}.{os.getpid()}.part"
        with open(partial, "w", encoding="utf-8") as out:
            for body in requests(count):
                out.write(body)
                out.write("\n")
        os.replace(partial, path)
    return path


if __name__ == "__main__":
    import sys
    import time

    started = time.perf_counter()
    bodies = requests(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    size = sum(len(b) for b in bodies)
    print(
        f"{len(bodies)} bodies, {size / 1e6:.1f} MB, "
        f"{size / len(bodies) / 1e3:.1f} KB each on average, "
        f"in {time.perf_counter() - started:.1f} s"
    )
