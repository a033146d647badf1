//! The trimmer: [`ChatTrimmer`] and its options, and the passes that decide what
//! stays.

use super::context::{ChatElement, PartialContent, TrimContext};
use super::error::ChatTrimError;
use super::format::{ChatFormat, HistoryBudget};
use super::message::{ChatMessage, Role};
use super::pass::Pass;
use super::report::{DropReason, TrimmedChat};
use super::units::{RoleSet, Unit, answers_calls, join_thinking_loop, latest_user, tool_units};
use crate::count::TokenCounter;
use crate::trim::{Keep, TrimOptions, trim_with};

/// Which end of the history [`ChatTrimmer`] keeps when it must drop messages
/// (LangChain's `strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ChatStrategy {
    /// Keep the latest messages: drop the oldest first (the default; LangChain's
    /// `"last"`).
    #[default]
    KeepLast,
    /// Keep the earliest messages: drop the newest first (LangChain's `"first"`).
    KeepFirst,
}

/// Trims a chat history to a token budget: an `on_trim` hook first, then a policy
/// that drops whole messages and never splits a tool call from its results.
///
/// The hook receives a [`TrimContext`], modelled on Phronomy's `TrimContext`; the
/// options follow LangChain's `trim_messages` (see the table below).
///
/// # The policy
///
/// Applied to what the hook left, in this order:
///
/// 1. **Pairing.** Tool-call units with a missing member are dropped (see below).
/// 2. **End on**, with [`with_end_on`](ChatTrimmer::with_end_on): the units at the
///    end that do not end on one of the given roles are dropped, so the budget is
///    spent on messages that will be kept.
/// 3. **Budget.** While the request is over budget, the next droppable unit is
///    dropped: the oldest first ([`ChatStrategy::KeepLast`], the default) or the
///    newest first ([`ChatStrategy::KeepFirst`]). A unit is one message, or a tool
///    call with all its results. This step never drops the *protected* messages:
///    system messages (unless [`with_include_system(false)`](ChatTrimmer::with_include_system))
///    and the latest user message of the history that is not only tool results (unless
///    [`with_keep_latest_user(false)`](ChatTrimmer::with_keep_latest_user)), with its
///    unit. When that unit starts with a tool call (an Anthropic user message of
///    results followed by a question) and [`with_start_on`](ChatTrimmer::with_start_on)
///    is set, the nearest unit before it that starts on one of those roles is
///    protected too, so that step 5 can keep the question.
/// 4. **Partial**, with [`with_allow_partial`](ChatTrimmer::with_allow_partial): the
///    last unit step 3 dropped — the one next to the kept messages — comes back cut
///    to the room that is left, when it is one plain message (see
///    [`with_allow_partial`](ChatTrimmer::with_allow_partial)).
/// 5. **Start on**, with [`with_start_on`](ChatTrimmer::with_start_on): the units
///    before the first one that starts with one of the given roles are dropped.
/// 6. **End on** again: step 3 may have dropped the newest messages (with
///    `KeepFirst`, or to keep a protected message), and step 4 may have added one.
///
/// With the default [`with_include_system(true)`](ChatTrimmer::with_include_system),
/// no step drops a system message: steps 2, 5 and 6 look past them. Steps 2, 5 and
/// 6 may drop the latest user message: the shape you asked for wins over its
/// protection. When what is left is still over budget, [`trim`](ChatTrimmer::trim)
/// fails with [`ChatTrimError`], which says by how much and what to change.
///
/// The caller's history is borrowed, never modified; the result borrows from it,
/// the kept part of a message kept in part included. Each message is counted at most
/// once; only the message kept in part is counted again, in pieces, to cut it.
/// [`trim`](ChatTrimmer::trim) counts the messages that must stay, then the others
/// from the kept end until one does not fit, and drops the rest uncounted;
/// [`trim_with`](ChatTrimmer::trim_with) counts every message, for its hook.
///
/// # Tool calls and their results
///
/// Providers reject a request in which a tool result has no tool call before it, or a
/// tool call is not followed by a result for each of its call ids. ctxbudget treats
/// a tool call and its results as one unit:
///
/// - A *call* is an [`Assistant`](Role::Assistant) message with at least one tool
///   call. Its *results* are the messages that directly follow it (only other results
///   in between) and answer its call ids: [`Tool`](Role::Tool) messages whose
///   [`tool_call_id`](ChatMessage::tool_call_id) is one of them, or messages that
///   answer several calls at once through
///   [`tool_result_ids`](ChatMessage::tool_result_ids) (Anthropic's user messages of
///   `tool_result` blocks), all of whose ids are among them. Parallel calls (several
///   ids in one message) form a single unit with all their results.
/// - A unit is kept whole or dropped whole, never kept in part. When the hook removes
///   any member of a unit, the rest of it is dropped too ([`DropReason::Unpaired`]).
/// - A tool-use loop that starts with thinking
///   ([`starts_with_thinking`](ChatMessage::starts_with_thinking)) right after the
///   latest user message is one unit, up to the end of the history: Anthropic
///   rejects a later step of the loop without the thinking that started it.
/// - A unit that is already broken in the input — a call with an id that has no
///   result, or a tool message that answers no call right before it — is dropped
///   ([`DropReason::Unpaired`]): the provider would reject it anyway.
///
/// ```
/// use ctxbudget::{CharEstimate, ChatTrimmer, chat::DropReason, Message, chat::ToolCall};
///
/// let history = vec![
///     Message::system("You answer questions about the weather."),
///     Message::user("What's the weather in Paris? Please be detailed about it."),
///     Message::assistant("").with_tool_call(ToolCall::new("c1", "weather", r#"{"city":"Paris"}"#)),
///     Message::tool("c1", "Paris: 18°C, cloudy, light wind from the west, no rain expected."),
///     Message::assistant("It is 18°C and cloudy in Paris."),
///     Message::user("And tomorrow?"),
/// ];
/// let trimmed = ChatTrimmer::new(CharEstimate, 60).trim(&history)?;
/// let kept: Vec<usize> = trimmed.elements().iter().map(|e| e.seq).collect();
/// assert_eq!(kept, [0, 4, 5]);
/// // The tool call and its result went together.
/// assert!(trimmed.dropped().iter().all(|d| d.reason == DropReason::OverBudget));
/// assert!(trimmed.tokens() <= 60);
/// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
/// ```
///
/// # Coming from LangChain's `trim_messages`
///
/// | LangChain | ctxbudget |
/// | --- | --- |
/// | `max_tokens`, `token_counter` | [`ChatTrimmer::new(counter, limit)`](ChatTrimmer::new); the [`ChatFormat`]'s overhead is counted ([`ChatFormat::content_only`] counts the text alone) |
/// | `strategy="last"`, `"first"` | [`ChatStrategy::KeepLast`] (the default), [`ChatStrategy::KeepFirst`] |
/// | `include_system=True` | the default, [`with_include_system(true)`](ChatTrimmer::with_include_system): keeps every system message (LangChain: the first message, when it is one), with either strategy |
/// | `include_system=False` (its default) | [`with_include_system(false)`](ChatTrimmer::with_include_system) |
/// | — | [`with_keep_latest_user(false)`](ChatTrimmer::with_keep_latest_user) for LangChain's results: it has no such protection |
/// | `start_on="human"` | [`with_start_on([Role::User])`](ChatTrimmer::with_start_on), with either strategy |
/// | `end_on=("human", "tool")` | [`with_end_on([Role::User, Role::Tool])`](ChatTrimmer::with_end_on) |
/// | `allow_partial=True` | [`with_allow_partial(true)`](ChatTrimmer::with_allow_partial) |
/// | `text_splitter` | the boundaries of [`trim_with`](crate::trim::trim_with) |
///
/// ```
/// use ctxbudget::{ChatTrimmer, Message, chat::{ChatFormat, ChatStrategy, Role}};
///
/// // LangChain: trim_messages(msgs, max_tokens=4, token_counter=len, strategy="last",
/// //            start_on="human", include_system=True)
/// let one_per_message = ChatFormat::content_only().with_tokens_per_message(1);
/// let history = [
///     Message::system("s"),
///     Message::user("h1"), Message::assistant("a1"),
///     Message::user("h2"), Message::assistant("a2"),
///     Message::user("h3"),
/// ];
/// let trimmed = ChatTrimmer::new(|_: &str| 0, 4)
///     .with_format(one_per_message)
///     .with_strategy(ChatStrategy::KeepLast)
///     .with_start_on([Role::User])
///     .trim(&history)?;
/// let kept: Vec<&str> = trimmed.elements().iter().map(|e| e.content()).collect();
/// assert_eq!(kept, ["s", "h2", "a2", "h3"]);
/// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
/// ```
///
/// Where the results differ, on purpose:
///
/// - A tool result is never kept without its call, nor a call without all its
///   results (LangChain 0.3 and 1.x can return a history that starts with a tool
///   message, which providers reject; its `start_on="human"` workaround is not
///   needed here).
/// - The result always fits: where LangChain returns a system message that alone is
///   over `max_tokens`, [`trim`](ChatTrimmer::trim) returns an error.
/// - With `include_system`, nothing drops a system message: LangChain's `end_on` can
///   drop even the leading one (when no message matches), ours looks past it.
/// - A message kept in part is cut at a paragraph, line, sentence or word boundary
///   without whitespace at the cut, by this crate's trimming engine, rather than at
///   the pieces of a text splitter; only plain text messages are cut.
/// - The counter sees each message at most once, and only texts, never lists of
///   messages (LangChain counts growing lists of messages, reversed for `"last"`);
///   [`trim`](ChatTrimmer::trim) does not count the messages beyond the first one
///   that does not fit.
#[derive(Debug, Clone)]
pub struct ChatTrimmer<C> {
    counter: C,
    limit: usize,
    format: ChatFormat,
    strategy: ChatStrategy,
    include_system: bool,
    keep_latest_user: bool,
    start_on: RoleSet,
    end_on: RoleSet,
    allow_partial: bool,
}

