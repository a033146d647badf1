"""Count, trim and fit LLM prompts and provider requests to token budgets.

A thin layer over the Rust library ``ctxbudget``: every function converts its
arguments, calls the engine with the GIL released, and converts back.

>>> import ctxbudget
>>> ctxbudget.count("tiktoken is great!")
6
>>> body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}
>>> ctxbudget.fit_request(body).report.fits
True

``ctxbudget.arrow`` fits and counts whole pyarrow arrays in parallel.
"""

from ctxbudget._ctxbudget import (
    Counter,
    CounterError,
    CtxbudgetError,
    DoesNotFitError,
    Edits,
    FittedRequest,
    ModelNotFoundError,
    Report,
    RequestCount,
    RequestError,
    SessionError,
    TrimError,
    __version__,
    count,
    count_request,
    fit_request,
)

__all__ = [
    "Counter",
    "CounterError",
    "CtxbudgetError",
    "DoesNotFitError",
    "Edits",
    "FittedRequest",
    "ModelNotFoundError",
    "Report",
    "RequestCount",
    "RequestError",
    "SessionError",
    "TrimError",
    "__version__",
    "count",
    "count_request",
    "fit_request",
]
