//! Budgets in config files (feature `serde`): [`ContextBudget`] reads from and writes
//! to `{"total": 8192, "layers": {"system": 512, "history": {"share": 0.5}}}`.
//!
//! A layer's value is a token count (`512`), `{"tokens": 512}`, or a share of the
//! window, `{"share": 0.25}`. Reading needs a self-describing format (JSON, TOML,
//! YAML): a layer's value is told apart by its shape.

use super::context::{ContextBudget, check_layers};
use super::reservation::{Reservation, Share};
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A share layer as written: `{"share": 0.25}`.
#[derive(serde::Serialize)]
struct ShareEntry {
    share: f64,
}

impl Serialize for ContextBudget {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Layers<'a>(&'a ContextBudget);
        impl Serialize for Layers<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for (name, reservation) in self.0.reservations() {
                    match reservation {
                        Reservation::Tokens(tokens) => map.serialize_entry(name, &tokens)?,
                        Reservation::Share(share) => {
                            map.serialize_entry(name, &ShareEntry { share: share.fraction() })?;
                        }
                    }
                }
                map.end()
            }
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("total", &self.total())?;
        map.serialize_entry("layers", &Layers(self))?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for ContextBudget {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(BudgetVisitor)
    }
}

struct BudgetVisitor;

impl<'de> Visitor<'de> for BudgetVisitor {
    type Value = ContextBudget;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a budget like {"total": 8192, "layers": {"system": 512}}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut total = None;
        let mut layers = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "total" => {
                    if total.is_some() {
                        return Err(de::Error::custom("duplicate field `total`"));
                    }
                    total = Some(map.next_value_seed(Tokens { field: "total" })?);
                }
                "layers" => {
                    if layers.is_some() {
                        return Err(de::Error::custom("duplicate field `layers`"));
                    }
                    layers = Some(map.next_value_seed(LayersSeed { total })?);
                }
                other => {
                    return Err(de::Error::custom(format_args!(
                        "unknown field `{other}`; a budget has `total` and `layers`"
                    )));
                }
            }
        }
        let total = total.ok_or_else(|| {
            de::Error::custom("missing field `total`: the window size in tokens")
        })?;
        // Layers read before `total` were only checked for their names and shares.
        ContextBudget::with_reservations(total, layers.unwrap_or_default())
            .map_err(de::Error::custom)
    }
}

/// The `layers` map, checked (names, shares, and the sum against `total` when
/// `total` came first) as soon as it ends, so that the error points at it.
struct LayersSeed {
    total: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for LayersSeed {
    type Value = Vec<(String, Reservation)>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LayersSeed {
    type Value = Vec<(String, Reservation)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map from layer name to its reservation in tokens")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut layers = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let field = format!("layers.{name}");
            let reservation = map.next_value_seed(ReservationSeed { field: &field })?;
            layers.push((name, reservation));
        }
        let shares: Vec<Option<Share>> = layers.iter().map(|(_, r)| r.share()).collect();
        let window = self.total.unwrap_or(0);
        let resolved: Vec<(&str, usize)> =
            layers.iter().map(|(name, r)| (name.as_str(), r.at(window))).collect();
        check_layers(self.total, &resolved, &shares).map_err(de::Error::custom)?;
        Ok(layers)
    }
}

/// A layer's reservation: a token count, `{"tokens": N}` or `{"share": F}`.
struct ReservationSeed<'f> {
    field: &'f str,
}

impl<'de> DeserializeSeed<'de> for ReservationSeed<'_> {
    type Value = Reservation;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Reservation, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Forwards a number to [`Tokens`], so a bare number reads exactly as before.
macro_rules! forward_to_tokens {
    ($($method:ident: $ty:ty),*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<Reservation, E> {
            Tokens { field: self.field }.$method(v).map(Reservation::Tokens)
        }
    )*};
}

