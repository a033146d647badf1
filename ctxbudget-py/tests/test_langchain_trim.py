"""`ctxbudget.langchain.trim_messages` against LangChain's own `trim_messages` tests
(langchain-core's `tests/unit_tests/messages/test_utils.py`), ported by behaviour:
the same histories, counters and arguments, and LangChain's expected result where
the two agree. Where they differ, the test says why, and checks LangChain's own
function still gives its (orphaning or over-budget) result, so the difference is
known rather than assumed.
"""

import math

import pytest

lc = pytest.importorskip("langchain_core.messages")
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages import trim_messages as lc_trim  # noqa: E402
from langchain_core.messages.utils import count_tokens_approximately  # noqa: E402

import ctxbudget  # noqa: E402
from ctxbudget.langchain import trim_messages  # noqa: E402

FOUR = "This is a 4 token text."
FIRST_BLOCK = "This is the FIRST 4 token block."
SECOND_BLOCK = "This is the SECOND 4 token block."


def messages_to_trim():
    """LangChain's `_MESSAGES_TO_TRIM`: 10, 10, 14, 10 and 10 tokens."""
    return [
        SystemMessage(FOUR),
        HumanMessage(FOUR, id="first"),
        AIMessage(
            [{"type": "text", "text": FIRST_BLOCK}, {"type": "text", "text": SECOND_BLOCK}],
            id="second",
        ),
        HumanMessage(FOUR, id="third"),
        AIMessage(FOUR, id="fourth"),
    ]


def dummy_token_counter(messages):
    """LangChain's: 3 + 4 + 3 for a message with string content, 3 + 4 per block + 3
    for list content."""
    count = 0
    for msg in messages:
        if isinstance(msg.content, str):
            count += 3 + 4 + 3
        if isinstance(msg.content, list):
            count += 3 + len(msg.content) * 4 + 3
    return count


def tool_call_messages():
    """A question answered through a tool call (10, 10, 10, 14 and 10 tokens)."""
    return [
        HumanMessage("hi"),
        AIMessage("hello"),
        HumanMessage("what's the weather in florida?"),
        AIMessage(
            [
                {"type": "text", "text": "let's check the weather in florida"},
                {"type": "tool_use", "id": "abc123", "name": "get_weather", "input": {"location": "florida"}},
            ],
            tool_calls=[{"name": "get_weather", "args": {"location": "florida"}, "id": "abc123", "type": "tool_call"}],
        ),
        ToolMessage("It's sunny.", tool_call_id="abc123"),
    ]


def both(messages, **options):
    """ctxbudget's result, after checking the input was not changed."""
    copies = [m.model_copy(deep=True) for m in messages]
    ours = trim_messages(messages, **options)
    assert messages == copies
    return ours


# ---------------------------------------------------------------------------
# LangChain's cases where the results agree
# ---------------------------------------------------------------------------

AGREE = {
    "first_30": (
        dict(max_tokens=30, strategy="first"),
        lambda m: [m[0], m[1]],
    ),
    "first_30_allow_partial": (
        dict(max_tokens=30, strategy="first", allow_partial=True),
        lambda m: [m[0], m[1], AIMessage([{"type": "text", "text": FIRST_BLOCK}], id="second")],
    ),
    "first_30_allow_partial_end_on_human": (
        dict(max_tokens=30, strategy="first", allow_partial=True, end_on="human"),
        lambda m: [m[0], m[1]],
    ),
    "last_30_include_system": (
        dict(max_tokens=30, include_system=True, strategy="last"),
        lambda m: [m[0], m[3], m[4]],
    ),
    "last_40_include_system_allow_partial": (
        dict(max_tokens=40, strategy="last", allow_partial=True, include_system=True),
        lambda m: [m[0], AIMessage([{"type": "text", "text": SECOND_BLOCK}], id="second"), m[3], m[4]],
    ),
    "last_30_include_system_allow_partial_end_on_human": (
        dict(max_tokens=30, strategy="last", allow_partial=True, include_system=True, end_on="human"),
        lambda m: [m[0], AIMessage([{"type": "text", "text": SECOND_BLOCK}], id="second"), m[3]],
    ),
    "last_40_include_system_allow_partial_start_on_human": (
        dict(max_tokens=30, strategy="last", allow_partial=True, include_system=True, start_on="human"),
        lambda m: [m[0], m[3], m[4]],
    ),
    "invoke_default_strategy_is_last": (
        dict(max_tokens=10),
        lambda m: [m[4]],
    ),
}


