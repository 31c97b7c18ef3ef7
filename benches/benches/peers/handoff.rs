//! Workload 3: cross-thread return. One thread acquires and writes, another
//! releases; the same rings and batches for every variant
//! ([`pool_perf::handoff`]).

use std::cell::UnsafeCell;

use pool_perf::handoff::{BATCH, DEPTH, Handoff, RoundsRun, TimedRun, WARM, handoff};
use pool_perf::round_trip::VARIANTS;

use crate::counting::ALLOC;
use crate::{Alloc, ArrayQueuePool, CAPACITY, Obj, Statics, THREAD_CAPACITY};

/// The live heap bytes, for [`handoff`]'s memory checkpoints.
fn live() -> i64 {
    ALLOC.live()
}

/// Parameters of one handoff run.
#[derive(Clone, Copy)]
pub(crate) struct Run {
    pub(crate) warm: u64,
    pub(crate) iters: u64,
    pub(crate) checkpoint: u64,
    /// The memory pass: pool-core uses its cold static pool.
    pub(crate) cold: bool,
}

/// Something done with each variant's cross-thread run.
pub(crate) trait Handoffs {
    fn variant(&mut self, name: &'static str, run: impl Fn(Run) -> Handoff + 'static);
}

/// Hands each variant's cross-thread run to `v`: a fresh pool, then
/// [`handoff`] with the peer's acquire and release. Variants that cannot
/// return an object on another thread are listed in [`CROSS_NOT_APPLICABLE`].
pub(crate) fn handoffs<T: Statics>(v: &mut impl Handoffs) {
    // The harness alone: integers through the same rings, no objects and
    // no pool. What it costs is in every other row, so it must stay far
    // below them for those rows to measure pools.
    v.variant(HARNESS, |run| {
        handoff(run.warm, run.iters, run.checkpoint, live, |i| i, drop)
    });
    // No pool: the producer's reset and write on objects that never move
    // (see [`Floor`]). What the harness and the object's own work cost, and
    // so the least any pool's row can be.
    v.variant(FLOOR, |run| {
        let floor = Floor::<T>::new();
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| floor.take(i),
            drop,
        )
    });
    v.variant("pool", |run| {
        let acquire = if run.cold { T::core_cold } else { T::core };
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = acquire();
                s.write(i);
                s
            },
            drop,
        )
    });
    // The same static pool's configuration, resetting on acquire: the
    // producer resets what it takes, the consumer only files it.
    v.variant(POOL_ON_ACQUIRE, |run| {
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = T::core_on_acquire();
                s.write(i);
                s
            },
            drop,
        )
    });
    // A run-time pool, fresh for each run as the peers' pools are.
    v.variant("runtime", |run| {
        let pool = pool_core::Pool::builder(T::create)
            .capacity(CAPACITY)
            .thread_capacity(THREAD_CAPACITY)
            .build();
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = pool.acquire();
                s.write(i);
                s
            },
            drop,
        )
    });
    v.variant("box", |run| {
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = Box::new(T::create());
                s.write(i);
                s
            },
            drop,
        )
    });
    v.variant("thread_local", |run| {
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = T::with_free_list(Vec::pop).unwrap_or_else(|| Box::new(T::create()));
                s.write(i);
                s
            },
            |mut s| {
                s.clean();
                T::with_free_list(|free| free.push(s));
            },
        )
    });
    v.variant("object-pool", |run| {
        let pool = object_pool::Pool::<T::ByValue>::new(0, T::ByValue::create);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = pool.pull(T::ByValue::create);
                s.write(i);
                s
            },
            |mut s| s.clean(),
        )
    });
    v.variant("opool", |run| {
        let pool = opool::Pool::<Alloc, T::ByValue>::new(CAPACITY, Alloc);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = pool.get();
                s.write(i);
                s
            },
            drop,
        )
    });
    // The hand-written `ArrayQueue` pool (`ArrayQueuePool`).
    v.variant(ARRAY_QUEUE, |run| {
        let pool = ArrayQueuePool::<T>::new();
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| pool.acquire(i),
            |s| pool.release(s),
        )
    });
    v.variant("sharded-slab", |run| {
        let pool = sharded_slab::Pool::<T>::new();
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                pool.create_with(|s| s.write(i))
                    .expect("sharded-slab: shard full")
            },
            |key| {
                pool.clear(key);
            },
        )
    });
    v.variant("regex-automata", |run| {
        let pool = regex_automata::util::pool::Pool::<T, fn() -> T>::new(T::create as fn() -> T);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = pool.get();
                s.write(i);
                s
            },
            |mut s| s.clean(),
        )
    });
    v.variant("poolshark", |run| {
        let pool = poolshark::global::Pool::<T::ByValue>::new(CAPACITY, CAPACITY);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = pool.take();
                s.write(i);
                s
            },
            drop,
        )
    });
    v.variant("lockfree-object-pool", |run| {
        let pool = lockfree_object_pool::LinearObjectPool::<T>::new(T::create, T::clean);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            live,
            |i| {
                let mut s = pool.pull();
                s.write(i);
                s
            },
            drop,
        )
    });
}

/// The harness-only row of the cross-thread workload.
pub(crate) const HARNESS: &str = "harness";
/// The no-pool row of the cross-thread workload ([`Floor`]).
pub(crate) const FLOOR: &str = "floor";

