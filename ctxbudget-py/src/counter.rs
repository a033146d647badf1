//! `ctxbudget.Counter`: a token counter loaded once (a vocabulary, a tokenizer file),
//! shared by every call and thread; and how the `model=`, `encoding=`,
//! `tokenizer=`, `counter=` arguments of the functions choose one.

use std::path::PathBuf;
use std::sync::Arc;

use ctxbudget::count::{Encoding, HuggingFace, Tekken, Tiktoken};
use ctxbudget::models::{Model, ModelCounter};
use ctxbudget::{CharEstimate, TokenCounter};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::{CounterError, ModelNotFoundError};

/// A counter the engine can share across threads.
pub type Shared = Arc<dyn TokenCounter + Send + Sync>;

/// A token counter: loads its vocabulary once; `count` and `count_many` release the
/// GIL while they count.
///
/// >>> import ctxbudget
/// >>> counter = ctxbudget.Counter.for_model("gpt-4o")
/// >>> counter.count("tiktoken is great!")
/// 6
/// >>> counter.name
/// 'gpt-4o (tiktoken o200k_base)'
#[pyclass(name = "Counter", module = "ctxbudget", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyCounter {
    pub(crate) inner: Shared,
    pub(crate) name: String,
}

impl std::fmt::Debug for PyCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl PyCounter {
    fn new(counter: impl TokenCounter + Send + Sync + 'static, name: impl Into<String>) -> Self {
        PyCounter {
            inner: Arc::new(counter),
            name: name.into(),
        }
    }

    /// The default counter: `o200k_base`.
    pub fn default_counter() -> Self {
        Self::of_encoding(Encoding::O200kBase)
    }

    fn of_encoding(encoding: Encoding) -> Self {
        Self::new(Tiktoken::new(encoding), encoding.name())
    }

    /// The counter of a catalogue model.
    pub fn of_model(model: &Model) -> PyResult<Self> {
        let counter = model
            .counter()
            .map_err(|e| CounterError::new_err(e.to_string()))?;
        let name = match &counter {
            ModelCounter::Claude(claude) => {
                format!(
                    "{} (Claude {} tokenizer)",
                    model.name(),
                    claude.generation()
                )
            }
            _ => format!("{} ({})", model.name(), model.tokenizer()),
        };
        Ok(Self::new(counter, name))
    }
}

/// `ceil(characters / n)`: [`CharEstimate`] for another `n`, an estimate too.
#[derive(Debug, Clone, Copy)]
struct CharsPer(usize);

impl TokenCounter for CharsPer {
    fn count(&self, text: &str) -> usize {
        text.chars().count().div_ceil(self.0)
    }

    fn exactness(&self) -> ctxbudget::count::Exactness {
        ctxbudget::count::Exactness::Estimate
    }
}

/// Looks up a catalogue model, as `ModelNotFoundError` with the library's suggestions.
pub fn lookup_model(name: &str) -> PyResult<&'static Model> {
    Model::lookup(name).map_err(|e| ModelNotFoundError::new_err(e.to_string()))
}

#[pymethods]
impl PyCounter {
    /// The counter of a model of the catalogue (`ctxbudget.Model.lookup` names them):
    /// exact for OpenAI and Claude models, an upper estimate for Gemini.
    ///
    /// Raises `ModelNotFoundError` for an unknown model and `CounterError` for a model
    /// whose tokenizer is a file to download (use `Counter.tokenizer_file`).
    #[staticmethod]
    fn for_model(py: Python<'_>, name: &str) -> PyResult<Self> {
        let model = lookup_model(name)?;
        py.detach(|| Self::of_model(model))
    }

    /// A tiktoken encoding: `"o200k_base"`, `"cl100k_base"`, `"p50k_base"`, `"r50k_base"`.
    ///
    /// >>> ctxbudget.Counter.encoding("cl100k_base").count("tiktoken is great!")
    /// 6
    #[staticmethod]
    fn encoding(name: &str) -> PyResult<Self> {
        let encoding: Encoding = name
            .parse()
            .map_err(|e: ctxbudget::count::UnknownEncoding| CounterError::new_err(e.to_string()))?;
        Ok(Self::of_encoding(encoding))
    }

