// Every mistake in one struct is reported in one compile.
use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(capacity = "lots", thread_capacty = 4)]
struct Request {
    #[pool(skip, default)]
    id: u64,
    #[pool(max_capacity)]
    body: Vec<u8>,
    #[pool(rest = clear)]
    name: String,
}

fn main() {
    let mut request = Request::acquire();
    request.name.push('x');
}
