//! [`RequestFitter`]: count a provider request and trim it to its input limit by
//! removing whole messages.

mod counted;
mod cut;
mod edits;
mod must_stay;
mod rises;
mod trim;

use trim::{TrimSetup, trim};

use super::calibration::{Calibration, limit_in_estimate};
use super::report::{OutputReservation, RequestReport};
use super::{RequestCost, RequestError, WireRequest};
use crate::chat::edit::Edits;
use crate::count::TokenCounter;
#[cfg(feature = "tiktoken")]
use crate::models::{CounterError, Model, ModelCounter};

/// The output reserved by [`RequestFitter::for_model`] for a model whose output shares
/// its window, when the body sets no output limit (at most half the window: see
/// [`InputLimit::for_model`]).
pub const DEFAULT_OUTPUT: usize = 4_096;

/// How many tokens of input a request may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputLimit {
    /// At most this many input tokens.
    MaxInput(usize),
    /// The model's context window, of which the output is reserved: the body's own
    /// output limit (`max_completion_tokens`, `max_tokens`) when it sets one, else
    /// `default_output`.
    Window {
        /// The context window in tokens, input and output together.
        window: usize,
        /// The output reserved when the body does not set its own limit.
        default_output: usize,
    },
}

#[cfg(feature = "tiktoken")]
impl InputLimit {
    /// The limit for `model`: its window, of which the body's output limit is
    /// reserved, or else [`Model::default_output`]: the model's maximum output, or,
    /// for a model whose output shares its window (no maximum of its own, or one
    /// that is the whole window, as gpt-4's 8,192 of 8,192), 4,096 tokens or half
    /// the window, whichever is less: a small window keeps half for the input.
    ///
    /// ```
    /// use ctxbudget::models::Model;
    /// use ctxbudget::request::InputLimit;
    ///
    /// assert_eq!(
    ///     InputLimit::for_model(Model::lookup("gpt-4")?),
    ///     InputLimit::Window { window: 8_192, default_output: 4_096 }
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_model(model: &Model) -> Self {
        InputLimit::Window {
            window: model.context_window(),
            default_output: model.default_output(),
        }
    }
}

/// What a request costs, part by part.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestCount {
    /// The whole request's input tokens: `fixed + messages`.
    pub tokens: usize,
    /// What the request costs outside its messages: tool definitions, a top-level
    /// system prompt.
    pub fixed: usize,
    /// What the messages cost, per-message overhead and reply priming included.
    pub messages: usize,
    /// Why the count is an estimate; empty when it is as exact as the counter.
    pub assumptions: Vec<super::Assumption>,
}

/// A request that fits, and the report of what was done to it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FittedRequest<R> {
    /// The request: the input's own, with whole messages removed and nothing else
    /// changed.
    pub request: R,
    /// What was kept and dropped, the tokens before and after, the limit.
    pub report: RequestReport,
}

/// Counts provider requests and trims them to an input limit.
///
/// Trimming removes whole messages, oldest first, and touches no field of a kept
/// message. It keeps the system (and OpenAI developer) messages and the latest user
/// message, keeps every tool call with all of its results (parallel calls are never
/// split), and starts the history on a user message. The latest user message is the
/// last one that carries more than tool results, kept with the call its results
/// answer when it has any (Anthropic's results followed by the next question); an
/// Anthropic tool-use loop after it that started with thinking is kept whole, or the
/// request does not fit. Fields outside `messages` (tool definitions, a top-level
/// system prompt) are kept and counted first.
///
/// The request is checked first ([`WireRequest::validate`]): a request the provider
/// would reject (an orphaned tool result, a duplicate call id, ...) is an error that
/// says where and what to fix, not trimmed into another invalid request.
///
/// ```
/// use ctxbudget::request::{RequestFitter, openai::ChatRequest};
///
/// let body = r#"{"model": "gpt-4o", "max_tokens": 100, "messages": [
///     {"role": "system", "content": "Be brief."},
///     {"role": "user", "content": "An old question, far too long to keep in a small window."},
///     {"role": "assistant", "content": "An old answer, just as long as the old question was."},
///     {"role": "user", "content": "What is 2 + 2?"}
/// ]}"#;
/// let request = ChatRequest::from_json(body)?;
/// let words = |t: &str| t.split_whitespace().count();
/// let fitted = RequestFitter::new(words).with_max_input(40).fit(request)?;
/// assert_eq!(fitted.request.messages.len(), 2);
/// assert!(fitted.report.tokens_after <= 40);
/// assert_eq!(fitted.report.dropped.len(), 2);
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RequestFitter<C> {
    counter: C,
    limit: Option<InputLimit>,
    count_dropped: bool,
    edits: Edits,
    calibration: Option<(u64, u64)>,
}

