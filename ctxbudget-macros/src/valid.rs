//! Validate a parsed [`Budget`]: layer names and the sum of the reservations.

use crate::ast::{Amount, Budget, keys};
use crate::errors::Errors;

pub fn check(budget: &Budget, errors: &mut Errors) {
    check_names(budget, errors);
    check_sum(budget, errors);
    check_policies(budget, errors);
}

/// `recovery` goes with `policy = disclose`, and `disclose` needs a `recovery`.
fn check_policies(budget: &Budget, errors: &mut Errors) {
    for layer in &budget.layers {
        let Some(field) = &layer.field else {
            continue;
        };
        let policy = field.policy.as_ref().map(|(name, _)| name.as_str());
        match (&field.policy, &field.recovery) {
            (Some((name, span)), None) if name == "disclose" && !field.recovery_seen => errors
                .error_at(
                    *span,
                    format!(
                        "`policy = disclose` on field `{}` needs `recovery = \"..\"`: what the \
                     reader can do to see the full text, e.g. `recovery = \"read AGENTS.md\"`",
                        layer.name
                    ),
                ),
            (_, Some(lit)) if policy != Some("disclose") => errors.error_spanned_by(
                lit,
                format!(
                    "`recovery` only applies to `policy = disclose`{}; add `policy = disclose` \
                     or remove `recovery`",
                    policy.map_or_else(String::new, |p| format!(", not `policy = {p}`"))
                ),
            ),
            _ => {}
        }
    }
}

fn check_names(budget: &Budget, errors: &mut Errors) {
    for (i, layer) in budget.layers.iter().enumerate() {
        if keys::RESERVED_NAMES.contains(&layer.name.as_str()) {
            errors.error_spanned_by(
                &layer.ident,
                format!(
                    "a layer cannot be named `{}`: `total`, `spent` and `remaining` are \
                     telemetry keys; rename it",
                    layer.name
                ),
            );
            continue;
        }
        if layer.field.is_some() && layer.name == "build" {
            errors.error_spanned_by(
                &layer.ident,
                "a field cannot be named `build`: the generated builder's `build()` would \
                 clash with its setter; rename the field",
            );
        }
        let earlier = &budget.layers[..i];
        if let Some(first) = earlier.iter().find(|l| l.name == layer.name) {
            let message = if layer.field.is_none() && first.field.is_some() {
                format!(
                    "duplicate layer `output`: `#[context(output = ..)]` declares a layer \
                     named `output` and so does field `{}`; remove one",
                    first.name
                )
            } else {
                format!("duplicate layer `{}`; rename or remove one", layer.name)
            };
            errors.error_spanned_by(&layer.ident, message);
        } else if let Some(first) = earlier.iter().find(|l| l.variant == layer.variant) {
            errors.error_spanned_by(
                &layer.ident,
                format!(
                    "layers `{}` and `{}` would both be the variant `{}` of the layer enum; \
                     rename one",
                    first.name, layer.name, layer.variant
                ),
            );
        }
    }
}

/// Shares of the window adding up to more than 1 fit no window at all.
fn check_shares(budget: &Budget, errors: &mut Errors) -> bool {
    let mut ppm: u64 = 0;
    let mut terms = Vec::new();
    let mut last = None;
    for layer in &budget.layers {
        if let Some(share) = &layer.share {
            ppm += u64::from(share.ppm);
            terms.push(format!("{} {}", layer.name, share.text));
            last = Some(share.span);
        }
    }
    match last {
        Some(span) if ppm > 1_000_000 => {
            errors.error_at(
                span,
                format!(
                    "layer shares add up to {} of the window ({}): more than the whole window; \
                     lower the shares so that they add up to at most 1",
                    fraction(ppm),
                    terms.join(" + ")
                ),
            );
            false
        }
        _ => true,
    }
}

