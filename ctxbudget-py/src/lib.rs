//! The native module `ctxbudget._ctxbudget`: a thin layer over the `ctxbudget` library.
//! Each file converts one concern's arguments, calls the library's public API with the
//! GIL released, and converts back; `python/ctxbudget/__init__.py` re-exports it.

// The doc comments of Python-facing items are Python docstrings (`>>>` examples,
// `d["key"]`), not rustdoc; and PyO3 extracts arguments as owned values.
#![allow(clippy::doc_link_with_quotes, clippy::needless_pass_by_value)]

mod arrow;
mod chat_trim;
mod counter;
mod errors;
mod fit;
mod json;
mod models;
mod request;
mod session;
mod text;

use pyo3::prelude::*;

/// The engine of the `ctxbudget` package; import `ctxbudget`, not this module.
#[pymodule]
fn _ctxbudget(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<counter::PyCounter>()?;
    m.add_class::<request::PyEdits>()?;
    m.add_class::<request::PyReport>()?;
    m.add_class::<request::PyFittedRequest>()?;
    m.add_class::<request::PyRequestCount>()?;
    m.add_function(wrap_pyfunction!(counter::count, m)?)?;
    m.add_function(wrap_pyfunction!(request::fit_request, m)?)?;
    m.add_function(wrap_pyfunction!(request::count_request, m)?)?;
    m.add_class::<text::PyTrimmed>()?;
    m.add_class::<text::PyDisclosed>()?;
    m.add_class::<text::PySelection>()?;
    m.add_function(wrap_pyfunction!(text::trim, m)?)?;
    m.add_function(wrap_pyfunction!(text::disclose, m)?)?;
    m.add_function(wrap_pyfunction!(text::select_chunks, m)?)?;
    m.add_class::<models::PyModel>()?;
    m.add_class::<session::PyChatSession>()?;
    m.add_class::<session::PyPrompt>()?;
    m.add_class::<arrow::PyRequestBatchFitter>()?;
    m.add_function(wrap_pyfunction!(arrow::count_texts, m)?)?;
    m.add_function(wrap_pyfunction!(chat_trim::trim_chat, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
