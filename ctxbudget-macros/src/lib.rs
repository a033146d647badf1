//! Procedural macros for [`ctxbudget`](https://docs.rs/ctxbudget).
//!
//! Use them through `ctxbudget`'s re-exports; generated code names items of
//! `ctxbudget::__private`, so the two crates ship together. The documentation of
//! both macros lives on the re-exports in `ctxbudget`.
//!
//! Each macro runs parse -> validate -> expand: `attr` and `budget` parse into the
//! model of `ast`, `valid` checks it, `expand` writes the items (`builder` those only
//! the derive has) and `fallback` writes stand-ins beside the errors.

mod ast;
mod attr;
mod budget;
mod builder;
mod errors;
mod expand;
mod fallback;
mod valid;
mod values;

use proc_macro::TokenStream;

#[doc = include_str!("../doc/derive.md")]
#[proc_macro_derive(ContextLayers, attributes(context, budget))]
pub fn derive_context_layers(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let mut errors = errors::Errors::new();
    let model = attr::parse_derive(&input, &mut errors);
    finish(model, errors).into()
}

#[doc = include_str!("../doc/budget.md")]
#[proc_macro]
pub fn budget(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as budget::Input);
    let mut errors = errors::Errors::new();
    let model = budget::model(input, &mut errors);
    finish(Some(model), errors).into()
}

/// Validate, then expand, or emit the errors beside the fallback items.
fn finish(model: Option<ast::Budget>, mut errors: errors::Errors) -> proc_macro2::TokenStream {
    if let Some(model) = &model {
        valid::check(model, &mut errors);
    }
    match errors.finish() {
        Ok(()) => model.map(|m| expand::expand(&m)).unwrap_or_default(),
        Err(error) => {
            let mut out = error.to_compile_error();
            if let Some(model) = model {
                out.extend(fallback::expand(model));
            }
            out
        }
    }
}
