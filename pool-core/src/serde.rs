//! `Serialize` and `Deserialize` for [`Pooled`] (feature `serde`): decode
//! straight into a pooled object, the Rust form of Go's
//! `json.Unmarshal(buf, pooledObj)`.
//!
//! Decoding a `Pooled<T>` acquires an object from `T`'s pool and fills it
//! with [`Deserialize::deserialize_in_place`]. That method is serde's own,
//! stable and public (hidden from serde's rendered docs only because few
//! users call it directly), and every `T: Deserialize` has it:
//!
//! - serde implements it in place for `String` (cleared, then the text copied
//!   into the kept buffer), `Vec` and the other sequences (buffer kept),
//!   arrays up to 32 elements and tuples;
//! - `#[derive(Deserialize)]` generates a field-by-field version when the
//!   `deserialize_in_place` feature of `serde_derive` is on (this crate's
//!   `serde-in-place` feature);
//! - every other type gets serde's default, which decodes a fresh value and
//!   assigns it over the old one.
//!
//! So the route is never wrong, only more or less thrifty, and it needs
//! nothing from the user beyond `T: Deserialize`. The alternatives were
//! worse: a trait of our own (or a `DeserializeSeed` per type) would make
//! users derive a second decoder that serde_derive already writes, and
//! decoding a fresh `T` and moving it into the pooled object saves only the
//! object's box, never its buffers.
//!
//! A failed decode leaves the object half-filled (serde documents the state
//! after an error as unspecified but memory-safe). The guard is dropped
//! before the error is returned, so the object is reset and returned to the
//! pool like any other; the caller never sees it. Reset puts every field
//! back to its fresh state (except `#[pool(skip)]` fields, which keep
//! whatever they hold by design), so returning it is safe.
//!
//! [`ReuseVec`] is serialized as a sequence of its live elements and decoded
//! in place into its elements, live and kept, before it makes new ones
//! (`ReuseVec::refill` keeps its invariant): a `Vec`'s in-place decode keeps
//! its buffer but drops its elements at every reset, so a list of structs
//! with strings allocates each string again; a `ReuseVec`'s keeps them.
//!
//! The user-facing account, with what falls back to fresh allocation, is the
//! crate docs' "Decoding with serde" section.

use std::fmt;

use ::serde::{Deserialize, Deserializer, Serialize, Serializer};

use serde::de::{DeserializeSeed, SeqAccess, Visitor};

use crate::pool::declare::Poolable;
use crate::pool::guard::Pooled;
use crate::reset::Reset;
use crate::{Pool, PoolHandle, ReuseVec};

/// Serializes the object, as if it were not pooled.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! { static TAGS: Pool<Vec<String>> = Pool::new(Vec::new); }
///
/// let mut tags = TAGS.acquire();
/// tags.push("new".to_owned());
/// assert_eq!(serde_json::to_string(&tags)?, r#"["new"]"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<T: Reset + Send + Serialize + 'static> Serialize for Pooled<T> {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        T::serialize(self, serializer)
    }
}

/// Acquires an object from `T`'s pool ([`Poolable::acquire`]) and decodes
/// into it in place, so its `String` and `Vec` fields keep their buffers: a
/// warm decode whose values fit allocates nothing.
///
/// The fields of a `#[derive(Deserialize)]` struct are decoded in place
/// with the `serde-in-place` feature, which turns on serde_derive's
/// `deserialize_in_place` for every derive in the build; with `serde`
/// alone such a struct is decoded fresh and moved into the pooled object.
///
/// On an error the half-filled object is not returned: it is reset and goes
/// back to the pool, and the error is returned. The crate docs' "Decoding
/// with serde" section lists what is decoded in place and what is not.
///
/// ```
/// # #[cfg(all(feature = "derive", feature = "serde-in-place"))] {
/// use pool_core::{Poolable, Pooled};
/// use serde::Deserialize;
///
/// #[derive(Poolable, Default, Deserialize)]
/// struct Request {
///     method: String,
///     path: String,
/// }
///
/// let req: Pooled<Request> = serde_json::from_slice(br#"{"method": "GET", "path": "/index.html"}"#)?;
/// assert_eq!(req.path, "/index.html");
/// let buffer = req.path.as_ptr();
/// drop(req); // reset (buffers kept) and cached
///
/// let req: Pooled<Request> = serde_json::from_slice(br#"{"method": "PUT", "path": "/a"}"#)?;
/// assert_eq!(req.path, "/a");
/// assert_eq!(req.path.as_ptr(), buffer); // decoded into the same buffer
/// drop(req);
///
/// // A failed decode hands out nothing; the object goes back, reset.
/// assert!(serde_json::from_slice::<Pooled<Request>>(br#"{"method": 7}"#).is_err());
/// assert_eq!(Request::pool().stats().in_use(), 0);
/// assert!(Request::acquire().method.is_empty());
/// # }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, T: Poolable + Deserialize<'de>> Deserialize<'de> for Pooled<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::pool().deserialize(deserializer)
    }

    /// Decodes into the object the guard already holds, in place: what a
    /// `Vec<Pooled<T>>` does for the elements it keeps when decoded in place.
    fn deserialize_in_place<D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        T::deserialize_in_place(deserializer, &mut **place)
    }
}

