//! Typed object pools: reuse instead of reallocation, made the easy path.
//!
//! `pool-core` keeps idle objects of a type for reuse. `#[derive(Poolable)]` on
//! a struct gives the type its own static pool; `T::acquire()` hands out a
//! [`Pooled<T>`] guard that dereferences to the object and, when dropped,
//! [resets](Reset) it (clearing its buffers but keeping their capacity) and
//! gives it back. A handler that fills a request struct per request then
//! allocates nothing once the pool is warm. It is the Rust counterpart of Go's
//! `sync.Pool`, typed, bounded, and with the reset written for you (see
//! [the comparison](#compared-with-gos-syncpool)).
//!
//! # Quick start
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use pool_core::{Poolable, Pooled};
//!
//! #[derive(Poolable, Default)]
//! struct Request {
//!     method: String,
//!     path: String,
//!     #[pool(max_capacity = 65536)] // a huge body does not stay huge in the pool
//!     body: Vec<u8>,
//! }
//!
//! fn handle(raw: &[u8]) -> usize {
//!     let mut req: Pooled<Request> = Request::acquire(); // reused, or made
//!     req.method.push_str("POST");
//!     req.path.push_str("/upload");
//!     req.body.extend_from_slice(raw);
//!     req.body.len()
//! } // `req` is dropped: reset, and cached for the next `Request::acquire()`
//!
//! assert_eq!(handle(b"hello"), 5);
//! assert_eq!(handle(b"again"), 5);
//! let stats = Request::pool().stats();
//! assert_eq!((stats.created, stats.reused()), (1, 1)); // one object, used twice
//! # }
//! ```
//!
//! The derive resets each field with its [`Reset`] impl; `#[pool(...)]`
//! attributes change that per field (`skip`, `default`, `reset = path`,
//! `max_capacity = N`) and set the pool's constructor and bounds (`new`,
//! `capacity`, `thread_capacity`): see [`derive@Poolable`].
//!
//! For a type the derive cannot take (a foreign type such as `Vec<u8>`),
//! declare a named pool with [`pool!`]:
//!
//! ```
//! use pool_core::{Pool, pool};
//!
//! pool! {
//!     static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new);
//! }
//!
//! let mut buf = BUFFERS.acquire(); // a `Pooled<Vec<u8>>`
//! buf.extend_from_slice(b"request body");
//! drop(buf); // cleared (capacity kept) and cached for the next acquire
//! ```
//!
//! # Which kind of pool
//!
//! | | declared with | constructor, bounds | cost of a round trip |
//! |---|---|---|---|
//! | **static** | `#[derive(Poolable)]`, or [`pool!`] for any type | a `fn() -> T` and constants, fixed at compile time | the fastest: the pool is a constant, its thread cache a `thread_local!` |
//! | **run-time** | [`Pool::builder`], a [`PoolHandle`] value | any closure, capacities from configuration | about 1.4× a static's: the thread's part of the pool is looked up each way (a memo of the last four run-time pools the thread used) |
//! | **generic** | `#[derive(Poolable)]` on `struct Frame<T>` | as a derived struct's, per instantiation | about 1.8× a derived struct's: a run-time pool per instantiation, found by its type |
//!
//! Use a static pool for a type the program pools everywhere, the common
//! case: `T::acquire()` reaches it from anywhere, with nothing to pass
//! around. Use a run-time pool when a static cannot say what you need:
//! a capacity or buffer size read from configuration, a constructor that
//! captures something, several pools of one type with separate statistics
//! (one per tenant, per connection class, per test running in parallel),
//! or memory that must go back when a component shuts down (when the last
//! handle and guard are gone, every object is dropped). A generic struct
//! that derives `Poolable` gets a pool per instantiation
//! (`Frame::<u8>::pool()` and `Frame::<String>::pool()` are two pools),
//! made on first use and kept for the life of the process.
//!
//! A run-time pool's guard keeps its pool alive, so that it may outlive
//! every handle. It does so through a count kept by the thread that
//! acquired it, on a cache line of that thread's own, not through a count
//! on the pool that every thread would write. Both kinds hand out the same
//! [`Pooled<T>`] guard and have the same tiers, rotation, panic behaviour
//! and [`Stats`], and [`pools`] lists both.
//!
//! ```
//! use pool_core::{Pool, Pooled};
//!
//! struct Config { buffer_size: usize, capacity: usize }
//! let cfg = Config { buffer_size: 16 * 1024, capacity: 64 };
//!
//! let size = cfg.buffer_size;
//! let buffers = Pool::builder(move || Vec::<u8>::with_capacity(size))
//!     .capacity(cfg.capacity)
//!     .retain(move |buf: &Vec<u8>| buf.capacity() <= 4 * size) // drop buffers that grew
//!     .build();
//! buffers.prefill(8); // warm, before the first request
//!
//! fn fill(mut buf: Pooled<Vec<u8>>) -> usize {
//!     buf.extend_from_slice(b"response");
//!     buf.len()
//! }
//! assert_eq!(fill(buffers.acquire()), 8);
//! assert_eq!(buffers.stats().created, 8); // served by the prefill
//! ```
//!
//! Both kinds take a [`retain`](PoolConfig::retain) test that drops an
//! object on release when it is no longer worth keeping, and a
//! [`prefill`](Pool::prefill) that makes objects ahead of a burst; a user
//! who knows an object is broken drops it with [`Pooled::discard`].
//!
//! # How it works
//!
//! A pool keeps idle objects in three tiers. An acquire looks in them in
//! order and calls the constructor only when all three are empty; a release
//! resets the object and puts it in the first tier:
//!
//! ```text
//!  acquire ──▶ thread cache ──▶ shared primary ──▶ shared victim ──▶ create
//!                 ▲   │ full: spill half    ▲             ▲
//!  release ─reset─┘   └─────────────────────┘             │
//!                                 rotate(): primary ──────┘, victim ──▶ drop
//! ```
//!
//! 1. **The thread cache**: a stack of up to `thread_capacity` idle objects,
//!    one per thread and per pool, in a `thread_local!` (a run-time pool's
//!    in a `thread_local::ThreadLocal` of its own). Acquire and release
//!    touch nothing else in the common case: no lock, no atomic
//!    read-modify-write, no cache line shared with another thread. That is why
//!    the hot path costs a few nanoseconds and two threads scale as two.
//! 2. **The shared primary tier**: objects any thread can take, behind one
//!    lock. A thread reaches it only when its cache is empty (it takes an
//!    object and refills half its cache) or full (it moves the older half
//!    there), so the lock is taken once per batch, not once per object.
//!    Objects released on one thread and acquired on another pass through
//!    here, and so do the caches of exiting threads. A thread that runs
//!    into the same bound twice in a row (a producer that only acquires, a
//!    consumer that only releases) moves a whole cache at a time instead.
//! 3. **The shared victim tier**: objects that have stayed idle across one
//!    [rotation](rotate). Still served, once the primary tier is empty.
//! 4. **The constructor**: `Default::default()`, the derive's
//!    `#[pool(new = path)]`, or the function given to [`Pool::new`].
//!
//! The two shared tiers together hold at most `capacity` objects; a release
//! that finds them full drops its object. [`Pool::stats`] counts every step.
//!
//! # How rotation bounds memory
//!
//! Rust has no garbage collector whose cycles could empty a pool, so the crate
//! keeps a global epoch that [`rotate`] advances. Each rotation moves every
//! pool's primary tier to its victim tier and drops the previous victims,
//! and ages the caches of the threads that are not in the middle of using
//! the pool the same way: a worker that has gone idle (a parked tokio
//! worker, a rayon thread between jobs) loses its cached objects like the
//! shared store does. An object idle across two rotations is therefore
//! dropped wherever it sits: after a burst, a pool gives its idle memory
//! back within two rotation periods.
//!
//! The process rotates on its own once it has used a pool, every
//! [`DEFAULT_ROTATION_PERIOD`] (a minute), on a background thread:
//! [`set_rotation_period`] changes the period, and `None` turns it off (call
//! it first thing in `main` to have no background thread at all). [`rotate`]
//! rotates now, and a [`Rotator`] rotates on a timer of its own:
//!
//! ```
//! use std::time::Duration;
//!
//! // Objects idle for 10 to 20 seconds are dropped.
//! pool_core::set_rotation_period(Some(Duration::from_secs(10)));
//! # pool_core::set_rotation_period(None);
//! ```
//!
//! Reaching another thread's cache without costing its owner anything uses
//! a process-wide memory barrier (`membarrier(2)` on Linux,
//! `FlushProcessWriteBuffers` on Windows). Where there is none (macOS, the
//! BSDs, a Linux sandbox that forbids the call), rotation ages the shared
//! stores only, and a thread's cache ages on its next use of the pool or
//! goes to the shared store when the thread exits.
//!
//! Rotation decides when memory is given back; the capacities bound how much
//! can be kept. A pool holds at most `capacity` idle objects in its shared
//! tiers plus `thread_capacity` in each thread's cache, whether or not
//! anything rotates. Each object is boxed with 48 bytes of padding after it
//! (so that objects moving between threads never share a cache line), plus
//! the buffers it kept.
//!
//! # Choosing `capacity` and `thread_capacity`
//!
//! Both are set per pool: `#[pool(capacity = N, thread_capacity = N)]` on a
//! derived struct, [`PoolConfig::capacity`] and
//! [`PoolConfig::thread_capacity`] in [`pool!`].
//!
//! - **`thread_capacity`** (default [`DEFAULT_THREAD_CAPACITY`], 32): how many
//!   objects one thread works through at a time. A thread that holds up to
//!   `n` objects at once and then releases them stays on its lock-free cache
//!   if `thread_capacity >= n`; below that, it takes the shared lock once per
//!   `thread_capacity / 2` objects. A handler that holds one object at a time
//!   needs only a few. `0` sends every release to the shared store.
//! - **`capacity`** (default [`DEFAULT_CAPACITY`], 65,536): how many idle
//!   objects the pool keeps for all threads together, beyond their caches.
//!   The default is a ceiling: a pool holds no more idle objects than were
//!   in use at once, and rotation gives back what goes unused, so it sizes
//!   itself to its bursts. Lower it to bound the memory a burst leaves
//!   behind until rotation. `0` keeps objects in thread caches only. A pool
//!   smaller than its bursts saves little: objects beyond `capacity` are
//!   made, boxed, and dropped again on release.
//! - **Check it with [`Stats`]**: `dropped_capacity` rising under steady load
//!   means `capacity` is too small (objects are made, then dropped on
//!   release); `hits_local` well below `acquired()` on a thread-bound workload
//!   means `thread_capacity` is too small. The worst case of idle memory is
//!   `(capacity + threads × thread_capacity) × size of an object`.
//!
//! # When not to pool
//!
//! - **Tiny or `Copy` values.** Making an integer or a small struct without
//!   heap buffers costs a few instructions on the stack, less than an acquire
//!   and a release, and a pooled object is boxed with 48 bytes of padding.
//! - **Long-lived objects.** A pool is for objects used briefly and returned.
//!   An object held for the life of a connection or kept in a cache just
//!   occupies its place; keep it in your own structures. (Go's documentation
//!   says the same of `sync.Pool`.)
//! - **Objects whose reset costs more than making them.** Reset runs on every
//!   release: a large array field is rewritten element by element, a
//!   `HashMap` is cleared in time proportional to its capacity. When a fresh
//!   object is cheap (no buffers to keep) or when the reset walks more memory
//!   than the use does, allocation is the faster path. `#[pool(skip)]` on a
//!   field that every user overwrites anyway, or `max_capacity`, can change the
//!   balance; measure.
//! - **Shared objects.** `Rc` and `Arc` have no [`Reset`]: resetting through
//!   one owner would change what the others see.
//!
//! # Compared with Go's `sync.Pool`
//!
//! | | Go's `sync.Pool` | `pool-core` |
//! |---|---|---|
//! | per-processor tier | each P has a private slot and a shared lock-free chain that other Ps steal from | each thread has its own stack of up to `thread_capacity` objects per pool, which no other thread touches |
//! | shared tier | the other Ps' chains | one store per pool behind a lock, reached a batch at a time |
//! | giving memory back | driven by the GC: each cycle moves the pool to a victim cache and drops the previous victims | the same two-step victim scheme, idle threads' caches included, on a background thread every minute by default ([`set_rotation_period`]), or when you call [`rotate`] |
//! | bound | none: the pool keeps whatever is put back until the next GC | `capacity` for the shared tiers, `thread_capacity` per thread; releases beyond them are dropped |
//! | types | `any`, with a type assertion on every `Get` | typed: [`Pool<T>`](Pool), [`Pooled<T>`] |
//! | return | an explicit `Put`; a forgotten one becomes garbage | the guard returns the object when dropped; [`Pooled::into_inner`] keeps it |
//! | reset | left to the user; a forgotten one hands the last user's data to the next | generated field by field by the derive and always run on release; an object whose user or reset panicked is dropped, never reused |
//! | statistics | none | [`Pool::stats`] |
//!
//! # Decoding with serde
//!
//! With the `serde` feature, [`Pooled<T>`] implements `Deserialize` for
//! `T: Poolable + Deserialize`: decoding acquires an object from `T`'s pool and
//! fills it in place, so a warm decode reuses the object and its buffers. It
//! is the Rust form of Go's `json.Unmarshal(body, pooledObj)`. `Pooled<T>` also
//! implements `Serialize` for `T: Serialize`, as `T` does.
//!
//! ```
//! # #[cfg(all(feature = "serde", feature = "derive"))] {
//! use pool_core::{Poolable, Pooled};
//! use serde::Deserialize;
//!
//! #[derive(Poolable, Default, Deserialize)]
//! struct Request {
//!     method: String,
//!     path: String,
//!     ids: Vec<u64>,
//! }
//!
//! fn handle(body: &[u8]) -> Result<usize, serde_json::Error> {
//!     let req: Pooled<Request> = serde_json::from_slice(body)?;
//!     Ok(req.path.len() + req.ids.len())
//! }
//!
//! assert_eq!(handle(br#"{"method": "GET", "path": "/", "ids": [7, 8]}"#).unwrap(), 3);
//! assert!(handle(br#"{"method": "GET"}"#).is_err()); // nothing handed out
//! # }
//! ```
//!
//! A derived struct is decoded field by field, in place, with no setting of
//! yours: the `serde` feature turns on serde_derive's `deserialize_in_place`
//! feature, and Cargo enables it for your `#[derive(Deserialize)]` too (a
//! build has one serde_derive). The dependencies are just:
//!
//! ```toml
//! [dependencies]
//! pool-core = { version = "0.1", features = ["serde"] }
//! serde = { version = "1", features = ["derive"] }
//! ```
//!
//! **Decoded in place**, allocating nothing once warm as long as the values
//! fit the buffers that earlier decodes left:
//! - `String`: cleared, then the text copied into the kept buffer;
//! - `Vec`, `VecDeque`, `BinaryHeap` and `HashSet`: the buffer is kept, and
//!   the elements are new values (reset dropped the old ones), so a
//!   `Vec<u64>` allocates nothing and a `Vec<String>` one string per element;
//! - numbers, `bool`, `char`, tuples, arrays of up to 32 elements, and nested
//!   structs that derive `Deserialize`;
//! - `Vec<Pooled<U>>` elements and `Option<Pooled<U>>`: each `Pooled<U>` is
//!   acquired from `U`'s pool, so the children are reused too.
//!
//! **Decoded to a fresh value, then assigned**, allocating whatever the value
//! owns:
//! - `Option<T>` (serde has no in-place `Option`, and reset sets it to
//!   `None`): an `Option<String>` allocates its string on every decode;
//! - enums, derived or not;
//! - `HashMap` and `BTreeMap`: the whole map is rebuilt, table, keys and
//!   values; `BTreeSet` has no buffer to keep;
//! - `Box<T>`: a new box;
//! - fields with `#[serde(with = ...)]` or `deserialize_with`; and the whole
//!   struct when it has a `#[serde(flatten)]` field, or is
//!   `#[serde(transparent)]`, `from` or `try_from`;
//! - arrays of more than 32 elements, for which serde has no `Deserialize`:
//!   they need `deserialize_with`, and are then copied in (no allocation).
//!
//! The format may allocate as well: serde_json's `from_slice` and `from_str`
//! copy a string that contains escape sequences (`\n`, `\"`, `\u00e9`)
//! through a scratch buffer they allocate per call, and `from_reader` always
//! buffers. The repository's `tests/serde_alloc.rs` counts these cases.
//!
//! **What differs from decoding a fresh `T`.** A field the input leaves out
//! gets what a fresh decode would give when serde fills it in (`None` for an
//! `Option`, the default for `#[serde(default)]`). A field serde never sets
//! (`#[serde(skip)]`, `skip_deserializing`) keeps the state the pool's reset
//! left, not `Default::default()`. A `#[pool(skip)]` field that the input does
//! not set keeps the previous user's value, as it would without serde.
//!
//! **Errors.** A failed decode returns the error and no object. The object
//! was half filled; its guard resets it and returns it to the pool before the
//! error reaches you, so the next user gets it clean. If the decoder panics
//! instead, the object is dropped, like any object whose guard is dropped
//! during a panic.
//!
//! **Pools declared with [`pool!`].** Their guards serialize, but a
//! `Pooled<Vec<u64>>` cannot implement `Deserialize`: its type does not say
//! which pool to take from. The pool itself is the seed (serde's
//! `DeserializeSeed`): it acquires an object and decodes into it in place.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use pool_core::{Pool, pool};
//! use serde::de::DeserializeSeed;
//!
//! pool! { static IDS: Pool<Vec<u64>> = Pool::new(Vec::new); }
//!
//! let mut de = serde_json::Deserializer::from_slice(b"[1, 2, 3]");
//! let ids = (&IDS).deserialize(&mut de)?;
//! de.end()?;
//! assert_eq!(*ids, [1, 2, 3]);
//! # }
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! # With tokio and axum
//!
//! A guard is `Send` (for `T: Send`), so it moves into a task, can be held
//! across an `.await`, and may be dropped on another worker than the one
//! that acquired it: the object then goes into the cache of the thread
//! that drops it. Nothing pins an object to a thread; when one worker's
//! cache fills up it spills half to the shared store, and a worker whose
//! cache is empty refills from there, so objects that drift between
//! workers cost a lock once per batch, not per object.
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use pool_core::{Poolable, Pooled};
//!
//! #[derive(Poolable, Default)]
//! struct Job {
//!     input: Vec<u8>,
//!     output: String,
//! }
//!
//! async fn handle(mut job: Pooled<Job>) -> usize {
//!     job.input.extend_from_slice(b"payload");
//!     tokio::task::yield_now().await; // may resume on another worker
//!     // Blocking work goes to tokio's blocking threads, the guard with it.
//!     let job = tokio::task::spawn_blocking(move || {
//!         job.output = String::from_utf8_lossy(&job.input).into_owned();
//!         job
//!     })
//!     .await
//!     .unwrap();
//!     job.output.len()
//! } // dropped on the worker running the task now: into that worker's cache
//!
//! let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build()?;
//! let total: usize = runtime.block_on(async {
//!     let tasks: Vec<_> = (0..64).map(|_| tokio::spawn(handle(Job::acquire()))).collect();
//!     let mut total = 0;
//!     for task in tasks {
//!         total += task.await.unwrap();
//!     }
//!     total
//! });
//! assert_eq!(total, 64 * "payload".len());
//! let stats = Job::pool().stats();
//! assert_eq!(stats.acquired(), 64);
//! assert_eq!(stats.in_use(), 0); // every guard came back, wherever it was dropped
//! # }
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! **axum.** With the `serde` feature, `Json<Pooled<T>>` is an extractor
//! like `Json<T>`: axum decodes the body into an object from `T`'s pool, in
//! place, and a body that does not decode is rejected as usual, its
//! half-filled object reset and returned first. (Shown as text: axum is
//! not among this crate's dependencies; the example below builds it.)
//!
//! ```text
//! async fn create(Json(req): Json<Pooled<Request>>) -> StatusCode {
//!     store(&req.name, &req.tags); // `req` derefs to `Request`
//!     StatusCode::CREATED
//! } // the request goes back to the pool, reset, buffers kept
//!
//! let app = Router::new().route("/requests", post(create));
//! ```
//!
//! The repository's `perf/examples/axum_service.rs` is such a service,
//! measured under a loopback load next to `Json<Request>`, with a
//! `/metrics` route for the pools (feature `metrics`).
//!
//! **Rotation.** Leave it on its default (every minute, on its own
//! thread). A tokio worker that goes idle after a burst parks with what
//! its cache holds; rotation ages the caches of parked workers as it ages
//! the shared store, so the runtime gives that memory back within two
//! periods with no call from the application (on Linux and Windows; see
//! [how rotation bounds memory](#how-rotation-bounds-memory) for the
//! other platforms). A periodic task calling [`rotate`]
//! is not needed, and would stall a worker while destructors run.
//!
//! **Blocking threads.** A `spawn_blocking` thread is an ordinary thread
//! with a cache of its own, up to `thread_capacity` per pool; tokio keeps
//! up to 512 of them and ends one after 10 s idle, when its cache goes to
//! the shared store. For a type used mostly on blocking threads, a small
//! `thread_capacity` keeps `threads × thread_capacity` small.
//!
//! # With rayon
//!
//! Each rayon worker is a thread with its own cache, so a closure that
//! acquires, uses and drops a guard is served from the worker's cache
//! with no lock: the pool makes about one object per worker.
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use std::fmt::Write;
//!
//! use pool_core::{Poolable, Pooled};
//! use rayon::prelude::*;
//!
//! #[derive(Poolable, Default)]
//! struct Scratch {
//!     line: String,
//! }
//!
//! let lengths: Vec<usize> = (0..1000u32)
//!     .into_par_iter()
//!     .map(|i| {
//!         let mut scratch = Scratch::acquire(); // this worker's cache
//!         write!(scratch.line, "record {i}").unwrap();
//!         scratch.line.len()
//!     })
//!     .collect();
//! assert_eq!(lengths[999], "record 999".len());
//! // One object per worker at most: each worker reused its own.
//! assert!(Scratch::pool().stats().created <= rayon::current_num_threads() as u64);
//!
//! // Guards made on the workers and dropped here go to this thread's
//! // cache, and past its `thread_capacity` to the shared store, where the
//! // workers' next acquires find them.
//! let batch: Vec<Pooled<Scratch>> = (0..100).into_par_iter().map(|_| Scratch::acquire()).collect();
//! drop(batch);
//! assert_eq!(Scratch::pool().stats().in_use(), 0);
//! # }
//! ```
//!
//! rayon's threads live as long as their thread pool and sleep when there
//! is no work; rotation ages a sleeping worker's cache like a parked tokio
//! worker's, so a pipeline that has finished gives its objects back
//! without a call.
//!
//! # Features
//!
//! - `derive` (on by default): `#[derive(Poolable)]`, from the `pool-derive`
//!   crate.
//! - `serde`: `Serialize` and `Deserialize` for [`Pooled<T>`], as above.
//! - `bytes`, `smallvec`, `hashbrown`, `indexmap`: [`Reset`] for
//!   `bytes::BytesMut`, `smallvec::SmallVec`, and hashbrown's and
//!   indexmap's maps and sets (cleared, allocation kept), so they pool with
//!   no newtype.
//! - `metrics`: `pool_core::metrics::publish()` sets every pool's counters and gauges
//!   (`pool_objects_created_total{pool="Request"}`, `pool_objects_idle`,
//!   ...) in the [`metrics`](https://docs.rs/metrics) facade, for the
//!   exporter the application installs; nothing on the acquire/release path.
//!
//! # Invariants
//!
//! 1. An object is owned by exactly one place at a time: one guard, one
//!    thread cache, or one shared tier. Objects move by value (a `Box`), so
//!    the type system, not a flag, rules out handing one object to two
//!    guards.
//! 2. User code (constructor, `reset`, destructors) never runs while the
//!    pool holds a lock or a borrow of a thread cache; any of it may use the
//!    pool again.
//! 3. Every tier is bounded: `capacity` for the shared tiers together,
//!    `thread_capacity` for each thread cache.
//! 4. A guard dropped during a panic, or whose `reset` panics, never returns
//!    its object.
//! 5. A thread's exit hands its cached objects to a static pool's shared
//!    store; an object released after the thread's cache is gone goes there
//!    directly. A run-time pool's cache of an exited thread waits for the
//!    next thread that gets the same thread id, for rotation (which ages
//!    it as an idle thread's), or for the pool's end, which drops it.
//!
//! See `docs/DESIGN.md` in the repository for the reasoning and the
//! measurements behind these choices, and the module docs of `local`
//! (the thread cache), `shared` (the shared store) and `epoch` (rotation)
//! for the details next to the code.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// Without the `derive` feature the docs' links to the derive have nothing
// to resolve to; they are checked in the default build.
#![cfg_attr(not(feature = "derive"), allow(rustdoc::broken_intra_doc_links))]

