//! What to edit and when: [`Edits`], and [`Threshold`] (tokens, or a share of the
//! limit).

/// An amount of tokens: a number, or a share of the limit the messages are fitted
/// to, so that one configuration suits windows of every size.
///
/// In a config file: `{"tokens": 2000}` or `{"share": 0.125}`.
///
/// ```
/// use ctxbudget::chat::edit::Threshold;
///
/// assert_eq!(Threshold::Tokens(2_000).tokens(32_000), 2_000);
/// assert_eq!(Threshold::share(0.125).tokens(32_000), 4_000);
/// // A share is clamped to 0.0..=1.0.
/// assert_eq!(Threshold::share(3.0).tokens(32_000), 32_000);
/// assert_eq!(Threshold::from(500), Threshold::Tokens(500));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case", deny_unknown_fields)
)]
pub enum Threshold {
    /// This many tokens.
    Tokens(usize),
    /// This share of the limit, from 0.0 to 1.0 (clamped; NaN counts as 0.0).
    Share(f64),
}

impl Threshold {
    /// A share of the limit.
    pub const fn share(share: f64) -> Self {
        Threshold::Share(share)
    }

    /// The amount in tokens for a limit of `limit` tokens (a share is rounded down).
    pub fn tokens(self, limit: usize) -> usize {
        match self {
            Threshold::Tokens(tokens) => tokens,
            Threshold::Share(share) => fraction_of(limit, share),
        }
    }
}

impl From<usize> for Threshold {
    fn from(tokens: usize) -> Self {
        Threshold::Tokens(tokens)
    }
}

/// `floor(limit * share)`, with the share clamped to `0.0..=1.0` (NaN: 0).
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
pub(super) fn fraction_of(limit: usize, share: f64) -> usize {
    if share.is_nan() || share <= 0.0 {
        return 0;
    }
    if share >= 1.0 {
        return limit;
    }
    // Limits beyond 2^53 lose precision in f64; the result is still at most `limit`.
    let tokens = (limit as f64 * share).floor();
    if tokens <= 0.0 {
        0
    } else {
        (tokens as usize).min(limit)
    }
}

