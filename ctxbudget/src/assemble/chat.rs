//! Chat histories as layer content: rendered into a text ([`fit_chat`],
//! [`render_chat`]) for a string prompt, or kept as messages ([`fit_chat_messages`],
//! [`FittedMessages`]) for a prompt assembled as messages, edited first
//! ([`fit_chat_messages_edited`]) when context edits are asked for.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::policy::{FitError, FittedLayer, LayerPolicy, ROUNDS};
use crate::chat::edit::{ContextEditor, EditReport, Edits, Precounted};
use crate::chat::{
    ChatFormat, ChatMessage, ChatStrategy, ChatTrimError, ChatTrimmer, DropReason, Message, Role,
    ToolCall,
};
use crate::count::TokenCounter;

/// How [`fit_chat`] writes a message: `role: content`, with `role (name)` for a named
/// message and `tool [call id]` for a tool result, then one line
/// `  -> name(arguments) [call id]` per tool call. Messages are separated by a line
/// break.
///
/// ```
/// use ctxbudget::{Message, chat::ToolCall, assemble::render_chat};
///
/// let chat = [
///     Message::user("Weather in Paris?"),
///     Message::assistant("").with_tool_call(ToolCall::new("c1", "weather", r#"{"city":"Paris"}"#)),
///     Message::tool("c1", "18°C, cloudy"),
/// ];
/// assert_eq!(
///     render_chat(&chat),
///     "user: Weather in Paris?\nassistant: \n  -> weather({\"city\":\"Paris\"}) [c1]\ntool [c1]: 18°C, cloudy"
/// );
/// ```
pub fn render_chat<'m, M: ChatMessage + 'm>(messages: impl IntoIterator<Item = &'m M>) -> String {
    let mut out = String::new();
    for message in messages {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(message.role().as_str());
        if let Some(id) = message.tool_call_id() {
            out.push_str(" [");
            out.push_str(id);
            out.push(']');
        } else if let Some(name) = message.name() {
            out.push_str(" (");
            out.push_str(name);
            out.push(')');
        }
        out.push_str(": ");
        out.push_str(message.content());
        for call in message.tool_calls() {
            out.push_str("\n  -> ");
            out.push_str(call.name);
            out.push('(');
            out.push_str(call.arguments);
            out.push_str(") [");
            out.push_str(call.id);
            out.push(']');
        }
    }
    out
}

