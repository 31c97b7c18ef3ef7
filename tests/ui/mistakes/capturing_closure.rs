use pool_core::{Pool, pool};

fn main() {
    let size = 4096;
    pool! {
        static BUFFERS: Pool<Vec<u8>> = Pool::new(move || Vec::with_capacity(size));
    }
    drop(BUFFERS.acquire());
}
