//! The cross-thread handoff the benches time: one thread acquires objects
//! in batches and writes into each, another releases them, through bounded
//! channels that both sides spin on before they block. The same channel and
//! batches for every variant (`benches/peers`' workload 3, and the
//! allocators' cross-thread rows in `benches/allocators`).

use std::sync::Barrier;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::time::{Duration, Instant};

/// Objects per batch handed from the producer to the consumer.
pub const BATCH: usize = 64;
/// Batches in flight in the channel (plus one being filled and one being
/// drained): at most `(DEPTH + 2) * BATCH` objects out of the pool.
pub const DEPTH: usize = 4;
/// Objects run through each sample's fresh pool before the clock starts.
pub const WARM: u64 = 4096;
/// The memory pass: heap held after this many objects...
pub const MEMORY_N1: u64 = 50_000;
/// ... and after this many.
pub const MEMORY_N2: u64 = 200_000;

/// How one run of the handoff went.
#[derive(Clone, Copy, Default)]
pub struct Handoff {
    /// From the producer's first timed acquire to the consumer's last
    /// release.
    pub elapsed: Duration,
    /// Live heap bytes (`Counting::live`) after `checkpoint` objects were
    /// released.
    pub live_at_checkpoint: i64,
    /// Live heap bytes after all of them.
    pub live_at_end: i64,
}

/// The producer acquires `warm + iters` objects in batches and writes into
/// each; the consumer releases them. Both threads are fresh. The clock runs
/// over the last `iters` only. `live` reads the live heap bytes (the
/// counting allocator's, or `|| 0` under an allocator that does not count).
pub fn handoff<G: Send>(
    warm: u64,
    iters: u64,
    checkpoint: u64,
    live: fn() -> i64,
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
                        at_checkpoint = Some(live());
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
            live_at_end: live(),
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
pub const SPINS: u32 = 256;
/// See [`SPINS`].
pub const YIELDS: u32 = 256;

/// Between two tries of a handoff.
pub fn pause(attempt: u32) {
    if attempt < SPINS {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// `rx.recv()`, spinning and yielding first.
pub fn recv<T>(rx: &Receiver<T>) -> Option<T> {
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
pub fn send<T>(tx: &SyncSender<T>, mut value: T) -> bool {
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