/// Fits a chat history to `budget` tokens of `counter`, rendered with
/// [`render_chat`]: [`ChatTrimmer`] drops whole messages (never a tool call without
/// its results, never the system messages or the latest user message), the latest
/// kept for [`LayerPolicy::Tail`] and every policy but `Head`, which keeps the
/// earliest. [`LayerPolicy::Never`] keeps every message or fails.
///
/// The trimmer estimates each message's cost; the rendered text is counted exactly
/// and, when over, trimmed again to less, a few times at most. When that does not
/// fit, the history is cut to its pinned messages — the system messages and the
/// latest user message — which are never dropped: if even they are over `budget`,
/// that is an error carrying their exact count.
///
/// The report counts messages: `kept` of `total` `"messages"`.
///
/// # Errors
///
/// [`FitError::NeverCut`] for [`LayerPolicy::Never`] and a history over `budget`;
/// [`FitError::PinnedMessages`] (with the rendered count of the pinned messages) when
/// the messages that must stay do not fit.
///
/// ```
/// use ctxbudget::{CharEstimate, assemble::LayerPolicy, Message, assemble::fit_chat};
///
/// let chat: Vec<Message> = (0..20)
///     .map(|i| if i % 2 == 0 { Message::user(format!("question {i}")) } else { Message::assistant(format!("answer {i}")) })
///     .collect();
/// let out = fit_chat(&chat, 30, &CharEstimate, &LayerPolicy::Tail)?;
/// assert!(out.tokens <= 30 && out.cut());
/// assert!(out.text.ends_with("assistant: answer 19"));
/// assert_eq!(out.unit, "messages");
///
/// // The latest user message is pinned: over the budget, it is an error.
/// let err = fit_chat(&chat, 3, &CharEstimate, &LayerPolicy::Tail).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "the system messages and the latest user message need 5 tokens but may use 3 \
///      (2 over); give the layer at least 5 tokens or shorten those messages"
/// );
/// # Ok::<(), ctxbudget::assemble::FitError>(())
/// ```
pub fn fit_chat<'a, M: ChatMessage>(
    history: &'a [M],
    budget: usize,
    counter: &dyn TokenCounter,
    policy: &LayerPolicy,
) -> Result<FittedLayer<'a>, FitError> {
    let total = history.len();
    let fitted = |text: String, tokens: usize, kept: usize| {
        FittedLayer::whole(text, tokens).with_kept(kept, total, "messages")
    };
    if matches!(policy, LayerPolicy::Never) {
        let text = render_chat(history);
        return match counter.count_within(&text, budget) {
            Some(tokens) => Ok(fitted(text, tokens, total)),
            None => Err(FitError::never_cut(counter.count(&text), budget)),
        };
    }
    let strategy = if matches!(policy, LayerPolicy::Head) {
        ChatStrategy::KeepFirst
    } else {
        ChatStrategy::KeepLast
    };
    // `role: ` and the line break cost about two tokens a message beyond the role and
    // the content; the rendered text is counted exactly below.
    let format = ChatFormat::content_only().with_tokens_per_message(2);
    let memo = Memo::new(counter);
    let trim = |limit: usize| {
        ChatTrimmer::new(&memo as &dyn TokenCounter, limit)
            .with_format(format)
            .with_strategy(strategy)
            .trim(history)
    };
    // The estimate is a little off either way: search the trimmer's limit for the
    // most messages whose rendered text fits, between the largest limit that fitted
    // and the smallest that did not.
    let mut best: Option<FittedLayer<'a>> = None;
    let (mut fitted_at, mut over_at): (Option<usize>, Option<usize>) = (None, None);
    let mut limit = budget;
    for _ in 0..ROUNDS {
        let Ok(trimmed) = trim(limit) else {
            // By the estimate, what must stay is over `limit`.
            break;
        };
        let text = render_chat(trimmed.messages());
        let next = if let Some(tokens) = counter.count_within(&text, budget) {
            let slack = budget - tokens;
            let complete = trimmed
                .dropped()
                .iter()
                .all(|d| d.reason != DropReason::OverBudget);
            best = Some(fitted(text, tokens, trimmed.elements().len()));
            if complete || slack == 0 {
                break;
            }
            fitted_at = Some(limit);
            // The estimate left `slack` unused: ask for that much more.
            limit.saturating_add(slack)
        } else {
            over_at = Some(limit);
            // Ask for at least the excess less than what was kept, by the estimate.
            let over = counter.count(&text).saturating_sub(budget).max(1);
            trimmed.tokens().min(limit).saturating_sub(over)
        };
        let low = fitted_at.map_or(0, |f| f.saturating_add(1));
        let high = over_at.map_or(usize::MAX, |o| o.saturating_sub(1));
        if low > high {
            break;
        }
        let next = next.clamp(low, high);
        if next == limit {
            break;
        }
        limit = next;
    }
    if let Some(best) = best {
        return Ok(best);
    }
    // The messages that are never dropped, alone.
    let latest_user = history.iter().rposition(|m| m.role() == Role::User);
    let pinned: Vec<&M> = history
        .iter()
        .enumerate()
        .filter(|&(seq, m)| m.role() == Role::System || Some(seq) == latest_user)
        .map(|(_, m)| m)
        .collect();
    let text = render_chat(pinned.iter().copied());
    if let Some(tokens) = counter.count_within(&text, budget) {
        return Ok(fitted(text, tokens, pinned.len()));
    }
    let tokens = counter.count(&text);
    Err(FitError::PinnedMessages {
        tokens,
        budget,
        over: tokens.saturating_sub(budget),
    })
}

/// Counts each text once, however often [`ChatTrimmer`] asks: it counts every
/// message again on each of [`fit_chat`]'s refits.
///
/// Texts are told apart by address and length, and a hash of their bytes confirms a
/// hit: a message type's [`content_tokens`](ChatMessage::content_tokens) may count a
/// text it builds and drops, and the next one built at the same address must not
/// take its count. Hashing is far cheaper than counting.
struct Memo<'c> {
    counter: &'c dyn TokenCounter,
    seen: RefCell<HashMap<(usize, usize), (u64, usize)>>,
}

