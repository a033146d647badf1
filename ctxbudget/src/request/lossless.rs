//! The serde machinery behind the lossless request types of every format:
//! [`RawJson`] and [`Fields`] keep what ctxbudget does not read as the exact JSON
//! text it was, [`WireObject`] reads and writes an object key by key, [`JsonArray`]
//! reads a format's list of messages, and the `wire_struct!` macro writes the
//! objects whose known fields are all optional.
//!
//! Objects are read key by key, in one pass: a known key is parsed into its typed
//! field, any other key is kept as [`RawJson`] in [`Fields`]. A known key whose value
//! is `null` is remembered, so that it is written back as `null` rather than left
//! out. Objects are written known fields first, in declaration order, then the other
//! fields in the order they came: the JSON *value* is the same, the key order may not
//! be.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A JSON value kept as the exact text it was read from, never parsed into a tree:
/// what ctxbudget keeps of the fields and parts it does not read.
///
/// Two `RawJson` are equal when their texts are (`{"a":1}` and `{ "a": 1 }` are
/// not); compare [`to_value`](RawJson::to_value)s to compare values.
///
/// ```
/// use ctxbudget::request::openai::RawJson;
///
/// let raw = RawJson::from_value(&serde_json::json!({"temperature": 0.2}))?;
/// assert_eq!(raw.get(), r#"{"temperature":0.2}"#);
/// assert_eq!(raw.to_value()?["temperature"], 0.2);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// Parses `json`, keeping its text.
    ///
    /// # Errors
    ///
    /// When `json` is not one JSON value.
    pub fn from_json(json: impl Into<String>) -> Result<Self, serde_json::Error> {
        RawValue::from_string(json.into()).map(Self)
    }

    /// Serializes `value` to compact JSON text.
    ///
    /// # Errors
    ///
    /// When `value` cannot be serialized to JSON (a map with non-string keys, ...).
    pub fn from_value<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(Self)
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Parses the text into a [`serde_json::Value`].
    ///
    /// # Errors
    ///
    /// Never for a `RawJson` (its text is valid JSON) unless it nests deeper than
    /// `serde_json`'s recursion limit.
    pub fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// Deserializes the text as `T`.
    ///
    /// # Errors
    ///
    /// When the value is not a `T`.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// The `serde_json` raw value.
    pub fn into_inner(self) -> Box<RawValue> {
        self.0
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> Self {
        Self(raw)
    }
}

impl Deref for RawJson {
    type Target = RawValue;

    fn deref(&self) -> &RawValue {
        &self.0
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RawJson {}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Self)
    }
}

/// The fields of a JSON object that ctxbudget does not read, in the order they came,
/// each kept as its exact JSON text: written back as they were.
///
/// A JSON object may repeat a key; `Fields` keeps every occurrence (and writes them
/// all back), and [`get`](Fields::get) answers the last one, as JSON parsers do.
///
/// ```
/// use ctxbudget::request::openai::ChatRequest;
///
/// let request = ChatRequest::from_json(
///     r#"{"model": "gpt-4o", "messages": [], "temperature": 0.2, "top_p": 0.9}"#,
/// )?;
/// assert_eq!(request.extra.get("temperature").map(|t| t.get()), Some("0.2"));
/// let keys: Vec<&str> = request.extra.iter().map(|(key, _)| key).collect();
/// assert_eq!(keys, ["temperature", "top_p"]);
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(Vec<(String, RawJson)>);

impl Fields {
    /// No fields.
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// The number of fields (a repeated key counts each time).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `key` (the last one, when the key is repeated).
    pub fn get(&self, key: &str) -> Option<&RawJson> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether `key` is there.
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// Sets `key` to `value`: replaces it where it was (every occurrence goes but the
    /// first, which takes the new value), or adds it at the end. Returns the value it
    /// had.
    pub fn insert(&mut self, key: impl Into<String>, value: RawJson) -> Option<RawJson> {
        let key = key.into();
        let Some(first) = self.0.iter().position(|(k, _)| *k == key) else {
            self.0.push((key, value));
            return None;
        };
        let old = self.remove(&key);
        self.0.insert(first, (key, value));
        old
    }

