// `crate = path` with a qualified path, which names no crate or module.
use pool_core::Poolable;

trait Runtime {
    type Core;
}

#[derive(Poolable, Default)]
#[pool(crate = <() as Runtime>::Core)]
struct Request {
    name: String,
}

fn main() {
    let _ = Request::acquire();
}
