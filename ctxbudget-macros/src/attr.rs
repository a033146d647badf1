//! Parse `#[derive(ContextLayers)]` input and its `#[context(..)]` and `#[budget(..)]`
//! attributes into a [`Budget`], pushing every mistake to [`Errors`].

use crate::ast::{
    Amount, Budget, FieldLayer, Layer, ShareLit, keys, nearest, unknown_key_message,
    variant_ident,
};
use crate::errors::Errors;
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Expr, Fields, Lit, LitStr, Path, Token, UnOp};

/// A token count from its expression: literals are checked here, anything else is a
/// const expression left to the compiler.
pub fn amount(expr: Expr, key: &str, errors: &mut Errors) -> Option<Amount> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(lit), ..
        }) => {
            // Unsigned suffixes are fine (the value becomes a `usize` literal), as long
            // as the value fits the suffix's type.
            let max = match lit.suffix() {
                "" | "usize" | "u64" | "u128" => u64::MAX,
                "u32" => u64::from(u32::MAX),
                "u16" => u64::from(u16::MAX),
                "u8" => u64::from(u8::MAX),
                suffix => {
                    errors.error_spanned_by(
                        &lit,
                        format!(
                            "`{key}` is an unsigned token count; write `{}` without the \
                             `{suffix}` suffix",
                            lit.base10_digits(),
                        ),
                    );
                    return None;
                }
            };
            match lit.base10_parse::<u64>() {
                Ok(value) if value <= max => Some(Amount::Lit { value, lit }),
                Ok(_) => {
                    errors.error_spanned_by(
                        &lit,
                        format!(
                            "`{key} = {lit}` does not fit in `{suffix}`; write `{digits}` \
                             without the suffix",
                            suffix = lit.suffix(),
                            digits = lit.base10_digits(),
                        ),
                    );
                    None
                }
                Err(_) => {
                    errors.error_spanned_by(
                        &lit,
                        format!(
                            "`{key} = {}` overflows: a token count must be at most {}",
                            lit.base10_digits(),
                            u64::MAX
                        ),
                    );
                    None
                }
            }
        }
        Expr::Lit(syn::ExprLit {
            lit: Lit::Float(lit),
            ..
        }) => {
            errors.error_spanned_by(
                &lit,
                format!(
                    "`{key}` must be a whole number of tokens, not `{lit}`; write an integer \
                     such as `{}`",
                    lit.base10_digits()
                        .split('.')
                        .next()
                        .filter(|s| !s.is_empty())
                        .unwrap_or("0")
                ),
            );
            None
        }
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(lit), ..
        }) => {
            errors.error_spanned_by(
                &lit,
                format!(
                    "`{key}` must be an integer, not a string; remove the quotes: `{key} = {}`",
                    lit.value()
                ),
            );
            None
        }
        Expr::Lit(syn::ExprLit { lit, .. }) => {
            errors.error_spanned_by(
                &lit,
                format!("`{key}` must be an integer token count such as `{key} = 512`"),
            );
            None
        }
        Expr::Unary(syn::ExprUnary {
            op: UnOp::Neg(_), ..
        }) => {
            errors.error_spanned_by(
                &expr,
                format!("`{key}` cannot be negative; a token count is 0 or more"),
            );
            None
        }
        other => Some(Amount::Expr(Box::new(other))),
    }
}

/// Skips the value of a key that was rejected, so parsing can go on to the next key.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
    }
    Ok(())
}

