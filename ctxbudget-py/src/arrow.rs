//! `ctxbudget.arrow`'s engine: request bodies and texts in pyarrow arrays, fitted and
//! counted on the Arrow buffers (no Python object per row), on every core, without the
//! GIL; results back as pyarrow arrays through the Arrow C data interface.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::builder::{
    BooleanBuilder, LargeStringBuilder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, StructArray, make_array};
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use arrow_schema::{DataType, Field, Fields};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::counter::{PyCounter, choose_counter};
use crate::fit::{FitFailure, FitSpec, Fitted};
use crate::request::fit_spec;

/// Rows a thread takes at a time: small enough to balance uneven rows, large enough
/// that taking work costs nothing next to fitting it.
const BLOCK: usize = 16;

/// Strings of one of Arrow's three string layouts.
enum Strings<'a> {
    Utf8(&'a arrow_array::StringArray),
    LargeUtf8(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
}

impl Strings<'_> {
    fn of(array: &dyn Array) -> PyResult<Strings<'_>> {
        match array.data_type() {
            DataType::Utf8 => Ok(Strings::Utf8(array.as_string::<i32>())),
            DataType::LargeUtf8 => Ok(Strings::LargeUtf8(array.as_string::<i64>())),
            DataType::Utf8View => Ok(Strings::View(array.as_string_view())),
            other => Err(PyTypeError::new_err(format!(
                "expected an array of strings (string, large_string or string_view), got {other}: \
                 cast it with .cast(pyarrow.large_string())"
            ))),
        }
    }

    fn len(&self) -> usize {
        match self {
            Strings::Utf8(a) => a.len(),
            Strings::LargeUtf8(a) => a.len(),
            Strings::View(a) => a.len(),
        }
    }

    fn get(&self, i: usize) -> Option<&str> {
        match self {
            Strings::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::LargeUtf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::View(a) => a.is_valid(i).then(|| a.value(i)),
        }
    }
}

/// Reads a pyarrow array (anything with `__arrow_c_array__`), checked.
fn import(array: &Bound<'_, PyAny>) -> PyResult<ArrayRef> {
    let data = arrow_data::ArrayData::from_pyarrow_bound(array)?;
    Ok(make_array(data))
}

/// The threads to use: `threads`, or every core.
fn thread_count(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(PyValueError::new_err(
            "threads=0: give 1 or more, or None for every core",
        )),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, NonZeroUsize::get)),
    }
}

/// `work(i)` for each row `0..rows`, on `threads` threads, results in row order.
///
/// # Errors
///
/// A worker that panicked (the engine does not, on any input): its rows are lost, so
/// the batch is an error rather than a result with rows missing.
fn parallel<T: Send>(
    rows: usize,
    threads: usize,
    work: impl Fn(usize) -> T + Sync,
) -> PyResult<Vec<T>> {
    let threads = threads.min(rows.div_ceil(BLOCK)).max(1);
    if threads == 1 {
        return Ok((0..rows).map(work).collect());
    }
    let next = AtomicUsize::new(0);
    let mut blocks: Vec<(usize, Vec<T>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let start = next.fetch_add(BLOCK, Ordering::Relaxed);
                        if start >= rows {
                            break done;
                        }
                        let end = (start + BLOCK).min(rows);
                        done.push((start, (start..end).map(&work).collect()));
                    }
                })
            })
            .collect();
        let mut blocks = Vec::new();
        for worker in workers {
            blocks.extend(worker.join().map_err(|_| {
                PyRuntimeError::new_err("a worker thread of the batch failed; no result")
            })?);
        }
        Ok::<_, PyErr>(blocks)
    })?;
    blocks.sort_unstable_by_key(|(start, _)| *start);
    Ok(blocks.into_iter().flat_map(|(_, rows)| rows).collect())
}

/// The fields of the `StructArray` a batch fit returns.
fn fit_fields() -> Fields {
    Fields::from(vec![
        Field::new("body", DataType::LargeUtf8, true),
        Field::new("input_tokens", DataType::UInt64, true),
        Field::new("dropped", DataType::UInt32, true),
        Field::new("fits", DataType::Boolean, true),
        Field::new("error", DataType::Utf8, true),
    ])
}

