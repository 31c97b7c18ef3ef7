//! A static pool's thread cache, [`ThreadCache`]: what its `thread_local!`
//! holds, a constant with no destructor, so that the thread-local has no
//! lazy initialisation and no state to check, and no machinery of its own
//! per pooled type (docs/PERFORMANCE.md, "Compile cost of the derive").
//! It starts [unset](RawCache::unset); the thread's first slow path on the
//! pool registers it ([`RawCache::register`]) and lists it in the thread's
//! one exit list ([`EXITING`]), whose destructor retires it at the
//! thread's exit, as a cache's own `Drop` would.
//!
//! Invariant: an unset cache's slot is [`UNSET`], which no thread enters
//! (its gate is closed for ever, so the fast paths back off, and
//! `enter_slow`, `retire` and `Drop` pass an unset cache over); its core
//! is its pool's once a slow path has handed it one, else read by
//! nothing. A registered static cache is in its thread's exit list until
//! the thread's exit retires it, frees its slot and sets it back to
//! `UNSET`, retired: every later use goes to the shared store.

use std::ptr::NonNull;

use crate::engine::cache::RawCache;
use crate::engine::core::{CoreRef, PoolCore};
use crate::sync::{modelled, not_modelled};

not_modelled! {
    use std::cell::{Cell, RefCell};
    use std::mem::ManuallyDrop;

    use crossbeam_utils::CachePadded;

    use crate::engine::policy::Local;
    use crate::engine::slot::{self, Slot};

    /// A static pool's cache, as its `thread_local!` holds it: never
    /// dropped by the thread-local (so it needs no destructor state),
    /// retired at the thread's exit by [`EXITING`] once registered.
    #[doc(hidden)]
    #[repr(transparent)]
    pub struct ThreadCache(ManuallyDrop<RawCache>);

    impl ThreadCache {
        /// An [`unset`](RawCache::unset) cache.
        ///
        /// # Safety
        ///
        /// As for [`RawCache::unset`]; and the value is a thread-local's,
        /// on the thread that uses it (its exit list holds a pointer to it).
        #[must_use]
        pub const unsafe fn unset() -> Self {
            // SAFETY: the caller's promise.
            ThreadCache(ManuallyDrop::new(unsafe { RawCache::unset() }))
        }
    }
}

modelled! {
    /// Under loom, a static pool's cache is dropped by its (loom)
    /// thread-local, as a run-time pool's part's is.
    #[doc(hidden)]
    #[repr(transparent)]
    pub struct ThreadCache(pub(crate) RawCache);
}

impl std::fmt::Debug for ThreadCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw().fmt(f)
    }
}

impl ThreadCache {
    /// The cache.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn raw(&self) -> &RawCache {
        &self.0
    }
}

not_modelled! {
    /// The static pools' caches this thread has registered, retired at its
    /// exit (a static pool's `thread_local!` does not drop its cache).
    struct Exiting(RefCell<Vec<NonNull<RawCache>>>);

    std::thread_local! {
        static EXITING: Exiting = const { Exiting(RefCell::new(Vec::new())) };
    }

    impl Drop for Exiting {
        fn drop(&mut self) {
            // A cache retired here may be used by a later destructor; one
            // registered meanwhile cannot be listed (this list is gone), so
            // it is retired at once (`register_unset`).
            for cache in std::mem::take(self.0.get_mut()) {
                // SAFETY: a thread-local of this thread
                // (`ThreadCache::unset`), alive until every thread-local
                // destructor has run.
                unsafe { cache.as_ref() }.exit();
            }
        }
    }

    impl RawCache {
        /// The thread's exit, for a registered static pool's cache: retired
        /// (its objects to the shared store), its slot freed, and set back
        /// to `UNSET`, retired, for any later use.
        fn exit(&self) {
            self.retire();
            let registered = self.slot.replace(unset_slot());
            // SAFETY: `retire` took the slot out of the registry, and the
            // cache, its only other user, points to `UNSET` from now on.
            unsafe { slot::free(registered) };
        }

        /// A static pool's cache as its `thread_local!` holds it before the
        /// thread's first slow path on the pool: no slot of its own, no
        /// pool, nothing allocated, so the thread-local is a constant and
        /// its machinery is compiled once for every pool. Its slot is the
        /// closed [`UNSET`], which the fast paths back off from; the first
        /// slow path registers it with the pool it is handed
        /// ([`RawCache::register`]).
        ///
        /// # Safety
        ///
        /// The cache is handed to slow paths only with one pool's core,
        /// which outlives the cache (a static pool's: `pool!`).
        #[must_use]
        pub(crate) const unsafe fn unset() -> Self {
            RawCache {
                slot: Cell::new(unset_slot()),
                core: Cell::new(CoreRef::NONE),
                retired: Cell::new(false),
            }
        }

        /// Whether the cache is [`unset`](RawCache::unset): no slot of its
        /// own yet.
        #[inline]
        pub(super) fn is_unset(&self) -> bool {
            std::ptr::eq(self.slot.get().as_ptr().cast_const(), &raw const UNSET.0)
        }

        /// Lists a registered static cache in the thread's exit list;
        /// `false` if the list is gone (the thread is exiting).
        fn list_for_exit(&self) -> bool {
            let me = NonNull::from(self);
            EXITING.try_with(|exiting| exiting.0.borrow_mut().push(me)).is_ok()
        }
    }

    /// A pointer to [`UNSET`].
    const fn unset_slot() -> NonNull<CachePadded<Slot<Local>>> {
        // SAFETY: a pointer to a static is never null.
        unsafe { NonNull::new_unchecked((&raw const UNSET.0).cast_mut()) }
    }

    /// The slot of every [`unset`](RawCache::unset) cache: closed for
    /// ever, so the fast paths back off from it, and entered by nothing
    /// else (the slow paths register a slot of the cache's own first, and
    /// `enter_slow`, `retire` and `Drop` pass an unset cache over).
    static UNSET: Unset = Unset(CachePadded::new(Slot::closed(Local::EMPTY)));

    /// [`UNSET`]'s type.
    struct Unset(CachePadded<Slot<Local>>);

    // SAFETY: no thread reaches the slot's contents or its lock (its gate
    // is never open, and no slow path enters it); the fast paths only load
    // and store `busy` and load the gate, atomics, and back off.
    unsafe impl Sync for Unset {}
}

modelled! {
    impl RawCache {
        /// No cache is unset under loom: a model's static cache is made
        /// registered.
        pub(super) fn is_unset(&self) -> bool {
            false
        }

        /// Nothing to list: a model's thread-local drops its cache.
        fn list_for_exit(&self) -> bool {
            true
        }
    }
}

impl RawCache {
    /// Registers an [`unset`](RawCache::unset) cache with its pool, whose
    /// core is `core`, on its thread's first slow path; nothing for any
    /// other cache, or a retired one.
    #[inline]
    pub(super) fn register(&self, core: &PoolCore) {
        if self.is_unset() && !self.retired.get() {
            self.register_unset(core);
        }
    }

    #[cold]
    #[inline(never)]
    fn register_unset(&self, core: &PoolCore) {
        // SAFETY: the core an unset cache is handed with outlives it
        // (`RawCache::unset`'s promise).
        let core = unsafe { CoreRef::new(NonNull::from(core)) };
        self.core.set(core);
        if !self.list_for_exit() {
            // The thread's exit list is gone: nothing would retire a
            // slot, so the cache goes to the shared store from now on.
            self.retired.set(true);
            return;
        }
        let (slot, _) = Self::registered(core);
        self.slot.set(slot);
    }
}
