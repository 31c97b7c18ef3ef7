use pool_core::Poolable;

#[derive(Poolable)]
struct Request {
    name: String,
}

fn main() {
    let _ = Request::acquire();
}