fn key_of(path: &Path) -> String {
    if path.is_ident("crate") || path.segments.first().is_some_and(|s| s.ident == "crate") {
        return "crate".to_owned();
    }
    path.get_ident().map_or_else(
        || quote::quote!(#path).to_string().replace(' ', ""),
        |i| syn::ext::IdentExt::unraw(i).to_string(),
    )
}

/// Rejects a second occurrence of a key.
fn first_time(seen: &mut Vec<String>, key: &str, path: &Path, errors: &mut Errors) -> bool {
    if seen.iter().any(|k| k == key) {
        errors.error_spanned_by(path, format!("duplicate key `{key}`; give it once"));
        false
    } else {
        seen.push(key.to_owned());
        true
    }
}

/// `#[context(total = N, output = N, crate = path)]`.
#[derive(Default)]
struct ContextAttr {
    total: Option<Amount>,
    output: Option<(Amount, proc_macro2::Span)>,
    krate: Option<Path>,
    separator: Option<LitStr>,
    seen: Vec<String>,
    present: bool,
}

fn parse_context(attr: &syn::Attribute, out: &mut ContextAttr, errors: &mut Errors) {
    out.present = true;
    if let syn::Meta::Path(_) = attr.meta {
        errors.error_spanned_by(
            attr,
            "write the total window in tokens: `#[context(total = 8192)]`",
        );
        // Reported here; not again as a missing total.
        out.seen.push("total".to_owned());
        return;
    }
    let result = attr.parse_nested_meta(|meta| {
        let key = key_of(&meta.path);
        if !keys::CONTEXT.contains(&key.as_str()) {
            errors.error_spanned_by(
                &meta.path,
                unknown_key_message("`#[context(..)]`", &key, keys::CONTEXT),
            );
            return skip_value(&meta);
        }
        if !first_time(&mut out.seen, &key, &meta.path, errors) {
            return skip_value(&meta);
        }
        match key.as_str() {
            "crate" => out.krate = Some(meta.value()?.parse()?),
            "separator" => out.separator = string(&meta, "separator", "\\n\\n", errors)?,
            "total" => {
                let expr: Expr = meta.value()?.parse()?;
                out.total = amount(expr, "total", errors);
            }
            _ => {
                let span = meta.path.span();
                let expr: Expr = meta.value()?.parse()?;
                out.output = amount(expr, "output", errors).map(|a| (a, span));
            }
        }
        Ok(())
    });
    errors.handle(result);
}

/// A string value: `key = "..."`; anything else is an error naming the key.
fn string(
    meta: &ParseNestedMeta,
    key: &str,
    example: &str,
    errors: &mut Errors,
) -> syn::Result<Option<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
    if let Expr::Lit(syn::ExprLit {
        lit: Lit::Str(lit), ..
    }) = expr
    {
        return Ok(Some(lit));
    }
    errors.error_spanned_by(
        &expr,
        format!("`{key}` must be a string literal: `{key} = \"{example}\"`"),
    );
    Ok(None)
}

/// `policy = head`: one of [`keys::POLICIES`], as a bare word.
fn policy(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<(String, Span)>> {
    let expr: Expr = meta.value()?.parse()?;
    let expected = keys::POLICIES
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let word = match &expr {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident().cloned(),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(lit), ..
        }) => {
            errors.error_spanned_by(
                lit,
                format!(
                    "write the policy without quotes: `policy = {}`",
                    lit.value()
                ),
            );
            return Ok(None);
        }
        _ => None,
    };
    let Some(word) = word else {
        errors.error_spanned_by(
            &expr,
            format!("`policy` is one of {expected}: write e.g. `policy = tail`"),
        );
        return Ok(None);
    };
    let name = syn::ext::IdentExt::unraw(&word).to_string();
    if keys::POLICIES.contains(&name.as_str()) {
        return Ok(Some((name, word.span())));
    }
    // Policy names are short: a swapped pair of letters (`tial`) is a typo too.
    let sorted = |word: &str| {
        let mut chars: Vec<char> = word.chars().collect();
        chars.sort_unstable();
        chars
    };
    let near = nearest(&name, keys::POLICIES).or_else(|| {
        keys::POLICIES
            .iter()
            .copied()
            .find(|p| sorted(p) == sorted(&name))
    });
    let message = match near {
        Some(near) => format!("unknown policy `{name}`; did you mean `{near}`?"),
        None => format!("unknown policy `{name}`; expected one of {expected}"),
    };
    errors.error_spanned_by(&word, message);
    Ok(None)
}