    /// Removes `key` (every occurrence); returns its value (the last one).
    pub fn remove(&mut self, key: &str) -> Option<RawJson> {
        let mut old = None;
        self.0.retain_mut(|(k, v)| {
            if k == key {
                old = Some(v.clone());
                false
            } else {
                true
            }
        });
        old
    }

    /// The fields in order, with their raw values.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &RawJson)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub(crate) fn push(&mut self, key: String, value: RawJson) {
        self.0.push((key, value));
    }

    /// Writes the fields into an object being serialized.
    pub(crate) fn write<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        Ok(())
    }
}

impl<'a> IntoIterator for &'a Fields {
    type Item = (&'a str, &'a RawJson);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, RawJson)>,
        fn(&'a (String, RawJson)) -> (&'a str, &'a RawJson),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Written as a JSON object of its fields.
impl Serialize for Fields {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        self.write(&mut map)?;
        map.end()
    }
}

/// Read from any JSON object.
impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ObjectVisitor::<Fields>(PhantomData))
    }
}

impl WireObject for Fields {
    type Partial = Self;
    const EXPECTING: &'static str = "a JSON object";

    fn read_field<'de, D: Deserializer<'de>>(
        partial: &mut Self,
        key: &str,
        value: D,
    ) -> Result<(), D::Error> {
        partial.push(key.to_owned(), RawJson::deserialize(value)?);
        Ok(())
    }

    fn finish<E: de::Error>(partial: Self) -> Result<Self, E> {
        Ok(partial)
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        self.write(map)
    }
}

/// Which known fields of an object were `null` in the input (the field is `None`),
/// so that they are written back as `null` rather than left out.
///
/// Setting such a field to `Some` writes the new value; to leave a `None` field out
/// of the output instead, [`clear`](NullFields::clear) this.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NullFields(u64);

impl NullFields {
    /// Whether no known field was `null`.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Forgets which fields were `null`: a `None` field is then left out.
    pub fn clear(&mut self) {
        self.0 = 0;
    }

    fn bit(keys: &[&str], key: &str) -> u64 {
        keys.iter()
            .position(|k| *k == key)
            .filter(|&i| i < 64)
            .map_or(0, |i| 1 << i)
    }

    pub(crate) fn set(&mut self, keys: &[&str], key: &str) {
        self.0 |= Self::bit(keys, key);
    }

    pub(crate) fn has(self, keys: &[&str], key: &str) -> bool {
        self.0 & Self::bit(keys, key) != 0
    }
}

/// An object read key by key: `Partial` collects the fields, `finish` checks what is
/// required.
pub(crate) trait WireObject: Sized {
    /// What is built while the keys come.
    type Partial: Default;
    /// What serde's errors say was expected.
    const EXPECTING: &'static str;

    /// Reads the value of `key`: into its typed field when the key is known, into
    /// the other fields when not.
    fn read_field<'de, D: Deserializer<'de>>(
        partial: &mut Self::Partial,
        key: &str,
        value: D,
    ) -> Result<(), D::Error>;

    /// The object, once every key is read.
    fn finish<E: de::Error>(partial: Self::Partial) -> Result<Self, E>;

    /// Writes every field: known ones in order, then the others.
    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
}

/// Reads a [`WireObject`] from a JSON object.
pub(crate) struct ObjectVisitor<T>(pub(crate) PhantomData<T>);

impl<'de, T: WireObject> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut partial = T::Partial::default();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            map.next_value_seed(FieldSeed::<T> {
                partial: &mut partial,
                key: &key,
            })?;
        }
        T::finish(partial)
    }
}

/// Deserializes a [`WireObject`].
pub(crate) fn deserialize_object<'de, T: WireObject, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(ObjectVisitor::<T>(PhantomData))
}