impl<'de> Visitor<'de> for ReservationSeed<'_> {
    type Value = Reservation;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` as a token count such as 512, or a share of the window such as \
             {{\"share\": 0.25}}",
            self.field
        )
    }

    forward_to_tokens!(visit_u64: u64, visit_u128: u128, visit_i64: i64, visit_i128: i128, visit_f64: f64, visit_str: &str);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Reservation, A::Error> {
        let mut reservation = None;
        while let Some(key) = map.next_key::<String>()? {
            let value = match key.as_str() {
                "tokens" => {
                    let field = format!("{}.tokens", self.field);
                    Reservation::Tokens(map.next_value_seed(Tokens { field: &field })?)
                }
                "share" => {
                    let field = format!("{}.share", self.field);
                    Reservation::Share(map.next_value_seed(ShareSeed { field: &field })?)
                }
                other => {
                    return Err(de::Error::custom(format_args!(
                        "unknown field `{other}` in `{}`; a layer reserves `{{\"tokens\": 512}}` \
                         or `{{\"share\": 0.25}}`",
                        self.field
                    )));
                }
            };
            if reservation.replace(value).is_some() {
                return Err(de::Error::custom(format_args!(
                    "`{}` has both `tokens` and `share` (or one twice); give the layer one \
                     reservation",
                    self.field
                )));
            }
        }
        reservation.ok_or_else(|| {
            de::Error::custom(format_args!(
                "`{}` is empty; write `{{\"tokens\": 512}}` or `{{\"share\": 0.25}}`",
                self.field
            ))
        })
    }
}

/// A share of the window: a number from 0 to 1. Errors name the field being read.
struct ShareSeed<'f> {
    field: &'f str,
}

impl<'de> DeserializeSeed<'de> for ShareSeed<'_> {
    type Value = Share;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Share, D::Error> {
        deserializer.deserialize_f64(self)
    }
}

impl ShareSeed<'_> {
    fn share<E: de::Error>(&self, value: f64) -> Result<Share, E> {
        Share::new(value).map_err(|_| {
            E::custom(format_args!(
                "`{}` is {value}: a share of the window is a number from 0 to 1, such as 0.25",
                self.field
            ))
        })
    }
}

impl Visitor<'_> for ShareSeed<'_> {
    type Value = Share;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` as a number from 0 to 1, such as 0.25", self.field)
    }

    // 0 and 1 read as integers in JSON and TOML; the casts are exact for them, and
    // any other integer is out of range whatever the rounding.
    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Share, E> {
        self.share(v as f64)
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Share, E> {
        self.share(v as f64)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Share, E> {
        self.share(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Share, E> {
        Err(E::custom(format_args!(
            "`{}` is the string {v:?}: a share must be a number; remove the quotes",
            self.field
        )))
    }
}

/// A token count: a non-negative integer that fits in `usize`. Errors name the
/// field being read.
struct Tokens<'f> {
    field: &'f str,
}

impl<'de> DeserializeSeed<'de> for Tokens<'_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_u64(self)
    }
}

impl Tokens<'_> {
    fn negative<E: de::Error>(&self, value: impl fmt::Display) -> E {
        E::custom(format_args!(
            "`{}` is {value}: a token count cannot be negative; use 0 or more",
            self.field
        ))
    }
    fn too_large<E: de::Error>(&self, value: impl fmt::Display) -> E {
        E::custom(format_args!(
            "`{}` is {value}: a token count must be at most {}",
            self.field,
            usize::MAX
        ))
    }
}

impl Visitor<'_> for Tokens<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` as a non-negative integer token count", self.field)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
        self.visit_u128(v.into())
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<usize, E> {
        usize::try_from(v).map_err(|_| self.too_large(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<usize, E> {
        self.visit_i128(v.into())
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<usize, E> {
        if v < 0 {
            return Err(self.negative(v));
        }
        usize::try_from(v).map_err(|_| self.too_large(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<usize, E> {
        if v < 0.0 {
            return Err(self.negative(v));
        }
        // `usize::MAX as f64` rounds up to 2^64 (or 2^32): every float at or
        // above it, infinity included, is too large (JSON reads integers past u64
        // as floats). NaN is not, and falls through to "a whole number".
        #[allow(clippy::cast_precision_loss)]
        if v >= usize::MAX as f64 {
            return Err(self.too_large(v));
        }
        if v.fract() == 0.0 {
            return Err(E::custom(format_args!(
                "`{}` is the float {v:?}: a token count must be an integer; write {v} \
                 without the decimal point",
                self.field
            )));
        }
        Err(E::custom(format_args!(
            "`{}` is {v}: a token count must be a whole number; round it to an integer",
            self.field
        )))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        Err(E::custom(format_args!(
            "`{}` is the string {v:?}: a token count must be a number; remove the quotes",
            self.field
        )))
    }
}
