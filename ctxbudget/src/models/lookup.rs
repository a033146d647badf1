//! Finding a model by the many names it goes by, and suggesting names for one that is
//! not found.

use std::fmt;

/// The longest name, in bytes (surrounding space aside), that a lookup takes and a
/// [`Catalogue`](super::Catalogue) stores: no provider's model id comes near it, and
/// the work of a lookup stays bounded whatever name it is given.
pub const MAX_NAME_BYTES: usize = 256;

/// The most forms of one name a lookup tries.
const MAX_FORMS: usize = 32;

/// How much of a long name error messages show, in characters.
const SHOWN_CHARS: usize = 40;

/// The error of [`Model::lookup`](super::Model::lookup) and
/// [`Catalogue::lookup`](super::Catalogue::lookup): no model of the catalogue has
/// this name. It lists the closest names, by edit distance; a name over
/// [`MAX_NAME_BYTES`] has no suggestions, and the message says it is too long.
///
/// ```
/// use ctxbudget::models::Model;
///
/// let err = Model::lookup("claude-sonet-4-5").unwrap_err();
/// assert_eq!(err.suggestions[0], "claude-sonnet-4-5");
/// assert!(err.to_string().contains("did you mean `claude-sonnet-4-5`"), "{err}");
///
/// let err = Model::lookup(&"gpt-4o".repeat(100)).unwrap_err();
/// assert!(err.suggestions.is_empty());
/// assert!(err.to_string().contains("600 bytes, over the 256"), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct ModelNotFound {
    /// The name that was asked for.
    pub name: String,
    /// The closest names of the catalogue (models and aliases), closest first: at most
    /// three, by Levenshtein distance between the lower-cased names.
    pub suggestions: Vec<String>,
}

impl ModelNotFound {
    /// Whether the name was refused for its length: over [`MAX_NAME_BYTES`], surrounding
    /// space aside.
    pub fn is_too_long(&self) -> bool {
        self.name.trim().len() > MAX_NAME_BYTES
    }
}

impl fmt::Display for ModelNotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_too_long() {
            return write!(
                f,
                "model name `{}` is {} bytes, over the {MAX_NAME_BYTES} a model name may have: \
                 pass the name as the provider's API spells it",
                Shortened(self.name.trim()),
                self.name.trim().len()
            );
        }
        write!(f, "unknown model `{}`: ", self.name)?;
        match self.suggestions.as_slice() {
            [] => f.write_str("the catalogue has no models")?,
            [only] => write!(f, "did you mean `{only}`")?,
            [first @ .., last] => {
                f.write_str("did you mean ")?;
                for name in first {
                    write!(f, "`{name}`, ")?;
                }
                write!(f, "or `{last}`")?;
            }
        }
        if !self.suggestions.is_empty() {
            f.write_str(" (the closest names in the catalogue, by edit distance)?")?;
        }
        f.write_str(
            "; to use a model the catalogue lacks, add it to a `Catalogue` \
             (`Catalogue::insert`, or JSON with `Catalogue::with_json`)",
        )
    }
}

/// A name as messages show it: its first [`SHOWN_CHARS`] characters, and `…` when
/// there are more.
pub(super) struct Shortened<'a>(pub(super) &'a str);

impl fmt::Display for Shortened<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(SHOWN_CHARS) {
            Some((at, _)) => write!(f, "{}…", &self.0[..at]),
            None => f.write_str(self.0),
        }
    }
}

/// A name as the catalogue's index keys it: trimmed and lower-cased (ASCII), or
/// `None` when it is over [`MAX_NAME_BYTES`].
pub(super) fn key(name: &str) -> Option<String> {
    let name = name.trim();
    (name.len() <= MAX_NAME_BYTES).then(|| name.to_ascii_lowercase())
}

