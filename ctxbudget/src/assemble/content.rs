//! [`LayerContent`]: how each kind of content is fitted to a budget, and the fitting
//! functions it is made of ([`fit_text`], [`fit_ranked`]; chat histories in
//! [`chat`](super::chat)).

use std::borrow::Cow;

use super::chat::{FittedMessages, fit_chat, fit_chat_messages, fit_chat_messages_edited};
use super::policy::{FitError, FittedLayer, LayerPolicy};
use crate::chat::edit::Edits;
use crate::chat::{ChatFormat, ChatMessage};
use crate::count::TokenCounter;
use crate::disclosure::{DisclosureError, disclose_within};
use crate::select::{RankedChunk, RankedChunks, RankedText, SelectOptions, select};
use crate::trim::{Keep, TrimOptions, trim_with};

/// Content that can be fitted to a token budget: the content of one layer of an
/// [`#[derive(ContextLayers)]`](derive@crate::ContextLayers) context.
///
/// Implemented for:
///
/// | content | fitted as | default policy |
/// | --- | --- | --- |
/// | `str`, `String`, `Cow<str>` | [`fit_text`] | head |
/// | `[String]`, `Vec<String>`, `[&str]`, `Vec<&str>` | the texts joined by a blank line, then [`fit_text`]; counted in texts for head and tail | head |
/// | `[M]`, `Vec<M>` for `M:` [`ChatMessage`] | [`fit_chat`]; as messages, [`fit_chat_messages`] ([`fit_chat_messages_edited`] with edits) | tail (latest messages) |
/// | [`RankedChunks`], `[RankedChunk]`, `Vec<RankedChunk>` | [`fit_ranked`] | best score first |
/// | `Option<T>` | `None` is empty | `T`'s |
/// | `&T`, `Box<T>` | `T` | `T`'s |
///
/// Implement it for your own types; the contract is that the returned
/// [`tokens`](FittedLayer::tokens) are what [`text`](FittedLayer::text) costs under
/// `counter`, at most `budget`. The assembler checks the whole prompt with the
/// counter, so a wrong count cannot make a prompt overflow, but it may make
/// assembly fail.
///
/// ```
/// use ctxbudget::{assemble::FitError, assemble::FittedLayer, LayerContent, assemble::LayerPolicy, TokenCounter, assemble::fit_text};
///
/// /// A file shown with its path.
/// struct File { path: String, body: String }
///
/// impl LayerContent for File {
///     fn fit<'a>(
///         &'a self,
///         budget: usize,
///         counter: &dyn TokenCounter,
///         policy: &LayerPolicy,
///     ) -> Result<FittedLayer<'a>, FitError> {
///         let header = format!("// {}\n", self.path);
///         let cost = counter.count(&header);
///         if cost > budget {
///             return Ok(FittedLayer::empty().with_kept(0, 1, "files"));
///         }
///         let body = fit_text(&self.body, budget - cost, counter, policy)?;
///         let text = format!("{header}{}", body.text);
///         let tokens = counter.count(&text);
///         if tokens > budget {
///             return Ok(FittedLayer::empty().with_kept(0, 1, "files"));
///         }
///         Ok(FittedLayer::whole(text, tokens).with_kept(body.kept, body.total, body.unit))
///     }
/// }
///
/// let file = File { path: "src/lib.rs".into(), body: "fn main() {}\n".repeat(50) };
/// let fitted = file.fit(20, &ctxbudget::CharEstimate, &LayerPolicy::Head)?;
/// assert!(fitted.text.starts_with("// src/lib.rs\nfn main() {}"));
/// assert!(fitted.tokens <= 20 && fitted.cut());
/// # Ok::<(), FitError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the content of a layer",
    label = "`assemble()` needs every field to implement `ctxbudget::LayerContent`",
    note = "use `String`, `&str`, `Cow<str>`, `Vec<String>`, `RankedChunks`, a chat history \
            `Vec<Message>` or `Option` of one, or implement `ctxbudget::LayerContent` for \
            `{Self}`"
)]
pub trait LayerContent {
    /// Fits the content to `budget` tokens of `counter` as `policy` says.
    ///
    /// # Errors
    ///
    /// [`FitError::NeverCut`] when `policy` is [`LayerPolicy::Never`] and the content
    /// is over `budget`; other variants when the content cannot be fitted at all.
    fn fit<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        policy: &LayerPolicy,
    ) -> Result<FittedLayer<'a>, FitError>;

    /// The policy used when the attribute names none. Default: [`LayerPolicy::Head`].
    fn default_policy(&self) -> LayerPolicy {
        LayerPolicy::Head
    }

    /// Whether the content is a chat history, whose messages a prompt assembled as
    /// messages sends as messages (with [`fit_messages`](Self::fit_messages)).
    /// Default: `false`, the content is text.
    fn is_chat_history(&self) -> bool {
        false
    }

    /// Fits a chat history to `budget` tokens as messages counted in `format`, the
    /// reply priming left out ([`fit_chat_messages`]). Only called when
    /// [`is_chat_history`](Self::is_chat_history) is `true`; implement the two
    /// together. Default: an error saying the content is not a chat history.
    ///
    /// # Errors
    ///
    /// As [`fit_chat_messages`].
    fn fit_messages<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        format: &ChatFormat,
        policy: &LayerPolicy,
    ) -> Result<FittedMessages<'a>, FitError> {
        let _ = (budget, counter, format, policy);
        Err(FitError::custom(
            "the content is not a chat history: it cannot be sent as messages",
        ))
    }

    /// [`fit_messages`](Self::fit_messages) with context edits made before whole
    /// messages are dropped ([`fit_chat_messages_edited`]); called instead of it when
    /// the assembly asks for edits
    /// ([`AssembleOptions::with_edits`](super::AssembleOptions::with_edits)).
    /// Default: [`fit_messages`](Self::fit_messages), without edits — a chat
    /// history of your own that can be edited overrides it, usually by calling
    /// [`fit_chat_messages_edited`].
    ///
    /// # Errors
    ///
    /// As [`fit_chat_messages_edited`].
    fn fit_messages_edited<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        format: &ChatFormat,
        policy: &LayerPolicy,
        edits: &Edits,
    ) -> Result<FittedMessages<'a>, FitError> {
        let _ = edits;
        self.fit_messages(budget, counter, format, policy)
    }
}

