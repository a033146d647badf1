"""Numbers out of range and arguments of the wrong type, function by function: a
Python exception every time, never a crash of the interpreter."""

import pytest

import ctxbudget

BODY = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}
CALLS = {
    "trim": lambda n: ctxbudget.trim("some text", n),
    "disclose": lambda n: ctxbudget.disclose("# A\nb\n", n, recovery="read it"),
    "select": lambda n: ctxbudget.select(["a"], [1.0], n),
    "fit_request max_input": lambda n: ctxbudget.fit_request(BODY, max_input=n),
    "fit_request window": lambda n: ctxbudget.fit_request(BODY, window=n),
    "fit_request output": lambda n: ctxbudget.fit_request(BODY, window=100, output=n),
    "ChatSession": lambda n: ctxbudget.ChatSession(n),
    "Counter.chars": lambda n: ctxbudget.Counter.chars(n),
    "Model.input_cost": lambda n: ctxbudget.Model.lookup("gpt-4o").input_cost(n),
    "Edits keep_tool_results": lambda n: ctxbudget.Edits(keep_tool_results=n),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("number", [-1, 2**64, 2**200])
def test_numbers_out_of_range(name, number):
    with pytest.raises((OverflowError, ValueError)):
        CALLS[name](number)


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("value", ["12", 1.5, None, [3]])
def test_numbers_of_the_wrong_type(name, value):
    none_is_valid = ("fit_request max_input", "fit_request window", "fit_request output", "Edits keep_tool_results")
    if value is None and name in none_is_valid:
        return  # None means "not given", or (Edits) "this step off"
    with pytest.raises((TypeError, ValueError)):
        CALLS[name](value)


def test_the_extremes_that_are_valid():
    assert ctxbudget.trim("text", 2**64 - 1).text == "text"
    assert ctxbudget.fit_request(BODY, window=2**64 - 1).report.fits
    assert ctxbudget.ChatSession(2**64 - 1).limit == 2**64 - 1
    session = ctxbudget.ChatSession(0)
    with pytest.raises(ctxbudget.SessionError):
        session.push({"role": "user", "content": "Hi"})
    assert ctxbudget.Model.lookup("gpt-4o").input_cost(2**64 - 1) > 0
