//! The model both macros parse into and expand from.

use proc_macro2::Span;
use syn::{Attribute, Expr, Generics, Ident, LitInt, LitStr, Path, Type, Visibility};

/// A token count as written: an integer literal (checked in the macro) or a const
/// expression (checked by a generated const assertion).
#[derive(Clone)]
pub enum Amount {
    Lit { value: u64, lit: LitInt },
    Expr(Box<Expr>),
}

impl Amount {
    pub fn literal(&self) -> Option<u64> {
        match self {
            Amount::Lit { value, .. } => Some(*value),
            Amount::Expr(_) => None,
        }
    }

    pub fn span(&self) -> Span {
        match self {
            Amount::Lit { lit, .. } => lit.span(),
            Amount::Expr(expr) => syn::spanned::Spanned::span(expr),
        }
    }

    /// A stand-in used by the fallback expansion once the real value was rejected.
    pub fn zero(span: Span) -> Self {
        Amount::Lit {
            value: 0,
            lit: LitInt::new("0", span),
        }
    }
}

/// `share = 0.25`: a share of the window, as written and in parts per million.
#[derive(Clone)]
pub struct ShareLit {
    /// Parts per million, at most 1,000,000.
    pub ppm: u32,
    /// The literal as written, for messages and docs.
    pub text: String,
    pub span: Span,
}

/// What makes a layer of a derive: the content field behind it.
pub struct FieldLayer {
    pub ty: Type,
    pub required: bool,
    /// `policy = ..`: the name (one of [`keys::POLICIES`]) and its span.
    pub policy: Option<(String, Span)>,
    /// `recovery = ".."`, for `policy = disclose`.
    pub recovery: Option<LitStr>,
    /// Whether `recovery` was written at all (even with a rejected value).
    pub recovery_seen: bool,
    /// `grow` (priority 1) or `grow = N`, with the span of the key.
    pub grow: Option<(u32, Span)>,
    /// `role = ..`: the name (one of [`keys::ROLES`]) and its span.
    pub role: Option<(String, Span)>,
}

pub struct Layer {
    /// The name in telemetry and the runtime budget (the field name without `r#`).
    pub name: String,
    /// The field or layer identifier as written (for setters and getters).
    pub ident: Ident,
    /// The layer enum variant (`memory` -> `Memory`).
    pub variant: Ident,
    /// `None` when the reservation is missing, was rejected, or is a share.
    pub tokens: Option<Amount>,
    /// `share = F`: the layer reserves a share of the window instead of tokens.
    pub share: Option<ShareLit>,
    /// `Some` for layers backed by a field of a derived struct.
    pub field: Option<FieldLayer>,
    /// Doc comments given on the layer (`budget!` only).
    pub docs: Vec<Attribute>,
}

/// A budget: a total and layers, from either macro.
pub struct Budget {
    /// The path to the `ctxbudget` crate (`::ctxbudget` unless `crate = path`).
    pub krate: Path,
    pub vis: Visibility,
    /// The type that implements `ContextLayers`.
    pub ident: Ident,
    /// The derived struct's generics and where clause (empty for `budget!`).
    pub generics: Generics,
    pub total: Option<Amount>,
    pub layers: Vec<Layer>,
    /// Where the fallback's stand-in numbers point.
    pub check_span: Span,
    /// `true` for `#[derive(ContextLayers)]` (generates the builder).
    pub derive: bool,
    /// Attributes for the marker struct of `budget!` (docs and others).
    pub attrs: Vec<Attribute>,
    /// `#[context(separator = "..")]`: what joins the layers in `assemble()`.
    pub separator: Option<LitStr>,
}

impl Budget {
    pub fn default_crate() -> Path {
        syn::parse_quote!(::ctxbudget)
    }

    /// Whether the derived struct has generic parameters: then its budget lives on the
    /// layer enum, which has none.
    pub fn is_generic(&self) -> bool {
        !self.generics.params.is_empty()
    }
}

/// `memory` -> `Memory`, `long_term_memory` -> `LongTermMemory`.
pub fn variant_ident(name: &str, span: Span) -> Ident {
    let mut out = String::with_capacity(name.len());
    let mut upper = true;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'L');
    }
    Ident::new(&out, span)
}

/// The layer keys and attribute keys, in one place.
pub mod keys {
    pub const CONTEXT: &[&str] = &["total", "output", "crate", "separator"];
    pub const BUDGET: &[&str] = &[
        "tokens", "share", "required", "policy", "recovery", "grow", "role",
    ];
    /// The values of `policy = ..`.
    pub const POLICIES: &[&str] = &["head", "tail", "head_and_tail", "disclose", "never"];
    /// The values of `role = ..`.
    pub const ROLES: &[&str] = &["system", "user"];
    /// Layer names that would collide with telemetry keys.
    pub const RESERVED_NAMES: &[&str] = &["total", "spent", "remaining"];
}

/// The nearest of `candidates` to `word`, if it is close enough to be a typo.
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (levenshtein(word, c), *c))
        .filter(|(d, c)| *d <= (c.len().max(word.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let old = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(row[j + 1])
            };
            prev = old;
        }
    }
    row[b.len()]
}

/// "unknown key `x`; did you mean `y`?" or the list of expected keys.
pub fn unknown_key_message(what: &str, key: &str, expected: &[&str]) -> String {
    let list = expected
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match nearest(key, expected) {
        Some(near) => format!("unknown key `{key}` in {what}; did you mean `{near}`?"),
        None => format!("unknown key `{key}` in {what}; expected one of {list}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_upper_camel_case() {
        let span = Span::call_site();
        assert_eq!(variant_ident("memory", span).to_string(), "Memory");
        assert_eq!(
            variant_ident("long_term_memory", span).to_string(),
            "LongTermMemory"
        );
        assert_eq!(variant_ident("_x", span).to_string(), "X");
    }

    #[test]
    fn nearest_key_suggests_typos_only() {
        assert_eq!(nearest("token", keys::BUDGET), Some("tokens"));
        assert_eq!(nearest("requird", keys::BUDGET), Some("required"));
        assert_eq!(nearest("totl", keys::CONTEXT), Some("total"));
        assert_eq!(nearest("colour", keys::BUDGET), None);
    }
}
