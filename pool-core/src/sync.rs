//! The synchronisation primitives the pool is built on, swapped for `loom`'s
//! model-checked versions in pool-core's own loom test build.
//!
//! Invariant: this module is the only place outside the models
//! (`crate::tests::loom_*`) that knows loom exists. Every atomic, lock,
//! thread-local key and global the concurrent core uses comes through here,
//! so the models explore exactly the code that ships, and no public item
//! changes between the two builds.
//!
//! The switch is `cfg(all(test, loom))`, as in tokio: it holds only while
//! pool-core's own unit tests are compiled with `--cfg loom`
//! (`scripts/loom.sh`). A crate that depends on pool-core and runs its own
//! loom tests (`RUSTFLAGS="--cfg loom" cargo test`) sets `loom` for every
//! crate it builds, but never `test` for pool-core, so it gets the std
//! build, with every public item, and its pools behave exactly as without
//! the flag.

#[cfg(all(test, loom))]
pub(crate) use loom::cell::{MutPtr, UnsafeCell};
#[cfg(all(test, loom))]
pub(crate) use loom::sync::{
    Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence},
};
#[cfg(all(test, loom))]
pub(crate) use loom::thread::LocalKey;

#[cfg(not(all(test, loom)))]
pub(crate) use std::sync::{
    Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence},
};
#[cfg(not(all(test, loom)))]
pub(crate) use std::thread::LocalKey;

mod barrier;

/// The happens-before that a run-time pool's `Arc` gives its last owner
/// (every owner's release decrement, then the last one's acquire fence),
/// made visible to loom, which does not model std's `Arc`: each owner
/// calls [`leave`](Owners::leave) before giving up its strong count, and
/// the pool's drop calls [`last`](Owners::last). Nothing in the std build.
#[derive(Debug)]
pub(crate) struct Owners {
    #[cfg(all(test, loom))]
    left: AtomicUsize,
}

impl Owners {
    pub(crate) fn new() -> Self {
        Owners {
            #[cfg(all(test, loom))]
            left: AtomicUsize::new(0),
        }
    }

    /// An owner is done with the pool.
    #[inline]
    pub(crate) fn leave(&self) {
        #[cfg(all(test, loom))]
        self.left.fetch_add(1, Ordering::Release);
    }

    /// The last owner is dropping the pool: everything the others did
    /// happens before.
    #[inline]
    pub(crate) fn last(&self) {
        #[cfg(all(test, loom))]
        self.left.fetch_add(0, Ordering::Acquire);
    }
}

/// Declares a thread-local: std's, or loom's under loom, whose model
/// threads share one OS thread.
#[cfg(all(test, loom))]
pub(crate) use loom::thread_local;
#[cfg(not(all(test, loom)))]
pub(crate) use std::thread_local;

/// Whether this build runs under loom's models, where every model thread
/// is one OS thread: code that keys on the OS thread (a memo in std's
/// thread-locals) turns itself off.
pub(crate) const MODELLED: bool = cfg!(all(test, loom));

/// std's `UnsafeCell` with loom's interface: `get_mut` hands out a
/// [`MutPtr`], which loom tracks as an access while it lives.
#[cfg(not(all(test, loom)))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(all(test, loom)))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> Self {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    #[inline]
    pub(crate) fn get_mut(&self) -> MutPtr<T> {
        MutPtr(self.0.get())
    }
}

/// A pointer to an [`UnsafeCell`]'s contents.
#[cfg(not(all(test, loom)))]
#[derive(Debug)]
pub(crate) struct MutPtr<T>(*mut T);

#[cfg(not(all(test, loom)))]
impl<T> MutPtr<T> {
    /// # Safety
    ///
    /// As for `&mut *ptr`: no other reference to the contents may be live
    /// while the returned one is.
    #[inline]
    #[allow(
        clippy::mut_from_ref,
        reason = "loom's `MutPtr::deref` has this signature; the caller's promise covers it"
    )]
    pub(crate) unsafe fn deref(&self) -> &mut T {
        // SAFETY: the caller's promise.
        unsafe { &mut *self.0 }
    }
}

/// Whether both sides of the asymmetric barrier are `SeqCst` fences, which
/// give the same ordering: under Miri and loom, which know no process-wide
/// barrier.
const FENCES: bool = cfg!(any(miri, all(test, loom)));