impl<'c> Memo<'c> {
    fn new(counter: &'c dyn TokenCounter) -> Self {
        Memo {
            counter,
            seen: RefCell::new(HashMap::new()),
        }
    }
}

impl TokenCounter for Memo<'_> {
    fn count(&self, text: &str) -> usize {
        let key = (text.as_ptr() as usize, text.len());
        let mut hasher = DefaultHasher::new();
        text.hash(&mut hasher);
        let hash = hasher.finish();
        if let Some(&(seen, tokens)) = self.seen.borrow().get(&key) {
            if seen == hash {
                return tokens;
            }
        }
        let tokens = self.counter.count(text);
        self.seen.borrow_mut().insert(key, (hash, tokens));
        tokens
    }

    fn exactness(&self) -> crate::count::Exactness {
        self.counter.exactness()
    }
}

/// A chat history fitted as messages: copies of the kept messages, where they were in
/// the history, and the report of the fit.
///
/// The messages are copies of the kept messages' role, text, name, tool calls and
/// tool-call id: what a neutral [`Message`] can hold. A message type of your own may carry more (images, provider fields):
/// [`indices`](Self::indices) says which of your messages were kept, so you can send
/// those. The [`layer`](Self::layer)'s tokens are counted on your messages, with
/// their own [`content_tokens`](ChatMessage::content_tokens).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FittedMessages<'a> {
    /// The report: `text` is the kept messages rendered with [`render_chat`] (for
    /// logs; it is not sent), `tokens` what they cost as messages of the chat format
    /// (per-message tokens included, the reply priming not), `kept` of `total`
    /// `"messages"`.
    pub layer: FittedLayer<'a>,
    /// The kept messages, in order.
    pub messages: Vec<Message>,
    /// Where each kept message was in the history.
    pub indices: Vec<usize>,
    /// What context edits did to the history before messages were dropped
    /// ([`fit_chat_messages_edited`]), its indices those of the history; `None`
    /// when no edits were asked for.
    pub edits: Option<EditReport>,
}

impl FittedMessages<'_> {
    /// No messages, of a history of `total`.
    pub fn empty(total: usize) -> Self {
        FittedMessages {
            layer: FittedLayer::empty().with_kept(0, total, "messages"),
            messages: Vec::new(),
            indices: Vec::new(),
            edits: None,
        }
    }
}

/// A copy of any chat message's role, content, name, tool calls and tool-call id.
pub(crate) fn copy_message<M: ChatMessage + ?Sized>(message: &M) -> Message {
    Message {
        role: message.role(),
        content: message.content().to_owned(),
        name: message.name().map(str::to_owned),
        tool_calls: message
            .tool_calls()
            .map(|call| ToolCall::new(call.id, call.name, call.arguments))
            .collect(),
        tool_call_id: message.tool_call_id().map(str::to_owned),
    }
}

/// Fits a chat history to `budget` tokens as messages counted in `format`: each
/// message costs its content and the format's per-message tokens, the reply priming is
/// left out (a prompt pays it once, not per layer).
///
/// [`ChatTrimmer`] drops whole messages as in [`fit_chat`]: never a tool call without
/// its results, never the system messages or the latest user message; the latest
/// messages are kept for every policy but [`LayerPolicy::Head`], which keeps the
/// earliest, and [`LayerPolicy::Never`] keeps every message or fails. The count is
/// the format's, exact for the counter: no rendering, no refits.
///
/// # Errors
///
/// [`FitError::NeverCut`] for [`LayerPolicy::Never`] and a history over `budget`;
/// [`FitError::PinnedMessages`] when the messages that must stay do not fit.
///
/// ```
/// use ctxbudget::assemble::{LayerPolicy, fit_chat_messages};
/// use ctxbudget::chat::ChatFormat;
/// use ctxbudget::Message;
///
/// let words = |t: &str| t.split_whitespace().count();
/// let chat: Vec<Message> = (0..10)
///     .map(|i| if i % 2 == 0 { Message::user(format!("question {i}")) } else { Message::assistant(format!("answer {i}")) })
///     .collect();
/// // Each message: 3 per message + 1 for the role + 2 words.
/// let out = fit_chat_messages(&chat, 20, &words, &ChatFormat::openai(), &LayerPolicy::Tail)?;
/// assert_eq!(out.indices, [7, 8, 9]);
/// assert_eq!((out.layer.tokens, out.layer.kept, out.layer.total), (18, 3, 10));
/// assert_eq!(out.messages[2], Message::assistant("answer 9"));
/// # Ok::<(), ctxbudget::assemble::FitError>(())
/// ```
pub fn fit_chat_messages<'a, M: ChatMessage>(
    history: &'a [M],
    budget: usize,
    counter: &dyn TokenCounter,
    format: &ChatFormat,
    policy: &LayerPolicy,
) -> Result<FittedMessages<'a>, FitError> {
    let total = history.len();
    let format = format.with_reply_priming(0);
    let kept = keep(history, budget, counter, format, policy)?;
    let tokens = sum(&kept);
    let indices: Vec<usize> = kept.iter().map(|(i, _)| *i).collect();
    let text = render_chat(indices.iter().map(|&i| &history[i]));
    let messages = indices.iter().map(|&i| copy_message(&history[i])).collect();
    Ok(FittedMessages {
        layer: FittedLayer::whole(text, tokens).with_kept(indices.len(), total, "messages"),
        messages,
        indices,
        edits: None,
    })
}