/// Which context edits to make, and when: the options of the
/// [editing engine](super).
///
/// Every option but a summarizer (a closure, given to
/// [`ContextEditor::edit_summarizing`](super::ContextEditor::edit_summarizing)) can be
/// read from a config file (feature `serde`); a field left out keeps its default,
/// and an unknown field is an error.
///
/// ```
/// use ctxbudget::chat::edit::{Edits, Threshold};
///
/// // A coding agent's defaults, with two knobs turned.
/// let edits = Edits::default()
///     .clear_tool_results(5)
///     .exclude_tools(["read_plan"])
///     .truncate_tool_results(2_000);
/// assert_eq!(edits.keep_tool_results(), Some(5));
/// assert_eq!(edits.max_tool_result_tokens(), Some(Threshold::Tokens(2_000)));
///
/// // Today's behaviour: no edits, the trimmer drops whole messages.
/// assert!(Edits::none().is_none());
/// ```
///
/// # Defaults, and why
///
/// | option | default | why |
/// | --- | --- | --- |
/// | [`trigger`](Edits::trigger) | 100% of the limit | edit only a request that would not fit otherwise: every edit changes the prompt from that point on and costs a cache write |
/// | [`low_water`](Edits::low_water) | 90% of the limit | tuned for a stateless fit ([`RequestFitter`](crate::request::RequestFitter), `ctxbudget fit`, `assemble`), which edits each request anew: edits come in batches of 10% of the limit, so a request is left using about 90% to 100% of it (see [`DEFAULT_LOW_WATER`](Edits::DEFAULT_LOW_WATER) for the figures); a [`ChatSession`](crate::chat::ChatSession), whose edits stay made, passes its [`CutPolicy`](crate::chat::CutPolicy)'s mark (60%) instead; `low_water(Threshold::share(1.0))` fills up to the trigger |
/// | [`drop_old_thinking`](Edits::drop_old_thinking) | on | the thinking of earlier turns is what providers strip first (Anthropic's `clear_thinking_20251015`) |
/// | [`truncate_tool_results`](Edits::truncate_tool_results) | an eighth of the limit | one tool output should not crowd out the rest of the conversation (Codex's `tool_output_token_limit`); head and tail are what a log, a diff or a test run keeps its news in |
/// | [`clear_tool_results`](Edits::clear_tool_results) | keep the 3 most recent | Anthropic's default `keep` for `clear_tool_uses_20250919` |
/// | [`clear_tool_inputs`](Edits::clear_tool_inputs) | off | as Anthropic's: the call's arguments say what was asked, and they are small |
/// | [`clear_at_least`](Edits::clear_at_least) | 0 | the grid already makes clearing come in batches |
/// | [`grid`](Edits::grid) | 5% of the limit | the cut of [`CutPolicy::cache_stable`](crate::chat::CutPolicy::cache_stable) |
/// | [`pin_task`](Edits::pin_task) | on | the first user message states the task; an agent that loses it loses its way |
/// | [`placeholder`](Edits::placeholder) | [`DEFAULT_PLACEHOLDER`](Edits::DEFAULT_PLACEHOLDER) | tells the model what happened and that it may call the tool again |
/// | [`compact`](Edits::compact) | on | planning costs nothing; a summary is made only if you supply a summarizer |
/// | [`summary_room`](Edits::summary_room) | 5% of the limit | one step of the grid |
// Each switch is a step or a knob of its own, read from config files by name.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct Edits {
    trigger: Threshold,
    low_water: Option<Threshold>,
    drop_old_thinking: bool,
    max_tool_result_tokens: Option<Threshold>,
    keep_tool_results: Option<usize>,
    exclude_tools: Vec<String>,
    clear_tool_inputs: bool,
    clear_at_least: Threshold,
    grid: f64,
    pin_task: bool,
    placeholder: String,
    media_placeholder: String,
    truncation_marker: String,
    compact: bool,
    summary_room: Threshold,
    summary_prefix: String,
}

impl Default for Edits {
    fn default() -> Self {
        Self {
            trigger: Threshold::Share(1.0),
            low_water: Some(Threshold::Share(Self::DEFAULT_LOW_WATER)),
            drop_old_thinking: true,
            max_tool_result_tokens: Some(Threshold::Share(Self::DEFAULT_MAX_TOOL_RESULT)),
            keep_tool_results: Some(Self::DEFAULT_KEEP),
            exclude_tools: Vec::new(),
            clear_tool_inputs: false,
            clear_at_least: Threshold::Tokens(0),
            grid: Self::DEFAULT_GRID,
            pin_task: true,
            placeholder: Self::DEFAULT_PLACEHOLDER.to_owned(),
            media_placeholder: Self::DEFAULT_MEDIA_PLACEHOLDER.to_owned(),
            truncation_marker: Self::DEFAULT_TRUNCATION_MARKER.to_owned(),
            compact: true,
            summary_room: Threshold::Share(Self::DEFAULT_GRID),
            summary_prefix: Self::DEFAULT_SUMMARY_PREFIX.to_owned(),
        }
    }
}

impl Edits {
    /// The default number of most recent tool results that are never cleared:
    /// Anthropic's default `keep`.
    pub const DEFAULT_KEEP: usize = 3;

