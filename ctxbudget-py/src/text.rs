//! `trim`, `disclose` and `select`: texts cut to a budget, and what was kept.

use std::path::PathBuf;

use ctxbudget::disclosure::disclose_within;
use ctxbudget::select::{SelectOptions, select};
use ctxbudget::trim::{Boundary, Keep, TrimOptions, trim_with};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::counter::{PyCounter, choose_counter};
use crate::errors::TrimError;

/// A text trimmed to a budget: `.text` the result, `.tokens` what it costs, `.trimmed`
/// whether anything was cut, `.boundary` the kind of place it was cut at.
#[pyclass(name = "Trimmed", module = "ctxbudget", frozen)]
#[derive(Debug)]
pub struct PyTrimmed {
    /// The result: the kept part (with the elision marker between head and tail for
    /// `keep="both"`).
    #[pyo3(get)]
    text: String,
    /// What `text` costs under the counter.
    #[pyo3(get)]
    tokens: usize,
    /// The budget.
    #[pyo3(get)]
    budget: usize,
    /// Whether anything of the input was left out.
    #[pyo3(get)]
    trimmed: bool,
    /// `"paragraph"`, `"line"`, `"sentence"`, `"word"`, `"grapheme"` or `"char"`;
    /// `None` when nothing was cut.
    #[pyo3(get)]
    boundary: Option<&'static str>,
    /// Where the kept text (the head, for `keep="both"`) starts and ends in the input,
    /// in characters: `original[start:end]`.
    #[pyo3(get)]
    span: (usize, usize),
    original: Py<PyString>,
    counter: PyCounter,
}

#[pymethods]
impl PyTrimmed {
    /// What the input cost: counted when first asked for (trimming itself never
    /// counts the whole input), the GIL released.
    #[getter]
    fn original_tokens(&self, py: Python<'_>) -> PyResult<usize> {
        if !self.trimmed {
            return Ok(self.tokens);
        }
        let original = self.original.bind(py).to_cow()?.into_owned();
        let counter = &self.counter.inner;
        Ok(py.detach(|| counter.count(&original)))
    }

    /// Every field as a dict (`original_tokens` included, so counted).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("text", &self.text)?;
        dict.set_item("tokens", self.tokens)?;
        dict.set_item("original_tokens", self.original_tokens(py)?)?;
        dict.set_item("budget", self.budget)?;
        dict.set_item("trimmed", self.trimmed)?;
        dict.set_item("boundary", self.boundary)?;
        dict.set_item("span", self.span)?;
        Ok(dict)
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!(
            "Trimmed(tokens={}, budget={}, trimmed={}, boundary={:?})",
            self.tokens, self.budget, self.trimmed, self.boundary
        )
    }
}

fn keep_arg(keep: &str) -> PyResult<Keep> {
    match keep {
        "head" => Ok(Keep::Head),
        "tail" => Ok(Keep::Tail),
        "both" | "head_and_tail" => Ok(Keep::HeadAndTail),
        other => Err(PyValueError::new_err(format!(
            "keep={other:?}: use \"head\" (the beginning), \"tail\" (the end) or \"both\""
        ))),
    }
}

fn min_fill_arg(min_fill: f64) -> PyResult<f64> {
    if (0.0..=1.0).contains(&min_fill) {
        Ok(min_fill)
    } else {
        Err(PyValueError::new_err(format!(
            "min_fill={min_fill}: give a share of the budget from 0.0 to 1.0 (default 0.8)"
        )))
    }
}

/// Character offset of byte offset `byte` in `text`.
fn char_offset(text: &str, byte: usize) -> usize {
    text.get(..byte).map_or(0, |prefix| prefix.chars().count())
}

