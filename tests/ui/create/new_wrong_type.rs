use pool_core::Poolable;

#[derive(Poolable)]
#[pool(new = make)]
struct Request {
    name: String,
}

fn make() -> String {
    String::new()
}

fn main() {
    let _ = Request::acquire();
}