    /// The default low-water mark, as a share of the limit: 90%, tuned for a
    /// stateless fit, where it is the lowest mark that leaves the README's main
    /// job (both shipped agent sessions fitted into 32,000 tokens) using at least
    /// 90% of the window (98.8% and 97.9%; at 60%, 76.8%).
    ///
    /// Over a simulated 300-turn agent session fitted anew every turn into
    /// 32,000 tokens (`tests/suite/request_fit_edits.rs`), a lower mark edits and
    /// drops in bigger batches, so more turns keep the whole previous prompt as
    /// their prefix, and less of the window is used:
    ///
    /// | low water | turns whose prompt starts with the previous one | prompt read from a prefix cache | window use |
    /// | --- | --- | --- | --- |
    /// | 60% | 76.9% | 88.9% | 69.4% |
    /// | 75% | 77.9% | 87.6% | 82.6% |
    /// | **90%** | **65.9%** | **79.7%** | **88.3%** |
    /// | 100% | 38.1% | 59.7% | 92.9% |
    ///
    /// (Before the fitter's dropping step moved in batches too, 46.8% of the
    /// turns kept their prefix at 90%.)
    ///
    /// A [`ChatSession`](crate::chat::ChatSession) keeps its edits from turn to
    /// turn, so it shares its prefix however high the mark; it uses
    /// [`CutPolicy::DEFAULT_LOW_WATER`](crate::chat::CutPolicy::DEFAULT_LOW_WATER)
    /// (60%).
    pub const DEFAULT_LOW_WATER: f64 = 0.9;

    /// The default largest tool result, as a share of the limit: an eighth.
    pub const DEFAULT_MAX_TOOL_RESULT: f64 = 0.125;

    /// The default grid the clearing boundary moves on, as a share of the limit:
    /// 5%, as [`CutPolicy::DEFAULT_GRID`](crate::chat::CutPolicy::DEFAULT_GRID).
    pub const DEFAULT_GRID: f64 = 0.05;

    /// The default text that replaces a cleared tool result.
    pub const DEFAULT_PLACEHOLDER: &'static str =
        "[Tool result cleared to save context. Call the tool again if you need it.]";

    /// The default text that replaces an image or a document in an old tool result.
    pub const DEFAULT_MEDIA_PLACEHOLDER: &'static str =
        "[Image or document removed to save context.]";

    /// The default marker between the head and the tail of a truncated tool result;
    /// `{tokens}` stands for the number of tokens cut.
    pub const DEFAULT_TRUNCATION_MARKER: &'static str = "\n[… {tokens} tokens cut …]\n";

    /// The default first line of a summary message.
    pub const DEFAULT_SUMMARY_PREFIX: &'static str = "[Summary of the earlier conversation]\n";

    /// No edits at all: the engine counts and reports, and leaves every message as
    /// it is (today's drop-only behaviour, for `--drop-only`).
    pub fn none() -> Self {
        Self {
            drop_old_thinking: false,
            max_tool_result_tokens: None,
            keep_tool_results: None,
            compact: false,
            ..Self::default()
        }
    }

    /// Whether no step is on (see [`none`](Edits::none)).
    pub fn is_none(&self) -> bool {
        !self.drop_old_thinking
            && self.max_tool_result_tokens.is_none()
            && self.keep_tool_results.is_none()
            && !self.compact
    }

    /// Edits start when the messages cost more than this (default: the whole
    /// limit, so that only a request that would not fit is edited). Anthropic's
    /// `trigger`.
    #[must_use]
    pub fn trigger(mut self, trigger: impl Into<Threshold>) -> Self {
        self.trigger = trigger.into();
        self
    }

    /// The low-water mark (default: 90% of the limit, see
    /// [`DEFAULT_LOW_WATER`](Edits::DEFAULT_LOW_WATER); never above the trigger).
    /// Clearing saves what brings the messages under the trigger rounded up to a
    /// multiple of the band between the trigger and this mark: right after a batch
    /// the messages cost between the mark and the trigger, and as a conversation
    /// grows it gets the same edits, turn after turn, until it outgrows the band.
    /// A compaction leaves the messages at this mark, and so does the
    /// [`RequestFitter`](crate::request::RequestFitter)'s dropping step, rounded
    /// to the band too, when even every edit would not fit. At the trigger
    /// (`share(1.0)` with the default trigger), clearing saves just enough.
    #[must_use]
    pub fn low_water(mut self, low_water: impl Into<Threshold>) -> Self {
        self.low_water = Some(low_water.into());
        self
    }

    /// Drops the thinking of earlier assistant turns (the default).
    #[must_use]
    pub fn drop_old_thinking(mut self) -> Self {
        self.drop_old_thinking = true;
        self
    }

