//! [`Graveyard`]: where the objects a shared store lets go of are
//! destroyed, after its lock is released.
//!
//! Invariant: every object buried here is destroyed exactly once, by the
//! store's [`Dispose`], with no lock held; a destructor that panics does not
//! stop the others, and no second panic meets the first.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::engine::erased::Dispose;

/// Objects the store decided to destroy, handed out of the lock so that
/// their destructors (user code) run with no lock held.
///
/// Dropping it destroys the objects one at a time. A destructor that panics
/// does not stop the others: every object is destroyed, then the first
/// panic is passed on (or, if the thread is already unwinding, dropped, as
/// a second panic would abort the process). Dropping a plain `Vec` of them
/// instead would abort on the second panicking destructor ("panic in a
/// destructor during cleanup").
pub(crate) struct Graveyard<T> {
    dead: Vec<T>,
    /// Destroys one object (the store's [`Dispose`]).
    dispose: Dispose<T>,
}

impl<T> Graveyard<T> {
    /// An empty graveyard; allocates nothing.
    ///
    /// # Safety
    ///
    /// `dispose` must accept every object that will be buried in it.
    pub(crate) const unsafe fn new(dispose: Dispose<T>) -> Self {
        Graveyard {
            dead: Vec::new(),
            dispose,
        }
    }

    /// An empty graveyard for the same objects.
    pub(crate) fn empty(&self) -> Self {
        Graveyard {
            dead: Vec::new(),
            dispose: self.dispose,
        }
    }

    /// Buries one object.
    pub(crate) fn push(&mut self, object: T) {
        self.dead.push(object);
    }

    /// Buries every object of `dead`.
    pub(crate) fn bury(&mut self, mut dead: Vec<T>) {
        if self.dead.is_empty() {
            std::mem::swap(&mut self.dead, &mut dead);
        } else {
            self.dead.append(&mut dead);
        }
    }
}

impl<T> Drop for Graveyard<T> {
    /// Inlined, so that the common empty graveyard (every slow path returns
    /// one) costs a length check, not a call.
    #[inline]
    fn drop(&mut self) {
        if !self.dead.is_empty() {
            self.destroy_all();
        }
    }
}

impl<T> Graveyard<T> {
    /// Destroys every object, then passes on the first panic (see the
    /// type's docs).
    #[inline(never)]
    fn destroy_all(&mut self) {
        let mut first = None;
        let dispose = self.dispose;
        for object in self.dead.drain(..) {
            // SAFETY: every object buried here is one `dispose` accepts
            // (`Graveyard::new`).
            let destroyed = catch_unwind(AssertUnwindSafe(move || unsafe { dispose(object) }));
            if let Err(payload) = destroyed {
                first.get_or_insert(payload);
            }
        }
        // Nested, not a let chain: the crate builds on Rust 1.85, and let
        // chains came in 1.88.
        if let Some(payload) = first {
            if !std::thread::panicking() {
                resume_unwind(payload);
            }
        }
    }
}
