//! What to emit beside the errors: the same items with every number zeroed and
//! clashing layers dropped, so user code that names the generated types reports
//! only the real mistakes, not a cascade of "cannot find type" errors.

use crate::ast::{Amount, Budget, keys};
use crate::expand;
use proc_macro2::TokenStream;

pub fn expand(mut budget: Budget) -> TokenStream {
    let span = budget.check_span;
    budget.total = Some(Amount::zero(span));
    let mut kept: Vec<crate::ast::Layer> = Vec::new();
    for mut layer in std::mem::take(&mut budget.layers) {
        let clashes = kept
            .iter()
            .any(|k| k.name == layer.name || k.variant == layer.variant);
        // A field-backed layer must stay (the builder moves every field); the others
        // can go.
        if clashes && layer.field.is_none() {
            continue;
        }
        if clashes || keys::RESERVED_NAMES.contains(&layer.name.as_str()) {
            layer.variant = quote::format_ident!("{}{}", layer.variant, kept.len());
        }
        layer.tokens = Some(Amount::zero(span));
        layer.share = None;
        kept.push(layer);
    }
    budget.layers = kept;
    expand::expand(&budget)
}
