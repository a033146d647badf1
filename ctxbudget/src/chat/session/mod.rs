//! [`ChatSession`]: a chat history that grows by appends, counts each message once,
//! and keeps its prompts' prefix stable for the providers' prompt caches.

mod edits;
mod entry;
mod error;
mod ledger;
mod marks;
mod policy;
mod prepare;

pub use error::SessionError;
pub use policy::CutPolicy;
pub use prepare::{Prepared, SummaryInput};

use super::edit::{EditReport, EditTotals, MessageCount};
use super::format::{ChatFormat, HistoryBudget};
use super::message::{ChatMessage, Role};
use crate::count::TokenCounter;
use edits::SessionEdits;
use entry::{Entry, Slot};
use ledger::Ledger;
use marks::Marks;

/// A chat history that lives as long as a conversation: messages are
/// [pushed](ChatSession::push) as they come, each counted once, and
/// [`prepare`](ChatSession::prepare) gives the prompt for the next call, in time
/// that follows the new messages, not the length of the session.
///
/// Where [`ChatTrimmer`](super::ChatTrimmer) trims a whole history on every call,
/// a session remembers: what each message costs, where it cut the history last time,
/// and what the previous prompt was. That buys two things.
///
/// - **CPU.** A message is counted once, when it is pushed. Preparing a prompt that
///   fits costs nothing more; moving the cut costs about one pass over the messages
///   it drops. A 10,000-turn session prepares its last prompt as fast as its 100th.
/// - **Money.** Providers bill a cached prompt prefix at a fraction of the input price
///   (Anthropic: reads at 0.1x, writes at 1.25x; OpenAI: cached input at a discount,
///   automatic from 1,024 tokens). A trimmer that cuts to the minimal fit moves the
///   cut on nearly every turn once the session is at its limit, and every move
///   rewrites all that follows the system messages. The default
///   [`CutPolicy::cache_stable`] keeps the cut still while the prompt fits and then
///   moves it well ahead, so most prompts start with the whole previous prompt.
///   [`Prepared::stable_prefix`] says how much of it is unchanged: put Anthropic's
///   `cache_control` breakpoint there (OpenAI caches the longest common prefix by
///   itself; the session's job is to keep it). [`CutPolicy::minimal_fit`] is there
///   too.
///
/// # The prompt
///
/// A prompt is the *head*, then the *window*:
///
/// - the head: the system messages that open the session and those the cut has
///   passed (system messages are never dropped, only a hook can remove them), the
///   summary ([`prepare_summarizing`](ChatSession::prepare_summarizing) or
///   [`set_summary`](ChatSession::set_summary)), and, when the cut has passed it, the
///   latest user message ([`with_keep_latest_user`](ChatSession::with_keep_latest_user));
/// - the window: every message from the cut on, as pushed.
///
/// The *latest user message* is the last user message that carries more than tool
/// results ([`ChatMessage::carries_user_content`]), wherever its parts sit: an
/// Anthropic user message of `tool_result` blocks followed by the next question (as
/// LangChain writes it) is one, and is carried with the tool call its results answer.
///
/// The cut only lands before a *unit*: a message, or a tool call with all its
/// results, so a call is never sent without its results or a result without its
/// call; with [`with_start_on_user`](ChatSession::with_start_on_user), before the
/// latest user message, only on a turn of the user. It never lands inside the
/// latest turn (the messages after the latest user message) when that turn began
/// with thinking ([`ChatMessage::starts_with_thinking`]): with extended thinking on,
/// Anthropic rejects a tool-use loop sent without the thinking that began it, and
/// the session cannot know whether a later step will call a tool. When that turn does
/// not fit, [`prepare`](ChatSession::prepare) says so
/// ([`SessionError::ToolLoopDoesNotFit`]). Earlier turns may be cut anywhere between
/// units: Anthropic needs the thinking of the final assistant turn only. Messages the
/// cut passes leave the session (see [`Prepared::dropped`]).
///
/// # Context edits
///
/// In an agent's session most tokens are tool output, and dropping whole turns to
/// save them throws away the task, the agent's decisions and its calls. With
/// [`with_edits`](ChatSession::with_edits) (off by default: a session drops whole
/// units, as above), a [`prepare`](ChatSession::prepare) that finds the prompt over
/// the limit first runs the [editing engine](super::edit) on it, in place: old
/// thinking dropped, oversized tool results cut to their head and tail, old
/// results cleared to a placeholder (calls and results stay, with their ids),
/// down to the [`CutPolicy`]'s low-water mark in one batch (unless the
/// [`Edits`](super::edit::Edits) set a mark of their own). The cut moves only when
/// that was not enough.
///
/// - **Counted once.** Each message is counted when it arrives, as the engine
///   needs it; the engine takes those counts and counts only what it writes, and
///   the session takes the edited messages' costs from it.
/// - **Sticky.** The session owns its messages, so an edit stays made: a result
///   cleared (or cut, or stripped of its thinking) once is so in every later
///   prompt, which therefore shares the prefix up to the first message edited
///   anew. [`Prepared::edits`] reports what a prepare edited (nothing again),
///   [`edit_totals`](ChatSession::edit_totals) the session's totals, and
///   [`Prepared::stable_prefix`] ends before the first message edited.
/// - **The task stays.** The first user message (the task) is carried into the
///   head past any cut, as the latest user message is, so every prompt holds it;
///   [`Edits::pin_task(false)`](super::edit::Edits::pin_task) lets it go like any
///   message.
/// - **Hooks.** A hook ([`prepare_with`](ChatSession::prepare_with)) runs first; the
///   edits then see the prompt with what the hook removed still in it, so they may
///   edit more than the rest needed.
/// - **Summaries.** [`prepare_summarizing`](ChatSession::prepare_summarizing) hands
///   the summarizer what the cut drops once the edits were not enough: the span
///   the engine's compaction would plan, as edited. The session keeps its summary
///   in the head, so the engine plans no compaction of its own.
///
/// The defaults are the engine's ([`Edits`](super::edit::Edits): the 3 most recent
/// results kept whole, as Anthropic's `keep`) and the policy's. For the prompt
/// cache, fewer pay: every batch of clearing rewrites what follows its first
/// cleared result, the results kept whole included, and with edits on the cut
/// moves rarely and drops mostly cleared results, so it can go further. In the
/// simulated 2,000-turn agent session of `examples/cache_simulation.rs` at 32k,
/// [`Edits::clear_tool_results(2)`](super::edit::Edits::clear_tool_results) with
/// `CutPolicy::cache_stable().with_low_water(0.4)` keeps 238 messages in a prompt
/// (29 without edits), reads 90.6% of the input from Anthropic's cache (87.7%)
/// and bills 6% less; the defaults keep 266, read 89.5% and bill 7% more, at 83%
/// mean window use (71%). A message is edited in place, so a session with edits
/// owns its messages (`Message`, or the provider request types), not `Rc`s of
/// them.
///
/// ```
/// use ctxbudget::{Message, chat::{ChatSession, ToolCall, edit::Edits}};
///
/// let words = |t: &str| t.split_whitespace().count();
/// let mut session = ChatSession::new(words, 2_000).with_edits(Edits::default());
/// session.push(Message::user("Find why the build fails."))?;
/// for i in 0..30 {
///     let id = format!("call_{i}");
///     let call = ToolCall::new(&id, "run", r#"{"cmd": "cargo build"}"#);
///     session.push(Message::assistant("").with_tool_call(call))?;
///     session.push(Message::tool(id, "error: mismatched types ".repeat(20)))?;
///     let prompt = session.prepare()?;
///     assert!(prompt.tokens() <= 2_000);
///     assert_eq!(prompt.messages()[0].content, "Find why the build fails.");
/// }
/// // Every call is still there; the old results are placeholders.
/// assert_eq!(session.len(), 61);
/// assert_eq!(session.messages()[2].content, Edits::DEFAULT_PLACEHOLDER);
/// assert!(session.edit_totals().cleared_tool_uses > 0);
/// # Ok::<(), ctxbudget::chat::SessionError>(())
/// ```
///
/// # What a push checks
///
/// The session keeps its history valid for the providers, so a push is refused,
/// with the session unchanged, when the message
///
/// - answers a call that is not waiting for a result
///   ([`SessionError::UnknownToolCall`]; results follow their call directly), or
///   one already answered ([`SessionError::DuplicateToolResult`]);
/// - makes a call with an id the session already uses
///   ([`SessionError::DuplicateToolCallId`]);
/// - comes while calls still wait for results and is not one
///   ([`SessionError::PendingToolCalls`]);
/// - is too large to fit any prompt with what every prompt keeps
///   ([`SessionError::MessageTooLarge`]).
///
/// Results are tool messages, or messages of any role that answer calls through
/// [`ChatMessage::tool_result_ids`] (an Anthropic user message of `tool_result`
/// blocks), so the session works with [`Message`](super::Message), the provider
/// request types and your own types alike.
///
/// ```
/// use ctxbudget::{CharEstimate, Message, chat::{ChatSession, ToolCall}};
///
/// let mut session = ChatSession::new(CharEstimate, 200);
/// session.push(Message::system("You are a shell assistant."))?;
/// for turn in 0..30 {
///     session.push(Message::user(format!("List the files of project {turn}.")))?;
///     let id = format!("call_{turn}");
///     session.push(Message::assistant("").with_tool_call(ToolCall::new(&id, "ls", "{}")))?;
///     session.push(Message::tool(id, "Cargo.toml README.md src/ tests/ benches/"))?;
///
///     let prompt = session.prepare()?;
///     assert!(prompt.tokens() <= 200);
///     if !prompt.cut_moved() {
///         // Everything the previous prompt sent is still there, in place.
///         assert!(turn == 0 || prompt.stable_prefix().is_some());
///     }
///     session.push(Message::assistant("Done."))?;
/// }
/// // The system message stays; the history starts at a unit boundary.
/// assert_eq!(session.messages()[0].content, "You are a shell assistant.");
/// assert!(session.len() < 30 * 4);
/// # Ok::<(), ctxbudget::chat::SessionError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ChatSession<M, C> {
    counter: C,
    format: ChatFormat,
    limit: usize,
    policy: CutPolicy,
    keep_latest_user: bool,
    start_on_user: bool,

    /// The prompt: the head, then the window.
    messages: Vec<M>,
    /// One entry per message.
    entries: Vec<Entry>,

    // Derived from `entries` (see `reindex`), kept up to date by pushes.
    head_len: usize,
    total: u128,
    system_tokens: u128,
    summary_tokens: u128,
    marks: Marks,
    ledger: Ledger,

    /// The tokens of every message ever pushed.
    pushed_tokens: u128,
    next_seq: u64,

    /// How many messages the previous prompt had (`None` before the first).
    prepared_len: Option<usize>,
    /// The first position changed since the previous prompt, other than by appends.
    dirty_from: usize,
    /// The messages the last `prepare` dropped, and whether it moved the cut.
    dropped: Vec<M>,
    cut_moved: bool,

    /// The context edits, when on, and the engine's counts of each message of
    /// the prompt (empty when edits are off).
    edit: Option<SessionEdits<M, C>>,
    counts: Vec<MessageCount>,
    /// What the edits of the last `prepare` did, and of all of them.
    edit_report: Option<EditReport>,
    edit_totals: EditTotals,
}

