//! Workload 3: cross-thread return. One thread acquires and writes, another
//! releases; the same channel and batches for every variant.

use std::sync::Barrier;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use crate::{Alloc, CAPACITY, Obj, Statics};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

use crate::counting::ALLOC;

/// Objects per batch handed from the producer to the consumer.
pub(crate) const BATCH: usize = 64;
/// Batches in flight in the channel (plus one being filled and one being
/// drained): at most `(DEPTH + 2) * BATCH` objects out of the pool.
pub(crate) const DEPTH: usize = 4;
/// Objects run through each sample's fresh pool before the clock starts.
pub(crate) const WARM: u64 = 4096;
/// The memory pass: heap held after this many objects...
pub(crate) const MEMORY_N1: u64 = 50_000;
/// ... and after this many.
pub(crate) const MEMORY_N2: u64 = 200_000;

/// How one run of the handoff went.
#[derive(Clone, Copy, Default)]
pub(crate) struct Handoff {
    /// From the producer's first timed acquire to the consumer's last
    /// release.
    pub(crate) elapsed: Duration,
    /// Live heap bytes (`Counting::live`) after `checkpoint` objects were
    /// released, and after all of them.
    pub(crate) live_at_checkpoint: i64,
    pub(crate) live_at_end: i64,
}

/// The producer acquires `warm + iters` objects in batches and writes into
/// each; the consumer releases them. Both threads are fresh. The clock runs
/// over the last `iters` only.
pub(crate) fn handoff<G: Send>(
    warm: u64,
    iters: u64,
    checkpoint: u64,
    acquire: impl Fn(u64) -> G + Sync,
    release: impl Fn(G) + Sync,
) -> Handoff {
    let (full_tx, full_rx) = sync_channel::<Vec<G>>(DEPTH);
    let (empty_tx, empty_rx) = sync_channel::<Vec<G>>(DEPTH + 2);
    for _ in 0..DEPTH + 2 {
        empty_tx
            .send(Vec::with_capacity(BATCH))
            .expect("receiver alive");
    }
    let barrier = Barrier::new(2);
    let (acquire, release, barrier) = (&acquire, &release, &barrier);
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || {
            let produce = |n: u64| {
                let mut i = 0;
                while i < n {
                    let mut batch = recv(&empty_rx).expect("consumer alive");
                    let end = (i + BATCH as u64).min(n);
                    for j in i..end {
                        batch.push(acquire(j));
                    }
                    assert!(send(&full_tx, batch), "consumer gone");
                    i = end;
                }
            };
            produce(warm);
            barrier.wait();
            let start = Instant::now();
            produce(iters);
            start
        });
        let consumer = scope.spawn(move || {
            let drain = |n: u64, checkpoint: u64| {
                let mut released = 0;
                let mut at_checkpoint = None;
                while released < n {
                    let mut batch = recv(&full_rx).expect("producer alive");
                    released += batch.len() as u64;
                    batch.drain(..).for_each(release);
                    if released >= checkpoint && at_checkpoint.is_none() {
                        at_checkpoint = Some(ALLOC.live());
                    }
                    // The producer may be gone after the last batch.
                    send(&empty_tx, batch);
                }
                at_checkpoint.unwrap_or_default()
            };
            drain(warm, u64::MAX);
            barrier.wait();
            let live_at_checkpoint = drain(iters, checkpoint);
            (Instant::now(), live_at_checkpoint)
        });
        let start = producer.join().expect("producer panicked");
        let (end, live_at_checkpoint) = consumer.join().expect("consumer panicked");
        Handoff {
            elapsed: end.saturating_duration_since(start),
            live_at_checkpoint,
            live_at_end: ALLOC.live(),
        }
    })
}

/// Tries before a handoff blocks. Blocking parks the thread on a futex and
/// the other thread's next send or receive must wake it (a system call and a
/// reschedule, microseconds): when one side waits for every batch, that
/// cost, not the pools', is what a run measures, and whether it happens
/// flips from sample to sample. So a handoff first tries [`SPINS`] times
/// with a spin hint, then [`YIELDS`] times yielding the core (which lets the
/// other thread run if the two share one), and only then blocks.
pub(crate) const SPINS: u32 = 256;
/// See [`SPINS`].
pub(crate) const YIELDS: u32 = 256;

/// Between two tries of a handoff.
pub(crate) fn pause(attempt: u32) {
    if attempt < SPINS {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// `rx.recv()`, spinning and yielding first.
pub(crate) fn recv<T>(rx: &Receiver<T>) -> Option<T> {
    for attempt in 0..SPINS + YIELDS {
        match rx.try_recv() {
            Ok(value) => return Some(value),
            Err(TryRecvError::Empty) => pause(attempt),
            Err(TryRecvError::Disconnected) => return None,
        }
    }
    rx.recv().ok()
}

/// `tx.send(value)`, spinning and yielding first while the channel is full.
/// `false` if the receiver is gone.
pub(crate) fn send<T>(tx: &SyncSender<T>, mut value: T) -> bool {
    for attempt in 0..SPINS + YIELDS {
        match tx.try_send(value) {
            Ok(()) => return true,
            Err(TrySendError::Full(back)) => {
                value = back;
                pause(attempt);
            }
            Err(TrySendError::Disconnected(_)) => return false,
        }
    }
    tx.send(value).is_ok()
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
    fn variant(&mut self, name: &'static str, run: impl Fn(Run) -> Handoff);
}

/// Hands each variant's cross-thread run to `v`: a fresh pool, then
/// [`handoff`] with the peer's acquire and release. Variants that cannot
/// return an object on another thread are listed in [`CROSS_NOT_APPLICABLE`].
pub(crate) fn handoffs<T: Statics>(v: &mut impl Handoffs) {
    v.variant("pool", |run| {
        let acquire = if run.cold { T::core_cold } else { T::core };
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = acquire();
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
            |i| {
                let mut s = pool.get();
                s.write(i);
                s
            },
            drop,
        )
    });
    v.variant("sharded-slab", |run| {
        let pool = sharded_slab::Pool::<T>::new();
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
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
            |i| {
                let mut s = pool.pull();
                s.write(i);
                s
            },
            drop,
        )
    });
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

/// Times each cross-thread run.
pub(crate) struct CrossTimed<'g, 'c>(pub(crate) &'g mut BenchmarkGroup<'c, WallTime>);

impl Handoffs for CrossTimed<'_, '_> {
    fn variant(&mut self, name: &'static str, run: impl Fn(Run) -> Handoff) {
        self.0.bench_function(name, |b| {
            b.iter_custom(|iters| {
                run(Run {
                    warm: WARM,
                    iters,
                    checkpoint: u64::MAX,
                    cold: false,
                })
                .elapsed
            });
        });
    }
}
