//! Preparing a session's next prompt: the hook, the cut, the summary, and what the
//! caller gets back ([`Prepared`], [`SummaryInput`]).

use super::entry::{Entry, Slot};
use super::marks::Carried;
use super::{ChatSession, SessionError, saturate};
use crate::chat::context::{ChatElement, TrimContext};
use crate::chat::edit::{EditReport, MessageCount};
use crate::chat::message::{ChatMessage, Role};
use crate::chat::units::{answers_calls, tool_units};
use crate::count::TokenCounter;

/// What a summarizer gets when the cut moves: the messages the cut drops, in order,
/// and the summary they would replace.
///
/// Return `Some(summary)` to put a summary of them (and of the previous summary) in
/// the head, where it stays, part of the stable prefix, until the next cut; return
/// `None` to keep the previous summary as it is.
///
/// The summary must cost at most [`room`](SummaryInput::room) tokens: what the
/// prompt has left once the cut moved. The cut is placed as if the summary kept the
/// previous one's size, so with [`CutPolicy::cache_stable`](super::CutPolicy::cache_stable)
/// the room is at least what lies between the low-water mark and the limit; with
/// [`CutPolicy::minimal_fit`](super::CutPolicy::minimal_fit) it can be nothing.
#[derive(Debug)]
pub struct SummaryInput<'s, M> {
    dropped: Vec<&'s M>,
    dropped_tokens: usize,
    previous: Option<&'s M>,
    room: usize,
}

impl<'s, M> SummaryInput<'s, M> {
    /// The messages the cut drops, oldest first (system messages, which are never
    /// dropped, and the latest user message, when it is carried, are not among
    /// them).
    pub fn dropped(&self) -> &[&'s M] {
        &self.dropped
    }

    /// What they cost together.
    pub fn dropped_tokens(&self) -> usize {
        self.dropped_tokens
    }

    /// The summary the new one replaces, if any.
    pub fn previous(&self) -> Option<&'s M> {
        self.previous
    }

    /// What the summary may cost, chat format overhead included: a larger one is
    /// refused with [`SessionError::SummaryTooLarge`].
    pub fn room(&self) -> usize {
        self.room
    }
}

/// The prompt for the next call, as [`ChatSession::prepare`] made it.
///
/// Send [`messages`](Prepared::messages) as they are. To use a provider's prompt
/// cache:
///
/// - **Anthropic:** mark the block at [`stable_prefix`](Prepared::stable_prefix)
///   (it reads what the previous call wrote) and the last message (it writes this
///   prompt for the next call) with `cache_control`, and after a cut the last
///   message of the head; [`cache_breakpoints`](Prepared::cache_breakpoints) lists
///   these, at most three of Anthropic's four.
/// - **OpenAI:** nothing to mark: prompts of 1,024 tokens or more are cached by their
///   longest common prefix, which the session keeps.
#[derive(Debug)]
pub struct Prepared<'s, M> {
    messages: &'s [M],
    entries: &'s [Entry],
    tokens: usize,
    limit: usize,
    stable: Option<usize>,
    head_len: usize,
    cut_moved: bool,
    dropped: &'s [M],
    edits: Option<&'s EditReport>,
}

