"""A drop-in for LangChain's `trim_messages` that never orphans a tool message.

`ctxbudget.langchain.trim_messages` takes LangChain's arguments and returns LangChain
messages, like `langchain_core.messages.trim_messages`; the decision of what to keep
is ctxbudget's engine (`ChatTrimmer`), which keeps an AI message's tool calls and
their `ToolMessage` results together, or drops them together. LangChain's own
function can return a history that starts with a `ToolMessage`, or an `AIMessage`
whose calls lost their results, which providers reject.

    >>> from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    >>> from ctxbudget.langchain import trim_messages
    >>> history = [
    ...     HumanMessage("What's the weather in Paris?"),
    ...     AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "c1"}]),
    ...     ToolMessage("18 degrees, cloudy, light wind from the west", tool_call_id="c1"),
    ...     AIMessage("It is 18 degrees and cloudy."),
    ...     HumanMessage("And tomorrow?"),
    ... ]
    >>> kept = trim_messages(history, max_tokens=40, token_counter="gpt-4o")
    >>> [m.type for m in kept]
    ['ai', 'human']

`langchain-core` is an optional dependency: `pip install langchain-core`.

`token_counter` is what LangChain takes: a function of a list of messages, a function
of one message, a chat model (its `get_num_tokens_from_messages`), or `"approximate"`
(LangChain's `count_tokens_approximately`); and also a model name (`"gpt-4o"`, any
name `ctxbudget.Model.lookup` knows) or a `ctxbudget.Counter`, which count in Rust,
in the OpenAI chat format (3 tokens a message, 3 to prime the reply), with images
and files as ctxbudget counts them.

Where the results differ from LangChain's, on purpose:

- A tool call and its results are kept or dropped together.
- `include_system=True` keeps every system message, not only a leading one; when
  they alone are over `max_tokens`, `ctxbudget.TrimError` is raised (LangChain
  returns them over the limit).
- `allow_partial` cuts a plain text message (a string, or text blocks) at a
  paragraph, line (text blocks are joined by a line break), sentence or word
  boundary chosen by ctxbudget; `text_splitter` is accepted and not used. A tool
  call or result is never cut.
- A callable `token_counter` is called once per message (and once on the empty
  list, for what a list costs besides its messages), not on growing lists; the
  kept list is then counted once more, and trimmed again if a counter that is not
  a sum over messages says it is over.
- `start_on` and `end_on` match by role (`"human"` matches a `ChatMessage` with the
  role `"user"`), and work with both strategies; `include_system` too.
"""

from __future__ import annotations

import inspect
import json
import math
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _ctxbudget

__all__ = ["trim_messages"]

_TYPE_ROLES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}

_MAX_RECOUNTS = 3
_COUNTERS: Dict[str, Any] = {}


def _langchain():
    try:
        from langchain_core import messages
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "ctxbudget.langchain needs langchain-core, which is not installed: "
            "pip install langchain-core"
        ) from error
    return messages


def _roles(option: str, value: Any, lc: Any) -> List[str]:
    """LangChain's `start_on`/`end_on` (a type name, a message class, or a list of
    them) as chat roles."""
    if value is None:
        return []
    items = [value] if isinstance(value, (str, type)) else list(value)
    classes = [
        (lc.SystemMessage, "system"),
        (lc.HumanMessage, "user"),
        (lc.AIMessage, "assistant"),
        (lc.ToolMessage, "tool"),
        (lc.FunctionMessage, "tool"),
    ]
    roles = []
    for item in items:
        if isinstance(item, str) and item in _TYPE_ROLES:
            roles.append(_TYPE_ROLES[item])
            continue
        if isinstance(item, type):
            role = next((r for cls, r in classes if issubclass(item, cls)), None)
            if role is not None:
                roles.append(role)
                continue
        raise ValueError(
            f"{option} has {item!r}, which is not a message type: use 'human', 'ai', "
            "'system' or 'tool', or a message class"
        )
    return roles


