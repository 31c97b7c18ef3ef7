//! Pools in a child of `fork`, as a pre-fork server uses them: the parent
//! uses its pools (the automatic rotation thread running) and forks
//! workers, each of which goes on using the same pools.
//!
//! Regression tests for three bugs. A fork while the rotation thread was
//! inside a rotation copied the locks it held (the pool's cache registry,
//! its shared store, each idle thread's cache) into the child, locked by
//! a thread the child does not have: the child's first acquire waited for
//! ever. And in a child, the caches of the parent's other threads, which
//! the child does not have either, were never aged: their objects stayed
//! idle for the child's whole life. And a fork while other threads
//! acquired and released left the child waiting for ever on a lock one of
//! them held (a store's, a run-time pool's list of shares, the generic
//! pools' table): 16 of 20 children hung with 8 busy threads.
//!
//! Each child is judged by its exit status, within a timeout: a hung child
//! is killed and counted. The scenarios run in order from this binary's
//! own `main` (`harness = false` in Cargo.toml), with no thread of a test
//! harness in the parent. Unix only; Miri cannot fork.

#[cfg(all(unix, not(miri)))]
mod scenarios {
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use pool_core::{Pool, Poolable, pool, rotate, set_rotation_period};

    pool! {
        static CACHED: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(16);
        static SHARED_ONLY: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(0);
        static PARKED: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(16);
    }

    /// More pools in use, each of which a rotation visits with its locks
    /// held: the longer a rotation, the likelier a fork lands inside one.
    macro_rules! busy_pools {
        ($($name:ident)*) => {
            pool! { $(static $name: Pool<Vec<u8>> = Pool::new(Vec::new);)* }
            fn use_busy_pools() {
                $(drop($name.acquire());)*
            }
        };
    }
    busy_pools!(P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11 P12 P13 P14 P15);

