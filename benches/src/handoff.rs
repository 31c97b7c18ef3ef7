//! The cross-thread handoff the benches time: one thread acquires objects
//! in batches and writes into each, another releases them. The same rings
//! and batches for every variant (`benches/peers`' workload 3, and the
//! allocators' cross-thread rows in `benches/allocators`), timed in
//! [`RoundsRun::run`].
//!
//! # A harness that measures the pools, not the queue
//!
//! The first version sent each batch over a `std::sync::mpsc::sync_channel`
//! and blocked when spinning did not help: its harness-only row (integers,
//! no pool) took 92.5 ns per item, against 141 for opool and 226 for
//! pool-core (issue 16), so most of every row was futex sleeps and
//! wake-ups. Now:
//!
//! - A batch of [`BATCH`] objects travels as one message, a `Vec` the
//!   producer fills and the consumer drains; the consumer sends the empty
//!   `Vec` back on a second ring, so the harness allocates nothing after
//!   its set-up ([`DEPTH`]` + 2` buffers, made before the clock starts).
//! - Both rings are [`crossbeam_queue::ArrayQueue`]s: bounded, lock-free,
//!   never blocking. A side that finds its ring empty (or full) spins with
//!   [`std::hint::spin_loop`] for [`SPINS`] tries, then also yields its
//!   core on every try ([`pause`]): on a 2-core machine shared with other
//!   work, the thread it waits for may be descheduled, and spinning against
//!   it would only delay it. No side ever sleeps on a futex.
//! - The two threads meet at a spinning start line, not a
//!   `std::sync::Barrier` (which parks the first to arrive): the timed part
//!   starts with both threads running.
//!
//! Per object the harness costs a `Vec` push and a drain step; per batch,
//! one push and one pop on each ring (a compare-and-swap each, and the ring
//! slots' cache lines moving between the cores), shared by 64 objects.
//!
//! Why `ArrayQueue` and not an SPSC ring such as `rtrb`, which would save
//! the compare-and-swap: `ArrayQueue` is in the dependency tree already
//! (opool and poolshark are built on it) and is crossbeam's, and the
//! compare-and-swap is paid once per 64 objects, a fraction of a
//! nanosecond per object. The harness-only row is there to show it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_queue::ArrayQueue;

/// Objects per batch handed from the producer to the consumer.
pub const BATCH: usize = 64;
/// Batches in flight in the ring (plus one being filled and one being
/// drained): at most `(DEPTH + 2) * BATCH` objects out of the pool.
pub const DEPTH: usize = 4;
/// Objects run through each round's fresh pool before the clock starts.
pub const WARM: u64 = 4096;
/// The memory pass: heap held after this many objects...
pub const MEMORY_N1: u64 = 50_000;
/// ... and after this many.
pub const MEMORY_N2: u64 = 200_000;
/// Timed rounds per variant; the figure is their median.
pub const ROUNDS: usize = 7;

/// The handoff with blocking queues, for counting instructions under
/// callgrind: the producer (the calling thread) acquires `n` objects in
/// batches of [`BATCH`] and hands each batch to a consumer thread, which
/// releases them and hands the buffer back; `DEPTH + 2` buffers, as
/// [`handoff`]'s. A side with nothing to do waits on a condition variable
/// at once, with no spinning (which `std::sync::mpsc`'s channels do before
/// they park), so the count does not depend on how long the other thread
/// took: the spinning [`handoff`] is for timing, this one for
/// instructions.
pub fn handoff_blocking<G: Send + 'static>(
    n: u64,
    acquire: impl Fn(u64) -> G,
    release: impl Fn(G) + Send + 'static,
) {
    let queues = Arc::new(Queues {
        state: Mutex::new(Batches {
            full: VecDeque::new(),
            empty: (0..DEPTH + 2).map(|_| Vec::with_capacity(BATCH)).collect(),
            done: false,
        }),
        filled: Condvar::new(),
        emptied: Condvar::new(),
    });
    let theirs = Arc::clone(&queues);
    let consumer = std::thread::spawn(move || {
        while let Some(mut batch) = theirs.next_full() {
            batch.drain(..).for_each(&release);
            theirs.give_back(batch);
        }
    });
    let mut i = 0;
    while i < n {
        let mut batch = queues.next_empty();
        let end = (i + BATCH as u64).min(n);
        batch.extend((i..end).map(&acquire));
        queues.send(batch);
        i = end;
    }
    queues.finish();
    consumer.join().expect("consumer panicked");
}

