use std::rc::Rc;

use pool_core::Poolable;

#[derive(Poolable, Default)]
struct Session {
    #[pool(default)]
    user: Rc<String>,
    hits: u32,
}

fn main() {
    let session = Session::acquire();
    drop(session);
}
