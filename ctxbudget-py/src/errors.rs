//! The exceptions: one base, `ctxbudget.CtxbudgetError`, and a subclass per family of
//! the library's errors, each carrying the Rust error's message.

use ctxbudget::request::RequestError as RustRequestError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    ctxbudget,
    CtxbudgetError,
    PyException,
    "The base of every error ctxbudget raises; `str(e)` is the engine's message."
);
create_exception!(
    ctxbudget,
    RequestError,
    CtxbudgetError,
    "A request body that could not be read, checked or fitted."
);
create_exception!(
    ctxbudget,
    DoesNotFitError,
    RequestError,
    "What must stay in a request (system prompt, latest message, ...) is over the limit."
);
create_exception!(
    ctxbudget,
    CounterError,
    CtxbudgetError,
    "A counter that could not be made: an unknown encoding, a tokenizer file that cannot be used."
);
create_exception!(
    ctxbudget,
    ModelNotFoundError,
    CtxbudgetError,
    "A model name the catalogue does not know; the message suggests the closest names."
);
create_exception!(
    ctxbudget,
    TrimError,
    CtxbudgetError,
    "Text, chunks or a document that could not be trimmed, selected or disclosed."
);
create_exception!(
    ctxbudget,
    SessionError,
    CtxbudgetError,
    "A message a `ChatSession` refused, or a prompt it could not prepare."
);

/// The exception of a request error: [`DoesNotFitError`] when the request is valid
/// but cannot fit, [`RequestError`] otherwise.
pub fn request_error(error: &RustRequestError) -> PyErr {
    match error {
        RustRequestError::DoesNotFit { .. }
        | RustRequestError::ToolLoopDoesNotFit { .. }
        | RustRequestError::OutputOverWindow { .. } => DoesNotFitError::new_err(error.to_string()),
        _ => RequestError::new_err(error.to_string()),
    }
}

/// Whether a request error means "valid, but cannot fit".
pub fn does_not_fit(error: &RustRequestError) -> bool {
    matches!(
        error,
        RustRequestError::DoesNotFit { .. }
            | RustRequestError::ToolLoopDoesNotFit { .. }
            | RustRequestError::OutputOverWindow { .. }
    )
}

/// Adds the exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CtxbudgetError", py.get_type::<CtxbudgetError>())?;
    m.add("RequestError", py.get_type::<RequestError>())?;
    m.add("DoesNotFitError", py.get_type::<DoesNotFitError>())?;
    m.add("CounterError", py.get_type::<CounterError>())?;
    m.add("ModelNotFoundError", py.get_type::<ModelNotFoundError>())?;
    m.add("TrimError", py.get_type::<TrimError>())?;
    m.add("SessionError", py.get_type::<SessionError>())?;
    Ok(())
}
