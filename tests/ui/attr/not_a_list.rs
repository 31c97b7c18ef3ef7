use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool = "capacity"]
struct Request {
    #[pool]
    name: String,
}

fn main() {
    let _ = Request::acquire();
}
