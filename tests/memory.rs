//! Rotation gives memory back, and so does the end of a pool made at run
//! time (the `a_run_time_pool_...` scenario). After a burst, two rotations bring the live
//! heap back to exactly what it was before the burst, the objects in the
//! caches of threads that no longer use the pool included: this thread's,
//! and those of worker threads that stay alive, blocked.
//!
//! This binary installs a counting global allocator, which counts every
//! thread of the process, so it runs without libtest (`harness = false` in
//! Cargo.toml): libtest's main thread, waiting for a test, now and then
//! allocated 900 bytes in the middle of the measurement (148 + 608 + 48 +
//! 96, caught by recording each allocation's thread), in between one run
//! in a hundred and one in six hundred. Here `main` runs the one scenario itself, and
//! nothing else runs.

use pool_core::{Pool, Pooled, Reset, pool, rotate};
use pool_suite::alloc::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// The bytes the program holds.
fn live() -> i64 {
    ALLOC.live()
}

const BUFFER: usize = 1024;
const THREAD_CAPACITY: usize = 16;

struct Buffer {
    bytes: Vec<u8>,
}

impl Reset for Buffer {
    fn reset(&mut self) {
        self.bytes.clear(); // keeps the allocation: that is what is pooled
    }
}

fn create() -> Buffer {
    Buffer {
        bytes: Vec::with_capacity(BUFFER),
    }
}

pool! {
    static POOL: Pool<Buffer> = Pool::new(create).capacity(256).thread_capacity(THREAD_CAPACITY);
}

/// The padding `pool_core` allocates after each pooled object, so that no
/// two objects share a cache line (see its `Pool` docs: "allocated with 48
/// bytes of padding after it").
const PADDING: usize = 48;

/// The heap one idle object occupies: its box (the object, then the
/// padding, rounded up to the object's alignment) and its buffer.
fn object_bytes() -> i64 {
    let boxed = (size_of::<Buffer>() + PADDING).next_multiple_of(align_of::<Buffer>());
    (boxed + BUFFER) as i64
}

/// Fills the pool from this thread: `n` objects made, used and released.
/// Up to `THREAD_CAPACITY` stay in this thread's cache, the rest spill to
/// the shared store.
fn burst(n: usize) {
    let mut held: Vec<Pooled<Buffer>> = Vec::with_capacity(n);
    for _ in 0..n {
        let mut buffer = POOL.acquire();
        buffer.bytes.extend_from_slice(&[7; BUFFER]);
        held.push(buffer);
    }
    drop(held);
}

fn main() {
    // `cargo test -- <filter>` passes its arguments on; honour a filter
    // that names none of these scenarios, as libtest would.
    let scenarios: [(&str, fn()); 4] = [
        (
            "two_rotations_give_back_every_byte_of_a_burst",
            two_rotations_give_back_every_byte_of_a_burst,
        ),
        (
            "a_run_time_pool_gives_back_every_byte_when_its_last_guard_goes",
            a_run_time_pool_gives_back_every_byte_when_its_last_guard_goes,
        ),
        (
            "rotation_alone_gives_back_what_blocked_workers_cached",
            rotation_alone_gives_back_what_blocked_workers_cached,
        ),
        (
            "rotation_gives_back_what_parked_tokio_workers_cached",
            rotation_gives_back_what_parked_tokio_workers_cached,
        ),
    ];
    let mut filters = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            // libtest's options that take their value as the next argument.
            "--test-threads" | "--skip" | "--logfile" | "--color" | "--format" | "-Z" => {
                args.next();
            }
            option if option.starts_with('-') => {}
            filter => filters.push(filter.to_owned()),
        }
    }
    // No background rotation: the scenarios count rotations themselves.
    pool_core::set_rotation_period(None);
    for (name, scenario) in scenarios {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            println!("memory: {name} filtered out");
            continue;
        }
        if cfg!(miri) && name.contains("tokio") {
            // A multi-thread runtime's scheduling takes Miri minutes; the
            // blocked-workers scenario checks the same path there.
            println!("memory: {name} ... ignored under Miri (a tokio runtime is too slow there)");
            continue;
        }
        scenario();
        println!("memory: {name} ... ok");
    }
}

