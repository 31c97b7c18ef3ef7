//! [`set_allocator_trim`]: after a rotation that dropped objects, ask the
//! allocator to give its free memory back to the system.
//!
//! Invariant: a trim runs only when it is turned on, after a rotation that
//! dropped at least one object, with no lock of the crate held, and at most
//! once per [`MIN_INTERVAL`].
//!
//! Why it is needed: dropping an object frees its memory to the allocator,
//! not to the system. glibc's `malloc` keeps small freed chunks in its
//! arenas for the next allocations and returns pages only from the top of
//! the heap or for blocks it mapped on their own (128 KiB and up by
//! default), so after a rotation of many small objects the process's RSS
//! does not move. `malloc_trim(0)` walks the arenas and releases every
//! free page (`madvise(MADV_DONTNEED)`), which is what makes the memory a
//! rotation dropped show in RSS. Elsewhere (musl, macOS, Windows, a
//! non-default global allocator's own free lists) there is no such call
//! here, and turning the trim on does nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The shortest time between two trims. `malloc_trim` walks every arena
/// and every free chunk: milliseconds on a large heap, which a program
/// that calls `rotate` in a loop (or sets a millisecond rotation period)
/// must not pay on each call. Once a second is the automatic rotation's
/// shortest sensible period many times over (its default is a minute, so
/// there every rotation that drops objects trims), and bounds the cost to
/// a fraction of a percent of one core however often rotation runs.
pub(crate) const MIN_INTERVAL: Duration = Duration::from_secs(1);

static ENABLED: AtomicBool = AtomicBool::new(false);

/// When the last trim ran.
static LAST: Mutex<Option<Instant>> = Mutex::new(None);

/// How many trims have run, for the tests (where `trim` calls glibc).
#[cfg(all(test, target_os = "linux", target_env = "gnu", not(miri)))]
pub(crate) static TRIMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Turns the allocator trim on or off (it is off unless turned on): with it
/// on, a rotation that dropped objects then asks the allocator to return
/// its free memory to the system, so that what rotation gave back shows in
/// the process's RSS.
///
/// What rotation gives back goes to the allocator, as any `drop` does.
/// Whether the process's RSS falls then is the allocator's choice: glibc
/// keeps small freed chunks in its arenas for reuse and returns pages only
/// for large blocks (128 KiB and up, which it maps on their own) or from
/// the top of the heap, so a pool of many small objects can drop every one
/// of them and leave RSS where it was. With the trim on, glibc's
/// `malloc_trim(0)` runs after such a rotation and releases every free
/// page, and RSS follows within the rotation.
///
/// The trim runs on the rotating thread (the automatic rotation's, or the
/// caller of [`rotate`](crate::rotate)), after the rotation's destructors,
/// with no lock of the crate held, and at most once a second: a rotation
/// sooner than that after the last trim does not trim (the next one that
/// drops objects does). It costs a walk of the allocator's free memory,
/// from microseconds to a few milliseconds on a large heap, and the pages
/// it frees are faulted in again if the program allocates them anew.
///
/// It calls glibc's `malloc_trim` on Linux with glibc (`target_env =
/// "gnu"`), when the allocator is glibc's. Elsewhere, and where a global
/// allocator of the program's own replaces `malloc` (jemalloc and mimalloc
/// return memory on their own schedule), it does nothing.
///
/// # Example
///
/// ```
/// use pool_core::{Pool, pool, rotate};
///
/// pool! { static PAGES: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(4096)).thread_capacity(0); }
///
/// pool_core::set_allocator_trim(true);
/// let burst: Vec<_> = (0..64).map(|_| PAGES.acquire()).collect();
/// drop(burst);
/// rotate();
/// rotate(); // drops the idle buffers, then trims the allocator
/// assert_eq!(PAGES.stats().idle, 0);
/// pool_core::set_allocator_trim(false);
/// ```
pub fn set_allocator_trim(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Whether a rotation should find out if it dropped objects.
#[inline]
pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// A rotation dropped objects: trims, if the trim is on and the last one
/// is at least [`MIN_INTERVAL`] old.
pub(crate) fn after_drops() {
    if !enabled() {
        return;
    }
    {
        let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if last.is_some_and(|last| now.duration_since(last) < MIN_INTERVAL) {
            return;
        }
        *last = Some(now);
    }
    trim();
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
fn trim() {
    #[cfg(test)]
    TRIMS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: `malloc_trim` takes no pointer and may be called at any time
    // from any thread; glibc takes its arenas' locks itself.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri))))]
fn trim() {}
