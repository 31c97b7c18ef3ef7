//! Each test declares its own pool type, so tests running in parallel never
//! share a pool. `rotate()` is global, though: every test that reads tier
//! statistics holds `EPOCH_LOCK`, so that another test's rotation cannot
//! move its objects between tiers mid-test.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::{Pool, Poolable, Pooled, Reset, pool, rotate};

static EPOCH_LOCK: Mutex<()> = Mutex::new(());

fn epoch_lock() -> MutexGuard<'static, ()> {
    EPOCH_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Declares a pooled type that counts its live instances.
macro_rules! counted {
    ($name:ident, $pool:expr) => {
        // Not every test reads every field and counter.
        #[allow(dead_code)]
        #[derive(Debug)]
        struct $name {
            data: Vec<u8>,
            id: usize,
        }

        #[allow(dead_code)]
        impl $name {
            fn live() -> usize {
                LIVE.load(Ordering::SeqCst)
            }
        }

        static LIVE: AtomicUsize = AtomicUsize::new(0);
        static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

        impl Drop for $name {
            fn drop(&mut self) {
                LIVE.fetch_sub(1, Ordering::SeqCst);
            }
        }

        impl Reset for $name {
            fn reset(&mut self) {
                self.data.clear();
            }
        }

        impl Poolable for $name {
            fn create() -> Self {
                LIVE.fetch_add(1, Ordering::SeqCst);
                $name {
                    data: Vec::with_capacity(16),
                    id: NEXT_ID.fetch_add(1, Ordering::SeqCst),
                }
            }

            fn pool() -> &'static Pool<Self> {
                pool! { static POOL: Pool<$name> = $pool; }
                &POOL
            }
        }
    };
}

mod reuse {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    #[test]
    fn a_released_object_comes_back_reset_with_its_allocation() {
        let _epoch = epoch_lock();
        let mut first = Obj::acquire();
        first.data.extend_from_slice(b"dirty");
        let (id, buffer) = (first.id, first.data.as_ptr());
        drop(first);

        let second = Obj::acquire();
        assert_eq!(second.id, id, "the same object is handed out again");
        assert!(second.data.is_empty(), "reset ran on release");
        assert_eq!(second.data.as_ptr(), buffer, "its buffer was kept");
        let stats = Obj::pool().stats();
        assert_eq!((stats.created, stats.hits_local, stats.returned), (1, 1, 1));
        assert_eq!(Obj::live(), 1);
    }
}

mod tiers {
    use super::*;
    counted!(Obj, Pool::new(Obj::create).thread_capacity(0));

    #[test]
    fn acquire_takes_primary_then_victim_then_creates() {
        let _epoch = epoch_lock();
        // With no thread cache, releases go straight to the shared store.
        let (a, b) = (Obj::acquire(), Obj::acquire());
        let a_id = a.id;
        drop(a);
        rotate(); // `a` is now a victim
        let b_id = b.id;
        drop(b); // `b` is primary

        let first = Obj::acquire();
        let second = Obj::acquire();
        let third = Obj::acquire();
        assert_eq!(first.id, b_id, "primary first");
        assert_eq!(second.id, a_id, "then the victim");
        let stats = Obj::pool().stats();
        assert_eq!(stats.hits_primary, 1);
        assert_eq!(stats.hits_victim, 1);
        assert_eq!(stats.created, 3, "then the constructor");
        assert!(third.id != a_id && third.id != b_id);
    }
}

mod rotation {
    use super::*;
    counted!(Obj, Pool::new(Obj::create).thread_capacity(0));

    #[test]
    fn idle_for_one_rotation_is_served_idle_for_two_is_dropped() {
        let _epoch = epoch_lock();
        drop(Obj::acquire());
        rotate();
        assert_eq!(Obj::live(), 1, "one rotation: kept as a victim");
        assert_eq!(Obj::pool().stats().idle, 1);
        rotate();
        assert_eq!(Obj::live(), 0, "two rotations: destructor ran");
        let stats = Obj::pool().stats();
        assert_eq!((stats.idle, stats.dropped_rotation), (0, 1));
    }
}