    /// Keeps every thinking block (`--keep-thinking`).
    #[must_use]
    pub fn keep_thinking(mut self) -> Self {
        self.drop_old_thinking = false;
        self
    }

    /// Cuts every tool result over `max_tokens` down to its head and tail around a
    /// marker (default: an eighth of the limit).
    #[must_use]
    pub fn truncate_tool_results(mut self, max_tokens: impl Into<Threshold>) -> Self {
        self.max_tool_result_tokens = Some(max_tokens.into());
        self
    }

    /// Never truncates a tool result.
    #[must_use]
    pub fn no_truncation(mut self) -> Self {
        self.max_tool_result_tokens = None;
        self
    }

    /// Clears every tool result but the `keep` most recent ones (default: 3).
    #[must_use]
    pub fn clear_tool_results(mut self, keep: usize) -> Self {
        self.keep_tool_results = Some(keep);
        self
    }

    /// Never clears a tool result.
    #[must_use]
    pub fn no_clearing(mut self) -> Self {
        self.keep_tool_results = None;
        self
    }

    /// The results of these tools are never cleared, truncated or stripped of their
    /// images (added to those set before).
    #[must_use]
    pub fn exclude_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude_tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// With `true`, a call whose result is cleared has its arguments cleared too
    /// (`{}`). Default: `false`.
    #[must_use]
    pub fn clear_tool_inputs(mut self, clear: bool) -> Self {
        self.clear_tool_inputs = clear;
        self
    }

    /// Clearing that saves less than this is not worth a cache break: the boundary
    /// moves on to the next grid line, and when no line saves this much, nothing
    /// is cleared. Default: 0.
    #[must_use]
    pub fn clear_at_least(mut self, tokens: impl Into<Threshold>) -> Self {
        self.clear_at_least = tokens.into();
        self
    }

    /// The spacing of the lines the clearing boundary and the compaction cut land
    /// on, as a share of the limit (default 0.05; 0.0: anywhere; clamped to
    /// `0.0..=1.0`, NaN ignored).
    #[must_use]
    pub fn grid(mut self, share: f64) -> Self {
        if !share.is_nan() {
            self.grid = share.clamp(0.0, 1.0);
        }
        self
    }

    /// With `true` (the default), the first user message (the task) is never
    /// edited, nor summarized away.
    #[must_use]
    pub fn pin_task(mut self, pin: bool) -> Self {
        self.pin_task = pin;
        self
    }

    /// The text that replaces a cleared tool result.
    #[must_use]
    pub fn placeholder(mut self, text: impl Into<String>) -> Self {
        self.placeholder = text.into();
        self
    }

    /// The text that replaces an image or a document in an old tool result.
    #[must_use]
    pub fn media_placeholder(mut self, text: impl Into<String>) -> Self {
        self.media_placeholder = text.into();
        self
    }

    /// The marker between the head and the tail of a truncated tool result;
    /// `{tokens}` in it becomes the number of tokens cut.
    #[must_use]
    pub fn truncation_marker(mut self, text: impl Into<String>) -> Self {
        self.truncation_marker = text.into();
        self
    }

    /// With `true` (the default), when the other edits are not enough the engine
    /// plans a compaction: the span the trimmer would drop, for a summary of yours.
    #[must_use]
    pub fn compact(mut self, compact: bool) -> Self {
        self.compact = compact;
        self
    }

    /// The least room a compaction leaves for the summary (default: 5% of the
    /// limit).
    #[must_use]
    pub fn summary_room(mut self, tokens: impl Into<Threshold>) -> Self {
        self.summary_room = tokens.into();
        self
    }

    /// The first line of a summary message, which marks it as a summary.
    #[must_use]
    pub fn summary_prefix(mut self, text: impl Into<String>) -> Self {
        self.summary_prefix = text.into();
        self
    }

    /// See [`trigger`](Edits::trigger).
    pub fn trigger_threshold(&self) -> Threshold {
        self.trigger
    }