    /// Makes every later `membarrier(2)` of this process fail, as a strict
    /// seccomp profile does: rotation then reaches no live thread's cache.
    #[cfg(target_os = "linux")]
    fn refuse_membarrier() {
        let op = |code: u32, k: u32, jf: u8| libc::sock_filter {
            code: code as u16,
            jt: 0,
            jf,
            k,
        };
        let filter = [
            // The system call's number, at offset 0 of `seccomp_data`.
            op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0),
            op(
                libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
                libc::SYS_membarrier as u32,
                1,
            ),
            op(
                libc::BPF_RET | libc::BPF_K,
                libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
                0,
            ),
            op(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW, 0),
        ];
        let program = libc::sock_fprog {
            len: filter.len() as u16,
            filter: filter.as_ptr().cast_mut(),
        };
        // SAFETY: prctl with these options reads only `program`, which
        // outlives the call; the filter refuses membarrier and allows
        // everything else.
        let installed = unsafe {
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
                && libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &raw const program,
                ) == 0
        };
        assert!(installed, "seccomp: {}", std::io::Error::last_os_error());
    }

    /// Elsewhere no process-wide barrier exists to refuse.
    #[cfg(not(target_os = "linux"))]
    fn refuse_membarrier() {}

    /// How a child ended.
    #[derive(Debug, PartialEq, Eq)]
    enum Ended {
        /// Exited with this status.
        Exited(i32),
        /// Killed by a signal (not ours).
        Signalled(i32),
        /// Still running at the deadline: killed.
        Hung,
    }

    /// Forks a child that runs `child` and exits with the status it
    /// returns (without unwinding or running the parent's exit handlers),
    /// and waits up to `limit` for it; a child still running then is killed.
    fn in_child(limit: Duration, child: impl FnOnce() -> i32) -> Ended {
        // SAFETY: the child runs only `child`, which uses the pools and
        // std, then `_exit`s; it never returns into the parent's code.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed: {}", std::io::Error::last_os_error());
        if pid == 0 {
            let status =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(child)).unwrap_or(101);
            // SAFETY: ends the child at once, as a forked child should.
            unsafe { libc::_exit(status) };
        }
        let deadline = Instant::now() + limit;
        loop {
            let mut status = 0;
            // SAFETY: waits for our own child, writing only `status`.
            let waited = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            assert!(waited >= 0, "waitpid: {}", std::io::Error::last_os_error());
            if waited == pid {
                if libc::WIFEXITED(status) {
                    return Ended::Exited(libc::WEXITSTATUS(status));
                }
                return Ended::Signalled(libc::WTERMSIG(status));
            }
            if Instant::now() >= deadline {
                // SAFETY: signals and reaps our own child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, &mut status, 0);
                }
                return Ended::Hung;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// How many children the first scenario forks.
    const FORKS: u32 = 200;

    /// The bug: a fork while the rotation thread held a pool's locks across
    /// its process-wide barrier left the child spinning on a cache's lock
    /// or blocked on the store's, for ever.
    pub(super) fn fork_while_the_rotation_thread_rotates_never_hangs_the_child() {
        set_rotation_period(Some(Duration::from_millis(1)));
        // Both pools in use, so that every rotation goes through the
        // caches' handshake and the shared store of each.
        drop((0..8).map(|_| CACHED.acquire()).collect::<Vec<_>>());
        drop(SHARED_ONLY.acquire());
        use_busy_pools();
        let mut ended = Vec::new();
        for fork in 0..FORKS {
            // Forks spread over the rotation period.
            std::thread::sleep(Duration::from_micros(u64::from(fork * 37 % 1000)));
            ended.push(in_child(Duration::from_secs(5), || {
                for _ in 0..64 {
                    drop(CACHED.acquire());
                    drop(SHARED_ONLY.acquire());
                }
                use_busy_pools();
                rotate();
                use_busy_pools();
                drop(CACHED.acquire());
                // The child rotates on its own once asked to.
                set_rotation_period(Some(Duration::from_millis(1)));
                std::thread::sleep(Duration::from_millis(5));
                0
            }));
        }
        let hung = ended.iter().filter(|ended| **ended == Ended::Hung).count();
        let failed: Vec<_> = ended
            .iter()
            .filter(|ended| **ended != Ended::Exited(0))
            .collect();
        println!("fork during automatic rotation: {hung} of {FORKS} children hung");
        assert!(
            failed.is_empty(),
            "{} of {FORKS} children failed ({hung} hung): {failed:?}",
            failed.len()
        );
        set_rotation_period(None);
    }

    /// A generic derived struct: each instantiation's pool is found through
    /// a table that its first use takes a lock on.
    #[derive(Poolable, Default)]
    struct Frame<T> {
        data: Vec<T>,
    }

    /// How many children the busy scenario forks, and how many threads of
    /// the parent acquire and release meanwhile.
    const BUSY_FORKS: u32 = 200;
    const BUSY_THREADS: usize = 8;

    /// Acquires `n` objects of every kind of pool at once, then releases
    /// them: more than a thread cache holds, so that the refills and spills
    /// take each store's lock.
    fn use_every_pool(runtime: &Pool<Vec<u8>>, n: usize) {
        let cached: Vec<_> = (0..n).map(|_| CACHED.acquire()).collect();
        let shared: Vec<_> = (0..n).map(|_| SHARED_ONLY.acquire()).collect();
        let owned: Vec<_> = (0..n).map(|_| runtime.acquire()).collect();
        let frames: Vec<_> = (0..n).map(|_| Frame::<u8>::acquire()).collect();
        drop((cached, shared, owned, frames));
        use_busy_pools();
    }

    /// The bug: a fork while other threads were inside an acquire or a
    /// release copied the lock one of them held into the child, whose only
    /// thread then waited on it for ever.
    pub(super) fn fork_while_threads_acquire_and_release_never_hangs_the_child() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};

        set_rotation_period(Some(Duration::from_millis(1)));
        let runtime = Pool::builder(Vec::new).thread_capacity(16).build();
        let stop = Arc::new(AtomicBool::new(false));
        let busy: Vec<_> = (0..BUSY_THREADS)
            .map(|thread| {
                let (runtime, stop) = (runtime.clone(), Arc::clone(&stop));
                std::thread::spawn(move || {
                    let mut round = 0u32;
                    while !stop.load(Ordering::Relaxed) {
                        use_every_pool(&runtime, 24);
                        // New pools and instantiations now and then: their
                        // names' and the generic pools' tables.
                        if round % 64 == thread as u32 {
                            drop(Pool::builder(Vec::<u16>::new).build().acquire());
                            drop(Frame::<u16>::acquire());
                        }
                        round = round.wrapping_add(1);
                    }
                })
            })
            .collect();
        let started = Instant::now();
        let mut ended = Vec::new();
        for _ in 0..BUSY_FORKS {
            let runtime = runtime.clone();
            ended.push(in_child(Duration::from_secs(5), move || {
                // Every pool the parent used, through its slow paths; a
                // new instantiation and a new run-time pool; a rotation.
                use_every_pool(&runtime, 40);
                drop(Frame::<u32>::acquire());
                drop(Pool::builder(String::new).build().acquire());
                rotate();
                use_every_pool(&runtime, 40);
                0
            }));
        }
        stop.store(true, Ordering::Relaxed);
        for thread in busy {
            thread.join().unwrap();
        }
        set_rotation_period(None);
        let hung = ended.iter().filter(|ended| **ended == Ended::Hung).count();
        let failed: Vec<_> = ended
            .iter()
            .filter(|ended| **ended != Ended::Exited(0))
            .collect();
        println!(
            "fork with {BUSY_THREADS} busy threads: {hung} of {BUSY_FORKS} children hung, {:.1} s",
            started.elapsed().as_secs_f64()
        );
        assert!(
            failed.is_empty(),
            "{} of {BUSY_FORKS} children failed ({hung} hung): {failed:?}",
            failed.len()
        );
    }

    /// How many threads of the parent fill a cache before the fork, and how
    /// many objects each.
    const THREADS: usize = 4;
    const EACH: usize = 16;

    /// The bug: in a child, the caches of the parent's other threads (which
    /// the child does not have) were never aged where rotation cannot reach
    /// a live thread's cache (no process-wide barrier: macOS, or Linux with
    /// `membarrier` refused); their objects stayed idle for good.
    pub(super) fn in_a_child_the_caches_of_threads_it_lacks_are_aged() {
        set_rotation_period(None);
        let (filled, wait_filled) = mpsc::channel();
        let (release, parked) = mpsc::channel::<()>();
        let parked = std::sync::Arc::new(std::sync::Mutex::new(parked));
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                let filled = filled.clone();
                let parked = std::sync::Arc::clone(&parked);
                std::thread::spawn(move || {
                    drop((0..EACH).map(|_| PARKED.acquire()).collect::<Vec<_>>());
                    filled.send(()).unwrap();
                    // Alive, and idle, until the child has been judged.
                    let _ = parked.lock().unwrap().recv();
                })
            })
            .collect();
        for _ in 0..THREADS {
            wait_filled.recv().unwrap();
        }
        let before = PARKED.stats().idle;
        assert_eq!(before, (THREADS * EACH) as u64, "the caches were filled");
        let ended = in_child(Duration::from_secs(10), || {
            refuse_membarrier();
            for _ in 0..3 {
                rotate();
            }
            let after = PARKED.stats().idle;
            println!("in the child, idle after three rotations: {before} -> {after}");
            i32::from(after != 0)
        });
        assert_eq!(
            ended,
            Ended::Exited(0),
            "the other threads' caches kept their objects in the child"
        );
        drop(release);
        for worker in workers {
            worker.join().unwrap();
        }
    }
}

#[cfg(all(unix, not(miri)))]
fn main() {
    scenarios::in_a_child_the_caches_of_threads_it_lacks_are_aged();
    scenarios::fork_while_the_rotation_thread_rotates_never_hangs_the_child();
    scenarios::fork_while_threads_acquire_and_release_never_hangs_the_child();
    println!("fork: 3 scenarios passed");
}

/// No `fork` here (or under Miri, which cannot fork): nothing to test.
#[cfg(not(all(unix, not(miri))))]
fn main() {
    println!("fork: no fork on this platform");
}
