"""Model.lookup, ChatSession and the exceptions."""

import pytest

import ctxbudget
from ctxbudget import ChatSession, Counter, CtxbudgetError, Model, ModelNotFoundError, SessionError


def test_model_lookup_gives_the_catalogue_row():
    model = Model.lookup("gpt-4o-2024-08-06")
    assert (model.name, model.provider, model.window) == ("gpt-4o", "openai", 128_000)
    assert model.max_output == 16_384 and model.tokenizer == "tiktoken o200k_base"
    assert model.api_format == "openai-chat"
    assert model.prices["input"] == 2.5 and model.prices["cached_input"] == 1.25
    assert model.input_cost(1_000_000) == pytest.approx(2.5)
    assert model.output_cost(1_000_000) == pytest.approx(10.0)
    assert model.counter().count("tiktoken is great!") == 6
    assert model.to_dict()["window"] == 128_000
    assert Model.lookup("claude-sonnet-4-5").api_format == "anthropic-messages"
    # The name decides: a Bedrock id reaches Bedrock's Converse API.
    bedrock = Model.lookup("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert bedrock.name == Model.lookup("claude-sonnet-4-5").name
    assert bedrock.api_format == "bedrock-converse"
    assert Model.lookup("o3-pro").api_format == "openai-responses"
    assert repr(model) == 'Model("gpt-4o")'


def test_model_lookup_errors():
    with pytest.raises(ModelNotFoundError, match="did you mean"):
        Model.lookup("gpt-4z")
    with pytest.raises(ModelNotFoundError):
        Model.lookup("x" * 100_000)
    with pytest.raises(ModelNotFoundError):
        Model.lookup("")
    with pytest.raises(TypeError):
        Model.lookup(4)


def test_chat_session_keeps_every_prompt_within_the_limit():
    session = ChatSession(2_000, counter=Counter.chars())
    session.push({"role": "system", "content": "You are a coding agent."})
    for turn in range(200):
        session.push({"role": "user", "content": f"Run step {turn}."})
        call = {"id": f"call_{turn}", "type": "function", "function": {"name": "run", "arguments": "{}"}}
        session.push({"role": "assistant", "content": None, "tool_calls": [call]})
        session.push({"role": "tool", "tool_call_id": f"call_{turn}", "content": "ok: 14 tests passed"})
        prompt = session.prepare()
        assert prompt.tokens <= 2_000 and prompt.limit == 2_000
        messages = prompt.messages
        assert messages[0]["role"] == "system"
        assert messages[-1]["tool_call_id"] == f"call_{turn}"
        session.push({"role": "assistant", "content": "Step done."})
    # The session forgets what no prompt can send again.
    assert 0 < len(session) < 1 + 200 * 4 and len(session.messages) == len(session)
    assert prompt.cache_breakpoints and prompt.to_dict()["tokens"] == prompt.tokens
    assert session.tokens <= 2_000 and session.counter == "chars / 4"
    session.push({"role": "user", "content": "x" * 4_000})
    assert session.tokens > 2_000  # until the next prepare moves the cut


def test_chat_session_with_edits_keeps_the_task():
    session = ChatSession(4_000, counter=Counter.chars(), edits=True)
    session.push({"role": "user", "content": "Make the parser tests pass."})
    for turn in range(100):
        call = {"id": f"c{turn}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        session.extend([
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": "fn parse() { lex() } " * 20},
        ])
        prompt = session.prepare()
        assert prompt.messages[0]["content"] == "Make the parser tests pass."
    assert session.edit_totals()["cleared_tool_uses"] > 0


def test_chat_session_refuses_what_would_break_the_history():
    session = ChatSession(1_000)
    session.push({"role": "user", "content": "hi"})
    with pytest.raises(SessionError, match="x"):
        session.push({"role": "tool", "tool_call_id": "x", "content": "orphan"})
    assert len(session) == 1
    assert session.pop() == {"role": "user", "content": "hi"} and session.pop() is None
    with pytest.raises(ValueError):
        session.push({"role": 5})
    with pytest.raises(TypeError):
        session.push({"role": "user", "content": {1, 2}})
    with pytest.raises(ValueError, match="low_water"):
        ChatSession(100, low_water=2.0)
    tiny = ChatSession(10, counter=Counter.chars())
    with pytest.raises(SessionError):
        tiny.push({"role": "user", "content": "x" * 1_000})
    session.limit = 500
    assert session.limit == 500


def test_exceptions_share_one_base():
    for name in ("RequestError", "DoesNotFitError", "CounterError", "ModelNotFoundError", "TrimError", "SessionError"):
        error = getattr(ctxbudget, name)
        assert issubclass(error, CtxbudgetError) and error.__module__ == "ctxbudget"
    assert issubclass(CtxbudgetError, Exception)
    assert issubclass(ctxbudget.DoesNotFitError, ctxbudget.RequestError)
