// A capacity with a suffix other than `usize`, and one too large for it:
// the errors derive.md quotes for `capacity`.
use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(capacity = 8u32)]
struct Request {
    name: String,
}

#[derive(Poolable, Default)]
#[pool(capacity = 99999999999999999999999)]
struct Response {
    body: Vec<u8>,
}

fn main() {
    let _ = Request::acquire();
    let _ = Response::acquire();
}