/// Fits a text to `budget` tokens of `counter` as `policy` says, cutting at the
/// strongest boundary that does not waste the budget ([`trim_with`]) or disclosing
/// at a section boundary ([`disclose_within`]). Head and tail cuts borrow the text;
/// the others allocate.
///
/// # Errors
///
/// [`FitError::NeverCut`] for [`LayerPolicy::Never`] and a text over `budget`;
/// [`FitError::Disclosure`] for a blank recovery action.
///
/// ```
/// use ctxbudget::{CharEstimate, assemble::LayerPolicy, assemble::fit_text};
///
/// let doc = "# Setup\nRun the installer and wait.\n\n# Usage\nCall it twice, then stop.\n\
///            Then wait for the second run to finish.\n";
/// let out = fit_text(doc, 26, &CharEstimate, &LayerPolicy::disclose("read SETUP.md"))?;
/// assert_eq!(
///     out.text,
///     "# Setup\nRun the installer and wait.\n\n<truncated: showing 3 of 6 lines; full text: read SETUP.md>"
/// );
/// assert_eq!((out.kept, out.total, out.unit, out.tokens), (3, 6, "lines", 24));
/// # Ok::<(), ctxbudget::assemble::FitError>(())
/// ```
pub fn fit_text<'a>(
    text: &'a str,
    budget: usize,
    counter: &dyn TokenCounter,
    policy: &LayerPolicy,
) -> Result<FittedLayer<'a>, FitError> {
    let keep = match policy {
        LayerPolicy::Never => {
            return match counter.count_within(text, budget) {
                Some(tokens) => Ok(FittedLayer::whole(text, tokens)),
                None => Err(FitError::never_cut(counter.count(text), budget)),
            };
        }
        LayerPolicy::Disclose { recovery } => {
            return match disclose_within(text, budget, counter, "lines", recovery) {
                Ok(out) => {
                    let (kept, total, tokens) = (out.shown, out.total, out.tokens);
                    let text = if out.truncated {
                        Cow::Owned(out.text())
                    } else {
                        Cow::Borrowed(out.rendered)
                    };
                    Ok(FittedLayer::whole(text, tokens).with_kept(kept, total, "lines"))
                }
                Err(DisclosureError::BudgetTooSmall { .. }) => {
                    let lines = text.lines().count();
                    Ok(FittedLayer::empty().with_kept(0, lines, "lines"))
                }
                Err(err) => Err(err.into()),
            };
        }
        LayerPolicy::Head => Keep::Head,
        LayerPolicy::Tail => Keep::Tail,
        LayerPolicy::HeadAndTail => Keep::HeadAndTail,
    };
    let trimmed = trim_with(text, budget, counter, &TrimOptions::new().keep(keep));
    let kept = trimmed.kept.len() + trimmed.tail.map_or(0, str::len);
    Ok(FittedLayer::whole(trimmed.text(), trimmed.tokens).with_kept(kept, text.len(), "bytes"))
}