#[cfg(feature = "tiktoken")]
impl RequestFitter<ModelCounter> {
    /// A fitter for `model`: its counter ([`Model::counter`](crate::models::Model::counter):
    /// exact for OpenAI models, an upper estimate for Claude and Gemini) and its
    /// limit, [`InputLimit::for_model`]: the window, less the body's output limit,
    /// or else the model's maximum output, or else (for models whose output shares
    /// the window) [`DEFAULT_OUTPUT`] or half the window, whichever is less.
    ///
    /// ```
    /// use ctxbudget::models::Model;
    /// use ctxbudget::request::{InputLimit, RequestFitter};
    ///
    /// let fitter = RequestFitter::for_model(Model::lookup("gpt-4o")?)?;
    /// assert_eq!(
    ///     fitter.limit(),
    ///     Some(InputLimit::Window { window: 128_000, default_output: 16_384 })
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`CounterError`](crate::models::CounterError) for a model whose tokenizer is a
    /// file to load: load it with [`Model::counter_from_file`](crate::models::Model::counter_from_file)
    /// and use [`new`](RequestFitter::new) and [`with_window`](RequestFitter::with_window).
    pub fn for_model(model: &Model) -> Result<Self, CounterError> {
        Ok(RequestFitter::new(model.counter()?).with_limit(InputLimit::for_model(model)))
    }
}

impl<C: TokenCounter> RequestFitter<C> {
    /// A fitter that counts with `counter`. Set the limit with
    /// [`with_max_input`](RequestFitter::with_max_input) or
    /// [`with_window`](RequestFitter::with_window) before fitting.
    pub fn new(counter: C) -> Self {
        Self {
            counter,
            limit: None,
            count_dropped: false,
            edits: Edits::none(),
            calibration: None,
        }
    }

    /// Fits requests into at most `tokens` input tokens.
    #[must_use]
    pub fn with_max_input(mut self, tokens: usize) -> Self {
        self.limit = Some(InputLimit::MaxInput(tokens));
        self
    }

    /// Fits requests into a context window of `window` tokens less their output
    /// limit: the body's `max_completion_tokens` / `max_tokens` when it sets one, else
    /// `default_output`.
    #[must_use]
    pub fn with_window(mut self, window: usize, default_output: usize) -> Self {
        self.limit = Some(InputLimit::Window {
            window,
            default_output,
        });
        self
    }

    /// Fits requests into `limit` ([`InputLimit::for_model`] gives a model's).
    #[must_use]
    pub fn with_limit(mut self, limit: InputLimit) -> Self {
        self.limit = Some(limit);
        self
    }

    /// With `true`, the report gives what every dropped message cost, and so the
    /// tokens of the request as it came in ([`RequestReport::tokens_before`]). With
    /// `false` (the default), fitting counts the messages it keeps, from the newest,
    /// and the oldest messages it drops are not counted at all: a long request costs
    /// what its kept part costs.
    #[must_use]
    pub fn with_count_dropped(mut self, count_dropped: bool) -> Self {
        self.count_dropped = count_dropped;
        self
    }