@pytest.mark.parametrize("case", sorted(AGREE))
def test_langchain_case_agrees(case):
    options, expected = AGREE[case]
    messages = messages_to_trim()
    ours = both(messages, token_counter=dummy_token_counter, **options)
    assert ours == expected(messages)
    # LangChain's own function gives the same (its test's expectation).
    if "include_system" in options and options.get("strategy") == "first":
        return
    assert lc_trim(messages, token_counter=dummy_token_counter, **options) == expected(messages)


def test_include_system_strategy_last_empty_messages():
    trimmer = trim_messages(max_tokens=10, token_counter=dummy_token_counter, strategy="last", include_system=True)
    assert trimmer.invoke([]) == []


def test_invoke_is_the_call():
    messages = messages_to_trim()
    runnable = trim_messages(max_tokens=10, token_counter=dummy_token_counter)
    assert runnable.invoke(messages) == trim_messages(messages, max_tokens=10, token_counter=dummy_token_counter)


def test_exact_token_boundary():
    messages = [SystemMessage("10 tokens exactly."), HumanMessage("Another 10 tokens.")]
    first = dict(token_counter=dummy_token_counter, strategy="first")
    assert both(messages, max_tokens=10, **first) == messages[:1]
    assert both(messages, max_tokens=20, **first) == messages


def test_start_on_with_allow_partial():
    messages = [
        HumanMessage("First human message"),
        AIMessage("AI response"),
        HumanMessage("Second human message"),
    ]
    ours = both(
        messages, max_tokens=20, token_counter=dummy_token_counter, strategy="last", allow_partial=True, start_on="human"
    )
    assert ours == [messages[2]]


def test_allow_partial_one_message_first():
    """LangChain splits into characters (`text_splitter=list`); not even a word fits,
    so ctxbudget cuts between characters: the same result."""
    messages = [HumanMessage("This is a funky text.", id="third")]
    counter = lambda msgs: sum(len(m.content) for m in msgs)  # noqa: E731
    options = dict(max_tokens=2, token_counter=counter, text_splitter=list, allow_partial=True)
    assert both(messages, strategy="first", **options) == [HumanMessage("Th", id="third")]
    assert both(messages, strategy="last", **options) == [HumanMessage("t.", id="third")]


def test_allow_partial_cuts_on_words():
    """LangChain's `allow_partial_text_splitter`: words of the content, split on
    spaces; ctxbudget cuts at a word boundary itself: the same result."""

    def count_words(msgs):
        count = 0
        for msg in msgs:
            if isinstance(msg.content, str):
                count += len(msg.content.split(" "))
            else:
                count += len(" ".join(block["text"] for block in msg.content).split(" "))
        return count

    messages = messages_to_trim()
    ours = both(messages, max_tokens=10, token_counter=count_words, strategy="last", allow_partial=True)
    assert ours == [HumanMessage("a 4 token text.", id="third"), AIMessage(FOUR, id="fourth")]


def test_mixed_content_with_partial():
    messages = [
        AIMessage(
            [
                {"type": "text", "text": "First part of text."},
                {"type": "text", "text": "Second part that should be trimmed."},
            ]
        )
    ]

    def count_text_length(msgs):
        total = 0
        for msg in msgs:
            if isinstance(msg.content, list):
                total += sum(len(b["text"]) for b in msg.content if isinstance(b, dict) and b.get("type") == "text")
            elif isinstance(msg.content, str):
                total += len(msg.content)
        return total

    ours = both(messages, max_tokens=20, token_counter=count_text_length, strategy="first", allow_partial=True)
    assert ours == [AIMessage([{"type": "text", "text": "First part of text."}])]


def test_approximate_shortcut_is_langchains_counter():
    messages = [
        SystemMessage("System instructions"),
        HumanMessage("First human message", id="first"),
        AIMessage("First AI response", id="ai1"),
        HumanMessage("Second human message", id="second"),
        AIMessage("Second AI response", id="ai2"),
    ]
    for max_tokens in (10, 20, 30, 100):
        shortcut = both(messages, max_tokens=max_tokens, token_counter="approximate", strategy="last")
        direct = both(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately, strategy="last")
        assert shortcut == direct
        assert shortcut == lc_trim(messages, max_tokens=max_tokens, token_counter="approximate", strategy="last")
    ours = both(messages, max_tokens=100, token_counter="approximate", include_system=True, start_on="human")
    assert ours == messages


def test_per_message_counter_and_chat_model():
    """LangChain also takes a counter of one message, and a chat model with
    `get_num_tokens_from_messages`."""
    from langchain_core.language_models.fake_chat_models import FakeChatModel

    class FakeTokenCountingModel(FakeChatModel):
        def get_num_tokens_from_messages(self, messages, tools=None):
            return dummy_token_counter(messages)

    def one(message: BaseMessage) -> int:
        return dummy_token_counter([message])

    messages = messages_to_trim()
    expected = [messages[0], messages[3], messages[4]]
    assert both(messages, max_tokens=30, token_counter=one, include_system=True) == expected
    assert both(messages, max_tokens=30, token_counter=FakeTokenCountingModel(), include_system=True) == expected


