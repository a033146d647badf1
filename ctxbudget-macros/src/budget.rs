//! The `budget!` grammar:
//!
//! ```text
//! budget! {
//!     #[attr]*                       // doc comments and attributes for the marker type,
//!                                    // plus an optional #[context(crate = path)]
//!     VIS NAME ( total = EXPR ) {
//!         #[doc]* LAYER : EXPR ,     // one or more, trailing comma optional
//!     }
//! }
//! ```

use crate::ast::{Budget, Layer, unknown_key_message, variant_ident};
use crate::attr::amount;
use crate::errors::Errors;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Expr, Ident, Path, Token, Visibility, braced, parenthesized};

mod kw {
    syn::custom_keyword!(total);
}

/// One `name: tokens` entry before validation.
pub struct Entry {
    pub docs: Vec<Attribute>,
    pub ident: Ident,
    pub tokens: Expr,
}

/// The parsed input: syntax only, numbers checked later.
pub struct Input {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    pub total_kw: kw::total,
    pub total: Expr,
    pub entries: Vec<Entry>,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let lookahead = input.lookahead1();
        if !lookahead.peek(Ident::peek_any) {
            return Err(lookahead.error());
        }
        let ident: Ident = input.parse()?;

        let lookahead = input.lookahead1();
        if !lookahead.peek(syn::token::Paren) {
            let mut error = lookahead.error();
            error.combine(syn::Error::new(
                error.span(),
                format!("write the total after the name: `{ident}(total = 8192) {{ .. }}`"),
            ));
            return Err(error);
        }
        let args;
        parenthesized!(args in input);
        let lookahead = args.lookahead1();
        if !lookahead.peek(kw::total) {
            if args.peek(Ident::peek_any) {
                let key: Ident = args.call(Ident::parse_any)?;
                return Err(syn::Error::new(
                    key.span(),
                    unknown_key_message("the budget's parentheses", &key.to_string(), &["total"]),
                ));
            }
            return Err(syn::Error::new(
                args.span(),
                format!("missing total: write `{ident}(total = 8192)`"),
            ));
        }
        let total_kw: kw::total = args.parse()?;
        args.parse::<Token![=]>()?;
        let total: Expr = args.parse()?;
        if !args.is_empty() {
            return Err(args.error("expected `)` after the total; the layers go in `{ .. }`"));
        }

        let lookahead = input.lookahead1();
        if !lookahead.peek(syn::token::Brace) {
            return Err(lookahead.error());
        }
        let body;
        braced!(body in input);
        let mut entries = Vec::new();
        while !body.is_empty() {
            let docs = body.call(Attribute::parse_outer)?;
            let lookahead = body.lookahead1();
            if !lookahead.peek(Ident::peek_any) {
                return Err(lookahead.error());
            }
            let ident: Ident = body.parse()?;
            let lookahead = body.lookahead1();
            if !lookahead.peek(Token![:]) {
                let mut error = lookahead.error();
                error.combine(syn::Error::new(
                    error.span(),
                    format!("write each layer as `{ident}: 512`"),
                ));
                return Err(error);
            }
            body.parse::<Token![:]>()?;
            let tokens: Expr = body.parse()?;
            entries.push(Entry {
                docs,
                ident,
                tokens,
            });
            if body.is_empty() {
                break;
            }
            let lookahead = body.lookahead1();
            if !lookahead.peek(Token![,]) {
                return Err(lookahead.error());
            }
            body.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(
                input.error("unexpected tokens after the layers; declare one budget per `budget!`")
            );
        }
        Ok(Input {
            attrs,
            vis,
            ident,
            total_kw,
            total,
            entries,
        })
    }
}

/// `#[context(crate = path)]` among the attributes: taken out, the rest kept.
fn crate_path(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> Path {
    let mut krate = None;
    attrs.retain(|attr| {
        if !attr.path().is_ident("context") {
            return true;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                krate = Some(meta.value()?.parse::<Path>()?);
                Ok(())
            } else {
                let key = meta
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                Err(meta.error(unknown_key_message(
                    "`budget!`'s `#[context(..)]`",
                    &key,
                    &["crate"],
                )))
            }
        });
        errors.handle(result);
        false
    });
    krate.unwrap_or_else(Budget::default_crate)
}

/// The model of a `budget!`, with the numbers' mistakes pushed to `errors`.
pub fn model(input: Input, errors: &mut Errors) -> Budget {
    let Input {
        mut attrs,
        vis,
        ident,
        total_kw,
        total,
        entries,
    } = input;
    let krate = crate_path(&mut attrs, errors);
    let total = amount(total, "total", errors);
    let layers: Vec<Layer> = entries
        .into_iter()
        .map(|entry| {
            let name = entry.ident.unraw().to_string();
            Layer {
                variant: variant_ident(&name, entry.ident.span()),
                tokens: amount(entry.tokens, &name, errors),
                share: None,
                name,
                ident: entry.ident,
                field: None,
                docs: entry.docs,
            }
        })
        .collect();
    if layers.is_empty() {
        errors.error_spanned_by(
            &ident,
            format!("`{ident}` declares no layer: add at least one, e.g. `{{ system: 512 }}`"),
        );
    }
    Budget {
        krate,
        vis,
        check_span: total_kw.span,
        ident,
        generics: syn::Generics::default(),
        total,
        layers,
        derive: false,
        attrs,
        separator: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::valid;

    fn messages(tokens: proc_macro2::TokenStream) -> Vec<String> {
        match syn::parse2::<Input>(tokens) {
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
            Ok(input) => {
                let mut errors = Errors::new();
                let budget = model(input, &mut errors);
                valid::check(&budget, &mut errors);
                match errors.finish() {
                    Ok(()) => Vec::new(),
                    Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
                }
            }
        }
    }

    #[test]
    fn the_documented_example_parses() {
        let input: Input = syn::parse_quote! {
            /// Docs.
            pub ChatBudget(total = 8192) { system: 512, history: 4096, user: 1024, output: 1024 }
        };
        assert_eq!(input.entries.len(), 4);
        assert_eq!(input.attrs.len(), 1);
        assert_eq!(input.ident, "ChatBudget");
    }

    #[test]
    fn grammar_mistakes_say_what_was_expected() {
        assert_eq!(
            messages(quote::quote!(Chat { a: 1 })),
            [
                "expected parentheses",
                "write the total after the name: `Chat(total = 8192) { .. }`"
            ]
        );
        assert_eq!(
            messages(quote::quote!(Chat(totl = 5) { a: 1 })),
            ["unknown key `totl` in the budget's parentheses; did you mean `total`?"]
        );
        assert_eq!(
            messages(quote::quote!(Chat(total = 5) { a = 1 })),
            ["expected `:`", "write each layer as `a: 512`"]
        );
        assert_eq!(
            messages(quote::quote!(Chat(total = 5) { a: 1 b: 2 })),
            ["expected `,`"]
        );
    }

    #[test]
    fn number_mistakes_are_all_reported() {
        assert_eq!(
            messages(quote::quote!(Chat(total = 10) { a: 8, b: 1.5, c: -1, a: 1, d: 4 })),
            [
                "`b` must be a whole number of tokens, not `1.5`; write an integer such as `1`",
                "`c` cannot be negative; a token count is 0 or more",
                "duplicate layer `a`; rename or remove one",
            ]
        );
        assert_eq!(
            messages(quote::quote!(Chat(total = 10) { a: 8, b: 4 })),
            [
                "layers reserve 12 tokens (a 8 + b 4) but the total is 10: 2 over; lower a \
              reservation or raise `total` to at least 12"
            ]
        );
    }
}
