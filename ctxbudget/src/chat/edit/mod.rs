//! Context editing: shed the bulk of old tool output and thinking before forgetting
//! whole turns.
//!
//! In an agent's history most tokens are tool output: in the shipped OpenAI coding
//! session, 91% of them. Dropping whole turns, oldest first, throws away the task,
//! every decision and every call to save tokens that sit almost entirely in old
//! results. [`ContextEditor`] edits the messages in place instead, for any message
//! type that implements [`EditableMessage`] ([`Message`](crate::Message) and both
//! provider request formats do), and counts what it does exactly.
//!
//! # Design note: wiring the engine in
//!
//! The engine counts each message once, edits in place (it never removes or moves a
//! message, except for a compaction you apply), and returns [`Edited`]: a report,
//! what each message costs now, and a compaction plan when edits were not enough.
//! Dropping whole units stays with [`ChatTrimmer`](crate::ChatTrimmer).
//!
//! - **`RequestFitter`**: with the message budget (`limit - fixed`), run
//!   `ContextEditor::new(&counter, budget).with_format(request.chat_format())` on
//!   the request's messages (OpenAI: `&mut request.messages`; Anthropic:
//!   `&mut *request.messages_mut()`, whose guard works out the thinking retention
//!   again when dropped). Then trim [`Precounted::wrap`]`(messages,
//!   edited.content_tokens())` so that nothing is counted twice, protect the pinned
//!   task in the trimmer, and put `edited.report().totals` in the report (`"edits"`
//!   in `--report-json`). `Edits::none()` is `--drop-only`.
//! - **`ChatSession`**: it owns its messages, so edits made in place stay made:
//!   when `prepare` finds the prompt over the limit, it runs
//!   [`ContextEditor::edit_counted`] on the prompt before moving the cut, with the
//!   [`MessageCount`]s it made when the messages arrived and [`Edits::low_water`]
//!   set to the [`CutPolicy`](crate::chat::CutPolicy)'s mark, and takes the
//!   entries' tokens from [`Edited::message_tokens`]; the cut moves only if edits
//!   were not enough. [`ContextEditor::edit_sticky`] and [`ClearedResults`] are
//!   for a history that keeps the original messages and edits a copy each turn.
//! - **`assemble`**: the chat-history layer does what `RequestFitter` does, with
//!   the layer's budget.
//!
//! # The steps
//!
//! Nothing happens while the messages cost at most the [trigger](Edits::trigger)
//! (by default, the limit). Past it, the steps run in this order, each only when
//! the ones before did not bring the messages under the trigger:
//!
//! 1. **Old thinking.** The thinking of assistant messages before the latest user
//!    turn is dropped, where it counts (Anthropic counts earlier thinking only on
//!    models that keep it); the turn in progress keeps its signed thinking, which
//!    an unfinished tool loop needs.
//! 2. **Oversized tool results.** A result over
//!    [`max_tool_result_tokens`](Edits::truncate_tool_results) keeps its head and
//!    its tail, cut by the [trim engine](crate::trim) at the strongest boundaries
//!    that do not waste the budget, around a marker that says how many tokens were
//!    cut; each text block of a result made of blocks keeps its share. Images and
//!    documents in old results (all but the `keep` most recent) become a
//!    placeholder text.
//! 3. **Clearing old tool results.** All but the [`keep`](Edits::clear_tool_results)
//!    most recent results get the [placeholder](Edits::placeholder), oldest first,
//!    in one batch that brings the messages between the
//!    [low-water mark](Edits::low_water) and the trigger (see [Cache](#cache));
//!    [`exclude_tools`](Edits::exclude_tools) are never touched, and with
//!    [`clear_tool_inputs`](Edits::clear_tool_inputs) the call's arguments become
//!    `{}`. Calls and results stay in place with their ids: the request stays valid
//!    and the conversation keeps its shape.
//! 4. **Compaction.** If the messages are still over, the engine plans the span the
//!    dropping step would drop to reach the low-water mark ([`CompactionPlan`]),
//!    and leaves it to you: hand it to
//!    a summarizer ([`ContextEditor::edit_summarizing`], or the two steps
//!    [`edit`](ContextEditor::edit) then [`apply_summary`](ContextEditor::apply_summary)
//!    for `async` code); the summary goes in at the cut as a user message marked by
//!    the [summary prefix](Edits::summary_prefix) (for Anthropic, merged into the
//!    next user message when that one follows). The library never calls a model.
//! 5. **Dropping whole units** is the trimmer's, after this.
//!
//! The first user message, the task, is never edited or summarized away
//! ([`pin_task`](Edits::pin_task)). A placeholder or a marker never makes a result
//! larger: a result already shorter than its placeholder is left as it is. The
//! [report](EditReport) names every edit (kind, message, tool, tokens before and
//! after) with totals named as Anthropic's `applied_edits`; a message it does not
//! name is exactly as it came in.
//!
//! # Cache
//!
//! Every edit changes the prompt from that point on and so breaks the providers'
//! prefix caches: a clearing boundary that moved on every turn would rewrite the
//! whole window every turn. So the engine is a deterministic function of the
//! messages with the hysteresis of a session:
//!
//! - clearing saves the excess over the trigger *rounded up to a multiple of the
//!   band* between the trigger and the [low-water mark](Edits::low_water) (10% of
//!   the limit by default, tuned for a stateless fit; a session passes its own
//!   mark, 40% below the limit): every request whose excess falls in one band gets the
//!   same cleared results, so the turns of a growing conversation (the same history
//!   with messages appended) share their edited prefix until the conversation
//!   outgrows the band, and then the boundary jumps far, once;
//! - the boundary lands on a grid (5% of the limit, by token offset from the start
//!   of the history, counted as the messages came in), so it sits on the same few
//!   places whatever the request that moved it;
//! - [`clear_at_least`](Edits::clear_at_least) keeps a batch from saving too
//!   little to be worth the cache write;
//! - when even every edit would not fit, the
//!   [`RequestFitter`](crate::request::RequestFitter) drops the oldest whole units
//!   down to the low-water mark, rounded up to the band and on the grid, before
//!   editing what is left: the cut stays where it is for many turns too.
//!
//! A [`ChatSession`](crate::chat::ChatSession) keeps its edits besides
//! ([`ClearedResults`]), so they are never undone.
//!
//! # Counting
//!
//! Each message is counted once ([`EditableMessage::count_split`] splits its count
//! into its results and its thinking); what an edit writes (a placeholder, a
//! marker, a truncated text) is counted once more. The report's
//! [`tokens_after`](EditReport::tokens_after) is what
//! [`ChatFormat::count_messages`](crate::chat::ChatFormat::count_messages) says of
//! the edited messages.
//!
//! # Credits
//!
//! The steps follow Anthropic's context editing (`context_management.edits`:
//! `clear_tool_uses_20250919` with `trigger`, `keep`, `clear_at_least`,
//! `exclude_tools` and `clear_tool_inputs`, and `clear_thinking_20251015`, reported
//! as `applied_edits`), LangChain's `ContextEditingMiddleware` and
//! `ClearToolUsesEdit` (with its `placeholder`), and Codex CLI's
//! `tool_output_token_limit` (head and tail of oversized output) and compaction.
//! Those run on a provider's servers or on one framework's types; this engine runs
//! client-side, for every provider, with exact counts.
//!
//! ```
//! use ctxbudget::chat::edit::{ContextEditor, EditKind, Edits};
//! use ctxbudget::{Message, chat::ToolCall};
//!
//! let words = |t: &str| t.split_whitespace().count();
//! let mut history = vec![Message::system("You fix bugs."), Message::user("Fix issue 7.")];
//! for i in 0..10 {
//!     let id = format!("call_{i}");
//!     let call = ToolCall::new(&id, "read_file", format!(r#"{{"path": "src/{i}.rs"}}"#));
//!     history.push(Message::assistant(format!("Reading file {i}.")).with_tool_call(call));
//!     history.push(Message::tool(&id, "fn main() { } // a long file ".repeat(30)));
//! }
//! let editor = ContextEditor::new(words, 1_000);
//! let edited = editor.edit(&mut history);
//! let report = edited.report();
//! assert!(report.fits());
//! assert_eq!(history.len(), 22); // nothing dropped
//! // Every result over an eighth of the limit kept its head and tail; then the
//! // oldest were cleared, the three most recent kept.
//! assert!(report.totals.truncated > 0 && report.totals.cleared_tool_uses > 0);
//! assert_eq!(history[3].content, Edits::DEFAULT_PLACEHOLDER);
//! assert!(history[21].content.contains("tokens cut"));
//! let clear = report.edits.iter().find(|e| e.kind == EditKind::ClearToolResult).unwrap();
//! assert_eq!((clear.message, clear.tool.as_deref()), (3, Some("read_file")));
//! ```

mod cleared;
mod compact;
mod editable;
mod engine;
mod error;
mod ledger;
mod message;
mod options;
mod outcome;
mod precounted;
mod report;
mod truncate;

pub use cleared::ClearedResults;
pub use editable::{ContentSplit, EditableMessage, ToolResult};
pub use engine::ContextEditor;
pub use error::EditError;
pub use options::{Edits, Threshold};
pub use outcome::{CompactionPlan, Edited};
pub use precounted::{MessageCount, Precounted};
pub use report::{AppliedEdit, CompactionReport, EditKind, EditReport, EditTotals};
