//! What an assembly is asked for: the window and output reservation, the chat format
//! of a messages prompt ([`AssembleOptions`]), and each layer's content and settings
//! ([`LayerInput`], [`LayerRole`]).

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};

use super::content::LayerContent;
use super::policy::LayerPolicy;
use crate::chat::ChatFormat;
use crate::chat::edit::Edits;
#[cfg(feature = "tiktoken")]
use crate::models::{ApiFormat, Model};

/// How to assemble: for which window, with which output reservation, and for a
/// messages prompt, with which chat format and which context edits of the chat
/// histories.
///
/// The default is the context's own window (`#[context(total = N, output = N)]`, or
/// the `total` and the `output` layer of a [`ContextBudget`](crate::ContextBudget)),
/// OpenAI's chat format, and no edits: a chat history over its budget drops whole
/// messages. [`with_edits`](Self::with_edits) sheds old tool output first.
///
/// [`for_window`](Self::for_window) assembles the same context for another window,
/// chosen at run time (the model the request goes to): layers that reserve a
/// [`Share`](crate::budget::Share) of the window are resolved at it, fixed
/// reservations stay as declared, and `output` tokens are kept for the reply.
///
/// ```
/// use ctxbudget::assemble::AssembleOptions;
/// use ctxbudget::chat::ChatFormat;
///
/// let options = AssembleOptions::for_window(128_000, 4_096)
///     .with_chat_format(ChatFormat::openai().with_reply_priming(3));
/// assert_eq!(options.window(), Some((128_000, 4_096)));
/// assert_eq!(AssembleOptions::new().window(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AssembleOptions {
    window: Option<(usize, usize)>,
    format: ChatFormat,
    separator: Option<Cow<'static, str>>,
    edits: ChatEdits,
}

impl AssembleOptions {
    /// The context's own window and output reservation, OpenAI's chat format.
    pub fn new() -> Self {
        Self::default()
    }

    /// A window of `window` tokens of which `output` are kept for the reply.
    pub fn for_window(window: usize, output: usize) -> Self {
        Self::new().with_window(window, output)
    }

    /// Everything an assembly for `model` needs from the catalogue, in one call:
    ///
    /// - the window: [`Model::context_window`];
    /// - the output kept for the reply: [`Model::default_output`] (the model's
    ///   output limit, or, for a model whose output shares its window, as gpt-4's
    ///   8,192 of 8,192, 4,096 tokens and never more than half the window), as
    ///   [`RequestFitter::for_model`](crate::request::RequestFitter::for_model)
    ///   reserves for a body without `max_tokens`;
    /// - the chat format a messages prompt is counted in: [`ChatFormat::anthropic`]
    ///   for the Anthropic Messages API, [`ChatFormat::openai`] for the others
    ///   (Mistral's chat API has OpenAI's shape; for Gemini and open-weight models
    ///   it is an estimate).
    ///
    /// The assembly's [`output`](super::Assembled::output) is then the `max_tokens`
    /// to send, so the request and the fit agree:
    ///
    /// ```
    /// use ctxbudget::assemble::{AssembleOptions, LayerInput};
    /// use ctxbudget::chat::ChatFormat;
    /// use ctxbudget::{ContextBudget, Model};
    ///
    /// let model = Model::lookup("claude-sonnet-4-5")?;
    /// let options = AssembleOptions::for_model(model);
    /// assert_eq!(options.window(), Some((200_000, 64_000)));
    /// assert_eq!(options.chat_format(), ChatFormat::anthropic());
    ///
    /// let budget = ContextBudget::new(8_192, [("system", 512), ("question", 512), ("output", 1_024)])?;
    /// let out = budget.assemble_messages(
    ///     &[
    ///         LayerInput::new("system", &"Answer from the guide."),
    ///         LayerInput::new("question", &"How do I reset my password?"),
    ///     ],
    ///     &model.counter()?,
    ///     &options,
    /// )?;
    /// let request = out.prompt.to_anthropic(model.name(), out.output as u64);
    /// assert_eq!(request.max_tokens, Some(64_000));
    ///
    /// // gpt-4's output limit is its whole window: 4,096 tokens are kept instead.
    /// let gpt_4 = AssembleOptions::for_model(Model::lookup("gpt-4")?);
    /// assert_eq!(gpt_4.window(), Some((8_192, 4_096)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "tiktoken")]
    pub fn for_model(model: &Model) -> Self {
        let window = model.context_window();
        let output = model.default_output();
        let format = match model.api() {
            ApiFormat::AnthropicMessages => ChatFormat::anthropic(),
            _ => ChatFormat::openai(),
        };
        Self::for_window(window, output).with_chat_format(format)
    }

