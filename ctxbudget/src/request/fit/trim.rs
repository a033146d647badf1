//! [`trim`]: the dropping step of a fit, on any message type (a request's own, or
//! [`Precounted`](crate::chat::edit::Precounted) after the editing step), and what
//! it decided ([`Trim`]).

use super::must_stay::MustStay;
use crate::ChatTrimmer;
use crate::chat::{ChatFormat, ChatMessage, ChatTrimError, DropReason, Role};
use crate::count::TokenCounter;
use crate::request::{DroppedRequestMessage, RequestError};

/// How to trim: the counter and format, the limit, and what is spent before the
/// messages.
#[derive(Clone, Copy)]
pub(super) struct TrimSetup<'a> {
    pub(super) counter: &'a dyn TokenCounter,
    pub(super) format: ChatFormat,
    /// The input limit of the whole request.
    pub(super) limit: usize,
    /// What is spent outside the trimmed messages (fixed fields, a pinned task).
    pub(super) fixed: usize,
    /// Whether to count the dropped messages the trimmer did not.
    pub(super) count_dropped: bool,
    /// Whether the history must start on a user message (off when a pinned task,
    /// kept outside the trim, starts it).
    pub(super) start_on_user: bool,
}

/// What the dropping step decided, in the indices of the messages it was given.
#[derive(Debug)]
pub(super) struct Trim {
    /// `keep[i]`: whether message `i` stays; `None` when every message stays.
    pub(super) keep: Option<Vec<bool>>,
    /// The dropped messages, in order.
    pub(super) dropped: Vec<DroppedRequestMessage>,
    /// What the kept messages cost, reply priming included.
    pub(super) tokens: usize,
    /// How many messages are kept.
    pub(super) kept: usize,
    /// How many of them are system messages.
    pub(super) system_kept: usize,
}

impl Trim {
    /// The trim of `len` messages with a message at `task` added in front of the
    /// trimmed ones, kept, at `task_tokens`: maps the indices back.
    pub(super) fn with_pinned(mut self, task: usize, task_tokens: usize) -> Self {
        if let Some(keep) = &mut self.keep {
            keep.insert(task.min(keep.len()), true);
        }
        for d in &mut self.dropped {
            if d.index >= task {
                d.index = d.index.saturating_add(1);
            }
        }
        self.tokens = self.tokens.saturating_add(task_tokens);
        self.kept = self.kept.saturating_add(1);
        self
    }
}

/// Trims `messages` to what `setup` leaves for them, by removing whole messages.
///
/// # Errors
///
/// [`RequestError::DoesNotFit`] / [`RequestError::ToolLoopDoesNotFit`] when what
/// must stay does not fit, with what it needs.
pub(super) fn trim<M: ChatMessage>(
    messages: &[M],
    setup: TrimSetup<'_>,
) -> Result<Trim, RequestError> {
    let TrimSetup {
        counter,
        format,
        limit,
        fixed,
        ..
    } = setup;
    let message_budget = limit.saturating_sub(fixed);
    let must_stay = MustStay::of(messages, format, counter, limit);
    // What the trim needed, without the thinking loop it dropped.
    let does_not_fit = |needed: usize| must_stay.over(needed, |_| false);
    // A budget below the reply priming still trims, so that the error can say
    // what the messages that must stay need.
    let mut history_trimmer =
        ChatTrimmer::new(counter, message_budget.max(format.reply_priming())).with_format(format);
    if setup.start_on_user {
        history_trimmer = history_trimmer.with_start_on([Role::User]);
    }
    let trimmed = match history_trimmer.trim(messages) {
        Ok(chat) if chat.tokens() <= message_budget && fixed <= limit => chat,
        Ok(chat) => {
            let kept = |seq: usize| chat.elements().iter().any(|e| e.seq == seq);
            return Err(must_stay.over(fixed.saturating_add(chat.tokens()), kept));
        }
        Err(ChatTrimError::OverBudget { needed, .. }) => {
            return Err(does_not_fit(fixed.saturating_add(needed)));
        }
        Err(ChatTrimError::ReplyPriming { priming, .. }) => {
            return Err(does_not_fit(fixed.saturating_add(priming)));
        }
    };
    // Starting the history on a user message is a rule for trimming: a request
    // that fits whole is given back whole, whatever its first message.
    let only_leading_drops = !trimmed.dropped().is_empty()
        && trimmed
            .dropped()
            .iter()
            .all(|d| d.reason == DropReason::StartOnUser);
    if trimmed.dropped().is_empty() || only_leading_drops {
        let whole = if only_leading_drops {
            format.count_messages(counter, messages)
        } else {
            trimmed.tokens()
        };
        if whole <= message_budget {
            return Ok(Trim {
                keep: None,
                dropped: Vec::new(),
                tokens: whole,
                kept: messages.len(),
                system_kept: messages.iter().filter(|m| m.role() == Role::System).count(),
            });
        }
    }
    let mut keep = vec![false; messages.len()];
    for element in trimmed.elements() {
        keep[element.seq] = true;
    }
    // Starting on a user message may drop what the budget kept (a request with no
    // message is one the provider rejects), and a thinking loop is a unit the
    // budget may drop: what must stay not kept is the error.
    must_stay.check(&keep, fixed, fixed.saturating_add(trimmed.tokens()))?;
    let dropped = trimmed
        .dropped()
        .iter()
        .map(|d| DroppedRequestMessage {
            index: d.seq,
            role: messages[d.seq].role(),
            tokens: d.tokens.or_else(|| {
                setup
                    .count_dropped
                    .then(|| format.message_tokens(counter, &messages[d.seq]))
            }),
            reason: d.reason,
        })
        .collect();
    let system_kept = trimmed
        .elements()
        .iter()
        .filter(|e| e.role == Role::System)
        .count();
    Ok(Trim {
        keep: Some(keep),
        dropped,
        tokens: trimmed.tokens(),
        kept: trimmed.elements().len(),
        system_kept,
    })
}
