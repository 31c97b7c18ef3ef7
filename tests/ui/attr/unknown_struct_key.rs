use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(capcity = 1024)]
struct Request {
    name: String,
}

fn main() {
    // No second error here: the derive still implements `Poolable`.
    let _ = Request::acquire();
}
