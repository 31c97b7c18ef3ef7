// A field of a type of the user's that is not `Send` (it holds a `Cell`
// and an `Rc`) and implements `Clone` by hand: the derive cannot see it,
// and rustc reports each place the expansion needs `Send`.
use std::cell::Cell;
use std::rc::Rc;

struct Counter {
    hits: Cell<u32>,
    shared: Rc<String>,
}

impl Clone for Counter {
    fn clone(&self) -> Self {
        Counter {
            hits: Cell::new(self.hits.get()),
            shared: Rc::clone(&self.shared),
        }
    }
}

impl Default for Counter {
    fn default() -> Self {
        Counter {
            hits: Cell::new(0),
            shared: Rc::new(String::new()),
        }
    }
}

#[derive(pool_core::Poolable, Default)]
struct Session {
    name: String,
    counter: Counter,
}

fn main() {
    let session = Session::acquire();
    drop(session);
}