def test_bad_arguments_are_value_errors():
    messages = [HumanMessage("foobar")]
    with pytest.raises(ValueError, match="'token_counter' expected to be a model"):
        trim_messages(messages, max_tokens=10, token_counter={})
    with pytest.raises(ValueError, match="strategy"):
        trim_messages(messages, max_tokens=10, token_counter=len, strategy="middle")
    with pytest.raises(ValueError, match="max_tokens"):
        trim_messages(messages, max_tokens=-1, token_counter=len)
    with pytest.raises(ValueError, match="start_on"):
        trim_messages(messages, max_tokens=10, token_counter=len, start_on="robot")
    with pytest.raises(ctxbudget.ModelNotFoundError):
        trim_messages(messages, max_tokens=10, token_counter="no-such-model-anywhere")


def test_a_failing_counter_raises_its_own_error():
    def broken(messages):
        raise RuntimeError("the counter broke")

    with pytest.raises(RuntimeError, match="the counter broke"):
        trim_messages([HumanMessage("hi")], max_tokens=10, token_counter=broken)

    calls = []

    def breaks_on_pieces(messages):
        calls.append(len(messages))
        if len(calls) > 3:
            raise RuntimeError("no pieces")
        return dummy_token_counter(messages) * 3

    with pytest.raises(RuntimeError, match="no pieces"):
        trim_messages(
            [HumanMessage("one two.\nthree four.")], max_tokens=20, token_counter=breaks_on_pieces, allow_partial=True
        )


# ---------------------------------------------------------------------------
# Where ctxbudget differs on purpose: tool calls stay with their results
# ---------------------------------------------------------------------------


def assert_no_orphans(messages):
    """Every tool result follows its call, every call has all its results."""
    open_calls = set()
    for message in messages:
        if isinstance(message, ToolMessage):
            assert message.tool_call_id in open_calls, f"orphan result {message.tool_call_id}"
            open_calls.discard(message.tool_call_id)
            continue
        assert not open_calls, f"calls without results: {open_calls}"
        if isinstance(message, AIMessage):
            open_calls = {call["id"] for call in message.tool_calls}
    assert not open_calls, f"calls without results: {open_calls}"


def test_tool_group_never_split_last():
    """LangChain returns `[ToolMessage]` here, a result without its call, which
    providers reject; the call and its result cost 24, over 15, so both go."""
    messages = tool_call_messages()
    theirs = lc_trim(messages, max_tokens=15, token_counter=dummy_token_counter)
    assert [type(m) for m in theirs] == [ToolMessage]
    assert both(messages, max_tokens=15, token_counter=dummy_token_counter) == []


def test_tool_group_never_split_first():
    messages = tool_call_messages()
    ours = both(messages, max_tokens=35, token_counter=dummy_token_counter, strategy="first")
    assert ours == messages[:3]


def test_tool_group_included_together():
    messages = tool_call_messages()
    assert both(messages, max_tokens=25, token_counter=dummy_token_counter) == messages[3:]
    assert both(messages, max_tokens=55, token_counter=dummy_token_counter, strategy="first") == messages


def test_issue_33245_no_leading_tool_message():
    """LangChain issue #33245: its result starts with a tool message."""
    messages = [
        SystemMessage("You are a helpful assistant."),
        HumanMessage("What's 2 + 2?"),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 2}, "id": "call_1"}]),
        ToolMessage("4", tool_call_id="call_1"),
        HumanMessage("And 3 + 3?"),
        AIMessage("6"),
        HumanMessage("Thanks!"),
        AIMessage("You're welcome."),
    ]
    count = lambda msgs: len(msgs)  # noqa: E731 - one token a message
    theirs = lc_trim(messages, max_tokens=5, token_counter=count)
    assert isinstance(theirs[0], ToolMessage)
    ours = both(messages, max_tokens=5, token_counter=count)
    assert ours == messages[4:]
    assert_no_orphans(ours)