/// [`handoff_blocking`]'s two queues of buffers, under one lock.
struct Queues<G> {
    state: Mutex<Batches<G>>,
    /// Signalled when a batch is sent, or the producer has finished.
    filled: Condvar,
    /// Signalled when an empty buffer comes back.
    emptied: Condvar,
}

struct Batches<G> {
    full: VecDeque<Vec<G>>,
    empty: Vec<Vec<G>>,
    /// The producer has sent its last batch.
    done: bool,
}

impl<G> Queues<G> {
    fn lock(&self) -> MutexGuard<'_, Batches<G>> {
        self.state.lock().expect("a handoff thread panicked")
    }

    /// The next batch to release; `None` once the producer has finished
    /// and every batch was taken.
    fn next_full(&self) -> Option<Vec<G>> {
        let mut state = self.lock();
        loop {
            if let Some(batch) = state.full.pop_front() {
                return Some(batch);
            }
            if state.done {
                return None;
            }
            state = self.filled.wait(state).expect("a handoff thread panicked");
        }
    }

    fn give_back(&self, batch: Vec<G>) {
        self.lock().empty.push(batch);
        self.emptied.notify_one();
    }

    fn next_empty(&self) -> Vec<G> {
        let mut state = self.lock();
        loop {
            if let Some(batch) = state.empty.pop() {
                return batch;
            }
            state = self.emptied.wait(state).expect("a handoff thread panicked");
        }
    }

    fn send(&self, batch: Vec<G>) {
        self.lock().full.push_back(batch);
        self.filled.notify_one();
    }

    fn finish(&self) {
        self.lock().done = true;
        self.filled.notify_one();
    }
}

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
    let link = Link {
        full: ArrayQueue::new(DEPTH),
        empty: ArrayQueue::new(DEPTH + 2),
        gone: AtomicBool::new(false),
        started: AtomicUsize::new(0),
    };
    for _ in 0..DEPTH + 2 {
        assert!(link.empty.push(Vec::with_capacity(BATCH)).is_ok());
    }
    let (acquire, release, link) = (&acquire, &release, &link);
    let cpus = two_cpus();
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || {
            if let Some([cpu, _]) = cpus {
                pin_to(cpu);
            }
            // Tells the consumer if this thread panics, so that it stops
            // waiting for batches.
            let _gone = HangUp(link);
            let produce = |n: u64| {
                let mut i = 0;
                while i < n {
                    let mut batch = link.pop(&link.empty).expect("consumer panicked");
                    let end = (i + BATCH as u64).min(n);
                    for j in i..end {
                        batch.push(acquire(j));
                    }
                    link.push(&link.full, batch).expect("consumer panicked");
                    i = end;
                }
            };
            produce(warm);
            link.start().expect("consumer panicked");
            let start = Instant::now();
            produce(iters);
            start
        });
        let consumer = scope.spawn(move || {
            if let Some([_, cpu]) = cpus {
                pin_to(cpu);
            }
            let _gone = HangUp(link);
            let drain = |n: u64, checkpoint: u64| {
                let mut released = 0;
                let mut at_checkpoint = None;
                while released < n {
                    let mut batch = link.pop(&link.full).expect("producer panicked");
                    released += batch.len() as u64;
                    batch.drain(..).for_each(release);
                    if released >= checkpoint && at_checkpoint.is_none() {
                        at_checkpoint = Some(live());
                    }
                    // There is room for every buffer: this push never waits.
                    link.push(&link.empty, batch).expect("producer panicked");
                }
                at_checkpoint.unwrap_or_default()
            };
            drain(warm, u64::MAX);
            link.start().expect("producer panicked");
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

/// What the two threads of a handoff share: a bounded lock-free ring of
/// filled batches (producer to consumer) and one of empty buffers (back),
/// a flag that one of them has gone, and their start line.
struct Link<T> {
    full: ArrayQueue<Vec<T>>,
    empty: ArrayQueue<Vec<T>>,
    /// Set when either thread ends or unwinds, so that the other does not
    /// wait for ever on a thread that panicked.
    gone: AtomicBool,
    /// Threads at the start line.
    started: AtomicUsize,
}

/// Sets its link's `gone` when dropped: at the end of its thread, or while
/// that thread unwinds.
struct HangUp<'l, T>(&'l Link<T>);

impl<T> Drop for HangUp<'_, T> {
    fn drop(&mut self) {
        self.0.gone.store(true, Ordering::Release);
    }
}

