//! [`PoolConfig`], the recipe for a pool, and the default capacities.
//!
//! Invariant: a configuration is plain data, fixed when the pool is
//! declared; nothing reads it mutably afterwards, so a pool `static` holds no
//! interior mutability because of it.
//!
//! What the compile errors of two common mistakes are made of: calling
//! `acquire` on a pool's recipe ([`NotAPool`]), and a `pool!` whose
//! constructor captures ([`NoPool`]). Reached by generated code through
//! `__private`; not public API.
//!
//! Invariant: nothing here runs. An [`Unpoolable`] cannot be made, so the
//! methods that would hand one out are never called in a program that
//! compiled.

use std::fmt;
use std::ptr::NonNull;

use crate::engine::bytes::COLD_CAP;
use crate::engine::core::PoolCore;
use crate::engine::erased::{Erased, boxed_with};
use crate::reset::Reset;

/// Idle objects a pool keeps in its shared tiers unless told otherwise:
/// 65,536, a ceiling rather than a size.
///
/// A pool makes an object only when it has no idle one, so it never holds
/// more idle objects than were in use at once, and [rotation](crate::rotate)
/// (automatic, every minute by default) drops those left unused for a
/// period. So with this default a pool sizes itself to the largest burst it
/// served in the last one to two minutes and gives the rest back, as Go's
/// `sync.Pool` does across two garbage collections. Set a smaller
/// [`capacity`](PoolConfig::capacity) to bound what a burst may leave
/// behind for that long: `(capacity + threads × thread_capacity) × size of
/// an object`.
///
/// Why not smaller: a burst larger than the capacity makes most of its
/// objects and drops them on release, at more than no pool's cost, where a
/// pool that keeps the whole burst serves the next one from its cache
/// (docs/PERFORMANCE.md, bursts).
///
/// ```
/// use pool_core::{DEFAULT_CAPACITY, Pool, pool};
///
/// pool! { static POOL: Pool<String> = Pool::new(String::new); }
///
/// assert_eq!(DEFAULT_CAPACITY, 65_536);
/// assert!(format!("{POOL:?}").contains("capacity: 65536"));
/// ```
pub const DEFAULT_CAPACITY: usize = 1 << 16;

/// Idle objects each thread's cache keeps unless told otherwise.
///
/// ```
/// use pool_core::{DEFAULT_THREAD_CAPACITY, Pool, pool};
///
/// pool! { static POOL: Pool<String> = Pool::new(String::new); }
///
/// assert_eq!(DEFAULT_THREAD_CAPACITY, 32);
/// assert!(format!("{POOL:?}").contains("thread_capacity: 32"));
/// ```
pub const DEFAULT_THREAD_CAPACITY: usize = 32;

/// The bound in bytes on what an object may hold and stay in a pool
/// (as [`Reset::heap_bytes`] counts it, after the reset) before the pool
/// has learned its objects' usual size, or in a pool that does not learn
/// ([`PoolConfig::calibrate`]): 64 KiB.
///
/// Why 64 KiB: it is the bound the best-known pools of buffers chose after
/// running into the outlier problem (Go's `fmt` drops printers over 64 KiB,
/// Istio's and Jetty's buffer pools keep none over 64 KiB), it is the size
/// above which glibc's `malloc` serves a block from its own `mmap` (from
/// 128 KiB by default) rather than from the heap it keeps, and a request
/// object that holds more is rare enough that making it again costs
/// little next to the work it came with. A pool that learns soon raises
/// it if its objects are all larger ([Untrusted input](crate#untrusted-input)).
///
/// ```
/// use pool_core::{DEFAULT_MAX_BYTES, Pool, pool};
///
/// pool! { static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new).calibrate(false); }
///
/// let mut buf = BUFFERS.acquire();
/// buf.reserve(DEFAULT_MAX_BYTES * 4);
/// drop(buf); // shrunk to the cold cap
/// assert!(BUFFERS.acquire().capacity() <= DEFAULT_MAX_BYTES);
/// assert_eq!(DEFAULT_MAX_BYTES, 64 << 10);
/// ```
pub const DEFAULT_MAX_BYTES: usize = COLD_CAP;

