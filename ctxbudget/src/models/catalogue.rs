//! [`Catalogue`]: the built-in models plus entries of your own.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use super::lookup::{MAX_NAME_BYTES, Shortened, candidates, closest, key};
use super::{Model, ModelNotFound};

/// A set of models, found by name, alias or dated snapshot.
///
/// [`Catalogue::builtin`] is the one [`Model::lookup`] searches;
/// [`Catalogue::new`] starts from a copy of it to add or override entries:
///
/// ```
/// use ctxbudget::models::{Catalogue, Model};
///
/// let gpt = Model::lookup("gpt-4o")?.clone().with_context_window(64_000);
/// let mut catalogue = Catalogue::new();
/// catalogue.insert(gpt)?;
/// assert_eq!(catalogue.lookup("openai/gpt-4o-2024-11-20")?.context_window(), 64_000);
/// // The built-in catalogue is unchanged.
/// assert_eq!(Model::lookup("gpt-4o")?.context_window(), 128_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Names and aliases
///
/// Names and aliases are compared with case and surrounding space aside, and each
/// finds exactly one model: [`Model::name`] and every one of [`Model::aliases`] find
/// the model that lists them. A name always beats an alias:
///
/// - An alias never takes a model's name: inserting one is an
///   [`InsertError::AliasIsName`] that names both models.
/// - A model named like another model's alias takes that name over: the alias is
///   removed from the other model, which keeps its numbers and its other names.
/// - An alias of another model moves to the model inserted last, and is removed from
///   the other one.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    models: Vec<Model>,
    /// Every name and alias as [`key`] writes it, to the model it finds.
    index: HashMap<String, Slot>,
}

/// Where a key of the index leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    /// The model, in `models`.
    at: usize,
    /// `None` for the model's name, or the position of the alias in its `aliases`.
    alias: Option<usize>,
}

/// Why [`Catalogue::insert`] refused a model: a name or alias no lookup could find,
/// or one that would take another model's name. The catalogue is unchanged.
///
/// ```
/// use ctxbudget::models::{Catalogue, InsertError, Model};
///
/// let mini = Model::lookup("gpt-4o-mini")?.clone().with_aliases(["GPT-4o"]);
/// let err = Catalogue::new().insert(mini).unwrap_err();
/// assert!(matches!(&err, InsertError::AliasIsName { owner, .. } if owner == "gpt-4o"));
/// assert!(err.to_string().starts_with("alias `GPT-4o` of `gpt-4o-mini` is the name of `gpt-4o`"), "{err}");
/// # Ok::<(), ctxbudget::models::ModelNotFound>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InsertError {
    /// The model's name is empty, or only spaces.
    #[error("the model's name is empty: name it as the provider's API spells it")]
    EmptyName,
    /// The model's name is over [`MAX_NAME_BYTES`](super::MAX_NAME_BYTES).
    #[error(
        "model name `{}` is {} bytes, over the {MAX_NAME_BYTES} a model name may have: use a shorter name",
        Shortened(name.trim()),
        name.trim().len()
    )]
    NameTooLong {
        /// The name.
        name: String,
    },
    /// One of the model's aliases is empty, or only spaces.
    #[error("`{model}` has an empty alias: remove it from the model's aliases")]
    EmptyAlias {
        /// The model's name.
        model: String,
    },
    /// One of the model's aliases is over [`MAX_NAME_BYTES`](super::MAX_NAME_BYTES).
    #[error(
        "alias `{}` of `{model}` is {} bytes, over the {MAX_NAME_BYTES} a model name may have: remove it",
        Shortened(alias.trim()),
        alias.trim().len()
    )]
    AliasTooLong {
        /// The model's name.
        model: String,
        /// The alias.
        alias: String,
    },
    /// One of the model's aliases is the name of another model of the catalogue.
    #[error(
        "alias `{alias}` of `{model}` is the name of `{owner}`: remove it (an alias never takes a model's name)"
    )]
    AliasIsName {
        /// The model's name.
        model: String,
        /// The alias.
        alias: String,
        /// The model the alias names.
        owner: String,
    },
}

impl Catalogue {
    /// A catalogue without any model.
    pub fn empty() -> Self {
        Catalogue::default()
    }