// The layers, bottom up; a module imports only from its own layer or
// those below it (`scripts/layers.sh` checks it, docs/DESIGN.md draws it).
mod engine;
mod forward;
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub mod metrics;
mod pool;
mod poolable;
mod reset;
mod rotator;
#[cfg(feature = "serde")]
mod serde;
mod sync;

#[cfg(test)]
mod tests;

pub use engine::auto::{DEFAULT_ROTATION_PERIOD, set_rotation_period};
pub use engine::registry::{PoolInfo, pools, rotate};
pub use engine::stats::Stats;
pub use pool::Pool;
pub use pool::config::{DEFAULT_CAPACITY, DEFAULT_THREAD_CAPACITY, PoolConfig};
pub use pool::guard::Pooled;
pub use pool::runtime::{PoolBuilder, PoolHandle};
pub use poolable::Poolable;
pub use reset::Reset;
pub use rotator::Rotator;

// The derive's reference, every example a doctest. rustdoc renders a
// re-export's docs followed by the original item's, so the page ends with
// `pool-derive`'s own doc comment on the macro, under the last heading of
// `derive.md`.
#[doc = include_str!("../derive.md")]
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use pool_derive::Poolable;

#[doc(hidden)]
pub mod __private;

/// The crate README's examples, compiled and run as doctests.
#[cfg(all(doctest, feature = "derive"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
