// `fresh = path` names a `fn() -> FieldType`.
use pool_core::Poolable;

fn next_id() -> u32 {
    7
}

#[derive(Poolable, Default)]
struct Ticket {
    #[pool(fresh = next_id)]
    id: u64,
}

fn main() {
    let _ = Ticket::acquire();
}