impl<'s, M> Prepared<'s, M> {
    /// The messages to send, in order: the head, then the window.
    pub fn messages(&self) -> &'s [M] {
        self.messages
    }

    /// What each message costs, as counted when it arrived, in order.
    pub fn message_tokens(&self) -> impl ExactSizeIterator<Item = usize> + 's {
        self.entries.iter().map(|e| e.tokens)
    }

    /// What the prompt costs, reply priming included; never more than the limit.
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// The session's limit.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The index of the last message that the previous prompt had, at the same
    /// place, byte for byte: the prompt up to it is the start of the previous prompt
    /// (`None` for the first prompt, or when not even the first message is the
    /// same). When the cut did not move and no hook removed anything, it is the
    /// previous prompt's last message.
    pub fn stable_prefix(&self) -> Option<usize> {
        self.stable
    }

    /// How many messages open the prompt before the window: the system messages that
    /// opened the session or that the cut passed, the summary and the carried latest
    /// user message. They stay in place until the next cut.
    pub fn head_len(&self) -> usize {
        self.head_len
    }

    /// Whether this prompt moved the cut: when it did, only the start of the head
    /// can be what the previous prompt sent.
    pub fn cut_moved(&self) -> bool {
        self.cut_moved
    }

    /// The messages that left the session while preparing this prompt: those the cut
    /// passed, those the hook removed (with the tool calls or results that went with
    /// them) and the summary a new one replaced, in the order they had.
    pub fn dropped(&self) -> &'s [M] {
        self.dropped
    }

    /// What the [context edits](ChatSession#context-edits) of this prepare did,
    /// when the prompt was over the limit and edits are on (`None` otherwise).
    /// Message indices are positions in the prompt as it was before the cut
    /// moved: when [`cut_moved`](Prepared::cut_moved) is false, positions in
    /// [`messages`](Prepared::messages). A result cleared by an earlier prepare
    /// stays cleared, and is not reported again.
    pub fn edits(&self) -> Option<&'s EditReport> {
        self.edits
    }

    /// Where to put Anthropic's `cache_control` breakpoints, ascending: the last
    /// message of the head (after a cut, what the next prompts share), the stable
    /// prefix (what the previous call wrote) and the last message (what the next
    /// call will read); at most three, duplicates removed.
    pub fn cache_breakpoints(&self) -> Vec<usize> {
        let mut points: Vec<usize> = [
            self.head_len.checked_sub(1),
            self.stable,
            self.messages.len().checked_sub(1),
        ]
        .into_iter()
        .flatten()
        .collect();
        points.sort_unstable();
        points.dedup();
        points
    }
}

/// A new summary: the message, what it costs, and its counts with edits on.
type Summary<M> = (M, usize, Option<MessageCount>);

/// The prompt after a hook's removals and a cut: which old positions stay, where,
/// and which the cut drops.
struct Layout {
    /// Kept positions before the summary: system messages.
    head: Vec<usize>,
    /// The old summary, when it stays.
    summary: Option<usize>,
    /// Kept positions after the summary: the carried user message, then the window.
    after: Vec<usize>,
    /// The first window position that stays where it is; positions before it that
    /// stay are carried into the head.
    cut: usize,
    /// The positions the cut drops, in order (not those the hook removed).
    dropped: Vec<usize>,
}

