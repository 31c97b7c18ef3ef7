use pool_core::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[pool(skipp)]
    id: u64,
    #[pool(frobnicate)]
    name: String,
}

fn main() {
    let _ = Request::acquire();
}
