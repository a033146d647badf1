"""fit_request, count_request, Edits and the report, on the repository's real-shaped
request bodies in every wire format, and on bad input."""

import json

import pytest

import ctxbudget
from ctxbudget import (
    Counter,
    CtxbudgetError,
    DoesNotFitError,
    Edits,
    ModelNotFoundError,
    RequestError,
)

SMALL = {
    "model": "gpt-4o",
    "messages": [
        {"role": "user", "content": "An old question, far too long to keep here."},
        {"role": "assistant", "content": "An old answer, just as long as that one."},
        {"role": "user", "content": "What is 2 + 2?"},
    ],
}


def test_fit_request_drops_the_oldest_turn():
    fitted = ctxbudget.fit_request(SMALL, max_input=25)
    assert [m["content"] for m in fitted.body["messages"]] == ["What is 2 + 2?"]
    assert fitted.format == "openai"
    assert json.loads(fitted.json) == fitted.body
    report = fitted.report
    assert report.dropped == 2 and report.trimmed and report.fits
    assert report.tokens_after <= report.limit == 25
    assert report.tokens_before is None  # the dropped turn was not counted
    assert report.counter == "gpt-4o (tiktoken o200k_base)"
    assert report.exactness == "exact" and report.warnings == []


def test_fit_request_takes_a_dict_a_str_and_bytes_alike():
    as_dict = ctxbudget.fit_request(SMALL, max_input=25)
    as_str = ctxbudget.fit_request(json.dumps(SMALL), max_input=25)
    as_bytes = ctxbudget.fit_request(json.dumps(SMALL).encode(), max_input=25)
    assert as_dict.json == as_str.json == as_bytes.json


def test_a_body_that_fits_comes_back_unchanged(sessions):
    for name, body in sessions.items():
        fitted = ctxbudget.fit_request(body, max_input=10_000_000, count_dropped=True)
        assert fitted.body == json.loads(body), name
        assert not fitted.report.trimmed
        assert fitted.report.tokens_before == fitted.report.tokens_after


@pytest.mark.parametrize("edits", [None, True, Edits(keep_tool_results=2)])
def test_every_wire_format_fits_with_and_without_edits(sessions, edits):
    formats = {"openai": "openai", "anthropic": "anthropic", "responses": "responses"}
    for name, body in sessions.items():
        fitted = ctxbudget.fit_request(body, max_input=8_000, edits=edits)
        assert fitted.format == formats[name]
        report = fitted.report
        assert report.tokens_after <= 8_000 and report.fits
        # The report never under-counts what is sent.
        assert ctxbudget.count_request(fitted.json).tokens <= report.tokens_after
        as_dict = report.to_dict()
        assert as_dict["format"] == formats[name]
        assert as_dict["tokens_after"] == report.tokens_after
        assert len(as_dict["dropped"]) == report.dropped
        if edits is None:
            assert as_dict["edits"] is None
        else:
            assert as_dict["edits"]["totals"]["cleared_tool_uses"] >= 0


def test_the_limit_comes_from_the_model_or_the_window():
    body = dict(SMALL, max_tokens=100)
    # The body's own model: gpt-4o's window less the body's max_tokens.
    own = ctxbudget.fit_request(body)
    assert own.report.limit == 128_000 - 100 and own.report.output_reserved == 100
    named = ctxbudget.fit_request(body, model="gpt-4")
    assert named.report.limit == 8_192 - 100
    capped = ctxbudget.fit_request(body, model="gpt-4", max_input=30)
    assert capped.report.limit == 30 and capped.report.output_reserved == 100
    window = ctxbudget.fit_request(SMALL, window=1_000, output=200)
    assert window.report.limit == 800
    # The cost at the model's prices.
    assert own.report.to_dict()["cost"]["model"] == "gpt-4o"


