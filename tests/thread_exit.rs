//! Regression tests for how a run-time pool (`Pool::builder`) lives with
//! its threads' exits (issue 24, items 2, 3 and 7), each named after the
//! bug it guards against.
//!
//! A scenario that aborted the process runs in a child process (this test
//! binary run again, `pool_suite::child`) and is judged by how the child
//! ended; under Miri, which cannot start one, it runs in the test's own
//! process. The counting allocator measures what a thread's first use of
//! a pool allocates, on that thread only (`pool_suite::alloc::this_thread`).

use std::cell::RefCell;
use std::sync::{Arc, Barrier};
use std::thread;

use pool_core::{Pool, PoolHandle, Pooled, pool, rotate};
use pool_suite::alloc::{Counting, this_thread};
use pool_suite::child::{in_child_process, is_child};

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// Whether this process is where the scenario `name` runs: the child
/// started for it, or the test's own process under Miri. Anywhere else,
/// the test starts the child and judges it.
fn runs_here(name: &str) -> bool {
    if cfg!(miri) || is_child(name) {
        return true;
    }
    in_child_process(name);
    false
}

std::thread_local! {
    /// A guard kept by a thread in a thread-local of its own, as an
    /// application's request context might.
    static KEPT: RefCell<Option<Pooled<u64>>> = const { RefCell::new(None) };
}

/// Issue 24, item 2: a guard moved into a thread that keeps it in a
/// `thread_local!` registered before the `thread_local` crate's own
/// destructor (because another library, tracing-subscriber's registry
/// among them, uses a `ThreadLocal` later). At that thread's exit the
/// crate freed its thread id first; the guard's release then looked the
/// thread's part up through the crate, which panicked inside a TLS
/// destructor: "fatal runtime error: thread local panicked on drop",
/// SIGABRT. The child must end normally, the guard back in its pool.
#[test]
fn a_run_time_guard_released_during_thread_exit_does_not_abort() {
    const NAME: &str = "a_run_time_guard_released_during_thread_exit_does_not_abort";
    if !runs_here(NAME) {
        return;
    }
    let pool = Pool::builder(|| 7_u64).build();
    let guard = pool.acquire();
    thread::spawn(move || {
        // Ours first: destroyed last.
        KEPT.with(|kept| *kept.borrow_mut() = Some(guard));
        // Another library's per-object thread-local, used after: the
        // crate's destructor, registered now, runs before ours.
        let other = thread_local::ThreadLocal::<u8>::new();
        assert_eq!(*other.get_or(|| 1), 1);
    })
    .join()
    .expect("the thread exits normally");
    let stats = pool.stats();
    assert_eq!((stats.returned, stats.in_use()), (1, 0), "{stats:?}");
    assert_eq!(stats.idle, 1, "the object is back in the pool: {stats:?}");
}

/// Objects per thread in the exit scenarios: the whole of a thread's cache.
const CACHED: usize = if cfg!(miri) { 4 } else { 32 };

/// Has `threads` threads each take `CACHED` objects from `pool` at once
/// and give them back, so that each thread's cache holds them, and exit.
fn fill_caches_and_exit(pool: &Pool<Vec<u8>>, threads: usize) {
    let all_holding = Arc::new(Barrier::new(threads));
    thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let all_holding = Arc::clone(&all_holding);
                scope.spawn(move || {
                    let held: Vec<_> = (0..CACHED).map(|_| pool.acquire()).collect();
                    all_holding.wait();
                    drop(held);
                })
            })
            .collect();
        // Joined, not only waited for by the scope: a join returns after
        // the thread's thread-local destructors, its exit, have run.
        for worker in workers {
            worker.join().expect("a worker exits normally");
        }
    });
}

/// A run-time pool of buffers with room for `CACHED` in each thread's
/// cache.
fn run_time_pool() -> PoolHandle<Vec<u8>> {
    Pool::builder(|| Vec::<u8>::with_capacity(64))
        .thread_capacity(CACHED)
        .capacity(16 * CACHED)
        .build()
}

/// Issue 24, item 3, on any platform: a thread's exit left its cache of
/// a run-time pool where it was (the crate's `ThreadLocal` keeps an exited
/// thread's entry for the next thread that gets its id), so the objects
/// were out of reach of the other threads, which made new ones. A static
/// pool's cache goes to the shared store at the exit; so must this one.
#[test]
fn an_exited_threads_run_time_cache_goes_to_the_shared_store() {
    let pool = run_time_pool();
    // This thread's own part of the pool first, holding one object, so
    // that it cannot be handed the exited thread's part.
    drop(pool.acquire());
    fill_caches_and_exit(&pool, 1);
    let made = pool.stats().created;
    assert_eq!(made, 1 + CACHED as u64, "{:?}", pool.stats());
    // Its own object, then the exited thread's, from the shared store.
    let held: Vec<_> = (0..=CACHED).map(|_| pool.acquire()).collect();
    let stats = pool.stats();
    assert_eq!(
        stats.created, made,
        "the exited thread's objects were reused: {stats:?}"
    );
    drop(held);
}

