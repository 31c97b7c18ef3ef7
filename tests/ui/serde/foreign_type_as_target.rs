// `Pooled<Vec<u8>>` as a decoding target: `Vec<u8>` has no pool of its own.
// The error says so and names the ways that work.
use pool_core::Pooled;

fn main() {
    let _bytes: Pooled<Vec<u8>> = serde_json::from_slice(b"[1, 2]").unwrap();
}