/// A pool's bounds in bytes: what its configuration says, fixed when the
/// pool is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteBounds {
    /// `max_bytes`: the bound on what a kept object holds, in place of the
    /// learned one.
    pub(crate) max: Option<usize>,
    /// Whether the pool learns its bound (`calibrate`).
    pub(crate) calibrate: bool,
    /// `max_idle_bytes`: the budget of the heap bytes its idle objects
    /// hold together.
    pub(crate) max_idle: Option<usize>,
}

impl ByteBounds {
    /// The default: learn, from [`DEFAULT_MAX_BYTES`].
    pub(crate) const DEFAULT: ByteBounds = ByteBounds {
        max: None,
        calibrate: true,
        max_idle: None,
    };

    /// Whether the pool's releases feed its calibration.
    #[inline(always)]
    pub(crate) const fn learns(self) -> bool {
        self.max.is_none() && self.calibrate
    }

    /// The bound in bytes on what a kept object of the pool whose core is
    /// `core` holds: `max_bytes`, or the learned bound, or the cold cap in
    /// a pool that does not learn.
    #[inline(always)]
    pub(crate) fn bound(self, core: &PoolCore) -> usize {
        match self.max {
            Some(max) => max,
            None if self.calibrate => core.calibration.bound(),
            None => COLD_CAP,
        }
    }
}

/// The recipe for a [`Pool`](crate::Pool): its constructor and capacities.
/// Made by [`Pool::new`](crate::Pool::new), turned into a pool by
/// [`pool!`](crate::pool!).
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! {
///     static POOL: Pool<String> = Pool::new(String::new) // a `PoolConfig`
///         .capacity(128)
///         .thread_capacity(16);
/// }
/// # drop(POOL.acquire());
/// ```
pub struct PoolConfig<T> {
    pub(crate) create: Create<T>,
    pub(crate) capacity: usize,
    pub(crate) thread_capacity: usize,
    /// Whether a released object may stay in the pool: the test, and the
    /// function of `T` that runs it for the erased slow path, made here so
    /// that a pool without a test compiles none.
    pub(crate) retain: Option<(Retain<T>, RetainFn)>,
    /// Where the pool resets its objects. A constant in a `pool!` static,
    /// so the fast paths' branch on it folds away there.
    pub(crate) reset_on: ResetOn,
    /// The bound in bytes on what a kept object holds.
    pub(crate) bytes: ByteBounds,
}

/// Where a pool runs its objects' reset: on the releasing thread, before
/// an object goes idle (the default), or on the acquiring thread, before
/// an idle object is handed out again
/// ([`PoolConfig::reset_on_acquire`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ResetOn {
    Release,
    Acquire,
}

/// How a pool makes an object: a function for a `pool!` static, the
/// builder's closure for a run-time pool.
pub(crate) enum Create<T> {
    Fn(fn() -> T),
    Closure(Closure<dyn Fn() -> T + Send + Sync>),
}

/// A pool's `retain` test, in the same two forms.
pub(crate) enum Retain<T> {
    Fn(fn(&T) -> bool),
    Closure(Closure<dyn Fn(&T) -> bool + Send + Sync>),
}

/// A run-time pool's closure, owned by the pool's allocation
/// (`crate::pool::runtime`), which outlives every `Pool` that points to it.
pub(crate) struct Closure<F: ?Sized>(NonNull<F>);

// SAFETY: a `Closure` is a shared reference to an `F: Send + Sync` kept
// alive by its run-time pool; it is only ever called through `&F`.
unsafe impl<F: ?Sized + Send + Sync> Send for Closure<F> {}
// SAFETY: as above.
unsafe impl<F: ?Sized + Send + Sync> Sync for Closure<F> {}

impl<F: ?Sized> Closure<F> {
    /// # Safety
    ///
    /// `closure` must outlive every use of the returned pointer: the
    /// run-time pool drops the closure only after every `Pool` that holds
    /// this pointer is out of use.
    pub(crate) unsafe fn new(closure: &F) -> Self {
        Closure(NonNull::from(closure))
    }

    #[inline]
    fn get(&self) -> &F {
        // SAFETY: the promise made to `Closure::new`.
        unsafe { self.0.as_ref() }
    }
}

/// The functions of `T` that the erased slow paths (`crate::pool`)
/// are handed.
/// Makes a new object with the pool's constructor, given as its
/// `&Create<T>`: `make::<T>`.
pub(crate) type MakeFn = unsafe fn(NonNull<()>) -> Erased;