/// Makes `membarrier(2)` fail with `EPERM` in this process from now on,
/// as a strict seccomp profile does (Docker's default allows it; many
/// hardened profiles do not): the process-wide barrier that lets rotation
/// age idle threads' caches is gone.
#[cfg(target_os = "linux")]
fn forbid_membarrier() {
    use libc::{
        BPF_ABS, BPF_JEQ, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W, EPERM, PR_SET_NO_NEW_PRIVS,
        SECCOMP_FILTER_FLAG_TSYNC, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, SECCOMP_SET_MODE_FILTER,
        SYS_membarrier, SYS_seccomp, sock_filter, sock_fprog,
    };
    let op = |code: u32, jt: u8, jf: u8, k: u32| sock_filter {
        code: u16::try_from(code).expect("a BPF opcode"),
        jt,
        jf,
        k,
    };
    let membarrier = u32::try_from(SYS_membarrier).expect("a system call number");
    let errno = u32::try_from(EPERM).expect("an errno");
    let mut program = [
        // The system call's number, the first field of `seccomp_data`.
        op(BPF_LD | BPF_W | BPF_ABS, 0, 0, 0),
        op(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, membarrier),
        op(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | errno),
        op(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW),
    ];
    let filter = sock_fprog {
        len: u16::try_from(program.len()).expect("four instructions"),
        filter: program.as_mut_ptr(),
    };
    // SAFETY: prctl(2) with an integer option reads no memory of ours.
    let no_new_privs = unsafe { libc::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
    assert_eq!(no_new_privs, 0, "prctl(PR_SET_NO_NEW_PRIVS)");
    // SAFETY: seccomp(2) reads the program `filter` points to, which lives
    // across the call; the filter it installs only fails membarrier calls.
    let installed = unsafe {
        libc::syscall(
            SYS_seccomp,
            SECCOMP_SET_MODE_FILTER,
            SECCOMP_FILTER_FLAG_TSYNC,
            &raw const filter,
        )
    };
    assert_eq!(installed, 0, "seccomp(SECCOMP_SET_MODE_FILTER)");
    // SAFETY: membarrier(2)'s query command reads no memory of ours.
    let query = unsafe { libc::syscall(SYS_membarrier, 0, 0, 0) };
    assert_eq!(query, -1, "membarrier is forbidden now");
}

/// Issue 24, item 3, as found: with `membarrier` blocked by seccomp, four
/// threads each leave a full cache of a static and of a run-time pool and
/// exit. Five rotations later the static pool held 0 idle objects and the
/// run-time pool 128: its exited threads' caches were never retired, and
/// without the barrier no rotation reaches them.
#[cfg(target_os = "linux")]
#[test]
#[cfg_attr(miri, ignore = "installs a seccomp filter in a child process")]
fn without_a_process_wide_barrier_exited_threads_run_time_caches_are_released() {
    const NAME: &str = "without_a_process_wide_barrier_exited_threads_run_time_caches_are_released";
    if !runs_here(NAME) {
        return;
    }
    forbid_membarrier();
    pool! {
        static STATIC: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(64))
            .thread_capacity(CACHED)
            .capacity(16 * CACHED);
    }
    let run_time = run_time_pool();
    fill_caches_and_exit(&STATIC, 4);
    fill_caches_and_exit(&run_time, 4);
    for _ in 0..5 {
        rotate();
    }
    let (ours, theirs) = (STATIC.stats(), run_time.stats());
    assert_eq!(ours.idle, 0, "the static pool's: {ours:?}");
    assert_eq!(theirs.idle, 0, "the run-time pool's: {theirs:?}");
    assert_eq!(theirs.dropped_rotation, 4 * CACHED as u64, "{theirs:?}");
}

/// Threads alive while the crowded measurement runs, and pools measured.
const CROWD: usize = if cfg!(miri) { 40 } else { 500 };
const POOLS: usize = if cfg!(miri) { 8 } else { 1_000 };

