use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(capacity = "lots", thread_capacity = 1.5, new = 42)]
struct Request {
    #[pool(max_capacity = -1)]
    body: Vec<u8>,
    #[pool(reset = |s: &mut String| s.clear())]
    name: String,
}

fn main() {
    let _ = Request::acquire();
}
