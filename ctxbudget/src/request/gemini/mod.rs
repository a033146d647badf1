//! Gemini `generateContent` request bodies, read and written losslessly, counted
//! with the Gemini estimate, checked, and trimmed by whole units.
//!
//! [`GeminiRequest`] is the body: its `contents` are [`GeminiContent`]s, each kept
//! as its exact JSON text whatever its parts (`text`, `inlineData`, `fileData`,
//! `functionCall`, `functionResponse`, `executableCode`, parts ctxbudget does not
//! know, a `thought` flag and a `thoughtSignature` on any of them); every other
//! field (`systemInstruction`, `tools`, `toolConfig`, `cachedContent`,
//! `generationConfig`, ...) is kept as the JSON text it was: parsing a body and
//! serializing it gives back an equal JSON value. Keys are read in the REST API's
//! camelCase and in `snake_case`.
//!
//! The chat engine sees each content as a message: a `model` content is the
//! assistant's, its `functionCall` parts its tool calls; the `functionResponse`
//! parts of the user content right after it are their results (paired by `id`
//! when the call has one, else by `name`, in order). A fit drops whole units (a
//! call with its responses) and leaves every kept content as it was, unless the
//! context edits say otherwise (old responses cleared or truncated, old thought
//! parts without a signature dropped). A `thoughtSignature` always stays on its
//! part, and a tool loop after the latest user content that carries one is kept
//! whole: Gemini 3 rejects a turn's calls without their signatures.
//!
//! ```
//! use ctxbudget::request::{RequestFitter, WireRequest};
//! use ctxbudget::request::gemini::GeminiRequest;
//!
//! let request = GeminiRequest::from_json(r#"{
//!   "systemInstruction": {"parts": [{"text": "Answer in one line."}]},
//!   "contents": [
//!     {"role": "user", "parts": [{"text": "List the files, with every detail you can find."}]},
//!     {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
//!     {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a.txt b.txt c.txt d.txt e.txt f.txt"}}}]},
//!     {"role": "model", "parts": [{"text": "Six text files."}]},
//!     {"role": "user", "parts": [{"text": "Which is newest?"}]}
//!   ]
//! }"#)?;
//! request.validate()?;
//!
//! let words = |t: &str| t.split_whitespace().count();
//! let fitted = RequestFitter::new(words).with_max_input(40).fit(request)?;
//! let kept = fitted.request.contents();
//! // The old turn went; the latest question stays, untouched.
//! assert_eq!(kept.len(), 1);
//! assert_eq!(kept[0].raw().get(), r#"{"role": "user", "parts": [{"text": "Which is newest?"}]}"#);
//! assert!(fitted.report.tokens_after <= 40);
//! # Ok::<(), ctxbudget::request::RequestError>(())
//! ```
//!
//! # Counting
//!
//! Google publishes neither a Gemini tokenizer nor how contents are framed, so
//! a count is an estimate with the counter you give (for catalogue models,
//! [`ModelEstimate::gemini`](crate::count::ModelEstimate::gemini)), and says so
//! ([`TOKENIZER`]):
//!
//! - each content costs [`chat_format`]'s 4 tokens and its role; each call its
//!   name, its `args` as compact JSON and 3 more;
//! - text parts are counted as text, thought parts too ([`THOUGHTS`]); a
//!   `thoughtSignature` costs nothing;
//! - a `functionResponse` costs its name and its `response` (the `output` or
//!   `error` string as text, the rest as compact JSON);
//! - an `inlineData` image whose size its header gives costs 258 tokens a
//!   768-pixel tile (one tile at most 384 × 384) on Gemini 1.5 and 2 models;
//!   on Gemini 3 and later any image costs what its media resolution asks (the
//!   part's own `mediaResolution.level`, else `generationConfig.mediaResolution`):
//!   280 tokens at low, 560 at medium, [`MEDIA_TOKENS`] at high (the default),
//!   2,240 at ultra high; when the model is not known, the more of the two
//!   ([`IMAGES`]; give it with [`GeminiRequest::with_model`]); other inline data,
//!   files and unreadable images cost [`MEDIA_TOKENS`], or more at ultra high
//!   ([`MEDIA`]); parts of other kinds their compact JSON text ([`AS_JSON`]);
//! - `systemInstruction` costs its parts, framed as a content; each function
//!   declaration (and each built-in tool) its compact JSON text, and a
//!   `toolConfig` its own ([`TOOLS`]);
//! - with `cachedContent`, a cached prefix of unknown size comes first: the count
//!   excludes it and says so ([`CACHED_CONTENT`]).
//!
//! # Checks
//!
//! [`WireRequest::validate`](crate::request::WireRequest::validate) reports the
//! first problem as [`RequestError::InvalidField`](crate::request::RequestError::InvalidField)
//! with its place (`contents[12].parts[1]`, `tools[0]`, `systemInstruction`): a
//! content or part that cannot be read (no `parts`, a part with two kinds, a
//! call or response without a `name`), a role other than `user` and `model`, a
//! `functionCall` in a user content or a `functionResponse` in a model one, a
//! response that answers no call of the model content right before it, a call
//! with no response in the content right after it, a call id given twice, two
//! responses to one call, `contents` empty (without `cachedContent`), and a
//! function declaration without a `name`.

mod content;
mod count;
mod edit;
mod media;
mod part;
mod request;
mod validate;

pub use content::GeminiContent;
pub use count::{AS_JSON, CACHED_CONTENT, IMAGES, MEDIA, THOUGHTS, TOKENIZER, TOOLS, chat_format};
pub use media::{MEDIA_TOKENS, TILE_TOKENS};
pub use request::{GeminiRequest, RawValueRef};
