//! The ways in to the engine: the derive's `assemble`, `assemble_with` and
//! `assemble_messages` (through `__private`), and the same three methods on a
//! runtime [`ContextBudget`].

use super::assembled::{Assembled, PromptMessages};
use super::engine::{Dyn, assemble_messages, assemble_text};
use super::options::{AssembleOptions, LayerInput};
use super::plan::Declared;
use super::policy::AssembleError;
use crate::budget::{
    ContextBudget, ContextLayers, ContextUsage, LayerSpec, Reservation, TypedUsage,
};
use crate::count::TokenCounter;

/// The separator when the context names none: a blank line.
pub(crate) const DEFAULT_SEPARATOR: &str = "\n\n";

/// The declared layers of a compile-time budget whose first `n` layers have content;
/// the layers after them are the output reservation.
fn declared<L: ContextLayers>(n: usize) -> Declared<'static> {
    let table: &'static [LayerSpec] = L::LAYERS;
    let n = n.min(table.len());
    let output = table[n..]
        .iter()
        .fold(0usize, |sum, l| sum.saturating_add(l.tokens()));
    Declared {
        total: L::TOTAL,
        layers: table[..n]
            .iter()
            .map(|l| (l.name(), l.reservation(), l.tokens()))
            .collect(),
        output: table
            .get(n)
            .map(|l| (l.name(), Reservation::Tokens(output), output)),
    }
}

/// The derive's `assemble(&counter)`: the declared window, a string prompt, the spend
/// recorded in the typed tracker.
///
/// # Errors
///
/// As the generated `assemble()`.
pub(crate) fn assemble_typed<'a, L, C>(
    inputs: &[LayerInput<'a>],
    separator: &str,
    counter: &C,
) -> Result<Assembled<'a, TypedUsage<L>>, AssembleError>
where
    L: ContextLayers,
    C: TokenCounter + ?Sized,
{
    let declared = declared::<L>(inputs.len());
    let plan = declared.plan(inputs, &AssembleOptions::new(), false)?;
    let assembled = assemble_text(plan, separator, &Dyn(counter))?;
    let mut usage = TypedUsage::<L>::new();
    for (index, layer) in assembled.layers.iter().enumerate() {
        usage.spend_index_up_to(index, layer.tokens(), layer.granted.max(layer.reservation))?;
    }
    Ok(assembled.map_usage(|()| usage))
}

/// The derive's `assemble_with` and `assemble_messages`, and a runtime budget's:
/// `inputs` (one per declared layer, in order) fitted as `options` says, as a string
/// prompt or as messages.
fn assemble_declared<'a, C, P>(
    declared: &Declared<'a>,
    inputs: &[LayerInput<'a>],
    separator: &str,
    counter: &C,
    options: &AssembleOptions,
    messages: bool,
    form: impl FnOnce(
        super::plan::Plan<'a>,
        &str,
        &dyn TokenCounter,
    ) -> Result<Assembled<'a, (), P>, AssembleError>,
) -> Result<Assembled<'a, ContextUsage, P>, AssembleError>
where
    C: TokenCounter + ?Sized,
{
    let separator = options.separator().unwrap_or(separator);
    let plan = declared.plan(inputs, options, messages)?;
    let mut usage = declared.usage(&plan);
    let assembled = form(plan, separator, &Dyn(counter))?;
    for (index, layer) in assembled.layers.iter().enumerate() {
        usage.spend_at_up_to(index, layer.tokens(), layer.granted.max(layer.reservation))?;
    }
    Ok(assembled.map_usage(|()| usage))
}

/// The derive's `assemble_with(&counter, &options)`.
///
/// # Errors
///
/// As [`ContextBudget::assemble_with`].
pub(crate) fn assemble_with<'a, L, C>(
    inputs: &[LayerInput<'a>],
    separator: &str,
    counter: &C,
    options: &AssembleOptions,
) -> Result<Assembled<'a, ContextUsage>, AssembleError>
where
    L: ContextLayers,
    C: TokenCounter + ?Sized,
{
    let declared = declared::<L>(inputs.len());
    assemble_declared(
        &declared,
        inputs,
        separator,
        counter,
        options,
        false,
        assemble_text,
    )
}