/// Cuts `text` to at most `tokens` tokens at the strongest boundary (paragraph, line,
/// sentence, word) that keeps at least `min_fill` of what fits, keeping the beginning
/// (`keep="head"`), the end (`"tail"`) or both ends (`"both"`, the middle replaced by
/// `elision`). The counter is `model=`, `encoding=`, `tokenizer=` or `counter=`'s
/// (default `o200k_base`).
///
/// >>> t = ctxbudget.trim("One sentence. Another one.", 4, counter=ctxbudget.Counter.chars())
/// >>> t.text, t.tokens, t.trimmed, t.boundary
/// ('One sentence.', 4, True, 'sentence')
#[pyfunction]
#[pyo3(signature = (text, tokens, *, keep="head", model=None, encoding=None, tokenizer=None, counter=None, min_fill=TrimOptions::DEFAULT_MIN_FILL, elision=None))]
#[allow(clippy::too_many_arguments)]
pub fn trim(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    tokens: usize,
    keep: &str,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    counter: Option<PyCounter>,
    min_fill: f64,
    elision: Option<String>,
) -> PyResult<PyTrimmed> {
    let counter = choose_counter(py, model, encoding, tokenizer, counter)?;
    let mut options = TrimOptions::new()
        .keep(keep_arg(keep)?)
        .with_min_fill(min_fill_arg(min_fill)?);
    if let Some(elision) = elision {
        options = options.with_elision(elision);
    }
    let input = text.to_cow()?.into_owned();
    let shared = &counter.inner;
    let (result, span) = py.detach(|| {
        let trimmed = trim_with(&input, tokens, shared, &options);
        let span = (
            char_offset(&input, trimmed.kept_range.start),
            char_offset(&input, trimmed.kept_range.end),
        );
        let out = (
            trimmed.text().into_owned(),
            trimmed.tokens,
            trimmed.cut,
            trimmed.boundary.map(Boundary::name),
        );
        (out, span)
    });
    let (text_out, tokens_out, cut, boundary) = result;
    Ok(PyTrimmed {
        text: text_out,
        tokens: tokens_out,
        budget: tokens,
        trimmed: cut,
        boundary,
        span,
        original: text.clone().unbind(),
        counter,
    })
}

/// A Markdown text cut at a section boundary, with a note that says what was left out
/// and how to read it; the two together within the budget.
#[pyclass(name = "Disclosed", module = "ctxbudget", frozen)]
#[derive(Debug)]
pub struct PyDisclosed {
    /// The text to send: the kept lines, then the note (when lines were left out).
    #[pyo3(get)]
    text: String,
    /// The kept lines, a prefix of the input.
    #[pyo3(get)]
    rendered: String,
    /// The note, `""` when every line is shown.
    #[pyo3(get)]
    trailer: String,
    /// How many lines are shown.
    #[pyo3(get)]
    shown: usize,
    /// How many lines the input has.
    #[pyo3(get)]
    total: usize,
    /// Whether lines were left out.
    #[pyo3(get)]
    truncated: bool,
    /// What `text` costs under the counter.
    #[pyo3(get)]
    tokens: usize,
}

#[pymethods]
impl PyDisclosed {
    /// Every field as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("text", &self.text)?;
        dict.set_item("rendered", &self.rendered)?;
        dict.set_item("trailer", &self.trailer)?;
        dict.set_item("shown", self.shown)?;
        dict.set_item("total", self.total)?;
        dict.set_item("truncated", self.truncated)?;
        dict.set_item("tokens", self.tokens)?;
        Ok(dict)
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!(
            "Disclosed(shown={}, total={}, tokens={})",
            self.shown, self.total, self.tokens
        )
    }
}

/// Keeps the leading lines of a Markdown text up to a section boundary and adds a note
/// (`<truncated: showing 3 of 9 lines; full text: read INSTALL.md>`), the two within
/// `tokens`. `recovery` says how to read the rest; `unit` names what is counted.
///
/// Raises `TrimError` when not even the note fits (the message gives the least budget
/// that works) or `recovery` is blank.
///
/// >>> doc = "# Install\nRun the installer.\n\n# Use\nCall it.\n" * 20
/// >>> out = ctxbudget.disclose(doc, 30, recovery="read INSTALL.md")
/// >>> out.truncated, out.tokens <= 30
/// (True, True)
#[pyfunction]
#[pyo3(signature = (markdown, tokens, *, recovery, unit="lines", model=None, encoding=None, tokenizer=None, counter=None))]
#[allow(clippy::too_many_arguments)]
pub fn disclose(
    py: Python<'_>,
    markdown: &str,
    tokens: usize,
    recovery: &str,
    unit: &str,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    counter: Option<PyCounter>,
) -> PyResult<PyDisclosed> {
    let counter = choose_counter(py, model, encoding, tokenizer, counter)?;
    let shared = &counter.inner;
    py.detach(|| {
        disclose_within(markdown, tokens, shared, unit, recovery).map(|out| PyDisclosed {
            text: out.text(),
            rendered: out.rendered.to_owned(),
            trailer: out.trailer,
            shown: out.shown,
            total: out.total,
            truncated: out.truncated,
            tokens: out.tokens,
        })
    })
    .map_err(|e| TrimError::new_err(e.to_string()))
}

