//! [`settle_rises`]: the last step of a fit, for a format where what a message
//! costs depends on the messages after it ([`WireRequest::count_rises`]:
//! Anthropic's thinking of earlier turns, which counts again once the turns
//! after it are dropped).

use super::edits::trim_precounted;
use super::trim::{Trim, TrimSetup};
use crate::chat::ChatMessage;
use crate::request::{RequestError, WireRequest};

/// Brings `trimmed`, the trim of `request`'s messages, up to what its kept
/// messages cost once the rest is dropped.
///
/// - When nothing rises, `trimmed` is given back as it is.
/// - When the kept messages still fit with what rises, their count is raised.
/// - Otherwise the messages are trimmed again (with the task pinned when `pin`),
///   each counted at the most it can cost whatever is dropped, so that what is
///   kept fits; the count is then brought down to what the kept messages cost.
///
/// Counting is the trim's in the common case: only the messages whose count
/// rises are counted again, and only a second trim counts every message once
/// more.
///
/// # Errors
///
/// As [`trim`](super::trim::trim), from the second trim.
pub(super) fn settle_rises<R: WireRequest>(
    request: &R,
    mut trimmed: Trim,
    pin: bool,
    setup: TrimSetup<'_>,
) -> Result<Trim, RequestError> {
    let Some(keep) = &trimmed.keep else {
        return Ok(trimmed);
    };
    let Some(rises) = request.count_rises(Some(keep), setup.counter) else {
        return Ok(trimmed);
    };
    let rise = sum(&rises);
    if rise == 0 {
        return Ok(trimmed);
    }
    let budget = setup.limit.saturating_sub(setup.fixed);
    if trimmed.tokens.saturating_add(rise) <= budget {
        trimmed.tokens = trimmed.tokens.saturating_add(rise);
        return Ok(trimmed);
    }
    let messages = request.messages();
    let most = request.count_rises(None, setup.counter).unwrap_or_default();
    let most_of = |i: usize| most.get(i).copied().unwrap_or(0);
    let raised: Vec<usize> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| m.content_tokens(setup.counter).saturating_add(most_of(i)))
        .collect();
    let mut trimmed = trim_precounted(messages, &raised, pin, setup)?;
    for dropped in &mut trimmed.dropped {
        dropped.tokens = dropped
            .tokens
            .map(|t| t.saturating_sub(most_of(dropped.index)));
    }
    // Each kept message was counted at its most; it costs its rise with what
    // is kept.
    let keep = trimmed
        .keep
        .clone()
        .unwrap_or_else(|| vec![true; messages.len()]);
    let rises = request
        .count_rises(Some(&keep), setup.counter)
        .unwrap_or_default();
    let counted_most = (0..messages.len())
        .filter(|&i| keep[i])
        .fold(0usize, |sum, i| sum.saturating_add(most_of(i)));
    trimmed.tokens = trimmed
        .tokens
        .saturating_sub(counted_most)
        .saturating_add(sum(&rises));
    Ok(trimmed)
}

fn sum(tokens: &[usize]) -> usize {
    tokens.iter().fold(0usize, |sum, &t| sum.saturating_add(t))
}