    /// Edits the messages before dropping any: old thinking, oversized and old tool
    /// results (see [`Edits`] and [the engine](crate::chat::edit)). The default is
    /// [`Edits::none()`]: trimming removes whole messages and touches no field of a
    /// kept message. With edits on, a kept message may differ from the input where
    /// [`RequestReport::edits`] says, and nowhere else; every message is counted
    /// once (the edits need the tokens of what they clear), and the dropping step
    /// after the edits counts nothing again. With [`Edits::pins_task`] (the
    /// default) the task, the first user message, is kept too, when it fits with
    /// what must stay.
    ///
    /// The fitter keeps no state, so its edits and its cut are a function of the
    /// request, with hysteresis, so that the turns of a growing conversation get
    /// the same edited prefix (the provider's prompt cache) for several turns in a
    /// row: clearing saves the excess rounded up to the band between the limit
    /// and the [low-water mark](Edits::low_water), and when even every edit would
    /// not fit, the oldest whole units are dropped first, down to the low-water
    /// mark rounded up to the band (counted as if every result were cleared, with
    /// room kept for the most recent results, which are not), the cut on the
    /// [grid](Edits::grid) of the history as it came in; then what is left is
    /// edited, each message counted once in all. So the cut moves only forward,
    /// once the conversation has grown by a band, and the clearing after it has
    /// room to move on its own bands. [`Edits::default()`]'s mark, 90% of the limit, is tuned for this:
    /// see [`Edits::DEFAULT_LOW_WATER`] for the figures. Without edits, dropping
    /// is a minimal fit, as always.
    ///
    /// ```
    /// use ctxbudget::chat::edit::Edits;
    /// use ctxbudget::request::{RequestFitter, openai::ChatRequest};
    ///
    /// let mut messages = vec![r#"{"role": "user", "content": "Fix the failing test."}"#.to_owned()];
    /// for i in 0..10 {
    ///     messages.push(format!(
    ///         r#"{{"role": "assistant", "content": null, "tool_calls": [{{"id": "c{i}", "type": "function", "function": {{"name": "run_tests", "arguments": "{{}}"}}}}]}}"#
    ///     ));
    ///     let log = "FAILED test_parse ".repeat(40);
    ///     messages.push(format!(r#"{{"role": "tool", "tool_call_id": "c{i}", "content": "{log}"}}"#));
    /// }
    /// let body = format!(r#"{{"model": "gpt-4o", "messages": [{}]}}"#, messages.join(","));
    /// let request = ChatRequest::from_json(&body)?;
    /// let words = |t: &str| t.split_whitespace().count();
    /// let fitter = RequestFitter::new(words).with_max_input(600);
    /// // Dropping whole messages loses most calls ...
    /// let dropped = fitter.fit(request.clone())?;
    /// assert!(dropped.request.messages.len() < 15);
    /// // ... where edits keep every message, the old results cleared.
    /// let edited = fitter.with_edits(Edits::default()).fit(request)?;
    /// assert_eq!(edited.request.messages.len(), 21);
    /// let edits = edited.report.edits.as_ref().unwrap();
    /// assert!(edits.totals.cleared_tool_uses > 0);
    /// assert!(edited.report.tokens_after <= 600);
    /// # Ok::<(), ctxbudget::request::RequestError>(())
    /// ```
    #[must_use]
    pub fn with_edits(mut self, edits: Edits) -> Self {
        self.edits = edits;
        self
    }

    /// Fits with `calibration`'s factor ([`Calibration`]) when the counter is not
    /// exact: the counter's counts scaled by what the provider billed for earlier
    /// requests. The whole request's count is scaled, as the factor was measured,
    /// so the fit keeps the request within the limit divided by the factor, in
    /// the counter's own tokens: the report's `limit` and `tokens_after` are in
    /// those. Set it again after each observation.
    #[must_use]
    pub fn with_calibration(mut self, calibration: &Calibration) -> Self {
        self.calibration = calibration.factor();
        self
    }

    /// The edits made before dropping (default: [`Edits::none()`]).
    pub fn edits(&self) -> &Edits {
        &self.edits
    }

    /// The limit set, if any.
    pub fn limit(&self) -> Option<InputLimit> {
        self.limit
    }

    /// The counter.
    pub fn counter(&self) -> &C {
        &self.counter
    }

    /// What `request` costs as its provider bills its input, part by part.
    ///
    /// ```
    /// use ctxbudget::request::{RequestFitter, openai::ChatRequest};
    ///
    /// let request = ChatRequest::from_json(
    ///     r#"{"model": "gpt-4o", "messages": [{"role": "user", "content": "hello there"}]}"#,
    /// )?;
    /// let words = |t: &str| t.split_whitespace().count();
    /// let count = RequestFitter::new(words).count(&request);
    /// // 3 per message + 1 ("user") + 2 words + 3 to prime the reply.
    /// assert_eq!(count.tokens, 9);
    /// assert!(count.assumptions.is_empty());
    /// # Ok::<(), ctxbudget::request::RequestError>(())
    /// ```
    pub fn count<R: WireRequest>(&self, request: &R) -> RequestCount {
        let RequestCost {
            tokens: fixed,
            mut assumptions,
        } = request.fixed_cost(&self.counter);
        let messages = request
            .chat_format()
            .count_messages(&self.counter, request.messages());
        assumptions.extend(request.message_assumptions());
        RequestCount {
            tokens: fixed.saturating_add(messages),
            fixed,
            messages,
            assumptions,
        }
    }

