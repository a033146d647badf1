//! Requests of Rust clients: [`RequestFitter::fit_serde`] fits any value that
//! serializes to a wire format ctxbudget reads and gives back a value of the same
//! type.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{AnyRequest, FittedRequest, RequestError, RequestFitter};
use crate::count::TokenCounter;

impl<C: TokenCounter> RequestFitter<C> {
    /// Fits a request of a Rust client's own type, such as async-openai's
    /// `CreateChatCompletionRequest` or `CreateResponse`, and gives back a value of
    /// that type, ready to send.
    ///
    /// `request` is serialized to JSON, read in the wire format
    /// [`detect_format`](super::detect_format) finds (any format
    /// [`AnyRequest`] reads), fitted as [`fit`](RequestFitter::fit) fits it, written
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
        let fitted = self.fit_any(AnyRequest::from_json(&body, None)?)?;
        let format = fitted.request.format();
        let request = serde_json::from_str(&fitted.request.to_json())
            .map_err(|source| RequestError::Deserialize { format, source })?;
        Ok(FittedRequest {
            request,
            report: fitted.report,
        })
    }
}