    /// Adds `model`, replacing the model of the same name if there is one, and
    /// returns the one replaced (whose aliases no longer find anything, unless `model`
    /// has them too). See [names and aliases](Self#names-and-aliases): `model`'s name
    /// and aliases find it from now on, also where they were aliases of another model.
    /// Aliases that repeat the name or another alias (case aside) are dropped.
    ///
    /// Each insert costs time in proportion to the aliases of the models involved,
    /// not to the size of the catalogue.
    ///
    /// # Errors
    ///
    /// [`InsertError`] for an empty name or alias, one over
    /// [`MAX_NAME_BYTES`](super::MAX_NAME_BYTES), or an alias that is the name of
    /// another model; the catalogue is then unchanged.
    pub fn insert(&mut self, mut model: Model) -> Result<Option<Model>, InsertError> {
        let name_key = key(model.name()).ok_or_else(|| InsertError::NameTooLong {
            name: model.name.clone(),
        })?;
        if name_key.is_empty() {
            return Err(InsertError::EmptyName);
        }
        let alias_keys = self.alias_keys(&mut model, &name_key)?;
        let at = self.models.len();
        // The common case, a new name: one hash of each key, through the entry.
        let replaced_at = match self.index.entry(name_key) {
            Entry::Vacant(vacant) => {
                vacant.insert(Slot { at, alias: None });
                self.models.push(model);
                None
            }
            Entry::Occupied(occupied) => {
                let (name_key, slot) = (occupied.key().clone(), *occupied.get());
                Some((name_key, slot, model))
            }
        };
        let mut replaced = None;
        let at = match replaced_at {
            None => at,
            Some((name_key, Slot { at, alias: None }, model)) => {
                self.unindex(at);
                replaced = Some(std::mem::replace(&mut self.models[at], model));
                self.index.insert(name_key, Slot { at, alias: None });
                at
            }
            Some((
                name_key,
                Slot {
                    at: owner,
                    alias: Some(position),
                },
                model,
            )) => {
                // A name beats an alias.
                self.remove_alias(owner, position);
                let at = self.models.len();
                self.models.push(model);
                self.index.insert(name_key, Slot { at, alias: None });
                at
            }
        };
        for (position, alias_key) in alias_keys.into_iter().enumerate() {
            let slot = Slot {
                at,
                alias: Some(position),
            };
            match self.index.entry(alias_key) {
                Entry::Vacant(vacant) => {
                    vacant.insert(slot);
                }
                Entry::Occupied(mut occupied) => {
                    // Another model's alias (`alias_keys` refused a name): it moves.
                    let previous = std::mem::replace(occupied.get_mut(), slot);
                    if let Slot {
                        at: owner,
                        alias: Some(other),
                    } = previous
                    {
                        self.remove_alias(owner, other);
                    }
                }
            }
        }
        Ok(replaced)
    }

    /// The keys of `model`'s aliases, with the aliases that repeat its name or an
    /// earlier alias removed from it; or why one cannot be inserted (`model` is then
    /// unchanged).
    fn alias_keys(&self, model: &mut Model, name_key: &str) -> Result<Vec<String>, InsertError> {
        /// Up to this many aliases, repeats are found by comparing each with the others.
        const FEW: usize = 8;
        let mut keys: Vec<String> = Vec::with_capacity(model.aliases.len());
        let mut seen: HashSet<String> = HashSet::new();
        let mut repeats = Vec::new();
        for (position, alias) in model.aliases.iter().enumerate() {
            let Some(alias_key) = key(alias) else {
                return Err(InsertError::AliasTooLong {
                    model: model.name.clone(),
                    alias: alias.clone(),
                });
            };
            if alias_key.is_empty() {
                return Err(InsertError::EmptyAlias {
                    model: model.name.clone(),
                });
            }
            if let Some(Slot { at, alias: None }) = self.index.get(&alias_key) {
                if alias_key != name_key {
                    return Err(InsertError::AliasIsName {
                        model: model.name.clone(),
                        alias: alias.clone(),
                        owner: self.models[*at].name.clone(),
                    });
                }
            }
            let repeat = alias_key == name_key
                || if model.aliases.len() <= FEW {
                    keys.contains(&alias_key)
                } else {
                    !seen.insert(alias_key.clone())
                };
            if repeat {
                repeats.push(position);
            } else {
                keys.push(alias_key);
            }
        }
        if !repeats.is_empty() {
            let mut position = 0;
            model.aliases.retain(|_| {
                position += 1;
                repeats.binary_search(&(position - 1)).is_err()
            });
        }
        Ok(keys)
    }

    /// Removes the name and aliases of the model at `at` from the index.
    fn unindex(&mut self, at: usize) {
        let model = &self.models[at];
        for name in std::iter::once(&model.name).chain(&model.aliases) {
            if let Some(name_key) = key(name) {
                self.index.remove(&name_key);
            }
        }
    }

    /// Removes the alias at `position` from the model at `at` (its key is left to the
    /// caller), moving its last alias into the gap.
    fn remove_alias(&mut self, at: usize, position: usize) {
        let aliases = &mut self.models[at].aliases;
        if position >= aliases.len() {
            return;
        }
        aliases.swap_remove(position);
        if let Some(moved) = aliases.get(position).and_then(|alias| key(alias)) {
            if let Some(slot) = self.index.get_mut(&moved) {
                slot.alias = Some(position);
            }
        }
    }

