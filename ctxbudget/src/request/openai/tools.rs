//! Tool calls in messages ([`ToolCall`], [`FunctionCall`], [`CustomCall`]), tool
//! definitions in the body ([`Tool`], [`FunctionDefinition`]), and what definitions
//! cost ([`ToolFormula`]).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::count::TokenCounter;
use crate::request::json::compact_json;
use crate::request::lossless::{RawJson, wire_struct};
use crate::request::{Assumption, RequestCost};

wire_struct! {
    /// One of an assistant message's `tool_calls`:
    /// `{"id": "call_1", "type": "function", "function": {"name": "…", "arguments": "…"}}`.
    pub struct ToolCall("a tool call object") {
        /// The call id, which the `tool` message answering it repeats as its
        /// `tool_call_id`.
        id: String = "id",
        /// `"function"`, or `"custom"` for a custom tool.
        kind: String = "type",
        /// The function called, for `"type": "function"`.
        function: FunctionCall = "function",
        /// The custom tool called, for `"type": "custom"`.
        custom: CustomCall = "custom",
    }
}

impl ToolCall {
    /// A function call with its id, the function's name and its arguments.
    pub fn function(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: Some(id.into()),
            kind: Some("function".to_owned()),
            function: Some(FunctionCall::new(name, arguments)),
            ..Self::default()
        }
    }

    /// The name of the tool called: the function's or the custom tool's.
    pub fn name(&self) -> Option<&str> {
        match (&self.function, &self.custom) {
            (Some(function), _) if function.name.is_some() => function.name.as_deref(),
            (_, Some(custom)) => custom.name.as_deref(),
            _ => None,
        }
    }

    /// The arguments: the function's `arguments` or the custom tool's `input`.
    pub fn arguments(&self) -> Option<&str> {
        match (&self.function, &self.custom) {
            (Some(function), _) if function.arguments.is_some() => function.arguments.as_deref(),
            (_, Some(custom)) => custom.input.as_deref(),
            _ => None,
        }
    }
}

wire_struct! {
    /// A function call: the `function` of a tool call, or an assistant message's
    /// legacy `function_call`.
    pub struct FunctionCall("a function call object with `name` and `arguments`") {
        /// The function's name.
        name: String = "name",
        /// The arguments, as the model wrote them (usually JSON).
        arguments: String = "arguments",
    }
}

impl FunctionCall {
    /// A call of `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Self {
            name: Some(name.into()),
            arguments: Some(arguments.into()),
            ..Self::default()
        }
    }
}

wire_struct! {
    /// The `custom` of a call of a custom tool: its name and free-form input.
    pub struct CustomCall("a custom tool call object with `name` and `input`") {
        /// The tool's name.
        name: String = "name",
        /// The input, as the model wrote it.
        input: String = "input",
    }
}

wire_struct! {
    /// One of the request's `tools`: `{"type": "function", "function": {…}}`.
    pub struct Tool("a tool object") {
        /// `"function"`, or another tool type (kept whole, see [`ToolFormula`]).
        kind: String = "type",
        /// The function, for `"type": "function"`.
        function: FunctionDefinition = "function",
    }
}

impl Tool {
    /// A function tool.
    pub fn function(function: FunctionDefinition) -> Self {
        Self {
            kind: Some("function".to_owned()),
            function: Some(function),
            ..Self::default()
        }
    }
}

wire_struct! {
    /// A function definition: the `function` of a tool, or an entry of the legacy
    /// `functions`.
    pub struct FunctionDefinition("a function definition object") {
        /// The function's name.
        name: String = "name",
        /// What it does.
        description: String = "description",
        /// Its parameters, a JSON schema, kept as it was.
        parameters: RawJson = "parameters",
    }
}

impl FunctionDefinition {
    /// A function with a name, a description and a JSON schema of its parameters.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: RawJson,
    ) -> Self {
        Self {
            name: Some(name.into()),
            description: Some(description.into()),
            parameters: Some(parameters),
            ..Self::default()
        }
    }
}