/// The chunks `select` kept: `.text` joined, `.chunks` each kept chunk (its index in
/// the input, text, score, tokens and the boundary it was cut at, if it was).
#[pyclass(name = "Selection", module = "ctxbudget", frozen)]
#[derive(Debug)]
pub struct PySelection {
    /// The kept chunks joined with the separator (and the marker after a cut one).
    #[pyo3(get)]
    text: String,
    /// What `text` costs under the counter.
    #[pyo3(get)]
    tokens: usize,
    /// The budget.
    #[pyo3(get)]
    budget: usize,
    /// The kept chunks, best first: `(index, text, score, tokens, cut)`.
    chunks: Vec<(usize, String, f64, usize, Option<&'static str>)>,
    /// The indices of the chunks left out, in input order.
    #[pyo3(get)]
    dropped: Vec<usize>,
}

#[pymethods]
impl PySelection {
    /// The kept chunks as dicts: `index`, `text`, `score`, `tokens`, `cut` (the
    /// boundary of a cut chunk, else `None`).
    #[getter]
    fn chunks<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.chunks
            .iter()
            .map(|(index, text, score, tokens, cut)| {
                let dict = PyDict::new(py);
                dict.set_item("index", index)?;
                dict.set_item("text", text)?;
                dict.set_item("score", score)?;
                dict.set_item("tokens", tokens)?;
                dict.set_item("cut", cut)?;
                Ok(dict)
            })
            .collect()
    }

    /// Every field as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("text", &self.text)?;
        dict.set_item("tokens", self.tokens)?;
        dict.set_item("budget", self.budget)?;
        dict.set_item("chunks", self.chunks(py)?)?;
        dict.set_item("dropped", &self.dropped)?;
        Ok(dict)
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!(
            "Selection(chunks={}, tokens={}, budget={})",
            self.chunks.len(),
            self.tokens,
            self.budget
        )
    }
}

/// Keeps the highest-scored chunks that fit `tokens`, and a cut of the next one when
/// at least `min_partial` tokens of it fit, followed by `marker`; the chunks are joined
/// with `separator`, and the joined text is within the budget.
///
/// >>> words = ctxbudget.Counter.chars(5)
/// >>> s = ctxbudget.select(["a low one", "the best", "good"], [0.1, 0.9, 0.5], 3, counter=words)
/// >>> s.text, s.dropped
/// ('the best\n\ngood', [0])
#[pyfunction]
#[pyo3(name = "select", signature = (chunks, scores, tokens, *, separator=None, marker=None, min_partial=None, keep_scanning=false, model=None, encoding=None, tokenizer=None, counter=None))]
#[allow(clippy::too_many_arguments)]
pub fn select_chunks(
    py: Python<'_>,
    chunks: Vec<String>,
    scores: Vec<f64>,
    tokens: usize,
    separator: Option<String>,
    marker: Option<String>,
    min_partial: Option<usize>,
    keep_scanning: bool,
    model: Option<&str>,
    encoding: Option<&str>,
    tokenizer: Option<PathBuf>,
    counter: Option<PyCounter>,
) -> PyResult<PySelection> {
    if chunks.len() != scores.len() {
        return Err(PyValueError::new_err(format!(
            "{} chunks but {} scores: give one score per chunk",
            chunks.len(),
            scores.len()
        )));
    }
    if scores.iter().any(|s| s.is_nan()) {
        return Err(PyValueError::new_err(
            "a score is NaN: give every chunk a number (higher is better)",
        ));
    }
    let counter = choose_counter(py, model, encoding, tokenizer, counter)?;
    let mut options = SelectOptions::new().with_keep_scanning(keep_scanning);
    if let Some(separator) = separator {
        options = options.with_separator(separator);
    }
    if let Some(marker) = marker {
        options = options.with_marker(marker);
    }
    if let Some(min_partial) = min_partial {
        options = options.with_min_partial(min_partial);
    }
    let ranked: Vec<(String, f64)> = chunks.into_iter().zip(scores).collect();
    let shared = &counter.inner;
    Ok(py.detach(|| {
        let selection = select(&ranked, tokens, shared, &options);
        PySelection {
            text: selection.text().into_owned(),
            tokens: selection.tokens,
            budget: selection.budget,
            chunks: selection
                .chunks
                .iter()
                .map(|c| {
                    (
                        c.index,
                        c.text.to_owned(),
                        c.score,
                        c.tokens,
                        c.cut.map(Boundary::name),
                    )
                })
                .collect(),
            dropped: selection.dropped(),
        }
    }))
}