impl<T> Link<T> {
    /// Pushes `batch` onto `ring`, waiting (spinning, then yielding) while
    /// it is full; `None` if the other thread has gone.
    fn push(&self, ring: &ArrayQueue<Vec<T>>, mut batch: Vec<T>) -> Option<()> {
        let mut attempt = 0;
        loop {
            match ring.push(batch) {
                Ok(()) => return Some(()),
                Err(back) => batch = back,
            }
            if self.gone.load(Ordering::Acquire) {
                return None;
            }
            pause(attempt);
            attempt = attempt.saturating_add(1);
        }
    }

    /// Pops a batch from `ring`, waiting (spinning, then yielding) while it
    /// is empty; `None` if it is still empty once the other thread has
    /// gone (which pushes before it goes).
    fn pop(&self, ring: &ArrayQueue<Vec<T>>) -> Option<Vec<T>> {
        let mut attempt = 0;
        loop {
            if let Some(batch) = ring.pop() {
                return Some(batch);
            }
            if self.gone.load(Ordering::Acquire) {
                return ring.pop();
            }
            pause(attempt);
            attempt = attempt.saturating_add(1);
        }
    }

    /// The start line: waits, spinning (then yielding), until both threads
    /// are at it, so that neither is asleep when the clock starts (a
    /// `std::sync::Barrier` parks the first to arrive). `None` if the other
    /// thread has gone.
    fn start(&self) -> Option<()> {
        self.started.fetch_add(1, Ordering::AcqRel);
        let mut attempt = 0;
        while self.started.load(Ordering::Acquire) < 2 {
            if self.gone.load(Ordering::Acquire) {
                return None;
            }
            pause(attempt);
            attempt = attempt.saturating_add(1);
        }
        Some(())
    }
}

/// Tries of a handoff that only spin, before each further try also yields
/// the core. A spin hint takes about 43 ns on the 2-core machine of
/// `docs/PERFORMANCE.md`, so this is about 3 µs: more than the harness
/// takes to fill a batch, about what a pool at 40 ns per object takes.
/// Yielding sooner lets the other thread run when the two share a core
/// (another process holds the other one). With 1024 spins (44 µs) before
/// the first yield, the harness-only row took 260-300 ns per item while
/// another process held one core, against 30 ns with 64, a minute apart.
/// No try ever blocks.
pub const SPINS: u32 = 64;

/// Between two tries of a handoff: a spin hint, and after [`SPINS`] tries a
/// yield as well.
#[inline]
pub fn pause(attempt: u32) {
    std::hint::spin_loop();
    if attempt >= SPINS {
        std::thread::yield_now();
    }
}