    /// The input limit for `request` and the output it reserves: the limit set,
    /// less the output.
    ///
    /// # Errors
    ///
    /// [`RequestError::NoLimit`] when no limit was set, and
    /// [`RequestError::OutputOverWindow`] when the output reserved is the whole
    /// window or more, which leaves no input.
    pub fn input_limit<R: WireRequest>(&self, request: &R) -> Result<(usize, usize), RequestError> {
        match self.limit {
            None => Err(RequestError::NoLimit),
            Some(InputLimit::MaxInput(tokens)) => Ok((tokens, 0)),
            Some(InputLimit::Window {
                window,
                default_output,
            }) => {
                let output = request
                    .max_output_tokens()
                    .map_or(default_output, |t| usize::try_from(t).unwrap_or(usize::MAX));
                match window.checked_sub(output) {
                    Some(input) if input > 0 => Ok((input, output)),
                    _ => Err(RequestError::OutputOverWindow { output, window }),
                }
            }
        }
    }

    /// Trims `request` to the input limit by removing whole messages.
    ///
    /// # Errors
    ///
    /// - The checks of [`WireRequest::validate`], for a request the provider would
    ///   reject.
    /// - [`RequestError::DoesNotFit`] when what must stay (fixed fields, system
    ///   messages, the latest user message with its tool calls) is over the limit;
    ///   it says by how much. [`RequestError::ToolLoopDoesNotFit`] when it is, and
    ///   the request ends in a tool-use loop that started with thinking, which
    ///   must stay whole too.
    /// - [`RequestError::NoLimit`] and [`RequestError::OutputOverWindow`] for a
    ///   limit that leaves no input.
    pub fn fit<R: WireRequest>(&self, request: R) -> Result<FittedRequest<R>, RequestError> {
        self.fit_capped(request, None)
    }

    /// [`fit`](RequestFitter::fit) with the input limit lowered to `cap` when one
    /// is given (without a limit of the fitter's own, `cap` alone).
    pub(super) fn fit_capped<R: WireRequest>(
        &self,
        mut request: R,
        cap: Option<usize>,
    ) -> Result<FittedRequest<R>, RequestError> {
        request.validate()?;
        // The limit is in the provider's tokens, the cap in the counter's.
        let (limit, output_reserved) = match (self.input_limit(&request), cap) {
            (Err(RequestError::NoLimit), Some(cap)) => (cap, 0),
            (limits, cap) => {
                let (mut limit, output) = limits?;
                if let Some(factor) = self.calibration {
                    if !self.counter.exactness().is_exact() {
                        limit = limit_in_estimate(limit, factor);
                    }
                }
                (cap.map_or(limit, |cap| limit.min(cap)), output)
            }
        };
        let RequestCost {
            tokens: fixed,
            mut assumptions,
        } = request.fixed_cost(&self.counter);
        assumptions.extend(request.message_assumptions());
        let format = request.chat_format();
        // `&C` is a counter only for this crate's counters: borrow it as an object.
        let counter: &dyn TokenCounter = &self.counter;
        let setup = TrimSetup {
            counter,
            format,
            limit,
            fixed,
            count_dropped: self.count_dropped,
            start_on_user: true,
        };
        let (trimmed, edit_report) = if self.edits.is_none() {
            (trim(request.messages(), setup)?, None)
        } else {
            let (trimmed, report, before) = edits::fit_edited(&mut request, &self.edits, setup)?;
            (trimmed, Some((report, before)))
        };
        let tokens_before = match &edit_report {
            // Every message was counted as it came in.
            Some((_, before)) => Some(fixed.saturating_add(*before)),
            None => trimmed
                .dropped
                .iter()
                .try_fold(fixed.saturating_add(trimmed.tokens), |sum, d| {
                    Some(sum.saturating_add(d.tokens?))
                }),
        };
        let pin = edit_report.is_some() && self.edits.pins_task();
        let trimmed = rises::settle_rises(&request, trimmed, pin, setup)?;
        if let Some(keep) = &trimmed.keep {
            request.retain_messages(keep);
        }
        let report = RequestReport {
            tokens_before,
            tokens_after: fixed.saturating_add(trimmed.tokens),
            kept: trimmed.kept,
            system_kept: trimmed.system_kept,
            dropped: trimmed.dropped,
            edits: edit_report.map(|(report, _)| report),
            ..self.report_base(&request, limit, output_reserved, fixed, assumptions)
        };
        Ok(FittedRequest { request, report })
    }

