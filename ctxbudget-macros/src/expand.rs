//! Expand a validated [`Budget`] into items. Cannot fail.
//!
//! Every path is absolute (`::core::..`, `<krate>::__private::..`), so user code that
//! shadows `Option`, `Result`, `usize` or `core` changes nothing here, and the runtime
//! is named only through its `__private` module.
//!
//! A generic context's budget cannot depend on its generics (reservations are
//! constants), so it lives on the layer enum, which has none: the enum implements
//! `ContextLayers` with the table, the struct's impl forwards to it, and the usage
//! tracker counts for the enum. A tracker never borrows what its context borrows, and
//! `NameUsage::new()` needs no type annotations.

use crate::ast::{Amount, Budget, FieldLayer, Layer};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{GenericParam, Generics, Ident, Lifetime, LitInt, Type};

pub fn expand(budget: &Budget) -> TokenStream {
    let layer_enum = layer_enum(budget);
    let trait_impl = trait_impl(budget);
    let checks = const_checks(budget);
    let usage = usage(budget);
    let owner = if budget.derive {
        crate::builder::builder(budget)
    } else {
        marker(budget)
    };
    quote! {
        #layer_enum
        #trait_impl
        #checks
        #usage
        #owner
    }
}

pub fn enum_ident(budget: &Budget) -> Ident {
    format_ident!("{}Layer", budget.ident)
}

pub fn usage_ident(budget: &Budget) -> Ident {
    format_ident!("{}Usage", budget.ident)
}

pub fn builder_ident(budget: &Budget) -> Ident {
    format_ident!("{}Builder", budget.ident)
}

/// `<krate>::__private`: the only way generated code names the runtime.
pub fn runtime(budget: &Budget) -> TokenStream {
    let krate = &budget.krate;
    quote!(#krate::__private)
}

/// The type whose `ContextLayers` impl holds the layer table: the context itself, or
/// for a generic context the layer enum.
pub fn table_owner(budget: &Budget) -> TokenStream {
    if budget.is_generic() {
        enum_ident(budget).into_token_stream()
    } else {
        budget.ident.to_token_stream()
    }
}

/// The arguments that name the struct's own parameters: `'a, T, N` for
/// `<'a, T: Bound, const N: usize>`.
pub fn generic_args(generics: &Generics) -> Vec<TokenStream> {
    generics
        .params
        .iter()
        .map(|param| match param {
            GenericParam::Lifetime(l) => l.lifetime.to_token_stream(),
            GenericParam::Type(t) => t.ident.to_token_stream(),
            GenericParam::Const(c) => c.ident.to_token_stream(),
        })
        .collect()
}

/// `Name` or `Name<args>`.
pub fn with_args(ident: &Ident, args: &[TokenStream]) -> TokenStream {
    if args.is_empty() {
        quote!(#ident)
    } else {
        quote!(#ident<#(#args),*>)
    }
}

/// The names of the struct's parameters (lifetimes with their `'`), which generated
/// parameters must not reuse.
pub fn taken_names(generics: &Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .map(|param| match param {
            GenericParam::Lifetime(l) => l.lifetime.to_string(),
            GenericParam::Type(t) => t.ident.to_string(),
            GenericParam::Const(c) => c.ident.to_string(),
        })
        .collect()
}

/// `base`, or `base_`, `base__`.. if the struct already has a parameter of that name.
pub fn fresh(base: &str, taken: &[String]) -> String {
    let mut name = base.to_owned();
    while taken.contains(&name) {
        name.push('_');
    }
    name
}

pub fn fresh_ident(base: &str, taken: &[String], span: Span) -> Ident {
    Ident::new(&fresh(base, taken), span)
}

pub fn fresh_lifetime(base: &str, taken: &[String]) -> Lifetime {
    Lifetime::new(&fresh(base, taken), Span::call_site())
}

fn mentions_any(tokens: TokenStream, names: &[&Ident]) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => names.iter().any(|n| **n == ident),
        TokenTree::Group(group) => mentions_any(group.stream(), names),
        _ => false,
    })
}

