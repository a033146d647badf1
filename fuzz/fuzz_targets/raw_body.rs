//! What the fuzz targets of the formats kept as raw JSON per message (Gemini's
//! `contents`, Bedrock's `messages`) check, from arbitrary bytes: never panics; a
//! body that parses serializes to a body that parses to the same request and, when
//! serde reads the input as a JSON value too, to an equal value; counting and
//! checking it never panic; fitted to a small limit (with or without the context
//! edits), it still parses, round-trips, fits, keeps every field outside its list as
//! it was, and a valid request stays valid with every kept message unchanged when
//! nothing is edited.
//!
//! Input: 1 byte of options (bits 0-5: the limit, in 16-token steps; bit 6: the
//! default context edits; bit 7: a byte-order mark before the body), then the body.

use std::fmt::Debug;

use ctxbudget::CharEstimate;
use ctxbudget::chat::edit::Edits;
use ctxbudget::request::bedrock::BedrockRequest;
use ctxbudget::request::gemini::GeminiRequest;
use ctxbudget::request::{RequestError, RequestFitter, WireRequest};

/// A request type whose messages keep their exact JSON text.
pub trait RawBody: WireRequest + Clone + PartialEq + Debug {
    /// The body's key of the message list.
    const LIST: &'static str;
    fn from_slice(bytes: &[u8]) -> Result<Self, RequestError>;
    fn from_json(json: &str) -> Result<Self, RequestError>;
    fn to_json(&self) -> String;
    /// Each message's JSON text, in order.
    fn raw_messages(&self) -> Vec<&str>;
}

impl RawBody for GeminiRequest {
    const LIST: &'static str = "contents";
    fn from_slice(bytes: &[u8]) -> Result<Self, RequestError> {
        GeminiRequest::from_slice(bytes)
    }
    fn from_json(json: &str) -> Result<Self, RequestError> {
        GeminiRequest::from_json(json)
    }
    fn to_json(&self) -> String {
        GeminiRequest::to_json(self)
    }
    fn raw_messages(&self) -> Vec<&str> {
        self.contents().iter().map(|c| c.raw().get()).collect()
    }
}

impl RawBody for BedrockRequest {
    const LIST: &'static str = "messages";
    fn from_slice(bytes: &[u8]) -> Result<Self, RequestError> {
        BedrockRequest::from_slice(bytes)
    }
    fn from_json(json: &str) -> Result<Self, RequestError> {
        BedrockRequest::from_json(json)
    }
    fn to_json(&self) -> String {
        BedrockRequest::to_json(self)
    }
    fn raw_messages(&self) -> Vec<&str> {
        self.messages().iter().map(|m| m.raw().get()).collect()
    }
}

/// The checks of the module docs, on one input.
pub fn check<R: RawBody>(data: &[u8]) {
    let Some((&options, body)) = data.split_first() else {
        return;
    };
    let mut input = Vec::with_capacity(body.len() + 3);
    if options & 0x80 != 0 {
        input.extend_from_slice(b"\xef\xbb\xbf");
    }
    input.extend_from_slice(body);
    let Ok(request) = R::from_slice(&input) else {
        return;
    };
    if let Ok(text) = std::str::from_utf8(&input) {
        assert_eq!(R::from_json(text).ok().as_ref(), Some(&request));
    }

    let json = request.to_json();
    let again = R::from_json(&json).expect("our output parses");
    assert_eq!(again, request);
    if let Ok(original) = serde_json::from_slice::<serde_json::Value>(body) {
        let written: serde_json::Value = serde_json::from_str(&json).expect("our output is JSON");
        assert_eq!(written, original);
    }

    let cost = RequestFitter::new(CharEstimate).count(&request);
    let _ = cost.assumptions.iter().map(ToString::to_string).count();
    let valid = request.validate();
    if let Err(err) = &valid {
        assert!(!err.to_string().is_empty());
    }

    let limit = usize::from(options & 0x3f) * 16;
    let edited = options & 0x40 != 0;
    let edits = if edited { Edits::default() } else { Edits::none() };
    let fitter = RequestFitter::new(CharEstimate).with_max_input(limit).with_edits(edits);
    let Ok(fitted) = fitter.fit(request.clone()) else {
        return;
    };
    let out = fitted.request;
    assert!(fitted.report.tokens_after <= limit);
    assert_eq!(fitter.count(&out).tokens, fitted.report.tokens_after);
    let reparsed = R::from_json(&out.to_json()).expect("the fitted body parses");
    assert_eq!(reparsed.to_json(), out.to_json());
    let strip = |r: &R| {
        let mut value: serde_json::Value = serde_json::from_str(&r.to_json()).expect("JSON");
        if let Some(map) = value.as_object_mut() {
            map.remove(R::LIST);
        }
        value
    };
    assert_eq!(strip(&out), strip(&request), "only the messages change");
    if !edited {
        // Every kept message is one of the input's, in order.
        let originals = request.raw_messages();
        let mut original = originals.iter();
        for message in out.raw_messages() {
            assert!(original.any(|o| *o == message), "a kept message changed");
        }
    }
    if valid.is_ok() {
        if let Err(err) = out.validate() {
            panic!("a valid request fitted is invalid: {err}");
        }
    }
}
