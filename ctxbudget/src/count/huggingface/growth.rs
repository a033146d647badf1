//! How much text a `tokenizer.json`'s normaliser and pre-tokenizer can make of the
//! text they are given, worked out from the file when it loads.
//!
//! `tokenizers` counts a text by building its normalised form, with an alignment of
//! 16 bytes per byte of it, and cutting that into pieces. A file whose stages
//! multiply the text makes every count cost what the multiplied text costs: 20
//! chained `Replace e→ee` make 60 bytes 63 MB (16 s and 1.1 GB per count), a 10 MB
//! `Prepend` is copied into every count. So each stage gets a bound on what it makes
//! of its input, the bounds are composed along the chain, and a file whose chain
//! can make more than [`MAX_GROWTH`] bytes of one byte is refused.
//!
//! A stage's bound is affine: at most `a * n + b * p` bytes out of `n` bytes in `p`
//! stretches (the parts of the text between added tokens, each at least one byte
//! long, which every normaliser sees apart, and the first pre-tokenizer too). A
//! stage that works on finer pieces (a pre-tokenizer after one that splits) counts
//! its addition per byte. The whole chain makes at most `(a + b) * n` bytes of `n`.
//!
//! The bounds of the Unicode stages are the largest expansions of one character in
//! UTF-8 (`U+FDFA` is 3 bytes and its compatibility decomposition 33), checked over
//! every character by the tests below; composing never lengthens a text.

use tokenizers::normalizers::{Precompiled, Replace};
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::pre_tokenizers::metaspace::PrependScheme;
use tokenizers::{NormalizerWrapper, Tokenizer};

/// The most bytes of text a file's normaliser and pre-tokenizer may make of one byte
/// of the text counted. Published chains stay well under it (see the tests below):
/// Anthropic's (NFKC, then `ByteLevel`) can make 22, Llama 2's `Prepend` and
/// `Replace` 12, BERT's normaliser 7.5, Mistral's `Metaspace` 6, GPT-2's `ByteLevel`
/// 2. `tokenizers` itself takes 70 to 180 bytes of memory per byte of ordinary text
/// with the shipped files, so a count costs at most this multiple of that.
pub(super) const MAX_GROWTH: f64 = 64.0;

/// The most stages a normaliser and a pre-tokenizer may have together: each one
/// passes over the whole text on every count, and published files have a handful.
pub(super) const MAX_STAGES: usize = 64;

/// `NFD` (and `NFC`, which composes what `NFD` decomposes): at most 3 bytes of one
/// (U+0390 `ΐ` is 2 bytes, `ι` and two accents 6).
const NFD: f64 = 3.0;
/// `NFKD` (and `NFKC`): at most 11 bytes of one (U+FDFA, 3 bytes, becomes 18 Arabic
/// letters and spaces, 33 bytes).
const NFKD: f64 = 11.0;
/// `Lowercase`: at most 1.5 bytes of one (U+0130 `İ` becomes `i` and a combining dot).
const LOWERCASE: f64 = 1.5;
/// `BertNormalizer` with every option on: spaces around a CJK character (3 bytes
/// become 5), `NFD` to strip accents, and `Lowercase`, each at its worst.
const BERT: f64 = 5.0 / 3.0 * NFD * LOWERCASE;
/// `ByteLevel` maps each byte to a character of at most 2 bytes.
const BYTE_LEVEL: f64 = 2.0;

/// A bound `a * n + b * p` on the bytes a chain makes of `n` bytes in `p` stretches.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Bound {
    a: f64,
    b: f64,
}

impl Bound {
    const IDENTITY: Bound = Bound { a: 1.0, b: 0.0 };

    /// This bound followed by a stage that makes at most `a * m + b` bytes of each
    /// stretch of `m` bytes.
    fn then_per_stretch(self, a: f64, b: f64) -> Bound {
        Bound {
            a: self.a * a,
            b: self.b * a + b,
        }
    }

    /// This bound followed by a stage whose additions come per piece, where the
    /// pieces may be as short as one byte: `a * m + b` per piece is at most
    /// `(a + b) * m` in all.
    fn then_per_byte(self, a: f64, b: f64) -> Bound {
        self.then_per_stretch(a + b, 0.0)
    }