/// Serializes a [`WireObject`] as a JSON object, with `leading` fields first (the
/// `type` of a content part).
pub(crate) fn serialize_object<T: WireObject, S: Serializer>(
    object: &T,
    leading: &[(&str, &str)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    for (key, value) in leading {
        map.serialize_entry(key, value)?;
    }
    object.write_fields(&mut map)?;
    map.end()
}

/// Reads the value of one key into a [`WireObject`]'s partial.
pub(crate) struct FieldSeed<'a, T: WireObject> {
    pub(crate) partial: &'a mut T::Partial,
    pub(crate) key: &'a str,
}

impl<'de, T: WireObject> DeserializeSeed<'de> for FieldSeed<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        T::read_field(self.partial, self.key, deserializer)
    }
}

/// Reads an object key, borrowed from the input when it has no escapes.
pub(crate) struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// Reads the value of a known, optional key: `null` is remembered in `nulls`; a key
/// given twice is an error (as serde's derive makes it).
pub(crate) fn read_optional<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    slot: &mut Option<T>,
    nulls: &mut NullFields,
    keys: &[&str],
    key: &'static str,
    value: D,
) -> Result<(), D::Error> {
    if slot.is_some() || nulls.has(keys, key) {
        return Err(de::Error::duplicate_field(key));
    }
    match Option::<T>::deserialize(value)? {
        Some(v) => *slot = Some(v),
        None => nulls.set(keys, key),
    }
    Ok(())
}

/// Writes a known, optional key: its value, or `null` when it was `null` in the
/// input and is still unset, or nothing.
pub(crate) fn write_optional<M: SerializeMap, T: Serialize>(
    map: &mut M,
    slot: Option<&T>,
    nulls: NullFields,
    keys: &[&str],
    key: &'static str,
) -> Result<(), M::Error> {
    match slot {
        Some(value) => map.serialize_entry(key, value),
        None if nulls.has(keys, key) => map.serialize_entry(key, &()),
        None => Ok(()),
    }
}

/// Defines a JSON object whose known fields are all optional, with its lossless
/// serde impls: `pub struct Name("what errors expected") { field: Type = "key", }`.
macro_rules! wire_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident($expecting:literal) {
            $(
                $(#[$field_meta:meta])*
                $field:ident: $ty:ty = $key:literal,
            )*
        }
    ) => {
        $(#[$meta])*
        ///
        /// Every known field is optional: `None` when the key is absent or `null` (a
        /// `null` is written back as `null`). Other fields are kept in
        /// [`extra`](Self::extra).
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct $name {
            $(
                $(#[$field_meta])*
                pub $field: Option<$ty>,
            )*
            /// The fields ctxbudget does not read, kept as they were.
            pub extra: $crate::request::lossless::Fields,
            /// The known fields that were `null`.
            pub nulls: $crate::request::lossless::NullFields,
        }

        impl $name {
            const KEYS: &'static [&'static str] = &[$($key),*];
        }

        impl $crate::request::lossless::WireObject for $name {
            type Partial = Self;
            const EXPECTING: &'static str = $expecting;

            fn read_field<'de, D: ::serde::Deserializer<'de>>(
                partial: &mut Self,
                key: &str,
                value: D,
            ) -> Result<(), D::Error> {
                match key {
                    $(
                        $key => $crate::request::lossless::read_optional(
                            &mut partial.$field,
                            &mut partial.nulls,
                            Self::KEYS,
                            $key,
                            value,
                        ),
                    )*
                    _ => {
                        let raw = <$crate::request::lossless::RawJson as ::serde::Deserialize>::deserialize(value)?;
                        partial.extra.push(key.to_owned(), raw);
                        Ok(())
                    }
                }
            }

            fn finish<E: ::serde::de::Error>(partial: Self) -> Result<Self, E> {
                Ok(partial)
            }

            fn write_fields<M: ::serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
                $(
                    $crate::request::lossless::write_optional(
                        map,
                        self.$field.as_ref(),
                        self.nulls,
                        Self::KEYS,
                        $key,
                    )?;
                )*
                self.extra.write(map)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::request::lossless::deserialize_object(deserializer)
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::request::lossless::serialize_object(self, &[], serializer)
            }
        }
    };
}

pub(crate) use wire_struct;