/// What tool definitions cost: the formula the OpenAI cookbook publishes ("How to
/// count tokens with tiktoken", `num_tokens_for_tools`), with its constants for a
/// model family.
///
/// For each function, `func_init`, plus the tokens of `name:description`; when it has
/// parameters, `prop_init`, and for each top-level property `prop_key` plus the
/// tokens of `key:type:description` (and, when it has an `enum`, `enum_init` plus,
/// per item, `enum_item` and the item's tokens); and `func_end` once for the whole
/// list. A description loses one final `.`.
///
/// The cookbook checked its figures against the API for gpt-4o and gpt-4o-mini
/// ([`gpt_4o`](ToolFormula::gpt_4o)) and gpt-3.5-turbo and gpt-4
/// ([`gpt_4`](ToolFormula::gpt_4)). ctxbudget extends it, as estimates its reports
/// name:
///
/// - Other models are counted with the gpt-4o figures.
/// - What the formula leaves out of a property (nested `properties`, `items`,
///   `anyOf`, `$ref`, ... — any key but `type`, `description` and `enum`) is counted
///   as its JSON text.
/// - A tool whose type is not `function` is counted as `func_init` plus its JSON
///   text.
///
/// ```
/// use ctxbudget::Tiktoken;
/// use ctxbudget::request::openai::{ToolFormula, ChatRequest};
///
/// // The cookbook's example: one weather function.
/// let request = ChatRequest::from_json(r#"{
///   "model": "gpt-4o",
///   "messages": [],
///   "tools": [{"type": "function", "function": {
///     "name": "get_current_weather",
///     "description": "Get the current weather in a given location",
///     "parameters": {"type": "object", "properties": {
///       "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
///       "unit": {"type": "string", "description": "The unit of temperature to return",
///                "enum": ["celsius", "fahrenheit"]}},
///     "required": ["location"]}}}]
/// }"#)?;
/// let cost = ToolFormula::gpt_4o().count_tools(&Tiktoken::o200k_base(), request.tools.as_deref().unwrap_or_default());
/// // The cookbook prints 101 for gpt-4o: these 68 and its two messages, 33.
/// assert_eq!(cost.tokens, 68);
/// assert!(cost.assumptions.is_empty());
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToolFormula {
    /// Added for each function.
    pub func_init: i64,
    /// Added for a function that has properties.
    pub prop_init: i64,
    /// Added for each property.
    pub prop_key: i64,
    /// Added for a property that has an `enum`.
    pub enum_init: i64,
    /// Added for each `enum` item, with the item's tokens.
    pub enum_item: i64,
    /// Added once when there is any function.
    pub func_end: i64,
}

/// What counting the definitions assumed, beyond the published formula.
const NESTED_SCHEMA: &str = "tool parameters: what the OpenAI cookbook's formula leaves out (nested properties, items, anyOf, $ref, ...) is counted as its JSON text";
const UNREAD_SCHEMA: &str = "tool parameters: a property nested deeper than 128 levels or with a number out of f64 range is counted as its JSON text";
const OTHER_TOOL: &str = "tools of a type other than `function` are counted as their JSON text and the per-function tokens";
const OTHER_MODEL: &str = "tool definitions: counted with the OpenAI cookbook's figures for gpt-4o, which OpenAI has not published for this model";

impl ToolFormula {
    /// The cookbook's figures for gpt-4o and gpt-4o-mini: 7, 3, 3, −3, 3, 12.
    pub const fn gpt_4o() -> Self {
        Self {
            func_init: 7,
            prop_init: 3,
            prop_key: 3,
            enum_init: -3,
            enum_item: 3,
            func_end: 12,
        }
    }

    /// The cookbook's figures for gpt-3.5-turbo and gpt-4: 10, 3, 3, −3, 3, 12.
    pub const fn gpt_4() -> Self {
        Self {
            func_init: 10,
            ..Self::gpt_4o()
        }
    }

    /// The figures for a model: [`gpt_4`](ToolFormula::gpt_4) for `gpt-3.5-turbo*`,
    /// `gpt-4` and `gpt-4-*` (dated, `-turbo`, `-32k`; fine-tuned `ft:` names too),
    /// [`gpt_4o`](ToolFormula::gpt_4o) for every other name.
    ///
    /// ```
    /// use ctxbudget::request::openai::ToolFormula;
    ///
    /// assert_eq!(ToolFormula::for_model("gpt-4-0613"), ToolFormula::gpt_4());
    /// assert_eq!(ToolFormula::for_model("ft:gpt-3.5-turbo:acme::1"), ToolFormula::gpt_4());
    /// assert_eq!(ToolFormula::for_model("gpt-4o-mini"), ToolFormula::gpt_4o());
    /// assert_eq!(ToolFormula::for_model("gpt-4.1"), ToolFormula::gpt_4o());
    /// ```
    pub fn for_model(model: &str) -> Self {
        if is_gpt_4_family(model) {
            Self::gpt_4()
        } else {
            Self::gpt_4o()
        }
    }

    /// Whether the cookbook checked its figures on `model` (gpt-4o, gpt-4o-mini,
    /// gpt-3.5-turbo, gpt-4 and their dated names).
    pub fn is_published_for(model: &str) -> bool {
        let model = model.strip_prefix("ft:").unwrap_or(model);
        is_gpt_4_family(model)
            || model
                .strip_prefix("gpt-4o")
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
    }

