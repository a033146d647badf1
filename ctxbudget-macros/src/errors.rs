//! [`Errors`]: collect every mistake of one input, report them together.

use quote::ToTokens;
use std::fmt::Display;

/// An accumulator of `syn::Error`s, folded with `syn::Error::combine`.
///
/// It must be consumed with [`finish`](Errors::finish): dropping it unfinished is a
/// bug in the macro and panics, so no error is ever silently lost.
pub struct Errors {
    error: Option<syn::Error>,
    finished: bool,
}

impl Errors {
    pub fn new() -> Self {
        Errors {
            error: None,
            finished: false,
        }
    }

    pub fn push(&mut self, error: syn::Error) {
        match &mut self.error {
            Some(existing) => existing.combine(error),
            None => self.error = Some(error),
        }
    }

    /// An error spanning `tokens` (all of their span, where the compiler supports it).
    pub fn error_spanned_by(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn error_at(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// The value of `result`, or `None` with its error pushed.
    pub fn handle<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// `Ok` if nothing was pushed, else every error combined.
    pub fn finish(mut self) -> syn::Result<()> {
        self.finished = true;
        match self.error.take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        assert!(
            self.finished || std::thread::panicking(),
            "ctxbudget-macros bug: an error accumulator was dropped without `finish()`"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn finish_combines_every_error() {
        let mut errors = Errors::new();
        assert!(errors.handle(Ok::<_, syn::Error>(1)).is_some());
        errors.error_at(Span::call_site(), "first");
        assert!(
            errors
                .handle::<()>(Err(syn::Error::new(Span::call_site(), "second")))
                .is_none()
        );
        let messages: Vec<String> = errors
            .finish()
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
    }

    #[test]
    fn empty_finish_is_ok() {
        assert!(Errors::new().finish().is_ok());
    }

    #[test]
    #[should_panic(expected = "without `finish()`")]
    fn unfinished_drop_panics() {
        let _errors = Errors::new();
    }
}