/// A counter that charges nothing: [`select`] with it keeps every chunk it would ever
/// choose, whole, in its order, without counting any.
struct Free;

impl TokenCounter for Free {
    fn count(&self, _: &str) -> usize {
        0
    }
}

/// Fits relevance-ranked chunks to `budget` tokens of `counter` with [`select`]: the
/// best-scored chunks that fit, highest first, and the next one cut at a boundary to
/// fill the rest, joined by blank lines. Head, tail and the other cutting policies
/// all select by score; [`LayerPolicy::Never`] requires every chunk, whole.
///
/// Blank chunks (empty or only whitespace) are never sent, so they are not counted:
/// the report is `kept` of `total` `"whole chunks"`, where `total` is the number of
/// chunks that are not blank and a cut chunk is not counted as kept.
///
/// # Errors
///
/// [`FitError::NeverCut`] for [`LayerPolicy::Never`] when the chunks, all whole,
/// are over `budget`, with the exact count of their joined text.
///
/// ```
/// use ctxbudget::{CharEstimate, assemble::LayerPolicy, select::RankedChunks, assemble::fit_ranked};
///
/// let chunks: RankedChunks = [
///     ("Treaties may reduce withholding.", 0.65),
///     ("Form 8843 is filed by all nonresident aliens.", 0.91),
///     ("   ", 0.99),
/// ]
/// .into_iter()
/// .collect();
/// let out = fit_ranked(chunks.as_slice(), 12, &CharEstimate, &LayerPolicy::Head)?;
/// assert_eq!(out.text, "Form 8843 is filed by all nonresident aliens.");
/// assert_eq!((out.kept, out.total), (1, 2));
///
/// // The blank chunk is neither sent nor counted: both others fit whole in 20.
/// let all = fit_ranked(chunks.as_slice(), 20, &CharEstimate, &LayerPolicy::Never)?;
/// assert_eq!((all.kept, all.total, all.tokens), (2, 2, 20));
/// assert!(fit_ranked(chunks.as_slice(), 19, &CharEstimate, &LayerPolicy::Never).is_err());
/// # Ok::<(), ctxbudget::assemble::FitError>(())
/// ```
pub fn fit_ranked<'a, R: RankedText>(
    chunks: &'a [R],
    budget: usize,
    counter: &dyn TokenCounter,
    policy: &LayerPolicy,
) -> Result<FittedLayer<'a>, FitError> {
    let options = SelectOptions::new();
    let given = chunks
        .iter()
        .filter(|c| !c.text().trim().is_empty())
        .count();
    if matches!(policy, LayerPolicy::Never) {
        // Every chunk that is not blank, whole, in the order `select` joins them;
        // the joined text is counted once.
        let text = select(chunks, usize::MAX, &Free, &options).text();
        return match counter.count_within(&text, budget) {
            Some(tokens) => {
                Ok(FittedLayer::whole(text, tokens).with_kept(given, given, "whole chunks"))
            }
            None => Err(FitError::never_cut(counter.count(&text), budget)),
        };
    }
    let selection = select(chunks, budget, counter, &options);
    let whole = selection.chunks.iter().filter(|c| !c.is_cut()).count();
    Ok(
        FittedLayer::whole(selection.text(), selection.tokens).with_kept(
            whole,
            given,
            "whole chunks",
        ),
    )
}

impl LayerContent for RankedChunks {
    fn fit<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        policy: &LayerPolicy,
    ) -> Result<FittedLayer<'a>, FitError> {
        fit_ranked(self.as_slice(), budget, counter, policy)
    }
}

