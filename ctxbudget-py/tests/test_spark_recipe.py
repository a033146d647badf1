"""The Spark recipe of docs/python-ray-spark.md, run on `local[2]` over 100,000
requests: every row is fitted, and each Python worker made its fitter once."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import datasets  # noqa: E402
import recipes  # noqa: E402

pyspark = pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from ctxbudget import workers  # noqa: E402

MODEL = "gpt-4o"
MAX_INPUT = 4_000


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The workers run this interpreter, whose site-packages has ctxbudget.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_spark_recipe_fits_every_request_with_one_fitter_per_worker(spark):
    from pyspark.sql import functions as F

    path = datasets.jsonl(100_000)
    recipe = recipes.load("python-ray-spark.md", "spark")
    fit_partition = recipe["fit_partition"]

    def probe(batches, **options):
        """The recipe's map step, with the worker's pid and how many fitters its
        process has made when it fitted the batch."""
        for batch in fit_partition(batches, **options):
            rows = batch.num_rows
            yield pa.RecordBatch.from_arrays(
                [
                    *batch.columns,
                    pa.array([os.getpid()] * rows, pa.int64()),
                    pa.array([workers.built()] * rows, pa.int64()),
                ],
                names=[*batch.schema.names, "pid", "built"],
            )

    recipe["fit_partition"] = probe
    recipe["SCHEMA"] += ", pid long, built long"
    fitted = recipe["fit_with_spark"](spark, path, model=MODEL, max_input=MAX_INPUT)
    summary = (
        fitted.groupBy("pid")
        .agg(
            F.count("*").alias("rows"),
            F.min("built").alias("min_built"),
            F.max("built").alias("max_built"),
            F.sum(F.col("error").isNull().cast("long")).alias("ok"),
            F.sum(F.when(F.col("error").isNull() & (~F.col("fits") | (F.col("input_tokens") > MAX_INPUT)), 1).otherwise(0)).alias("bad"),
            F.sum("dropped").alias("dropped"),
        )
        .collect()
    )
    partitions = spark.read.text(path).rdd.getNumPartitions()
    assert sum(row["rows"] for row in summary) == 100_000
    # One fitter per Python worker process, made on its first task, never again,
    # and fewer worker processes than tasks: the workers were reused.
    assert all(row["min_built"] == 1 and row["max_built"] == 1 for row in summary)
    assert len(summary) < partitions
    assert os.getpid() not in {row["pid"] for row in summary}
    assert sum(row["bad"] for row in summary) == 0
    assert sum(row["ok"] for row in summary) > 99_000
    assert sum(row["dropped"] for row in summary) > 0


def test_spark_recipe_gives_what_one_process_gives(spark):
    """The same 2,000 requests fitted by Spark and by a fitter in this process."""
    path = datasets.jsonl(2_000)
    recipe = recipes.load("python-ray-spark.md", "spark")
    rows = recipe["fit_with_spark"](spark, path, model=MODEL, max_input=MAX_INPUT).collect()
    with open(path, encoding="utf-8") as lines:
        bodies = pa.array([line.rstrip("\n") for line in lines])
    local = workers.fitter(model=MODEL, max_input=MAX_INPUT).fit(bodies)
    local = pa.Table.from_struct_array(local)
    ours = sorted(((r["body"], r["input_tokens"], r["dropped"], r["error"]) for r in rows), key=repr)
    columns = [local.column(name).to_pylist() for name in ("body", "input_tokens", "dropped", "error")]
    assert ours == sorted(zip(*columns), key=repr)