fn two_rotations_give_back_every_byte_of_a_burst() {
    // Warm-up, at a small scale: everything made once for the life of the
    // thread or of the pool (this thread's cache slot and buffer, the
    // registry of pools that `rotate` visits) is made here, so that the
    // baseline includes it.
    burst(THREAD_CAPACITY + 1); // spills, so the pool registers with `rotate`
    rotate();
    rotate();
    assert_eq!(POOL.stats().idle, 0, "rotation reached this thread's cache");
    let baseline = live();

    // A burst: 200 objects, of which the shared store keeps what the
    // thread cache does not.
    let n = 200;
    burst(n);
    let stats = POOL.stats();
    assert_eq!(stats.idle as usize, n, "nothing dropped: {stats:?}");
    let after_burst = live() - baseline;
    // Every idle object, plus the shared tier's vector of pointers.
    assert!(
        after_burst >= n as i64 * object_bytes(),
        "{after_burst} bytes for {n} objects"
    );

    rotate();
    // One rotation drops no object: the idle ones, in the store and in
    // this thread's cache (which the rotation turned over into the store),
    // are victims now, still served.
    let stats = POOL.stats();
    assert_eq!(stats.idle as usize, n, "{stats:?}");
    assert!(live() - baseline >= n as i64 * object_bytes());

    rotate();
    // Two rotations, and no touch of the pool from this thread: every
    // object is gone, the cache's too, and the store's buffers with them.
    let stats = POOL.stats();
    assert_eq!(stats.idle, 0, "{stats:?}");
    assert_eq!(
        live() - baseline,
        0,
        "after two rotations, the heap is back to its size before the burst"
    );

    // The same through a thread's exit: its cache goes to the shared store,
    // which two rotations empty.
    std::thread::spawn(move || burst(n)).join().unwrap();
    assert_eq!(POOL.stats().idle as usize, n);
    rotate();
    rotate();
    let stats = POOL.stats();
    assert_eq!(stats.idle, 0, "{stats:?}");
    assert_eq!(
        live() - baseline,
        0,
        "after the thread's exit and two rotations, back to the baseline"
    );
}

/// A pool made at run time, filled from this thread and from a worker
/// that stays alive, blocked; then its handles are dropped while a guard
/// still holds an object. When that guard goes, every object the pool held
/// comes back, the live worker's cache's included; only the pool's own
/// allocation waits for the lists of the threads that used it.
fn a_run_time_pool_gives_back_every_byte_when_its_last_guard_goes() {
    type Job = Box<dyn FnOnce() + Send>;
    let (jobs, next_job) = std::sync::mpsc::channel::<Job>();
    let (done, wait_done) = std::sync::mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
        for job in next_job {
            job();
            done.send(()).unwrap();
        }
    });
    let on_worker = |job: Job| {
        jobs.send(job).unwrap();
        wait_done.recv().unwrap();
    };
    // Larger than the pool's own allocation (1,024 bytes at 8489cfc), so
    // that one buffer kept cannot pass for it.
    const SIZE: usize = 4 * BUFFER;
    // Returns the guard that outlives the pool's handles.
    let scenario = |n: usize| -> Pooled<Vec<u8>> {
        let size = SIZE; // a constructor that captures
        let pool = Pool::builder(move || Vec::<u8>::with_capacity(size))
            .capacity(n)
            .thread_capacity(THREAD_CAPACITY)
            .build();
        let for_worker = pool.clone();
        on_worker(Box::new(move || {
            let held: Vec<_> = (0..THREAD_CAPACITY).map(|_| for_worker.acquire()).collect();
            drop(held); // into the worker's cache, which stays
        }));
        let held: Vec<_> = (0..n).map(|_| pool.acquire()).collect();
        drop(held); // this thread's cache, and the shared store
        let guard = pool.acquire();
        assert!(pool.stats().idle as usize >= n);
        guard
    };
    // Warm-up: what is made once per thread or per process (each thread's
    // id in the `thread_local` crate, the registry's vector) is made here.
    // So is what a thread allocates the first time it blocks on a channel
    // (std's per-thread wait context, 144 bytes): the worker waits for a job
    // that comes late, this thread for a job that takes a while.
    let pause = std::time::Duration::from_millis(20);
    std::thread::sleep(pause);
    on_worker(Box::new(move || std::thread::sleep(pause)));
    drop(scenario(THREAD_CAPACITY));
    rotate(); // forgets the dropped pool, freeing its registry entry
    let baseline = live();

    let n = 64;
    let guard = scenario(n);
    let held = live() - baseline;
    assert!(
        held >= (n + THREAD_CAPACITY) as i64 * SIZE as i64,
        "{held} bytes for the pool's {n} + {THREAD_CAPACITY} buffers"
    );
    drop(guard);
    // The registry's weak reference goes at the next rotation. Each thread
    // that used the pool lists its part under a weak reference too, which
    // keeps the pool's own allocation (its header, about 1 KiB, no
    // object) until that thread's list next clears its dead entries or the
    // thread exits (`pool_core`'s run-time pools, per-thread cost): so
    // every object comes back, and nothing else but that allocation.
    rotate();
    let kept = live() - baseline;
    assert!(
        (0..SIZE as i64).contains(&kept),
        "the last guard gone, the pool gave back every buffer, the live worker's cache's too: {kept} bytes kept"
    );
    drop(jobs);
    worker.join().unwrap();
}

