//! A counting global allocator: the one that the examples, the integration
//! tests and the benches install to report heap allocations, bytes and live
//! memory, the way Go's `-benchmem` does.
//!
//! ```standalone_crate
//! use pool_suite::alloc::Counting;
//!
//! #[global_allocator]
//! static ALLOC: Counting = Counting::new();
//!
//! fn main() {
//!     let (usage, v) = ALLOC.measure(|| vec![0u8; 100]);
//!     assert_eq!(usage.allocs, 1);
//!     assert_eq!(usage.bytes, 100);
//!     assert_eq!(usage.live, 100);
//!     drop(v);
//! }
//! ```
//!
//! What is counted, on each successful call to the allocator (a failed one
//! counts nothing):
//!
//! | call | `allocs` | `bytes` | live bytes |
//! |---|---:|---:|---:|
//! | `alloc`, `alloc_zeroed` | +1 | + size | + size |
//! | `realloc` | +1 | + new size | + new size, then − old size |
//! | `dealloc` | | | − size |
//!
//! A `realloc` raises the live count by the new block before it takes off the
//! old one, so that the peak includes a moving `realloc`'s moment with both
//! blocks.
//!
//! The process-wide counters (`allocs`, `bytes`, live bytes and their peak)
//! count every thread of the process. [`this_thread`] counts only the calling
//! thread's allocations and bytes, for tests that run next to each other under
//! libtest; a test that reads the process-wide live bytes must run without
//! libtest (`harness = false`), whose threads allocate now and then.
//!
//! The counters are relaxed atomics: each one's updates are totally ordered,
//! so a thread that reads them after joining the threads it measures (or
//! after its own work) sees every update they made. One allocator type serves
//! every use; [`Counting::paused`] makes one that counts only inside
//! [`Counting::measure`], for benches that time with the allocator installed
//! (the cost outside a measurement is then one relaxed load and a branch per
//! call).
//!
//! Install at most one `Counting`, as the global allocator: the per-thread
//! counters are shared by all instances, and only the global allocator sees
//! the program's allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ops::Sub;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

/// A global allocator that forwards to [`System`] and counts allocations,
/// bytes allocated and live bytes (with their peak); see the
/// [module docs](self) for what each call counts.
///
/// ```standalone_crate
/// use pool_suite::alloc::Counting;
///
/// #[global_allocator]
/// static ALLOC: Counting = Counting::new();
///
/// fn main() {
///     let before = ALLOC.counts();
///     let s = String::from("hello");
///     let spent = ALLOC.counts() - before;
///     assert_eq!((spent.allocs, spent.bytes), (1, 5));
///     drop(s);
/// }
/// ```
#[derive(Debug)]
pub struct Counting {
    /// Off: nothing is counted (see [`Counting::paused`]).
    counting: AtomicBool,
    allocs: AtomicU64,
    bytes: AtomicU64,
    /// Bytes allocated minus bytes freed while counting.
    live: AtomicI64,
    /// The highest `live` since the start or the last `reset_peak`.
    peak: AtomicI64,
}

/// Allocations and bytes allocated: totals from [`Counting::counts`] or
/// [`this_thread`], or the difference of two totals (`after - before`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocs: u64,
    /// Bytes they asked for (a `realloc` counts its new size).
    pub bytes: u64,
}

impl Sub for Counts {
    type Output = Counts;

    /// What was counted between `rhs` (the earlier total) and `self`.
    fn sub(self, rhs: Counts) -> Counts {
        Counts {
            allocs: self.allocs - rhs.allocs,
            bytes: self.bytes - rhs.bytes,
        }
    }
}

/// What [`Counting::measure`] counted while its closure ran, in the whole
/// process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocs: u64,
    /// Bytes they asked for.
    pub bytes: u64,
    /// Live bytes at the end, net of those live at the start (negative if
    /// the closure freed more than it allocated).
    pub live: i64,
    /// The highest live bytes reached, net of those live at the start.
    pub peak: i64,
}

thread_local! {
    // `const` and without a destructor: touching them never allocates, and
    // they can be used while the thread's other thread-locals are torn down.
    static THREAD_ALLOCS: Cell<u64> = const { Cell::new(0) };
    static THREAD_BYTES: Cell<u64> = const { Cell::new(0) };
}

/// The calling thread's allocations and bytes since it started, as counted
/// by the installed [`Counting`] allocator (all zero if none is installed).
///
/// ```standalone_crate
/// use pool_suite::alloc::{Counting, this_thread};
///
/// #[global_allocator]
/// static ALLOC: Counting = Counting::new();
///
/// fn main() {
///     let before = this_thread();
///     let v: Vec<u64> = Vec::with_capacity(4);
///     assert_eq!(this_thread() - before, pool_suite::alloc::Counts { allocs: 1, bytes: 32 });
///     drop(v);
/// }
/// ```
pub fn this_thread() -> Counts {
    Counts {
        allocs: THREAD_ALLOCS.with(Cell::get),
        bytes: THREAD_BYTES.with(Cell::get),
    }
}