def _list_counter(token_counter: Any, lc: Any) -> Optional[Callable[[list], int]]:
    """LangChain's `token_counter` as a function of a list of messages; `None` for
    the counters ctxbudget counts with in Rust (a model name, a `Counter`)."""
    if isinstance(token_counter, str):
        if token_counter == "approximate":
            from langchain_core.messages.utils import count_tokens_approximately

            return count_tokens_approximately
        return None
    if isinstance(token_counter, _ctxbudget.Counter):
        return None
    if hasattr(token_counter, "get_num_tokens_from_messages"):
        return token_counter.get_num_tokens_from_messages
    if callable(token_counter):
        try:
            first = next(iter(inspect.signature(token_counter).parameters.values()), None)
        except (TypeError, ValueError):
            first = None
        if first is not None and first.annotation in (lc.BaseMessage, "BaseMessage"):
            return lambda messages: sum(token_counter(m) for m in messages)
        return token_counter
    raise ValueError(
        "'token_counter' expected to be a model that implements "
        "'get_num_tokens_from_messages()' or a function. "
        f"Received object of type {type(token_counter)}."
    )


def _native_counter(token_counter: Any) -> Tuple[Any, Optional[str]]:
    """A `Counter` and the model name (for image rules), loaded once per name."""
    if isinstance(token_counter, _ctxbudget.Counter):
        return token_counter, None
    counter = _COUNTERS.get(token_counter)
    if counter is None:
        counter = _ctxbudget.Counter.for_model(token_counter)
        _COUNTERS[token_counter] = counter
    return counter, token_counter


def _text_blocks(content: Any) -> Optional[List[str]]:
    """The texts of a content that is only text (a string, or text blocks), else
    `None`."""
    if isinstance(content, str):
        return [content]
    texts = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text" and "text" in block:
            texts.append(block["text"])
        else:
            return None
    return texts


def _cut(message: Any, start: int, end: int) -> Any:
    """`message` with only the characters `start..end` of its text, which is its
    string content, or its text blocks joined by a newline (as
    `convert_to_openai_messages` joins them): whole blocks where the cut misses them,
    the cut block in part."""
    content = message.content
    if isinstance(content, str):
        return message.model_copy(update={"content": content[start:end]})
    kept = []
    offset = 0
    for block in content:
        text = block if isinstance(block, str) else block["text"]
        lo, hi = offset, offset + len(text)
        offset = hi + 1
        if hi <= start or lo >= end:
            if not (lo == hi and start <= lo < end):
                continue
        piece = text[max(start, lo) - lo : min(end, hi) - lo]
        if piece == text:
            kept.append(block)
        elif isinstance(block, str):
            kept.append(piece)
        else:
            kept.append(dict(block, text=piece))
    return message.model_copy(update={"content": kept})