/// [`fit_chat_messages`] with context edits: the history's messages are copied,
/// the copies edited by a [`ContextEditor`] with `budget` as its limit (old
/// thinking, oversized and old tool results shed first, see
/// [`chat::edit`](crate::chat::edit)), then whole messages dropped from the edited
/// copies as [`fit_chat_messages`] drops them, with the counts the edits made
/// ([`Precounted`]): each message's content is counted once.
///
/// The copies are what [`FittedMessages::messages`] holds anyway (a neutral
/// [`Message`] of each kept message), so editing costs one copy of the messages
/// that are then dropped, and nothing when the history fits: then no message is
/// edited. Your history is left as it was; [`FittedMessages::edits`] says what was
/// edited, by index in it. The layer's tokens are counted on the edited copies.
///
/// [`Edits::none()`] and [`LayerPolicy::Never`] (send the history whole or fail)
/// are [`fit_chat_messages`]. A compaction the edits plan is not applied (no
/// summarizer is called): the trimmer drops that span.
///
/// # Errors
///
/// As [`fit_chat_messages`].
///
/// ```
/// use ctxbudget::assemble::{LayerPolicy, fit_chat_messages, fit_chat_messages_edited};
/// use ctxbudget::chat::{ChatFormat, ToolCall, edit::Edits};
/// use ctxbudget::Message;
///
/// let words = |t: &str| t.split_whitespace().count();
/// let mut chat = vec![Message::user("Why does the test fail?")];
/// for i in 0..6 {
///     let id = format!("call_{i}");
///     chat.push(Message::assistant("").with_tool_call(ToolCall::new(&id, "run_tests", "{}")));
///     chat.push(Message::tool(&id, "FAILED test_parse ".repeat(40)));
/// }
/// let format = ChatFormat::openai();
/// let dropped = fit_chat_messages(&chat, 400, &words, &format, &LayerPolicy::Tail)?;
/// assert_eq!(dropped.indices, [0, 5, 6, 7, 8, 9, 10, 11, 12]); // the oldest 2 calls dropped
///
/// let edited = fit_chat_messages_edited(&chat, 400, &words, &format, &LayerPolicy::Tail, &Edits::default())?;
/// assert_eq!(edited.layer.kept, 13); // every message: each result kept its head and tail
/// assert!(edited.layer.tokens <= 400);
/// assert!(edited.messages[2].content.contains("tokens cut"));
/// assert_eq!(chat[2].content, "FAILED test_parse ".repeat(40)); // yours as it was
/// assert_eq!(edited.edits.unwrap().totals.truncated, 6);
/// # Ok::<(), ctxbudget::assemble::FitError>(())
/// ```
pub fn fit_chat_messages_edited<'a, M: ChatMessage>(
    history: &'a [M],
    budget: usize,
    counter: &dyn TokenCounter,
    format: &ChatFormat,
    policy: &LayerPolicy,
    edits: &Edits,
) -> Result<FittedMessages<'a>, FitError> {
    if edits.is_none() || matches!(policy, LayerPolicy::Never) {
        return fit_chat_messages(history, budget, counter, format, policy);
    }
    let total = history.len();
    let format = format.with_reply_priming(0);
    let mut copies: Vec<Message> = history.iter().map(copy_message).collect();
    let edited = ContextEditor::new(counter, budget)
        .with_format(format)
        .with_edits(edits.clone())
        .edit(&mut copies);
    let kept = keep(
        &Precounted::wrap(&copies, edited.content_tokens()),
        budget,
        counter,
        format,
        policy,
    )?;
    let tokens = sum(&kept);
    let indices: Vec<usize> = kept.iter().map(|(i, _)| *i).collect();
    let text = render_chat(indices.iter().map(|&i| &copies[i]));
    // The kept copies move out, in order; the dropped ones are freed.
    let mut copies: Vec<Option<Message>> = copies.into_iter().map(Some).collect();
    let messages = indices
        .iter()
        .filter_map(|&i| copies.get_mut(i).and_then(Option::take))
        .collect();
    Ok(FittedMessages {
        layer: FittedLayer::whole(text, tokens).with_kept(indices.len(), total, "messages"),
        messages,
        indices,
        edits: Some(edited.into_report()),
    })
}