    /// A Hugging Face `tokenizer.json` (Llama, Qwen, DeepSeek, ...): exact counts.
    #[staticmethod]
    fn tokenizer_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let name = path.display().to_string();
        py.detach(|| HuggingFace::from_file(&path))
            .map(|counter| Self::new(counter, name))
            .map_err(|e| CounterError::new_err(e.to_string()))
    }

    /// A Mistral Tekken vocabulary (`tekken_*.json`): exact counts.
    #[staticmethod]
    fn tekken(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let name = path.display().to_string();
        py.detach(|| Tekken::from_file(&path))
            .map(|counter| Self::new(counter, name))
            .map_err(|e| CounterError::new_err(e.to_string()))
    }

    /// A rule of thumb: `ceil(characters / chars_per_token)`.
    ///
    /// >>> ctxbudget.Counter.chars().count("abcde")
    /// 2
    #[staticmethod]
    #[pyo3(signature = (chars_per_token = 4))]
    fn chars(chars_per_token: usize) -> PyResult<Self> {
        match chars_per_token {
            0 => Err(PyValueError::new_err(
                "chars_per_token is 0: give the characters one token stands for, 1 or more (4 is usual)",
            )),
            4 => Ok(Self::new(CharEstimate, "chars / 4")),
            n => Ok(Self::new(CharsPer(n), format!("chars / {n}"))),
        }
    }

    /// The tokens of `text`.
    fn count(&self, py: Python<'_>, text: &str) -> usize {
        let counter = &self.inner;
        py.detach(|| counter.count(text))
    }

    /// The tokens of each text, in order, counted without the GIL.
    fn count_many(&self, py: Python<'_>, texts: Vec<String>) -> Vec<usize> {
        let counter = &self.inner;
        py.detach(|| texts.iter().map(|text| counter.count(text)).collect())
    }

    /// The counter's name: the model and its tokenizer, the encoding or the file.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Whether counts are exact (the model's own tokenizer), not an estimate.
    #[getter]
    fn exact(&self) -> bool {
        self.inner.exactness().is_exact()
    }

    /// `"exact"`, `"upper estimate"` (never under the real count), `"estimate"` or
    /// `"unknown"`.
    #[getter]
    fn exactness(&self) -> &'static str {
        self.inner.exactness().as_str()
    }

    fn __repr__(&self) -> String {
        format!("Counter({:?})", self.name)
    }
}

/// The counter that `model=`, `encoding=`, `tokenizer=` or `counter=` names, `None`
/// when none is given. At most one may be given.
pub fn named_counter(
    py: Python<'_>,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    counter: Option<PyCounter>,
) -> PyResult<Option<PyCounter>> {
    let given = usize::from(model.is_some())
        + usize::from(encoding.is_some())
        + usize::from(tokenizer.is_some())
        + usize::from(counter.is_some());
    if given > 1 {
        return Err(PyValueError::new_err(
            "more than one counter given: pass one of model=, encoding=, tokenizer= or counter=",
        ));
    }
    if let Some(counter) = counter {
        return Ok(Some(counter));
    }
    if let Some(name) = model {
        return PyCounter::for_model(py, name).map(Some);
    }
    if let Some(name) = encoding {
        return PyCounter::encoding(name).map(Some);
    }
    if let Some(path) = tokenizer {
        return PyCounter::tokenizer_file(py, path).map(Some);
    }
    Ok(None)
}

/// [`named_counter`], or `o200k_base` when none is named.
pub fn choose_counter(
    py: Python<'_>,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    counter: Option<PyCounter>,
) -> PyResult<PyCounter> {
    Ok(named_counter(py, model, encoding, tokenizer, counter)?
        .unwrap_or_else(PyCounter::default_counter))
}

/// The tokens of `text`, with the counter `model=`, `encoding=`, `tokenizer=` (a
/// Hugging Face `tokenizer.json`) or `counter=` names; `o200k_base` by default. For
/// many calls, make a `Counter` once and call its `count`.
///
/// >>> ctxbudget.count("tiktoken is great!")
/// 6
/// >>> ctxbudget.count("tiktoken is great!", encoding="cl100k_base")
/// 6
#[pyfunction]
#[pyo3(signature = (text, *, model=None, encoding=None, tokenizer=None, counter=None))]
pub fn count(
    py: Python<'_>,
    text: &str,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    counter: Option<PyCounter>,
) -> PyResult<usize> {
    let counter = choose_counter(py, model, encoding, tokenizer, counter)?;
    Ok(py.detach(|| counter.inner.count(text)))
}
