//! Encodings by name: `"o200k_base".parse::<Encoding>()`.

use std::str::FromStr;

use super::Encoding;

/// The encodings by the names `tiktoken` gives them, the first of each being the
/// one [`Encoding::name`] returns. `o200k_harmony` and `p50k_edit` only add special
/// tokens to `o200k_base` and `p50k_base`, and ordinary text counts the same.
const NAMES: [(&str, Encoding); 7] = [
    ("o200k_base", Encoding::O200kBase),
    ("cl100k_base", Encoding::Cl100kBase),
    ("p50k_base", Encoding::P50kBase),
    ("r50k_base", Encoding::R50kBase),
    ("o200k_harmony", Encoding::O200kBase),
    ("p50k_edit", Encoding::P50kBase),
    ("gpt2", Encoding::R50kBase),
];

/// The error of parsing an [`Encoding`] from a name that is not one.
///
/// ```
/// use ctxbudget::count::Encoding;
///
/// let err = "o200k".parse::<Encoding>().unwrap_err();
/// assert!(err.to_string().contains("`o200k`"), "{err}");
/// assert!(err.to_string().contains("o200k_base"), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown tiktoken encoding `{name}`: expected one of `o200k_base`, `cl100k_base`, \
     `p50k_base`, `r50k_base` (or `o200k_harmony`, `p50k_edit`, `gpt2`)"
)]
pub struct UnknownEncoding {
    /// The name that was given.
    pub name: String,
}

impl FromStr for Encoding {
    type Err = UnknownEncoding;

    /// Parses an encoding from its `tiktoken` name: `o200k_base`, `cl100k_base`,
    /// `p50k_base`, `r50k_base`, and the aliases `o200k_harmony`, `p50k_edit` and
    /// `gpt2`. Case, `-` for `_` and surrounding whitespace do not matter
    /// (`CL100K-BASE` is `cl100k_base`), so a name typed on a command line parses as
    /// one from `tiktoken.get_encoding` does.
    ///
    /// ```
    /// use ctxbudget::count::Encoding;
    ///
    /// assert_eq!("o200k_base".parse::<Encoding>()?, Encoding::O200kBase);
    /// assert_eq!("gpt2".parse::<Encoding>()?, Encoding::R50kBase);
    /// assert_eq!(" CL100K-BASE ".parse::<Encoding>()?, Encoding::Cl100kBase);
    /// for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
    ///     assert_eq!(encoding.name().parse::<Encoding>()?, encoding);
    /// }
    /// # Ok::<(), ctxbudget::count::UnknownEncoding>(())
    /// ```
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let wanted = name.trim();
        NAMES
            .iter()
            .find(|(known, _)| same_name(known, wanted))
            .map(|&(_, encoding)| encoding)
            .ok_or_else(|| UnknownEncoding {
                name: name.to_owned(),
            })
    }
}

/// Whether `given` spells `known` (lower case, `_`) up to ASCII case and `-` for `_`.
fn same_name(known: &str, given: &str) -> bool {
    known.len() == given.len()
        && known.bytes().zip(given.bytes()).all(|(k, g)| {
            let g = match g.to_ascii_lowercase() {
                b'-' => b'_',
                other => other,
            };
            k == g
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_and_every_encoding_round_trips() {
        for (name, encoding) in NAMES {
            assert_eq!(name.parse::<Encoding>(), Ok(encoding));
            assert_eq!(encoding.name().parse::<Encoding>(), Ok(encoding));
            let shouted = name.to_ascii_uppercase().replace('_', "-");
            assert_eq!(format!(" {shouted}\n").parse::<Encoding>(), Ok(encoding));
        }
        for wrong in [
            "",
            "o200k",
            "cl100k",
            "o200k__base",
            "o200k base",
            "gpt-2",
            "gpt2x",
        ] {
            assert_eq!(
                wrong.parse::<Encoding>(),
                Err(UnknownEncoding {
                    name: wrong.to_owned()
                })
            );
        }
    }
}
