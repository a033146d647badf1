//! JSON across the boundary: Python's own `json` module makes and reads the text, so a
//! `dict` in and out is exactly what `json.dumps` and `json.loads` make of it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;

static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn json_fn<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("json")?.getattr(name)?.unbind())
    })
    .map(|f| f.bind(py).clone())
}

/// `json.dumps(value, ensure_ascii=False)`, as a Rust string. A value `json` cannot
/// write (a set, a NaN) is a `TypeError` or `ValueError` from `json`; text with lone
/// surrogates is a `UnicodeEncodeError`.
pub fn dumps(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = value.py();
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("ensure_ascii", false)?;
    kwargs.set_item("allow_nan", false)?;
    let text = json_fn(py, &DUMPS, "dumps")?.call((value,), Some(&kwargs))?;
    Ok(text.cast::<PyString>()?.to_cow()?.into_owned())
}

/// `json.loads(text)`.
pub fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    json_fn(py, &LOADS, "loads")?.call1((text,))
}

/// A Python value (of what `json` writes) as a `serde_json::Value`.
pub fn to_json_value(value: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let text = dumps(value)?;
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))
}