impl<C: TokenCounter> ChatTrimmer<C> {
    /// A trimmer that counts with `counter` and fits requests into `budget` tokens,
    /// in the OpenAI chat format, keeping the latest messages, the system messages
    /// and the latest user message, whole.
    pub fn new(counter: C, budget: usize) -> Self {
        Self {
            counter,
            limit: budget,
            format: ChatFormat::openai(),
            strategy: ChatStrategy::KeepLast,
            include_system: true,
            keep_latest_user: true,
            start_on: RoleSet::default(),
            end_on: RoleSet::default(),
            allow_partial: false,
        }
    }

    /// Sets the chat format whose overhead is counted.
    #[must_use]
    pub fn with_format(mut self, format: ChatFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets which end of the history is kept.
    #[must_use]
    pub fn with_strategy(mut self, strategy: ChatStrategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// With `true` (the default), system messages are kept wherever they are: the
    /// budget never drops them and [`with_start_on`](ChatTrimmer::with_start_on) and
    /// [`with_end_on`](ChatTrimmer::with_end_on) look past them (only the hook can
    /// remove them). With `false`, they are trimmed like the other messages, as with
    /// LangChain's `include_system=False`.
    ///
    /// LangChain's `include_system=True` keeps only a system message that comes
    /// first; the default here keeps every system message, which for the usual
    /// history (one system message, first) is the same thing.
    ///
    /// ```
    /// use ctxbudget::{ChatTrimmer, Message, chat::ChatFormat};
    ///
    /// let one_per_message = ChatFormat::content_only().with_tokens_per_message(1);
    /// let history = [Message::system("s"), Message::user("u"), Message::assistant("a")];
    /// let trimmer = ChatTrimmer::new(|_: &str| 0, 2).with_format(one_per_message);
    /// let kept = |t: &ChatTrimmer<_>| -> Vec<usize> {
    ///     t.trim(&history).unwrap().elements().iter().map(|e| e.seq).collect()
    /// };
    /// assert_eq!(kept(&trimmer), [0, 1]);
    /// assert_eq!(kept(&trimmer.clone().with_include_system(false)), [1, 2]);
    /// ```
    #[must_use]
    pub fn with_include_system(mut self, include_system: bool) -> Self {
        self.include_system = include_system;
        self
    }

    /// With `true` (the default), the budget never drops the latest user message of
    /// the history: when everything else is gone and it is still over budget, the
    /// trim fails rather than answer a question that is no longer there. With
    /// `false`, it is trimmed like the other messages (LangChain has no such
    /// protection: set `false` to get its results), and with
    /// [`with_allow_partial`](ChatTrimmer::with_allow_partial) it can be kept in part.
    ///
    /// [`with_start_on`](ChatTrimmer::with_start_on) and
    /// [`with_end_on`](ChatTrimmer::with_end_on) may drop it either way.
    #[must_use]
    pub fn with_keep_latest_user(mut self, keep_latest_user: bool) -> Self {
        self.keep_latest_user = keep_latest_user;
        self
    }

    /// The kept history (after system messages, when they are
    /// [included](ChatTrimmer::with_include_system)) starts with a message of one of
    /// these roles: the units before the first one that does are dropped, after the
    /// budget and partial steps (LangChain's `start_on`, which also works with
    /// [`ChatStrategy::KeepFirst`] here). An empty list turns it off.
    ///
    /// A unit starts with its first message, so a tool call starts with
    /// [`Role::Assistant`]; a kept history never starts with a tool result (that would
    /// be an orphan), so [`Role::Tool`] never matches.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, ChatTrimmer, Message, chat::Role};
    ///
    /// let history = [
    ///     Message::assistant("Hi! How can I help?"),
    ///     Message::user("What time is it?"),
    ///     Message::assistant("Noon."),
    /// ];
    /// let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
    ///     .with_start_on([Role::User])
    ///     .trim(&history)?;
    /// assert_eq!(trimmed.elements()[0].seq, 1);
    /// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
    /// ```
    #[must_use]
    pub fn with_start_on(mut self, roles: impl IntoIterator<Item = Role>) -> Self {
        self.start_on = RoleSet::of(roles);
        self
    }

    /// `true` is [`with_start_on([Role::User])`](ChatTrimmer::with_start_on), and
    /// `false` is `with_start_on([])`: it turns off any `start_on`, including roles set
    /// by an earlier [`with_start_on`](ChatTrimmer::with_start_on).
    ///
    /// Deprecated for two reasons. A switch for one value of a list option cannot be
    /// turned off without clearing the list (`false` silently dropped an earlier
    /// `with_start_on([Role::Assistant])`). And the name means something else on
    /// [`ChatSession::with_start_on_user`](super::ChatSession::with_start_on_user),
    /// which only chooses where the session's cut may land and drops nothing the
    /// budget keeps; `start_on` here drops the leading messages whatever the budget.
    /// Two meanings, two names: say `with_start_on([Role::User])` (or
    /// `with_start_on([])`), which this method forwards to.
    #[deprecated(
        since = "0.1.0",
        note = "use `with_start_on([Role::User])`, or `with_start_on([])` to turn start_on off"
    )]
    #[must_use]
    pub fn with_start_on_user(self, start_on_user: bool) -> Self {
        if start_on_user {
            self.with_start_on([Role::User])
        } else {
            self.with_start_on([])
        }
    }

