"""One `RequestBatchFitter` per worker process, for the map step of a distributed job.

A fitter loads its model's vocabulary when it is made; a Ray Data or Spark job should
make it once per worker process, not once per batch. Ray's callable classes do that
in `__init__`. Spark unpickles the function of a `mapInArrow` anew for every task, so
a cache inside that function (or a global of the module that defines it, when Spark
pickles it by value) lives one task, not one worker: this module is imported, not
pickled, so its cache lives as long as the worker process.

    >>> from ctxbudget import workers
    >>> fitter = workers.fitter(model="gpt-4o", max_input=1_000)
    >>> fitter is workers.fitter(model="gpt-4o", max_input=1_000)
    True

See docs/python-ray-spark.md for the Ray Data and Spark recipes.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Tuple

__all__ = ["fitter", "built"]

_LOCK = threading.Lock()
_FITTERS: Dict[Tuple[Tuple[str, Any], ...], Any] = {}
_BUILT = 0


def _key(options: Dict[str, Any]) -> Tuple[Tuple[str, Any], ...]:
    return tuple(sorted((name, repr(value)) for name, value in options.items()))


def fitter(**options: Any) -> Any:
    """The `ctxbudget.arrow.RequestBatchFitter(**options)` of this process: made on the
    first call with these options, the same object on every later call."""
    global _BUILT
    key = _key(options)
    with _LOCK:
        found = _FITTERS.get(key)
        if found is None:
            from .arrow import RequestBatchFitter

            found = RequestBatchFitter(**options)
            _FITTERS[key] = found
            _BUILT += 1
        return found


def built() -> int:
    """How many fitters this process has made (one per set of options, once)."""
    return _BUILT
