//! The seeds' JSON bodies and the in-place decoders of workload 4, and
//! the nested request of `json_nested`: an [`Order`] of ten [`LineItem`]s.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// What Go's `json.Marshal` makes of seed 000's `Person{Name: "萌哦科技",
/// Age: 25}` (a `[2048]byte` encodes as an array of numbers).
pub fn body_000() -> Vec<u8> {
    go_json("萌哦科技", 25, 2048)
}

/// Seed 001's `Student{Name: "lxy", Age: 18}`, `Remark [1024]byte`.
pub fn body_001() -> Vec<u8> {
    go_json("lxy", 18, 1024)
}

/// The JSON Go's `json.Marshal` makes of a `{Name, Age, Remark [remark]byte}`
/// whose remark is all zeros.
pub fn go_json(name: &str, age: i32, remark: usize) -> Vec<u8> {
    let zeros = vec!["0"; remark].join(",");
    format!(r#"{{"Name":"{name}","Age":{age},"Remark":[{zeros}]}}"#).into_bytes()
}

/// Deserializes a JSON array of numbers into `[u8; N]` (serde derives
/// arrays up to 32 only). Like Go, a shorter array leaves zeros, a longer
/// one is cut.
pub fn array<'de, D: Deserializer<'de>, const N: usize>(de: D) -> Result<[u8; N], D::Error> {
    let mut bytes = [0; N];
    BytesInPlace(&mut bytes).deserialize(de)?;
    Ok(bytes)
}

/// Decodes a JSON array of numbers into a byte slice in place.
pub struct BytesInPlace<'a>(pub &'a mut [u8]);

impl<'de> DeserializeSeed<'de> for BytesInPlace<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BytesInPlace<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of at most {} bytes", self.0.len())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut filled = 0;
        for slot in self.0.iter_mut() {
            match seq.next_element()? {
                Some(byte) => *slot = byte,
                None => break,
            }
            filled += 1;
        }
        self.0[filled..].fill(0);
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// Decodes into `T` in place with `T::deserialize_in_place`.
pub struct InPlace<'a, T>(pub &'a mut T);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for InPlace<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        T::deserialize_in_place(de, self.0)
    }
}

/// A HAND-WRITTEN field-by-field `deserialize_in_place` for `Person` and
/// `Student`: what serde_derive generates when its `deserialize_in_place`
/// feature is on, as it is here (pool-core's `serde` feature turns it on;
/// variant `pooled_derive`), except for `Remark`, which the derive decodes
/// to a fresh array and copies in (`deserialize_with`). This one decodes
/// `Name` into the existing `String` (serde's
/// `String::deserialize_in_place`: clear, then push, so the buffer is
/// kept), `Age` by value and `Remark` into the existing array (variant
/// `pooled`).
///
/// Like the derive: unknown keys are skipped, a missing or repeated field
/// is an error.
pub fn fields_in_place<'de, D: Deserializer<'de>>(
    de: D,
    name: &mut String,
    age: &mut i32,
    remark: &mut [u8],
) -> Result<(), D::Error> {
    /// The keys, decoded from borrowed or owned strings without allocating.
    enum Key {
        Name,
        Age,
        Remark,
        Other,
    }

    impl<'de> Deserialize<'de> for Key {
        fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
            struct KeyVisitor;
            impl Visitor<'_> for KeyVisitor {
                type Value = Key;

                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a field name")
                }

                fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                    Ok(match key {
                        "Name" => Key::Name,
                        "Age" => Key::Age,
                        "Remark" => Key::Remark,
                        _ => Key::Other,
                    })
                }
            }
            de.deserialize_identifier(KeyVisitor)
        }
    }

    struct Fields<'a> {
        name: &'a mut String,
        age: &'a mut i32,
        remark: &'a mut [u8],
    }

    impl<'de> Visitor<'de> for Fields<'_> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object with Name, Age and Remark")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = [false; 3];
            let mut first = |index: usize, field: &'static str| {
                if std::mem::replace(&mut seen[index], true) {
                    Err(de::Error::duplicate_field(field))
                } else {
                    Ok(())
                }
            };
            while let Some(key) = map.next_key::<Key>()? {
                match key {
                    Key::Name => {
                        first(0, "Name")?;
                        map.next_value_seed(InPlace(&mut *self.name))?;
                    }
                    Key::Age => {
                        first(1, "Age")?;
                        *self.age = map.next_value()?;
                    }
                    Key::Remark => {
                        first(2, "Remark")?;
                        map.next_value_seed(BytesInPlace(&mut *self.remark))?;
                    }
                    Key::Other => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            for (seen, field) in seen.iter().zip(FIELDS) {
                if !seen {
                    return Err(de::Error::missing_field(field));
                }
            }
            Ok(())
        }
    }

    const FIELDS: &[&str] = &["Name", "Age", "Remark"];
    de.deserialize_struct("Person", FIELDS, Fields { name, age, remark })
}

#[path = "../../tests/support/order.rs"]
mod order;
pub use order::{LineItem, Order, VecLineItem, VecOrder, order_body};