/// The forms a [`key`] is tried in, in order: as given, without a provider prefix,
/// without a fine-tune wrapper, without a Bedrock or Vertex form, and then each of
/// these without a date or version suffix. Every form is a slice of `key`, none is
/// empty, none comes twice, and there are at most [`MAX_FORMS`].
pub(super) fn candidates(key: &str) -> Vec<&str> {
    fn push<'a>(forms: &mut Vec<&'a str>, form: &'a str) {
        if !form.is_empty() && forms.len() < MAX_FORMS && !forms.contains(&form) {
            forms.push(form);
        }
    }
    let mut forms = Vec::with_capacity(8);
    push(&mut forms, key);
    // Provider prefixes: `openai/gpt-4o`, `models/gemini-2.5-pro`,
    // `openrouter/anthropic/claude-...`: the last segment.
    if let Some((_, last)) = key.rsplit_once('/') {
        push(&mut forms, last);
    }
    let mut index = 0;
    while let Some(&form) = forms.get(index) {
        // Fine-tuned OpenAI models: `ft:gpt-4o-mini-2024-07-18:org::id`.
        if let Some(rest) = form.strip_prefix("ft:") {
            push(&mut forms, rest.split(':').next().unwrap_or(rest));
        }
        // Bedrock: `anthropic.claude-3-5-haiku-20241022-v1:0`, `us.anthropic.…`,
        // `meta.llama3-1-70b-instruct-v1:0` is left alone (not a catalogue name).
        if let Some(at) = form.find("anthropic.") {
            let rest = &form[at + "anthropic.".len()..];
            push(&mut forms, strip_bedrock_version(rest));
        }
        // Vertex AI: `claude-3-5-haiku@20241022`, `claude-opus-4-6@default`.
        if let Some((base, version)) = form.split_once('@') {
            if version == "default" || version.bytes().all(|b| b.is_ascii_digit()) {
                push(&mut forms, base);
            }
        }
        if let Some(base) = strip_suffix_version(form) {
            push(&mut forms, base);
        }
        index += 1;
    }
    forms
}

/// `claude-3-5-haiku-20241022-v1:0` → `claude-3-5-haiku-20241022`.
pub(super) fn strip_bedrock_version(name: &str) -> &str {
    match name.rfind("-v") {
        Some(at)
            if name[at + 2..]
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b':') =>
        {
            &name[..at]
        }
        _ => name,
    }
}

/// The name without one trailing date or version, if it has one: `-2024-08-06`
/// (OpenAI), `-20250929` (Anthropic), `-001` (Gemini), `-latest`, `-preview-05-06`,
/// `-exp-0827`.
fn strip_suffix_version(name: &str) -> Option<&str> {
    let numeric = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    // `-YYYY-MM-DD` and `-preview-MM-DD`.
    let parts: Vec<&str> = name.rsplitn(4, '-').collect();
    if parts.len() == 4
        && numeric(parts[0])
        && numeric(parts[1])
        && parts[0].len() == 2
        && parts[1].len() == 2
    {
        if numeric(parts[2]) && parts[2].len() == 4 {
            return Some(parts[3]);
        }
        if matches!(parts[2], "preview" | "exp") {
            return Some(parts[3]);
        }
    }
    let (base, last) = name.rsplit_once('-')?;
    if base.is_empty() {
        return None;
    }
    // `-20250929`, `-001`, `-0827`; `-latest`, `-preview`, `-exp`.
    let is_version = (numeric(last) && (last.len() == 8 || last.len() == 3))
        || matches!(last, "latest" | "preview" | "exp");
    if is_version {
        return Some(base);
    }
    // `-preview-0827`, `-exp-0827`.
    let (before, tag) = base.rsplit_once('-')?;
    (numeric(last) && last.len() == 4 && matches!(tag, "preview" | "exp") && !before.is_empty())
        .then_some(before)
}

/// The Levenshtein distance between `a` and `b`, by characters.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The family of a name: the letters it starts with, after any provider prefix
/// (`claude`, `gpt`, `gemini`, `o`), lower-cased.
fn family(name: &str) -> &str {
    let name = name.rsplit('/').next().unwrap_or(name);
    let end = name
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(name.len());
    &name[..end]
}