/// `share = 0.25`: a decimal fraction of the window from 0 to 1, rounded to the
/// nearest millionth as the runtime's `Share::new` rounds it.
fn share(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<ShareLit>> {
    let expr: Expr = meta.value()?.parse()?;
    let (value, text, span) = match &expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Float(lit),
            ..
        }) if lit.suffix().is_empty() => (lit.base10_parse::<f64>().ok(), lit.to_string(), lit.span()),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(lit), ..
        }) if lit.suffix().is_empty() => (
            lit.base10_parse::<u64>().ok().map(|v| match v {
                0 => 0.0,
                1 => 1.0,
                _ => 2.0,
            }),
            lit.to_string(),
            lit.span(),
        ),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(lit), ..
        }) => {
            errors.error_spanned_by(
                lit,
                format!(
                    "`share` must be a number, not a string; remove the quotes: `share = {}`",
                    lit.value()
                ),
            );
            return Ok(None);
        }
        Expr::Unary(syn::ExprUnary {
            op: UnOp::Neg(_), ..
        }) => {
            errors.error_spanned_by(
                &expr,
                "`share` cannot be negative; a share of the window is from 0 to 1, such as \
                 `share = 0.25`",
            );
            return Ok(None);
        }
        _ => {
            errors.error_spanned_by(
                &expr,
                "`share` must be a decimal literal from 0 to 1, such as `share = 0.25`; for a \
                 fixed number of tokens write `tokens = N`",
            );
            return Ok(None);
        }
    };
    match value {
        Some(value) if (0.0..=1.0).contains(&value) => {
            // In [0, 1_000_000]: the cast cannot truncate.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let ppm = (value * 1_000_000.0).round() as u32;
            Ok(Some(ShareLit { ppm, text, span }))
        }
        _ => {
            errors.error_at(
                span,
                format!(
                    "`share = {text}` is not a share of the window: write a fraction from 0 to \
                     1, such as `share = 0.25`; for a fixed number of tokens write `tokens = N`"
                ),
            );
            Ok(None)
        }
    }
}

/// `role = system` or `role = user`, as a bare word.
fn role(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<(String, Span)>> {
    let expr: Expr = meta.value()?.parse()?;
    let word = match &expr {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident().cloned(),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(lit), ..
        }) => {
            errors.error_spanned_by(
                lit,
                format!("write the role without quotes: `role = {}`", lit.value()),
            );
            return Ok(None);
        }
        _ => None,
    };
    let Some(word) = word else {
        errors.error_spanned_by(
            &expr,
            "`role` is `system` or `user`: write e.g. `role = system`",
        );
        return Ok(None);
    };
    let name = syn::ext::IdentExt::unraw(&word).to_string();
    if keys::ROLES.contains(&name.as_str()) {
        return Ok(Some((name, word.span())));
    }
    let message = match nearest(&name, keys::ROLES) {
        Some(near) => format!("unknown role `{name}`; did you mean `{near}`?"),
        None if name == "history" => "`role = history` is not written: a chat history's \
             messages are sent as messages without it; use `role = system` or `role = user` \
             to send it as text"
            .to_owned(),
        None => format!(
            "unknown role `{name}`; expected `system` (part of the system message) or `user` \
             (part of the final user message)"
        ),
    };
    errors.error_spanned_by(&word, message);
    Ok(None)
}