    fn growth(self) -> f64 {
        self.a + self.b
    }
}

/// What the analysis found: the bound of the chain, its stages, and the stage that
/// multiplies the text most, for the message.
struct Chain {
    bound: Bound,
    stages: usize,
    worst: Option<(f64, String)>,
    /// Whether the pieces may still contain spaces (a `Metaspace` replaces them).
    spaces: bool,
    /// Whether a pre-tokenizer has cut the stretches into finer pieces.
    split: bool,
}

impl Chain {
    fn note(&mut self, factor: f64, describe: impl FnOnce() -> String) {
        self.stages += 1;
        if self.worst.as_ref().is_none_or(|(worst, _)| factor > *worst) {
            self.worst = Some((factor, describe()));
        }
    }

    fn per_stretch(&mut self, a: f64, b: f64, describe: impl FnOnce() -> String) {
        self.note(a + b, describe);
        self.bound = self.bound.then_per_stretch(a, b);
    }

    /// A pre-tokenizer stage that makes at most `a * m + b` of each piece of `m`
    /// bytes it is given.
    fn per_piece(&mut self, a: f64, b: f64, describe: impl FnOnce() -> String) {
        self.note(a + b, describe);
        self.bound = if self.split {
            self.bound.then_per_byte(a, b)
        } else {
            self.bound.then_per_stretch(a, b)
        };
    }
}

/// Refuses a tokenizer whose normaliser and pre-tokenizer could make more than
/// [`MAX_GROWTH`] bytes of one, or that have more than [`MAX_STAGES`] stages; the
/// error says which stage multiplies the text most.
pub(super) fn check(tokenizer: &Tokenizer) -> Result<(), String> {
    let chain = analyse(tokenizer)?;
    let growth = chain.bound.growth();
    // NaN cannot arise (every factor is at least 1), but is refused all the same.
    if growth.is_nan() || growth > MAX_GROWTH {
        let worst = chain.worst.map(|(_, stage)| stage).unwrap_or_default();
        return Err(format!(
            "its normalizer and pre-tokenizer can make {} bytes of each byte counted (at \
             most {MAX_GROWTH} are allowed); remove or shorten {worst}",
            shown(growth)
        ));
    }
    Ok(())
}

/// The bound of a tokenizer's normaliser and pre-tokenizer, or why it has none (too
/// many stages, a charsmap that cannot be read).
fn analyse(tokenizer: &Tokenizer) -> Result<Chain, String> {
    let mut chain = Chain {
        bound: Bound::IDENTITY,
        stages: 0,
        worst: None,
        spaces: true,
        split: false,
    };
    if let Some(normalizer) = tokenizer.get_normalizer() {
        normalizer_stage(&mut chain, normalizer)?;
    }
    if let Some(pre_tokenizer) = tokenizer.get_pre_tokenizer() {
        pre_tokenizer_stage(&mut chain, pre_tokenizer)?;
    }
    Ok(chain)
}

/// A growth for a message: whole bytes, and "more than 10^18" past what an integer
/// shows.
fn shown(growth: f64) -> String {
    if growth < 1e18 {
        format!("{growth:.0}")
    } else {
        "more than 10^18".to_owned()
    }
}

fn count_stage(chain: &Chain) -> Result<(), String> {
    if chain.stages > MAX_STAGES {
        return Err(format!(
            "its normalizer and pre-tokenizer have more than {MAX_STAGES} stages, each a pass \
             over every text counted; merge or remove stages"
        ));
    }
    Ok(())
}

