// `fresh` gives the field its value: with `skip`, `default`, `reset` or
// `max_capacity` one of the two would be ignored.
use pool_core::Poolable;

fn next_id() -> u64 {
    7
}

fn clear(id: &mut u64) {
    *id = 0;
}

fn empty() -> Vec<u8> {
    Vec::new()
}

#[derive(Poolable, Default)]
struct Request {
    #[pool(skip, fresh = next_id)]
    a: u64,
    #[pool(fresh = next_id, default)]
    b: u64,
    #[pool(reset = clear, fresh = next_id)]
    c: u64,
    #[pool(fresh = empty, max_capacity = 8)]
    d: Vec<u8>,
    #[pool(fresh = || 7)]
    e: u64,
}

fn main() {
    let _ = Request::acquire();
}