mod thread_cache_aging {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    #[test]
    fn a_thread_cache_one_epoch_old_serves_its_objects_as_victims() {
        let _epoch = epoch_lock();
        let obj = Obj::acquire();
        let id = obj.id;
        drop(obj); // in this thread's cache
        rotate();
        let again = Obj::acquire();
        assert_eq!(again.id, id);
        let stats = Obj::pool().stats();
        assert_eq!((stats.hits_local, stats.hits_victim), (0, 1));
    }
}

mod thread_cache_expiry {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    /// Rotation reaches the caches of threads that are not using the pool
    /// (here the caller's own, between its operations).
    #[test]
    #[cfg_attr(
        not(any(target_os = "linux", windows)),
        ignore = "no process-wide barrier here: caches age on their next use"
    )]
    fn a_thread_cache_idle_across_two_rotations_is_emptied_by_rotation() {
        let _epoch = epoch_lock();
        let held: Vec<_> = (0..3).map(|_| Obj::acquire()).collect();
        drop(held); // three objects in this thread's cache
        rotate();
        assert_eq!(Obj::live(), 3, "one rotation: victims, still served");
        assert_eq!(Obj::pool().stats().idle, 3);
        rotate();
        assert_eq!(
            Obj::live(),
            0,
            "two rotations: dropped, with no use of the pool"
        );
        let stats = Obj::pool().stats();
        assert_eq!((stats.idle, stats.dropped_rotation), (0, 3), "{stats:?}");
        let fresh = Obj::acquire();
        assert_eq!(fresh.id, 3, "a new one made");
        assert_eq!(Obj::pool().stats().created, 4);
    }
}

mod spill {
    use super::*;
    counted!(Obj, Pool::new(Obj::create).thread_capacity(4));

    #[test]
    fn a_full_thread_cache_spills_half_to_the_shared_store() {
        let _epoch = epoch_lock();
        let held: Vec<_> = (0..5).map(|_| Obj::acquire()).collect();
        drop(held);
        assert_eq!(Obj::pool().stats().idle, 5);
        // Another thread finds the spilled objects in the shared store.
        let id = std::thread::spawn(|| Obj::acquire().id).join().unwrap();
        assert!(id < 5, "reused, not created");
        let stats = Obj::pool().stats();
        assert_eq!((stats.created, stats.hits_primary), (5, 1));
    }
}

mod thread_exit {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    #[test]
    fn an_exiting_thread_hands_its_cache_to_the_shared_store() {
        let _epoch = epoch_lock();
        std::thread::spawn(|| {
            let held: Vec<_> = (0..3).map(|_| Obj::acquire()).collect();
            drop(held);
        })
        .join()
        .unwrap();
        assert_eq!(Obj::live(), 3, "nothing dropped");
        assert_eq!(Obj::pool().stats().idle, 3);
        let reused: Vec<_> = (0..3).map(|_| Obj::acquire()).collect();
        let stats = Obj::pool().stats();
        assert_eq!(stats.created, 3, "all three reused on this thread");
        assert_eq!(stats.reused(), 3);
        drop(reused);
    }
}

mod thread_exit_early {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    /// What the exit list's destructor does, run early (as the loom models
    /// end their threads): the cache's objects go to the shared store, the
    /// cache is unset again, and the thread's later releases go to the
    /// store, not to a cache nothing would retire.
    #[test]
    fn exit_retires_the_static_caches_and_later_uses_go_to_the_store() {
        use crate::engine::cache::exit_static_caches;
        let _epoch = epoch_lock();
        std::thread::spawn(|| {
            drop((0..2).map(|_| Obj::acquire()).collect::<Vec<_>>());
            exit_static_caches();
            drop(Obj::acquire());
            assert_eq!(Obj::pool().stats().hits_primary, 1, "taken from the store");
        })
        .join()
        .unwrap();
        let stats = Obj::pool().stats();
        assert_eq!(
            (stats.created, stats.idle, stats.hits_local),
            (2, 2, 0),
            "{stats:?}"
        );
    }
}

mod release_after_cache_is_gone {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    thread_local! {
        static HELD: Cell<Option<Pooled<Obj>>> = const { Cell::new(None) };
    }