/// The seeds `&Pool<T>` and `&PoolHandle<T>` (both stay: deref coercion
/// does not reach a generic `S: DeserializeSeed`), with one body, which
/// `Pooled<T>`'s `Deserialize` is too. On an error the guard is dropped by
/// the `?`, outside any panic: it resets the half-filled object and returns
/// it to the pool.
macro_rules! seeds {
    ($($(#[$doc:meta])* $pool:ident;)*) => {$(
        $(#[$doc])*
        #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
        impl<'de, T: Reset + Send + Deserialize<'de> + 'static> DeserializeSeed<'de> for &$pool<T> {
            type Value = Pooled<T>;

            fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Pooled<T>, D::Error> {
                let mut pooled = self.acquire();
                T::deserialize_in_place(deserializer, &mut *pooled)?;
                Ok(pooled)
            }
        }
    )*};
}

seeds! {
    /// Decodes into an object of this pool, in place: the way to decode into a
    /// pool declared with [`pool!`](crate::pool!), whose guard's type does not
    /// say which pool to take from (serde's `DeserializeSeed`, which `serde_json`
    /// and every serde format accept). An error hands out nothing, as for
    /// `Pooled<T>: Deserialize`.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    /// use serde::de::DeserializeSeed;
    ///
    /// pool! { static IDS: Pool<Vec<u64>> = Pool::new(Vec::new); }
    ///
    /// let mut de = serde_json::Deserializer::from_slice(b"[1, 2, 3]");
    /// let ids = (&IDS).deserialize(&mut de)?;
    /// de.end()?;
    /// assert_eq!(*ids, [1, 2, 3]);
    /// let buffer = ids.as_ptr();
    /// drop(ids);
    ///
    /// let mut de = serde_json::Deserializer::from_slice(b"[4]");
    /// let ids = (&IDS).deserialize(&mut de)?;
    /// assert_eq!(ids.as_ptr(), buffer); // the same buffer, decoded into
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    Pool;
    /// Decodes into an object of this run-time pool, in place, as `&Pool<T>`
    /// does (the handle dereferences to its pool, so `&*handle` is a seed
    /// too): a pool made with [`Pool::builder`](crate::Pool::builder) is a
    /// value, so the seed is a reference to its handle. An error hands out
    /// nothing.
    ///
    /// ```
    /// use pool_core::Pool;
    /// use serde::de::DeserializeSeed;
    ///
    /// let names = Pool::builder(|| String::with_capacity(64)).build();
    ///
    /// let mut de = serde_json::Deserializer::from_slice(br#""ada""#);
    /// let name = (&names).deserialize(&mut de)?;
    /// de.end()?;
    /// assert_eq!(*name, "ada");
    /// let buffer = name.as_ptr();
    /// drop(name);
    ///
    /// let mut de = serde_json::Deserializer::from_slice(br#""grace""#);
    /// let name = (&names).deserialize(&mut de)?;
    /// assert_eq!(name.as_ptr(), buffer); // the same buffer, decoded into
    /// drop(name);
    ///
    /// let mut de = serde_json::Deserializer::from_slice(b"7");
    /// assert!((&names).deserialize(&mut de).is_err());
    /// assert_eq!(names.stats().in_use(), 0); // the object went back
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    PoolHandle;
}

/// Serializes the live elements as a sequence, as a `Vec` is; the kept
/// ones are not data.
///
/// ```
/// let mut tags = pool_core::ReuseVec::from(vec![String::from("a"), String::from("b")]);
/// tags.truncate(1); // "b" kept, not data
/// assert_eq!(serde_json::to_string(&tags)?, r#"["a"]"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<T: Serialize> Serialize for ReuseVec<T> {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// Decodes a sequence. `deserialize_in_place`, which a pooled object's
/// decode and a `#[derive(Deserialize)]` struct's in-place decode call for
/// the field, writes each element into one the vector holds, live or kept,
/// with `T::deserialize_in_place`, and makes new elements only past them: a
/// warm decode of a `ReuseVec<String>` whose kept strings are long enough
/// allocates nothing. Elements it did not need are reset and kept.
///
/// `T: Reset`, because the elements a decode does not reach are kept.
///
/// ```
/// use pool_core::{Reset, ReuseVec};
/// use serde::Deserialize;
///
/// let mut tags: ReuseVec<String> = serde_json::from_str(r#"["urgent", "gift"]"#)?;
/// let buffer = tags[1].as_ptr();
/// tags.reset(); // empty, both strings kept
///
/// let mut de = serde_json::Deserializer::from_str(r#"["fragile", "gift"]"#);
/// ReuseVec::deserialize_in_place(&mut de, &mut tags)?;
/// assert_eq!(tags, ["fragile", "gift"]);
/// assert_eq!(tags[1].as_ptr(), buffer); // decoded into the kept string
/// # Ok::<(), serde_json::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, T: Deserialize<'de> + Reset> Deserialize<'de> for ReuseVec<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(deserializer).map(ReuseVec::from)
    }

    fn deserialize_in_place<D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        deserializer.deserialize_seq(InPlace(place))
    }
}

/// The visitor of [`ReuseVec`]'s in-place decode.
struct InPlace<'a, T>(&'a mut ReuseVec<T>);

impl<'de, T: Deserialize<'de> + Reset> Visitor<'de> for InPlace<'_, T> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.0.refill(seq)
    }
}