    /// What the request's `tools` cost: every function by the formula, and
    /// `func_end` once when there is any tool.
    pub fn count_tools<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        tools: &[Tool],
    ) -> RequestCost {
        let mut sum = Sum::default();
        for tool in tools {
            match (&tool.kind, &tool.function) {
                (Some(kind), Some(function)) if kind == "function" => {
                    self.add_function(&mut sum, counter, function);
                }
                _ => {
                    sum.add(self.func_init);
                    sum.add_count(counter, &json_text(tool));
                    sum.assume(OTHER_TOOL);
                }
            }
        }
        if !tools.is_empty() {
            sum.add(self.func_end);
        }
        sum.finish()
    }

    /// What the legacy `functions` cost, by the same formula.
    pub fn count_functions<C: TokenCounter + ?Sized>(
        &self,
        counter: &C,
        functions: &[FunctionDefinition],
    ) -> RequestCost {
        let mut sum = Sum::default();
        for function in functions {
            self.add_function(&mut sum, counter, function);
        }
        if !functions.is_empty() {
            sum.add(self.func_end);
        }
        sum.finish()
    }

    fn add_function<C: TokenCounter + ?Sized>(
        &self,
        sum: &mut Sum,
        counter: &C,
        function: &FunctionDefinition,
    ) {
        sum.add(self.func_init);
        let name = function.name.as_deref().unwrap_or_default();
        let description = strip_period(function.description.as_deref().unwrap_or_default());
        sum.add_count(counter, &format!("{name}:{description}"));
        let Some(parameters) = function.parameters.as_ref() else {
            return;
        };
        // The top two levels are read without a tree, so that a property nested too
        // deep or with a number out of `f64` range costs its JSON text, not nothing.
        let Ok(schema) = serde_json::from_str::<BTreeMap<String, RawJson>>(parameters.get()) else {
            return;
        };
        let Some(Ok(properties)) = schema
            .get("properties")
            .map(|p| serde_json::from_str::<BTreeMap<String, RawJson>>(p.get()))
        else {
            return;
        };
        if properties.is_empty() {
            return;
        }
        sum.add(self.prop_init);
        for (key, property) in &properties {
            sum.add(self.prop_key);
            match property.to_value() {
                Ok(Value::Object(property)) => self.add_property(sum, counter, key, &property),
                Ok(_) => sum.add_count(counter, key),
                Err(_) => {
                    sum.add_count(counter, &format!("{key}:{}", compact_json(property.get())));
                    sum.assume(UNREAD_SCHEMA);
                }
            }
        }
    }

    fn add_property<C: TokenCounter + ?Sized>(
        &self,
        sum: &mut Sum,
        counter: &C,
        key: &str,
        property: &serde_json::Map<String, Value>,
    ) {
        if let Some(items) = property.get("enum") {
            sum.add(self.enum_init);
            for item in items.as_array().map(Vec::as_slice).unwrap_or_default() {
                sum.add(self.enum_item);
                match item {
                    Value::String(item) => sum.add_count(counter, item),
                    other => sum.add_count(counter, &other.to_string()),
                }
            }
        }
        let kind = match property.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let description = match property.get("description") {
            Some(Value::String(description)) => strip_period(description),
            _ => "",
        };
        sum.add_count(counter, &format!("{key}:{kind}:{description}"));
        for (nested, value) in property {
            if !matches!(nested.as_str(), "type" | "description" | "enum") {
                sum.add_count(counter, &format!("{nested}:{value}"));
                sum.assume(NESTED_SCHEMA);
            }
        }
    }
}

fn is_gpt_4_family(model: &str) -> bool {
    let model = model.strip_prefix("ft:").unwrap_or(model);
    model.starts_with("gpt-3.5")
        || model
            .strip_prefix("gpt-4")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('-') || rest.starts_with(':'))
}

/// The assumption a count of tool definitions rests on when the cookbook did not
/// check its figures on `model`.
pub(super) fn model_assumption(model: Option<&str>) -> Option<Assumption> {
    if model.is_some_and(ToolFormula::is_published_for) {
        None
    } else {
        Some(Assumption::UnpublishedRule {
            message: None,
            what: OTHER_MODEL,
        })
    }
}

fn strip_period(text: &str) -> &str {
    text.strip_suffix('.').unwrap_or(text)
}

