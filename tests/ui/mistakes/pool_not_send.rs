// `pool!` of a type that is not `Send`: one error, rustc's, at the static's
// type; none from the expansion's items, which need the same bound (8
// before its checks). rustc emits the error again, word for word, from
// those checks; cargo and trybuild print it once.
use std::rc::Rc;

use pool_core::{Pool, Reset, pool};

struct Session {
    user: Rc<String>,
}

impl Reset for Session {
    fn reset(&mut self) {}
}

pool! {
    static SESSIONS: Pool<Session> = Pool::new(|| Session { user: Rc::default() });
}

fn main() {
    let session = SESSIONS.acquire();
    assert!(session.user.is_empty());
}
