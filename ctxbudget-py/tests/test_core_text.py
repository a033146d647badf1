"""Trimming, disclosure and selection."""

import pytest

import ctxbudget
from ctxbudget import Counter, TrimError

CHARS = Counter.chars()
TEXT = (
    "ctxbudget keeps whole paragraphs when it can.\n\n"
    "When a paragraph does not fit, it keeps whole sentences. "
    "Words come next, and graphemes last."
)


def test_trim_keeps_the_head_at_a_boundary():
    out = ctxbudget.trim("One sentence. Another one.", 4, counter=CHARS)
    assert (out.text, out.tokens, out.trimmed, out.boundary) == ("One sentence.", 4, True, "sentence")
    assert out.budget == 4 and str(out) == "One sentence."
    assert out.original_tokens == 7
    assert out.to_dict()["original_tokens"] == 7


def test_trim_with_every_keep_and_counter():
    for keep in ("head", "tail", "both"):
        out = ctxbudget.trim(TEXT, 12, keep=keep, model="gpt-4o")
        assert out.tokens <= 12 and out.trimmed
        assert ctxbudget.count(out.text) == out.tokens
    assert TEXT.endswith(ctxbudget.trim(TEXT, 12, keep="tail").text)
    both = ctxbudget.trim(TEXT, 20, keep="both", elision=" ... ")
    assert " ... " in both.text


def test_trim_of_a_text_that_fits_is_the_text():
    out = ctxbudget.trim("short", 100)
    assert out.text == "short" and not out.trimmed and out.boundary is None
    assert out.original_tokens == out.tokens
    assert ctxbudget.trim("anything", 0).text == ""


def test_trim_span_is_in_characters():
    text = "日本語の文章です。" * 50
    out = ctxbudget.trim(text, 10, keep="tail")
    start, end = out.span
    assert text[start:end] == out.text and end == len(text)


def test_trim_bad_arguments():
    with pytest.raises(ValueError, match="keep="):
        ctxbudget.trim("x", 3, keep="middle")
    with pytest.raises(OverflowError):
        ctxbudget.trim("x", -1)
    with pytest.raises(OverflowError):
        ctxbudget.trim("x", 2**70)
    with pytest.raises(ValueError, match="min_fill"):
        ctxbudget.trim("x", 3, min_fill=1.5)
    with pytest.raises(TypeError):
        ctxbudget.trim(None, 3)
    with pytest.raises(UnicodeEncodeError):
        ctxbudget.trim("a\ud800b", 3)
    # The largest budget is fine.
    assert ctxbudget.trim("x", 2**64 - 1).text == "x"


DOC = "# Install\nRun the installer.\n\n# Configure\nEdit the file.\nRestart.\n\n# Usage\nCall it.\n"


def test_disclose_cuts_at_a_section_and_adds_the_note():
    out = ctxbudget.disclose(DOC * 10, 40, recovery="read INSTALL.md")
    assert out.truncated and out.tokens <= 40
    assert out.trailer.startswith("<truncated: showing ")
    assert out.trailer.endswith("full text: read INSTALL.md>")
    assert out.text == out.rendered + "\n" + out.trailer
    assert ctxbudget.count(out.text) == out.tokens
    whole = ctxbudget.disclose(DOC, 1000, recovery="read it")
    assert not whole.truncated and whole.text == DOC and whole.to_dict()["shown"] == whole.total


def test_disclose_errors():
    with pytest.raises(TrimError, match="recovery"):
        ctxbudget.disclose(DOC, 100, recovery="   ")
    with pytest.raises(TrimError):
        ctxbudget.disclose(DOC * 10, 3, recovery="read INSTALL.md")
    with pytest.raises(TypeError):
        ctxbudget.disclose(DOC, 100)  # recovery is required


def test_select_keeps_the_best_chunks_within_budget():
    words = Counter.chars(5)
    out = ctxbudget.select(["a low one", "the best", "good"], [0.1, 0.9, 0.5], 3, counter=words)
    assert out.text == "the best\n\ngood" and out.dropped == [0]
    assert [c["index"] for c in out.chunks] == [1, 2]
    assert out.tokens <= 3 and out.to_dict()["budget"] == 3
    chunks = ["Form 8843 is filed by every nonresident alien. It is due in June."] * 5
    cut = ctxbudget.select(chunks, [0.5] * 5, 30, min_partial=3)
    assert cut.tokens <= 30 and cut.chunks[-1]["cut"] in (None, "sentence", "word")
    assert ctxbudget.select([], [], 10).text == ""


def test_select_bad_arguments():
    with pytest.raises(ValueError, match="scores"):
        ctxbudget.select(["a", "b"], [1.0], 10)
    with pytest.raises(ValueError, match="NaN"):
        ctxbudget.select(["a"], [float("nan")], 10)
    with pytest.raises(TypeError):
        ctxbudget.select("abc", [1.0, 2.0, 3.0], 10)
    with pytest.raises(TypeError):
        ctxbudget.select([1, 2], [1.0, 2.0], 10)