    #[test]
    fn a_guard_dropped_during_thread_teardown_is_not_lost() {
        let _epoch = epoch_lock();
        // The guard lives in another thread-local, whose destructor may run
        // before or after the pool's cache is destroyed. Either way the
        // object must end up in the shared store.
        std::thread::spawn(|| HELD.with(|held| held.set(Some(Obj::acquire()))))
            .join()
            .unwrap();
        let stats = Obj::pool().stats();
        assert_eq!((stats.in_use(), stats.idle, stats.returned), (0, 1, 1));
        assert_eq!(Obj::acquire().id, 0, "and it is served again");
    }
}

mod panics {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    #[test]
    fn a_guard_dropped_during_a_panic_discards_its_object() {
        let _epoch = epoch_lock();
        let result = catch_unwind(|| {
            let mut obj = Obj::acquire();
            obj.data.push(1);
            panic!("half-way through an update");
        });
        assert!(result.is_err());
        let stats = Obj::pool().stats();
        assert_eq!((stats.discarded, stats.idle, stats.in_use()), (1, 0, 0));
        assert_eq!(Obj::live(), 0, "dropped, not cached");
    }
}

mod panicking_reset {
    use super::*;

    static FAIL: AtomicBool = AtomicBool::new(false);
    static LIVE: AtomicUsize = AtomicUsize::new(0);

    struct Fragile;
    impl Drop for Fragile {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }
    impl Reset for Fragile {
        fn reset(&mut self) {
            assert!(!FAIL.load(Ordering::SeqCst), "reset failed");
        }
    }
    impl Poolable for Fragile {
        fn create() -> Self {
            LIVE.fetch_add(1, Ordering::SeqCst);
            Fragile
        }
        fn pool() -> &'static Pool<Self> {
            pool! { static POOL: Pool<Fragile> = Pool::new(Fragile::create); }
            &POOL
        }
    }

    #[test]
    fn a_reset_that_panics_never_returns_the_object_and_the_pool_stays_usable() {
        let _epoch = epoch_lock();
        let obj = Fragile::acquire();
        FAIL.store(true, Ordering::SeqCst);
        assert!(catch_unwind(AssertUnwindSafe(|| drop(obj))).is_err());
        FAIL.store(false, Ordering::SeqCst);
        assert_eq!(LIVE.load(Ordering::SeqCst), 0, "the object was dropped");
        let stats = Fragile::pool().stats();
        assert_eq!((stats.discarded, stats.returned, stats.idle), (1, 0, 0));

        drop(Fragile::acquire());
        let stats = Fragile::pool().stats();
        assert_eq!((stats.created, stats.returned, stats.idle), (2, 1, 1));
    }
}

mod panicking_heap_bytes {
    use super::*;

    /// `heap_bytes` panics once, when armed; a dispose after it counts as
    /// usual.
    static ARMED: AtomicBool = AtomicBool::new(false);

    struct Weighed(Vec<u8>);
    impl Reset for Weighed {
        const HEAP: crate::Heap = crate::Heap::Counted;
        fn reset(&mut self) {}
        fn heap_bytes(&mut self) -> usize {
            assert!(!ARMED.swap(false, Ordering::SeqCst), "heap_bytes failed");
            self.0.capacity()
        }
    }

    fn weighed() -> Weighed {
        Weighed(Vec::with_capacity(4096))
    }

    pool! {
        static CACHED: Pool<Weighed> = Pool::new(weighed);
        static STORED: Pool<Weighed> = Pool::new(weighed).thread_capacity(0);
    }

    /// Acquires from `pool`, whose one idle object's `heap_bytes` panics:
    /// the object is discarded, and its bytes are no longer idle.
    fn acquire_while_armed(pool: &'static Pool<Weighed>) {
        drop(pool.acquire());
        assert!(pool.stats().idle_bytes >= 4096);
        ARMED.store(true, Ordering::SeqCst);
        assert!(catch_unwind(AssertUnwindSafe(|| drop(pool.acquire()))).is_err());
        let stats = pool.stats();
        assert_eq!((stats.idle, stats.discarded), (0, 1));
        assert_eq!(
            stats.idle_bytes, 0,
            "the discarded object's bytes are not idle"
        );
    }

