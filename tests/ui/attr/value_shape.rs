use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(capacity, thread_capacity(4))]
struct Request {
    #[pool(skip = true)]
    id: u64,
    #[pool(default(1))]
    age: u32,
    #[pool(max_capacity = 8u32)]
    body: Vec<u8>,
    #[pool(max_capacity = 99999999999999999999999)]
    text: String,
}

fn main() {
    let _ = Request::acquire();
}