    /// A report of `request` with what every outcome shares; the counts of kept and
    /// dropped messages are left for the caller to set.
    fn report_base<R: WireRequest>(
        &self,
        request: &R,
        limit: usize,
        output_reserved: usize,
        fixed: usize,
        assumptions: Vec<super::Assumption>,
    ) -> RequestReport {
        let output = match self.limit {
            Some(InputLimit::Window { .. }) if request.max_output_tokens().is_some() => {
                OutputReservation::Body
            }
            Some(InputLimit::Window { .. }) => OutputReservation::Default,
            _ => OutputReservation::None,
        };
        RequestReport {
            format: R::FORMAT,
            model: request.model().map(str::to_owned),
            limit,
            output_reserved,
            output,
            tokens_before: None,
            tokens_after: fixed,
            fixed,
            kept: 0,
            system_kept: 0,
            dropped: Vec::new(),
            edits: None,
            exactness: self.counter.exactness(),
            assumptions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{ChatFormat, DropReason};
    use crate::request::{Assumption, RequestFormat};
    use crate::{Message, chat::ToolCall};

    /// A request with plain messages, a fixed cost and an output limit.
    #[derive(Debug, Clone)]
    struct Plain {
        messages: Vec<Message>,
        fixed: usize,
        max_output: Option<u64>,
    }

    impl WireRequest for Plain {
        type Message = Message;
        const FORMAT: RequestFormat = RequestFormat::OpenAiChat;
        fn messages(&self) -> &[Message] {
            &self.messages
        }
        fn edit_messages<T>(&mut self, edit: impl FnOnce(&mut [Message]) -> T) -> T {
            edit(&mut self.messages)
        }
        fn chat_format(&self) -> ChatFormat {
            ChatFormat::openai()
        }
        fn fixed_cost<C: TokenCounter + ?Sized>(&self, _: &C) -> RequestCost {
            RequestCost {
                tokens: self.fixed,
                assumptions: vec![Assumption::UnpublishedRule {
                    message: None,
                    what: "fixed cost made up by the test",
                }],
            }
        }
        fn message_assumptions(&self) -> Vec<Assumption> {
            Vec::new()
        }
        fn validate(&self) -> Result<(), RequestError> {
            Ok(())
        }
        fn retain_messages(&mut self, keep: &[bool]) {
            let mut flags = keep.iter();
            self.messages.retain(|_| *flags.next().unwrap_or(&false));
        }
        fn model(&self) -> Option<&str> {
            Some("test-model")
        }
        fn max_output_tokens(&self) -> Option<u64> {
            self.max_output
        }
    }

    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    fn session(turns: usize) -> Plain {
        let mut messages = vec![Message::system("Answer in one line.")];
        for turn in 0..turns {
            messages.push(Message::user(format!("question {turn} with some words")));
            messages.push(Message::assistant("").with_tool_call(ToolCall::new(
                format!("call_{turn}"),
                "search",
                "{}",
            )));
            messages.push(Message::tool(
                format!("call_{turn}"),
                "a tool result of six words",
            ));
            messages.push(Message::assistant(format!("answer {turn} in five words")));
        }
        Plain {
            messages,
            fixed: 10,
            max_output: None,
        }
    }

    #[test]
    fn a_request_that_fits_is_untouched() {
        let request = session(2);
        let count = RequestFitter::new(words).count(&request);
        let fitted = RequestFitter::new(words)
            .with_max_input(count.tokens)
            .fit(request.clone())
            .unwrap();
        assert_eq!(fitted.request.messages, request.messages);
        assert!(!fitted.report.trimmed());
        assert_eq!(fitted.report.tokens_before, Some(count.tokens));
        assert_eq!(fitted.report.tokens_after, count.tokens);
        assert_eq!(fitted.report.unused(), 0);
        assert!(fitted.report.is_estimate());
    }

    #[test]
    fn a_request_that_fits_keeps_messages_before_its_first_user_message() {
        let mut request = session(1);
        request
            .messages
            .insert(1, Message::assistant("Hello, how can I help?"));
        let fitted = RequestFitter::new(words)
            .with_max_input(1_000)
            .fit(request.clone())
            .unwrap();
        assert_eq!(fitted.request.messages, request.messages);
        assert!(!fitted.report.trimmed());
    }

    #[test]
    fn trimming_keeps_system_latest_user_and_whole_tool_units() {
        let request = session(10);
        let full = RequestFitter::new(words).count(&request).tokens;
        let limit = full / 3;
        let lazy = RequestFitter::new(words)
            .with_max_input(limit)
            .fit(request.clone())
            .unwrap();
        let fitted = RequestFitter::new(words)
            .with_max_input(limit)
            .with_count_dropped(true)
            .fit(request.clone())
            .unwrap();
        // Counting what was dropped changes the report only.
        assert_eq!(lazy.request.messages, fitted.request.messages);
        assert_eq!(lazy.report.tokens_after, fitted.report.tokens_after);
        assert!(lazy.report.dropped.iter().any(|d| d.tokens.is_none()));
        assert_eq!(lazy.report.tokens_before, None);
        assert!(lazy.report.to_string().contains("not counted"));
        let kept = &fitted.request.messages;
        // The report adds up: recounting the trimmed request gives its tokens.
        let recount = RequestFitter::new(words).count(&fitted.request).tokens;
        assert_eq!(fitted.report.tokens_after, recount);
        assert!(recount <= limit);
        assert_eq!(fitted.report.tokens_before, Some(full));
        let dropped: usize = fitted
            .report
            .dropped
            .iter()
            .map(|d| d.tokens.unwrap())
            .sum();
        assert_eq!(full - dropped, recount);
        assert_eq!(kept[0], request.messages[0]);
        assert_eq!(kept[1].role, crate::chat::Role::User);
        assert!(
            kept.contains(
                request
                    .messages
                    .iter()
                    .rfind(|m| m.role == crate::chat::Role::User)
                    .unwrap()
            )
        );
        assert_eq!(fitted.report.kept, kept.len());
        // Every kept tool result has its call right before it.
        for (i, m) in kept.iter().enumerate() {
            if let Some(id) = &m.tool_call_id {
                assert!(kept[i - 1].tool_calls.iter().any(|c| &c.id == id));
            }
        }
        assert!(
            fitted
                .report
                .dropped
                .iter()
                .all(|d| d.reason == DropReason::OverBudget || d.reason == DropReason::StartOnUser)
        );
    }

    #[test]
    fn what_must_stay_over_the_limit_is_an_error_with_numbers() {
        let request = session(3);
        let err = RequestFitter::new(words)
            .with_max_input(12)
            .fit(request)
            .unwrap_err();
        // Fixed 10, system 3 + 1 + 4, latest user 3 + 1 + 5, reply priming 3.
        assert!(
            matches!(
                err,
                RequestError::DoesNotFit {
                    needed: 30,
                    limit: 12,
                    over: 18
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("18 over the limit of 12"), "{err}");
        let mut fixed_only = session(1);
        fixed_only.fixed = 100;
        let err = RequestFitter::new(words)
            .with_max_input(50)
            .fit(fixed_only)
            .unwrap_err();
        assert!(
            matches!(
                err,
                RequestError::DoesNotFit {
                    needed: 120,
                    limit: 50,
                    over: 70
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn the_window_reserves_the_bodys_output_limit() {
        let mut request = session(1);
        let fitter = RequestFitter::new(words).with_window(1_000, 300);
        assert_eq!(fitter.input_limit(&request).unwrap(), (700, 300));
        request.max_output = Some(900);
        assert_eq!(fitter.input_limit(&request).unwrap(), (100, 900));
        request.max_output = Some(u64::MAX);
        assert!(matches!(
            fitter.input_limit(&request),
            Err(RequestError::OutputOverWindow { window: 1_000, .. })
        ));
        assert!(matches!(
            RequestFitter::new(words).fit(session(1)),
            Err(RequestError::NoLimit)
        ));
    }

    #[test]
    fn the_report_prints_a_table() {
        let request = session(10);
        let fitted = RequestFitter::new(words)
            .with_max_input(100)
            .fit(request)
            .unwrap();
        let table = fitted.report.to_string();
        assert!(
            table.starts_with("OpenAI Chat Completions request for test-model"),
            "{table}"
        );
        assert!(
            table.contains(&format!(
                "after      {:>8} tokens",
                fitted.report.tokens_after
            )),
            "{table}"
        );
        assert!(
            table.contains("limit           100 tokens (0 reserved for output)"),
            "{table}"
        );
        assert!(table.contains("over budget"), "{table}");
        assert!(
            table.contains("estimate: fixed cost made up by the test"),
            "{table}"
        );
    }
}