    #[test]
    fn a_heap_bytes_that_panics_on_a_hit_leaves_no_bytes_idle() {
        let _epoch = epoch_lock();
        acquire_while_armed(&CACHED);
    }

    #[test]
    fn a_heap_bytes_that_panics_on_a_miss_leaves_no_bytes_idle() {
        let _epoch = epoch_lock();
        acquire_while_armed(&STORED);
    }
}

mod capacity {
    use super::*;
    counted!(Obj, Pool::new(Obj::create).capacity(2).thread_capacity(0));

    #[test]
    fn returns_past_capacity_are_dropped() {
        let _epoch = epoch_lock();
        let held: Vec<_> = (0..5).map(|_| Obj::acquire()).collect();
        drop(held);
        let stats = Obj::pool().stats();
        assert_eq!((stats.idle, stats.dropped_capacity), (2, 3));
        assert_eq!(Obj::live(), 2);
    }
}

mod overflow {
    use super::*;
    counted!(Obj, Pool::new(Obj::create).capacity(4).thread_capacity(4));

    #[test]
    fn a_release_past_both_bounds_destroys_that_object_at_once() {
        let _epoch = epoch_lock();
        let mut held: Vec<_> = (0..20).map(|_| Obj::acquire()).collect();
        let last: Vec<usize> = held[10..].iter().map(|obj| obj.id).collect();
        // The first ten fill this thread's cache (4) and the store (4).
        held.drain(..10);
        assert_eq!(Obj::live(), 18, "ten held, eight idle");
        // Each later release finds both full: its own object goes, and
        // nothing the pool holds is touched.
        for (released, obj) in held.drain(..).enumerate() {
            drop(obj);
            assert_eq!(Obj::live(), 17 - released, "after release {released}");
        }
        let stats = Obj::pool().stats();
        assert_eq!(
            (stats.returned, stats.dropped_capacity),
            (20, 12),
            "{stats:?}"
        );
        assert_eq!((stats.idle, stats.in_use()), (8, 0), "{stats:?}");
        let reused: Vec<_> = (0..8).map(|_| Obj::acquire()).collect();
        assert!(reused.iter().all(|obj| !last.contains(&obj.id)));
        assert_eq!(Obj::pool().stats().created, 20, "all eight reused");
    }
}

mod thread_capacity {
    use super::*;
    counted!(Obj, Pool::new(Obj::create).capacity(0).thread_capacity(3));

    #[test]
    fn a_thread_cache_never_holds_more_than_its_capacity() {
        let _epoch = epoch_lock();
        let held: Vec<_> = (0..10).map(|_| Obj::acquire()).collect();
        drop(held);
        // Spills find no room in the shared store (capacity 0).
        assert!(Obj::live() <= 3, "{} objects kept", Obj::live());
        let stats = Obj::pool().stats();
        assert_eq!(stats.idle as usize, Obj::live());
        assert_eq!(stats.dropped_capacity as usize, 10 - Obj::live());
    }
}

mod detach {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    #[test]
    fn into_inner_takes_the_object_out_for_good() {
        let _epoch = epoch_lock();
        let mut obj = Obj::acquire();
        obj.data.push(9);
        let owned = Pooled::into_inner(obj);
        assert_eq!(owned.data, [9], "not reset");
        drop(owned);
        let stats = Obj::pool().stats();
        assert_eq!((stats.detached, stats.returned, stats.idle), (1, 0, 0));
        assert_eq!(Obj::live(), 0);
    }
}

mod discard {
    use super::*;
    counted!(Obj, Pool::new(Obj::create));

    #[test]
    fn discard_drops_the_object_and_the_next_acquire_makes_a_new_one() {
        let _epoch = epoch_lock();
        let mut obj = Obj::acquire();
        obj.data.push(1);
        let first = obj.id;
        Pooled::discard(obj);
        assert_eq!(Obj::live(), 0, "dropped, not cached");
        let stats = Obj::pool().stats();
        assert_eq!(
            (stats.discarded, stats.returned, stats.idle, stats.in_use()),
            (1, 0, 0, 0)
        );
        let next = Obj::acquire();
        assert_ne!(next.id, first, "a new object, not the discarded one");
        assert_eq!(Obj::pool().stats().created, 2);
    }
}