    /// Finds a model by name or alias, trying the forms of the name described in
    /// [the module docs](super): case and surrounding space aside, without a provider
    /// prefix, without a date or version suffix. The work is bounded: a name over
    /// [`MAX_NAME_BYTES`](super::MAX_NAME_BYTES) is refused, and a name has at most a
    /// few dozen forms.
    ///
    /// # Errors
    ///
    /// [`ModelNotFound`], with the closest names of this catalogue (none for a name
    /// over [`MAX_NAME_BYTES`](super::MAX_NAME_BYTES)).
    pub fn lookup(&self, name: &str) -> Result<&Model, ModelNotFound> {
        self.position(name)
            .map(|(at, _)| &self.models[at])
            .ok_or_else(|| ModelNotFound {
                name: name.to_owned(),
                suggestions: if name.trim().len() > MAX_NAME_BYTES {
                    Vec::new()
                } else {
                    closest(name, self.names())
                },
            })
    }

    /// Where the model [`lookup`](Self::lookup) finds is in `models`, and whether
    /// `name` is its name or alias as given (no other form tried).
    pub(super) fn position(&self, name: &str) -> Option<(usize, bool)> {
        let name_key = key(name)?;
        candidates(&name_key)
            .into_iter()
            .enumerate()
            .find_map(|(form, key)| self.index.get(key).map(|slot| (slot.at, form == 0)))
    }

    /// The model at `at` of `models`, to change fields other than its names (which
    /// the index holds).
    pub(super) fn numbers_mut(&mut self, at: usize) -> Option<&mut Model> {
        self.models.get_mut(at)
    }

    /// The model whose name or alias is `name` (case and surrounding space aside),
    /// with no other form tried, and whether `name` is one of its aliases.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))] // JSON entries use it.
    pub(super) fn find_exact(&self, name: &str) -> Option<(&Model, bool)> {
        let slot = self.index.get(&key(name)?)?;
        Some((&self.models[slot.at], slot.alias.is_some()))
    }

    /// The models, in the order they were added.
    pub fn models(&self) -> impl ExactSizeIterator<Item = &Model> {
        self.models.iter()
    }