@pytest.mark.parametrize("max_tokens", [0, 5, 20, 40, 80, 200, 400])
@pytest.mark.parametrize("strategy", ["first", "last"])
@pytest.mark.parametrize("counter", ["gpt-4o", "approximate", "per-message"])
def test_never_orphans_and_fits(max_tokens, strategy, counter):
    """An agent's history of parallel tool calls, every budget: no orphan, and the
    result fits by the counter that trimmed it."""
    messages = [SystemMessage("You look things up.")]
    for turn in range(6):
        messages.append(HumanMessage(f"Question {turn}: what do the records say about item {turn}?"))
        calls = [{"name": "lookup", "args": {"item": turn, "part": p}, "id": f"c{turn}-{p}"} for p in range(turn % 3 + 1)]
        messages.append(AIMessage(f"Looking up {len(calls)} parts.", tool_calls=calls))
        for call in calls:
            messages.append(ToolMessage("record " * (5 + 7 * turn), tool_call_id=call["id"]))
        messages.append(AIMessage(f"Item {turn} is fine."))
    if counter == "per-message":
        token_counter = lambda msgs: sum(3 + math.ceil(len(str(m.content)) / 3) for m in msgs)  # noqa: E731
    else:
        token_counter = counter
    if counter == "gpt-4o" and max_tokens < 3:
        # Even an empty request costs the 3 tokens that prime the reply.
        with pytest.raises(ctxbudget.TrimError, match="primes every reply with 3 tokens"):
            trim_messages(messages, max_tokens=max_tokens, token_counter=token_counter, strategy=strategy)
        return
    ours = both(messages, max_tokens=max_tokens, token_counter=token_counter, strategy=strategy)
    assert_no_orphans(ours)
    if counter == "gpt-4o":
        assert ctxbudget_tokens(ours) <= max_tokens
    else:
        measure = count_tokens_approximately if counter == "approximate" else token_counter
        assert (measure(ours) if ours else 0) <= max_tokens


def ctxbudget_tokens(messages):
    """What the kept messages cost as ctxbudget counts them for gpt-4o."""
    from ctxbudget import _ctxbudget

    converted = lc.convert_to_openai_messages(messages)
    return _ctxbudget.trim_chat(converted, 10**9, model="gpt-4o")["tokens"] if messages else 0


def test_system_message_over_budget_is_an_error():
    """LangChain returns the system message alone, over `max_tokens`."""
    messages = [SystemMessage("word " * 50), HumanMessage("hi")]
    theirs = lc_trim(messages, max_tokens=10, token_counter="approximate", include_system=True)
    assert theirs == messages[:1]
    with pytest.raises(ctxbudget.TrimError, match="raise the budget"):
        trim_messages(messages, max_tokens=10, token_counter="approximate", include_system=True)


def test_model_name_counts_in_the_openai_format():
    """A model name counts in Rust as the OpenAI cookbook does (3 a message, 3 to
    prime the reply); a `Counter` the same."""
    messages = [HumanMessage("hello " * 40), AIMessage("ok"), HumanMessage("and now?")]
    by_name = both(messages, max_tokens=30, token_counter="gpt-4o")
    by_counter = both(messages, max_tokens=30, token_counter=ctxbudget.Counter.for_model("gpt-4o"))
    assert by_name == by_counter == messages[1:]
    kept = both(messages, max_tokens=30, token_counter="gpt-4o", allow_partial=True)
    assert kept[1:] == messages[1:]
    assert messages[0].content.endswith(kept[0].content)
    assert 0 < len(kept[0].content) < len(messages[0].content)
    assert ctxbudget_tokens(kept) <= 30


def test_keep_latest_user():
    messages = [HumanMessage("question " * 30), AIMessage("answer"), HumanMessage("again " * 30)]
    assert both(messages, max_tokens=20, token_counter="gpt-4o") == []
    with pytest.raises(ctxbudget.TrimError):
        trim_messages(messages, max_tokens=20, token_counter="gpt-4o", keep_latest_user=True)


def test_docstring_examples():
    import doctest

    import ctxbudget.langchain

    result = doctest.testmod(ctxbudget.langchain, verbose=False)
    assert result.failed == 0
    assert result.attempted >= 3


def test_hostile_numbers_are_clear_errors_or_clamped():
    messages = messages_to_trim()
    # A budget past any count keeps everything.
    assert both(messages, max_tokens=10**40, token_counter=dummy_token_counter) == messages
    assert both(messages, max_tokens=10**40, token_counter="gpt-4o") == messages
    # Floats are rounded up, negative counts are 0.
    halves = lambda msgs: 4.5 * len(msgs)  # noqa: E731
    assert both(messages, max_tokens=10, token_counter=halves) == messages[-2:]
    assert both(messages, max_tokens=0, token_counter=lambda msgs: -5) == messages
    with pytest.raises(ValueError):
        trim_messages(messages, max_tokens=10, token_counter=lambda msgs: float("nan"))
    with pytest.raises(TypeError):
        trim_messages(messages, max_tokens=10, token_counter=lambda msgs: "ten")