/// The floor of the cross-thread workload: a fixed ring of objects, one
/// per object in flight, that the producer resets and writes in turn and
/// the consumer only lets go of. Each object is handed across as every
/// pool's is, but nothing carries it back: no cache, no queue, no atomic
/// per object. Its row is the harness plus the object's own work (the same
/// reset and write as every other row), which no pool can undercut: a
/// pool's ratio to a peer in a round is at least the floor's.
struct Floor<T> {
    objects: Box<[UnsafeCell<T>]>,
}

/// The ring's length: one more batch than the harness's buffers hold.
/// The harness has `DEPTH + 2` buffers, which the producer fills and the
/// consumer drains in turn (both rings are first in, first out), so the
/// producer fills batch `n` only after popping the buffer that carried
/// batch `n - DEPTH - 2`, which the consumer pushes back once it has
/// released every object of it and of the batches before. Object `i`'s
/// index was last used by object `i - FLOOR_RING`, of an earlier batch
/// than that; and a round's objects count from 0 again only after the
/// warm-up's are all released (the start line).
const FLOOR_RING: u64 = ((DEPTH + 3) * BATCH) as u64;

// SAFETY: the objects are reached only through `Floor::take`, whose
// caller holds one at a time per index (see `FLOOR_RING`); `T: Send` lets
// the one who holds it be another thread.
unsafe impl<T: Send> Sync for Floor<T> {}

impl<T: Statics> Floor<T> {
    fn new() -> Self {
        Floor {
            objects: (0..FLOOR_RING)
                .map(|_| UnsafeCell::new(T::create()))
                .collect(),
        }
    }

    /// Object `i` of the handoff, reset and written, for the producer; the
    /// consumer's drop of the reference releases it.
    #[allow(
        clippy::mut_from_ref,
        reason = "each index is lent to one holder at a time (`FLOOR_RING`)"
    )]
    fn take(&self, i: u64) -> &mut T {
        let index = usize::try_from(i % FLOOR_RING).expect("the ring's length fits in usize");
        // SAFETY: object `i - FLOOR_RING`, the last to hold this index, has
        // been released, its release ordered before this by the harness's
        // rings (see `FLOOR_RING`), and object `i + FLOOR_RING` will not be
        // taken before this one is released: the index is this caller's
        // alone until then.
        let object = unsafe { &mut *self.objects[index].get() };
        object.clean();
        object.write(i);
        object
    }
}

/// pool-core's static pool resetting on acquire (cross-thread only).
pub(crate) const POOL_ON_ACQUIRE: &str = "pool_on_acquire";
/// The hand-written crossbeam `ArrayQueue` pool (cross-thread only).
pub(crate) const ARRAY_QUEUE: &str = "arrayqueue";

/// The peers of each reset mode (issue 26): those that reset on release,
/// as pool-core's default does (poolshark, and the hand-written free
/// list), and those that reset on acquire (opool, and the `ArrayQueue`
/// pool).
pub(crate) const ON_RELEASE_PEERS: [&str; 2] = ["poolshark", "thread_local"];
pub(crate) const ON_ACQUIRE_PEERS: [&str; 2] = ["opool", ARRAY_QUEUE];

/// The cross-thread rows, in the order of the report: the harness and the
/// floor, the variants of every workload, and the two of this one only.
pub(crate) fn cross_variants() -> impl Iterator<Item = &'static str> {
    [HARNESS, FLOOR]
        .into_iter()
        .chain(VARIANTS.iter().flat_map(|&name| match name {
            "pool" => vec![name, POOL_ON_ACQUIRE],
            "opool" => vec![name, ARRAY_QUEUE],
            _ => vec![name],
        }))
}

/// Variants with no cross-thread run, and why.
pub(crate) const CROSS_NOT_APPLICABLE: [(&str, &str); 3] = [
    (
        "lifeguard",
        "not Send: the pool is an Rc<RefCell<..>> and a guard borrows it",
    ),
    (
        "opool_local",
        "not Send: a LocalPool's guard cannot leave its thread",
    ),
    (
        "poolshark_local",
        "returns objects to the dropping thread's pool, so the producer never reuses; the crate points to its global pool (`poolshark`) for this",
    ),
];

/// Collects each variant's cross-thread run, to be timed in interleaved
/// rounds ([`RoundsRun::run`]): criterion does not time this workload,
/// whose figure is the median of [`ROUNDS`](pool_perf::handoff::ROUNDS)
/// fresh runs, with the slowest and fastest round beside it.
#[derive(Default)]
pub(crate) struct CrossRounds {
    runs: Vec<(String, Box<TimedRun>)>,
}

impl Handoffs for CrossRounds {
    fn variant(&mut self, name: &'static str, run: impl Fn(Run) -> Handoff + 'static) {
        self.runs.push((
            name.to_owned(),
            Box::new(move |iters| {
                run(Run {
                    warm: WARM,
                    iters,
                    checkpoint: u64::MAX,
                    cold: false,
                })
                .elapsed
            }),
        ));
    }
}

impl CrossRounds {
    /// Runs the rounds of the wanted variants of `group`.
    pub(crate) fn run(&self, rounds: &RoundsRun, group: &str, objects: u64) {
        let runs: Vec<(String, &TimedRun)> = self
            .runs
            .iter()
            .map(|(name, run)| (name.clone(), &**run))
            .collect();
        rounds.run(group, objects, &runs);
    }
}
