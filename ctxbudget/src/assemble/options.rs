//! What an assembly is asked for: the window and output reservation, the chat format
//! of a messages prompt ([`AssembleOptions`]), and each layer's content and settings
//! ([`LayerInput`], [`LayerRole`]).

use std::borrow::Cow;
use std::fmt;

use super::content::LayerContent;
use super::policy::LayerPolicy;
use crate::chat::ChatFormat;
#[cfg(feature = "tiktoken")]
use crate::models::{ApiFormat, Model};

/// How to assemble: for which window, with which output reservation, and for a
/// messages prompt, with which chat format.
///
/// The default is the context's own window (`#[context(total = N, output = N)]`, or
/// the `total` and the `output` layer of a [`ContextBudget`](crate::ContextBudget))
/// and OpenAI's chat format.
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