fn normalizer_stage(chain: &mut Chain, normalizer: &NormalizerWrapper) -> Result<(), String> {
    match normalizer {
        NormalizerWrapper::Sequence(sequence) => {
            for stage in sequence.as_ref() {
                normalizer_stage(chain, stage)?;
            }
            return Ok(());
        }
        NormalizerWrapper::NFD(_) | NormalizerWrapper::NFC(_) => {
            chain.per_stretch(NFD, 0.0, || "its NFD or NFC stage".into());
        }
        NormalizerWrapper::NFKD(_) | NormalizerWrapper::NFKC(_) => {
            chain.per_stretch(NFKD, 0.0, || "its NFKD or NFKC stage".into());
        }
        NormalizerWrapper::Lowercase(_) => {
            chain.per_stretch(LOWERCASE, 0.0, || "its Lowercase stage".into());
        }
        NormalizerWrapper::BertNormalizer(bert) => {
            let mut factor = 1.0;
            if bert.handle_chinese_chars {
                factor *= 5.0 / 3.0;
            }
            if bert.strip_accents.unwrap_or(bert.lowercase) {
                factor *= NFD;
            }
            if bert.lowercase {
                factor *= LOWERCASE;
            }
            debug_assert!(factor <= BERT);
            chain.per_stretch(factor, 0.0, || "its BertNormalizer".into());
        }
        // They only remove characters or replace them with one space.
        NormalizerWrapper::StripNormalizer(_)
        | NormalizerWrapper::StripAccents(_)
        | NormalizerWrapper::Nmt(_) => chain.per_stretch(1.0, 0.0, String::new),
        NormalizerWrapper::ByteLevel(_) => {
            chain.per_stretch(BYTE_LEVEL, 0.0, || "its ByteLevel normalizer".into());
        }
        NormalizerWrapper::Prepend(prepend) => {
            let length = prepend.prepend.len();
            #[allow(clippy::cast_precision_loss)]
            chain.per_stretch(1.0, length as f64, || {
                format!("its Prepend of {length} bytes")
            });
        }
        NormalizerWrapper::Replace(replace) => {
            let factor = replace_growth(replace)?;
            chain.per_stretch(factor, 0.0, || {
                format!("its Replace stage ({}x)", shown(factor))
            });
        }
        NormalizerWrapper::Precompiled(precompiled) => {
            let factor = precompiled_growth(precompiled)?;
            chain.per_stretch(factor, 0.0, || {
                format!("its Precompiled charsmap ({}x)", shown(factor))
            });
        }
    }
    count_stage(chain)
}

fn pre_tokenizer_stage(
    chain: &mut Chain,
    pre_tokenizer: &PreTokenizerWrapper,
) -> Result<(), String> {
    match pre_tokenizer {
        PreTokenizerWrapper::Sequence(sequence) => {
            for stage in sequence.as_ref() {
                pre_tokenizer_stage(chain, stage)?;
            }
            return Ok(());
        }
        PreTokenizerWrapper::ByteLevel(byte_level) => {
            // A space in front of each piece it is given, then each byte mapped to
            // a character of at most 2 bytes.
            let prefix = if byte_level.add_prefix_space {
                1.0
            } else {
                0.0
            };
            chain.per_piece(BYTE_LEVEL, BYTE_LEVEL * prefix, || {
                "its ByteLevel pre-tokenizer".into()
            });
            chain.spaces = false;
            chain.split |= byte_level.use_regex;
        }
        PreTokenizerWrapper::Metaspace(metaspace) => {
            // Each space becomes the replacement, and the replacement goes in front
            // of each piece (or the first).
            #[allow(clippy::cast_precision_loss)]
            let replacement = metaspace.get_replacement().len_utf8() as f64;
            let per_space = if chain.spaces {
                replacement.max(1.0)
            } else {
                1.0
            };
            let prefix = match metaspace.get_prepend_scheme() {
                PrependScheme::Never => 0.0,
                PrependScheme::First | PrependScheme::Always => replacement,
            };
            chain.per_piece(per_space, prefix, || "its Metaspace pre-tokenizer".into());
            chain.split |= metaspace.get_split();
        }
        // They cut, and those that drop whitespace leave pieces without spaces.
        PreTokenizerWrapper::WhitespaceSplit(_)
        | PreTokenizerWrapper::Whitespace(_)
        | PreTokenizerWrapper::BertPreTokenizer(_) => {
            chain.per_piece(1.0, 0.0, String::new);
            chain.spaces = false;
            chain.split = true;
        }
        PreTokenizerWrapper::Split(_)
        | PreTokenizerWrapper::Punctuation(_)
        | PreTokenizerWrapper::Delimiter(_)
        | PreTokenizerWrapper::Digits(_)
        | PreTokenizerWrapper::UnicodeScripts(_)
        | PreTokenizerWrapper::FixedLength(_) => {
            chain.per_piece(1.0, 0.0, String::new);
            chain.split = true;
        }
    }
    count_stage(chain)
}