/// `ppm` parts per million as a decimal fraction without trailing zeros.
fn fraction(ppm: u64) -> String {
    let (whole, rest) = (ppm / 1_000_000, ppm % 1_000_000);
    if rest == 0 {
        return whole.to_string();
    }
    let digits = format!("{rest:06}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// The reservations at the declared total, fixed and shares, against the total.
fn check_sum(budget: &Budget, errors: &mut Errors) {
    if !check_shares(budget, errors) {
        return;
    }
    let Some(total) = &budget.total else {
        return;
    };
    let total_value = total.literal();
    let mut sum: u64 = 0;
    let mut terms = Vec::new();
    for layer in &budget.layers {
        let tokens = match (&layer.share, layer.tokens.as_ref().and_then(Amount::literal)) {
            // A share is resolved at the total; a const total is the const
            // assertion's to check.
            (Some(share), _) => match total_value {
                Some(total) => {
                    let tokens = u64::try_from(
                        u128::from(total) * u128::from(share.ppm) / 1_000_000,
                    )
                    .unwrap_or(u64::MAX);
                    terms.push(format!(
                        "{} {} (share {})",
                        layer.name,
                        readable(tokens),
                        share.text
                    ));
                    tokens
                }
                None => return,
            },
            (None, Some(tokens)) => {
                terms.push(format!("{} {}", layer.name, readable(tokens)));
                tokens
            }
            // A missing or non-literal reservation: the const assertion checks the sum.
            (None, None) => return,
        };
        let Some(next) = sum.checked_add(tokens) else {
            let span = layer
                .tokens
                .as_ref()
                .map_or(layer.ident.span(), Amount::span);
            errors.error_at(
                span,
                format!(
                    "layer reservations overflow: {} + {} (layer `{}`) does not fit in a \
                     token count; lower the reservations",
                    terms[..terms.len() - 1].join(" + "),
                    readable(tokens),
                    layer.name
                ),
            );
            return;
        };
        sum = next;
    }
    let Some(total_value) = total_value else {
        return;
    };
    if sum > total_value {
        errors.error_at(
            total.span(),
            format!(
                "layers reserve {sum} tokens ({}) but the total is {total_value}: {} over; \
                 lower a reservation or raise `total` to at least {sum}",
                terms.join(" + "),
                sum - total_value
            ),
        );
    }
}

/// A token count as a message shows it: `u64::MAX` (the largest count a 64-bit
/// target accepts) by name, so it does not read like a saturated sum.
fn readable(tokens: u64) -> String {
    if tokens == u64::MAX {
        "usize::MAX".to_owned()
    } else {
        tokens.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::parse_derive;
    use syn::{DeriveInput, parse_quote};

    fn messages(input: &DeriveInput) -> Vec<String> {
        let mut errors = Errors::new();
        if let Some(budget) = parse_derive(input, &mut errors) {
            check(&budget, &mut errors);
        }
        match errors.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn over_total_shows_every_term() {
        let input: DeriveInput = parse_quote! {
            #[context(total = 8192, output = 1024)]
            struct AgentContext {
                #[budget(tokens = 512)] system: String,
                #[budget(tokens = 2048)] memory: String,
                #[budget(tokens = 4096)] semantic: String,
                #[budget(tokens = 1536)] user: String,
            }
        };
        assert_eq!(
            messages(&input),
            [
                "layers reserve 9216 tokens (system 512 + memory 2048 + semantic 4096 + user \
              1536 + output 1024) but the total is 8192: 1024 over; lower a reservation or \
              raise `total` to at least 9216"
            ]
        );
    }

    #[test]
    fn recovery_goes_with_disclose() {
        let input: DeriveInput = parse_quote! {
            #[context(total = 100)]
            struct C {
                #[budget(tokens = 1, recovery = "read it")] a: String,
                #[budget(tokens = 1, policy = disclose)] b: String,
                #[budget(tokens = 1, policy = disclose, recovery = "read it")] c: String,
            }
        };
        assert_eq!(
            messages(&input),
            [
                "`recovery` only applies to `policy = disclose`; add `policy = disclose` or \
                 remove `recovery`",
                "`policy = disclose` on field `b` needs `recovery = \"..\"`: what the reader \
                 can do to see the full text, e.g. `recovery = \"read AGENTS.md\"`",
            ]
        );
    }

    #[test]
    fn exact_fit_is_fine() {
        let input: DeriveInput = parse_quote! {
            #[context(total = 1024)]
            struct C { #[budget(tokens = 1000)] a: String, #[budget(tokens = 24)] b: String }
        };
        assert_eq!(messages(&input), Vec::<String>::new());
    }

    #[test]
    fn overflow_and_names() {
        let input: DeriveInput = parse_quote! {
            #[context(total = 1, output = 1)]
            struct C {
                #[budget(tokens = 18446744073709551615)] a: String,
                #[budget(tokens = 1)] b: String,
                #[budget(tokens = 0)] total: String,
                #[budget(tokens = 0)] output: String,
                #[budget(tokens = 0)] a_b: String,
                #[budget(tokens = 0)] a__b: String,
            }
        };
        assert_eq!(
            messages(&input),
            [
                "a layer cannot be named `total`: `total`, `spent` and `remaining` are \
                 telemetry keys; rename it",
                "layers `a_b` and `a__b` would both be the variant `AB` of the layer enum; \
                 rename one",
                "duplicate layer `output`: `#[context(output = ..)]` declares a layer named \
                 `output` and so does field `output`; remove one",
                "layer reservations overflow: a usize::MAX + 1 (layer `b`) does not \
                 fit in a token count; lower the reservations",
            ]
        );
    }
}