mod prefill {
    use super::*;
    // No thread cache: every release goes to the shared store, which is
    // what a prefill counts.
    counted!(Obj, Pool::new(Obj::create).capacity(4).thread_capacity(0));

    #[test]
    fn prefill_fills_the_shared_store_up_to_capacity_and_acquires_then_make_nothing() {
        let _epoch = epoch_lock();
        assert_eq!(Obj::pool().prefill(10), 4, "bounded by capacity");
        assert_eq!(Obj::live(), 4);
        let stats = Obj::pool().stats();
        assert_eq!((stats.created, stats.idle, stats.in_use()), (4, 4, 0));
        assert_eq!(Obj::pool().prefill(3), 0, "the store already holds 3");

        let mut held: Vec<_> = (0..4).map(|_| Obj::acquire()).collect();
        let stats = Obj::pool().stats();
        assert_eq!((stats.created, stats.in_use()), (4, 4), "{stats:?}");
        assert_eq!(stats.hits_primary, 4, "{stats:?}");
        drop(held.pop());
        // One back in the store: three more to make.
        assert_eq!(Obj::pool().prefill(4), 3);
        assert_eq!(Obj::live(), 7);
    }
}

mod retain {
    use super::*;
    counted!(
        Obj,
        Pool::new(Obj::create).retain(|obj: &Obj| obj.data.capacity() <= 16)
    );

    #[test]
    fn retain_drops_what_it_refuses_after_the_reset_and_keeps_the_rest() {
        let _epoch = epoch_lock();
        let mut kept = Obj::acquire();
        kept.data.extend_from_slice(&[1; 16]); // fits the bound
        let mut grown = Obj::acquire();
        grown.data.extend_from_slice(&[1; 64]); // past it
        let (kept_id, grown_id) = (kept.id, grown.id);
        drop((kept, grown));
        assert_eq!(Obj::live(), 1, "the grown one is dropped");
        let stats = Obj::pool().stats();
        assert_eq!(
            (stats.returned, stats.rejected, stats.idle, stats.in_use()),
            (1, 1, 1, 0)
        );
        let again = Obj::acquire();
        assert_eq!(again.id, kept_id);
        assert_ne!(again.id, grown_id);
        assert!(again.data.is_empty(), "reset before it was tested and kept");
    }
}

mod retain_panics {
    use super::*;
    counted!(
        Obj,
        Pool::new(Obj::create).retain(|obj: &Obj| {
            assert!(obj.data.is_empty(), "the reset runs first");
            panic!("a predicate that panics")
        })
    );

    #[test]
    fn a_retain_predicate_that_panics_discards_the_object() {
        let _epoch = epoch_lock();
        let mut obj = Obj::acquire();
        obj.data.push(1);
        assert!(catch_unwind(AssertUnwindSafe(|| drop(obj))).is_err());
        assert_eq!(Obj::live(), 0);
        let stats = Obj::pool().stats();
        assert_eq!((stats.discarded, stats.rejected, stats.in_use()), (1, 0, 0));
    }
}

mod reentrant {
    use super::*;

    /// A tree of pooled nodes: resetting a node releases its children into
    /// the same pool while the pool is in the middle of a release.
    struct Node {
        children: Vec<Pooled<Node>>,
    }
    impl Reset for Node {
        fn reset(&mut self) {
            self.children.clear();
        }
    }
    impl Poolable for Node {
        fn create() -> Self {
            Node {
                children: Vec::new(),
            }
        }
        fn pool() -> &'static Pool<Self> {
            pool! { static POOL: Pool<Node> = Pool::new(Node::create).thread_capacity(2); }
            &POOL
        }
    }

    #[test]
    fn reset_may_release_objects_of_the_same_pool() {
        let _epoch = epoch_lock();
        let mut root = Node::acquire();
        for _ in 0..3 {
            let mut child = Node::acquire();
            child.children.push(Node::acquire());
            root.children.push(child);
        }
        drop(root);
        let stats = Node::pool().stats();
        assert_eq!(stats.created, 7);
        assert_eq!((stats.returned, stats.in_use()), (7, 0));
        assert_eq!(stats.idle + stats.dropped_capacity, 7, "none lost");
    }
}

