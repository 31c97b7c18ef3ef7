use pool_core::Poolable;

#[derive(Poolable, Default)]
struct Session {
    #[pool(heap_bytes)]
    name: String,
}

fn main() {
    let _ = Session::acquire();
}