    /// The number of models.
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Whether there are no models.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// Every name and alias, models in order.
    fn names(&self) -> impl Iterator<Item = &str> {
        self.models.iter().flat_map(|model| {
            std::iter::once(model.name()).chain(model.aliases().iter().map(String::as_str))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::EstimateProfile;
    use crate::models::{ApiFormat, ModelTokenizer, Provider};

    fn model(name: &str, aliases: &[&str]) -> Model {
        Model::new(
            name,
            Provider::Other,
            1000,
            ModelTokenizer::Estimate(EstimateProfile::Gemini),
            ApiFormat::Other,
        )
        .with_aliases(aliases.iter().copied())
    }

    fn names_of(catalogue: &Catalogue, name: &str) -> Option<String> {
        catalogue.lookup(name).ok().map(|m| m.name().to_owned())
    }

    /// Every key leads to a model that lists it, and every name and alias is a key.
    fn assert_consistent(catalogue: &Catalogue) {
        let mut keys = 0;
        for (at, model) in catalogue.models.iter().enumerate() {
            let name = key(model.name()).unwrap();
            assert_eq!(catalogue.index[&name], Slot { at, alias: None });
            for (position, alias) in model.aliases().iter().enumerate() {
                let alias = key(alias).unwrap();
                assert_eq!(
                    catalogue.index[&alias],
                    Slot {
                        at,
                        alias: Some(position)
                    },
                    "{alias}"
                );
            }
            keys += 1 + model.aliases().len();
        }
        assert_eq!(catalogue.index.len(), keys);
    }

    #[test]
    fn insert_replaces_by_name_and_takes_aliases_over() {
        let mut catalogue = Catalogue::empty();
        assert_eq!(catalogue.insert(model("a", &["x"])), Ok(None));
        assert_eq!(catalogue.insert(model("b", &[])), Ok(None));
        assert_eq!(catalogue.len(), 2);
        let replaced = catalogue.insert(model("A", &["y"]).with_context_window(5));
        assert_eq!(
            replaced.map(|m| m.map(|m| m.name().to_owned())),
            Ok(Some("a".to_owned()))
        );
        assert_eq!(catalogue.len(), 2);
        assert_eq!(catalogue.lookup("y").map(Model::context_window), Ok(5));
        assert!(
            catalogue.lookup("x").is_err(),
            "the replaced model's alias is gone"
        );
        // An alias given to a new model moves to it, and leaves the other one.
        catalogue.insert(model("c", &["b-alias", "y"])).unwrap();
        assert_eq!(names_of(&catalogue, "y").as_deref(), Some("c"));
        assert!(catalogue.lookup("A").unwrap().aliases().is_empty());
        assert_consistent(&catalogue);
    }

    #[test]
    fn an_alias_never_takes_a_name() {
        let mut catalogue = Catalogue::empty();
        catalogue.insert(model("big", &["large"])).unwrap();
        catalogue.insert(model("small", &[])).unwrap();
        let err = catalogue
            .insert(model("small", &["tiny", " BIG "]))
            .unwrap_err();
        assert_eq!(
            err,
            InsertError::AliasIsName {
                model: "small".to_owned(),
                alias: " BIG ".to_owned(),
                owner: "big".to_owned()
            }
        );
        // Refused as a whole: nothing changed.
        assert!(catalogue.lookup("tiny").is_err());
        assert_eq!(names_of(&catalogue, "big").as_deref(), Some("big"));
        // A following override by name changes the right model.
        catalogue
            .insert(model("big", &["large"]).with_context_window(7))
            .unwrap();
        assert_eq!(catalogue.lookup("big").map(Model::context_window), Ok(7));
        assert_eq!(
            catalogue.lookup("small").map(Model::context_window),
            Ok(1000)
        );
        assert_consistent(&catalogue);
    }

    #[test]
    fn a_name_beats_an_alias() {
        let mut catalogue = Catalogue::empty();
        catalogue
            .insert(model(
                "turbo",
                &["turbo-1106", "turbo-0125", "turbo-preview"],
            ))
            .unwrap();
        assert_eq!(
            catalogue.insert(model("Turbo-1106", &[]).with_context_window(9)),
            Ok(None)
        );
        assert_eq!(
            catalogue.lookup("turbo-1106").map(Model::context_window),
            Ok(9)
        );
        let turbo = catalogue.lookup("turbo").unwrap();
        assert_eq!(
            turbo.context_window(),
            1000,
            "the other model keeps its numbers"
        );
        assert_eq!(turbo.aliases(), ["turbo-preview", "turbo-0125"]);
        assert_eq!(
            names_of(&catalogue, "turbo-preview").as_deref(),
            Some("turbo")
        );
        assert_consistent(&catalogue);
    }

    #[test]
    fn names_no_lookup_could_find_are_refused() {
        let mut catalogue = Catalogue::empty();
        assert_eq!(
            catalogue.insert(model(" ", &[])),
            Err(InsertError::EmptyName)
        );
        assert_eq!(
            catalogue.insert(model("m", &["ok", "  "])),
            Err(InsertError::EmptyAlias {
                model: "m".to_owned()
            })
        );
        let long = "n".repeat(MAX_NAME_BYTES + 1);
        let err = catalogue.insert(model(&long, &[])).unwrap_err();
        assert!(matches!(err, InsertError::NameTooLong { .. }));
        assert!(err.to_string().contains("257 bytes, over the 256"), "{err}");
        assert!(err.to_string().len() < 160, "{err}");
        let err = catalogue.insert(model("m", &[&long])).unwrap_err();
        assert!(matches!(err, InsertError::AliasTooLong { .. }), "{err}");
        assert!(catalogue.is_empty());
        assert!(catalogue.index.is_empty());
        // Repeated aliases are dropped; one that repeats the name too.
        catalogue.insert(model("m", &["x", "X", "M", "y"])).unwrap();
        assert_eq!(catalogue.lookup("m").unwrap().aliases(), ["x", "y"]);
        assert_consistent(&catalogue);
    }

    #[test]
    fn the_builtin_catalogue_is_consistent() {
        assert_consistent(Catalogue::builtin());
    }

    #[test]
    fn replacing_one_model_many_times_keeps_the_index_exact() {
        // 40,000 overrides of one model used to scan every name each time.
        let mut catalogue = Catalogue::empty();
        for i in 0..2_000 {
            catalogue.insert(model(&format!("m{i}"), &[])).unwrap();
        }
        for i in 0..2_000 {
            let alias = format!("alias{}", i % 3);
            catalogue.insert(model("m0", &[&alias])).unwrap();
        }
        assert_eq!(catalogue.len(), 2_000);
        assert_eq!(names_of(&catalogue, "alias1").as_deref(), Some("m0"));
        assert!(catalogue.lookup("alias0").is_err());
        assert_consistent(&catalogue);
    }

    #[test]
    fn an_empty_catalogue_finds_nothing_and_suggests_nothing() {
        let err = Catalogue::empty().lookup("gpt-4o").unwrap_err();
        assert!(err.suggestions.is_empty());
        assert!(
            err.to_string()
                .starts_with("unknown model `gpt-4o`: the catalogue has no models"),
            "{err}"
        );
    }
}
