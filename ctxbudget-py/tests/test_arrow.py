"""ctxbudget.arrow: batches of request bodies and texts in pyarrow arrays."""

import json

import pytest

pa = pytest.importorskip("pyarrow")

import ctxbudget  # noqa: E402
from ctxbudget import Counter, ModelNotFoundError  # noqa: E402
from ctxbudget.arrow import RequestBatchFitter, count_texts, fit_requests  # noqa: E402

FIELDS = ["body", "input_tokens", "dropped", "fits", "error"]


def bodies_of(sessions, small_bodies, copies=5):
    """Real-shaped bodies of every format, as compact JSON lines."""
    bodies = [json.dumps(json.loads(b)) for b in list(sessions.values()) + small_bodies]
    return bodies * copies


def test_the_struct_has_the_contract_fields_and_types(sessions):
    out = fit_requests(pa.array([sessions["openai"]]), max_input=8_000)
    assert isinstance(out, pa.StructArray)
    assert [out.type.field(i).name for i in range(out.type.num_fields)] == FIELDS
    types = {out.type.field(i).name: out.type.field(i).type for i in range(out.type.num_fields)}
    assert types == {
        "body": pa.large_string(),
        "input_tokens": pa.uint64(),
        "dropped": pa.uint32(),
        "fits": pa.bool_(),
        "error": pa.string(),
    }


def test_each_row_is_what_fit_request_gives(sessions, small_bodies):
    bodies = bodies_of(sessions, small_bodies, copies=2)
    for edits in (None, True):
        out = fit_requests(pa.array(bodies), max_input=4_000, edits=edits)
        assert len(out) == len(bodies)
        rows = out.to_pylist()
        for body, row in zip(bodies, rows):
            try:
                one = ctxbudget.fit_request(body, max_input=4_000, edits=edits)
            except ctxbudget.CtxbudgetError as error:
                assert row["body"] is None and row["fits"] is False
                assert row["error"] == str(error)
                continue
            assert row["body"] == one.json
            assert row["input_tokens"] == one.report.tokens_after <= 4_000
            assert row["dropped"] == one.report.dropped
            assert row["fits"] is True and row["error"] is None


def test_threads_do_not_change_the_result(sessions, small_bodies):
    bodies = pa.array(bodies_of(sessions, small_bodies, copies=8))
    one = RequestBatchFitter(max_input=3_000, threads=1).fit(bodies)
    many = RequestBatchFitter(max_input=3_000, threads=4).fit(bodies)
    default = RequestBatchFitter(max_input=3_000)
    assert default.threads >= 1
    assert one.equals(many) and one.equals(default.fit(bodies))


def test_a_fitter_is_reused_across_batches(sessions):
    fitter = RequestBatchFitter(model="gpt-4o", max_input=6_000, edits=True)
    first = fitter.fit(pa.array([sessions["openai"]]))
    second = fitter.fit(pa.array([sessions["openai"], sessions["responses"]]))
    assert first.field("body")[0] == second.field("body")[0]
    assert repr(fitter).startswith("RequestBatchFitter(threads=")


def test_nulls_errors_and_empty_arrays():
    good = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]})
    too_big = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "word " * 500}]})
    out = fit_requests(pa.array([good, None, "not json", too_big, "", "[]"]), max_input=100)
    rows = out.to_pylist()
    assert rows[0]["fits"] is True and rows[0]["error"] is None
    assert rows[1] == dict.fromkeys(FIELDS)
    assert rows[2]["fits"] is False and "not JSON" in rows[2]["error"] and rows[2]["body"] is None
    assert rows[3]["fits"] is False and "over" in rows[3]["error"]
    assert rows[4]["error"] and rows[5]["error"]
    empty = fit_requests(pa.array([], type=pa.string()), max_input=100)
    assert len(empty) == 0 and isinstance(empty, pa.StructArray)
    assert fit_requests(pa.array([None, None], type=pa.string()), max_input=10).to_pylist() == [dict.fromkeys(FIELDS)] * 2


def test_every_string_layout_chunked_arrays_and_lists(sessions):
    bodies = [sessions["openai"], sessions["anthropic"], sessions["responses"]]
    expected = fit_requests(pa.array(bodies), max_input=5_000)
    for array in (
        pa.array(bodies, type=pa.large_string()),
        pa.array(bodies, type=pa.string_view()),
        pa.chunked_array([bodies[:1], bodies[1:]]),
        pa.chunked_array([bodies]),
        bodies,
    ):
        assert fit_requests(array, max_input=5_000).equals(expected)
    sliced = pa.array(["x"] + bodies)[1:]
    assert fit_requests(sliced, max_input=5_000).equals(expected)
    empty_chunks = pa.chunked_array([], type=pa.string())
    assert len(fit_requests(empty_chunks, max_input=10)) == 0


def test_bad_arguments():
    with pytest.raises(TypeError, match="array of strings"):
        fit_requests(pa.array([1, 2, 3]), max_input=10)
    with pytest.raises(TypeError, match="array of strings"):
        count_texts(pa.array([b"bytes"]))
    with pytest.raises(ValueError, match="threads=0"):
        RequestBatchFitter(max_input=10, threads=0)
    with pytest.raises(OverflowError):
        RequestBatchFitter(max_input=-5)
    with pytest.raises(ModelNotFoundError):
        RequestBatchFitter(model="gpt-99")
    with pytest.raises(TypeError):
        RequestBatchFitter(max_input=10).fit(42)
    with pytest.raises(TypeError):
        RequestBatchFitter(10)  # options are keyword-only
    # No limit at all: every row says so.
    rows = fit_requests(pa.array(['{"messages": [{"role": "user", "content": "hi"}]}'])).to_pylist()
    assert "no input limit" in rows[0]["error"]


def test_count_texts_matches_the_counter(fixtures):
    texts = [
        (fixtures / name).read_text(encoding="utf-8")[:5_000]
        for name in ("prose.txt", "markdown.md", "code.txt", "multilingual.txt")
    ] * 25 + ["", None]
    counts = count_texts(pa.array(texts))
    assert counts.type == pa.uint64()
    counter = Counter.encoding("o200k_base")
    assert counts.to_pylist() == [None if t is None else counter.count(t) for t in texts]
    assert count_texts(pa.array(texts), threads=1).equals(counts)
    cl100k = count_texts(pa.array(texts, type=pa.large_string()), encoding="cl100k_base")
    assert cl100k.to_pylist()[0] == ctxbudget.count(texts[0], encoding="cl100k_base")
    chars = count_texts(texts, counter=Counter.chars())
    assert chars.to_pylist()[-2:] == [0, None]
    assert count_texts(pa.array([], type=pa.string())).to_pylist() == []
    assert count_texts(pa.chunked_array([["a b"], ["c"]]), model="gpt-4o").to_pylist() == [2, 1]