    /// Assembles for a window of `window` tokens of which `output` are kept for the
    /// reply, instead of the context's own.
    #[must_use]
    pub fn with_window(mut self, window: usize, output: usize) -> Self {
        self.window = Some((window, output));
        self
    }

    /// Counts a messages prompt with `format`: its per-message tokens and reply
    /// priming (see [`assemble_messages`](crate::ContextBudget::assemble_messages)).
    /// The prompt of the string form has no messages and ignores it.
    #[must_use]
    pub fn with_chat_format(mut self, format: ChatFormat) -> Self {
        self.format = format;
        self
    }

    /// Joins the layers with `separator` instead of the context's own
    /// (`#[context(separator = "..")]`, default a blank line).
    #[must_use]
    pub fn with_separator(mut self, separator: impl Into<Cow<'static, str>>) -> Self {
        self.separator = Some(separator.into());
        self
    }

    /// Edits the messages of every chat-history layer of a messages prompt as
    /// `edits` say before the layer drops whole messages: old thinking, oversized
    /// and old tool results are shed first ([context editing](crate::chat::edit)),
    /// with the layer's budget as the limit. [`Edits::none()`] (the default) keeps
    /// today's behaviour: the layer only drops whole messages, and its result is
    /// the same as without this option.
    ///
    /// The history is borrowed, so the edits are made on copies: with edits on,
    /// the layer copies its whole history once per fit (without them, only the kept
    /// messages), edits the copies, and drops from them with the counts the edits
    /// made, so no message is counted twice. The prompt's messages are those edited
    /// copies; your history is left as it was, and
    /// [`AssembledLayer::edits`](super::AssembledLayer::edits) says what was edited,
    /// by index in your history.
    ///
    /// A layer whose policy is [`LayerPolicy::Never`] is never edited (it is sent
    /// whole or not at all), nor is a chat history rendered into a string prompt,
    /// which ignores this option. No summarizer is called: when the edits are not
    /// enough, the layer drops whole messages, oldest first, as without them.
    ///
    /// ```
    /// use ctxbudget::assemble::{AssembleOptions, LayerInput};
    /// use ctxbudget::chat::{ToolCall, edit::Edits};
    /// use ctxbudget::{ContextBudget, Message};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let mut history = vec![Message::user("Find why the build fails.")];
    /// for i in 0..10 {
    ///     let id = format!("call_{i}");
    ///     history.push(Message::assistant("").with_tool_call(ToolCall::new(&id, "run_build", "{}")));
    ///     history.push(Message::tool(&id, "error: linker failed ".repeat(50)));
    /// }
    /// let budget = ContextBudget::new(2_000, [("history", 1_000), ("question", 100), ("output", 500)])?;
    /// let layers = [
    ///     LayerInput::new("history", &history),
    ///     LayerInput::new("question", &"What is the cause?"),
    /// ];
    ///
    /// // Dropping whole messages loses the four oldest calls and their results.
    /// let dropped = budget.assemble_messages(&layers, &words, &AssembleOptions::new())?;
    /// assert_eq!(dropped.layer("history").unwrap().dropped(), 8);
    ///
    /// // With edits, long results keep their head and tail, the oldest are cleared,
    /// // and every message stays.
    /// let options = AssembleOptions::new().with_edits(Edits::default());
    /// let edited = budget.assemble_messages(&layers, &words, &options)?;
    /// let layer = edited.layer("history").unwrap();
    /// assert_eq!(layer.dropped(), 0);
    /// assert_eq!(edited.prompt.messages[0].content, "Find why the build fails.");
    /// let totals = layer.edits.as_ref().unwrap().totals;
    /// assert_eq!((totals.truncated, totals.cleared_tool_uses), (6, 4));
    /// assert!(edited.tokens <= edited.limit);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_edits(mut self, edits: Edits) -> Self {
        self.edits = ChatEdits((!edits.is_none()).then_some(edits));
        self
    }

    /// The context edits of the chat histories, or `None` when they only drop
    /// whole messages.
    pub fn edits(&self) -> Option<&Edits> {
        self.edits.0.as_ref()
    }

    /// The window and output reservation asked for, or `None` for the context's own.
    pub fn window(&self) -> Option<(usize, usize)> {
        self.window
    }

    /// The chat format a messages prompt is counted with.
    pub fn chat_format(&self) -> ChatFormat {
        self.format
    }

    /// The separator asked for, or `None` for the context's own.
    pub fn separator(&self) -> Option<&str> {
        self.separator.as_deref()
    }
}