def test_counter_options_and_the_fallback_warning():
    chars = ctxbudget.fit_request(SMALL, max_input=1_000, counter=Counter.chars())
    assert chars.report.counter == "chars / 4" and chars.report.exactness == "estimate"
    unknown = dict(SMALL, model="my-private-model")
    warned = ctxbudget.fit_request(unknown, max_input=1_000)
    assert "not in the catalogue" in warned.report.warnings[0]
    assert warned.report.exactness != "exact"
    no_model = {"messages": SMALL["messages"]}
    assert "names no `model`" in ctxbudget.fit_request(no_model, max_input=99).report.warnings[0]


def test_format_can_be_named():
    plain = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]}
    assert ctxbudget.fit_request(plain, max_input=100).format == "openai"
    assert ctxbudget.fit_request(plain, max_input=100, format="anthropic").format == "anthropic"
    assert ctxbudget.fit_request(plain, max_input=100, format="Anthropic Messages").format == "anthropic"
    with pytest.raises(ValueError, match="unknown request format"):
        ctxbudget.fit_request(plain, max_input=100, format="gopher")


def test_a_request_that_cannot_fit_raises_does_not_fit(sessions):
    with pytest.raises(DoesNotFitError, match="over") as caught:
        ctxbudget.fit_request(SMALL, max_input=3)
    assert isinstance(caught.value, RequestError) and isinstance(caught.value, CtxbudgetError)
    with pytest.raises(DoesNotFitError):
        ctxbudget.fit_request(dict(SMALL, max_tokens=10_000), window=5_000)


def test_invalid_bodies_raise_request_error_with_the_library_message():
    with pytest.raises(RequestError, match="not JSON"):
        ctxbudget.fit_request("{", max_input=10)
    with pytest.raises(RequestError, match="column"):
        ctxbudget.fit_request('{"messages": 5}', max_input=10, format="openai")
    orphan = {"model": "gpt-4o", "messages": [{"role": "tool", "tool_call_id": "x", "content": "r"}, {"role": "user", "content": "q"}]}
    with pytest.raises(RequestError, match="call id `x`"):
        ctxbudget.fit_request(orphan, max_input=100)
    with pytest.raises(RequestError, match="no input limit"):
        ctxbudget.fit_request({"messages": SMALL["messages"]})
    with pytest.raises(RequestError):
        ctxbudget.fit_request("[]", max_input=10)
    with pytest.raises(RequestError):
        ctxbudget.fit_request("", max_input=10)


def test_bad_python_arguments():
    with pytest.raises(TypeError, match="dict, a JSON str or UTF-8 bytes"):
        ctxbudget.fit_request(42, max_input=10)
    with pytest.raises(TypeError):
        ctxbudget.fit_request(None, max_input=10)
    with pytest.raises(ValueError, match="not UTF-8"):
        ctxbudget.fit_request(b"\xff\xfe{}", max_input=10)
    with pytest.raises(UnicodeEncodeError):
        ctxbudget.fit_request({"model": "gpt-4o", "messages": [{"role": "user", "content": "\ud800"}]}, max_input=10)
    with pytest.raises(UnicodeEncodeError):
        ctxbudget.fit_request('{"messages": [{"role": "user", "content": "\ud800"}]}', max_input=10)
    with pytest.raises(ValueError):  # json.dumps refuses NaN
        ctxbudget.fit_request(dict(SMALL, temperature=float("nan")), max_input=10)
    with pytest.raises(TypeError):  # json.dumps refuses a set
        ctxbudget.fit_request(dict(SMALL, stop={"a"}), max_input=10)
    with pytest.raises(OverflowError):
        ctxbudget.fit_request(SMALL, max_input=-1)
    with pytest.raises(OverflowError):
        ctxbudget.fit_request(SMALL, max_input=2**64)
    with pytest.raises(ModelNotFoundError):
        ctxbudget.fit_request(SMALL, model="gpt-99")
    with pytest.raises(ValueError, match="window="):
        ctxbudget.fit_request(SMALL, output=100)
    with pytest.raises(ValueError, match="window=0"):
        ctxbudget.fit_request(SMALL, window=0)
    with pytest.raises(ValueError, match="one of"):
        ctxbudget.fit_request(SMALL, max_input=10, encoding="cl100k_base", counter=Counter.chars())
    with pytest.raises(TypeError):
        ctxbudget.fit_request(SMALL, 10)  # options are keyword-only
    # The largest limit is fine.
    assert ctxbudget.fit_request(SMALL, max_input=2**64 - 1).report.dropped == 0