/// Resets an object in place: `reset::<T>`.
pub(crate) type ResetFn = unsafe fn(NonNull<u8>);

/// The heap bytes an object holds: `heap::<T>`.
pub(crate) type HeapFn = unsafe fn(NonNull<u8>) -> usize;

/// Shrinks an object in place to at most the bytes given, returning what
/// it keeps: `shrink::<T>`.
pub(crate) type ShrinkFn = unsafe fn(NonNull<u8>, usize) -> usize;

/// Runs the pool's `retain` test, given as its `&Retain<T>`, on an object:
/// `retains::<T>`.
pub(crate) type RetainFn = unsafe fn(NonNull<()>, NonNull<u8>) -> bool;

/// `MakeFn` for a pool of `T`s.
///
/// # Safety
///
/// `create` points to a live `Create<T>`.
pub(crate) unsafe fn make<T: Send>(create: NonNull<()>) -> Erased {
    // SAFETY: the caller's promise.
    let create = unsafe { &*(create.as_ptr() as *const Create<T>) };
    Erased::new(boxed_with(|| create.call()))
}

/// `ResetFn` for a pool of `T`s.
///
/// # Safety
///
/// `value` is an object of a pool of `T`s (a `Padded<T>`, whose first
/// field the `T` is), not borrowed elsewhere.
pub(crate) unsafe fn reset<T: Reset>(value: NonNull<u8>) {
    // SAFETY: the caller's promise.
    unsafe { &mut *(value.as_ptr() as *mut T) }.reset();
}

/// `HeapFn` for a pool of `T`s: [`Reset::heap_bytes`].
///
/// # Safety
///
/// As for `reset`.
pub(crate) unsafe fn heap<T: Reset>(value: NonNull<u8>) -> usize {
    // SAFETY: the caller's promise.
    unsafe { &mut *(value.as_ptr() as *mut T) }.heap_bytes()
}

/// `ShrinkFn` for a pool of `T`s: [`Reset::shrink_to_bytes`].
///
/// # Safety
///
/// As for `reset`.
pub(crate) unsafe fn shrink<T: Reset>(value: NonNull<u8>, max: usize) -> usize {
    // SAFETY: the caller's promise.
    unsafe { &mut *(value.as_ptr() as *mut T) }.shrink_to_bytes(max)
}

/// `RetainFn` for a pool of `T`s.
///
/// # Safety
///
/// `retain` points to a live `Retain<T>`, and `value` is as for `reset`.
pub(crate) unsafe fn retains<T>(retain: NonNull<()>, value: NonNull<u8>) -> bool {
    // SAFETY: the caller's promise.
    let (retain, value) = unsafe {
        (
            retain.cast::<Retain<T>>().as_ref(),
            value.cast::<T>().as_ref(),
        )
    };
    retain.call(value)
}

impl<T> Create<T> {
    /// Makes an object.
    #[inline]
    pub(crate) fn call(&self) -> T {
        match self {
            Create::Fn(create) => create(),
            Create::Closure(create) => (create.get())(),
        }
    }
}

impl<T> Retain<T> {
    /// Whether `value` may stay in the pool.
    #[inline]
    pub(crate) fn call(&self, value: &T) -> bool {
        match self {
            Retain::Fn(retain) => retain(value),
            Retain::Closure(retain) => (retain.get())(value),
        }
    }
}

/// The setters of a pool's recipe, each `fn name(value) { field = value; }`
/// with its docs, a `#[must_use]` method that takes and returns `self`:
/// [`PoolConfig`]'s (`const`) and `PoolBuilder`'s (`crate::pool::runtime`,
/// which sets its `config`), so that each is one line.
macro_rules! setters {
    (pub $($kw:ident)?; $($rest:tt)*) => { setters!(@[$($kw)?] $($rest)*); };
    (@[$($kw:ident)?] $(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty)?) {
        $($field:ident).+ = $value:expr;
    } $($rest:tt)*) => {
        $(#[$doc])*
        #[must_use]
        pub $($kw)? fn $name(mut self $(, $arg: $ty)?) -> Self {
            self.$($field).+ = $value;
            self
        }
        setters!(@[$($kw)?] $($rest)*);
    };
    (@[$($kw:ident)?]) => {};
}