mod exclusive {
    use super::*;

    /// An object that knows whether a guard holds it.
    struct Slot {
        held: AtomicBool,
        scribble: u64,
    }
    impl Reset for Slot {
        fn reset(&mut self) {
            self.scribble = 0;
        }
    }
    impl Poolable for Slot {
        fn create() -> Self {
            Slot {
                held: AtomicBool::new(false),
                scribble: 0,
            }
        }
        fn pool() -> &'static Pool<Self> {
            pool! {
                static POOL: Pool<Slot> = Pool::new(Slot::create).capacity(8).thread_capacity(4);
            }
            &POOL
        }
    }

    #[test]
    fn threads_acquiring_at_once_never_share_an_object() {
        let _epoch = epoch_lock();
        let (threads, rounds) = if cfg!(miri) { (3, 20) } else { (4, 2_000) };
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    s.spawn(move || {
                        for round in 0..rounds {
                            let mut held: Vec<_> =
                                (0..1 + (round + t) % 5).map(|_| Slot::acquire()).collect();
                            for slot in &mut held {
                                assert!(!slot.held.swap(true, Ordering::SeqCst), "shared");
                                assert_eq!(slot.scribble, 0, "handed out without reset");
                                slot.scribble = 1 + t as u64;
                            }
                            for slot in &held {
                                slot.held.store(false, Ordering::SeqCst);
                            }
                            if round % 64 == 0 && t == 0 {
                                rotate();
                            }
                        }
                    })
                })
                .collect();
            // Joined explicitly: a scope's implicit join does not wait for
            // the threads' thread-local destructors, which hand their
            // caches to the shared store.
            for worker in workers {
                worker.join().unwrap();
            }
        });
        let stats = Slot::pool().stats();
        assert_eq!(stats.in_use(), 0);
        assert_eq!(
            stats.created,
            stats.idle + stats.dropped_capacity + stats.dropped_rotation,
            "every object made is idle or was dropped: {stats:?}"
        );
    }
}

mod guard_traits {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    pool! { static WORDS: Pool<String> = Pool::new(String::new); }

    #[test]
    fn the_guard_is_send_and_sync_and_formats_as_its_object() {
        assert_send_sync::<Pooled<String>>();
        let mut w = WORDS.acquire();
        w.push_str("hi");
        assert_eq!(format!("{w} {w:?}"), "hi \"hi\"");
        assert_eq!(AsRef::<String>::as_ref(&w), "hi");
    }

    // Its own pool: the test above holds a guard of `WORDS` while this one
    // counts the guards in use.
    pool! { static LINES: Pool<String> = Pool::new(String::new); }

    #[test]
    fn a_guard_may_be_returned_from_another_thread() {
        let _epoch = epoch_lock();
        let w = LINES.acquire();
        std::thread::spawn(move || drop(w)).join().unwrap();
        let stats = LINES.stats();
        assert_eq!((stats.in_use(), stats.returned), (0, 1), "{stats:?}");
    }
}

mod aged_cache_registers {
    use super::*;
    counted!(Obj, Pool::new(Obj::create).thread_capacity(4));

    /// Regression: a pool whose objects only ever reached the shared store by
    /// a thread cache aging (never by a spill) was not registered with
    /// `rotate`, so its victims were never dropped.
    #[test]
    fn objects_moved_to_the_shared_store_by_aging_are_rotated_out() {
        let _epoch = epoch_lock();
        let held: Vec<_> = (0..3).map(|_| Obj::acquire()).collect();
        drop(held); // three in this thread's cache; nothing spilled
        rotate();
        let kept = Obj::acquire(); // the cache ages: its objects become victims
        assert_eq!(Obj::pool().stats().hits_victim, 1);
        rotate(); // the two other victims are idle for a second rotation
        assert_eq!(Obj::live(), 1, "only the held object is left");
        drop(kept);
    }
}

/// The owner's own turn-over of a cache that rotation could not reach (on
/// a platform without a process-wide barrier, or when the owner was busy
/// at the rotation): here simulated by advancing the epoch without
/// rotating, so the cache is found two epochs old on its next use.
mod owner_turn_over {
    use super::*;