/// Fits texts joined by a blank line; head and tail cuts count whole texts kept.
fn fit_texts<'a, S: AsRef<str>>(
    texts: &[S],
    budget: usize,
    counter: &dyn TokenCounter,
    policy: &LayerPolicy,
) -> Result<FittedLayer<'a>, FitError> {
    const JOIN: &str = "\n\n";
    let joined = texts
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join(JOIN);
    let fitted = fit_text(&joined, budget, counter, policy)?.into_owned();
    let whole_texts = |kept_bytes: usize, from_end: bool| {
        let mut sum = 0usize;
        let mut n = 0;
        let lens = texts.iter().map(|t| t.as_ref().len());
        let mut count = |len: usize| {
            sum += len + if n == 0 { 0 } else { JOIN.len() };
            if sum <= kept_bytes {
                n += 1;
                true
            } else {
                false
            }
        };
        if from_end {
            lens.rev().take_while(|&len| count(len)).count()
        } else {
            lens.take_while(|&len| count(len)).count()
        }
    };
    Ok(match policy {
        LayerPolicy::Head | LayerPolicy::Tail if fitted.cut() => {
            let kept = whole_texts(fitted.kept, matches!(policy, LayerPolicy::Tail));
            fitted.with_kept(kept, texts.len(), "whole texts")
        }
        _ if !fitted.cut() => fitted.with_kept(texts.len(), texts.len(), "texts"),
        _ => fitted,
    })
}

/// Implements [`LayerContent`] for each type by handing the content, as a slice, to
/// one of the `fit_*` functions, with the given default policy.
macro_rules! layer_content {
    ($fit:ident, $policy:expr; $([$($generics:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($generics)*> LayerContent for $ty {
            fn fit<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                policy: &LayerPolicy,
            ) -> Result<FittedLayer<'a>, FitError> {
                $fit(&self[..], budget, counter, policy)
            }

            fn default_policy(&self) -> LayerPolicy {
                $policy
            }
        }
    )*};
}

layer_content!(fit_text, LayerPolicy::Head; [] str, [] String, [] Cow<'_, str>);
layer_content!(
    fit_texts, LayerPolicy::Head;
    [] [String], [] Vec<String>, [] [&str], [] Vec<&str>,
);
/// Chat histories: rendered for a string prompt, as messages for a messages prompt.
macro_rules! chat_content {
    ($([$($generics:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($generics)*> LayerContent for $ty {
            fn fit<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                policy: &LayerPolicy,
            ) -> Result<FittedLayer<'a>, FitError> {
                fit_chat(&self[..], budget, counter, policy)
            }

            fn default_policy(&self) -> LayerPolicy {
                LayerPolicy::Tail
            }

            fn is_chat_history(&self) -> bool {
                true
            }

            fn fit_messages<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                format: &ChatFormat,
                policy: &LayerPolicy,
            ) -> Result<FittedMessages<'a>, FitError> {
                fit_chat_messages(&self[..], budget, counter, format, policy)
            }

            fn fit_messages_edited<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                format: &ChatFormat,
                policy: &LayerPolicy,
                edits: &Edits,
            ) -> Result<FittedMessages<'a>, FitError> {
                fit_chat_messages_edited(&self[..], budget, counter, format, policy, edits)
            }
        }
    )*};
}

chat_content!([M: ChatMessage] [M], [M: ChatMessage] Vec<M>);
layer_content!(fit_ranked, LayerPolicy::Head; [] [RankedChunk], [] Vec<RankedChunk>);

impl<T: LayerContent> LayerContent for Option<T> {
    fn fit<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        policy: &LayerPolicy,
    ) -> Result<FittedLayer<'a>, FitError> {
        match self {
            Some(content) => content.fit(budget, counter, policy),
            None => Ok(FittedLayer::empty()),
        }
    }

    fn default_policy(&self) -> LayerPolicy {
        self.as_ref()
            .map_or(LayerPolicy::Head, LayerContent::default_policy)
    }

    fn is_chat_history(&self) -> bool {
        self.as_ref().is_some_and(LayerContent::is_chat_history)
    }

    fn fit_messages<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        format: &ChatFormat,
        policy: &LayerPolicy,
    ) -> Result<FittedMessages<'a>, FitError> {
        match self {
            Some(content) => content.fit_messages(budget, counter, format, policy),
            None => Ok(FittedMessages::empty(0)),
        }
    }

    fn fit_messages_edited<'a>(
        &'a self,
        budget: usize,
        counter: &dyn TokenCounter,
        format: &ChatFormat,
        policy: &LayerPolicy,
        edits: &Edits,
    ) -> Result<FittedMessages<'a>, FitError> {
        match self {
            Some(content) => content.fit_messages_edited(budget, counter, format, policy, edits),
            None => Ok(FittedMessages::empty(0)),
        }
    }
}

