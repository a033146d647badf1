//! Expand `#[derive(ContextLayers)]`'s own items: the typestate builder, `builder()`,
//! `usage()` and `assemble()` on the context. Cannot fail.
//!
//! The builder carries the struct's generics and where clause, plus one state
//! parameter per required layer. The states and the traits that check them are
//! generated next to the struct, in a hidden module, rather than taken from the
//! runtime: the compiler prints a local item by its bare name, so an unset layer
//! reads "the trait `UserIsSet<String>` is not implemented for `UserUnset`" instead
//! of naming the runtime's private module, and each trait's message names its layer
//! literally (a shared trait could only print a marker type, which the compiler
//! qualifies with its module as soon as two contexts have a layer of that name).
//!
//! The cost: `#[diagnostic::..]` attributes cannot resolve under
//! `#[no_implicit_prelude]` (rust-lang/rust#106518), so a context with a required
//! layer cannot be derived in such a module.

use crate::ast::{Budget, FieldLayer, Layer};
use crate::expand::{
    builder_ident, field_layers, fresh_ident, fresh_lifetime, generic_args, mentions_params,
    reservation_doc, runtime, table_owner, taken_names, usage_ident, with_args,
};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

/// The builder's phantom field, present when the struct has generic parameters (a
/// required layer's type may be their only use).
const PHANTOM: &str = "__ctxbudget_generics";

/// What a setter takes, and how it turns that into the field's value: `impl Into<T>`,
/// or for references and types that name a generic parameter the type itself (so
/// `&String` coerces to `&str` and a generic field is inferred from the argument).
fn setter_input(ty: &Type, budget: &Budget) -> (TokenStream, TokenStream) {
    if matches!(ty, Type::Reference(_)) || mentions_params(ty, &budget.generics) {
        (quote!(#ty), quote!(__value))
    } else {
        (
            quote!(impl ::core::convert::Into<#ty>),
            quote!(::core::convert::Into::into(__value)),
        )
    }
}

/// The typestate items of one required layer, all in the hidden module: its states
/// (`UserUnset`, `UserSet<T>`) and the traits that check them (`UserIsSet<T>` for
/// `build()`, `UserIsUnset` for the setter).
struct States {
    unset: Ident,
    set: Ident,
    is_set: Ident,
    is_unset: Ident,
}

/// Names from the layer's variant, so an error reads "the trait `UserIsSet<String>`
/// is not implemented for `UserUnset`". Two layers whose variants differ by `Is`
/// (`user`, `user_is`) would clash; then every name also gets the layer's position.
fn state_names(required: &[(&Layer, &FieldLayer)]) -> Vec<States> {
    let names = |numbered: bool| -> Vec<States> {
        required
            .iter()
            .enumerate()
            .map(|(i, (layer, _))| {
                let span = layer.ident.span();
                let stem = if numbered {
                    format!("{}{i}", layer.variant)
                } else {
                    layer.variant.to_string()
                };
                States {
                    unset: Ident::new(&format!("{stem}Unset"), span),
                    set: Ident::new(&format!("{stem}Set"), span),
                    is_set: Ident::new(&format!("{stem}IsSet"), span),
                    is_unset: Ident::new(&format!("{stem}IsUnset"), span),
                }
            })
            .collect()
    };
    let plain = names(false);
    let mut all: Vec<String> = plain
        .iter()
        .flat_map(|s| [&s.unset, &s.set, &s.is_set, &s.is_unset])
        .map(ToString::to_string)
        .collect();
    let count = all.len();
    all.sort_unstable();
    all.dedup();
    if all.len() == count {
        plain
    } else {
        names(true)
    }
}

/// The hidden module with every required layer's [`States`]. Each item is spanned at
/// its field, so the compiler's notes about them point there.
fn state_module(
    budget: &Budget,
    module: &Ident,
    required: &[(&Layer, &FieldLayer)],
    states: &[States],
) -> TokenStream {
    let Budget { vis, ident, .. } = budget;
    let items = required.iter().zip(states).map(|((layer, _), states)| {
        let States {
            unset,
            set,
            is_set,
            is_unset,
        } = states;
        let name = &layer.name;
        let setter = layer.ident.to_string();
        let unset_doc = format!("Builder typestate: layer `{name}` of `{ident}` is not set yet.");
        let set_doc =
            format!("Builder typestate: layer `{name}` of `{ident}` is set to the value inside.");
        let is_set_doc = format!("Implemented once layer `{name}` of `{ident}` is set.");
        let is_set_message = format!("layer `{name}` was not set");
        let is_set_label = format!("call `.{setter}(..)` before `.build()`");
        let is_set_note = format!(
            "`{name}` is a required layer of `{ident}`: `build()` needs every required layer set"
        );
        let is_unset_doc = format!("Implemented while layer `{name}` of `{ident}` is not set.");
        let is_unset_message = format!("layer `{name}` is already set");
        let is_unset_label = format!("`.{setter}(..)` was already called on this builder");
        quote_spanned! {layer.ident.span()=>
            #[doc = #unset_doc]
            #[derive(::core::fmt::Debug)]
            pub struct #unset;

            #[doc = #set_doc]
            #[derive(::core::fmt::Debug)]
            pub struct #set<__T>(pub __T);

            #[doc = #is_set_doc]
            #[diagnostic::on_unimplemented(
                message = #is_set_message,
                label = #is_set_label,
                note = #is_set_note
            )]
            pub trait #is_set<__T> {
                /// The value set.
                fn into_value(self) -> __T;
            }

            #[automatically_derived]
            #[diagnostic::do_not_recommend]
            impl<__T> #is_set<__T> for #set<__T> {
                #[inline]
                fn into_value(self) -> __T {
                    self.0
                }
            }

            #[doc = #is_unset_doc]
            #[diagnostic::on_unimplemented(
                message = #is_unset_message,
                label = #is_unset_label,
                note = "set each required layer once"
            )]
            pub trait #is_unset {}

            #[automatically_derived]
            #[diagnostic::do_not_recommend]
            impl #is_unset for #unset {}
        }
    });
    quote! {
        #[doc(hidden)]
        // The items carry the fields' spans (for the notes above), so in a context
        // whose builder goes unused they would warn in the user's crate.
        #[allow(non_snake_case, dead_code)]
        #vis mod #module {
            #(#items)*
        }
    }
}