/// What one thread's first use of each of `POOLS` fresh run-time pools of
/// `u64` allocates on it, per pool, in bytes: the thread's part of a pool.
fn per_pool_cost_on_a_new_thread() -> u64 {
    let pools: Vec<_> = (0..POOLS)
        .map(|_| Pool::builder(|| 0_u64).build())
        .collect();
    let cost = thread::spawn(move || {
        let before = this_thread();
        for pool in &pools {
            drop(pool.acquire());
        }
        let spent = this_thread() - before;
        drop(pools);
        spent.bytes
    })
    .join()
    .expect("the measuring thread exits normally");
    cost / POOLS as u64
}

/// Issue 24, item 7: a pool's per-thread storage was a `ThreadLocal`,
/// which allocates a whole bucket of entries for a high thread id: one
/// thread among 500 live threads using 1,000 `u64` pools cost 133 KiB per
/// pool, against 5 KiB next to 10 threads. Now a thread's part of a pool
/// costs the same however many other threads there are (within 2x).
#[test]
fn a_run_time_pools_cost_per_thread_does_not_grow_with_the_threads_alive() {
    const NAME: &str = "a_run_time_pools_cost_per_thread_does_not_grow_with_the_threads_alive";
    if !runs_here(NAME) {
        return;
    }
    let alone = per_pool_cost_on_a_new_thread();
    // A crowd of threads that each used a run-time pool, parked while the
    // second measurement runs.
    let crowd_pool = Pool::builder(|| 0_u64).build();
    let parked = Arc::new(Barrier::new(CROWD + 1));
    let crowd: Vec<_> = (0..CROWD)
        .map(|_| {
            let (pool, parked) = (crowd_pool.clone(), Arc::clone(&parked));
            thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(move || {
                    drop(pool.acquire());
                    parked.wait(); // all in
                    parked.wait(); // measured
                })
                .expect("a thread of the crowd starts")
        })
        .collect();
    parked.wait();
    let crowded = per_pool_cost_on_a_new_thread();
    parked.wait();
    for thread in crowd {
        thread.join().expect("a thread of the crowd exits normally");
    }
    println!("a thread's part of a pool: {alone} bytes alone, {crowded} next to {CROWD} threads");
    assert!(
        crowded <= 2 * alone,
        "a thread's part of a pool costs {crowded} bytes next to {CROWD} threads, \
         {alone} bytes alone"
    );
}

/// An object that knows whether a guard holds it.
struct Claimed(std::sync::atomic::AtomicBool);

impl pool_core::Reset for Claimed {
    fn reset(&mut self) {}
}

/// Acquires from `pool`, asserting that no other guard holds the object.
fn claim(pool: &Pool<Claimed>) -> Pooled<Claimed> {
    let guard = pool.acquire();
    let was_held = guard.0.swap(true, std::sync::atomic::Ordering::SeqCst);
    assert!(!was_held, "an object handed to two guards at once");
    guard
}

/// Gives `guard`'s object up, then drops it.
fn unclaim(guard: Pooled<Claimed>) {
    guard.0.store(false, std::sync::atomic::Ordering::SeqCst);
}

/// A thread's part outlives the thread: the next thread to need one takes
/// it, and the guards it lent come back there. Generations of two threads
/// each, every thread releasing the guards its predecessor left: some of
/// its own part now (taken over, so released through it as the owner's),
/// some of a part the other thread of its generation is taking at the
/// same moment. No object is ever held by two guards, and every one is
/// accounted for at the end.
#[test]
fn parts_taken_over_by_new_threads_serve_their_old_guards_and_share_no_object() {
    const GENERATIONS: usize = if cfg!(miri) { 3 } else { 200 };
    const HELD: usize = if cfg!(miri) { 3 } else { 16 };
    let pool = Pool::builder(|| Claimed(std::sync::atomic::AtomicBool::new(false)))
        .capacity(4 * HELD)
        .thread_capacity(HELD)
        .build();
    let mut left: [Vec<Pooled<Claimed>>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..GENERATIONS {
        let start = Arc::new(Barrier::new(2));
        let workers = left.map(|inherited| {
            let (pool, start) = (pool.clone(), Arc::clone(&start));
            thread::spawn(move || {
                start.wait();
                let first = claim(&pool);
                inherited.into_iter().for_each(unclaim);
                let mut held: Vec<_> = (0..HELD).map(|_| claim(&pool)).collect();
                unclaim(first);
                held.drain(HELD / 2..).for_each(unclaim);
                held
            })
        });
        left = workers.map(|worker| worker.join().expect("a worker exits normally"));
    }
    left.into_iter().flatten().for_each(unclaim);
    let stats = pool.stats();
    assert_eq!(stats.in_use(), 0, "{stats:?}");
    assert_eq!(
        stats.created,
        stats.idle + stats.dropped_capacity,
        "every object made is idle or was dropped past the capacity: {stats:?}"
    );
}
