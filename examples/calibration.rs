//! pool-core's learned bound in bytes against bytebufferpool's calibration
//! (valyala/bytebufferpool, fasthttp's buffers), on the same bimodal load
//! (issue 38): 4 threads, 5,000 requests each (then 50,000), 1% of them
//! 4 MiB and the rest 1 KiB, between one and eight in flight per thread.
//!
//! ```text
//! cargo run --release --example calibration
//! ```
//!
//! pool-core runs as it is, with default settings (a new run-time pool for
//! each run). bytebufferpool is
//! simulated here, its algorithm transcribed from its `pool.go` (Go is not
//! needed): 20 size classes from 64 bytes (`minBitSize = 6`), each `Put`
//! counts the buffer's length in its class and drops a buffer whose
//! capacity exceeds `maxSize`; every 42,000 `Put`s (`calibrateCallsThreshold`)
//! `maxSize` becomes the class at which the calls sorted by count reach 95%
//! (`maxPercentile`), `defaultSize` the most called class, and the counts
//! start again; before its first calibration `maxSize` is 0, which keeps
//! every buffer. Its store here is one mutex-guarded stack shared by the
//! threads (Go's `sync.Pool`, without its per-P caches or its clearing at
//! each garbage collection). A counting allocator measures what each keeps
//! idle after the run, and the allocations per request.

use std::hint::black_box;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use pool_core::Pool;
use pool_suite::alloc::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

const THREADS: usize = 4;
const GIANT: usize = 4 << 20;

/// bytebufferpool's `Pool`, simulated (see the file's header).
struct ByteBufferPool {
    calls: [AtomicU64; STEPS],
    calibrating: Mutex<()>,
    default_size: AtomicU64,
    max_size: AtomicU64,
    kept: Mutex<Vec<Vec<u8>>>,
}

const MIN_BIT_SIZE: u32 = 6;
const STEPS: usize = 20;
const CALIBRATE_CALLS_THRESHOLD: u64 = 42_000;
const MAX_PERCENTILE: f64 = 0.95;

impl ByteBufferPool {
    fn new() -> Self {
        ByteBufferPool {
            calls: std::array::from_fn(|_| AtomicU64::new(0)),
            calibrating: Mutex::new(()),
            default_size: AtomicU64::new(0),
            max_size: AtomicU64::new(0),
            kept: Mutex::new(Vec::new()),
        }
    }

    /// `index(n)`: the size class of a buffer of `n` bytes.
    fn index(n: usize) -> usize {
        let mut n = (n.max(1) - 1) >> MIN_BIT_SIZE;
        let mut idx = 0;
        while n > 0 {
            n >>= 1;
            idx += 1;
        }
        idx.min(STEPS - 1)
    }

    fn get(&self) -> Vec<u8> {
        match self.kept.lock().unwrap().pop() {
            Some(buffer) => buffer,
            None => Vec::with_capacity(self.default_size.load(Ordering::Relaxed) as usize),
        }
    }

    fn put(&self, mut buffer: Vec<u8>) {
        let idx = Self::index(buffer.len());
        if self.calls[idx].fetch_add(1, Ordering::Relaxed) + 1 > CALIBRATE_CALLS_THRESHOLD {
            self.calibrate();
        }
        let max = self.max_size.load(Ordering::Relaxed) as usize;
        if max == 0 || buffer.capacity() <= max {
            buffer.clear();
            self.kept.lock().unwrap().push(buffer);
        }
    }

    fn calibrate(&self) {
        let Ok(_calibrating) = self.calibrating.try_lock() else {
            return;
        };
        let mut counts: Vec<(u64, usize)> = (0..STEPS)
            .map(|i| {
                (
                    self.calls[i].swap(0, Ordering::Relaxed),
                    (1usize << MIN_BIT_SIZE) << i,
                )
            })
            .collect();
        let total: u64 = counts.iter().map(|(calls, _)| calls).sum();
        counts.sort_by_key(|&(calls, _)| std::cmp::Reverse(calls));
        let default_size = counts[0].1;
        let max_sum = (total as f64 * MAX_PERCENTILE) as u64;
        let mut sum = 0;
        let mut max_size = default_size;
        for (calls, size) in &counts {
            if sum > max_sum {
                break;
            }
            sum += calls;
            max_size = max_size.max(*size);
        }
        self.default_size
            .store(default_size as u64, Ordering::Relaxed);
        self.max_size.store(max_size as u64, Ordering::Relaxed);
    }
}

/// Runs the load through `get` and `put`: (bytes idle after, allocations
/// per request).
fn run<B: Send>(
    requests: usize,
    get: impl Fn() -> B + Sync,
    put: impl Fn(B) + Sync,
    buf: impl Fn(&mut B) -> &mut Vec<u8> + Sync,
) -> (i64, f64) {
    let before = ALLOC.live();
    let allocs = ALLOC.counts().allocs;
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let (get, put, buf) = (&get, &put, &buf);
            scope.spawn(move || {
                let mut held = Vec::with_capacity(8);
                for i in 0..requests {
                    let mut b = get();
                    let size = if (i + t * 37) % 100 == 0 { GIANT } else { 1024 };
                    buf(&mut b).resize(size, 1);
                    black_box(buf(&mut b).as_ptr());
                    held.push(b);
                    if held.len() > (i / 8) % 8 {
                        held.drain(..).for_each(put);
                    }
                }
                held.drain(..).for_each(put);
            });
        }
    });
    let all = (THREADS * requests) as f64;
    (
        ALLOC.live() - before,
        (ALLOC.counts().allocs - allocs) as f64 / all,
    )
}

fn main() {
    println!("{THREADS} threads, 1% of requests {GIANT} bytes, the rest 1 KiB:");
    println!(
        "{:<14}{:<30}{:>18}{:>22}",
        "requests", "", "bytes idle after", "allocations/request"
    );
    for requests in [5_000, 50_000] {
        let bbp = ByteBufferPool::new();
        let (bbp_idle, bbp_allocs) = run(requests, || bbp.get(), |b| bbp.put(b), |b| b);
        let max_size = bbp.max_size.load(Ordering::Relaxed);
        drop(bbp);
        let pool = Pool::builder(Vec::<u8>::new).build();
        let (pool_idle, pool_allocs) = run(requests, || pool.acquire(), drop, |b| &mut **b);
        let label = format!("{THREADS} x {requests}");
        println!(
            "{label:<14}{:<30}{bbp_idle:>18}{bbp_allocs:>22.3}",
            format!("bytebufferpool (maxSize {max_size})")
        );
        println!(
            "{label:<14}{:<30}{pool_idle:>18}{pool_allocs:>22.3}",
            "pool-core, default"
        );
    }
}
