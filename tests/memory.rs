//! Rotation gives memory back: after a burst, two rotations and a touch of
//! the pool from the thread whose cache holds objects, the live heap is
//! exactly what it was before the burst.
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
/// two objects share a cache line (see its `Pool` docs: "allocated with 64
/// bytes of padding after it").
const PADDING: usize = 64;

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

/// Uses the pool without keeping anything: the acquire ages this thread's
/// cache, and the object it gets is taken out and destroyed.
fn touch() {
    drop(Pooled::into_inner(POOL.acquire()));
}

fn main() {
    // `cargo test -- <filter>` passes its arguments on; honour a filter
    // that does not name this scenario, as libtest would.
    let name = "two_rotations_and_a_touch_give_back_every_byte_of_a_burst";
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
    if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
        println!("memory: {name} filtered out");
        return;
    }
    two_rotations_and_a_touch_give_back_every_byte_of_a_burst();
    println!("memory: {name} ... ok");
}

fn two_rotations_and_a_touch_give_back_every_byte_of_a_burst() {
    // Warm-up, at a small scale: everything made once for the life of the
    // thread or of the pool (this thread's cache vector and counters, the
    // pool's list of threads, the registry of pools that `rotate` visits)
    // is made here, so that the baseline includes it.
    burst(THREAD_CAPACITY + 1); // spills, so the pool registers with `rotate`
    rotate();
    rotate();
    touch();
    assert_eq!(POOL.stats().idle, 0);
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
    assert_eq!(
        live() - baseline,
        after_burst,
        "one rotation frees nothing: idle objects become victims, still served"
    );

    rotate();
    // The shared tiers are empty, buffers and all. This thread's cache has
    // not been touched since the burst: it still holds its objects (caches
    // age lazily), and they are the only memory left.
    let cached = POOL.stats().idle as i64;
    assert!(cached > 0 && cached <= THREAD_CAPACITY as i64);
    assert_eq!(
        live() - baseline,
        cached * object_bytes(),
        "two rotations: only the {cached} objects in this thread's cache remain"
    );

    touch();
    let stats = POOL.stats();
    assert_eq!(stats.idle, 0, "{stats:?}");
    assert_eq!(
        live() - baseline,
        0,
        "after a touch, the heap is back to its size before the burst"
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