    static ALIVE: AtomicUsize = AtomicUsize::new(0);

    /// Destructor panics when armed; reset leaves the flag.
    struct Armed(bool);

    impl Armed {
        fn new() -> Self {
            ALIVE.fetch_add(1, Ordering::SeqCst);
            Armed(false)
        }
    }

    impl Reset for Armed {
        fn reset(&mut self) {}
    }

    impl Drop for Armed {
        fn drop(&mut self) {
            ALIVE.fetch_sub(1, Ordering::SeqCst);
            assert!(!self.0, "an armed object's destructor");
        }
    }

    pool! { static ARMED: Pool<Armed> = Pool::new(Armed::new).capacity(4).thread_capacity(4); }

    /// Two epochs pass by without a rotation reaching the cache.
    fn epochs_pass_unseen() {
        crate::engine::slot::epoch().advance();
        crate::engine::slot::epoch().advance();
    }

    /// Thread A's cache holds an armed object; two epochs pass unseen; B
    /// leaves a fresh object in the store. A's acquire takes the fresh one
    /// and expires the armed one, whose destructor panics out of
    /// `acquire()`. The fresh object used to be lost, `in_use()` stuck at 1
    /// (rust-lang/rust#47949); now it is discarded, as a guard dropped in a
    /// panic is.
    #[test]
    fn an_acquire_keeps_count_of_the_object_it_took_when_an_expired_one_panics() {
        let _epoch = epoch_lock();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let a = std::thread::spawn(move || {
            ARMED.acquire().0 = true;
            wait.recv().unwrap();
            catch_unwind(|| drop(ARMED.acquire())).is_err()
        });
        while ARMED.stats().returned < 1 {
            std::thread::yield_now();
        }
        epochs_pass_unseen();
        std::thread::spawn(|| drop(ARMED.acquire())).join().unwrap();
        go.send(()).unwrap();
        assert!(
            a.join().unwrap(),
            "the destructor's panic reaches the caller"
        );
        let stats = ARMED.stats();
        assert_eq!((stats.hits_primary, stats.discarded), (1, 1), "{stats:?}");
        assert_eq!(stats.in_use(), 0, "{stats:?}");
        assert_eq!(ALIVE.load(Ordering::SeqCst) as u64, stats.idle, "{stats:?}");
    }
}

/// `set_allocator_trim`: where glibc is the allocator, a rotation that
/// drops objects calls `malloc_trim` (counted by `trim::TRIMS`).
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
mod allocator_trim {
    use super::*;
    use crate::engine::rotation::{MIN_INTERVAL, TRIMS};
    use std::sync::atomic::Ordering::Relaxed;
    use std::time::Instant;

    pool! {
        static BLOCKS: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(1024)).thread_capacity(0);
    }

    #[test]
    fn a_rotation_that_drops_objects_trims_the_allocator() {
        let _epoch = epoch_lock();
        crate::set_allocator_trim(true);
        let before = TRIMS.load(Relaxed);
        // A trim less than `MIN_INTERVAL` after the last one is skipped, so
        // rotate a few intervals' worth, not once.
        let deadline = Instant::now() + 5 * MIN_INTERVAL;
        while TRIMS.load(Relaxed) == before && Instant::now() < deadline {
            let dropped = BLOCKS.stats().dropped_rotation;
            drop((0..32).map(|_| BLOCKS.acquire()).collect::<Vec<_>>());
            rotate();
            rotate();
            assert!(
                BLOCKS.stats().dropped_rotation > dropped,
                "the rotations dropped objects"
            );
            std::thread::sleep(MIN_INTERVAL / 10);
        }
        crate::set_allocator_trim(false);
        assert!(
            TRIMS.load(Relaxed) > before,
            "no trim after rotations that dropped objects"
        );
    }

    #[test]
    fn with_the_trim_off_a_rotation_does_not_trim() {
        let _epoch = epoch_lock();
        crate::set_allocator_trim(false);
        let before = TRIMS.load(Relaxed);
        drop((0..32).map(|_| BLOCKS.acquire()).collect::<Vec<_>>());
        rotate();
        rotate();
        assert_eq!(TRIMS.load(Relaxed), before);
    }
}
