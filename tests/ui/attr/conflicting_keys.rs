use pool_core::Poolable;

fn clear(s: &mut String) {
    s.clear();
}

#[derive(Poolable, Default)]
struct Request {
    #[pool(skip, default)]
    a: u32,
    #[pool(skip)]
    #[pool(reset = clear)]
    b: String,
    #[pool(reset = clear, default)]
    c: String,
    #[pool(max_capacity = 8, skip)]
    d: Vec<u8>,
    #[pool(default, max_capacity = 8)]
    e: Vec<u8>,
    #[pool(skip, default, reset = clear)]
    f: String,
}

fn main() {
    let _ = Request::acquire();
}
