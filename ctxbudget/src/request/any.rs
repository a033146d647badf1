//! [`AnyRequest`]: a request body in whichever wire format it is, for callers that
//! take bodies of every format (the Python binding, services behind a gateway).

use super::anthropic::MessagesRequest;
use super::openai::ChatRequest;
use super::responses::ResponsesRequest;
use super::{
    FittedRequest, RequestCount, RequestError, RequestFitter, RequestFormat, WireRequest,
    detect_format,
};
use crate::count::TokenCounter;

/// A request body of any wire format ctxbudget reads, told apart by
/// [`detect_format`] or named by the caller.
///
/// A new wire format gets a variant here and an arm in [`from_json`](Self::from_json),
/// [`format`](Self::format) and the `each!` macro; the compiler lists them.
///
/// [`RequestFitter::fit_any`] and [`RequestFitter::count_any`] fit and count it as
/// [`fit`](RequestFitter::fit) and [`count`](RequestFitter::count) do its format's own
/// type, so code that takes bodies of every format needs no `match` of its own.
///
/// ```
/// use ctxbudget::request::{AnyRequest, RequestFitter, RequestFormat};
///
/// let body = r#"{"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "Be brief.",
///     "messages": [{"role": "user", "content": "An old question, far too long to keep."},
///                  {"role": "assistant", "content": "An old answer, just as long as that."},
///                  {"role": "user", "content": "What is 2 + 2?"}]}"#;
/// let request = AnyRequest::from_json(body, None)?;
/// assert_eq!(request.format(), RequestFormat::AnthropicMessages);
/// assert_eq!(request.model(), Some("claude-sonnet-4-5"));
/// let words = |t: &str| t.split_whitespace().count();
/// let fitted = RequestFitter::new(words).with_max_input(20).fit_any(request)?;
/// assert_eq!(fitted.report.dropped.len(), 2);
/// assert!(fitted.request.to_json().contains("What is 2 + 2?"));
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum AnyRequest {
    /// OpenAI Chat Completions.
    OpenAiChat(ChatRequest),
    /// Anthropic Messages.
    AnthropicMessages(MessagesRequest),
    /// OpenAI Responses.
    OpenAiResponses(ResponsesRequest),
}

/// Runs `$body` with `$request` bound to the request of whichever format it is.
macro_rules! each {
    ($any:expr, $request:ident => $body:expr) => {
        match $any {
            AnyRequest::OpenAiChat($request) => $body,
            AnyRequest::AnthropicMessages($request) => $body,
            AnyRequest::OpenAiResponses($request) => $body,
        }
    };
}

impl AnyRequest {
    /// Reads `body` in `format`, or, with `None`, in the format [`detect_format`]
    /// reads from it.
    ///
    /// # Errors
    ///
    /// [`RequestError::NotJson`] for a body that is not JSON, and the format's own
    /// [`RequestError::Json`] (with the line and column) for one not of its shape.
    pub fn from_json(body: &str, format: Option<RequestFormat>) -> Result<Self, RequestError> {
        let format = match format {
            Some(format) => format,
            None => detect_format(body)?,
        };
        Ok(match format {
            RequestFormat::OpenAiChat => AnyRequest::OpenAiChat(ChatRequest::from_json(body)?),
            RequestFormat::AnthropicMessages => {
                AnyRequest::AnthropicMessages(MessagesRequest::from_json(body)?)
            }
            RequestFormat::OpenAiResponses => {
                AnyRequest::OpenAiResponses(ResponsesRequest::from_json(body)?)
            }
        })
    }

    /// The body's wire format.
    pub fn format(&self) -> RequestFormat {
        match self {
            AnyRequest::OpenAiChat(_) => ChatRequest::FORMAT,
            AnyRequest::AnthropicMessages(_) => MessagesRequest::FORMAT,
            AnyRequest::OpenAiResponses(_) => ResponsesRequest::FORMAT,
        }
    }

    /// The body's `model`, if it has one.
    pub fn model(&self) -> Option<&str> {
        each!(self, request => request.model())
    }

    /// The output limit the body asks for, if it sets one.
    pub fn max_output_tokens(&self) -> Option<u64> {
        each!(self, request => request.max_output_tokens())
    }

    /// How many messages (Responses: input items grouped as messages) the body has.
    pub fn message_count(&self) -> usize {
        each!(self, request => request.messages().len())
    }

    /// Checks the request as [`WireRequest::validate`] does.
    ///
    /// # Errors
    ///
    /// The first problem found, with where and what to fix.
    pub fn validate(&self) -> Result<(), RequestError> {
        each!(self, request => request.validate())
    }

    /// The body as compact JSON.
    pub fn to_json(&self) -> String {
        each!(self, request => request.to_json())
    }
}

impl<C: TokenCounter> RequestFitter<C> {
    /// [`fit`](RequestFitter::fit) for a request of any format.
    ///
    /// # Errors
    ///
    /// As [`fit`](RequestFitter::fit).
    pub fn fit_any(&self, request: AnyRequest) -> Result<FittedRequest<AnyRequest>, RequestError> {
        fn wrap<R>(
            fitted: FittedRequest<R>,
            any: impl FnOnce(R) -> AnyRequest,
        ) -> FittedRequest<AnyRequest> {
            FittedRequest {
                request: any(fitted.request),
                report: fitted.report,
            }
        }
        Ok(match request {
            AnyRequest::OpenAiChat(r) => wrap(self.fit(r)?, AnyRequest::OpenAiChat),
            AnyRequest::AnthropicMessages(r) => wrap(self.fit(r)?, AnyRequest::AnthropicMessages),
            AnyRequest::OpenAiResponses(r) => wrap(self.fit(r)?, AnyRequest::OpenAiResponses),
        })
    }

    /// [`count`](RequestFitter::count) for a request of any format.
    pub fn count_any(&self, request: &AnyRequest) -> RequestCount {
        each!(request, request => self.count(request))
    }

    /// [`input_limit`](RequestFitter::input_limit) for a request of any format.
    ///
    /// # Errors
    ///
    /// As [`input_limit`](RequestFitter::input_limit).
    pub fn input_limit_any(&self, request: &AnyRequest) -> Result<(usize, usize), RequestError> {
        each!(request, request => self.input_limit(request))
    }
}
