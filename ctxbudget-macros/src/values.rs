//! The values of the attributes' keys: token counts (`tokens`, `total`, `output`),
//! strings, `policy`, `share`, `role` and `grow`. Each parser reports what is wrong
//! with a value to [`Errors`] and returns `None` for it, so parsing goes on.

use crate::ast::{Amount, ShareLit, keys, nearest};
use crate::errors::Errors;
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr, Token, UnOp};

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

/// A string value: `key = "..."`; anything else is an error naming the key.
pub fn string(
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
pub fn policy(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<(String, Span)>> {
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
pub fn share(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<ShareLit>> {
    let expr: Expr = meta.value()?.parse()?;
    let (value, text, span) = match &expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Float(lit),
            ..
        }) if lit.suffix().is_empty() => {
            (lit.base10_parse::<f64>().ok(), lit.to_string(), lit.span())
        }
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
            lit: Lit::Float(lit),
            ..
        }) => {
            errors.error_spanned_by(
                lit,
                format!(
                    "`share` is a fraction of the window; write `{}` without the `{}` suffix",
                    lit.base10_digits(),
                    lit.suffix()
                ),
            );
            return Ok(None);
        }
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
pub fn role(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<(String, Span)>> {
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
pub fn grow(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<(u32, Span)>> {
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