impl<M: ChatMessage, C: TokenCounter> ChatSession<M, C> {
    /// An empty session that counts with `counter` in the OpenAI chat format and
    /// keeps each prompt within `limit` tokens, reply priming included, with the
    /// [cache-stable policy](CutPolicy::cache_stable).
    ///
    /// `limit` is what the messages may cost: the model's window, minus the tokens
    /// kept for the reply, minus what the request spends outside its messages (tool
    /// definitions; Anthropic's top-level `system`, when the session does not hold
    /// it).
    pub fn new(counter: C, limit: usize) -> Self {
        Self {
            counter,
            format: ChatFormat::openai(),
            limit,
            policy: CutPolicy::cache_stable(),
            keep_latest_user: true,
            start_on_user: false,
            messages: Vec::new(),
            entries: Vec::new(),
            head_len: 0,
            total: 0,
            system_tokens: 0,
            summary_tokens: 0,
            marks: Marks::default(),
            ledger: Ledger::default(),
            pushed_tokens: 0,
            next_seq: 0,
            prepared_len: None,
            dirty_from: usize::MAX,
            dropped: Vec::new(),
            cut_moved: false,
            edit: None,
            counts: Vec::new(),
            edit_report: None,
            edit_totals: EditTotals::default(),
        }
    }