pub(crate) use setters;

impl<T> PoolConfig<T> {
    /// A recipe with the default capacities.
    pub(crate) const fn new(create: fn() -> T) -> Self {
        PoolConfig {
            create: Create::Fn(create),
            capacity: DEFAULT_CAPACITY,
            thread_capacity: DEFAULT_THREAD_CAPACITY,
            retain: None,
            reset_on: ResetOn::Release,
            bytes: ByteBounds::DEFAULT,
        }
    }

    setters! {
        pub const;
        /// Sets how many idle objects the shared tiers (primary and victim
        /// together) keep. Returns past this bound are dropped. `0` disables the
        /// shared store: objects then live only in thread caches.
        ///
        /// ```
        /// use pool_core::{Pool, pool};
        ///
        /// pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(16); }
        /// # drop(POOL.acquire());
        /// ```
        fn capacity(capacity: usize) { capacity = capacity; }

        /// Sets how many idle objects each thread's cache keeps. When a cache is
        /// full, half of it moves to the shared store in one batch. `0` sends
        /// every release to the shared store.
        ///
        /// ```
        /// use pool_core::{Pool, pool};
        ///
        /// pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(4); }
        /// # drop(POOL.acquire());
        /// ```
        fn thread_capacity(thread_capacity: usize) { thread_capacity = thread_capacity; }

        /// Sets a test every released object must pass, after its reset, to
        /// stay in the pool; an object that fails it is dropped and counted as
        /// [`rejected`](crate::Stats::rejected). It bounds objects one by one,
        /// which `capacity` cannot: a buffer that grew past what is worth
        /// keeping, a connection that went bad.
        ///
        /// The test runs after `reset`, so it sees the object as the next user
        /// would get it: a `Vec` is empty but keeps its capacity, and a reset
        /// that shrinks (the derive's `max_capacity`) has already run. In a
        /// pool that [resets on acquire](Self::reset_on_acquire) the test still
        /// runs at release, so there it sees the object *before* its reset, as
        /// its last user left it. It runs
        /// on the releasing thread with no lock held, on every release, so keep
        /// it cheap. A test that panics drops the object, counted as
        /// [`discarded`](crate::Stats::discarded). A pool without one pays
        /// nothing for it: the check is folded away at compile time.
        ///
        /// In a `static` the test is a `fn(&T) -> bool`: a function, or a
        /// closure that captures nothing (write the argument's type, as the
        /// pool's type is not yet known where the closure is checked).
        ///
        /// ```
        /// use pool_core::{Pool, pool};
        ///
        /// pool! {
        ///     static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new)
        ///         .retain(|buf: &Vec<u8>| buf.capacity() <= 4096);
        /// }
        ///
        /// let mut small = BUFFERS.acquire();
        /// small.extend_from_slice(b"hello");
        /// let mut large = BUFFERS.acquire();
        /// large.resize(32 << 10, 0);
        /// drop(small); // kept: cleared, capacity within the bound
        /// drop(large); // cleared, still 32 KiB of capacity: dropped
        /// let stats = BUFFERS.stats();
        /// assert_eq!((stats.returned, stats.rejected, stats.idle), (1, 1, 1));
        /// ```
        fn retain(retain: fn(&T) -> bool) { retain = Some((Retain::Fn(retain), retains::<T>)); }

        /// Resets objects when they are acquired, on the acquiring thread,
        /// instead of when they are released: a released object goes idle as
        /// its last user left it, and the next acquire resets it before handing
        /// it out. An object the pool makes is handed out as the constructor
        /// made it, without a reset.
        ///
        /// Choose it for large objects handed from one thread to another (a
        /// producer acquires and fills, a consumer drops): the reset then
        /// writes the object's memory on the thread about to write it anyway,
        /// and a thread that only drops objects writes nothing to them, so
        /// their cache lines cross between the cores once per trip instead of
        /// twice. What it gives up: an idle object keeps its last contents
        /// until it is reused or dropped, and what it holds (an `Arc`, a
        /// handle, a buffer that grew) is not given back until then. An object
        /// the pool drops without reusing it (past a bound, by rotation, by a
        /// [`retain`](Self::retain) test, [`Pooled::discard`](crate::Pooled::discard),
        /// a run-time pool's end) is dropped without a reset. A reset that
        /// panics at acquire drops its object, counted as
        /// [`discarded`](crate::Stats::discarded), and the panic goes on to the
        /// caller of `acquire`. In a `static` the choice is a constant: the
        /// pool's fast paths carry no branch for it.
        ///
        /// ```
        /// use pool_core::{Pool, pool};
        ///
        /// pool! {
        ///     static FRAMES: Pool<Vec<u8>> = Pool::new(Vec::new).reset_on_acquire();
        /// }
        ///
        /// let mut frame = FRAMES.acquire();
        /// frame.extend_from_slice(b"payload");
        /// drop(frame); // idle as it is, not yet cleared
        /// assert!(FRAMES.acquire().is_empty()); // cleared when acquired
        /// ```
        fn reset_on_acquire() { reset_on = ResetOn::Acquire; }

        /// Sets the bound in bytes on what an object may hold and stay in the
        /// pool, as [`Reset::heap_bytes`] counts it after the reset, in place
        /// of the bound the pool learns: a released object over it is shrunk
        /// to it ([`Reset::shrink_to_bytes`]), or dropped if its type cannot
        /// shrink that far, and counted
        /// ([`Stats::shrunk`](crate::Stats::shrunk),
        /// [`Stats::dropped_oversize`](crate::Stats::dropped_oversize)). It
        /// bounds bytes where `max_capacity` bounds elements, however deep
        /// they are nested. A type that does not report its bytes
        /// ([`Heap::Unreported`](crate::Heap)) is not bound.
        ///
        /// In a pool that [resets on acquire](Self::reset_on_acquire) the
        /// object is measured at release, before its reset; one over the bound
        /// is reset there, then shrunk or dropped, so the bound holds for what
        /// the pool keeps idle there too.
        ///
        /// ```
        /// use pool_core::{Pool, pool};
        ///
        /// pool! { static LINES: Pool<String> = Pool::new(String::new).max_bytes(1024); }
        ///
        /// let mut line = LINES.acquire();
        /// line.push_str(&"x".repeat(1 << 20));
        /// drop(line); // cleared, then shrunk from 1 MiB to 1 KiB
        /// assert!(LINES.acquire().capacity() <= 1024);
        /// assert_eq!(LINES.stats().shrunk, 1);
        /// ```
        fn max_bytes(max_bytes: usize) { bytes.max = Some(max_bytes); }

        /// Whether the pool learns the bound in bytes on what its objects may
        /// hold from what they held at release (the default, `true`), or keeps
        /// [`DEFAULT_MAX_BYTES`] (or [`max_bytes`](Self::max_bytes), which
        /// replaces the learned bound either way). See
        /// [Untrusted input](crate#untrusted-input).
        ///
        /// ```
        /// use pool_core::{DEFAULT_MAX_BYTES, Pool, pool};
        ///
        /// pool! { static BLOBS: Pool<Vec<u8>> = Pool::new(Vec::new).calibrate(false); }
        ///
        /// let mut blob = BLOBS.acquire();
        /// blob.reserve(1 << 20);
        /// drop(blob);
        /// assert!(BLOBS.acquire().capacity() <= DEFAULT_MAX_BYTES);
        /// ```
        fn calibrate(calibrate: bool) { bytes.calibrate = calibrate; }

        /// Sets a budget for the heap bytes the pool's idle objects hold
        /// together, in its shared store and every thread's cache, as
        /// [`Reset::heap_bytes`] counts them (Jetty's `maxHeapMemory`): a
        /// release that would take them past `max_idle_bytes` drops its object
        /// instead, counted in [`Stats::dropped_oversize`](crate::Stats::dropped_oversize).
        ///
        /// The slack, exactly: releases on different threads check the budget
        /// at once, so the idle heap may pass it by at most one object per
        /// thread releasing at that moment; the objects' boxes (the object's
        /// own size and 48 bytes of padding each) are not in the budget. With
        /// no budget (the default) the pool counts its idle bytes in each
        /// thread's cache alone; with one, every release and acquire of an
        /// object of a type that counts its bytes adds to one counter of the
        /// pool (an atomic read-modify-write, a line the threads share):
        /// the price of a bound across threads. A type that does not report
        /// its bytes ([`Heap::Unreported`](crate::Heap)) is not held to it.
        ///
        /// No default budget: the bound on each object (the learned one, or
        /// [`max_bytes`](Self::max_bytes)) already bounds the idle heap by
        /// `(capacity + threads × thread_capacity) × bound`, and a budget
        /// smaller than what a pool's steady load keeps idle would make it
        /// allocate on every acquire, which no default can know (Go's
        /// `sync.Pool` has none; Jetty's is a share of the heap, a figure a
        /// Rust program does not have).
        ///
        /// ```
        /// use pool_core::{Pool, pool};
        ///
        /// pool! {
        ///     static BLOCKS: Pool<Vec<u8>> = Pool::new(Vec::new)
        ///         .max_bytes(1 << 20)
        ///         .max_idle_bytes(2 << 20);
        /// }
        ///
        /// let held: Vec<_> = (0..4)
        ///     .map(|_| {
        ///         let mut block = BLOCKS.acquire();
        ///         block.reserve_exact(1 << 20);
        ///         block
        ///     })
        ///     .collect();
        /// drop(held); // two kept, the two past the budget dropped
        /// let stats = BLOCKS.stats();
        /// assert_eq!((stats.idle, stats.dropped_oversize), (2, 2));
        /// ```
        fn max_idle_bytes(max_idle_bytes: usize) { bytes.max_idle = Some(max_idle_bytes); }
    }