/// What a `Replace` makes of one byte: each match becomes the content, so the content
/// over the shortest match; a pattern that can match the empty string puts the
/// content between characters too (at most two matches per byte and one at the end).
fn replace_growth(replace: &Replace) -> Result<f64, String> {
    let json = serde_json::to_value(replace)
        .map_err(|error| format!("its Replace stage cannot be read back: {error}"))?;
    let shortest = match &json["pattern"] {
        serde_json::Value::Object(pattern) => match pattern.iter().next() {
            Some((kind, serde_json::Value::String(text))) if kind == "String" => Some(text.len()),
            Some((kind, serde_json::Value::String(regex))) if kind == "Regex" => {
                shortest_match(regex)
            }
            _ => None,
        },
        _ => None,
    };
    #[allow(clippy::cast_precision_loss)]
    let content = replace.content.len() as f64;
    Ok(match shortest {
        // Matches nothing: the text is unchanged.
        Some(usize::MAX) => 1.0,
        #[allow(clippy::cast_precision_loss)]
        Some(shortest) if shortest > 0 => (content / shortest as f64).max(1.0),
        _ => 1.0 + 4.0 * content,
    })
}

/// The length of the shortest match of `regex`, `usize::MAX` when it matches nothing,
/// or `None` when the pattern is not one `regex-syntax` reads (lookaround,
/// backreferences: Oniguruma's syntax is wider).
fn shortest_match(regex: &str) -> Option<usize> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(regex)
        .ok()?;
    Some(hir.properties().minimum_len().unwrap_or(usize::MAX))
}

/// What a `Precompiled` charsmap (`SentencePiece`'s normalisation rules) makes of one
/// byte: it replaces a grapheme (or a character) that starts with one of its keys by
/// that key's value, so the largest value over its key, walking the trie for keys of
/// up to 5 bytes (it looks up graphemes shorter than 6 bytes, characters otherwise).
fn precompiled_growth(precompiled: &Precompiled) -> Result<f64, String> {
    use base64::Engine as _;
    let unreadable = || "its Precompiled charsmap cannot be read".to_owned();
    let json = serde_json::to_value(precompiled).map_err(|_| unreadable())?;
    let encoded = json["precompiled_charsmap"]
        .as_str()
        .ok_or_else(unreadable)?;
    let charsmap = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| unreadable())?;
    Charsmap::parse(&charsmap)
        .map(|charsmap| charsmap.growth())
        .ok_or_else(unreadable)
}

/// `SentencePiece`'s compiled normalisation rules: a double-array trie of keys whose
/// values are offsets into a blob of NUL-terminated replacements (the layout
/// `spm_precompiled` reads).
struct Charsmap<'a> {
    units: Vec<u32>,
    blob: &'a [u8],
}

/// Keys longer than this are never looked up.
const LONGEST_KEY: usize = 5;

