//! A model of a pool's shared accounting of bytes (`crate::engine::bytes`):
//! two threads fold their caches' tallies into the calibration at once
//! while a third reads the bound, as every release does.
//!
//! A fold that finds the calibration's lock taken leaves its tally whole,
//! for its owner's next fold: no release's weight is lost, so the two
//! halves calibrate exactly once together; a reader sees the cold cap or
//! the bound that calibration set, never anything else.

use loom::sync::Arc;
use loom::thread;

use crate::engine::bytes::{CALIBRATE, COLD_CAP, Calibration, FLOOR, Tally};

#[test]
fn racing_folds_lose_no_weight_and_readers_see_whole_bounds() {
    loom::model(|| {
        let calibration = Arc::new(Calibration::new());
        let folders: Vec<_> = (0..2)
            .map(|_| {
                let calibration = calibration.clone();
                thread::spawn(move || {
                    // Half the weight a calibration reads, of 1 KiB objects.
                    let mut tally = Tally::new();
                    assert!(
                        tally.record(1024, (CALIBRATE / 2) as u16),
                        "due to be folded"
                    );
                    while !tally.is_empty() {
                        calibration.fold(&mut tally);
                        thread::yield_now();
                    }
                })
            })
            .collect();
        let reader = {
            let calibration = calibration.clone();
            thread::spawn(move || {
                let bound = calibration.bound();
                assert!(bound == COLD_CAP || bound == FLOOR, "{bound}");
            })
        };
        for folder in folders {
            folder.join().unwrap();
        }
        reader.join().unwrap();
        // Both halves folded: calibrated once, on 1 KiB objects.
        assert_eq!((calibration.usual(), calibration.bound()), (1024, FLOOR));
    });
}

/// A pool of `Vec<u8>` (a type that counts its bytes) with a budget of
/// `budget` idle heap bytes and no bound per object below it, leaked as a
/// `pool!` static is, its caches passed by hand.
fn budgeted_pool(budget: usize) -> &'static crate::Pool<Vec<u8>> {
    use crate::__private::{PoolState, finish};
    let config = crate::Pool::new(Vec::new)
        .max_bytes(usize::MAX)
        .max_idle_bytes(budget);
    let state = Box::leak(Box::new(PoolState::new("model", &config)));
    // SAFETY: leaked, so it lives for ever, as a `pool!` static does; the
    // models pass each thread's cache by hand and no guard exists.
    Box::leak(Box::new(unsafe {
        finish((config, (&super::loom_support::NO_CACHE, state)), |_, _| {})
    }))
}

/// Two threads release a 1,000-byte buffer each into a pool whose budget
/// fits one: both checks may pass at once (the stated slack, one object
/// per thread), but at least one is kept and every byte is accounted for:
/// what is kept counts in `idle_bytes`, and once the store has destroyed
/// it (`clear`), nothing does.
#[test]
fn releases_racing_for_the_idle_budget_keep_it_within_one_object_each() {
    use crate::engine::cache::RawCache;
    use crate::engine::slot::epoch;

    loom::model(|| {
        let pool = budgeted_pool(1500);
        let threads: Vec<_> = (0..2)
            .map(|_| {
                thread::spawn(move || {
                    let cache = RawCache::new(pool.state.core());
                    let mut buffer = pool.take(&pool.config, Some(&cache), epoch().now());
                    buffer.reserve_exact(1000);
                    if let Some(prepared) = pool.prepare(&pool.config, buffer, true, false) {
                        pool.give(&pool.config, Some(&cache), prepared);
                    }
                    // The thread's exit: its cache's objects to the store.
                    cache.retire();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let stats = pool.stats();
        assert_eq!(stats.returned + stats.dropped_oversize, 2, "{stats:?}");
        assert!(stats.idle >= 1, "one fits: {stats:?}");
        let boxes = stats.idle * size_of::<crate::engine::erased::Padded<Vec<u8>>>() as u64;
        assert_eq!(stats.idle_bytes - boxes, 1000 * stats.idle, "{stats:?}");
        assert!(stats.idle_bytes - boxes <= 1500 + 1000, "{stats:?}");
        pool.state.core.clear();
        assert_eq!(pool.stats().idle_bytes, 0);
    });
}