    /// The kept history ends with a message of one of these roles (system messages
    /// after it stay, when they are [included](ChatTrimmer::with_include_system)):
    /// the units after the last one that does are dropped, before the budget step
    /// and again after it (LangChain's `end_on`, which it applies before trimming
    /// for `"last"` and after for `"first"`). An empty list turns it off.
    ///
    /// A tool call with its results ends with [`Role::Tool`]. To end where the model
    /// should answer, use `[Role::User, Role::Tool]`.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, ChatTrimmer, Message, chat::{DropReason, Role}};
    ///
    /// let history = [
    ///     Message::user("What time is it?"),
    ///     Message::assistant("Noon."),
    /// ];
    /// let trimmed = ChatTrimmer::new(CharEstimate, 1_000)
    ///     .with_end_on([Role::User, Role::Tool])
    ///     .trim(&history)?;
    /// assert_eq!(trimmed.elements().len(), 1);
    /// assert_eq!(trimmed.dropped()[0].reason, DropReason::EndOn);
    /// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
    /// ```
    #[must_use]
    pub fn with_end_on(mut self, roles: impl IntoIterator<Item = Role>) -> Self {
        self.end_on = RoleSet::of(roles);
        self
    }

    /// With `true`, the message next to the kept ones that did not fit whole is kept
    /// in part, in the room that is left (LangChain's `allow_partial`): the end of its
    /// content with [`ChatStrategy::KeepLast`] ([`Keep::Tail`]), the beginning with
    /// [`ChatStrategy::KeepFirst`] ([`Keep::Head`]), cut by
    /// [`trim_with`](crate::trim::trim_with) at the strongest paragraph, line,
    /// sentence or word boundary that does not waste the room (else between
    /// graphemes).
    ///
    /// - Only the last unit the budget dropped is a candidate, and only when it is a
    ///   plain system, user or assistant message: a tool call or a tool result is
    ///   never kept in part (a cut call or result would mislead the model). A
    ///   protected message is never cut: it is kept whole.
    /// - Its cost is exact: the [format's overhead](ChatFormat::message_overhead) plus
    ///   the kept text, counted; the request still fits.
    /// - The kept part borrows from the message: see [`ChatElement::content`] and
    ///   [`TrimmedChat::partial`]. [`TrimmedChat::messages`] returns whole messages.
    /// - [`with_start_on`](ChatTrimmer::with_start_on) and
    ///   [`with_end_on`](ChatTrimmer::with_end_on) may still drop it.
    ///
    /// ```
    /// use ctxbudget::{ChatTrimmer, Message, chat::ChatFormat};
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let history = [
    ///     Message::user("Summarise this.\n\nThe report covers three sites. Output rose at all of them."),
    ///     Message::assistant("Output rose at all three sites."),
    ///     Message::user("Which rose most?"),
    /// ];
    /// // 17 + 10 + 7 tokens, and 3 to prime the reply: 7 over.
    /// let trimmed = ChatTrimmer::new(words, 30)
    ///     .with_allow_partial(true)
    ///     .trim(&history)?;
    /// let partial = trimmed.partial().expect("the first message is kept in part");
    /// assert_eq!(partial.content(), "Output rose at all of them.");
    /// assert_eq!(trimmed.tokens(), 30);
    /// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
    /// ```
    #[must_use]
    pub fn with_allow_partial(mut self, allow_partial: bool) -> Self {
        self.allow_partial = allow_partial;
        self
    }

    /// The budget: the limit, with the format's reply priming reserved.
    pub fn budget(&self) -> HistoryBudget {
        HistoryBudget::new(self.limit).with_reserved(self.format.reply_priming())
    }

    /// The counter.
    pub fn counter(&self) -> &C {
        &self.counter
    }

    /// The chat format.
    pub fn format(&self) -> ChatFormat {
        self.format
    }

    /// The strategy: which end of the history is kept.
    pub fn strategy(&self) -> ChatStrategy {
        self.strategy
    }

    /// Trims `history` with the policy alone (no hook), counting only what it must.
    ///
    /// The budget step counts the messages it must keep, then the others from the kept
    /// end (the newest with [`ChatStrategy::KeepLast`]), and stops at the first unit
    /// that does not fit: the messages beyond it are dropped without being counted,
    /// and their [`DroppedMessage::tokens`](super::DroppedMessage::tokens) is `None`.
    /// Trimming a long history costs about as much as counting the messages kept.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use ctxbudget::{ChatTrimmer, Message};
    ///
    /// let history: Vec<Message> = (0..1_000).map(|i| Message::user(format!("message {i}"))).collect();
    /// let counted = Cell::new(0);
    /// let words = |t: &str| { counted.set(counted.get() + 1); t.split_whitespace().count() };
    /// let trimmed = ChatTrimmer::new(&words, 60).trim(&history)?;
    /// assert_eq!(trimmed.elements().len(), 9); // 6 tokens each, 3 to prime the reply
    /// // The role and the content of the 9 kept messages and of the next one, no more.
    /// assert_eq!(counted.get(), 2 * 10);
    /// assert_eq!(trimmed.dropped()[0].tokens, None);
    /// assert_eq!(trimmed.dropped().last().unwrap().tokens, Some(6));
    /// # Ok::<(), ctxbudget::chat::ChatTrimError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ChatTrimError::OverBudget`] when the messages that must stay do not fit, and
    /// [`ChatTrimError::ReplyPriming`] when not even an empty history fits; both say
    /// by how much and what to change.
    pub fn trim<'m, M: ChatMessage>(
        &self,
        history: &'m [M],
    ) -> Result<TrimmedChat<'m, M>, ChatTrimError> {
        let budget = self.budget();
        Self::check_priming(budget)?;
        let elements = history
            .iter()
            .enumerate()
            .map(|(seq, message)| ChatElement {
                seq,
                message,
                tokens: 0,
                role: message.role(),
                partial: None,
            })
            .collect();
        self.apply(
            history,
            Pass::new(elements, |_| false, false, budget, self.include_system),
        )
    }

    /// Trims `history`: counts every message once, calls `on_trim` with a
    /// [`TrimContext`], then applies the policy (see [`ChatTrimmer`]).
    ///
    /// The hook sees the cost of every message, so every message is counted before it
    /// runs (a [`ChatSession`](super::ChatSession) hands its hook the counts it
    /// remembers instead); [`trim`](ChatTrimmer::trim), without a hook, counts only
    /// what it must.
    ///
    /// # Errors
    ///
    /// [`ChatTrimError::OverBudget`] when what must stay does not fit, and
    /// [`ChatTrimError::ReplyPriming`] when not even an empty history fits; both say
    /// by how much and what to change.
    pub fn trim_with<'m, M, F>(
        &self,
        history: &'m [M],
        on_trim: F,
    ) -> Result<TrimmedChat<'m, M>, ChatTrimError>
    where
        M: ChatMessage,
        F: FnOnce(&mut TrimContext<'m, M>),
    {
        let budget = self.budget();
        let elements: Vec<ChatElement<'m, M>> = history
            .iter()
            .enumerate()
            .map(|(seq, message)| ChatElement {
                seq,
                message,
                tokens: self.format.message_tokens(&self.counter, message),
                role: message.role(),
                partial: None,
            })
            .collect();
        let mut ctx = TrimContext::new(elements.clone(), budget);
        on_trim(&mut ctx);
        Self::check_priming(budget)?;
        let pass = Pass::new(
            elements,
            |seq| ctx.is_removed(seq),
            true,
            budget,
            self.include_system,
        );
        self.apply(history, pass)
    }

    fn check_priming(budget: HistoryBudget) -> Result<(), ChatTrimError> {
        if budget.reserved() > budget.limit() {
            return Err(ChatTrimError::ReplyPriming {
                priming: budget.reserved(),
                budget: budget.limit(),
            });
        }
        Ok(())
    }

    /// The policy's steps, after the hook.
    fn apply<'m, M: ChatMessage>(
        &self,
        history: &'m [M],
        mut pass: Pass<'m, M>,
    ) -> Result<TrimmedChat<'m, M>, ChatTrimError> {
        let mut units = tool_units(history);
        join_thinking_loop(history, &mut units);
        pass.pair(&units);
        if !self.end_on.is_empty() {
            pass.end_on(&units, self.end_on);
        }
        let protected = self.protected(history, &units, |unit| pass.is_kept(unit));
        let boundary = pass.fit(&units, self.strategy, &protected, |m| {
            self.format.message_tokens(&self.counter, m)
        });
        if self.allow_partial && pass.fits() {
            if let Some(unit) = boundary {
                self.keep_part(&mut pass, unit);
            }
        }
        if !self.start_on.is_empty() {
            let reason = if self.start_on == RoleSet::of([Role::User]) {
                DropReason::StartOnUser
            } else {
                DropReason::StartOn
            };
            pass.start_on(&units, self.start_on, reason);
        }
        if !self.end_on.is_empty() {
            pass.end_on(&units, self.end_on);
        }
        pass.finish()
    }

    /// `protected[seq]`: what the budget step may not drop. `kept` says which units
    /// are still kept (after pairing).
    fn protected<M: ChatMessage>(
        &self,
        history: &[M],
        units: &[Unit],
        kept: impl Fn(&Unit) -> bool,
    ) -> Vec<bool> {
        let mut protected: Vec<bool> = history
            .iter()
            .map(|m| self.include_system && m.role() == Role::System)
            .collect();
        // A user message that only answers tool calls (Anthropic's `tool_result`
        // blocks) is part of the assistant's round, not the user's question.
        let Some(latest) = latest_user(history).filter(|_| self.keep_latest_user) else {
            return protected;
        };
        protected[latest] = true;
        // Its unit may start with the call its results answer (Anthropic's results
        // followed by the question): `start_on` would drop it, so the nearest unit
        // before it that starts on one of those roles is kept too.
        let Some(unit) = units.iter().position(|u| u.members.contains(&latest)) else {
            return protected;
        };
        let own = &units[unit];
        let starts_on = |u: &Unit| {
            let role = history[u.first()].role();
            self.start_on.contains(role) && !(self.include_system && role == Role::System)
        };
        if !self.start_on.is_empty() && !starts_on(own) {
            let anchor = units[..unit].iter().rev().find(|u| kept(u) && starts_on(u));
            if let Some(anchor) = anchor {
                protected[anchor.first()] = true;
            }
        }
        protected
    }

    /// Brings back the part of `unit` that fits in the room left, when it is one
    /// plain message.
    fn keep_part<M: ChatMessage>(&self, pass: &mut Pass<'_, M>, unit: &Unit) {
        let &[seq] = unit.members.as_slice() else {
            return;
        };
        let element = pass.elements[seq];
        let message = element.message;
        if answers_calls(message) || message.tool_calls().next().is_some() {
            return;
        }
        let room = usize::try_from(pass.room()).unwrap_or(usize::MAX);
        let overhead = self.format.message_overhead(&self.counter, message);
        let Some(text_budget) = room.checked_sub(overhead) else {
            return;
        };
        let keep = match self.strategy {
            ChatStrategy::KeepLast => Keep::Tail,
            ChatStrategy::KeepFirst => Keep::Head,
        };
        let cut = trim_with(
            element.content(),
            text_budget,
            &self.counter,
            &TrimOptions::new().keep(keep),
        );
        let tokens = overhead.saturating_add(cut.tokens);
        // The whole text fitting would mean the counter changed its mind; keep
        // nothing rather than trust either count.
        let (true, false, Some(boundary)) = (cut.cut, cut.kept.is_empty(), cut.boundary) else {
            return;
        };
        if tokens > room {
            return;
        }
        pass.restore(
            seq,
            tokens,
            PartialContent {
                text: cut.kept,
                start: cut.kept_range.start,
                boundary,
                whole_tokens: element.tokens,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::Message;

    #[test]
    fn protected_are_system_and_latest_user() {
        let history = [
            Message::system("s"),
            Message::user("u1"),
            Message::assistant("a"),
            Message::user("u2"),
            Message::assistant("a2"),
        ];
        let trimmer = ChatTrimmer::new(crate::count::CharEstimate, 0);
        let units = tool_units(&history);
        let protected = |t: &ChatTrimmer<_>| t.protected(&history, &units, |_| true);
        assert_eq!(protected(&trimmer), vec![true, false, false, true, false]);
        assert_eq!(
            protected(&trimmer.clone().with_include_system(false)),
            vec![false, false, false, true, false]
        );
        assert_eq!(
            protected(&trimmer.with_keep_latest_user(false)),
            vec![true, false, false, false, false]
        );
    }
}