/// The typestate builder, `builder()`, `usage()` and `assemble()`.
#[allow(clippy::too_many_lines)] // one `quote!` per generated item, in output order
pub fn builder(budget: &Budget) -> TokenStream {
    let Budget {
        vis,
        ident,
        generics,
        ..
    } = budget;
    let rt = runtime(budget);
    let builder_ident = builder_ident(budget);
    let usage_ident = usage_ident(budget);
    let module = format_ident!("__{}_layers", ident, span = proc_macro2::Span::call_site());
    let taken = taken_names(generics);
    let user_args = generic_args(generics);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let fields = field_layers(budget);
    let required: Vec<(&Layer, &FieldLayer)> =
        fields.iter().copied().filter(|(_, f)| f.required).collect();
    let states = state_names(&required);
    // One state parameter per required layer: `__System`, named apart from the
    // struct's own parameters.
    let params: Vec<Ident> = required
        .iter()
        .map(|(layer, _)| {
            fresh_ident(
                &format!("__{}", layer.variant),
                &taken,
                layer.variant.span(),
            )
        })
        .collect();
    let position = |layer: &Layer| required.iter().position(|(r, _)| r.ident == layer.ident);
    let builder_ty = |states: &[TokenStream]| {
        let args: Vec<TokenStream> = user_args
            .iter()
            .cloned()
            .chain(states.iter().cloned())
            .collect();
        with_args(&builder_ident, &args)
    };
    let state_args: Vec<TokenStream> = params.iter().map(|p| quote!(#p)).collect();
    let builder_state_ty = builder_ty(&state_args);

    // `<'a, T: Bound, __System = Unset>` on the struct, `<'a, T: Bound, __System>` on
    // its impls.
    let mut decl_generics = generics.clone();
    let mut impl_all = generics.clone();
    for (param, States { unset, .. }) in params.iter().zip(&states) {
        decl_generics
            .params
            .push(syn::parse_quote!(#param = #module::#unset));
        impl_all.params.push(syn::parse_quote!(#param));
    }
    let (builder_impl_generics, _, _) = impl_all.split_for_impl();
    let decl_params = &decl_generics.params;
    let decl_generics = (!decl_params.is_empty()).then(|| quote!(<#decl_params>));

    let phantom = budget
        .is_generic()
        .then(|| Ident::new(PHANTOM, proc_macro2::Span::call_site()));
    let phantom_slot = phantom.as_ref().map(|p| {
        let ty = with_args(ident, &user_args);
        quote!(#p: ::core::marker::PhantomData<fn() -> #ty>,)
    });
    let phantom_init = phantom
        .as_ref()
        .map(|p| quote!(#p: ::core::marker::PhantomData,));

    let slots = fields.iter().map(|(layer, field)| {
        let name = &layer.ident;
        let ty = &field.ty;
        if let Some(p) = position(layer) {
            let param = &params[p];
            quote!(#name: #param)
        } else {
            quote!(#name: ::core::option::Option<#ty>)
        }
    });
    let starts = fields.iter().map(|(layer, _)| {
        let name = &layer.ident;
        if let Some(p) = position(layer) {
            let unset = &states[p].unset;
            quote!(#name: #module::#unset)
        } else {
            quote!(#name: ::core::option::Option::None)
        }
    });

    let required_names = required
        .iter()
        .map(|(layer, _)| format!("`{}`", layer.name))
        .collect::<Vec<_>>();
    let builder_doc = format!(
        "Builds [`{ident}`] one layer at a time; start with [`{ident}::builder`].\n\n{}",
        if required_names.is_empty() {
            "No layer is required: `build()` fills unset layers with their `Default`.".to_owned()
        } else {
            format!(
                "`build()` compiles only once the required layers {} are set; unset optional \
                 layers get their `Default`.",
                required_names.join(", ")
            )
        }
    );

    // A field named `build` is rejected by validation; the fallback expansion leaves
    // out its setter so that the rejection is the only error.
    let required_setters = required
        .iter()
        .zip(&params)
        .zip(&states)
        .enumerate()
        .filter(|(_, (((layer, _), _), _))| layer.name != "build")
        .map(|(p, (((layer, field), param), layer_states))| {
            let name = &layer.ident;
            let ty = &field.ty;
            let (input, value) = setter_input(ty, budget);
            let after: Vec<TokenStream> = params
                .iter()
                .enumerate()
                .map(|(q, x)| {
                    if q == p {
                        let set = &layer_states.set;
                        quote!(#module::#set<#ty>)
                    } else {
                        quote!(#x)
                    }
                })
                .collect();
            let after = builder_ty(&after);
            let moves = fields.iter().map(|(other, _)| {
                let other = &other.ident;
                if other == name {
                    let set = &layer_states.set;
                    quote!(#other: #module::#set(#value))
                } else {
                    quote!(#other: self.#other)
                }
            });
            let doc = format!(
                "Sets layer `{}` (required; reservation: {}).",
                layer.name,
                reservation_doc(layer)
            );
            let is_unset = &layer_states.is_unset;
            // Every token at the field, so "required by this bound" points there.
            let module = Ident::new(&module.to_string(), name.span());
            let bound = quote_spanned!(name.span()=> #param: #module::#is_unset);
            quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #name(self, __value: #input) -> #after
                where
                    #bound,
                {
                    #builder_ident { #(#moves,)* #phantom_init }
                }
            }
        });

    let optional_setters = fields
        .iter()
        .filter(|(layer, f)| !f.required && layer.name != "build")
        .map(|(layer, field)| {
            let name = &layer.ident;
            let (input, value) = setter_input(&field.ty, budget);
            let doc = format!(
                "Sets layer `{}` (optional, `Default` when unset; reservation: {}).",
                layer.name,
                reservation_doc(layer)
            );
            quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #name(mut self, __value: #input) -> Self {
                    self.#name = ::core::option::Option::Some(#value);
                    self
                }
            }
        });

    let set_bounds =
        required
            .iter()
            .zip(&params)
            .zip(&states)
            .map(|(((layer, field), param), states)| {
                let is_set = &states.is_set;
                let ty = &field.ty;
                let module = Ident::new(&module.to_string(), layer.ident.span());
                quote_spanned!(layer.ident.span()=> #param: #module::#is_set<#ty>)
            });
    // An optional field whose type names a generic parameter needs `Default` only
    // where `build()` is called; a concrete one is checked at the field (below).
    let default_bounds = fields
        .iter()
        .filter(|(_, f)| !f.required && mentions_params(&f.ty, generics))
        .map(|(_, field)| {
            let ty = &field.ty;
            quote_spanned!(ty.span()=> #ty: #rt::OptionalLayer)
        });
    let inits = fields.iter().map(|(layer, field)| {
        let name = &layer.ident;
        let ty = &field.ty;
        if let Some(p) = position(layer) {
            let (param, is_set) = (&params[p], &states[p].is_set);
            quote!(#name: <#param as #module::#is_set<#ty>>::into_value(self.#name))
        } else {
            quote_spanned!(ty.span()=>
                #name: ::core::option::Option::unwrap_or_else(
                    self.#name,
                    <#ty as #rt::OptionalLayer>::unset,
                )
            )
        }
    });
    let build_doc = format!(
        "The finished [`{ident}`]; compiles only once every required layer is set.{}",
        if required_names.is_empty() {
            String::new()
        } else {
            format!(" Required: {}.", required_names.join(", "))
        }
    );
    let builder_name = builder_ident.to_string();
    let states_module =
        (!required.is_empty()).then(|| state_module(budget, &module, &required, &states));
    let start_ty = with_args(&builder_ident, &user_args);
    let self_ty = with_args(ident, &user_args);
    let assemble = assemble(budget);

    quote! {
        #states_module

        #[doc = #builder_doc]
        #[must_use = "a builder does nothing until `.build()` is called"]
        #vis struct #builder_ident #decl_generics #where_clause {
            #(#slots,)*
            #phantom_slot
        }

        #[automatically_derived]
        impl #builder_impl_generics ::core::fmt::Debug for #builder_state_ty #where_clause {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __f.debug_struct(#builder_name).finish_non_exhaustive()
            }
        }

        impl #builder_impl_generics #builder_state_ty #where_clause {
            #(#required_setters)*

            #(#optional_setters)*

            #[doc = #build_doc]
            #[must_use]
            pub fn build(self) -> #self_ty
            where
                #(#set_bounds,)*
                #(#default_bounds,)*
            {
                #ident {
                    #(#inits,)*
                }
            }
        }

        impl #impl_generics #ident #ty_generics #where_clause {
            /// A builder that has set no layer yet.
            #vis fn builder() -> #start_ty {
                #builder_ident {
                    #(#starts,)*
                    #phantom_init
                }
            }

            /// A usage tracker for this context's budget that has spent nothing.
            #[must_use]
            #vis const fn usage() -> #usage_ident {
                #usage_ident::new()
            }

            #assemble
        }
    }
}

/// `assemble()`, `assemble_with()` and `assemble_messages()`: the fields as
/// `LayerInput`s with their policies, growth and roles (a hidden method writes them
/// once), and a call to the runtime. The bounds on the field types are higher-ranked
/// so that they are checked where the methods are called: a context whose fields are
/// not all content still derives, it just has no callable `assemble()`.
#[allow(clippy::too_many_lines)] // one `quote!` per generated method
fn assemble(budget: &Budget) -> TokenStream {
    let Budget { vis, ident, .. } = budget;
    let rt = runtime(budget);
    let owner = table_owner(budget);
    let usage_ident = usage_ident(budget);
    let taken = taken_names(&budget.generics);
    let life = fresh_lifetime("'__a", &taken);
    let bound_life = fresh_lifetime("'__l", &taken);
    let counter = fresh_ident("__C", &taken, proc_macro2::Span::call_site());
    let fields = field_layers(budget);
    let count = fields.len();
    let bounds: Vec<TokenStream> = fields
        .iter()
        .map(|(_, field)| {
            let ty = &field.ty;
            quote_spanned!(ty.span()=> for<#bound_life> #ty: #rt::LayerContent)
        })
        .collect();
    let inputs = fields.iter().map(|(layer, field)| {
        let name = &layer.ident;
        let layer_name = &layer.name;
        let policy = match field.policy.as_ref().map(|(name, _)| name.as_str()) {
            None => quote!(::core::option::Option::None),
            Some("disclose") => {
                let recovery = field
                    .recovery
                    .as_ref()
                    .map_or_else(|| quote!("the full text"), |lit| quote!(#lit));
                quote!(::core::option::Option::Some(#rt::LayerPolicy::disclose(#recovery)))
            }
            Some(name) => {
                let variant = match name {
                    "tail" => quote!(Tail),
                    "head_and_tail" => quote!(HeadAndTail),
                    "never" => quote!(Never),
                    _ => quote!(Head),
                };
                quote!(::core::option::Option::Some(#rt::LayerPolicy::#variant))
            }
        };
        let grow = field.grow.map_or_else(
            || quote!(::core::option::Option::None),
            |(priority, _)| quote!(::core::option::Option::Some(#priority)),
        );
        let role = match field.role.as_ref().map(|(name, _)| name.as_str()) {
            Some("system") => quote!(::core::option::Option::Some(#rt::LayerRole::System)),
            Some(_) => quote!(::core::option::Option::Some(#rt::LayerRole::User)),
            None => quote!(::core::option::Option::None),
        };
        quote! {
            #rt::LayerInput::new(#layer_name, &self.#name).with_settings(#policy, #grow, #role)
        }
    });
    let separator = budget
        .separator
        .as_ref()
        .map_or_else(|| quote!("\n\n"), |lit| quote!(#lit));
    let separator_doc = budget.separator.as_ref().map_or_else(
        || "\"\\n\\n\"".to_owned(),
        |lit| format!("{:?}", lit.value()),
    );
    let doc = format!(
        "Fits every layer of [`{ident}`] to its reservation (layers marked `grow` also get \
         what the others leave), joins them with {separator_doc} and checks the prompt with \
         `counter` against the total less the output reservation. Returns the fitted \
         layers, the prompt, its report and a [`{usage_ident}`] with each layer's spend.\n\n\
         # Errors\n\n`AssembleError::LayerOverBudget` for a layer marked `policy = never` \
         that is over what it may use; see `ctxbudget::assemble::AssembleError` for the others."
    );
    let with_doc = format!(
        "Assembles [`{ident}`] as `assemble()` does, as `options` says: for a window chosen at \
         run time (`AssembleOptions::for_window(window, output)`), where layers that reserve a \
         `share` of the window are resolved at it and fixed reservations stay as declared. \
         The usage is a `ContextUsage` of the budget used.\n\n\
         # Errors\n\n`AssembleError::WindowTooSmall` when the window asked for is smaller than \
         the reservations and the output reservation; otherwise as `assemble()`."
    );
    let messages_doc = format!(
        "Assembles [`{ident}`] as messages, as `options` says: layers with `role = system` \
         (and, without a role, every layer but a chat history and the last declared one) \
         form the system message, a chat history contributes its kept messages, and the \
         layers with `role = user` (and, without a role, the last declared one) form the \
         final user message. The fit is checked on the messages as the options' chat format \
         counts them: per-message tokens and the reply priming included.\n\n\
         # Errors\n\nAs `assemble_with()`."
    );
    let inputs_doc = format!(
        "The fields of [`{ident}`] with their settings, for the runtime: not API."
    );
    let where_clause = quote! {
        where
            #counter: #rt::TokenCounter + ?::core::marker::Sized,
            #(#bounds,)*
    };
    quote! {
        #[doc = #inputs_doc]
        #[doc(hidden)]
        #vis fn __ctxbudget_layers<#life>(&#life self) -> [#rt::LayerInput<#life>; #count]
        where
            #(#bounds,)*
        {
            [#(#inputs),*]
        }

        #[doc = #doc]
        #vis fn assemble<#life, #counter>(
            &#life self,
            __counter: &#counter,
        ) -> ::core::result::Result<
            #rt::Assembled<#life, #usage_ident>,
            #rt::AssembleError,
        >
        #where_clause
        {
            ::core::result::Result::map(
                #rt::assemble::<#owner, #counter>(&self.__ctxbudget_layers(), #separator, __counter),
                |__assembled| __assembled.map_usage(#usage_ident),
            )
        }

        #[doc = #with_doc]
        #vis fn assemble_with<#life, #counter>(
            &#life self,
            __counter: &#counter,
            __options: &#rt::AssembleOptions,
        ) -> ::core::result::Result<
            #rt::Assembled<#life, #rt::ContextUsage>,
            #rt::AssembleError,
        >
        #where_clause
        {
            #rt::assemble_with::<#owner, #counter>(
                &self.__ctxbudget_layers(),
                #separator,
                __counter,
                __options,
            )
        }

        #[doc = #messages_doc]
        #vis fn assemble_messages<#life, #counter>(
            &#life self,
            __counter: &#counter,
            __options: &#rt::AssembleOptions,
        ) -> ::core::result::Result<
            #rt::Assembled<#life, #rt::ContextUsage, #rt::PromptMessages>,
            #rt::AssembleError,
        >
        #where_clause
        {
            #rt::assemble_messages::<#owner, #counter>(
                &self.__ctxbudget_layers(),
                #separator,
                __counter,
                __options,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{attr, errors::Errors};
    use syn::parse_quote;

    fn names(input: &syn::DeriveInput) -> Vec<Vec<String>> {
        let mut errors = Errors::new();
        let budget = attr::parse_derive(input, &mut errors).unwrap();
        errors.finish().unwrap();
        let required: Vec<(&Layer, &FieldLayer)> = budget
            .layers
            .iter()
            .filter_map(|l| l.field.as_ref().map(|f| (l, f)))
            .filter(|(_, f)| f.required)
            .collect();
        state_names(&required)
            .iter()
            .map(|s| {
                [&s.unset, &s.set, &s.is_set, &s.is_unset]
                    .iter()
                    .map(ToString::to_string)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn state_names_follow_the_variant() {
        let input: syn::DeriveInput = parse_quote! {
            #[context(total = 10)]
            struct C {
                #[budget(tokens = 1, required)] long_term: String,
                #[budget(tokens = 1)] optional: String,
                #[budget(tokens = 1, required)] r#type: String,
            }
        };
        assert_eq!(
            names(&input),
            [
                [
                    "LongTermUnset",
                    "LongTermSet",
                    "LongTermIsSet",
                    "LongTermIsUnset"
                ],
                ["TypeUnset", "TypeSet", "TypeIsSet", "TypeIsUnset"],
            ]
        );
    }

    #[test]
    fn clashing_state_names_are_numbered() {
        // `UserIsSet` would be both `user`'s trait and `user_is`'s state.
        let input: syn::DeriveInput = parse_quote! {
            #[context(total = 10)]
            struct C {
                #[budget(tokens = 1, required)] user: String,
                #[budget(tokens = 1, required)] user_is: String,
            }
        };
        assert_eq!(
            names(&input),
            [
                ["User0Unset", "User0Set", "User0IsSet", "User0IsUnset"],
                [
                    "UserIs1Unset",
                    "UserIs1Set",
                    "UserIs1IsSet",
                    "UserIs1IsUnset"
                ],
            ]
        );
    }
}
