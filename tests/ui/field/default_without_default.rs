use pool_core::Poolable;

struct Handle(u32);

#[derive(Poolable)]
#[pool(new = Request::new)]
struct Request {
    #[pool(default)]
    handle: Handle,
}

impl Request {
    fn new() -> Self {
        Request { handle: Handle(0) }
    }
}

fn main() {
    let _ = Request::acquire().handle.0;
}
