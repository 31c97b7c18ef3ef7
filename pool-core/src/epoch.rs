//! The global epoch, [`rotate`], and the background [`Rotator`].
//!
//! Rust has no garbage collector whose cycles could age a pool, so this
//! module supplies the clock: one process-wide epoch counter. Each call to
//! [`rotate`] advances it and ages every pool that holds shared idle objects:
//!
//! ```text
//!             rotate()                rotate()
//!  primary ─────────────▶ victim ─────────────▶ dropped
//!  (released this epoch)  (idle one epoch,      (idle two epochs:
//!                          still served)          destructor runs)
//! ```
//!
//! Per-thread caches are not visited by `rotate` (reaching into another
//! thread's cache would put an atomic operation on every acquire). Instead
//! each cache remembers the epoch it last saw and ages itself the next time
//! its thread touches the pool: one epoch behind, its objects join the shared
//! victim tier; two or more, they are dropped. A cache holds at most
//! `thread_capacity` objects, and a thread's exit hands them to the shared
//! store, so what a quiet thread can pin is bounded.
//!
//! The invariant, as in crossbeam's epochs: an object that has been idle
//! across two advancements is not held by any shared tier, and is not handed
//! out by any thread cache.

use crate::sync::{AtomicBool, AtomicU64, Mutex, Ordering, lock};

/// An epoch counter. The pool reads it on every acquire and release with a
/// relaxed load (a plain `mov` on x86 and arm64), and only compares it: the
/// objects themselves are protected by the shared store's lock, so a thread
/// that reads a stale value at worst files its objects one tier too young or
/// too old, never unsafely.
pub(crate) struct Epoch(AtomicU64);

impl Epoch {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        Epoch(AtomicU64::new(0))
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        Epoch(AtomicU64::new(0))
    }

    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    /// The epoch for a slow path about to file objects in a shared store.
    ///
    /// A plain load, like the fast path's: the ordering that matters comes
    /// from registering the pool (under the registry's lock) before this
    /// read, and the store files objects by its own epoch, which every
    /// rotation advances under the store's lock. A stale value here only
    /// files objects as older, so they expire sooner, never later. A
    /// read-modify-write was tried: it wrote the line every thread's fast
    /// path reads, and made the loom models run past ten minutes.
    pub(crate) fn latest(&self) -> u64 {
        self.now()
    }

    /// Advances the epoch and returns the new value.
    pub(crate) fn advance(&self) -> u64 {
        self.0.fetch_add(1, Ordering::AcqRel) + 1
    }
}

/// Something `rotate` ages: a pool's shared store.
pub(crate) trait Rotate: Sync {
    /// Ages the shared tiers to epoch `now`, dropping what expires.
    fn rotate_to(&self, now: u64);
}

/// Every pool whose shared store has ever held an object.
type Registry = Mutex<Vec<&'static dyn Rotate>>;

#[cfg(not(loom))]
mod globals {
    use super::{Epoch, Registry};

    static EPOCH: Epoch = Epoch::new();
    static POOLS: Registry = Registry::new(Vec::new());

    #[inline]
    pub(crate) fn epoch() -> &'static Epoch {
        &EPOCH
    }

    pub(crate) fn pools() -> &'static Registry {
        &POOLS
    }
}

#[cfg(loom)]
mod globals {
    use super::{Epoch, Registry};

    // loom's statics are reset for every execution of a model.
    loom::lazy_static! {
        static ref EPOCH: Epoch = Epoch::new();
        static ref POOLS: Registry = Registry::new(Vec::new());
    }

    pub(crate) fn epoch() -> &'static Epoch {
        &EPOCH
    }

    pub(crate) fn pools() -> &'static Registry {
        &POOLS
    }
}

pub(crate) use globals::epoch;

/// Adds `pool` to the set that [`rotate`] ages, once: `registered` is the
/// pool's flag, set under the registry's lock after the pool is in the list,
/// so a thread that sees it set knows every later rotation sees the pool.
pub(crate) fn register(pool: &'static dyn Rotate, registered: &AtomicBool) {
    let mut pools = lock(globals::pools());
    if !registered.load(Ordering::Relaxed) {
        pools.push(pool);
        registered.store(true, Ordering::Release);
    }
}