    /// Not a method: a `PoolConfig` is a recipe, and calling `acquire` on
    /// one is a compile error that says how to get a pool. Its bound holds
    /// for no type.
    #[doc(hidden)]
    pub fn acquire(&self) -> crate::pool::config::Unpoolable<T>
    where
        Self: crate::pool::config::NotAPool,
    {
        unreachable!("`NotAPool` is implemented for no `PoolConfig`")
    }
}

impl<T> fmt::Debug for PoolConfig<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolConfig")
            .field("capacity", &self.capacity)
            .field("thread_capacity", &self.thread_capacity)
            .field("retain", &self.retain.is_some())
            .field("reset_on", &self.reset_on)
            .field("max_bytes", &self.bytes.max)
            .field("calibrate", &self.bytes.calibrate)
            .field("max_idle_bytes", &self.bytes.max_idle)
            .finish_non_exhaustive()
    }
}

/// What the stub `acquire` of a derived struct that cannot be pooled (a
/// field is not `Send`) returns, next to the derive's error: it derefs to
/// the struct, so the user's code type-checks and adds no errors of its
/// own. It has no values.
pub struct Unpoolable<T> {
    never: std::convert::Infallible,
    _type: std::marker::PhantomData<T>,
}

impl<T> std::fmt::Debug for Unpoolable<T> {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.never {}
    }
}

