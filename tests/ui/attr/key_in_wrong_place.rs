use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(skip)]
struct Request {
    #[pool(capacity = 8)]
    name: String,
}

fn main() {
    let _ = Request::acquire();
}
