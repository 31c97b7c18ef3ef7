// A field of a type of the user's that is not `Send` (it holds a `Cell`
// and an `Rc`) and implements `Clone` by hand: the derive cannot see the
// `Rc`, so its expansion checks that each field's type is `Send`. One
// error, at the field: none from the rest of the expansion, none from the
// uses of the struct.
use std::cell::Cell;
use std::rc::Rc;

use pool_core::Poolable;

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

#[derive(Poolable, Default)]
struct Session {
    name: String,
    counter: Counter,
}

fn main() {
    let session = Session::acquire();
    assert!(session.name.is_empty());
    drop(session);
}