impl<'a> Charsmap<'a> {
    fn parse(bytes: &'a [u8]) -> Option<Self> {
        let size = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
        let size = usize::try_from(size).ok()?;
        let trie = bytes.get(4..4usize.checked_add(size)?)?;
        let units = trie
            .chunks_exact(4)
            .map(|unit| u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]))
            .collect();
        Some(Charsmap {
            units,
            blob: &bytes[4 + size..],
        })
    }

    fn unit(&self, index: usize) -> Option<u32> {
        self.units.get(index).copied()
    }

    /// The largest `value length / key length` over the keys of up to
    /// [`LONGEST_KEY`] bytes, and 1 at least. Each node is visited once, at the
    /// depth it is first reached (where the ratio is largest), so the walk is
    /// bounded by the trie's size whatever its links.
    #[allow(clippy::cast_precision_loss)]
    fn growth(&self) -> f64 {
        let offset = |unit: u32| {
            let unit = unit as usize;
            (unit >> 10) << ((unit & (1 << 9)) >> 6)
        };
        let has_leaf = |unit: u32| (unit >> 8) & 1 == 1;
        let label = |unit: u32| unit & ((1 << 31) | 0xFF);
        let value = |unit: u32| (unit & ((1 << 31) - 1)) as usize;
        let mut growth: f64 = 1.0;
        let Some(root) = self.unit(0) else {
            return growth;
        };
        let mut seen = vec![false; self.units.len()];
        let mut level = vec![offset(root)];
        if let Some(seen) = seen.get_mut(offset(root)) {
            *seen = true;
        }
        for depth in 1..=LONGEST_KEY {
            let mut next_level = Vec::new();
            for &node in &level {
                for byte in 1..=255u32 {
                    let child = node ^ byte as usize;
                    let Some(unit) = self.unit(child).filter(|&unit| label(unit) == byte) else {
                        continue;
                    };
                    let next = child ^ offset(unit);
                    if has_leaf(unit) {
                        if let Some(leaf) = self.unit(next) {
                            let length = self.value_len(value(leaf));
                            growth = growth.max(length as f64 / depth as f64);
                        }
                    }
                    if let Some(seen) = seen.get_mut(next).filter(|seen| !**seen) {
                        *seen = true;
                        next_level.push(next);
                    }
                }
            }
            level = next_level;
        }
        growth
    }

    /// The length of the replacement at `start` in the blob: up to the next NUL.
    fn value_len(&self, start: usize) -> usize {
        self.blob.get(start..).map_or(0, |rest| {
            rest.iter().position(|&b| b == 0).unwrap_or(rest.len())
        })
    }
}