/// The rows' results as the `StructArray` of [`fit_fields`].
fn fit_struct(results: &[Option<Result<Fitted, FitFailure>>]) -> StructArray {
    let bytes: usize = results
        .iter()
        .map(|r| match r {
            Some(Ok(fitted)) => fitted.json.len(),
            _ => 0,
        })
        .sum();
    let mut body = LargeStringBuilder::with_capacity(results.len(), bytes);
    let mut tokens = UInt64Builder::with_capacity(results.len());
    let mut dropped = UInt32Builder::with_capacity(results.len());
    let mut fits = BooleanBuilder::with_capacity(results.len());
    let mut error = StringBuilder::new();
    for result in results {
        match result {
            None => {
                body.append_null();
                tokens.append_null();
                dropped.append_null();
                fits.append_null();
                error.append_null();
            }
            Some(Ok(fitted)) => {
                body.append_value(&fitted.json);
                tokens.append_value(fitted.report.tokens_after as u64);
                dropped
                    .append_value(u32::try_from(fitted.report.dropped.len()).unwrap_or(u32::MAX));
                fits.append_value(true);
                error.append_null();
            }
            Some(Err(failure)) => {
                body.append_null();
                tokens.append_null();
                dropped.append_null();
                fits.append_value(false);
                error.append_value(&failure.message);
            }
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(body.finish()),
        Arc::new(tokens.finish()),
        Arc::new(dropped.finish()),
        Arc::new(fits.finish()),
        Arc::new(error.finish()),
    ];
    StructArray::new(fit_fields(), columns, None)
}

/// Fits request bodies in Arrow arrays; made once (per worker, in Ray or Spark) so that
/// its vocabulary loads once, then `fit` called on each batch.
///
/// `fit(array)` takes a pyarrow string array of JSON request bodies (any wire format,
/// detected per row) and returns a `StructArray` of `body` (the fitted body, null on
/// error), `input_tokens`, `dropped`, `fits` and `error` (the message, null when the
/// row fitted). A null body gives a row of nulls. The options are `fit_request`'s.
#[pyclass(name = "RequestBatchFitter", module = "ctxbudget.arrow", frozen)]
#[derive(Debug)]
pub struct PyRequestBatchFitter {
    spec: FitSpec,
    threads: usize,
}

#[pymethods]
impl PyRequestBatchFitter {
    #[new]
    #[pyo3(signature = (*, model=None, max_input=None, window=None, output=None, counter=None, encoding=None, tokenizer=None, edits=None, format=None, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        model: Option<&str>,
        max_input: Option<usize>,
        window: Option<usize>,
        output: Option<usize>,
        counter: Option<PyCounter>,
        encoding: Option<&str>,
        tokenizer: Option<PathBuf>,
        edits: Option<&Bound<'_, PyAny>>,
        format: Option<&str>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let spec = fit_spec(
            py, model, max_input, window, output, counter, encoding, tokenizer, edits, format,
            false,
        )?;
        Ok(PyRequestBatchFitter {
            spec,
            threads: thread_count(threads)?,
        })
    }

    /// Fits every body of `bodies` (a pyarrow string array); see the class.
    fn fit<'py>(&self, py: Python<'py>, bodies: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let array = import(bodies)?;
        let spec = &self.spec;
        let threads = self.threads;
        let result = py.detach(|| -> PyResult<StructArray> {
            let strings = Strings::of(array.as_ref())?;
            let results = parallel(strings.len(), threads, |i| {
                strings.get(i).map(|body| spec.fit_body(body))
            })?;
            Ok(fit_struct(&results))
        })?;
        result.into_data().to_pyarrow(py)
    }

    /// The threads a batch is fitted on.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    fn __repr__(&self) -> String {
        format!("RequestBatchFitter(threads={})", self.threads)
    }
}

/// The tokens of each text of `texts` (a pyarrow string array), as a `UInt64Array`
/// (null for a null text), counted on `threads` threads (default: every core).
#[pyfunction]
#[pyo3(signature = (texts, *, model=None, encoding=None, tokenizer=None, counter=None, threads=None))]
pub fn count_texts<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    counter: Option<PyCounter>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let counter = choose_counter(py, model, encoding, tokenizer, counter)?;
    let threads = thread_count(threads)?;
    let array = import(texts)?;
    let counts = py.detach(|| -> PyResult<arrow_array::UInt64Array> {
        let strings = Strings::of(array.as_ref())?;
        let counts = parallel(strings.len(), threads, |i| {
            strings.get(i).map(|text| counter.inner.count(text) as u64)
        })?;
        Ok(counts.into_iter().collect())
    })?;
    counts.into_data().to_pyarrow(py)
}