/// The derive's `assemble_messages(&counter, &options)`.
///
/// # Errors
///
/// As [`ContextBudget::assemble_messages`].
pub(crate) fn assemble_as_messages<'a, L, C>(
    inputs: &[LayerInput<'a>],
    separator: &str,
    counter: &C,
    options: &AssembleOptions,
) -> Result<Assembled<'a, ContextUsage, PromptMessages>, AssembleError>
where
    L: ContextLayers,
    C: TokenCounter + ?Sized,
{
    let declared = declared::<L>(inputs.len());
    let format = options.chat_format();
    assemble_declared(
        &declared,
        inputs,
        separator,
        counter,
        options,
        true,
        |plan, separator, counter| {
            assemble_messages(plan, separator, counter, format, options.edits())
        },
    )
}

/// Assembling a prompt from a budget known only at run time: the layers' content is
/// given by name, in [`LayerInput`]s.
///
/// The layer named `output` is the output reservation; every other layer is a
/// content layer, in the budget's declaration order. A layer given no input is
/// empty, and what it reserves goes to the growing layers.
impl ContextBudget {
    /// Assembles a string prompt from `layers` in this budget's window, as the derive's
    /// `assemble()` does: every layer fitted to its reservation under its policy,
    /// growing layers given what the others leave, the layers joined by a blank line,
    /// the prompt counted exactly and checked against `total - output`.
    ///
    /// ```
    /// use ctxbudget::assemble::{LayerInput, LayerPolicy};
    /// use ctxbudget::{CharEstimate, ContextBudget, Message};
    ///
    /// let budget = ContextBudget::from_json(
    ///     r#"{"total": 1000, "layers": {"system": 100, "history": {"share": 0.5}, "user": 100, "output": 200}}"#,
    /// )?;
    /// let history: Vec<Message> = (0..100)
    ///     .map(|i| Message::user(format!("message number {i} of a long conversation")))
    ///     .collect();
    /// let out = budget.assemble(
    ///     &[
    ///         LayerInput::new("system", &"Be brief.").with_policy(LayerPolicy::Never),
    ///         LayerInput::new("history", &history).with_grow(1),
    ///         LayerInput::new("user", &"What did I say first?"),
    ///     ],
    ///     &CharEstimate,
    /// )?;
    /// assert_eq!((out.limit, out.output), (800, 200));
    /// assert!(out.layer("history").unwrap().tokens() > 500); // grew past its 500
    /// assert!(out.tokens <= out.limit);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`assemble_with`](Self::assemble_with).
    pub fn assemble<'a, C: TokenCounter + ?Sized>(
        &'a self,
        layers: &[LayerInput<'a>],
        counter: &C,
    ) -> Result<Assembled<'a, ContextUsage>, AssembleError> {
        self.assemble_with(layers, counter, &AssembleOptions::new())
    }

    /// Assembles a string prompt from `layers` as `options` says: for a window chosen
    /// at run time, with layers that reserve a [`Share`](crate::budget::Share) of the
    /// window resolved at it.
    ///
    /// ```
    /// use ctxbudget::assemble::{AssembleOptions, LayerInput};
    /// use ctxbudget::{AssembleError, CharEstimate, ContextBudget};
    ///
    /// let budget = ContextBudget::from_json(
    ///     r#"{"total": 8192, "layers": {"system": 512, "docs": {"share": 0.5}, "output": 1024}}"#,
    /// )?;
    /// let docs = "A paragraph of the manual. ".repeat(10_000);
    /// let layers = [LayerInput::new("system", &"Answer from the docs."), LayerInput::new("docs", &docs)];
    ///
    /// let small = budget.assemble(&layers, &CharEstimate)?;
    /// let large = budget.assemble_with(&layers, &CharEstimate, &AssembleOptions::for_window(128_000, 4_096))?;
    /// assert_eq!(small.layer("docs").unwrap().reservation, 4_096);
    /// assert_eq!(large.layer("docs").unwrap().reservation, 64_000);
    /// assert_eq!(large.limit, 128_000 - 4_096);
    ///
    /// // A window too small for the fixed reservations says by how much.
    /// let err = budget.assemble_with(&layers, &CharEstimate, &AssembleOptions::for_window(1_000, 600)).unwrap_err();
    /// assert!(matches!(err, AssembleError::WindowTooSmall { over: 612, .. }), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// - [`AssembleError::WindowTooSmall`] when the window asked for is smaller than
    ///   the reservations and the output reservation;
    /// - [`AssembleError::Budget`] for a layer name the budget does not declare, and
    ///   [`AssembleError::InvalidLayer`] for content given to `output` or twice to one
    ///   layer;
    /// - the errors of fitting: [`AssembleError::LayerOverBudget`],
    ///   [`AssembleError::PinnedOverBudget`], [`AssembleError::PromptOverBudget`],
    ///   [`AssembleError::Layer`].
    pub fn assemble_with<'a, C: TokenCounter + ?Sized>(
        &'a self,
        layers: &[LayerInput<'a>],
        counter: &C,
        options: &AssembleOptions,
    ) -> Result<Assembled<'a, ContextUsage>, AssembleError> {
        let declared = Declared::of_budget(self);
        let inputs = declared.match_inputs(layers)?;
        assemble_declared(
            &declared,
            &inputs,
            DEFAULT_SEPARATOR,
            counter,
            options,
            false,
            assemble_text,
        )
    }

    /// Assembles `layers` as messages, as `options` says: the system layers' texts
    /// as the system message, the chat histories' kept messages, and the user layers'
    /// texts as the final user message, counted in the options' chat format (see
    /// [`PromptMessages`] and [`LayerRole`](super::LayerRole)).
    ///
    /// ```
    /// use ctxbudget::assemble::{AssembleOptions, LayerInput};
    /// use ctxbudget::{CharEstimate, ContextBudget, Message, chat::{ChatFormat, Role}};
    ///
    /// let budget = ContextBudget::new(2000, [("system", 100), ("history", 1000), ("user", 100), ("output", 500)])?;
    /// let history = vec![Message::user("hi"), Message::assistant("hello")];
    /// let out = budget.assemble_messages(
    ///     &[
    ///         LayerInput::new("system", &"Be brief."),
    ///         LayerInput::new("history", &history),
    ///         LayerInput::new("user", &"Bye?"),
    ///     ],
    ///     &CharEstimate,
    ///     &AssembleOptions::new(),
    /// )?;
    /// let chat = out.prompt.to_chat();
    /// let roles: Vec<Role> = chat.iter().map(|m| m.role).collect();
    /// assert_eq!(roles, [Role::System, Role::User, Role::Assistant, Role::User]);
    /// // Checked as the chat format counts the messages, per-message tokens included.
    /// assert_eq!(out.tokens, ChatFormat::openai().count_messages(&CharEstimate, &chat));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`assemble_with`](Self::assemble_with), and
    /// [`AssembleError::InvalidLayer`] for a layer given
    /// [`LayerRole::History`](super::LayerRole::History) whose content is not a chat
    /// history.
    pub fn assemble_messages<'a, C: TokenCounter + ?Sized>(
        &'a self,
        layers: &[LayerInput<'a>],
        counter: &C,
        options: &AssembleOptions,
    ) -> Result<Assembled<'a, ContextUsage, PromptMessages>, AssembleError> {
        let declared = Declared::of_budget(self);
        let inputs = declared.match_inputs(layers)?;
        let format = options.chat_format();
        assemble_declared(
            &declared,
            &inputs,
            DEFAULT_SEPARATOR,
            counter,
            options,
            true,
            |plan, separator, counter| {
                assemble_messages(plan, separator, counter, format, options.edits())
            },
        )
    }
}