/// The edits of [`AssembleOptions`], compared and hashed as they print: [`Edits`]
/// holds shares as `f64`, which are neither `Eq` nor `Hash`, and its `Debug` names
/// every field, a share that is NaN equal to itself.
#[derive(Debug, Clone, Default)]
struct ChatEdits(Option<Edits>);

impl ChatEdits {
    fn key(&self) -> Option<String> {
        self.0.as_ref().map(|edits| format!("{edits:?}"))
    }
}

impl PartialEq for ChatEdits {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for ChatEdits {}

impl Hash for ChatEdits {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

/// Where a layer goes in a prompt assembled as messages.
///
/// In `#[budget(..)]` this is `role = system` or `role = user`. A layer without a
/// role goes by its content and position: a chat history contributes its messages
/// (`History`), the last declared layer is the final user message (`User`), and every
/// other layer is part of the system message (`System`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LayerRole {
    /// Part of the system message, with the other system layers in declaration order,
    /// joined by the separator: instructions, and context the model should treat as
    /// given.
    System,
    /// The messages of a chat history, as messages. Only a chat history can take
    /// this role.
    History,
    /// Part of the final user message, with the other user layers in declaration
    /// order, joined by the separator: the request, and context to read with it.
    User,
}

impl LayerRole {
    /// The role as the attribute writes it: `system`, `history` or `user`.
    pub fn as_str(self) -> &'static str {
        match self {
            LayerRole::System => "system",
            LayerRole::History => "history",
            LayerRole::User => "user",
        }
    }
}

impl fmt::Display for LayerRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One layer's content and settings, for a context assembled at run time
/// ([`ContextBudget::assemble`](crate::ContextBudget::assemble)); the derive writes
/// these from the struct's fields and attributes.
///
/// ```
/// use ctxbudget::assemble::{LayerInput, LayerPolicy, LayerRole};
/// use ctxbudget::Message;
///
/// let history = vec![Message::user("hi")];
/// let layer = LayerInput::new("history", &history).with_grow(1);
/// assert_eq!(layer.name(), "history");
/// let system = LayerInput::new("system", &"Be brief.")
///     .with_policy(LayerPolicy::Never)
///     .with_role(LayerRole::System);
/// assert_eq!(system.policy(), Some(&LayerPolicy::Never));
/// ```
#[derive(Clone)]
pub struct LayerInput<'a> {
    name: &'a str,
    content: &'a dyn LayerContent,
    policy: Option<LayerPolicy>,
    grow: Option<u32>,
    role: Option<LayerRole>,
}

impl<'a> LayerInput<'a> {
    /// The layer `name` with `content`: cut with the content's default policy, not
    /// growing, placed by its content and position in a messages prompt.
    pub fn new(name: &'a str, content: &'a dyn LayerContent) -> Self {
        LayerInput {
            name,
            content,
            policy: None,
            grow: None,
            role: None,
        }
    }

    /// Cuts the layer as `policy` says (`#[budget(policy = ..)]`).
    #[must_use]
    pub fn with_policy(mut self, policy: LayerPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Lets the layer grow into what other layers leave, at `priority`
    /// (`#[budget(grow = N)]`; higher grows first).
    #[must_use]
    pub fn with_grow(mut self, priority: u32) -> Self {
        self.grow = Some(priority);
        self
    }

    /// Places the layer in a messages prompt (`#[budget(role = ..)]`).
    #[must_use]
    pub fn with_role(mut self, role: LayerRole) -> Self {
        self.role = Some(role);
        self
    }

    /// The settings of a derived layer, in one call: for generated code.
    #[doc(hidden)]
    #[must_use]
    pub fn with_settings(
        mut self,
        policy: Option<LayerPolicy>,
        grow: Option<u32>,
        role: Option<LayerRole>,
    ) -> Self {
        self.policy = policy;
        self.grow = grow;
        self.role = role;
        self
    }

    /// The layer's name.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The layer's content.
    pub fn content(&self) -> &'a dyn LayerContent {
        self.content
    }

    /// The policy set, or `None` for the content's default.
    pub fn policy(&self) -> Option<&LayerPolicy> {
        self.policy.as_ref()
    }

    /// The growth priority, when the layer grows.
    pub fn grow(&self) -> Option<u32> {
        self.grow
    }

    /// The role set, or `None` to place the layer by its content and position.
    pub fn role(&self) -> Option<LayerRole> {
        self.role
    }
}

impl fmt::Debug for LayerInput<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LayerInput")
            .field("name", &self.name)
            .field("policy", &self.policy)
            .field("grow", &self.grow)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}