#[cfg(test)]
// The bounds compared are small products of exact binary fractions.
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use tokenizers::normalizers::{BertNormalizer, Lowercase, NFC, NFD, NFKC, NFKD};
    use tokenizers::{NormalizedString, Normalizer};

    /// The largest number of bytes `normalizer` makes of one byte of a single
    /// character, over every character.
    #[allow(clippy::cast_precision_loss)]
    fn largest_expansion(normalizer: &dyn Normalizer) -> f64 {
        let mut largest: f64 = 0.0;
        let mut buffer = [0u8; 4];
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let text = c.encode_utf8(&mut buffer);
            let mut result = NormalizedString::from(&*text);
            normalizer.normalize(&mut result).unwrap();
            largest = largest.max(result.get().len() as f64 / text.len() as f64);
        }
        largest
    }

    /// A tokenizer with `normalizer` and `pre_tokenizer` (JSON) and a tiny model.
    fn tokenizer(normalizer: &str, pre_tokenizer: &str) -> Tokenizer {
        let json = format!(
            r#"{{"version": "1.0", "added_tokens": [], "normalizer": {normalizer},
              "pre_tokenizer": {pre_tokenizer}, "post_processor": null, "decoder": null,
              "model": {{"type": "WordLevel", "vocab": {{"[UNK]": 0}}, "unk_token": "[UNK]"}}}}"#
        );
        Tokenizer::from_bytes(json).unwrap()
    }

    fn growth(normalizer: &str, pre_tokenizer: &str) -> f64 {
        analyse(&tokenizer(normalizer, pre_tokenizer))
            .unwrap()
            .bound
            .growth()
    }

    const BYTE_LEVEL_PRE: &str = r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#;
    const METASPACE: &str =
        r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false}"#;

    /// The bounds of the chains that published files use.
    #[test]
    fn published_chains() {
        // GPT-2, Llama 3, Qwen2 (with NFC), Anthropic (NFKC), Mistral 7B, Llama 2's
        // legacy normaliser, BERT, CLIP, T5 after its charsmap.
        assert_eq!(growth("null", BYTE_LEVEL_PRE), 2.0);
        assert_eq!(growth(r#"{"type": "NFC"}"#, BYTE_LEVEL_PRE), 6.0);
        assert_eq!(growth(r#"{"type": "NFKC"}"#, BYTE_LEVEL_PRE), 22.0);
        assert_eq!(growth("null", METASPACE), 6.0);
        let llama2 = r#"{"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}"#;
        assert_eq!(growth(llama2, "null"), 12.0);
        let bert = r#"{"type": "BertNormalizer", "clean_text": true,
            "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}"#;
        assert_eq!(growth(bert, r#"{"type": "BertPreTokenizer"}"#), 7.5);
        let clip = r#"{"type": "Sequence", "normalizers": [{"type": "NFC"},
            {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
            {"type": "Lowercase"}]}"#;
        assert_eq!(growth(clip, BYTE_LEVEL_PRE), 9.0);
        // T5's `Replace(" {2,}", " ")` shrinks; its `WhitespaceSplit` leaves no space
        // for `Metaspace` to replace, which then adds 3 bytes per word.
        let t5_pre = format!(
            r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}},
                {}]}}"#,
            METASPACE.replace("first", "always")
        );
        let spaces = r#"{"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}"#;
        assert_eq!(growth(spaces, &t5_pre), 4.0);
    }

    /// A double-array trie of one key, `a`, whose value is `value`; the node it leads
    /// to links back to the root when `cycle` (a malformed trie that loops).
    fn charsmap(value: &[u8], cycle: bool) -> Vec<u8> {
        let mut units = vec![0u32; 98];
        // The root (unit 0) has offset 0; `a` (97) leads to unit 97, whose offset 1
        // leads to unit 96, which holds the value's offset in the blob, 0.
        units[97] = u32::from(b'a') | (1 << 8) | (1 << 10);
        if cycle {
            // From the node at 96, `A` (65) is unit 96 ^ 65 = 33, whose offset 33 leads
            // back to the root: "aAaA..." goes round.
            units[33] = u32::from(b'A') | (33 << 10);
        }
        let mut bytes = u32::try_from(units.len() * 4)
            .unwrap()
            .to_le_bytes()
            .to_vec();
        for unit in units {
            bytes.extend(unit.to_le_bytes());
        }
        bytes.extend(value);
        bytes.push(0);
        bytes
    }

    #[test]
    fn charsmaps_grow_by_their_longest_value_per_key_byte() {
        let bytes = charsmap(&[b'x'; 40], false);
        assert_eq!(Charsmap::parse(&bytes).unwrap().growth(), 40.0);
        let bytes = charsmap(b"", false);
        assert_eq!(Charsmap::parse(&bytes).unwrap().growth(), 1.0);
        // A trie whose links loop is walked once per node.
        let bytes = charsmap(&[b'x'; 10], true);
        assert_eq!(Charsmap::parse(&bytes).unwrap().growth(), 10.0);
        // Cut short: no trie.
        assert!(Charsmap::parse(&bytes[..10]).is_none());
        // Through `tokenizers`: a charsmap that makes 40 bytes of one is refused.
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(charsmap(&[b'x'; 40], false));
        let normalizer =
            format!(r#"{{"type": "Precompiled", "precompiled_charsmap": "{encoded}"}}"#);
        assert_eq!(growth(&normalizer, "null"), 40.0);
        let message = check(&tokenizer(&normalizer, BYTE_LEVEL_PRE)).unwrap_err();
        assert!(message.contains("Precompiled charsmap (40x)"), "{message}");
        assert!(message.contains("can make 80 bytes"), "{message}");
    }

    /// The constants are the true maxima over every character: the bound is sound,
    /// and no tighter one exists for one character.
    #[test]
    fn unicode_bounds_are_the_largest_expansions() {
        assert_eq!(largest_expansion(&NFD), super::NFD);
        assert!(largest_expansion(&NFC) <= super::NFD);
        assert_eq!(largest_expansion(&NFKD), super::NFKD);
        assert!(largest_expansion(&NFKC) <= super::NFKD);
        assert_eq!(largest_expansion(&Lowercase), super::LOWERCASE);
        assert!(largest_expansion(&BertNormalizer::new(true, true, Some(true), true)) <= BERT);
    }
}