/// The (at most) three names closest to `name`, closest first, ties in the order
/// given; names already suggested are skipped. Names of the same family as `name`
/// (`claude-…` for `claude-opus-9`) come first, when there are any.
pub(super) fn closest<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let query = name.trim().to_ascii_lowercase();
    // Bound the work on absurd input: the catalogue's names are short.
    let query: String = query.chars().take(128).collect();
    let wanted = family(&query);
    let mut scored: Vec<(bool, usize, usize, &str)> = names
        .enumerate()
        .map(|(order, known)| {
            let other = wanted.is_empty() || !family(known).eq_ignore_ascii_case(wanted);
            (other, edit_distance(&query, known), order, known)
        })
        .collect();
    scored.sort_unstable();
    let mut out: Vec<String> = Vec::new();
    for (_, _, _, known) in scored {
        if !out.iter().any(|seen| seen == known) {
            out.push(known.to_owned());
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_keep_to_the_family() {
        let names = ["gpt-5", "claude-opus-4-5", "claude-sonnet-5", "o3"];
        // `gpt-5` is closer by edit distance; the family is Claude.
        assert_eq!(
            closest("claude-5", names.into_iter()),
            ["claude-opus-4-5", "claude-sonnet-5", "gpt-5"]
        );
        assert_eq!(
            closest("anthropic/claude-sonet-5", names.into_iter())[0],
            "claude-sonnet-5"
        );
        // No name of the family: the closest of all.
        assert_eq!(closest("gtp-5", names.into_iter())[0], "gpt-5");
        assert_eq!(family("openai/gpt-4o"), "gpt");
        assert_eq!(family("4o"), "");
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("gpt-4o", "gpt-4o"), 0);
        assert_eq!(edit_distance("gtp-4o", "gpt-4o"), 2);
    }

    #[test]
    fn suffixes() {
        assert_eq!(strip_suffix_version("gpt-4o-2024-08-06"), Some("gpt-4o"));
        assert_eq!(
            strip_suffix_version("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            strip_suffix_version("gemini-2.0-flash-001"),
            Some("gemini-2.0-flash")
        );
        assert_eq!(
            strip_suffix_version("claude-3-5-sonnet-latest"),
            Some("claude-3-5-sonnet")
        );
        assert_eq!(
            strip_suffix_version("gemini-2.5-pro-preview-05-06"),
            Some("gemini-2.5-pro")
        );
        assert_eq!(
            strip_suffix_version("gemini-1.5-pro-exp-0827"),
            Some("gemini-1.5-pro")
        );
        assert_eq!(strip_suffix_version("gpt-4o"), None);
        assert_eq!(strip_suffix_version("claude-sonnet-4-5"), None);
        assert_eq!(strip_suffix_version("-latest"), None);
        assert_eq!(strip_suffix_version(""), None);
    }

    #[test]
    fn forms() {
        let forms = key(" OpenAI/GPT-4o-2024-08-06 ").unwrap();
        let forms = candidates(&forms);
        assert!(forms.contains(&"gpt-4o"), "{forms:?}");
        let forms = candidates("us.anthropic.claude-3-5-haiku-20241022-v1:0");
        assert!(forms.contains(&"claude-3-5-haiku"), "{forms:?}");
        let forms = candidates("claude-3-5-haiku@20241022");
        assert!(forms.contains(&"claude-3-5-haiku"), "{forms:?}");
        let forms = candidates("claude-opus-4-6@default");
        assert!(forms.contains(&"claude-opus-4-6"), "{forms:?}");
        let forms = candidates("ft:gpt-4o-mini-2024-07-18:acme::abc123");
        assert!(forms.contains(&"gpt-4o-mini"), "{forms:?}");
        // Every form is tried once, and the list stays short.
        assert!(candidates("a-1-2-3-4-5-6-7-8-9").len() < 8);
        assert!(candidates("").is_empty(), "the empty name has no form");
    }

    #[test]
    fn keys_refuse_long_names() {
        assert_eq!(key("  GPT-4o "), Some("gpt-4o".to_owned()));
        let longest = "a".repeat(MAX_NAME_BYTES);
        assert_eq!(key(&format!(" {longest} ")), Some(longest.clone()));
        assert_eq!(key(&format!("{longest}b")), None);
    }

    #[test]
    fn hostile_names_have_few_forms() {
        // Each `anthropic.` gave one more form (80 KB of them: 8,000 copies of the
        // name); now the forms are slices, and at most `MAX_FORMS` of them.
        let longest = "anthropic.".repeat(MAX_NAME_BYTES / 10);
        let forms = candidates(&longest);
        assert!(forms.len() <= MAX_FORMS, "{}", forms.len());
        // Every `-001` is a version suffix to strip: 63 forms without the bound.
        let versions = format!("a{}", "-001".repeat(63));
        assert_eq!(candidates(&versions).len(), MAX_FORMS);
    }

    #[test]
    fn long_names_are_shortened_in_messages() {
        assert_eq!(Shortened("gpt-4o").to_string(), "gpt-4o");
        let long = "é".repeat(100);
        assert_eq!(Shortened(&long).to_string(), format!("{}…", "é".repeat(40)));
    }
}