    /// See [`low_water`](Edits::low_water).
    pub fn low_water_threshold(&self) -> Option<Threshold> {
        self.low_water
    }

    /// Whether old thinking is dropped.
    pub fn drops_old_thinking(&self) -> bool {
        self.drop_old_thinking
    }

    /// The largest tool result, when results are truncated.
    pub fn max_tool_result_tokens(&self) -> Option<Threshold> {
        self.max_tool_result_tokens
    }

    /// How many of the most recent tool results are kept whole, when results are
    /// cleared.
    pub fn keep_tool_results(&self) -> Option<usize> {
        self.keep_tool_results
    }

    /// The tools whose results are never edited.
    pub fn excluded_tools(&self) -> &[String] {
        &self.exclude_tools
    }

    /// Whether a cleared result's call has its arguments cleared.
    pub fn clears_tool_inputs(&self) -> bool {
        self.clear_tool_inputs
    }

    /// See [`clear_at_least`](Edits::clear_at_least).
    pub fn clear_at_least_threshold(&self) -> Threshold {
        self.clear_at_least
    }

    /// The grid, as a share of the limit.
    pub fn grid_share(&self) -> f64 {
        self.grid
    }

    /// Whether the first user message is pinned.
    pub fn pins_task(&self) -> bool {
        self.pin_task
    }

    /// The text of a cleared result.
    pub fn placeholder_text(&self) -> &str {
        &self.placeholder
    }

    /// The text that replaces an image or a document.
    pub fn media_placeholder_text(&self) -> &str {
        &self.media_placeholder
    }

    /// The marker of a truncated result, `{tokens}` not filled in.
    pub fn truncation_marker_text(&self) -> &str {
        &self.truncation_marker
    }

    /// Whether a compaction is planned when the other edits are not enough.
    pub fn compacts(&self) -> bool {
        self.compact
    }

    /// See [`summary_room`](Edits::summary_room).
    pub fn summary_room_threshold(&self) -> Threshold {
        self.summary_room
    }

    /// The first line of a summary message.
    pub fn summary_prefix_text(&self) -> &str {
        &self.summary_prefix
    }

    /// Whether results of `tool` are never edited.
    pub(super) fn is_excluded(&self, tool: &str) -> bool {
        self.exclude_tools.iter().any(|t| t == tool)
    }

    /// The grid's spacing in tokens for `limit` (0: no grid). NaN from a config
    /// file counts as the default.
    pub(super) fn grid_tokens(&self, limit: usize) -> usize {
        let share = if self.grid.is_nan() {
            Self::DEFAULT_GRID
        } else {
            self.grid
        };
        fraction_of(limit, share)
    }

    /// The marker with `tokens` filled in.
    pub(super) fn marker(&self, tokens: usize) -> String {
        self.truncation_marker
            .replace("{tokens}", &group_thousands(tokens))
    }
}

/// `12345` as `12,345`.
fn group_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_and_grid() {
        assert_eq!(Threshold::share(f64::NAN).tokens(100), 0);
        assert_eq!(Threshold::share(-1.0).tokens(100), 0);
        assert_eq!(Threshold::share(0.5).tokens(usize::MAX), usize::MAX / 2 + 1);
        let edits = Edits::default().grid(f64::NAN);
        assert_eq!(edits.grid_tokens(32_000), 1_600);
        assert_eq!(Edits::default().grid(0.0).grid_tokens(32_000), 0);
        assert!(Edits::default().grid(7.0).grid_share() >= 1.0);
    }

    #[test]
    fn markers_group_thousands() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1_000), "1,000");
        assert_eq!(group_thousands(1_234_567), "1,234,567");
        assert_eq!(
            Edits::default().marker(12_345),
            "\n[… 12,345 tokens cut …]\n"
        );
    }

    #[test]
    fn none_turns_every_step_off() {
        let none = Edits::none();
        assert!(none.is_none());
        assert!(!Edits::default().is_none());
        assert!(!none.clone().drop_old_thinking().is_none());
        assert!(none.clear_tool_results(1).keep_tool_results().is_some());
    }
}
