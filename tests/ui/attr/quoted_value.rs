use pool_core::Poolable;

fn clear(s: &mut String) {
    s.clear();
}

#[derive(Poolable, Default)]
#[pool(capacity = "1024")]
struct Request {
    #[pool(reset = "clear")]
    name: String,
}

fn main() {
    let _ = Request::acquire();
}