/// Whether `ty` names one of the struct's type or const parameters: such a field is
/// inferred from its setter's argument, so the setter takes the type itself.
pub fn mentions_params(ty: &Type, generics: &Generics) -> bool {
    let names: Vec<&Ident> = generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(t) => Some(&t.ident),
            GenericParam::Const(c) => Some(&c.ident),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    !names.is_empty() && mentions_any(ty.to_token_stream(), &names)
}

/// The reservation as an expression of type `usize` (0 where it is missing, which
/// only the fallback expansion sees). A const expression of any unsigned integer type
/// is converted at compile time, and one that does not fit `usize` is a compile error
/// naming `what`.
fn tokens_expr(budget: &Budget, amount: Option<&Amount>, what: &str) -> TokenStream {
    match amount {
        Some(Amount::Lit { value, lit }) => {
            let lit = LitInt::new(&format!("{value}usize"), lit.span());
            quote!(#lit)
        }
        Some(amount @ Amount::Expr(expr)) => {
            // The runtime path too: a type error in the call then points at the
            // expression, not at the macro.
            let rt = respan(runtime(budget), amount.span());
            let message = format!("{what} does not fit in usize on this target; lower it");
            quote_spanned! {amount.span()=>
                match #rt::Tokens::new(#expr).get() {
                    ::core::option::Option::Some(__tokens) => __tokens,
                    ::core::option::Option::None => ::core::panic!(#message),
                }
            }
        }
        None => quote!(0usize),
    }
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// How a reservation reads in docs: `512` or `` `MEMORY_TOKENS` ``.
fn tokens_doc(amount: Option<&Amount>) -> String {
    match amount {
        Some(Amount::Lit { value, .. }) => value.to_string(),
        Some(Amount::Expr(expr)) => format!("`{}`", quote!(#expr)),
        None => "0".to_owned(),
    }
}

/// A layer's reservation as the docs show it: `512 tokens`, or `share 0.25 of the
/// window`.
pub fn reservation_doc(layer: &Layer) -> String {
    match &layer.share {
        Some(share) => format!("share {} of the window", share.text),
        None => format!("{} tokens", tokens_doc(layer.tokens.as_ref())),
    }
}

fn layer_list_doc(budget: &Budget) -> String {
    budget
        .layers
        .iter()
        .map(|l| format!("`{}` ({})", l.name, reservation_doc(l)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fields of a derive, each with its layer.
pub fn field_layers(budget: &Budget) -> Vec<(&Layer, &FieldLayer)> {
    budget
        .layers
        .iter()
        .filter_map(|l| l.field.as_ref().map(|f| (l, f)))
        .collect()
}

fn layer_enum(budget: &Budget) -> TokenStream {
    let Budget { vis, ident, .. } = budget;
    let rt = runtime(budget);
    let owner = table_owner(budget);
    let enum_ident = enum_ident(budget);
    let count = budget.layers.len();
    let generic_note = if budget.is_generic() {
        format!(
            "\n\n`{ident}` is generic, so this enum also carries its budget: it implements \
             `ContextLayers` with the same constants, and `{}` counts for it.",
            usage_ident(budget)
        )
    } else {
        String::new()
    };
    let doc = format!(
        "The layers of [`{ident}`], in declaration order: {}.\n\nGenerated by `ctxbudget`; \
         each variant names one layer, so a layer that does not exist cannot be spent on. \
         `str::parse` reads a layer from its name, e.g. from a configuration file.{generic_note}",
        layer_list_doc(budget)
    );
    let variants = budget.layers.iter().map(|layer| {
        let Layer {
            variant,
            name,
            docs,
            ..
        } = layer;
        let doc = format!("Layer `{name}`: {} reserved.", reservation_doc(layer));
        let sep = (!docs.is_empty()).then(|| quote!(#[doc = ""]));
        quote!(#(#docs)* #sep #[doc = #doc] #variant)
    });
    let variant_list: Vec<&Ident> = budget.layers.iter().map(|l| &l.variant).collect();
    let names: Vec<&String> = budget.layers.iter().map(|l| &l.name).collect();
    let indices = (0..count).map(syn::Index::from);
    quote! {
        #[doc = #doc]
        // Variants carry the user's field spans, so a layer never spent on would
        // otherwise warn as "never constructed" in the user's crate.
        #[allow(dead_code)]
        #[derive(
            ::core::fmt::Debug,
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::cmp::PartialOrd,
            ::core::cmp::Ord,
            ::core::hash::Hash
        )]
        #vis enum #enum_ident {
            #(#variants,)*
        }

        impl #enum_ident {
            /// Every layer, in declaration order.
            pub const ALL: [Self; #count] = [#(Self::#variant_list),*];

            /// Every layer's name, in declaration order: what `name()` returns and
            /// `str::parse` accepts.
            pub const NAMES: [&'static ::core::primitive::str; #count] = [#(#names),*];

            /// The layer's name, as in telemetry and in the runtime budget.
            #[must_use]
            pub const fn name(self) -> &'static ::core::primitive::str {
                match self {
                    #(Self::#variant_list => #names,)*
                }
            }

            /// The layer's reservation in tokens.
            #[must_use]
            pub const fn budget(self) -> ::core::primitive::usize {
                <#owner as #rt::ContextLayers>::LAYERS[self.index()].tokens()
            }

            /// The layer's position in [`ALL`](Self::ALL).
            #[must_use]
            pub const fn index(self) -> ::core::primitive::usize {
                match self {
                    #(Self::#variant_list => #indices,)*
                }
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for #enum_ident {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __f.write_str(self.name())
            }
        }

        #[automatically_derived]
        impl ::core::str::FromStr for #enum_ident {
            type Err = #rt::UnknownLayer;

            fn from_str(
                __name: &::core::primitive::str,
            ) -> ::core::result::Result<Self, Self::Err> {
                match __name {
                    #(#names => ::core::result::Result::Ok(Self::#variant_list),)*
                    _ => ::core::result::Result::Err(#rt::UnknownLayer::new(__name, &Self::NAMES)),
                }
            }
        }
    }
}

/// `impl ContextLayers`: on the context, or for a generic context on the layer enum
/// with the context's impl forwarding to it.
fn trait_impl(budget: &Budget) -> TokenStream {
    let Budget { ident, .. } = budget;
    let rt = runtime(budget);
    let enum_ident = enum_ident(budget);
    let count = budget.layers.len();
    let total = tokens_expr(budget, budget.total.as_ref(), "the total");
    let specs = budget.layers.iter().map(|layer| {
        let name = &layer.name;
        let what = format!("the reservation of layer `{name}`");
        let required = layer.field.as_ref().is_some_and(|f| f.required);
        if let Some(share) = &layer.share {
            let ppm = share.ppm;
            return quote!(
                #rt::LayerSpec::new(#name, #rt::share_of(Self::TOTAL, #ppm), #required)
                    .with_share(#rt::share(#ppm))
            );
        }
        let tokens = tokens_expr(budget, layer.tokens.as_ref(), &what);
        quote!(#rt::LayerSpec::new(#name, #tokens, #required))
    });
    let table = quote! {
        type Layer = #enum_ident;
        type Spent = [::core::primitive::usize; #count];

        const TOTAL: ::core::primitive::usize = #total;
        const RESERVED: ::core::primitive::usize =
            match #rt::table_sum(Self::LAYERS) {
                ::core::option::Option::Some(__sum) => __sum,
                ::core::option::Option::None => 0,
            };
        const AVAILABLE: ::core::primitive::usize = Self::TOTAL.saturating_sub(Self::RESERVED);
        const LAYERS: &'static [#rt::LayerSpec] = &[#(#specs),*];
        const NOTHING_SPENT: [::core::primitive::usize; #count] = [0; #count];

        #[inline]
        fn index(__layer: #enum_ident) -> ::core::primitive::usize {
            #enum_ident::index(__layer)
        }

        fn context_budget() -> #rt::ContextBudget {
            #rt::budget_from_table(Self::TOTAL, Self::LAYERS)
        }
    };
    let (impl_generics, ty_generics, where_clause) = budget.generics.split_for_impl();
    if !budget.is_generic() {
        return quote! {
            #[automatically_derived]
            impl #rt::ContextLayers for #ident #where_clause {
                #table
            }
        };
    }
    let table_owner = quote!(<#enum_ident as #rt::ContextLayers>);
    quote! {
        #[automatically_derived]
        impl #rt::ContextLayers for #enum_ident {
            #table
        }

        #[automatically_derived]
        impl #impl_generics #rt::ContextLayers for #ident #ty_generics #where_clause {
            type Layer = #enum_ident;
            type Spent = [::core::primitive::usize; #count];

            const TOTAL: ::core::primitive::usize = #table_owner::TOTAL;
            const RESERVED: ::core::primitive::usize = #table_owner::RESERVED;
            const AVAILABLE: ::core::primitive::usize = #table_owner::AVAILABLE;
            const LAYERS: &'static [#rt::LayerSpec] = #table_owner::LAYERS;
            const NOTHING_SPENT: [::core::primitive::usize; #count] = [0; #count];

            #[inline]
            fn index(__layer: #enum_ident) -> ::core::primitive::usize {
                #enum_ident::index(__layer)
            }

            fn context_budget() -> #rt::ContextBudget {
                #table_owner::context_budget()
            }
        }
    }
}

/// For reservations the macro cannot add up (const expressions): checks in the
/// compiler whose errors carry the numbers.
///
/// A const panic cannot format numbers on stable, but an unmet trait bound can: its
/// `#[diagnostic::on_unimplemented]` message may name the trait's const parameters.
/// So the check is a trait `LayersFitTotal<R, T, O, L0, L1, ..>` (reserved, total,
/// excess, each layer) whose message is the one the macro writes for literals, and an
/// impl that only holds for `Check<true>`, where the flag is `R <= T`. The helper items
/// sit in a module inside an anonymous const, so they neither leak nor shadow the
/// user's names in the paths next to them.
fn const_checks(budget: &Budget) -> TokenStream {
    let amounts = budget
        .total
        .iter()
        .chain(budget.layers.iter().filter_map(|l| l.tokens.as_ref()));
    if amounts.clone().all(|a| a.literal().is_some()) {
        return TokenStream::new();
    }
    let span = budget
        .total
        .as_ref()
        .map_or(budget.check_span, Amount::span);
    let Budget { ident, .. } = budget;
    let rt = runtime(budget);
    let owner = table_owner(budget);
    let n = budget.layers.len();
    let params: Vec<Ident> = (0..n).map(|i| format_ident!("L{i}")).collect();
    let terms = budget
        .layers
        .iter()
        .zip(&params)
        .map(|(layer, param)| format!("{} {{{param}}}", layer.name))
        .collect::<Vec<_>>()
        .join(" + ");
    let over = format!(
        "layers reserve {{R}} tokens ({terms}) but the total is {{T}}: {{O}} over; lower a \
         reservation or raise `total` to at least {{R}}"
    );
    let over_label = format!("the layers of `{ident}` need {{R}} tokens");
    let overflow = format!(
        "layer reservations overflow: {terms} does not fit in usize; lower the reservations"
    );
    let overflow_label = format!("the layers of `{ident}` add up to more than usize::MAX");
    let indices = 0..n;
    let args = quote!(#({ __LAYERS[#indices].tokens() }),*);
    quote_spanned! {span=>
        const _: () = {
            mod __check {
                #[diagnostic::on_unimplemented(message = #over, label = #over_label)]
                pub trait LayersFitTotal<
                    const R: ::core::primitive::usize,
                    const T: ::core::primitive::usize,
                    const O: ::core::primitive::usize,
                    #(const #params: ::core::primitive::usize),*
                > {
                    const OK: () = ();
                }

                #[diagnostic::on_unimplemented(message = #overflow, label = #overflow_label)]
                pub trait ReservationsFitUsize<#(const #params: ::core::primitive::usize),*> {
                    const OK: () = ();
                }

                pub struct Check<const PASS: ::core::primitive::bool>;
                pub trait Pass {}
                impl Pass for Check<true> {}

                #[diagnostic::do_not_recommend]
                impl<
                    __X: Pass,
                    const R: ::core::primitive::usize,
                    const T: ::core::primitive::usize,
                    const O: ::core::primitive::usize,
                    #(const #params: ::core::primitive::usize),*
                > LayersFitTotal<R, T, O, #(#params),*> for __X {}

                #[diagnostic::do_not_recommend]
                impl<__X: Pass, #(const #params: ::core::primitive::usize),*>
                    ReservationsFitUsize<#(#params),*> for __X {}
            }

            const __LAYERS: &[#rt::LayerSpec] = <#owner as #rt::ContextLayers>::LAYERS;
            const __TOTAL: ::core::primitive::usize = <#owner as #rt::ContextLayers>::TOTAL;
            const __SUM: ::core::option::Option<::core::primitive::usize> =
                #rt::table_sum(__LAYERS);
            const __RESERVED: ::core::primitive::usize = match __SUM {
                ::core::option::Option::Some(__sum) => __sum,
                ::core::option::Option::None => 0,
            };

            const _: () =
                <__check::Check<{ __SUM.is_some() }> as __check::ReservationsFitUsize<#args>>::OK;
            const _: () = <__check::Check<{ __RESERVED <= __TOTAL }> as __check::LayersFitTotal<
                { __RESERVED },
                { __TOTAL },
                { __RESERVED.saturating_sub(__TOTAL) },
                #args
            >>::OK;
        };
    }
}

fn usage(budget: &Budget) -> TokenStream {
    let Budget { vis, ident, .. } = budget;
    let rt = runtime(budget);
    let owner = table_owner(budget);
    let enum_ident = enum_ident(budget);
    let usage_ident = usage_ident(budget);
    let doc = format!(
        "Tokens spent per layer of [`{ident}`]: {}.\n\n`spend({enum_ident}::Variant, n)` \
         indexes an array (no string lookup, no hashing) and refuses a layer going over its \
         reservation. Dereferences to `ctxbudget::budget::TypedUsage<{owner}>` for `spend`, \
         `total_spent`, `remaining` and `to_json`; serialises to the telemetry shape.",
        layer_list_doc(budget)
    );
    let getters = budget.layers.iter().map(|layer| {
        let getter = format_ident!("{}_spent", layer.name, span = layer.ident.span());
        let variant = &layer.variant;
        let doc = format!(
            "Tokens spent so far by layer `{}` (reservation: {}).",
            layer.name,
            reservation_doc(layer)
        );
        quote! {
            #[doc = #doc]
            #[must_use]
            pub fn #getter(&self) -> ::core::primitive::usize {
                self.0.spent(#enum_ident::#variant)
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(
            ::core::fmt::Debug,
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::hash::Hash,
            ::core::default::Default
        )]
        #vis struct #usage_ident(#rt::TypedUsage<#owner>);

        impl #usage_ident {
            /// A tracker that has spent nothing.
            #[must_use]
            pub const fn new() -> Self {
                Self(#rt::TypedUsage::new())
            }

            #(#getters)*

            /// The generic tracker inside.
            #[must_use]
            pub fn into_inner(self) -> #rt::TypedUsage<#owner> {
                self.0
            }
        }

        #[automatically_derived]
        impl ::core::ops::Deref for #usage_ident {
            type Target = #rt::TypedUsage<#owner>;
            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        #[automatically_derived]
        impl ::core::ops::DerefMut for #usage_ident {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0
            }
        }

        #[automatically_derived]
        impl ::core::convert::From<#usage_ident> for #rt::ContextUsage {
            fn from(__usage: #usage_ident) -> Self {
                __usage.0.to_runtime()
            }
        }

        #rt::serialize_usage!(#usage_ident);
    }
}

/// `budget!`: the marker type that carries the budget.
fn marker(budget: &Budget) -> TokenStream {
    let Budget {
        vis, ident, attrs, ..
    } = budget;
    let usage_ident = usage_ident(budget);
    let has_docs = attrs.iter().any(|a| a.path().is_ident("doc"));
    let doc = (!has_docs).then(|| {
        let doc = format!("A token budget: {}.", layer_list_doc(budget));
        quote!(#[doc = #doc])
    });
    quote! {
        #(#attrs)*
        #doc
        #[derive(
            ::core::fmt::Debug,
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::hash::Hash,
            ::core::default::Default
        )]
        #vis struct #ident;

        impl #ident {
            /// A usage tracker for this budget that has spent nothing.
            #[must_use]
            #vis const fn usage() -> #usage_ident {
                #usage_ident::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{attr, errors::Errors, valid};
    use syn::parse_quote;

    fn items(input: &syn::DeriveInput) -> Vec<String> {
        let mut errors = Errors::new();
        let budget = attr::parse_derive(input, &mut errors).unwrap();
        valid::check(&budget, &mut errors);
        errors.finish().unwrap();
        let file: syn::File = syn::parse2(super::expand(&budget)).unwrap();
        file.items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Enum(e) => Some(format!("enum {}", e.ident)),
                syn::Item::Struct(s) => Some(format!("struct {}", s.ident)),
                syn::Item::Mod(m) => Some(format!("mod {}", m.ident)),
                syn::Item::Impl(i) => {
                    let ty = &i.self_ty;
                    let ty = quote::quote!(#ty).to_string().replace(' ', "");
                    Some(match &i.trait_ {
                        Some((_, path, _)) => {
                            format!("impl {} for {ty}", path.segments.last().unwrap().ident)
                        }
                        None => format!("impl {ty}"),
                    })
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_generic_context_keeps_its_budget_on_the_enum() {
        let input: syn::DeriveInput = parse_quote! {
            #[context(total = 100)]
            struct Prompt<'a, T: Clone> where T: Default {
                #[budget(tokens = 10, required)] system: &'a str,
                #[budget(tokens = 10)] history: T,
            }
        };
        assert_eq!(
            items(&input),
            [
                "enum PromptLayer",
                "impl PromptLayer",
                "impl Display for PromptLayer",
                "impl FromStr for PromptLayer",
                "impl ContextLayers for PromptLayer",
                "impl ContextLayers for Prompt<'a,T>",
                "struct PromptUsage",
                "impl PromptUsage",
                "impl Deref for PromptUsage",
                "impl DerefMut for PromptUsage",
                "impl From for ::ctxbudget::__private::ContextUsage",
                "mod __Prompt_layers",
                "struct PromptBuilder",
                "impl Debug for PromptBuilder<'a,T,__System>",
                "impl PromptBuilder<'a,T,__System>",
                "impl Prompt<'a,T>",
            ]
        );
    }

    #[test]
    fn generated_parameters_avoid_the_structs_own() {
        let taken = ["__System".to_owned(), "'__a".to_owned()];
        assert_eq!(super::fresh("__System", &taken), "__System_");
        assert_eq!(super::fresh("'__a", &taken), "'__a_");
        assert_eq!(super::fresh("__C", &taken), "__C");
    }

    #[test]
    fn fields_naming_a_parameter_are_found() {
        let generics: syn::Generics = parse_quote!(<'a, T, const N: usize>);
        let mentions = |ty: syn::Type| super::mentions_params(&ty, &generics);
        assert!(mentions(parse_quote!(T)));
        assert!(mentions(parse_quote!(Vec<Option<T>>)));
        assert!(mentions(parse_quote!([u8; N])));
        assert!(mentions(parse_quote!(<T as Iterator>::Item)));
        assert!(!mentions(parse_quote!(&'a str)));
        assert!(!mentions(parse_quote!(Vec<Tokens>)));
    }

    /// The expansion of the documented example is valid Rust with every generated item.
    /// With `CTXBUDGET_DUMP_EXPANSION=path` it is also written to `path`: that is the
    /// "hand-written" side of `benches/compile_time.sh`.
    #[test]
    fn expansion_parses_and_has_every_item() {
        let input: syn::DeriveInput = parse_quote! {
            #[context(total = 8192, output = 1024)]
            pub struct Template {
                #[budget(tokens = 512, required)] system: String,
                #[budget(tokens = 2048)] memory: String,
                #[budget(tokens = 4096)] semantic: Vec<String>,
                #[budget(tokens = 512, required)] user: String,
            }
        };
        let mut errors = Errors::new();
        let budget = attr::parse_derive(&input, &mut errors).unwrap();
        valid::check(&budget, &mut errors);
        errors.finish().unwrap();
        let tokens = super::expand(&budget);
        let file: syn::File = syn::parse2(tokens.clone()).unwrap();
        let names: Vec<String> = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Enum(e) => Some(e.ident.to_string()),
                syn::Item::Struct(s) => Some(s.ident.to_string()),
                syn::Item::Mod(m) => Some(m.ident.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(
            names,
            [
                "TemplateLayer",
                "TemplateUsage",
                "__Template_layers",
                "TemplateBuilder"
            ]
        );
        if let Ok(path) = std::env::var("CTXBUDGET_DUMP_EXPANSION") {
            std::fs::write(path, tokens.to_string()).unwrap();
        }
    }
}