/// `grow` (priority 1) or `grow = N` (an integer priority; higher grows first).
fn grow(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<(u32, Span)>> {
    let span = meta.path.span();
    if !meta.input.peek(Token![=]) {
        return Ok(Some((1, span)));
    }
    let expr: Expr = meta.value()?.parse()?;
    if let Expr::Lit(syn::ExprLit {
        lit: Lit::Int(lit), ..
    }) = &expr
    {
        if let Ok(priority) = lit.base10_parse::<u32>() {
            if matches!(lit.suffix(), "" | "u32") {
                return Ok(Some((priority, span)));
            }
        }
    }
    errors.error_spanned_by(
        &expr,
        "`grow` takes an integer priority from 0 to 4294967295 (higher grows first): write \
         `grow` or `grow = 2`",
    );
    Ok(None)
}

/// `#[budget(tokens = N, required, policy = .., recovery = "..", grow = N)]` on one
/// field.
#[derive(Default)]
struct BudgetAttr {
    tokens: Option<Amount>,
    tokens_seen: bool,
    share: Option<ShareLit>,
    /// The span of the `share` key, when it was written.
    share_seen: Option<Span>,
    role: Option<(String, Span)>,
    required: bool,
    policy: Option<(String, Span)>,
    recovery: Option<LitStr>,
    recovery_seen: bool,
    grow: Option<(u32, Span)>,
    seen: Vec<String>,
}

fn parse_budget(attr: &syn::Attribute, out: &mut BudgetAttr, errors: &mut Errors) {
    if let syn::Meta::Path(_) = attr.meta {
        errors.error_spanned_by(
            attr,
            "write the layer's reservation in tokens: `#[budget(tokens = 512)]`",
        );
        out.tokens_seen = true;
        return;
    }
    let result = attr.parse_nested_meta(|meta| {
        let key = key_of(&meta.path);
        if !keys::BUDGET.contains(&key.as_str()) {
            errors.error_spanned_by(
                &meta.path,
                unknown_key_message("`#[budget(..)]`", &key, keys::BUDGET),
            );
            return skip_value(&meta);
        }
        if !first_time(&mut out.seen, &key, &meta.path, errors) {
            return skip_value(&meta);
        }
        if key == "tokens" {
            out.tokens_seen = true;
            let expr: Expr = meta.value()?.parse()?;
            out.tokens = amount(expr, "tokens", errors);
        } else if key == "policy" {
            out.policy = policy(&meta, errors)?;
        } else if key == "recovery" {
            out.recovery_seen = true;
            out.recovery = string(&meta, "recovery", "read AGENTS.md", errors)?;
            if let Some(lit) = &out.recovery {
                if lit.value().trim().is_empty() {
                    errors.error_spanned_by(
                        lit,
                        "`recovery` is blank: say what the reader can do to see the full \
                         text, e.g. `recovery = \"read AGENTS.md\"`",
                    );
                }
            }
        } else if key == "grow" {
            out.grow = grow(&meta, errors)?;
        } else if key == "share" {
            out.share_seen = Some(meta.path.span());
            out.share = share(&meta, errors)?;
        } else if key == "role" {
            out.role = role(&meta, errors)?;
        } else if meta.input.peek(Token![=]) {
            errors.error_spanned_by(
                &meta.path,
                "`required` takes no value; write `#[budget(tokens = N, required)]`",
            );
            skip_value(&meta)?;
        } else {
            out.required = true;
        }
        Ok(())
    });
    errors.handle(result);
}

/// The model of a derive input; `None` when its shape is not a struct with named
/// fields (nothing sensible to expand then).
#[allow(clippy::too_many_lines)] // one pass over the input, in reading order
pub fn parse_derive(input: &DeriveInput, errors: &mut Errors) -> Option<Budget> {
    let mut context = ContextAttr::default();
    for attr in &input.attrs {
        if attr.path().is_ident("context") {
            parse_context(attr, &mut context, errors);
        }
    }
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(named),
            Fields::Unnamed(unnamed) => {
                errors.error_spanned_by(
                    unnamed,
                    "`#[derive(ContextLayers)]` needs named fields, one per layer: write \
                     `struct Name { system: String, .. }` instead of a tuple struct",
                );
                None
            }
            Fields::Unit => {
                errors.error_spanned_by(
                    &input.ident,
                    "`#[derive(ContextLayers)]` needs named fields, one per layer: add \
                     `{ system: String, .. }` to this unit struct",
                );
                None
            }
        },
        Data::Enum(data) => {
            errors.error_spanned_by(
                data.enum_token,
                "`#[derive(ContextLayers)]` needs a struct with named fields, one per layer, \
                 not an enum; for a budget without content use `ctxbudget::budget!`",
            );
            None
        }
        Data::Union(data) => {
            errors.error_spanned_by(
                data.union_token,
                "`#[derive(ContextLayers)]` needs a struct with named fields, one per layer, \
                 not a union",
            );
            None
        }
    };
    let fields = fields?;

    if !context.present || (context.total.is_none() && !context.seen.iter().any(|k| k == "total")) {
        errors.error_spanned_by(
            &input.ident,
            format!(
                "missing `#[context(total = N)]` on `{}`: give the total context window in \
                 tokens, e.g. `#[context(total = 8192)]`",
                input.ident
            ),
        );
    }

    let mut layers = Vec::new();
    for field in &fields.named {
        let Some(ident) = field.ident.clone() else {
            continue;
        };
        let name = syn::ext::IdentExt::unraw(&ident).to_string();
        let mut budget = BudgetAttr::default();
        let mut found = false;
        for attr in &field.attrs {
            if attr.path().is_ident("budget") {
                if found {
                    errors.error_spanned_by(
                        attr,
                        format!("duplicate `#[budget(..)]` on field `{name}`; merge them into one"),
                    );
                    continue;
                }
                found = true;
                parse_budget(attr, &mut budget, errors);
            }
        }
        if !found {
            errors.error_spanned_by(
                &ident,
                format!(
                    "missing `#[budget(tokens = N)]` on field `{name}`: every field is a layer \
                     and needs a reservation"
                ),
            );
        } else if let (true, Some(span)) = (budget.tokens_seen, budget.share_seen) {
            errors.error_at(
                span,
                format!(
                    "field `{name}` has both `tokens` and `share`: give it either a fixed \
                     reservation (`tokens = N`) or a share of the window (`share = F`)"
                ),
            );
        } else if !budget.tokens_seen && budget.share_seen.is_none() {
            errors.error_spanned_by(
                &ident,
                format!(
                    "missing `tokens = N` in `#[budget(..)]` on field `{name}`: write \
                     `#[budget(tokens = 512)]`"
                ),
            );
        }
        layers.push(Layer {
            variant: variant_ident(&name, ident.span()),
            name,
            ident,
            tokens: budget.tokens,
            share: budget.share,
            field: Some(FieldLayer {
                ty: field.ty.clone(),
                required: budget.required,
                policy: budget.policy,
                recovery: budget.recovery,
                recovery_seen: budget.recovery_seen,
                grow: budget.grow,
                role: budget.role,
            }),
            // The field's docs describe the layer too.
            docs: field
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("doc"))
                .cloned()
                .collect(),
        });
    }
    if let Some((tokens, span)) = context.output {
        layers.push(Layer {
            name: "output".to_owned(),
            ident: syn::Ident::new("output", span),
            variant: syn::Ident::new("Output", span),
            tokens: Some(tokens),
            share: None,
            field: None,
            docs: Vec::new(),
        });
    }
    if layers.is_empty() {
        errors.error_spanned_by(
            &input.ident,
            "a context needs at least one layer: add a field with `#[budget(tokens = N)]`",
        );
    }
    Some(Budget {
        krate: context.krate.unwrap_or_else(Budget::default_crate),
        vis: input.vis.clone(),
        check_span: input.ident.span(),
        ident: input.ident.clone(),
        generics: input.generics.clone(),
        total: context.total,
        layers,
        derive: true,
        attrs: Vec::new(),
        separator: context.separator,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn messages(input: &DeriveInput) -> Vec<String> {
        let mut errors = Errors::new();
        let _ = parse_derive(input, &mut errors);
        match errors.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn a_correct_input_has_no_errors() {
        let input: DeriveInput = parse_quote! {
            #[context(total = 8192, output = 1024)]
            struct Ctx {
                #[budget(tokens = 512, required)] system: String,
                #[budget(tokens = LIMIT)] memory: String,
            }
        };
        assert_eq!(messages(&input), Vec::<String>::new());
        let mut errors = Errors::new();
        let budget = parse_derive(&input, &mut errors).unwrap();
        errors.finish().unwrap();
        let names: Vec<_> = budget.layers.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["system", "memory", "output"]);
        assert!(budget.layers[0].field.as_ref().unwrap().required);
        assert_eq!(
            budget.layers[0].tokens.as_ref().unwrap().literal(),
            Some(512)
        );
        assert!(
            budget.layers[1]
                .tokens
                .as_ref()
                .unwrap()
                .literal()
                .is_none()
        );
    }

    #[test]
    fn every_mistake_is_reported() {
        let input: DeriveInput = parse_quote! {
            #[context(totl = 8192)]
            struct Ctx {
                #[budget(token = 512)] system: String,
                #[budget(tokens = 1.5, tokens = 2)] memory: String,
                #[budget(tokens = -3, requird)] plan: String,
                #[budget(tokens = "12")] task: String,
                user: String,
            }
        };
        assert_eq!(
            messages(&input),
            [
                "unknown key `totl` in `#[context(..)]`; did you mean `total`?",
                "missing `#[context(total = N)]` on `Ctx`: give the total context window in \
                 tokens, e.g. `#[context(total = 8192)]`",
                "unknown key `token` in `#[budget(..)]`; did you mean `tokens`?",
                "missing `tokens = N` in `#[budget(..)]` on field `system`: write \
                 `#[budget(tokens = 512)]`",
                "`tokens` must be a whole number of tokens, not `1.5`; write an integer such as `1`",
                "duplicate key `tokens`; give it once",
                "`tokens` cannot be negative; a token count is 0 or more",
                "unknown key `requird` in `#[budget(..)]`; did you mean `required`?",
                "`tokens` must be an integer, not a string; remove the quotes: `tokens = 12`",
                "missing `#[budget(tokens = N)]` on field `user`: every field is a layer and \
                 needs a reservation",
            ]
        );
    }

    #[test]
    fn policies_recovery_grow_and_separator() {
        let input: DeriveInput = parse_quote! {
            #[context(total = 100, separator = "---")]
            struct Ctx {
                #[budget(tokens = 10, policy = never)] system: String,
                #[budget(tokens = 10, policy = disclose, recovery = "read it", grow = 3)] doc: String,
                #[budget(tokens = 10, grow)] rag: Vec<String>,
            }
        };
        assert_eq!(messages(&input), Vec::<String>::new());
        let mut errors = Errors::new();
        let budget = parse_derive(&input, &mut errors).unwrap();
        errors.finish().unwrap();
        let field = |i: usize| budget.layers[i].field.as_ref().unwrap();
        assert_eq!(field(0).policy.as_ref().unwrap().0, "never");
        assert_eq!(field(1).recovery.as_ref().unwrap().value(), "read it");
        assert_eq!(field(1).grow.unwrap().0, 3);
        assert_eq!(field(2).grow.unwrap().0, 1);
        assert!(field(2).policy.is_none());
        assert_eq!(budget.separator.unwrap().value(), "---");
    }

    #[test]
    fn policy_mistakes_are_reported() {
        let input: DeriveInput = parse_quote! {
            #[context(total = 100)]
            struct Ctx {
                #[budget(tokens = 10, policy = tial)] a: String,
                #[budget(tokens = 10, policy = heed)] b: String,
                #[budget(tokens = 10, policy = bogus)] c: String,
                #[budget(tokens = 10, grow = "x", recovery = 1)] d: String,
            }
        };
        assert_eq!(
            messages(&input),
            [
                "unknown policy `tial`; did you mean `tail`?",
                "unknown policy `heed`; did you mean `head`?",
                "unknown policy `bogus`; expected one of `head`, `tail`, `head_and_tail`, \
                 `disclose`, `never`",
                "`grow` takes an integer priority from 0 to 4294967295 (higher grows first): \
                 write `grow` or `grow = 2`",
                "`recovery` must be a string literal: `recovery = \"read AGENTS.md\"`",
            ]
        );
    }

    #[test]
    fn unsigned_suffixes_that_fit_are_accepted() {
        let input: DeriveInput = parse_quote! {
            #[context(total = 4096u64)]
            struct Ctx<'a, T> {
                #[budget(tokens = 512u32)] a: &'a str,
                #[budget(tokens = 255u8)] b: T,
                #[budget(tokens = 256u8)] c: String,
                #[budget(tokens = 5i32)] d: String,
            }
        };
        assert_eq!(
            messages(&input),
            [
                "`tokens = 256u8` does not fit in `u8`; write `256` without the suffix",
                "`tokens` is an unsigned token count; write `5` without the `i32` suffix",
            ]
        );
        let mut errors = Errors::new();
        let budget = parse_derive(&input, &mut errors).unwrap();
        let _ = errors.finish();
        assert!(budget.is_generic());
        assert_eq!(budget.total.unwrap().literal(), Some(4096));
        assert_eq!(
            budget.layers[1].tokens.as_ref().unwrap().literal(),
            Some(255)
        );
    }

    #[test]
    fn shapes_other_than_named_structs_are_rejected() {
        let tuple: DeriveInput = parse_quote! { #[context(total = 1)] struct T(String); };
        let en: DeriveInput = parse_quote! { #[context(total = 1)] enum E { A } };
        assert!(messages(&tuple)[0].contains("instead of a tuple struct"));
        assert!(messages(&en)[0].contains("not an enum"));
    }
}