impl<M: ChatMessage, C: TokenCounter> ChatSession<M, C> {
    /// Prepares the prompt for the next call: moves the cut if the prompt would not
    /// fit (see [`CutPolicy`](super::CutPolicy)), and reports what is stable since
    /// the previous prompt. When the prompt fits, this costs about nothing.
    ///
    /// # Errors
    ///
    /// [`SessionError::PendingToolCalls`] when calls still wait for results,
    /// [`SessionError::ReplyPriming`] when the reply priming alone is over the limit,
    /// and [`SessionError::ToolLoopDoesNotFit`] when the latest turn began with
    /// thinking and, with what every prompt keeps, no longer fits (it may not be
    /// cut); the session is then unchanged (but for the context edits made, see
    /// [`SessionError`]).
    pub fn prepare(&mut self) -> Result<Prepared<'_, M>, SessionError> {
        self.run(
            None::<fn(&mut TrimContext<'_, M>)>,
            None::<fn(SummaryInput<'_, M>) -> Option<M>>,
        )
    }

    /// [`prepare`](ChatSession::prepare), after `on_trim` had its say.
    ///
    /// The hook gets a [`TrimContext`] of the current prompt, with the costs the
    /// session remembers (nothing is counted again); its seqs are positions in
    /// [`messages`](ChatSession::messages). Unlike a trimmer's hook, what it removes
    /// leaves the session for good (with the rest of any tool call it belongs to,
    /// and of the latest turn when it began with thinking, which goes whole), so the
    /// next prompts stay the same from one call to the next. A hook that removes the
    /// latest user message leaves the messages after it to the turn before; with
    /// extended thinking, keep it or remove that turn too.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, Message, chat::ChatSession};
    ///
    /// let mut session = ChatSession::new(CharEstimate, 1_000);
    /// session.extend([
    ///     Message::system("Be brief."),
    ///     Message::user("[ping]"),
    ///     Message::assistant("[pong]"),
    ///     Message::user("What is 2 + 2?"),
    /// ])?;
    /// let prompt = session.prepare_with(|ctx| {
    ///     let noise: Vec<usize> = ctx
    ///         .elements()
    ///         .iter()
    ///         .filter(|e| e.message.content.starts_with('['))
    ///         .map(|e| e.seq)
    ///         .collect();
    ///     ctx.remove(noise);
    /// })?;
    /// assert_eq!(prompt.messages().len(), 2);
    /// assert_eq!(prompt.dropped().len(), 2);
    /// # Ok::<(), ctxbudget::chat::SessionError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`prepare`](ChatSession::prepare).
    pub fn prepare_with<F>(&mut self, on_trim: F) -> Result<Prepared<'_, M>, SessionError>
    where
        F: FnOnce(&mut TrimContext<'_, M>),
    {
        self.run(Some(on_trim), None::<fn(SummaryInput<'_, M>) -> Option<M>>)
    }

    /// [`prepare`](ChatSession::prepare), calling `summarize` when the cut moves, with
    /// the messages it drops and the previous summary: the summary it returns takes
    /// the previous one's place in the head.
    ///
    /// `summarize` runs your code (a model call, or a digest of tool outputs); it is
    /// called only on the turns that move the cut. The summary is counted and must fit
    /// beside what the prompt keeps.
    ///
    /// ```
    /// use ctxbudget::{CharEstimate, Message, chat::{ChatSession, CutPolicy}};
    ///
    /// let mut session = ChatSession::new(CharEstimate, 120);
    /// session.push(Message::system("Be brief."))?;
    /// let mut summaries = 0;
    /// for i in 0..20 {
    ///     session.push(Message::user(format!("Question number {i}?")))?;
    ///     session.prepare_summarizing(|input| {
    ///         summaries += 1;
    ///         let summary = Message::user(format!("(dropped {} messages)", input.dropped().len()));
    ///         assert!(input.room() >= 120 * 4 / 10 - 3); // the low-water mark is 60%
    ///         Some(summary)
    ///     })?;
    ///     session.push(Message::assistant(format!("Answer number {i}.")))?;
    /// }
    /// assert!(summaries > 0);
    /// assert!(session.summary().unwrap().content.starts_with("(dropped"));
    /// assert_eq!(session.messages()[1].content, session.summary().unwrap().content);
    /// # Ok::<(), ctxbudget::chat::SessionError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`prepare`](ChatSession::prepare), and [`SessionError::SummaryTooLarge`]
    /// when the summary does not fit, or [`SessionError::CallsAndResults`] when it
    /// makes or answers tool calls; the session is then unchanged (the summary is
    /// dropped).
    pub fn prepare_summarizing<S>(&mut self, summarize: S) -> Result<Prepared<'_, M>, SessionError>
    where
        S: FnOnce(SummaryInput<'_, M>) -> Option<M>,
    {
        self.run(None::<fn(&mut TrimContext<'_, M>)>, Some(summarize))
    }

    /// [`prepare_with`](ChatSession::prepare_with) and
    /// [`prepare_summarizing`](ChatSession::prepare_summarizing) together: the hook
    /// first, then the cut, then the summary.
    ///
    /// # Errors
    ///
    /// As [`prepare_summarizing`](ChatSession::prepare_summarizing).
    pub fn prepare_with_hooks<F, S>(
        &mut self,
        on_trim: F,
        summarize: S,
    ) -> Result<Prepared<'_, M>, SessionError>
    where
        F: FnOnce(&mut TrimContext<'_, M>),
        S: FnOnce(SummaryInput<'_, M>) -> Option<M>,
    {
        self.run(Some(on_trim), Some(summarize))
    }

    /// Puts `summary` in the head in place of the current summary (if any), and
    /// returns the one it replaces. For summaries made outside
    /// [`prepare_summarizing`](ChatSession::prepare_summarizing), say by an
    /// asynchronous model call: the next prompt changes from the summary on, so set
    /// it right after a cut, when that part of the prompt is new anyway.
    ///
    /// # Errors
    ///
    /// [`SessionError::SummaryTooLarge`] when the smallest prompt with it would be
    /// over the limit, and [`SessionError::CallsAndResults`] when it makes or answers
    /// tool calls; the session is then unchanged.
    pub fn set_summary(&mut self, summary: M) -> Result<Option<M>, SessionError> {
        let (tokens, count) = self.summary_cost(&summary)?;
        let needed = self.needed(tokens as u128);
        if needed > self.limit as u128 {
            let room = (self.limit as u128).saturating_sub(self.needed(0));
            return Err(SessionError::SummaryTooLarge {
                tokens,
                room: saturate(room),
            });
        }
        let layout = self.layout(&[], None);
        let mut dropped = self.rebuild(&layout, Some((summary, tokens, count)));
        Ok(dropped.pop())
    }

    /// What `summary` costs (and its counts, with edits on), if it may be one (it
    /// makes and answers no call).
    fn summary_cost(&self, summary: &M) -> Result<(usize, Option<MessageCount>), SessionError> {
        let calls = summary.role() == Role::Assistant && summary.tool_calls().next().is_some();
        if calls || answers_calls(summary) {
            return Err(SessionError::CallsAndResults);
        }
        Ok(self.count_one(summary))
    }

    fn run<F, S>(
        &mut self,
        on_trim: Option<F>,
        summarize: Option<S>,
    ) -> Result<Prepared<'_, M>, SessionError>
    where
        F: FnOnce(&mut TrimContext<'_, M>),
        S: FnOnce(SummaryInput<'_, M>) -> Option<M>,
    {
        let priming = self.format.reply_priming();
        if priming > self.limit {
            return Err(SessionError::ReplyPriming {
                priming,
                limit: self.limit,
            });
        }
        if self.ledger.is_waiting() {
            return Err(SessionError::PendingToolCalls {
                ids: self.ledger.waiting(),
            });
        }
        let removed = match on_trim {
            Some(on_trim) => self.hook(on_trim),
            None => Vec::new(),
        };
        self.edit_report = None;
        // Context edits first: the cut moves only when they were not enough.
        if self.kept(&removed) + priming as u128 > self.limit as u128 && self.edit.is_some() {
            self.edit_prompt();
        }
        let kept = self.kept(&removed);
        let fits = kept + priming as u128 <= self.limit as u128;
        let cut = if fits {
            None
        } else {
            Some(self.find_cut(&removed, kept)?)
        };

        let mut change = None;
        if cut.is_some() || !removed.is_empty() {
            let layout = self.layout(&removed, cut);
            let summary = match summarize {
                Some(summarize) if !layout.dropped.is_empty() => {
                    let rest: u128 = layout
                        .head
                        .iter()
                        .chain(&layout.after)
                        .map(|&p| self.entries[p].tokens as u128)
                        .sum::<u128>()
                        + priming as u128;
                    let room = (self.limit as u128).saturating_sub(rest);
                    let input = SummaryInput {
                        room: saturate(room),
                        dropped: layout.dropped.iter().map(|&p| &self.messages[p]).collect(),
                        dropped_tokens: saturate(
                            layout
                                .dropped
                                .iter()
                                .map(|&p| self.entries[p].tokens as u128)
                                .sum(),
                        ),
                        previous: layout.summary.map(|p| &self.messages[p]),
                    };
                    match summarize(input) {
                        Some(summary) => {
                            let (tokens, count) = self.summary_cost(&summary)?;
                            if tokens as u128 > room {
                                return Err(SessionError::SummaryTooLarge {
                                    tokens,
                                    room: saturate(room),
                                });
                            }
                            Some((summary, tokens, count))
                        }
                        None => None,
                    }
                }
                _ => None,
            };
            change = Some((layout, summary));
        }
        // Nothing can fail from here on.
        self.cut_moved = false;
        self.dropped.clear();
        if let Some((layout, summary)) = change {
            self.cut_moved = !layout.dropped.is_empty();
            self.dropped = self.rebuild(&layout, summary);
        }

        let stable_len = self
            .prepared_len
            .map_or(0, |previous| previous.min(self.dirty_from));
        self.prepared_len = Some(self.messages.len());
        self.dirty_from = usize::MAX;
        Ok(Prepared {
            messages: &self.messages,
            entries: &self.entries,
            tokens: self.tokens(),
            limit: self.limit,
            stable: stable_len.checked_sub(1),
            head_len: self.head_len,
            cut_moved: self.cut_moved,
            dropped: &self.dropped,
            edits: self.edit_report.as_ref(),
        })
    }

    /// What the messages the hook left cost.
    fn kept(&self, removed: &[bool]) -> u128 {
        if removed.is_empty() {
            return self.total;
        }
        let is_removed = |p: usize| removed.get(p).copied().unwrap_or(false);
        self.entries
            .iter()
            .enumerate()
            .filter(|&(p, _)| !is_removed(p))
            .map(|(_, e)| e.tokens as u128)
            .sum()
    }

    /// Runs the hook on the current prompt; returns which positions leave (empty
    /// when none), tool-call units and a latest turn that began with thinking whole.
    fn hook<F>(&self, on_trim: F) -> Vec<bool>
    where
        F: FnOnce(&mut TrimContext<'_, M>),
    {
        let elements = self
            .messages
            .iter()
            .zip(&self.entries)
            .enumerate()
            .map(|(seq, (message, entry))| ChatElement {
                seq,
                message,
                tokens: entry.tokens,
                role: entry.role,
                partial: None,
            })
            .collect();
        let mut ctx = TrimContext::new(elements, self.budget());
        on_trim(&mut ctx);
        let mut removed: Vec<bool> = (0..self.messages.len())
            .map(|p| ctx.is_removed(p))
            .collect();
        if !removed.contains(&true) {
            return Vec::new();
        }
        for unit in tool_units(&self.messages) {
            if unit.members.iter().any(|&p| removed[p]) {
                for &p in &unit.members {
                    removed[p] = true;
                }
            }
        }
        // A latest turn that began with thinking is one unit, as the trimmer's
        // thinking loop is: a later step is never kept without the first.
        if let Some(start) = self.marks.thinking_turn() {
            if let Some(tail) = removed.get_mut(start..) {
                if tail.contains(&true) {
                    tail.fill(true);
                }
            }
        }
        removed
    }

    /// Where the cut lands: the first window position that stays. `kept` is what the
    /// messages the hook left cost.
    ///
    /// # Errors
    ///
    /// [`SessionError::ToolLoopDoesNotFit`] when the cut would have to land inside
    /// the latest turn, which began with thinking.
    fn find_cut(&self, removed: &[bool], kept: u128) -> Result<usize, SessionError> {
        let is_removed = |p: usize| removed.get(p).copied().unwrap_or(false);
        let entries = &self.entries;
        let n = entries.len();
        let carried = self.carried(removed);
        let is_carried = |p: usize| carried.as_ref().is_some_and(|c| c.contains(p));
        // Leaves with any cut: what the cut passes that is not carried.
        let leaves = |p: usize, entry: &Entry| {
            !is_removed(p) && !entry.is_system() && entry.slot != Slot::Summary && !is_carried(p)
        };
        let mut prompt = kept + self.format.reply_priming() as u128;
        for (p, entry) in entries.iter().enumerate().take(self.head_len) {
            if leaves(p, entry) {
                prompt -= entry.tokens as u128;
            }
        }
        let target = self.policy.low_water_tokens(self.limit) as u128;
        let grid = self.policy.grid_tokens(self.limit) as u128;
        let mut last_start = (self.head_len..n)
            .rev()
            .find(|&p| !is_removed(p) && !entries[p].result)
            .unwrap_or(n);
        // A latest turn that began with thinking stays whole (the hook removes it
        // whole, or not at all): the cut lands at its first message at the latest.
        let thinking_turn = self
            .marks
            .thinking_turn()
            .filter(|&start| !is_removed(start))
            .map(|start| start.max(self.head_len));
        if let Some(start) = thinking_turn {
            last_start = last_start.min(start);
        }
        let offset = |p: usize| entries.get(p).map_or(self.pushed_tokens, |e| e.offset);
        let mut line: Option<u128> = None;
        for (p, entry) in entries
            .iter()
            .enumerate()
            .take(last_start)
            .skip(self.head_len)
        {
            // Starting on a user message: the window starts on a turn of the user;
            // past the latest user message, which is carried into the head, on any
            // unit.
            let turn_start = !self.start_on_user
                || entry.is_user_start()
                || carried
                    .as_ref()
                    .is_some_and(|c| !c.unit.is_empty() && p >= c.unit.end);
            if !is_removed(p) && !entry.result && turn_start {
                if line.is_none() && prompt <= target {
                    // The low-water mark is reached here; go on to the grid line.
                    line = Some(if grid == 0 {
                        0
                    } else {
                        offset(p).div_ceil(grid).saturating_mul(grid)
                    });
                }
                if line.is_some_and(|line| offset(p) >= line) {
                    return Ok(p);
                }
            }
            if leaves(p, entry) {
                prompt -= entry.tokens as u128;
            }
        }
        if prompt > self.limit as u128 {
            if thinking_turn.is_some() {
                return Err(SessionError::ToolLoopDoesNotFit {
                    needed: saturate(prompt),
                    limit: self.limit,
                });
            }
            // The hook removed the last unit, and the one now last does not fit with
            // what is carried: the window goes whole (what is carried always fits,
            // as appending checks).
            return Ok(n);
        }
        Ok(last_start)
    }

    /// What is carried past any cut with the latest user message and the pinned
    /// task (see [`Marks::carried`](super::marks::Marks::carried)), unless the hook
    /// removed it: an older one is not carried in its place, since appending
    /// checked the fit with the latest one only.
    fn carried(&self, removed: &[bool]) -> Option<Carried> {
        let is_removed = |p: usize| removed.get(p).copied().unwrap_or(false);
        let mut carried =
            self.marks
                .carried(self.keep_latest_user, self.start_on_user, self.pins_task())?;
        if carried.unit.clone().any(is_removed) {
            carried.unit = 0..0;
            carried.anchor = None;
        }
        carried.anchor = carried.anchor.filter(|&p| !is_removed(p));
        carried.task = carried.task.filter(|&p| !is_removed(p));
        Some(carried).filter(|c| !c.unit.is_empty() || c.task.is_some())
    }

    /// The prompt after the hook's removals and, with `cut`, a cut there.
    fn layout(&self, removed: &[bool], cut: Option<usize>) -> Layout {
        let is_removed = |p: usize| removed.get(p).copied().unwrap_or(false);
        let entries = &self.entries;
        let n = entries.len();
        let summary = entries
            .iter()
            .position(|e| e.slot == Slot::Summary)
            .filter(|&p| !is_removed(p));
        let Some(cut) = cut else {
            // Nothing moves: the kept messages stay in order (a new summary goes
            // after the carried system messages).
            let split = summary.unwrap_or_else(|| {
                entries[..self.head_len]
                    .iter()
                    .take_while(|e| e.is_system())
                    .count()
            });
            return Layout {
                head: (0..split).filter(|&p| !is_removed(p)).collect(),
                summary,
                after: (split..n)
                    .filter(|&p| !is_removed(p) && Some(p) != summary)
                    .collect(),
                cut: self.head_len,
                dropped: Vec::new(),
            };
        };
        let carried = self.carried(removed);
        let mut layout = Layout {
            head: Vec::new(),
            summary,
            after: Vec::new(),
            cut,
            dropped: Vec::new(),
        };
        for (p, entry) in entries.iter().enumerate().take(cut) {
            if is_removed(p) || Some(p) == summary {
                continue;
            }
            if entry.is_system() {
                layout.head.push(p);
            } else if carried.as_ref().is_some_and(|c| c.contains(p)) {
                layout.after.push(p);
            } else {
                layout.dropped.push(p);
            }
        }
        layout.after.extend((cut..n).filter(|&p| !is_removed(p)));
        layout
    }

    /// Makes `layout` the prompt, with `summary` in place of the old one when given;
    /// returns the messages that left, in the order they had.
    fn rebuild(&mut self, layout: &Layout, summary: Option<Summary<M>>) -> Vec<M> {
        let old_seqs: Vec<u64> = self.entries.iter().map(|e| e.seq).collect();
        let messages = std::mem::take(&mut self.messages);
        let entries = std::mem::take(&mut self.entries);
        // With edits on, each message's counts go with it.
        let mut counts = std::mem::take(&mut self.counts).into_iter();
        let mut slots: Vec<Option<(M, Entry, Option<MessageCount>)>> = messages
            .into_iter()
            .zip(entries)
            .map(|(m, e)| Some((m, e, counts.next())))
            .collect();
        let mut take = |p: usize, session: &mut Self| {
            if let Some((message, mut entry, count)) = slots.get_mut(p).and_then(Option::take) {
                if p < layout.cut && entry.slot == Slot::Window {
                    entry.slot = Slot::Carried;
                }
                session.messages.push(message);
                session.entries.push(entry);
                session.counts.extend(count);
            }
        };
        for &p in &layout.head {
            take(p, self);
        }
        match summary {
            Some((message, tokens, count)) => {
                let entry = Entry::of(&message, self.next_seq, tokens, 0, false, Slot::Summary);
                self.entries.push(entry);
                self.messages.push(message);
                self.counts.extend(count);
                self.next_seq += 1;
            }
            None => {
                if let Some(p) = layout.summary {
                    take(p, self);
                }
            }
        }
        for &p in &layout.after {
            take(p, self);
        }
        let dropped = slots.into_iter().flatten().map(|(m, _, _)| m).collect();
        let same = old_seqs
            .iter()
            .zip(&self.entries)
            .take_while(|(old, new)| **old == new.seq)
            .count();
        self.dirty_from = self.dirty_from.min(same);
        self.reindex();
        dropped
    }
}