/// Runs `f` and returns what the calling thread allocated meanwhile, with
/// `f`'s result: unlike [`Counting::measure`], other threads' allocations are
/// not counted, so tests running in parallel do not see each other's.
pub fn on_this_thread<R>(f: impl FnOnce() -> R) -> (Counts, R) {
    let before = this_thread();
    let out = f();
    (this_thread() - before, out)
}

impl Counting {
    /// An allocator that counts from the start.
    pub const fn new() -> Self {
        Self::with_counting(true)
    }

    /// An allocator that counts only inside [`measure`](Self::measure) (or
    /// after [`resume`](Self::resume)): for benches that time with it
    /// installed.
    pub const fn paused() -> Self {
        Self::with_counting(false)
    }

    const fn with_counting(on: bool) -> Self {
        Counting {
            counting: AtomicBool::new(on),
            allocs: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            live: AtomicI64::new(0),
            peak: AtomicI64::new(0),
        }
    }

    /// Stops counting. While paused nothing is counted, frees included, so
    /// [`live`](Self::live) is then meaningful only as a difference of two
    /// readings taken in one counting period.
    pub fn pause(&self) {
        self.counting.store(false, Ordering::SeqCst);
    }

    /// Counts again after [`pause`](Self::pause).
    pub fn resume(&self) {
        self.counting.store(true, Ordering::SeqCst);
    }

    /// The whole process's allocations and bytes so far.
    pub fn counts(&self) -> Counts {
        Counts {
            allocs: self.allocs.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }

    /// Bytes allocated minus bytes freed so far (while counting).
    pub fn live(&self) -> i64 {
        self.live.load(Ordering::Relaxed)
    }

    /// The highest [`live`](Self::live) since the start or the last
    /// [`reset_peak`](Self::reset_peak).
    pub fn peak(&self) -> i64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Starts a new peak from the bytes live now.
    pub fn reset_peak(&self) {
        self.peak.store(self.live(), Ordering::Relaxed);
    }

    /// Runs `f`, counting even if paused (the switch is put back after), and
    /// returns what the whole process allocated meanwhile, with `f`'s result.
    /// Resets the peak.
    ///
    /// ```standalone_crate
    /// use pool_suite::alloc::Counting;
    ///
    /// #[global_allocator]
    /// static ALLOC: Counting = Counting::paused();
    ///
    /// fn main() {
    ///     let (usage, ()) = ALLOC.measure(|| drop(vec![0u8; 4096]));
    ///     assert_eq!((usage.allocs, usage.live, usage.peak), (1, 0, 4096));
    ///     let _ = vec![0u8; 8]; // not counted: paused again
    ///     assert_eq!(ALLOC.counts().allocs, 1);
    /// }
    /// ```
    pub fn measure<R>(&self, f: impl FnOnce() -> R) -> (Usage, R) {
        let was_counting = self.counting.swap(true, Ordering::SeqCst);
        let (counts, live) = (self.counts(), self.live());
        self.reset_peak();
        let out = f();
        let spent = self.counts() - counts;
        let usage = Usage {
            allocs: spent.allocs,
            bytes: spent.bytes,
            live: self.live() - live,
            peak: self.peak() - live,
        };
        self.counting.store(was_counting, Ordering::SeqCst);
        (usage, out)
    }

    /// Counts one allocation of `size` bytes.
    #[inline(always)]
    fn allocated(&self, size: usize) {
        if self.counting.load(Ordering::Relaxed) {
            self.allocs.fetch_add(1, Ordering::Relaxed);
            self.bytes.fetch_add(size as u64, Ordering::Relaxed);
            self.grow(size as i64);
            // `try_with`: the allocator may be called while thread-locals are
            // torn down.
            let _ = THREAD_ALLOCS.try_with(|n| n.set(n.get() + 1));
            let _ = THREAD_BYTES.try_with(|n| n.set(n.get() + size as u64));
        }
    }

    /// Counts `size` bytes freed.
    #[inline(always)]
    fn freed(&self, size: usize) {
        if self.counting.load(Ordering::Relaxed) {
            self.live.fetch_sub(size as i64, Ordering::Relaxed);
        }
    }

    /// Adds `size` live bytes and raises the peak if they pass it. The peak
    /// is read first, so that the read-modify-write happens only at a new
    /// peak.
    #[inline(always)]
    fn grow(&self, size: i64) {
        let live = self.live.fetch_add(size, Ordering::Relaxed) + size;
        if live > self.peak.load(Ordering::Relaxed) {
            self.peak.fetch_max(live, Ordering::Relaxed);
        }
    }
}

impl Default for Counting {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged and returns what `System` returned, so `System`'s guarantees are
// ours (every block `dealloc` and `realloc` receive was therefore made by
// `System`, with the layout they are given). Counting only updates atomics
// and `const` thread-locals without destructors: it never allocates, never
// panics, and has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            self.allocated(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged, as in `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            self.allocated(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged; `ptr` came from `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        self.freed(layout.size());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged; `ptr` came from `System` with `layout`.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            self.allocated(new_size);
            self.freed(layout.size());
        }
        new
    }
}
