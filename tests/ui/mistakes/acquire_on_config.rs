use pool_core::Pool;

fn main() {
    let buffer = Pool::new(Vec::<u8>::new).capacity(16).acquire();
    drop(buffer);
}