    /// Sets the chat format whose overhead is counted. Set it before the first push:
    /// messages already pushed keep the cost they were counted at.
    #[must_use]
    pub fn with_format(mut self, format: ChatFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets the policy that moves the cut.
    #[must_use]
    pub fn with_policy(mut self, policy: CutPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// With `true` (the default), the latest user message (the last that carries
    /// more than tool results) stays in every prompt: when the cut passes it, it is
    /// carried into the head, after the summary, until a newer user message arrives.
    /// An agent that works for many turns on one request keeps the request in view.
    /// When the message also holds tool results (Anthropic's `tool_result` blocks
    /// followed by the question), the tool call they answer is carried with it, with
    /// all its results. With `false`, it is dropped like the other messages.
    #[must_use]
    pub fn with_keep_latest_user(mut self, keep_latest_user: bool) -> Self {
        self.keep_latest_user = keep_latest_user;
        self
    }

    /// With `true`, a cut before the latest user message lands only on a turn of
    /// the user (a user message that is not a tool result), so that every prompt
    /// starts, after its system messages, on a user message; past the latest user
    /// message, the carried message leads (when it is carried with the tool call its
    /// results answer, the nearest user message before that call that is not a
    /// result is carried too, and leads). Anthropic's API rejects a first message
    /// from the assistant (`messages: first message must use the "user" role`, and
    /// the request module's Anthropic validation says so too), as does Amazon
    /// Bedrock: set this for Claude, or wherever a validator insists.
    ///
    /// With `false` (the default) the cut lands before any unit, which frees room
    /// in finer steps: in an agent session whose user speaks every 25 turns, cuts
    /// only at user turns would drop tens of thousands of tokens at a time.
    ///
    /// This chooses where the cut may land; it drops nothing the budget would keep,
    /// so messages that open the session before its first user message stay until a
    /// cut passes them. [`ChatTrimmer::with_start_on([Role::User])`](super::ChatTrimmer::with_start_on)
    /// is the trimmer's rule with the same aim, and drops such messages whatever the
    /// budget.
    #[must_use]
    pub fn with_start_on_user(mut self, start_on_user: bool) -> Self {
        self.start_on_user = start_on_user;
        self
    }

    /// The limit: what a prompt may cost, reply priming included.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Changes the limit (say, for a model with another window). The cut moves at
    /// the next [`prepare`](ChatSession::prepare) if the prompt no longer fits (which
    /// fails when the latest turn began with thinking and no longer fits whole).
    ///
    /// # Errors
    ///
    /// [`SessionError::LimitTooSmall`] when what every prompt must keep is over the
    /// new limit, and [`SessionError::ReplyPriming`] when the reply priming is; the
    /// limit is then unchanged.
    pub fn set_limit(&mut self, limit: usize) -> Result<(), SessionError> {
        let priming = self.format.reply_priming();
        if priming > limit {
            return Err(SessionError::ReplyPriming { priming, limit });
        }
        let needed = self.needed(self.summary_tokens);
        if needed > limit as u128 {
            return Err(SessionError::LimitTooSmall {
                needed: saturate(needed),
                limit,
            });
        }
        self.limit = limit;
        Ok(())
    }

    /// The budget a hook sees: the limit, with the reply priming reserved.
    pub fn budget(&self) -> HistoryBudget {
        HistoryBudget::new(self.limit).with_reserved(self.format.reply_priming())
    }

    /// The policy that moves the cut.
    pub fn policy(&self) -> CutPolicy {
        self.policy
    }

    /// The chat format.
    pub fn format(&self) -> ChatFormat {
        self.format
    }

    /// The counter.
    pub fn counter(&self) -> &C {
        &self.counter
    }

    /// The messages of the current prompt: the head, then the window (messages
    /// pushed since the last [`prepare`](ChatSession::prepare) included).
    pub fn messages(&self) -> &[M] {
        &self.messages
    }

    /// What each message of [`messages`](ChatSession::messages) costs, as counted
    /// when it arrived.
    pub fn message_tokens(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.entries.iter().map(|e| e.tokens)
    }

    /// The number of messages in the current prompt.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether the session holds no message.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// What the current prompt costs, reply priming included (more than the limit
    /// when the next [`prepare`](ChatSession::prepare) must move the cut).
    pub fn tokens(&self) -> usize {
        saturate(self.total + self.format.reply_priming() as u128)
    }

    /// How many messages open the prompt before the window: the system messages
    /// that opened the session or that the cut passed, the summary and the carried
    /// latest user message.
    pub fn head_len(&self) -> usize {
        self.head_len
    }

    /// The summary, if the session has one.
    pub fn summary(&self) -> Option<&M> {
        self.entries
            .iter()
            .position(|e| e.slot == Slot::Summary)
            .map(|at| &self.messages[at])
    }

    /// The calls still waiting for results.
    pub fn pending_calls(&self) -> Vec<String> {
        self.ledger.waiting()
    }

    /// Appends `message`, counted once, now. Returns what it costs, chat format
    /// overhead included.
    ///
    /// # Errors
    ///
    /// See [What a push checks](ChatSession#what-a-push-checks); also
    /// [`SessionError::ReplyPriming`] when the reply priming alone is over the
    /// limit. The session is unchanged after an error.
    pub fn push(&mut self, message: M) -> Result<usize, SessionError> {
        let priming = self.format.reply_priming();
        if priming > self.limit {
            return Err(SessionError::ReplyPriming {
                priming,
                limit: self.limit,
            });
        }
        let class = self.ledger.classify(&message)?;
        let (tokens, count) = self.count_one(&message);
        let wide = tokens as u128;
        let position = self.messages.len();
        let system = message.role() == Role::System;
        let system_wide = if system { wide } else { 0 };
        // System messages that open the session are the head from the start: they
        // never leave, and no cut can change what comes before them.
        let leading = system
            && self.head_len == self.messages.len()
            && self.entries.iter().all(Entry::is_system);
        let slot = if leading { Slot::Carried } else { Slot::Window };
        let entry = Entry::of(
            &message,
            self.next_seq,
            tokens,
            self.pushed_tokens,
            class.result,
            slot,
        );
        let mut marks = self.marks;
        marks.observe(position, &entry);
        let needed = self.system_tokens
            + system_wide
            + self.summary_tokens
            + marks.kept_tokens(self.keep_latest_user, self.start_on_user, self.pins_task())
            + priming as u128;
        if needed > self.limit as u128 {
            return Err(SessionError::MessageTooLarge {
                tokens,
                needed: saturate(needed),
                limit: self.limit,
            });
        }

        self.ledger.record(class);
        self.entries.push(entry);
        if leading {
            self.head_len += 1;
        }
        self.messages.push(message);
        if let Some(count) = count {
            self.counts.push(count);
        }
        self.next_seq += 1;
        self.pushed_tokens += wide;
        self.total += wide;
        self.system_tokens += system_wide;
        self.marks = marks;
        Ok(tokens)
    }

    /// Pushes `messages` in order, stopping at the first that is refused: the
    /// messages before it stay pushed.
    ///
    /// # Errors
    ///
    /// The first refusal, as [`push`](ChatSession::push) reports it.
    pub fn extend(&mut self, messages: impl IntoIterator<Item = M>) -> Result<(), SessionError> {
        for message in messages {
            self.push(message)?;
        }
        Ok(())
    }

    /// Removes the last message pushed and returns it, if it is still in the window:
    /// to take back a tool call whose results cannot be pushed (say, because the
    /// results are too large for the limit), pop the results pushed so far and then
    /// the call. Returns `None` when the window is empty.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, Message, chat::{ChatSession, SessionError, ToolCall}};
    ///
    /// let mut session = ChatSession::new(CharEstimate, 60);
    /// session.push(Message::user("Read the log."))?;
    /// session.push(Message::assistant("").with_tool_call(ToolCall::new("c1", "read", "{}")))?;
    /// let huge = Message::tool("c1", "x".repeat(1_000));
    /// assert!(matches!(session.push(huge), Err(SessionError::MessageTooLarge { .. })));
    /// assert!(session.prepare().is_err()); // c1 waits for a result
    /// session.pop(); // take the call back
    /// assert!(session.pending_calls().is_empty());
    /// assert_eq!(session.prepare()?.messages().len(), 1);
    /// # Ok::<(), SessionError>(())
    /// ```
    pub fn pop(&mut self) -> Option<M> {
        if self.messages.len() <= self.head_len {
            return None;
        }
        let message = self.messages.pop()?;
        self.entries.pop();
        if self.counts.len() > self.messages.len() {
            self.counts.pop();
        }
        self.dirty_from = self.dirty_from.min(self.messages.len());
        self.reindex();
        Some(message)
    }

    /// What the smallest prompt costs, reply priming included, with a summary of
    /// `summary_tokens`: the system messages, the summary, the latest user message
    /// with what is carried with it (when kept) and the last unit.
    fn needed(&self, summary_tokens: u128) -> u128 {
        self.system_tokens
            + summary_tokens
            + self
                .marks
                .kept_tokens(self.keep_latest_user, self.start_on_user, self.pins_task())
            + self.format.reply_priming() as u128
    }

    /// Recomputes what is derived from `messages` and `entries` after they were
    /// rebuilt.
    fn reindex(&mut self) {
        self.retally();
        self.ledger = Ledger::rebuild(&self.messages);
    }

    /// Recomputes what is derived from the entries alone (costs and marks), after
    /// their costs changed.
    fn retally(&mut self) {
        let entries = &self.entries;
        self.head_len = entries
            .iter()
            .take_while(|e| e.slot != Slot::Window)
            .count();
        self.total = entries.iter().map(|e| e.tokens as u128).sum();
        self.system_tokens = entries
            .iter()
            .filter(|e| e.is_system())
            .map(|e| e.tokens as u128)
            .sum();
        self.summary_tokens = entries
            .iter()
            .filter(|e| e.slot == Slot::Summary)
            .map(|e| e.tokens as u128)
            .sum();
        self.marks = Marks::default();
        for (p, entry) in entries.iter().enumerate() {
            self.marks.observe(p, entry);
        }
    }
}

/// A `u128` sum as a `usize`, saturating.
fn saturate(tokens: u128) -> usize {
    usize::try_from(tokens).unwrap_or(usize::MAX)
}
