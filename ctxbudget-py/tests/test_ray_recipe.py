"""The Ray Data recipe of docs/python-ray-spark.md, run on a local cluster of 2 CPUs
over 100,000 requests: every row is fitted, and each worker made its fitter once."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import datasets  # noqa: E402
import recipes  # noqa: E402

ray = pytest.importorskip("ray")
pa = pytest.importorskip("pyarrow")

from ctxbudget import workers  # noqa: E402

MODEL = "gpt-4o"
MAX_INPUT = 4_000


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_recipe_fits_every_request_with_one_fitter_per_worker(cluster):
    path = datasets.jsonl(100_000)
    recipe = recipes.load("python-ray-spark.md", "ray")
    recipe_class = recipe["FitRequests"]

    class Probe(recipe_class):
        """The recipe's map step, with the worker's pid and how many fitters its
        process has made when it fitted the batch."""

        def __call__(self, batch):
            out = super().__call__(batch).drop_columns(["body"])
            rows = out.num_rows
            out = out.append_column("pid", pa.array([os.getpid()] * rows, pa.int64()))
            return out.append_column("built", pa.array([workers.built()] * rows, pa.int64()))

    recipe["FitRequests"] = Probe
    fitted = recipe["fit_with_ray"](path, model=MODEL, max_input=MAX_INPUT, workers=2)
    table = pa.concat_tables(ray.get(fitted.to_arrow_refs()))

    assert table.num_rows == 100_000
    built = table.column("built").to_pylist()
    pids = set(table.column("pid").to_pylist())
    # One fitter per worker process, made before its first batch, never again.
    assert set(built) == {1}
    assert 1 <= len(pids) <= 2
    assert os.getpid() not in pids
    errors = table.column("error").to_pylist()
    fits = table.column("fits").to_pylist()
    tokens = table.column("input_tokens").to_pylist()
    for error, fit, n in zip(errors, fits, tokens):
        if error is None:
            assert fit and n <= MAX_INPUT
    assert sum(e is None for e in errors) > 99_000
    assert sum(d for d in table.column("dropped").to_pylist() if d) > 0


def test_ray_recipe_gives_what_one_process_gives(cluster):
    """The same 2,000 requests fitted by Ray and by a fitter in this process."""
    path = datasets.jsonl(2_000)
    recipe = recipes.load("python-ray-spark.md", "ray")
    fitted = recipe["fit_with_ray"](path, model=MODEL, max_input=MAX_INPUT, workers=2)
    table = pa.concat_tables(ray.get(fitted.to_arrow_refs()))
    with open(path, encoding="utf-8") as lines:
        bodies = pa.array([line.rstrip("\n") for line in lines])
    local = pa.Table.from_struct_array(workers.fitter(model=MODEL, max_input=MAX_INPUT).fit(bodies))
    def rows(t):
        columns = [t.column(name).to_pylist() for name in ("body", "input_tokens", "dropped", "error")]
        return sorted(zip(*columns), key=repr)

    assert rows(table) == rows(local)


def test_workers_make_one_fitter_per_options():
    import doctest

    import ctxbudget.workers

    before = workers.built()
    first = workers.fitter(model=MODEL, max_input=123)
    assert workers.fitter(max_input=123, model=MODEL) is first
    assert workers.fitter(model=MODEL, max_input=124) is not first
    assert workers.built() == before + 2
    result = doctest.testmod(ctxbudget.workers, verbose=False)
    assert result.failed == 0 and result.attempted >= 2