/// An element of the array a format's messages come in: what the array is, for
/// serde's "expected ..." of a body whose array is something else.
pub(crate) trait ArrayElement {
    /// What the array is: "`messages` as an array of message objects".
    const ARRAY: &'static str;
}

/// A JSON array of `T`, read element by element (without trusting a size hint
/// over 4,096).
pub(crate) struct JsonArray<T>(pub(crate) Vec<T>);

impl<'de, T: ArrayElement + Deserialize<'de>> Deserialize<'de> for JsonArray<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(ArrayVisitor(PhantomData))
    }
}

struct ArrayVisitor<T>(PhantomData<T>);

impl<'de, T: ArrayElement + Deserialize<'de>> Visitor<'de> for ArrayVisitor<T> {
    type Value = JsonArray<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::ARRAY)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonArray<T>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element::<T>()? {
            items.push(item);
        }
        Ok(JsonArray(items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    wire_struct! {
        /// A test object.
        pub struct Probe("a probe object") {
            /// A string.
            name: String = "name",
            /// A number.
            size: u32 = "size",
        }
    }

    fn round_trip(json: &str) -> String {
        let probe: Probe = serde_json::from_str(json).unwrap();
        serde_json::to_string(&probe).unwrap()
    }

    #[test]
    fn known_unknown_and_null_fields_round_trip() {
        assert_eq!(
            round_trip(r#"{"x": [1, 2], "name": "a", "size": null}"#),
            r#"{"name":"a","size":null,"x":[1, 2]}"#
        );
        assert_eq!(round_trip("{}"), "{}");
        let probe: Probe = serde_json::from_str(r#"{"size": 3}"#).unwrap();
        assert_eq!((probe.name, probe.size), (None, Some(3)));
    }

    #[test]
    fn repeated_known_keys_are_an_error_and_unknown_ones_are_kept() {
        let err = serde_json::from_str::<Probe>(r#"{"name": "a", "name": "b"}"#).unwrap_err();
        assert!(err.to_string().contains("duplicate field `name`"), "{err}");
        let err = serde_json::from_str::<Probe>(r#"{"name": null, "name": "b"}"#).unwrap_err();
        assert!(err.to_string().contains("duplicate field"), "{err}");
        assert_eq!(round_trip(r#"{"k": 1, "k": 2}"#), r#"{"k":1,"k":2}"#);
        let probe: Probe = serde_json::from_str(r#"{"k": 1, "k": 2}"#).unwrap();
        assert_eq!(probe.extra.get("k").map(RawJson::get), Some("2"));
    }

    #[test]
    fn wrong_types_say_where() {
        let err = serde_json::from_str::<Probe>("{\"name\":\n 5}").unwrap_err();
        assert_eq!(err.line(), 2);
        assert!(err.to_string().contains("expected a string"), "{err}");
        let err = serde_json::from_str::<Probe>("[]").unwrap_err();
        assert!(err.to_string().contains("a probe object"), "{err}");
    }

    #[test]
    fn fields_insert_and_remove() {
        let mut fields: Fields = serde_json::from_str(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(fields.len(), 3);
        let old = fields.insert("a", RawJson::from_json("9").unwrap());
        assert_eq!(old.map(|v| v.get().to_owned()), Some("3".to_owned()));
        assert_eq!(serde_json::to_string(&fields).unwrap(), r#"{"a":9,"b":2}"#);
        assert!(
            fields
                .insert("c", RawJson::from_json("true").unwrap())
                .is_none()
        );
        assert_eq!(
            fields.remove("b").map(|v| v.get().to_owned()),
            Some("2".into())
        );
        assert!(!fields.contains_key("b"));
        assert_eq!(
            serde_json::to_string(&fields).unwrap(),
            r#"{"a":9,"c":true}"#
        );
        assert!(RawJson::from_json("{").is_err());
    }

    #[test]
    fn nulls_ignore_unknown_keys() {
        let mut nulls = NullFields::default();
        nulls.set(&["a", "b"], "zzz");
        assert_eq!(nulls, NullFields::default());
        nulls.set(&["a", "b"], "b");
        assert!(nulls.has(&["a", "b"], "b") && !nulls.has(&["a", "b"], "a"));
    }
}