def trim_messages(
    messages: Any = None,
    *,
    max_tokens: int,
    token_counter: Any,
    strategy: str = "last",
    allow_partial: bool = False,
    end_on: Any = None,
    start_on: Any = None,
    include_system: bool = False,
    text_splitter: Any = None,
    keep_latest_user: bool = False,
) -> Any:
    """Trims LangChain messages to `max_tokens`, as LangChain's `trim_messages` does,
    without ever keeping a tool call apart from its results.

    Arguments are LangChain's (see the module's documentation for `token_counter`
    and for where results differ). `keep_latest_user=True` (ctxbudget's) also keeps
    the latest human message whatever it costs: `ctxbudget.TrimError` is raised when
    it and the system messages do not fit. Without `messages`, returns a LangChain
    `Runnable` that trims what it is given, as LangChain does.

    Raises `ValueError` for a bad argument, `ctxbudget.TrimError` when what must stay
    does not fit.
    """
    lc = _langchain()
    if messages is None:
        from langchain_core.runnables import RunnableLambda

        options = dict(
            max_tokens=max_tokens,
            token_counter=token_counter,
            strategy=strategy,
            allow_partial=allow_partial,
            end_on=end_on,
            start_on=start_on,
            include_system=include_system,
            text_splitter=text_splitter,
            keep_latest_user=keep_latest_user,
        )
        return RunnableLambda(lambda given: trim_messages(given, **options))
    if strategy not in ("first", "last"):
        raise ValueError(f"Unrecognized strategy={strategy!r}. Supported strategies are 'last' and 'first'.")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise ValueError(f"max_tokens must be a whole number of tokens, 0 or more; got {max_tokens!r}")
    messages = lc.convert_to_messages(messages)
    if not messages:
        return []
    # A budget past what the engine can count is no limit at all.
    limit = min(max_tokens, sys.maxsize)
    start_roles = _roles("start_on", start_on, lc)
    end_roles = _roles("end_on", end_on, lc)
    list_counter = _list_counter(token_counter, lc)

    # Each LangChain message as the OpenAI messages LangChain's own converter makes
    # of it (one, or several for a human message of Anthropic tool_result blocks).
    groups: List[int] = []
    openai: List[dict] = []
    for index, message in enumerate(messages):
        converted = lc.convert_to_openai_messages([message])
        groups.extend([index] * len(converted))
        openai.extend(converted)
    payload = json.dumps(openai, ensure_ascii=False)
    options = dict(
        strategy=strategy,
        include_system=include_system,
        keep_latest_user=keep_latest_user,
        start_on=start_roles,
        end_on=end_roles,
        allow_partial=allow_partial,
    )

    if list_counter is None:
        counter, model = _native_counter(token_counter)
        if model is not None:
            options["model"] = model
        else:
            options["counter"] = counter
        outcome = _ctxbudget.trim_chat(payload, limit, **options)
        return _result(messages, groups, outcome)

    costs = [0] * len(openai)
    first_of = {}
    for position, index in enumerate(groups):
        first_of.setdefault(index, position)
    for index, message in enumerate(messages):
        costs[first_of[index]] = _tokens(list_counter([message]))
    try:
        priming = _tokens(list_counter([]))
    except Exception:  # noqa: BLE001 - a counter may refuse an empty list
        priming = 0

    def piece_counter(position: int, start: int, end: int, text: str) -> int:
        """What a message costs with only the characters `start..end` of its text
        (as `_cut` would send it)."""
        if position < 0:
            return _tokens(list_counter([lc.HumanMessage(content=text)]))
        return _tokens(list_counter([_cut(messages[groups[position]], start, end)]))

    budget = limit
    for _ in range(_MAX_RECOUNTS + 1):
        outcome = _ctxbudget.trim_chat(
            payload,
            budget,
            costs=costs,
            priming=priming,
            piece_counter=piece_counter,
            **options,
        )
        kept = _result(messages, groups, outcome)
        total = _tokens(list_counter(kept)) if kept else 0
        if total <= max_tokens or budget == 0:
            return kept
        budget = max(0, budget - (total - max_tokens))
    return kept


def _tokens(count: Any) -> int:
    """A counter's answer as tokens: rounded up, 0 at least, at most what the engine
    counts (a float, a NaN or a negative number from a callable counter)."""
    tokens = math.ceil(count)
    return min(max(0, tokens), sys.maxsize)


def _result(messages: Sequence[Any], groups: List[int], outcome: dict) -> List[Any]:
    """The LangChain messages whose OpenAI messages were all kept, the one kept in
    part cut to its kept text."""
    kept_positions = set(outcome["kept"])
    whole: Dict[int, bool] = {}
    for position, index in enumerate(groups):
        whole[index] = whole.get(index, True) and position in kept_positions
    partial = outcome["partial"]
    cut_index = groups[partial[0]] if partial is not None else None
    out = []
    for index, message in enumerate(messages):
        if not whole.get(index):
            continue
        if index == cut_index:
            out.append(_cut(message, partial[1], partial[2]))
        else:
            out.append(message)
    return out
