//! [`rotate`]: the clock that ages every pool.
//!
//! Rust has no garbage collector whose cycles could age a pool, so the
//! engine keeps one process-wide epoch (`crate::engine::slot`). Each call
//! to [`rotate`] advances it and ages every registered pool: its shared
//! primary objects become victims, its victims are dropped (the [crate
//! docs](crate#how-rotation-bounds-memory) draw it), and the caches of
//! threads between operations on it age the same way, through the
//! handshake in `crate::engine::slot` (no read-modify-write on the owner's
//! fast path). A thread in the middle of an operation, or any thread on a
//! platform with no process-wide barrier, ages its cache itself on its next
//! operation, and a thread's exit hands its cache to the shared store.
//! Then, with no lock held, the allocator is trimmed if asked
//! (`crate::engine::trim`) and, with the `metrics` feature, every pool's
//! figures are published (`crate::engine::publish`).
//!
//! Invariant, as in crossbeam's epochs: an object that has been idle
//! across two advancements is not held by any shared tier, and is not
//! handed out by any thread cache.

use crate::engine::registry;
use crate::engine::slot::epoch;
use crate::engine::trim;

/// Advances the global epoch, aging every pool.
///
/// For every pool, the objects idle in its shared primary tier move to its
/// victim tier, where they are still served, and the objects that were
/// already in the victim tier are dropped, their destructors run. The
/// caches of threads that are not in the middle of an operation on the pool
/// are aged the same way (a thread that has stopped using a pool loses its
/// idle objects like the shared store does); a thread that is, ages its
/// cache itself on its next operation. The process rotates on its own (see
/// [`set_rotation_period`](crate::set_rotation_period)); call `rotate` to
/// give memory back at a moment of your choosing, the way Go's
/// `sync.Pool` is emptied by every garbage collection.
///
/// Destructors run on the calling thread, after each pool's lock has been
/// released. Then, in this order: if objects were dropped and
/// [`set_allocator_trim`](crate::set_allocator_trim) is on, the allocator
/// is trimmed; with the `metrics` feature, every pool's figures are
/// published (as `metrics::publish` does), so they include this
/// rotation's.
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
    let pools = registry::entries();
    // A destructor that panics must not leave the other pools unrotated:
    // rotate them all, then pass the first panic on.
    let mut panic = None;
    let trim = trim::enabled();
    let mut dropped_any = false;
    for entry in pools {
        // A run-time pool whose last handle and guard are gone is skipped;
        // one that goes while it is visited is dropped here, after its
        // rotation, with no lock held.
        let Some(pool) = entry.visit() else { continue };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            // Only the trim needs to know whether objects went, and reading
            // the counters costs each pool's cache lock: not when it is off.
            let before = trim.then(|| pool.stats().dropped_rotation);
            pool.rotate_to(now);
            let dropped = before.is_some_and(|before| pool.stats().dropped_rotation != before);
            drop(pool);
            dropped
        })) {
            Ok(dropped) => dropped_any |= dropped,
            Err(payload) => {
                panic.get_or_insert(payload);
            }
        }
    }
    registry::forget_gone();
    // Every destructor has run and no lock is held: the allocator has all
    // it will get from this rotation, and the figures are final.
    if dropped_any {
        trim::after_drops();
    }
    // With the `metrics` feature every rotation publishes, last, so that
    // the figures include its drops (`crate::engine::publish`).
    #[cfg(feature = "metrics")]
    if let Err(payload) = std::panic::catch_unwind(crate::engine::publish::publish) {
        panic.get_or_insert(payload);
    }
    if let Some(payload) = panic {
        std::panic::resume_unwind(payload);
    }
}