/// Two CPUs this process may run on, for the producer and the consumer:
/// `None` where there are fewer, or off Linux.
///
/// Why pin: a handoff's two threads are new, and Linux often starts both
/// on one CPU and moves one away only milliseconds later, a good part of a
/// round. Until then the two time-share a core, each empty or full ring
/// costs a yield and a context switch, and the round measures the
/// scheduler: in unpinned runs the harness row (integers, no pool) was
/// 1.5–6 ns per object in some rounds and 35–42 in others of the same run
/// (2026-12-01), and every variant moved between two levels with it. Each
/// thread on a CPU of its own, the rounds measure two threads on two cores,
/// which is the workload.
pub fn two_cpus() -> Option<[usize; 2]> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `cpu_set_t` is plain data, valid zeroed; the call
        // writes at most `size_of::<cpu_set_t>()` bytes into it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: as above; pid 0 is this thread.
        if unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
            return None;
        }
        let mut allowed = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `cpu` is below `CPU_SETSIZE`, inside the set.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) });
        Some([allowed.next()?, allowed.next()?])
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Pins the calling thread to `cpu`; a failure leaves it where it was
/// (the rounds then measure what the scheduler does, as before).
fn pin_to(cpu: usize) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `cpu_set_t` is plain data, valid zeroed.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `cpu` came from `two_cpus`, below `CPU_SETSIZE`; the
        // set is `size_of::<cpu_set_t>()` bytes, as the call is told.
        unsafe {
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

/// Time per object of each round, in the order run.
#[derive(Clone, Debug, Default)]
pub struct Rounds {
    /// ns per object, one entry per round.
    pub ns: Vec<f64>,
}

impl Rounds {
    /// Adds a round that took `elapsed` for `objects` objects.
    pub fn push(&mut self, elapsed: Duration, objects: u64) {
        self.ns.push(elapsed.as_secs_f64() * 1e9 / objects as f64);
    }

    /// The median round (of an even number, the mean of the middle two).
    pub fn median(&self) -> f64 {
        let mut sorted = self.ns.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        match n {
            0 => f64::NAN,
            _ if n % 2 == 1 => sorted[n / 2],
            _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        }
    }

    /// The fastest round.
    pub fn min(&self) -> f64 {
        self.ns.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The slowest round.
    pub fn max(&self) -> f64 {
        self.ns.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }

    /// The slowest round over the median: the issue's "every round within
    /// 1.5x of the median" holds when this is at most 1.5.
    pub fn spread(&self) -> f64 {
        self.max() / self.median()
    }

    /// Round by round, this variant's time over the fastest of `others`
    /// in the same round, for rounds run interleaved ([`RoundsRun::run`]):
    /// each ratio compares variants in the same state of the machine,
    /// which on a shared VM changes from one round to the next by more
    /// than the variants differ. Empty unless every one of `others` has as
    /// many rounds as this.
    pub fn per_round_over(&self, others: &[&Rounds]) -> Vec<f64> {
        if others.is_empty() || others.iter().any(|o| o.ns.len() != self.ns.len()) {
            return Vec::new();
        }
        self.ns
            .iter()
            .enumerate()
            .map(|(i, ns)| ns / others.iter().map(|o| o.ns[i]).fold(f64::INFINITY, f64::min))
            .collect()
    }
}

/// Objects per round for an object of `size` bytes: two million small ones
/// (a few milliseconds for the harness alone, so that a scheduler tick is
/// a small part of a round), a quarter of that for large ones, whose
/// slowest variants (the ones that never reuse) otherwise hold gigabytes.
pub fn round_objects(size: usize) -> u64 {
    if size > 1024 { 1 << 18 } else { 1 << 21 }
}

/// One variant's timed run: hands the given number of objects across and
/// returns the time it took.
pub type TimedRun = dyn Fn(u64) -> Duration;

/// How a bench runs its cross-thread rounds, from its command line: which
/// ids criterion's filter selects, and whether this is a real run or
/// `cargo test --benches`' single pass.
pub struct RoundsRun {
    filter: Option<regex::Regex>,
    /// `cargo test --benches` (no `--bench` argument): one short round per
    /// variant, to check that it runs, and nothing saved.
    pub quick: bool,
    /// `--list`: nothing runs.
    pub list: bool,
}

impl RoundsRun {
    /// From `std::env::args()`: the first argument that is not a flag is
    /// the filter, a regex as for criterion.
    pub fn from_args() -> Self {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let flag = |f: &str| args.iter().any(|a| a == f);
        let filter = args
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(|f| regex::Regex::new(f).unwrap_or_else(|e| panic!("bad filter {f:?}: {e}")));
        RoundsRun {
            filter,
            quick: !flag("--bench") || flag("--test"),
            list: flag("--list"),
        }
    }

    /// Whether the benchmark `group/id` is to run.
    pub fn wanted(&self, group: &str, id: &str) -> bool {
        !self.list
            && self
                .filter
                .as_ref()
                .is_none_or(|f| f.is_match(&format!("{group}/{id}")))
    }

    /// Runs the rounds of the wanted variants of `group`, each a name and
    /// a function that runs one handoff of the given number of objects and
    /// returns its time: [`ROUNDS`] rounds of `objects` each (one short one
    /// when quick), interleaved (round 1 of every variant, then round 2,
    /// ...) so that a burst of load from other work on the machine falls on
    /// the rounds of several variants, not on all of one's. Prints each
    /// variant's rounds with the load average before and after them, and
    /// saves them (see [`crate::results::save_rounds`]).
    pub fn run(&self, group: &str, objects: u64, variants: &[(String, &TimedRun)]) {
        let wanted: Vec<_> = variants
            .iter()
            .filter(|(id, _)| self.wanted(group, id))
            .collect();
        if wanted.is_empty() {
            return;
        }
        let (n, objects) = self.plan(objects);
        let load_before = load_average();
        let mut results = vec![Rounds::default(); wanted.len()];
        for _ in 0..n {
            for ((_, run), r) in wanted.iter().zip(&mut results) {
                r.push(run(objects), objects);
            }
        }
        let ids = wanted.iter().map(|(id, _)| id.as_str());
        self.finish(group, &load_before, ids.zip(&results));
    }

    /// How many rounds to run, of how many objects each: [`ROUNDS`] of
    /// `objects`, or one short one when quick.
    pub fn plan(&self, objects: u64) -> (usize, u64) {
        if self.quick {
            (1, WARM)
        } else {
            (ROUNDS, objects)
        }
    }

    /// Prints each variant's rounds of `group` with the load average before
    /// (`load_before`) and now, and saves them unless quick (see
    /// [`crate::results::save_rounds`]).
    pub fn finish<'r>(
        &self,
        group: &str,
        load_before: &str,
        rows: impl Iterator<Item = (&'r str, &'r Rounds)>,
    ) {
        let load = format!("{load_before}-{}", load_average());
        for (id, r) in rows {
            let each: Vec<String> = r.ns.iter().map(|ns| format!("{ns:.1}")).collect();
            println!(
                "{:<44} median {:>8.2} ns/obj  min {:>8.2}  max {:>8.2}  max/median {:.2}  load {load}  rounds [{}]",
                format!("{group}/{id}"),
                r.median(),
                r.min(),
                r.max(),
                r.spread(),
                each.join(" "),
            );
            if !self.quick {
                crate::results::save_rounds(group, id, r);
            }
        }
    }
}

/// The one-minute load average (`/proc/loadavg`), or `?`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_object_is_released_once_on_the_other_thread() {
        let released = AtomicUsize::new(0);
        let producer = std::thread::current().id();
        let run = handoff(
            100,
            1000,
            500,
            || 7,
            |i| (i, std::thread::current().id()),
            |(_, made_on)| {
                assert_ne!(std::thread::current().id(), made_on);
                assert_ne!(std::thread::current().id(), producer);
                released.fetch_add(1, Ordering::Relaxed);
            },
        );
        assert_eq!(released.load(Ordering::Relaxed), 1100);
        assert_eq!(run.live_at_checkpoint, 7);
    }

    #[test]
    fn per_round_ratios_take_the_fastest_other_of_each_round() {
        let pool = Rounds {
            ns: vec![30.0, 100.0, 40.0],
        };
        let a = Rounds {
            ns: vec![40.0, 80.0, 50.0],
        };
        let b = Rounds {
            ns: vec![60.0, 125.0, 20.0],
        };
        assert_eq!(pool.per_round_over(&[&a, &b]), [0.75, 1.25, 2.0]);
        let short = Rounds { ns: vec![1.0] };
        assert!(pool.per_round_over(&[&a, &short]).is_empty());
        assert!(pool.per_round_over(&[]).is_empty());
    }

    #[test]
    fn rounds_report_median_and_spread() {
        let r = Rounds {
            ns: vec![3.0, 1.0, 2.0, 6.0, 2.5],
        };
        assert_eq!(r.median(), 2.5);
        assert_eq!(r.min(), 1.0);
        assert_eq!(r.max(), 6.0);
        assert_eq!(r.spread(), 2.4);
    }
}
