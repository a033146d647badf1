//! [`ClearedResults`]: the results a session has cleared, cleared again in every
//! later prompt.

use std::collections::HashSet;

/// The tool results already cleared, by call id: what makes a
/// [`ChatSession`](crate::chat::ChatSession)'s edits *sticky*.
///
/// [`ContextEditor::edit_sticky`](super::ContextEditor::edit_sticky) clears these
/// results first, whatever the trigger, and adds the ones it clears: a result
/// cleared once stays cleared in every later prompt, so consecutive prompts share
/// their prefix. Call ids are unique in a valid request and never change, which
/// makes them a key that survives messages being dropped before them.
///
/// ```
/// use ctxbudget::chat::edit::ClearedResults;
///
/// let mut cleared = ClearedResults::new();
/// cleared.insert("call_1");
/// assert!(cleared.contains("call_1"));
/// // Forget the results the session dropped.
/// cleared.retain(|id| id != "call_1");
/// assert!(cleared.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClearedResults {
    ids: HashSet<String>,
}

impl ClearedResults {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a call id; returns whether it was new.
    pub fn insert(&mut self, call_id: impl Into<String>) -> bool {
        self.ids.insert(call_id.into())
    }

    /// Whether the result of `call_id` was cleared.
    pub fn contains(&self, call_id: &str) -> bool {
        self.ids.contains(call_id)
    }

    /// Keeps the call ids for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.ids.retain(|id| keep(id));
    }

    /// How many results were cleared.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The call ids, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.ids.iter().map(String::as_str)
    }
}

impl<S: Into<String>> FromIterator<S> for ClearedResults {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        Self {
            ids: iter.into_iter().map(Into::into).collect(),
        }
    }
}

impl<S: Into<String>> Extend<S> for ClearedResults {
    fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        self.ids.extend(iter.into_iter().map(Into::into));
    }
}
