//! [`Catalogue`]: the built-in models plus entries of your own.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::lookup::{candidates, closest, key};
use super::{Model, ModelNotFound, table};

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
/// catalogue.insert(gpt);
/// assert_eq!(catalogue.lookup("openai/gpt-4o-2024-11-20")?.context_window(), 64_000);
/// // The built-in catalogue is unchanged.
/// assert_eq!(Model::lookup("gpt-4o")?.context_window(), 128_000);
/// # Ok::<(), ctxbudget::models::ModelNotFound>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    models: Vec<Model>,
    /// Lower-cased names and aliases, to indices of `models`.
    index: HashMap<String, usize>,
}

static BUILTIN: LazyLock<Catalogue> = LazyLock::new(|| {
    let mut catalogue = Catalogue::empty();
    for model in table::models() {
        catalogue.insert(model);
    }
    catalogue
});

impl Catalogue {
    /// The built-in catalogue: every model of the table in [the module docs](super).
    pub fn builtin() -> &'static Catalogue {
        &BUILTIN
    }

    /// A copy of the built-in catalogue, to add entries to.
    pub fn new() -> Self {
        Self::builtin().clone()
    }

    /// A catalogue without any model.
    pub fn empty() -> Self {
        Catalogue::default()
    }

    /// Adds `model`, replacing the model of the same name if there is one, and
    /// returns the one replaced. Its name and aliases find it from now on, also where
    /// they were aliases of another model.
    pub fn insert(&mut self, model: Model) -> Option<Model> {
        let key = model.name().to_ascii_lowercase();
        let replaced = match self.index.get(&key) {
            Some(&at) if self.models[at].name().eq_ignore_ascii_case(model.name()) => {
                // The replaced model's aliases no longer find anything.
                self.index.retain(|_, known| *known != at);
                Some(std::mem::replace(&mut self.models[at], model))
            }
            _ => {
                self.models.push(model);
                None
            }
        };
        let at = self
            .models
            .iter()
            .position(|known| known.name().eq_ignore_ascii_case(&key))
            .unwrap_or(self.models.len() - 1);
        let model = &self.models[at];
        for name in std::iter::once(model.name()).chain(model.aliases().iter().map(String::as_str))
        {
            self.index.insert(name.to_ascii_lowercase(), at);
        }
        replaced
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
        let Some(name_key) = key(name) else {
            return Err(ModelNotFound {
                name: name.to_owned(),
                suggestions: Vec::new(),
            });
        };
        candidates(&name_key)
            .into_iter()
            .find_map(|form| self.index.get(form))
            .map(|&at| &self.models[at])
            .ok_or_else(|| ModelNotFound {
                name: name.to_owned(),
                suggestions: closest(name, self.names()),
            })
    }

    /// The model whose name or alias is `name` (case aside), with no other form tried.
    pub(super) fn find_exact(&self, name: &str) -> Option<&Model> {
        self.index
            .get(&name.trim().to_ascii_lowercase())
            .map(|&at| &self.models[at])
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

    #[test]
    fn insert_replaces_by_name_and_takes_aliases_over() {
        let mut catalogue = Catalogue::empty();
        assert!(catalogue.insert(model("a", &["x"])).is_none());
        assert!(catalogue.insert(model("b", &[])).is_none());
        assert_eq!(catalogue.len(), 2);
        let replaced = catalogue.insert(model("A", &["y"]).with_context_window(5));
        assert_eq!(replaced.map(|m| m.name().to_owned()), Some("a".to_owned()));
        assert_eq!(catalogue.len(), 2);
        assert_eq!(catalogue.lookup("y").map(Model::context_window), Ok(5));
        assert!(
            catalogue.lookup("x").is_err(),
            "the replaced model's alias is gone"
        );
        // An alias given to a new model moves to it.
        catalogue.insert(model("c", &["b-alias", "y"]));
        assert_eq!(catalogue.lookup("y").map(Model::name), Ok("c"));
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
