use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(capacity = 8)]
#[pool(capacity = 16, thread_capacity = 1, thread_capacity = 2)]
struct Request {
    #[pool(skip, skip)]
    id: u64,
}

fn main() {
    let _ = Request::acquire();
}