/// Advances the global epoch, aging every pool.
///
/// For every pool, the objects idle in its shared primary tier move to its
/// victim tier, where they are still served, and the objects that were
/// already in the victim tier are dropped, their destructors run. Thread
/// caches age the next time their thread uses the pool. Call it
/// periodically (or start a [`Rotator`]) so that a pool whose load has
/// dropped gives its memory back, the way Go's `sync.Pool` is emptied by
/// every garbage collection.
///
/// Destructors run on the calling thread, after each pool's lock has been
/// released.
///
/// # Panics
///
/// If a destructor panics, the other pools are still rotated (and the
/// panicking pool's remaining expired objects still dropped), then the
/// first panic is resumed.
///
/// # Example
///
/// ```
/// use pool_core::{Pool, pool, rotate};
///
/// pool! {
///     static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(0);
/// }
///
/// drop(BUFFERS.acquire()); // one idle buffer, in the primary tier
/// rotate();                // now in the victim tier, still served
/// assert_eq!(BUFFERS.stats().idle, 1);
/// rotate();                // idle for two epochs: dropped
/// assert_eq!(BUFFERS.stats().idle, 0);
/// ```
pub fn rotate() {
    let now = epoch().advance();
    // Copy the list so that no lock is held while destructors run: a
    // destructor may itself touch a pool, or call `rotate`.
    let pools = lock(globals::pools()).clone();
    // A destructor that panics must not leave the other pools unrotated:
    // rotate them all, then pass the first panic on.
    let mut panic = None;
    for pool in pools {
        if let Err(payload) =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.rotate_to(now)))
        {
            panic.get_or_insert(payload);
        }
    }
    if let Some(payload) = panic {
        std::panic::resume_unwind(payload);
    }
}

#[cfg(not(loom))]
pub use rotator::Rotator;

#[cfg(not(loom))]
mod rotator {
    use std::sync::mpsc;
    use std::thread::JoinHandle;
    use std::time::Duration;

    /// A background thread that calls [`rotate`](crate::rotate) on a fixed
    /// period, so that idle pools give their memory back without the
    /// application having to schedule it.
    ///
    /// The thread is named `pool-rotator`. Dropping the handle stops it and
    /// waits for it to finish its current rotation.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// // Objects idle for 30 to 60 seconds are dropped.
    /// let rotator = pool_core::Rotator::spawn(Duration::from_secs(30))?;
    /// // ... run the application ...
    /// drop(rotator); // stops the thread
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[derive(Debug)]
    pub struct Rotator {
        stop: Option<mpsc::Sender<()>>,
        thread: Option<JoinHandle<()>>,
    }

    impl Rotator {
        /// Starts a thread that rotates every `period`.
        ///
        /// An object is then dropped after between one and two periods of
        /// idleness.
        ///
        /// # Errors
        ///
        /// `ErrorKind::InvalidInput` if `period` is zero (the thread would
        /// spin), or the error from spawning the thread.
        ///
        /// ```
        /// use std::io::ErrorKind;
        /// use std::time::Duration;
        ///
        /// use pool_core::Rotator;
        ///
        /// let rotator = Rotator::spawn(Duration::from_secs(60))?;
        /// drop(rotator); // stops the thread
        ///
        /// let zero = Rotator::spawn(Duration::ZERO).unwrap_err();
        /// assert_eq!(zero.kind(), ErrorKind::InvalidInput);
        /// # Ok::<(), std::io::Error>(())
        /// ```
        pub fn spawn(period: Duration) -> std::io::Result<Rotator> {
            if period.is_zero() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "rotation period must be greater than zero",
                ));
            }
            let (stop, stopped) = mpsc::channel::<()>();
            let thread = std::thread::Builder::new()
                .name("pool-rotator".into())
                .spawn(move || {
                    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(period) {
                        // A panicking destructor must not end rotation for
                        // the rest of the process; its panic has already
                        // been reported by the panic hook.
                        let _ = std::panic::catch_unwind(crate::rotate);
                    }
                })?;
            Ok(Rotator {
                stop: Some(stop),
                thread: Some(thread),
            })
        }
    }

    impl Drop for Rotator {
        fn drop(&mut self) {
            // Closing the channel wakes the thread at once.
            drop(self.stop.take());
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }
}
