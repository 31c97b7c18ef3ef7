use pool_core::{Pool, pool};

fn capacity_from_config() -> usize {
    std::env::args().count() * 64
}

pool! {
    static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(capacity_from_config());
}

fn main() {
    drop(BUFFERS.acquire());
}
