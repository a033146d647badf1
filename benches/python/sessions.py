"""Tool-heavy agent sessions as OpenAI Chat Completions bodies, made as LangChain
messages and written by LangChain's own OpenAI serializer
(`langchain_core.messages.convert_to_openai_messages`), for the Python benches
(`fit_vs_langchain.py`, `side_by_side.py`).

A session is a system prompt and a task, then rounds of parallel `read_file` calls
whose results are slices of the repository's fixtures (`tests/fixtures/code.txt`,
`markdown.md`, `prose.txt`), each round closed by a short assistant message, and a
last user message; with `user_every`, a new user instruction opens a turn every few
rounds, as in a real coding session. Deterministic: the same arguments give the same
bodies.
"""

import json
import random
from pathlib import Path

from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_openai_messages,
)

ROOT = Path(__file__).resolve().parents[2]

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "A path in the repository."}},
                "required": ["path"],
            },
        },
    }
    for name, description in [
        ("read_file", "Read a file of the repository."),
        ("search", "Search the repository for a pattern."),
        ("list_dir", "List a directory."),
    ]
]

INSTRUCTIONS = [
    "Look at how the limit is checked when a request has tools.",
    "Now check the tests that cover this path.",
    "Find where the report is written and what it says.",
    "Compare this with how the batch command handles errors.",
    "Check whether the tool results are cleared before messages are dropped.",
]


def agent_bodies(count, size=50_000, results=(1_500, 6_000), user_every=None, seed=0x50CB):
    """`count` JSON bodies of about `size` bytes each (compact JSON, `gpt-4o`, the
    three tools above); tool results of `results[0]` to `results[1]` characters; with
    `user_every=(lo, hi)`, a user instruction every `lo` to `hi` rounds."""
    fixtures = ROOT / "tests" / "fixtures"
    texts = [(fixtures / name).read_text(encoding="utf-8") for name in ("code.txt", "markdown.md", "prose.txt")]
    rng = random.Random(seed)
    bodies = []
    for n in range(count):
        messages = [
            SystemMessage("You are a coding agent. Use the tools; answer briefly."),
            HumanMessage(f"Task {n}: find where the budget is checked and explain it."),
        ]
        call = 0
        until_user = rng.randint(*user_every) if user_every else None
        while len(json.dumps(convert_to_openai_messages(messages))) < size:
            calls = []
            for _ in range(rng.randint(1, 3)):
                call += 1
                calls.append({"name": "read_file", "args": {"path": f"src/file_{call}.rs"}, "id": f"call_{n}_{call}"})
            added = [AIMessage("Reading the files.", tool_calls=calls)]
            for c in calls:
                text = rng.choice(texts)
                start = rng.randrange(0, max(1, len(text) - results[1]))
                added.append(ToolMessage(text[start : start + rng.randint(*results)], tool_call_id=c["id"]))
            added.append(AIMessage(f"Read {len(calls)} files; looking further."))
            if until_user is not None:
                until_user -= 1
                if until_user == 0:
                    added.append(HumanMessage(rng.choice(INSTRUCTIONS)))
                    until_user = rng.randint(*user_every)
            messages.extend(added)
        messages.append(HumanMessage("Now summarise what you found."))
        body = {"model": "gpt-4o", "messages": convert_to_openai_messages(messages), "tools": TOOLS}
        bodies.append(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
    return bodies
