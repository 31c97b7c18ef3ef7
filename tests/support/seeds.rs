//! The seeds' JSON workload, shared by the tests that count what decoding
//! it allocates (`serde_alloc.rs`, `nested_decode.rs`): seed 000's
//! `Person{Name, Age, Remark [2048]byte}` and its payload.

use pool_core::Poolable;
use serde::{Deserialize, Serialize};

/// The seeds' `Person`. serde implements `Deserialize` for arrays of up to
/// 32 elements only, so `remark` goes through `bytes_2048`; as the crate
/// docs say, such a field is decoded to a value and assigned (a copy, no
/// allocation).
#[derive(Poolable, Serialize, Deserialize, Debug, PartialEq)]
#[pool(new = Person::new)]
pub(crate) struct Person {
    pub(crate) name: String,
    pub(crate) age: i32,
    #[serde(with = "bytes_2048")]
    pub(crate) remark: [u8; 2048],
}

impl Person {
    pub(crate) fn new() -> Self {
        Person {
            name: String::new(),
            age: 0,
            remark: [0; 2048],
        }
    }
}

/// `[u8; 2048]` as a JSON array of numbers, as Go's `encoding/json` writes
/// a byte array. A shorter array leaves the rest zero, as in Go.
mod bytes_2048 {
    use std::fmt;

    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        bytes: &[u8; 2048],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(bytes)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<[u8; 2048], D::Error> {
        struct Bytes;

        impl<'de> Visitor<'de> for Bytes {
            type Value = [u8; 2048];

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of at most 2048 bytes")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut bytes = [0; 2048];
                let mut len = 0;
                while let Some(byte) = seq.next_element()? {
                    *bytes
                        .get_mut(len)
                        .ok_or_else(|| A::Error::invalid_length(len + 1, &self))? = byte;
                    len += 1;
                }
                Ok(bytes)
            }
        }

        deserializer.deserialize_seq(Bytes)
    }
}

/// The seeds' payload: `json.Marshal(Person{Name: "萌哦科技", Age: 25})`,
/// with serde's field names.
pub(crate) fn seed_payload() -> Vec<u8> {
    let mut person = Person::new();
    person.name.push_str("萌哦科技");
    person.age = 25;
    serde_json::to_vec(&person).expect("a Person serializes")
}