impl<T> std::ops::Deref for Unpoolable<T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self.never {}
    }
}

impl<T> std::ops::DerefMut for Unpoolable<T> {
    fn deref_mut(&mut self) -> &mut T {
        match self.never {}
    }
}

/// What [`pool!`](crate::pool!) declares in place of a pool it refused (a
/// capturing constructor), next to its error: `POOL.acquire()` still
/// type-checks, so the program's uses add no errors of their own.
pub struct NoPool<T>(std::marker::PhantomData<fn() -> T>);

impl<T> NoPool<T> {
    /// The stand-in.
    #[must_use]
    pub const fn new() -> Self {
        NoPool(std::marker::PhantomData)
    }

    /// Never called: the program does not compile.
    pub fn acquire(&self) -> Unpoolable<T> {
        unreachable!("`pool!` refused this pool with a compile error")
    }
}

impl<T> Default for NoPool<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> std::fmt::Debug for NoPool<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NoPool")
    }
}

/// The bound of [`PoolConfig::acquire`](crate::PoolConfig), implemented for
/// nothing: its only use is the message of the error that a call to it
/// gets.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is the recipe for a pool, not a pool, so it has nothing to acquire",
    label = "a `PoolConfig`, not a pool",
    note = "declare a static pool with `pool! {{ static POOL: Pool<T> = Pool::new(..).capacity(..); }}` and call `POOL.acquire()`, or make one at run time with `Pool::builder(..).capacity(..).build()` and call `.acquire()` on that"
)]
pub trait NotAPool {}
