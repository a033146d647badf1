"""What the Python benches share: the interleaved timing of contenders, and
`batch_fit.py`'s LangChain contender imported as a module."""

import os
import random
import statistics
import sys
import time


class Timed:
    """A contender's outcome with the time of its job alone (not its set-up)."""

    def __init__(self, outcome, seconds):
        self.outcome, self.seconds = outcome, seconds


def measure(contenders, rounds, on_round=None):
    """{name: median seconds}: every contender once a round, in a new random order
    each round, after one warm-up round whose outcomes are printed."""
    times = {name: [] for name in contenders}
    order = list(contenders)
    for round_ in range(rounds + 1):
        random.shuffle(order)
        for name in order:
            started = time.perf_counter()
            outcome = contenders[name]()
            elapsed = time.perf_counter() - started
            if isinstance(outcome, Timed):
                outcome, elapsed = outcome.outcome, outcome.seconds
            if round_ == 0:
                print(f"  warm-up {name}: {outcome} in {elapsed:.2f} s", file=sys.stderr)
            else:
                times[name].append(elapsed)
        if on_round:
            on_round(round_)
    return {name: statistics.median(t) for name, t in times.items()}


def import_batch_fit(vocab=None):
    """`batch_fit.py` as a module (it reads its arguments when imported: give it
    harmless ones), for its `fit` (LangChain's `trim_messages` with the tiktoken
    cookbook counter), `count`, `tools_tokens` and `ENCODING`."""
    argv = sys.argv
    sys.argv = ["batch_fit.py", "--max-input", "1", "-i", os.devnull, "-o", os.devnull]
    if vocab:
        sys.argv += ["--vocab", vocab]
    try:
        import batch_fit
    finally:
        sys.argv = argv
    return batch_fit
