//! [`EditError`]: why a summary could not be put in.

use thiserror::Error;

/// Why a compaction's summary could not be put in. The messages are unchanged
/// after an error.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EditError {
    /// The summary costs more than the room the compaction left for it.
    #[error(
        "the summary costs {tokens} tokens but the room for it is {room} ({over} over): ask for a shorter summary, or raise `summary_room`"
    )]
    SummaryOverRoom {
        /// What the summary message costs, chat format overhead included.
        tokens: usize,
        /// The room the plan left ([`CompactionPlan::room`](super::CompactionPlan::room)).
        room: usize,
        /// `tokens - room`.
        over: usize,
    },
    /// The messages changed between planning the compaction and applying it.
    #[error(
        "the compaction was planned for {planned} messages but there are {now}: plan again after changing the messages"
    )]
    StalePlan {
        /// How many messages there were when it was planned.
        planned: usize,
        /// How many there are now.
        now: usize,
    },
}