def test_deep_and_huge_bodies_are_errors_or_fits_never_crashes():
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RequestError):
        ctxbudget.fit_request('{"messages": [], "x": ' + deep + "}", max_input=10)
    deep_dict = current = {}
    for _ in range(10_000):
        current["x"] = {}
        current = current["x"]
    with pytest.raises((RecursionError, ValueError)):
        ctxbudget.fit_request(dict(SMALL, extra=deep_dict), max_input=100)
    big = {"model": "gpt-4o", "messages": [{"role": "user", "content": "word " * 200_000}]}
    with pytest.raises(DoesNotFitError):
        ctxbudget.fit_request(big, max_input=1_000)


def test_edits_mirror_the_library_options():
    default = Edits()
    assert default.to_dict()["keep_tool_results"] == 3 and not default.is_none
    assert Edits.none().is_none and repr(Edits.none()) == "Edits.none()"
    custom = Edits(keep_tool_results=2, max_tool_result_tokens=0.25, low_water=5_000, exclude_tools=["read"], pin_task=False)
    as_dict = custom.to_dict()
    assert as_dict["keep_tool_results"] == 2
    assert as_dict["max_tool_result_tokens"] == {"share": 0.25}
    assert as_dict["low_water"] == {"tokens": 5_000}
    assert as_dict["exclude_tools"] == ["read"] and as_dict["pin_task"] is False
    assert Edits(max_tool_result_tokens=None).to_dict()["max_tool_result_tokens"] is None
    assert Edits() == Edits() and Edits() != Edits.none()


def test_edits_bad_options():
    with pytest.raises(ValueError, match="keep_tool_result"):
        Edits(keep_tool_result=2)  # a typo: the message lists the fields
    with pytest.raises(TypeError, match="not a bool"):
        Edits(low_water=True)
    with pytest.raises(ValueError, match="share"):
        Edits(low_water=-0.5)
    with pytest.raises(TypeError):
        Edits(trigger="lots")
    with pytest.raises(ValueError):
        Edits(keep_tool_results="three")
    with pytest.raises(TypeError, match="edits="):
        ctxbudget.fit_request(SMALL, max_input=100, edits="yes")
    assert ctxbudget.fit_request(SMALL, max_input=100, edits={"keep_tool_results": 1}).report.fits
    assert ctxbudget.fit_request(SMALL, max_input=100, edits=False).report.to_dict()["edits"] is None


def test_count_request_counts_as_the_provider_bills():
    counted = ctxbudget.count_request({"model": "gpt-4o", "messages": [{"role": "user", "content": "hello there"}]})
    assert counted.tokens == 9 and int(counted) == 9
    assert counted.fixed == 0 and counted.messages == 9 and counted.format == "openai"
    assert counted.to_dict()["counter"] == "gpt-4o (tiktoken o200k_base)"
    words = ctxbudget.count_request(SMALL, counter=Counter.chars())
    assert words.counter == "chars / 4"
    with pytest.raises(RequestError):
        ctxbudget.count_request("not json")
    with pytest.raises(TypeError):
        ctxbudget.count_request(3.5)


def test_count_request_of_every_fixture(sessions, small_bodies):
    for body in list(sessions.values()) + small_bodies:
        counted = ctxbudget.count_request(body)
        assert counted.tokens == counted.fixed + counted.messages > 0
    image = ctxbudget.count_request(sessions["openai"])
    assert isinstance(image.assumptions, list)
