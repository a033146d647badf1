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
    ChatSession,
    Counter,
    CounterError,
    CtxbudgetError,
    Disclosed,
    DoesNotFitError,
    Edits,
    FittedRequest,
    Model,
    ModelNotFoundError,
    Prompt,
    Report,
    RequestCount,
    RequestError,
    Selection,
    SessionError,
    TrimError,
    Trimmed,
    __version__,
    count,
    count_request,
    disclose,
    fit_request,
    select,
    trim,
    trim_chat,
)

__all__ = [
    "ChatSession",
    "Counter",
    "CounterError",
    "CtxbudgetError",
    "Disclosed",
    "DoesNotFitError",
    "Edits",
    "FittedRequest",
    "Model",
    "ModelNotFoundError",
    "Prompt",
    "Report",
    "RequestCount",
    "RequestError",
    "Selection",
    "SessionError",
    "TrimError",
    "Trimmed",
    "__version__",
    "count",
    "count_request",
    "disclose",
    "fit_request",
    "select",
    "trim",
    "trim_chat",
]
