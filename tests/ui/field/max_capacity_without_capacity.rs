use pool_core::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[pool(max_capacity = 64)]
    age: u32,
    #[pool(max_capacity = 64)]
    tags: std::collections::BTreeSet<u32>,
}

fn main() {
    let _ = Request::acquire();
}