const LARGE: usize = 64 * 1024;

fn large() -> Vec<u8> {
    Vec::with_capacity(LARGE)
}

pool! {
    static LARGE_BUFFERS: Pool<Vec<u8>> = Pool::new(large).thread_capacity(THREAD_CAPACITY);
}

/// Worker threads fill their caches with large buffers, then block, alive
/// (as a thread pool's idle workers do). Rotation alone, with no call from
/// them, gives the memory back: what is left is each thread's own slot and
/// its cache's vector of pointers, far under 1% of the burst.
fn rotation_alone_gives_back_what_blocked_workers_cached() {
    const WORKERS: usize = 4;
    let baseline = live();
    let (filled, wait_filled) = std::sync::mpsc::channel();
    let mut releases = Vec::new();
    let mut workers = Vec::new();
    for _ in 0..WORKERS {
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let filled = filled.clone();
        releases.push(release);
        workers.push(std::thread::spawn(move || {
            let held: Vec<_> = (0..THREAD_CAPACITY)
                .map(|_| {
                    let mut buf = LARGE_BUFFERS.acquire();
                    buf.push(1); // used; its 64 KiB were allocated by `large`
                    buf
                })
                .collect();
            drop(held); // all in this worker's cache
            filled.send(()).unwrap();
            blocked.recv().unwrap(); // idle, alive
        }));
    }
    for _ in 0..WORKERS {
        wait_filled.recv().unwrap();
    }
    let burst = (WORKERS * THREAD_CAPACITY * LARGE) as i64;
    let stats = LARGE_BUFFERS.stats();
    assert_eq!(stats.idle as usize, WORKERS * THREAD_CAPACITY, "{stats:?}");
    assert!(live() - baseline >= burst);

    rotate();
    rotate();
    let stats = LARGE_BUFFERS.stats();
    assert_eq!(stats.idle, 0, "the blocked workers' caches too: {stats:?}");
    assert_eq!(
        stats.dropped_rotation as usize,
        WORKERS * THREAD_CAPACITY,
        "{stats:?}"
    );
    let left = live() - baseline;
    assert!(
        left * 100 < burst,
        "{left} bytes left of a {burst}-byte burst, with the workers still alive"
    );
    println!("memory: {left} of {burst} bytes left after two rotations, 4 workers blocked");

    for release in releases {
        release.send(()).unwrap();
    }
    for worker in workers {
        worker.join().unwrap();
    }
}

pool! {
    static REQUEST_BUFFERS: Pool<Vec<u8>> = Pool::new(large).thread_capacity(THREAD_CAPACITY);
}

/// A tokio multi-thread runtime serves a burst of tasks that each hold a
/// pooled 64 KiB buffer across an `.await`; the buffers are released on
/// whichever worker finishes the task, into that worker's cache. Then the
/// workers park, alive, with nothing to do, as a service's do between
/// bursts. Two rotations give back what they cached, with no call from
/// them.
fn rotation_gives_back_what_parked_tokio_workers_cached() {
    const WORKERS: usize = 2;
    const TASKS: usize = 64;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .build()
        .unwrap();
    let burst = |tasks: usize| {
        runtime.block_on(async {
            let handles: Vec<_> = (0..tasks)
                .map(|_| {
                    tokio::spawn(async {
                        let mut buf = REQUEST_BUFFERS.acquire();
                        buf.push(1);
                        tokio::task::yield_now().await; // may resume on the other worker
                        buf.capacity()
                    })
                })
                .collect();
            for handle in handles {
                assert!(handle.await.unwrap() >= LARGE);
            }
        });
    };
    // Warm-up: the workers' cache slots and the runtime's own structures.
    burst(TASKS);
    rotate();
    rotate();
    assert_eq!(REQUEST_BUFFERS.stats().idle, 0);
    let baseline = live();

    burst(TASKS);
    let stats = REQUEST_BUFFERS.stats();
    assert!(stats.idle > 0, "{stats:?}");
    let burst_bytes = (stats.idle as usize * LARGE) as i64;
    assert!(live() - baseline >= burst_bytes);

    rotate();
    rotate();
    let stats = REQUEST_BUFFERS.stats();
    assert_eq!(stats.idle, 0, "the parked workers' caches too: {stats:?}");
    let left = live() - baseline;
    assert!(
        left * 100 < burst_bytes,
        "{left} bytes left of {burst_bytes} idle after the burst, workers parked"
    );
    println!(
        "memory: {left} of {burst_bytes} bytes left after two rotations, {WORKERS} tokio workers parked"
    );
    drop(runtime);
}