/// What the kept messages of a fit cost, together.
fn sum(kept: &[(usize, usize)]) -> usize {
    kept.iter()
        .fold(0usize, |sum, (_, t)| sum.saturating_add(*t))
}

/// The messages of `history` that stay within `budget` as `policy` says (format
/// without reply priming): each one's index and what it costs.
fn keep<M: ChatMessage>(
    history: &[M],
    budget: usize,
    counter: &dyn TokenCounter,
    format: ChatFormat,
    policy: &LayerPolicy,
) -> Result<Vec<(usize, usize)>, FitError> {
    if matches!(policy, LayerPolicy::Never) {
        let messages: Vec<(usize, usize)> = history
            .iter()
            .enumerate()
            .map(|(i, m)| (i, format.message_tokens(counter, m)))
            .collect();
        let tokens = sum(&messages);
        if tokens > budget {
            return Err(FitError::never_cut(tokens, budget));
        }
        return Ok(messages);
    }
    let strategy = if matches!(policy, LayerPolicy::Head) {
        ChatStrategy::KeepFirst
    } else {
        ChatStrategy::KeepLast
    };
    let trimmed = ChatTrimmer::new(counter, budget)
        .with_format(format)
        .with_strategy(strategy)
        .trim(history);
    match trimmed {
        Ok(trimmed) => Ok(trimmed
            .elements()
            .iter()
            .map(|e| (e.seq, e.tokens))
            .collect()),
        Err(ChatTrimError::OverBudget { needed, .. }) => Err(FitError::PinnedMessages {
            tokens: needed,
            budget,
            over: needed.saturating_sub(budget),
        }),
        Err(other) => Err(other.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ChatFormat;

    /// A message whose content costs a text it writes into a shared buffer: each at
    /// the same address, of the same length, with different words.
    struct Built {
        words: usize,
    }

    thread_local! {
        static BUFFER: RefCell<String> = RefCell::new(String::with_capacity(64));
    }

    impl ChatMessage for Built {
        fn role(&self) -> Role {
            Role::Assistant
        }
        fn content(&self) -> &'static str {
            ""
        }
        fn content_tokens<C: TokenCounter + ?Sized>(&self, counter: &C) -> usize {
            BUFFER.with(|buffer| {
                let mut text = buffer.borrow_mut();
                text.clear();
                for _ in 0..self.words {
                    text.push_str("w ");
                }
                while text.len() < 20 {
                    text.push('.');
                }
                counter.count(&text)
            })
        }
    }

    #[test]
    fn the_memo_never_gives_one_text_the_count_of_another() {
        let words = |t: &str| t.split_whitespace().count();
        let memo = Memo::new(&words);
        let format = ChatFormat::content_only();
        let counts: Vec<usize> = (1..=5)
            .map(|n| format.message_tokens(&memo, &Built { words: n }))
            .collect();
        // The role ("assistant") is one word, the content `n` and the dots.
        assert_eq!(counts, [3, 4, 5, 6, 7]);
    }
}
