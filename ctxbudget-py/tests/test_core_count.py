"""Counting: ctxbudget.count, Counter and its constructors, and bad input."""

import json
import sys
import threading
import time

import pytest

import ctxbudget
from ctxbudget import Counter, CounterError, CtxbudgetError, ModelNotFoundError


def test_count_defaults_to_o200k_and_takes_each_counter_option():
    assert ctxbudget.count("tiktoken is great!") == 6
    assert ctxbudget.count("tiktoken is great!", encoding="cl100k_base") == 6
    assert ctxbudget.count("tiktoken is great!", model="gpt-4o") == 6
    assert ctxbudget.count("abcde", counter=Counter.chars()) == 2
    assert ctxbudget.count("") == 0


def test_counter_constructors_name_and_exactness():
    gpt = Counter.for_model("gpt-4o-2024-08-06")
    assert gpt.name == "gpt-4o (tiktoken o200k_base)"
    assert gpt.exact and gpt.exactness == "exact"
    assert Counter.encoding("cl100k_base").name == "cl100k_base"
    gemini = Counter.for_model("gemini-2.5-flash")
    assert not gemini.exact and gemini.exactness == "upper estimate"
    # Claude models count with their tokenizer generation, exactly.
    claude = Counter.for_model("claude-sonnet-4-5")
    assert "Claude" in claude.name and claude.count("Hello, world") > 0
    chars = Counter.chars(2)
    assert chars.count("abcde") == 3 and chars.exactness == "estimate"
    assert repr(chars) == 'Counter("chars / 2")'


def test_count_many_counts_each_text_in_order():
    counter = Counter.encoding("o200k_base")
    texts = ["tiktoken is great!", "", "日本語の文章。", "x" * 10_000]
    assert counter.count_many(texts) == [counter.count(t) for t in texts]
    assert counter.count_many([]) == []


def test_tokenizer_files_count_as_their_recorded_counts(fixtures, unzipped):
    recorded = json.loads((fixtures / "tokenizers" / "huggingface_counts.json").read_text())
    entry = next(t for t in recorded["tokenizers"] if t["name"] == "anthropic")
    counter = Counter.tokenizer_file(unzipped(entry["file"]))
    assert counter.exact
    via_count = ctxbudget.count("Hello, world!", tokenizer=str(unzipped(entry["file"])))
    assert via_count == counter.count("Hello, world!") > 0

    cases = json.loads((fixtures / "tokenizers" / "tekken_counts.json").read_text())
    tekken = Counter.tekken(unzipped(cases["file"]))
    checked = 0
    for case in cases["cases"][:40]:
        text = (fixtures / case["fixture"]).read_bytes()[case["start"] : case["end"]]
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            continue
        assert tekken.count(text) == case["count"], case
        checked += 1
    assert checked > 10


def test_a_counter_is_shared_by_threads():
    counter = Counter.for_model("gpt-4o")
    texts = [f"line {i}: " + "word " * i for i in range(200)]
    expected = [counter.count(t) for t in texts]
    results = {}

    def work(n):
        results[n] = counter.count_many(texts)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(result == expected for result in results.values())


def test_unknown_names_raise_the_library_errors():
    with pytest.raises(ModelNotFoundError, match="did you mean `gpt-4o`"):
        ctxbudget.count("x", model="gpt-4z")
    with pytest.raises(CounterError, match="o200k_base"):
        Counter.encoding("o300k_base")
    with pytest.raises(CounterError, match="tokenizer"):
        Counter.tokenizer_file("/nonexistent/tokenizer.json")
    with pytest.raises(CounterError):
        Counter.tekken("/nonexistent/tekken.json")
    # A model whose tokenizer is a file says which file to load.
    with pytest.raises(CounterError, match="tokenizer.json"):
        Counter.for_model("llama-3.3-70b")
    assert issubclass(ModelNotFoundError, CtxbudgetError)
    assert issubclass(CounterError, CtxbudgetError)


def test_a_corrupt_tokenizer_file_is_an_error_not_a_crash(tmp_path):
    truncated = tmp_path / "tokenizer.json"
    truncated.write_text('{"version": "1.0", "model": {')
    with pytest.raises(CounterError, match="truncated"):
        Counter.tokenizer_file(truncated)
    binary = tmp_path / "tekken.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CounterError):
        Counter.tekken(binary)


def test_bad_arguments_raise_python_errors():
    with pytest.raises(ValueError, match="one of"):
        ctxbudget.count("x", model="gpt-4o", encoding="cl100k_base")
    with pytest.raises(TypeError):
        ctxbudget.count(42)
    with pytest.raises(TypeError):
        ctxbudget.count(b"bytes")
    with pytest.raises(TypeError):
        ctxbudget.count("x", counter="o200k_base")
    with pytest.raises(ValueError, match="chars_per_token"):
        Counter.chars(0)
    with pytest.raises(OverflowError):
        Counter.chars(-1)
    with pytest.raises(TypeError):
        Counter.for_model(None)
    with pytest.raises(TypeError):
        Counter.encoding("o200k_base").count_many("not a list")


def test_lone_surrogates_are_a_unicode_error():
    with pytest.raises(UnicodeEncodeError):
        ctxbudget.count("abc\ud800def")
    with pytest.raises(UnicodeEncodeError):
        Counter.chars().count_many(["ok", "\udfff"])


def test_long_and_odd_texts_count():
    counter = Counter.encoding("o200k_base")
    assert counter.count("a" * 1_000_000) > 0
    assert counter.count("\x00\x01\x02") > 0
    assert counter.count("👨\u200d👩\u200d👧" * 1000) > 0


def test_counting_releases_the_gil():
    """While one thread counts in Rust, another runs Python code. With a switch
    interval of an hour, the interpreter never takes the GIL from a thread: the main
    thread can run during the count only if the count released it, and without that
    it would first run once the worker had ended (spins == 0)."""
    counter = Counter.encoding("o200k_base")
    texts = ["Counting releases the GIL. " * 4_000] * 200  # 22 MB: long enough to be seen
    started = threading.Event()
    spins = 0
    interval = sys.getswitchinterval()
    sys.setswitchinterval(3_600)
    try:
        worker = threading.Thread(target=lambda: (started.set(), counter.count_many(texts)))
        worker.start()
        started.wait()
        while worker.is_alive():
            spins += 1
            time.sleep(0)  # lets the worker take the GIL back when its count is done
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert spins > 0
