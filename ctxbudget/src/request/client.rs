//! Requests of Rust clients: [`RequestFitter::fit_serde`] fits any value that
//! serializes to a wire format ctxbudget reads and gives back a value of the same
//! type.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::anthropic::MessagesRequest;
use super::bedrock::BedrockRequest;
use super::gemini::GeminiRequest;
use super::openai::ChatRequest;
use super::responses::ResponsesRequest;
use super::{
    FittedRequest, RequestError, RequestFitter, RequestFormat, WireRequest, detect_format,
};
use crate::count::TokenCounter;

/// A wire format's request type, read from and written to JSON text.
trait JsonBody: WireRequest {
    fn read(body: &str) -> Result<Self, RequestError>;
    fn write(&self) -> String;
}

macro_rules! json_body {
    ($($request:ty),* $(,)?) => {$(
        impl JsonBody for $request {
            fn read(body: &str) -> Result<Self, RequestError> {
                <$request>::from_json(body)
            }
            fn write(&self) -> String {
                self.to_json()
            }
        }
    )*};
}

json_body!(
    ChatRequest,
    MessagesRequest,
    ResponsesRequest,
    GeminiRequest,
    BedrockRequest
);

impl<C: TokenCounter> RequestFitter<C> {
    /// Fits a request of a Rust client's own type, such as async-openai's
    /// `CreateChatCompletionRequest` or `CreateResponse`, and gives back a value of
    /// that type, ready to send.
    ///
    /// `request` is serialized to JSON, read in the wire format
    /// [`detect_format`] finds (OpenAI Chat Completions, OpenAI Responses or
    /// Anthropic Messages), fitted as [`fit`](RequestFitter::fit) fits it, written
    /// back and deserialized into `T`: one serde round trip. Whole messages are
    /// removed and nothing else changes, so every field the client's type holds
    /// survives.
    ///
    /// ```
    /// use ctxbudget::request::RequestFitter;
    ///
    /// // With async-openai, write `CreateChatCompletionRequest` for `Value`.
    /// # type CreateChatCompletionRequest = serde_json::Value;
    /// let request: CreateChatCompletionRequest = serde_json::from_str(r#"{"model": "gpt-4o", "messages": [
    ///     {"role": "system", "content": "Be brief."},
    ///     {"role": "user", "content": "An old question, far too long to keep in a small window."},
    ///     {"role": "assistant", "content": "An old answer, just as long as the old question was."},
    ///     {"role": "user", "content": "What is 2 + 2?"}
    /// ]}"#)?;
    ///
    /// let words = |t: &str| t.split_whitespace().count();
    /// let fitted = RequestFitter::new(words).with_max_input(40).fit_serde(&request)?;
    /// let request: CreateChatCompletionRequest = fitted.request;
    ///
    /// assert_eq!(request["messages"].as_array().map(Vec::len), Some(2));
    /// assert_eq!(fitted.report.dropped.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// - [`RequestError::Serialize`] when `request` does not serialize to JSON
    ///   (a map with non-string keys, a failing `Serialize` impl).
    /// - What [`fit`](RequestFitter::fit) returns for the request it reads.
    /// - [`RequestError::Deserialize`] when the fitted body does not read back into
    ///   `T`: a type that requires at least one message of a kind the fit dropped.
    pub fn fit_serde<T>(&self, request: &T) -> Result<FittedRequest<T>, RequestError>
    where
        T: Serialize + DeserializeOwned,
    {
        let body =
            serde_json::to_string(request).map_err(|source| RequestError::Serialize { source })?;
        let fitted = match detect_format(&body)? {
            RequestFormat::AnthropicMessages => self.fit_body::<MessagesRequest>(&body)?,
            RequestFormat::OpenAiResponses => self.fit_body::<ResponsesRequest>(&body)?,
            RequestFormat::OpenAiChat => self.fit_body::<ChatRequest>(&body)?,
            RequestFormat::GeminiGenerateContent => self.fit_body::<GeminiRequest>(&body)?,
            RequestFormat::BedrockConverse => self.fit_body::<BedrockRequest>(&body)?,
        };
        let (format, body, report) = fitted;
        let request = serde_json::from_str(&body)
            .map_err(|source| RequestError::Deserialize { format, source })?;
        Ok(FittedRequest { request, report })
    }

    /// Reads `body` as an `R`, fits it and writes it back.
    fn fit_body<R: JsonBody>(
        &self,
        body: &str,
    ) -> Result<(RequestFormat, String, super::RequestReport), RequestError> {
        let fitted = self.fit(R::read(body)?)?;
        Ok((R::FORMAT, fitted.request.write(), fitted.report))
    }
}