/// The owner's side of an asymmetric barrier (see `slot`): a compiler
/// fence, which costs no instruction, where [`heavy_barrier`] makes every
/// thread run a full barrier.
#[inline]
pub(crate) fn light_barrier() {
    if FENCES {
        fence(Ordering::SeqCst);
    } else {
        std::sync::atomic::compiler_fence(Ordering::SeqCst);
    }
}

/// Whether [`heavy_barrier`] can do its work on this machine.
pub(crate) fn heavy_barrier_available() -> bool {
    FENCES || barrier::available()
}

/// The rare side of the asymmetric barrier: a full memory barrier on every
/// thread of the process. Returns `false`, having done nothing, where the
/// platform has none (see `barrier`).
pub(crate) fn heavy_barrier() -> bool {
    if FENCES {
        fence(Ordering::SeqCst);
    }
    FENCES || barrier::process_wide()
}

/// Has `prepare` run before every `fork` of this process, `parent` after
/// it in the parent and `child` in the child (`pthread_atfork`): not where
/// there is no `fork` (Windows), nor under Miri or loom, which cannot
/// fork. Nothing is installed if memory for it cannot be had.
pub(crate) fn at_fork(prepare: extern "C" fn(), parent: extern "C" fn(), child: extern "C" fn()) {
    // SAFETY: the handlers are plain functions that live for the whole
    // process; pthread_atfork copies the three pointers, and fails only for
    // want of memory (then nothing is installed).
    #[cfg(all(unix, not(any(miri, all(test, loom)))))]
    unsafe {
        libc::pthread_atfork(Some(prepare), Some(parent), Some(child));
    }
    #[cfg(not(all(unix, not(any(miri, all(test, loom))))))]
    let _ = (prepare, parent, child);
}

/// Writes a constructor (`fn` or `unsafe fn`) once: a `const fn` in the
/// std build, a plain `fn` under loom, whose primitives cannot be built in
/// a constant.
#[cfg(not(all(test, loom)))]
macro_rules! const_fn {
    ($(#[$attr:meta])* $vis:vis $kw:ident $($rest:tt)*) => { $(#[$attr])* $vis const $kw $($rest)* };
}

#[cfg(all(test, loom))]
macro_rules! const_fn {
    ($($item:tt)*) => { $($item)* };
}

/// `N` counters at zero: in a constant outside loom, whose atomics cannot
/// be made in one.
#[cfg(not(all(test, loom)))]
pub(crate) const fn counters<const N: usize>() -> [AtomicU64; N] {
    [const { AtomicU64::new(0) }; N]
}

#[cfg(all(test, loom))]
pub(crate) fn counters<const N: usize>() -> [AtomicU64; N] {
    std::array::from_fn(|_| AtomicU64::new(0))
}

/// Declares a process-wide global: a `static` in the std build, a loom
/// `lazy_static` (made anew for every execution of a model) under loom.
/// Either way `&NAME` coerces to a `&'static` of the declared type.
#[cfg(not(all(test, loom)))]
macro_rules! global {
    ($(#[$attr:meta])* static $name:ident: $ty:ty = $init:expr;) => {
        $(#[$attr])* static $name: $ty = $init;
    };
}

#[cfg(all(test, loom))]
macro_rules! global {
    ($(#[$attr:meta])* static $name:ident: $ty:ty = $init:expr;) => {
        loom::lazy_static! {
            $(#[$attr])* static ref $name: $ty = $init;
        }
    };
}

pub(crate) use {const_fn, global};

/// Whether the crate may start background threads (automatic rotation):
/// not in loom models or under Miri, whose executions must be the test's
/// own.
pub(crate) const BACKGROUND_THREADS: bool = !cfg!(any(miri, all(test, loom)));

/// One round of waiting for a flag another thread holds briefly, counted
/// in `round`: a CPU hint, and after a while a yield to the scheduler (in
/// case the holder was descheduled). Under loom, a yield, which tells the
/// model checker the loop waits for another thread.
#[inline]
pub(crate) fn spin_wait(round: &mut u32) {
    *round = round.saturating_add(1);
    #[cfg(all(test, loom))]
    loom::thread::yield_now();
    #[cfg(not(all(test, loom)))]
    if *round <= 64 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// Locks `mutex`, ignoring poison.
///
/// The pool never runs user code (constructors, `reset`, destructors) while
/// it holds one of its locks, so a critical section can only be interrupted
/// by a panic outside user code (an allocation failure inside `Vec::push`,
/// say), which leaves the guarded vectors valid. Poison therefore carries no
/// information here, and refusing to serve after it would turn one failed
/// allocation into a pool that is dead for the rest of the process.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}
