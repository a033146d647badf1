//! From a context's declared layers and the options of one assembly to the rows the
//! engine fits: each layer's reservation in the window chosen, the limit, the output
//! reservation, and for a messages prompt where each layer goes.

use super::content::LayerContent;
use super::options::{AssembleOptions, LayerInput, LayerRole};
use super::policy::{AssembleError, LayerPolicy};
use crate::budget::context::term;
use crate::budget::{BudgetError, ContextBudget, ContextUsage, Reservation};

/// One layer as the engine fits it.
pub(super) struct Row<'a> {
    pub name: &'a str,
    /// What it reserves in the window assembled for.
    pub reservation: usize,
    pub content: &'a dyn LayerContent,
    pub policy: LayerPolicy,
    pub grow: Option<u32>,
    /// Where it goes in a messages prompt; `None` for a string prompt.
    pub role: Option<LayerRole>,
}

/// The rows, and the window they are fitted in.
pub(super) struct Plan<'a> {
    pub rows: Vec<Row<'a>>,
    /// `window - output`: what the prompt may use.
    pub limit: usize,
    pub output: usize,
}

/// A context's declared layers: its own window, each content layer's reservation, and
/// its output reservation.
pub(crate) struct Declared<'a> {
    /// The declared window.
    pub total: usize,
    /// The content layers in declaration order: name, reservation, and the
    /// reservation at `total`.
    pub layers: Vec<(&'a str, Reservation, usize)>,
    /// The output reservation: its name (to record it in a usage tracker), what it
    /// reserves and that at `total`.
    pub output: Option<(&'a str, Reservation, usize)>,
}

/// An empty layer, for a declared layer given no content.
const EMPTY: &&str = &"";

impl<'a> Declared<'a> {
    /// The layers of a runtime budget: every layer but `output`, which is the
    /// output reservation.
    pub(crate) fn of_budget(budget: &'a ContextBudget) -> Self {
        let mut layers = Vec::with_capacity(budget.len());
        let mut output = None;
        for ((name, reservation), (_, tokens)) in budget.reservations().zip(budget.layers()) {
            if name == OUTPUT {
                output = Some((name, reservation, tokens));
            } else {
                layers.push((name, reservation, tokens));
            }
        }
        Declared {
            total: budget.total(),
            layers,
            output,
        }
    }

    /// The inputs of a runtime assembly in declaration order, matched by name;
    /// layers given no input are empty.
    ///
    /// # Errors
    ///
    /// An input whose name the budget does not declare, one for the output
    /// reservation, or two for one layer.
    pub(crate) fn match_inputs(
        &self,
        inputs: &[LayerInput<'a>],
    ) -> Result<Vec<LayerInput<'a>>, AssembleError> {
        let mut matched: Vec<Option<LayerInput<'a>>> = vec![None; self.layers.len()];
        for input in inputs {
            let name = input.name();
            if name == OUTPUT && self.output.is_some() {
                return Err(invalid(
                    name,
                    "it is the output reservation, which has no content; give the content \
                     to another layer",
                ));
            }
            let Some(index) = self.layers.iter().position(|(n, _, _)| *n == name) else {
                return Err(BudgetError::unknown_layer(
                    name,
                    self.layers.iter().map(|(n, _, _)| *n),
                )
                .into());
            };
            if matched[index].replace(input.clone()).is_some() {
                return Err(invalid(
                    name,
                    "it was given twice; give each layer one `LayerInput`",
                ));
            }
        }
        Ok(matched
            .into_iter()
            .zip(&self.layers)
            .map(|(input, (name, _, _))| input.unwrap_or_else(|| LayerInput::new(name, EMPTY)))
            .collect())
    }

    /// The rows for `inputs` (one per declared layer, in order) in the window
    /// `options` asks for, placed for a messages prompt when `messages`.
    ///
    /// # Errors
    ///
    /// [`AssembleError::WindowTooSmall`] when the reservations and the output
    /// reservation do not fit the window asked for; [`AssembleError::InvalidLayer`]
    /// for a layer given the history role whose content is not a chat history.
    pub(super) fn plan(
        &self,
        inputs: &[LayerInput<'a>],
        options: &AssembleOptions,
        messages: bool,
    ) -> Result<Plan<'a>, AssembleError> {
        let n = inputs.len().min(self.layers.len());
        let (reservations, limit, output) = match options.window() {
            None => {
                let output = self.output.map_or(0, |(_, _, tokens)| tokens);
                let reservations: Vec<usize> =
                    self.layers[..n].iter().map(|(_, _, t)| *t).collect();
                (reservations, self.total.saturating_sub(output), output)
            }
            Some((window, output)) => {
                let reservations: Vec<usize> =
                    self.layers[..n].iter().map(|(_, r, _)| r.at(window)).collect();
                let reserved = reservations
                    .iter()
                    .fold(0usize, |sum, t| sum.saturating_add(*t));
                let needed = reserved.saturating_add(output);
                if needed > window {
                    return Err(self.too_small(window, output, &reservations));
                }
                (reservations, window - output, output)
            }
        };
        let mut rows = Vec::with_capacity(n);
        for (i, (input, reservation)) in inputs.iter().zip(reservations).enumerate() {
            let content = input.content();
            let role = if messages {
                Some(role_of(input, i + 1 == n)?)
            } else {
                None
            };
            rows.push(Row {
                name: self.layers[i].0,
                reservation,
                content,
                policy: input
                    .policy()
                    .cloned()
                    .unwrap_or_else(|| content.default_policy()),
                grow: input.grow(),
                role,
            });
        }
        Ok(Plan {
            rows,
            limit,
            output,
        })
    }

    #[cold]
    fn too_small(&self, window: usize, output: usize, reservations: &[usize]) -> AssembleError {
        let reserved = reservations
            .iter()
            .fold(0usize, |sum, t| sum.saturating_add(*t));
        let mut terms: Vec<String> = self
            .layers
            .iter()
            .zip(reservations)
            .take(16)
            .map(|((name, r, _), tokens)| term(name, *tokens, r.share()))
            .collect();
        if let Some(more) = reservations.len().checked_sub(16).filter(|&m| m > 0) {
            terms.push(format!("{more} more layers"));
        }
        AssembleError::WindowTooSmall {
            window,
            output,
            reserved,
            over: reserved.saturating_add(output).saturating_sub(window),
            terms: terms.join(" + "),
        }
    }

    /// A usage tracker of the budget a plan was fitted in: each row's reservation,
    /// and the output reservation.
    pub(super) fn usage(&self, plan: &Plan<'a>) -> ContextUsage {
        let window = plan.limit.saturating_add(plan.output);
        let output_name = match self.output {
            Some((name, _, _)) => Some(name),
            None if plan.output > 0 => Some(
                if plan.rows.iter().any(|r| r.name == OUTPUT) {
                    "(output)"
                } else {
                    OUTPUT
                },
            ),
            None => None,
        };
        let layers = plan
            .rows
            .iter()
            .map(|r| (r.name, r.reservation))
            .chain(output_name.map(|name| (name, plan.output)));
        // The plan fits the window, so this budget is valid; were it not, the usage
        // would be of a budget without layers rather than a panic.
        let budget = ContextBudget::new(window, layers)
            .unwrap_or_else(|_| ContextBudget::without_layers(window));
        budget.usage()
    }
}

/// The name of the output reservation in a runtime budget.
const OUTPUT: &str = "output";

fn invalid(layer: &str, problem: &str) -> AssembleError {
    AssembleError::InvalidLayer {
        layer: layer.to_owned(),
        problem: problem.to_owned(),
    }
}

/// Where a layer goes in a messages prompt: its role, or by its content and
/// position.
fn role_of(input: &LayerInput<'_>, last: bool) -> Result<LayerRole, AssembleError> {
    let chat = input.content().is_chat_history();
    match input.role() {
        Some(LayerRole::History) if !chat => Err(invalid(
            input.name(),
            "only a chat history can take the history role; place it in the system or \
             the user message instead",
        )),
        Some(role) => Ok(role),
        None if chat => Ok(LayerRole::History),
        None if last => Ok(LayerRole::User),
        None => Ok(LayerRole::System),
    }
}
