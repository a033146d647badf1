//! `ctxbudget.Model`: a model of the catalogue, its window, limits, tokenizer and prices.

use ctxbudget::models::{Model, Price};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::counter::{PyCounter, lookup_model};

/// A model of the catalogue: window, output limit, tokenizer, API format and prices.
///
/// >>> m = ctxbudget.Model.lookup("gpt-4o-2024-08-06")
/// >>> m.name, m.window, m.provider
/// ('gpt-4o', 128000, 'openai')
#[pyclass(name = "Model", module = "ctxbudget", frozen)]
#[derive(Debug)]
pub struct PyModel {
    model: &'static Model,
    /// The name it was looked up by, which decides its API format (a Bedrock id
    /// takes Bedrock's own).
    looked_up: String,
}

fn per_million(price: Option<Price>) -> Option<f64> {
    price.map(Price::per_million)
}

#[pymethods]
impl PyModel {
    /// The model `name` names: dated snapshots, aliases, provider prefixes, Bedrock and
    /// Vertex ids find their model. Raises `ModelNotFoundError` (with the closest
    /// names) for an unknown one.
    #[staticmethod]
    fn lookup(name: &str) -> PyResult<Self> {
        Ok(PyModel {
            model: lookup_model(name)?,
            looked_up: name.to_owned(),
        })
    }

    /// The model's name in the catalogue.
    #[getter]
    fn name(&self) -> &str {
        self.model.name()
    }

    /// The provider: `"openai"`, `"anthropic"`, `"google"`, ...
    #[getter]
    fn provider(&self) -> &'static str {
        self.model.provider().as_str()
    }

    /// The context window in tokens, input and output together.
    #[getter]
    fn window(&self) -> usize {
        self.model.context_window()
    }

    /// The most output tokens one reply may have, if the model has its own limit.
    #[getter]
    fn max_output(&self) -> Option<usize> {
        self.model.max_output_tokens()
    }

    /// The output a fit reserves when a body sets no limit.
    #[getter]
    fn default_output(&self) -> usize {
        self.model.default_output()
    }

    /// The window less the default output: the input a prompt may use.
    #[getter]
    fn prompt_limit(&self) -> usize {
        self.model.prompt_limit()
    }

    /// How the model's tokens are counted, e.g. `"tiktoken o200k_base"`.
    #[getter]
    fn tokenizer(&self) -> String {
        self.model.tokenizer().to_string()
    }

    /// The request format of the API the name looked up reaches: `"openai-chat"`,
    /// `"anthropic-messages"`, `"gemini"`, `"openai-responses"` (models only the
    /// Responses API serves), `"bedrock-converse"` (a Bedrock id), `"mistral-chat"` or
    /// `"other"`.
    #[getter]
    fn api_format(&self) -> &'static str {
        self.model.api_for(&self.looked_up).as_str()
    }

    /// Other names that find this model.
    #[getter]
    fn aliases(&self) -> Vec<String> {
        self.model.aliases().to_vec()
    }

    /// US dollars per million tokens: `input`, `output`, `cached_input`, `cache_write`
    /// (`None` where the provider has no such price); `None` for a model without prices.
    #[getter]
    fn prices<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(prices) = self.model.prices() else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        dict.set_item("input", prices.input.per_million())?;
        dict.set_item("output", prices.output.per_million())?;
        dict.set_item("cached_input", per_million(prices.cached_input))?;
        dict.set_item("cache_write", per_million(prices.cache_write))?;
        Ok(Some(dict))
    }

    /// What `tokens` input tokens cost in US dollars, `cached` of them read from the
    /// prompt cache; `None` for a model without prices.
    #[pyo3(signature = (tokens, cached = 0))]
    fn input_cost(&self, tokens: usize, cached: usize) -> Option<f64> {
        self.model.input_cost(tokens, cached)
    }

    /// What `tokens` output tokens cost in US dollars after a prompt of `prompt_tokens`
    /// (long prompts cost more with some models); `None` for a model without prices.
    #[pyo3(signature = (tokens, prompt_tokens = 0))]
    fn output_cost(&self, tokens: usize, prompt_tokens: usize) -> Option<f64> {
        self.model.output_cost(tokens, prompt_tokens)
    }

    /// The counter of the model's tokenizer (as `Counter.for_model`).
    fn counter(&self, py: Python<'_>) -> PyResult<PyCounter> {
        let model = self.model;
        py.detach(|| PyCounter::of_model(model))
    }

    /// Every field as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("name", self.name())?;
        dict.set_item("provider", self.provider())?;
        dict.set_item("window", self.window())?;
        dict.set_item("max_output", self.max_output())?;
        dict.set_item("default_output", self.default_output())?;
        dict.set_item("tokenizer", self.tokenizer())?;
        dict.set_item("api_format", self.api_format())?;
        dict.set_item("aliases", self.aliases())?;
        dict.set_item("prices", self.prices(py)?)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!("Model({:?})", self.model.name())
    }
}