fn json_text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A signed running total (the formula's `enum_init` is negative), and what it
/// assumed.
#[derive(Default)]
struct Sum {
    tokens: i64,
    assumptions: Vec<Assumption>,
}

impl Sum {
    fn add(&mut self, tokens: i64) {
        self.tokens = self.tokens.saturating_add(tokens);
    }

    fn add_count<C: TokenCounter + ?Sized>(&mut self, counter: &C, text: &str) {
        self.add(i64::try_from(counter.count(text)).unwrap_or(i64::MAX));
    }

    fn assume(&mut self, what: &'static str) {
        let assumption = Assumption::UnpublishedRule {
            message: None,
            what,
        };
        if !self.assumptions.contains(&assumption) {
            self.assumptions.push(assumption);
        }
    }

    fn finish(self) -> RequestCost {
        RequestCost {
            tokens: usize::try_from(self.tokens.max(0)).unwrap_or(usize::MAX),
            assumptions: self.assumptions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> usize {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .count()
    }

    fn tool(json: &str) -> Tool {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn the_formula_term_by_term() {
        let f = ToolFormula::gpt_4o();
        let plain =
            tool(r#"{"type":"function","function":{"name":"ping","description":"Check."}}"#);
        // func_init 7 + "ping:Check" (2 words) + func_end 12.
        assert_eq!(
            f.count_tools(&words, std::slice::from_ref(&plain)).tokens,
            7 + 2 + 12
        );
        let with_enum = tool(
            r#"{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{
                "a":{"type":"string","description":"An a.","enum":["x","y"]},
                "b":{"type":"integer"}}}}}"#,
        );
        // 7 + "f:" 1 + prop_init 3 + (3 + 2 * (3 + 1) + "a:string:An a" 4 - 3)
        //   + (3 + "b:integer:" 2) + 12.
        assert_eq!(
            f.count_tools(&words, &[with_enum]).tokens,
            7 + 1 + 3 + (3 + 8 + 4 - 3) + (3 + 2) + 12
        );
        // func_end once for the list.
        assert_eq!(
            f.count_tools(&words, &[plain.clone(), plain.clone()])
                .tokens,
            2 * (7 + 2) + 12
        );
        assert_eq!(f.count_tools(&words, &[]).tokens, 0);
        assert_eq!(
            ToolFormula::gpt_4().count_tools(&words, &[plain]).tokens,
            10 + 2 + 12
        );
    }

    #[test]
    fn what_the_formula_leaves_out_is_counted_and_reported() {
        let nested = tool(
            r#"{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{
                "paths":{"type":"array","items":{"type":"string"}}}}}}"#,
        );
        let cost = ToolFormula::gpt_4o().count_tools(&words, &[nested]);
        // "items:{"type":"string"}" is 3 words more than the formula counts.
        assert_eq!(cost.tokens, 7 + 1 + 3 + 3 + 2 + 3 + 12);
        assert_eq!(cost.assumptions.len(), 1);
        let custom = tool(r#"{"type":"custom","custom":{"name":"grep"}}"#);
        let cost = ToolFormula::gpt_4o().count_tools(&words, &[custom.clone(), custom]);
        assert!(cost.tokens > 2 * 7 + 12);
        assert_eq!(cost.assumptions.len(), 1, "reported once");
    }

    #[test]
    fn a_negative_total_is_zero() {
        let f = ToolFormula {
            func_init: -100,
            ..ToolFormula::gpt_4o()
        };
        let plain = tool(r#"{"type":"function","function":{"name":"f"}}"#);
        assert_eq!(f.count_tools(&words, &[plain]).tokens, 0);
    }

    #[test]
    fn model_families() {
        for model in [
            "gpt-4",
            "gpt-4-turbo",
            "gpt-4-32k-0613",
            "gpt-3.5-turbo-0125",
        ] {
            assert_eq!(
                ToolFormula::for_model(model),
                ToolFormula::gpt_4(),
                "{model}"
            );
            assert!(ToolFormula::is_published_for(model));
        }
        for model in [
            "gpt-4o",
            "gpt-4o-2024-08-06",
            "gpt-4o-mini",
            "ft:gpt-4o-mini:acme::x",
        ] {
            assert_eq!(
                ToolFormula::for_model(model),
                ToolFormula::gpt_4o(),
                "{model}"
            );
            assert!(ToolFormula::is_published_for(model), "{model}");
        }
        for model in ["gpt-4.1", "o3", "gpt-5", "gpt-4oo", ""] {
            assert_eq!(ToolFormula::for_model(model), ToolFormula::gpt_4o());
            assert!(!ToolFormula::is_published_for(model), "{model}");
        }
        assert!(model_assumption(None).is_some());
        assert!(model_assumption(Some("gpt-4o")).is_none());
    }
}
