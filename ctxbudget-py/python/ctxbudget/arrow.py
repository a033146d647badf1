"""Request bodies and texts in pyarrow arrays, fitted and counted in parallel.

The work runs on the Arrow buffers (no Python object per row), on every core
(``threads=None``) or on ``threads`` threads, with the GIL released. Arrays come in
and go out through the Arrow C data interface, so any array with
``__arrow_c_array__`` works as input; a ``pyarrow.ChunkedArray`` (a table's column)
is handled chunk by chunk.

>>> import pyarrow as pa
>>> from ctxbudget.arrow import RequestBatchFitter
>>> fitter = RequestBatchFitter(max_input=1000)  # once per worker
>>> out = fitter.fit(pa.array(['{"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}']))
>>> out.field("fits").to_pylist()
[True]
"""

from __future__ import annotations

from typing import Any, Optional

from ctxbudget._ctxbudget import RequestBatchFitter as _NativeFitter
from ctxbudget._ctxbudget import count_texts as _count_texts

__all__ = ["RequestBatchFitter", "fit_requests", "count_texts"]


def _pyarrow():
    try:
        import pyarrow
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "ctxbudget.arrow needs pyarrow: pip install 'pyarrow>=14'"
        ) from error
    return pyarrow


def _each_chunk(array: Any, work):
    """``work`` on an array, or on each chunk of a chunked array, concatenated."""
    pa = _pyarrow()
    if isinstance(array, pa.ChunkedArray):
        if array.num_chunks == 1:
            return work(array.chunk(0))
        parts = [work(chunk) for chunk in array.chunks]
        if not parts:
            return work(pa.array([], type=array.type))
        return pa.concat_arrays(parts)
    if isinstance(array, (list, tuple)):
        array = pa.array(array, type=pa.large_string())
    return work(array)


class RequestBatchFitter:
    """Fits request bodies in pyarrow arrays; make it once per worker, call ``fit``
    on each batch, so the vocabulary loads once.

    Options are ``ctxbudget.fit_request``'s (``model``, ``max_input``, ``window``,
    ``output``, ``counter``, ``encoding``, ``tokenizer``, ``edits``, ``format``), plus
    ``threads`` (default: every core).

    ``fit(bodies)`` returns a ``pyarrow.StructArray`` with the fields ``body``
    (large_string, the fitted body; null on error), ``input_tokens`` (uint64),
    ``dropped`` (uint32, messages dropped), ``fits`` (bool; false on error) and
    ``error`` (string, null when the row fitted). A null body gives a row of nulls.
    """

    def __init__(self, **options: Any) -> None:
        self._native = _NativeFitter(**options)

    @property
    def threads(self) -> int:
        """The threads a batch is fitted on."""
        return self._native.threads

    def fit(self, bodies: Any) -> Any:
        """Fits every JSON body of ``bodies`` (a string array, a chunked array or a
        list of str); see the class."""
        return _each_chunk(bodies, self._native.fit)

    def __repr__(self) -> str:
        return f"RequestBatchFitter(threads={self.threads})"


def fit_requests(bodies: Any, **options: Any) -> Any:
    """``RequestBatchFitter(**options).fit(bodies)``: for one batch. For many batches,
    keep one ``RequestBatchFitter``."""
    return RequestBatchFitter(**options).fit(bodies)


def count_texts(
    texts: Any,
    *,
    model: Optional[str] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[str] = None,
    counter: Any = None,
    threads: Optional[int] = None,
) -> Any:
    """The tokens of each text (a pyarrow string array, chunked array or list of str)
    as a ``pyarrow.UInt64Array``, null for a null text.

    >>> import pyarrow as pa
    >>> count_texts(pa.array(["tiktoken is great!", None])).to_pylist()
    [6, None]
    """
    return _each_chunk(
        texts,
        lambda chunk: _count_texts(
            chunk,
            model=model,
            encoding=encoding,
            tokenizer=tokenizer,
            counter=counter,
            threads=threads,
        ),
    )