macro_rules! forward_content {
    ($($pointer:ty),* $(,)?) => {$(
        impl<T: LayerContent + ?Sized> LayerContent for $pointer {
            fn fit<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                policy: &LayerPolicy,
            ) -> Result<FittedLayer<'a>, FitError> {
                (**self).fit(budget, counter, policy)
            }

            fn default_policy(&self) -> LayerPolicy {
                (**self).default_policy()
            }

            fn is_chat_history(&self) -> bool {
                (**self).is_chat_history()
            }

            fn fit_messages<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                format: &ChatFormat,
                policy: &LayerPolicy,
            ) -> Result<FittedMessages<'a>, FitError> {
                (**self).fit_messages(budget, counter, format, policy)
            }

            fn fit_messages_edited<'a>(
                &'a self,
                budget: usize,
                counter: &dyn TokenCounter,
                format: &ChatFormat,
                policy: &LayerPolicy,
                edits: &Edits,
            ) -> Result<FittedMessages<'a>, FitError> {
                (**self).fit_messages_edited(budget, counter, format, policy, edits)
            }
        }
    )*};
}

forward_content!(&T, Box<T>, std::sync::Arc<T>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::Message;
    use crate::count::CharEstimate;

    #[test]
    fn policies_fit_text() {
        let text = "one two three four five six seven eight nine ten";
        let words = |t: &str| t.split_whitespace().count();
        let head = fit_text(text, 3, &words, &LayerPolicy::Head).unwrap();
        assert_eq!(head.text, "one two three");
        assert!(head.cut());
        let tail = fit_text(text, 2, &words, &LayerPolicy::Tail).unwrap();
        assert_eq!(tail.text, "nine ten");
        let never = fit_text(text, 3, &words, &LayerPolicy::Never).unwrap_err();
        assert_eq!(never, FitError::never_cut(10, 3));
        let whole = fit_text(text, 10, &words, &LayerPolicy::Never).unwrap();
        assert!(!whole.cut() && whole.tokens == 10);
    }

    #[test]
    fn disclose_too_small_is_empty() {
        let text = "a\nb\nc\nd\n";
        let out = fit_text(text, 1, &CharEstimate, &LayerPolicy::disclose("read it")).unwrap();
        assert_eq!(out.text, "");
        assert_eq!((out.kept, out.total), (0, 4));
        let blank = fit_text(text, 1, &CharEstimate, &LayerPolicy::disclose(" ")).unwrap_err();
        assert_eq!(blank, FitError::Disclosure(DisclosureError::BlankRecovery));
    }

    #[test]
    fn texts_count_whole_texts() {
        let texts = vec!["aaaa".to_owned(), "bbbb".to_owned(), "cccc".to_owned()];
        let out = texts.fit(3, &CharEstimate, &LayerPolicy::Head).unwrap();
        assert_eq!(out.text, "aaaa\n\nbbbb");
        assert_eq!((out.kept, out.total, out.unit), (2, 3, "whole texts"));
        let out = texts.fit(3, &CharEstimate, &LayerPolicy::Tail).unwrap();
        assert_eq!(out.text, "bbbb\n\ncccc");
        assert_eq!(out.kept, 2);
        let out = texts.fit(100, &CharEstimate, &LayerPolicy::Tail).unwrap();
        assert_eq!((out.kept, out.total, out.unit), (3, 3, "texts"));
    }

    #[test]
    fn chat_never_and_option() {
        let chat = vec![Message::user("hi there"), Message::assistant("hello")];
        let err = chat.fit(2, &CharEstimate, &LayerPolicy::Never).unwrap_err();
        assert!(matches!(err, FitError::NeverCut { .. }));
        let none: Option<String> = None;
        assert_eq!(
            none.fit(0, &CharEstimate, &LayerPolicy::Never)
                .unwrap()
                .text,
            ""
        );
        assert_eq!(chat.default_policy(), LayerPolicy::Tail);
    }
}
