//! [`Extras`]: the fields ctxbudget does not model, kept as their JSON text, and the
//! helpers the hand-written `Deserialize` impls share.

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess};
use serde::ser::SerializeMap;
use serde_json::value::RawValue;

/// Fields of a JSON object that ctxbudget does not model, in their order, each kept
/// as its exact JSON text: they are written back as they were read.
///
/// `cache_control`, `citations`, `is_error`, `signature`, a document's `title`, a
/// request's `temperature` or `tool_choice`, and fields the API gains later all live
/// here.
///
/// ```
/// use ctxbudget::request::anthropic::MessagesRequest;
///
/// let request = MessagesRequest::from_json(
///     r#"{"model": "claude-sonnet-4-5", "max_tokens": 1024, "temperature": 0.2,
///         "messages": [{"role": "user", "content": "Hi"}]}"#,
/// )?;
/// assert_eq!(request.extra.get("temperature").map(|v| v.get()), Some("0.2"));
/// # Ok::<(), ctxbudget::request::RequestError>(())
/// ```
#[derive(Clone, Default)]
pub struct Extras(Vec<(String, Box<RawValue>)>);

impl Extras {
    /// No fields.
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// The JSON text of the field `key`, if the object has it.
    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| &**v)
    }

    /// Whether the object has the field `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// Sets the field `key` to `value` (JSON text), in place when it is already
    /// there, at the end otherwise; returns the previous value.
    pub fn insert(
        &mut self,
        key: impl Into<String>,
        value: Box<RawValue>,
    ) -> Option<Box<RawValue>> {
        let key = key.into();
        if let Some((_, slot)) = self.0.iter_mut().find(|(k, _)| *k == key) {
            return Some(std::mem::replace(slot, value));
        }
        self.0.push((key, value));
        None
    }

    /// Removes the field `key`; returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Box<RawValue>> {
        let index = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(index).1)
    }

    /// The fields, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &RawValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), &**v))
    }

    /// How many fields there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds a field read from the input; a second field of the same name is an
    /// error, as in serde's derived impls.
    pub(super) fn push_read<E: de::Error>(
        &mut self,
        key: String,
        value: Box<RawValue>,
    ) -> Result<(), E> {
        if self.contains_key(&key) {
            return Err(duplicate(&key));
        }
        self.0.push((key, value));
        Ok(())
    }

    /// Writes every field into `map`, except those named in `set`: modelled fields
    /// that have a value now (a `null` kept here for one of them is stale).
    pub(super) fn serialize_into<M: SerializeMap>(
        &self,
        map: &mut M,
        set: &[&str],
    ) -> Result<(), M::Error> {
        for (key, value) in &self.0 {
            if !set.contains(&key.as_str()) {
                map.serialize_entry(key, value)?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Extras {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(k, v)| (k, v.get())))
            .finish()
    }
}

impl PartialEq for Extras {
    /// Equal when the same fields have the same JSON text, in the same order.
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&other.0)
                .all(|((ka, va), (kb, vb))| ka == kb && va.get() == vb.get())
    }
}

impl Eq for Extras {}

/// `null`, as stored for a modelled optional field that the input set to `null`.
pub(super) fn null() -> Box<RawValue> {
    RawValue::from_string("null".to_owned()).unwrap_or_else(|_| unreachable!("`null` is JSON"))
}

pub(super) fn duplicate<E: de::Error>(key: &str) -> E {
    E::custom(format_args!("duplicate field `{key}`"))
}

pub(super) fn missing<E: de::Error>(field: &str, what: &str) -> E {
    E::custom(format_args!("missing field `{field}` in {what}"))
}

/// The value of one field of an object being read: still in the input (the usual
/// case), or already read as JSON text (fields that came before a block's `type`).
pub(super) enum FieldValue<'a, A> {
    Live(&'a mut A),
    Raw(Box<RawValue>),
}

impl<'de, A: MapAccess<'de>> FieldValue<'_, A> {
    /// Reads the value as a `T`.
    pub(super) fn parse<T: DeserializeOwned>(self) -> Result<T, A::Error> {
        match self {
            FieldValue::Live(map) => map.next_value(),
            FieldValue::Raw(raw) => serde_json::from_str(raw.get()).map_err(de::Error::custom),
        }
    }

    /// Reads the value through `reader`.
    pub(super) fn parse_with<R, T>(self, reader: R) -> Result<T, A::Error>
    where
        R: for<'x> DeserializeSeed<'x, Value = T>,
    {
        match self {
            FieldValue::Live(map) => map.next_value_seed(reader),
            FieldValue::Raw(raw) => reader
                .deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
                .map_err(de::Error::custom),
        }
    }

    /// Keeps the value as JSON text.
    pub(super) fn raw(self) -> Result<Box<RawValue>, A::Error> {
        match self {
            FieldValue::Live(map) => map.next_value(),
            FieldValue::Raw(raw) => Ok(raw),
        }
    }
}

/// Reads a required field into `slot`; a second one is an error.
pub(super) fn required<'de, A, T>(
    slot: &mut Option<T>,
    key: &str,
    value: FieldValue<'_, A>,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: DeserializeOwned,
{
    if slot.is_some() {
        return Err(duplicate(key));
    }
    *slot = Some(value.parse()?);
    Ok(())
}

/// Reads an optional field into `slot`; `null` goes to `extra` instead, so that it
/// is written back as `null` (absent and `null` stay different).
pub(super) fn optional<'de, A, T>(
    slot: &mut Option<T>,
    key: &str,
    value: FieldValue<'_, A>,
    extra: &mut Extras,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: DeserializeOwned,
{
    if slot.is_some() || extra.contains_key(key) {
        return Err(duplicate(key));
    }
    match value.parse::<Option<T>>()? {
        Some(v) => *slot = Some(v),
        None => extra.0.push((key.to_owned(), null())),
    }
    Ok(())
}
