//! A worker pool: a fixed set of threads taking jobs from a channel,
//! each job working in a scratch state that is allocated per job, taken from
//! the pool, or owned by the worker.
//!
//! ```text
//! cargo run --release --example worker_pool
//! ```
//!
//! Each job generates 64 numbers, sorts them, counts the distinct ones in a
//! `HashSet` and formats a summary line: three buffers that grow as they
//! fill. Allocated per job, that is ten allocations; from
//! `Scratch::acquire()`, none once warm, because the released scratch comes
//! back cleared with its capacity. The third row is the plain alternative
//! when you own the worker loop: one scratch per worker, `reset()` after
//! each job. The pool is for scratch needed by code that does not own the
//! loop (a library function called from jobs, a handler on an async
//! runtime). Look at allocs/job and ns/job.
//!
//! Go's advice on `sync.Pool` warns that putting the *tasks* (Go's `func()` closures) in a
//! `sync.Pool` is a misuse: it measured that slower than both alternatives,
//! since a closure captures fresh variables each time. The same holds here:
//! jobs travel as plain data (`Job`), and a `Box<dyn FnOnce()>` could not be
//! reused anyway, since calling it consumes it. Pool the state a job works
//! in, not the job.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use pool_core::{Poolable, Reset};
use pool_suite::alloc::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

const WORKERS: usize = 2;
const JOBS: u64 = 100_000;
const RUNS: usize = 3;

/// A job: plain data, sent by value through the channel.
struct Job {
    id: u64,
}

/// What a job needs while it runs and nothing it returns. Reset clears the
/// three buffers and keeps their capacity.
#[derive(Poolable, Default)]
#[pool(thread_capacity = 4)]
struct Scratch {
    values: Vec<u64>,
    distinct: HashSet<u64>,
    line: String,
}

/// The job's work, in `scratch`; returns a checksum so nothing is optimized
/// away.
fn run(job: &Job, scratch: &mut Scratch) -> u64 {
    let mut x = job.id.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for _ in 0..64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        scratch.values.push(x % 100);
    }
    scratch.values.sort_unstable();
    scratch.distinct.extend(scratch.values.iter().copied());
    write!(
        scratch.line,
        "job {}: {} values, {} distinct, min {}, max {}",
        job.id,
        scratch.values.len(),
        scratch.distinct.len(),
        scratch.values[0],
        scratch.values[63],
    )
    .expect("formatting");
    scratch.line.len() as u64 + scratch.distinct.len() as u64
}

#[derive(Clone, Copy)]
enum Mode {
    PerJob,
    Pooled,
    PerWorker,
}

fn worker(jobs: Arc<Mutex<Receiver<Job>>>, mode: Mode) -> u64 {
    let mut sum = 0;
    let mut own = Scratch::default(); // used by `Mode::PerWorker` only
    loop {
        let job = jobs.lock().expect("job queue").recv();
        let Ok(job) = job else { return sum };
        sum += match mode {
            Mode::PerJob => run(&job, &mut Scratch::default()),
            Mode::Pooled => run(&job, &mut Scratch::acquire()),
            Mode::PerWorker => {
                let n = run(&job, &mut own);
                own.reset();
                n
            }
        };
    }
}

/// Runs `JOBS` jobs through `WORKERS` threads; returns (seconds, allocations).
fn run_pool(mode: Mode) -> (f64, u64) {
    let a0 = ALLOC.counts().allocs;
    let start = Instant::now();
    let (send, receive) = channel::<Job>();
    let receive = Arc::new(Mutex::new(receive));
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let receive = receive.clone();
            thread::spawn(move || worker(receive, mode))
        })
        .collect();
    for id in 0..JOBS {
        send.send(Job { id }).expect("workers alive");
    }
    drop(send);
    let sum: u64 = workers.into_iter().map(|w| w.join().expect("worker")).sum();
    black_box(sum);
    (start.elapsed().as_secs_f64(), ALLOC.counts().allocs - a0)
}

fn main() {
    println!(
        "worker_pool: {WORKERS} worker threads, {JOBS} jobs per run through one channel; \
         ns/job: best of {RUNS} runs\non a shared 2-core machine; allocs/job: counted, \
         whole process (thread spawns and the channel included)\n"
    );
    println!(
        "{:<40}{:>10}{:>12}",
        "scratch state", "ns/job", "allocs/job"
    );
    for (label, mode) in [
        ("allocated per job", Mode::PerJob),
        ("Scratch::acquire() per job", Mode::Pooled),
        ("one per worker, reset() per job", Mode::PerWorker),
    ] {
        run_pool(mode); // warm up
        let mut best = f64::INFINITY;
        let mut allocs = 0;
        for _ in 0..RUNS {
            let (seconds, n) = run_pool(mode);
            best = best.min(seconds);
            allocs += n;
        }
        println!(
            "{label:<40}{:>10.0}{:>12.3}",
            best * 1e9 / JOBS as f64,
            allocs as f64 / (RUNS as u64 * JOBS) as f64
        );
    }

    let s = Scratch::pool().stats();
    println!(
        "\nScratch pool: created {}, reused {} ({} from the thread's cache, {} from the shared \
         store),\nidle {} (the workers' caches went to the shared store when they exited)",
        s.created,
        s.reused(),
        s.hits_local,
        s.hits_primary + s.hits_victim,
        s.idle
    );
}
