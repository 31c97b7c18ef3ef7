//! The shared store's tiers, bounds and graveyard, one behaviour a test.

use super::*;

/// A [`Dispose`] that drops the object and counts nothing.
fn forget_bytes<T>(object: T) -> usize {
    drop(object);
    0
}

fn store() -> Shared<u32> {
    // SAFETY: `forget_bytes` accepts every `u32`.
    unsafe { Shared::new(forget_bytes::<u32>) }
}

#[test]
fn objects_from_the_current_epoch_go_to_primary_and_come_back_first() {
    let shared = store();
    let cap = 8;
    let mut batch = vec![1, 2, 3];
    shared.lock(0).put_from(&mut batch, ..3, 0, cap);
    assert!(batch.is_empty());
    assert_eq!(shared.lock(0).take(), Some(3));
    assert_eq!(shared.counts().hits_primary, 1);
}

#[test]
fn one_rotation_moves_primary_to_victim_and_two_expire_it() {
    let shared = store();
    let cap = 8;
    let mut batch = vec![1, 2];
    shared.lock(0).put_from(&mut batch, ..2, 0, cap);
    drop(shared.lock(1));
    let counts = shared.counts();
    assert_eq!((counts.idle, counts.dropped_rotation), (2, 0));
    assert_eq!(shared.lock(1).take(), Some(2));
    assert_eq!(shared.counts().hits_victim, 1);
    drop(shared.lock(2));
    let counts = shared.counts();
    assert_eq!((counts.idle, counts.dropped_rotation), (0, 1));
}

#[test]
fn skipping_two_epochs_expires_both_tiers() {
    let shared = store();
    let cap = 8;
    shared.lock(0).put_from(&mut vec![1], ..1, 0, cap);
    drop(shared.lock(1));
    shared.lock(1).put_from(&mut vec![2], ..1, 1, cap);
    drop(shared.lock(3));
    let counts = shared.counts();
    assert_eq!((counts.idle, counts.dropped_rotation), (0, 2));
}

#[test]
fn objects_released_one_epoch_ago_go_straight_to_victim() {
    let shared = store();
    let cap = 8;
    shared.lock(5).put_from(&mut vec![7], ..1, 4, cap);
    assert_eq!(shared.lock(5).take(), Some(7));
    assert_eq!(shared.counts().hits_victim, 1);
}

#[test]
fn objects_released_two_epochs_ago_are_expired_not_stored() {
    let shared = store();
    let cap = 8;
    shared.lock(5).put_from(&mut vec![7, 8], ..2, 3, cap);
    let counts = shared.counts();
    assert_eq!((counts.idle, counts.dropped_rotation), (0, 2));
}

#[test]
fn capacity_bounds_both_tiers_together() {
    let shared = store();
    let cap = 3;
    shared.lock(0).put_from(&mut vec![1, 2], ..2, 0, cap);
    drop(shared.lock(1));
    // Two victims, room for one more: a victim-age batch only fills room.
    shared.lock(1).put_from(&mut vec![3, 4], ..2, 0, cap);
    let counts = shared.counts();
    assert_eq!((counts.idle, counts.dropped_capacity), (3, 1));
}

#[test]
fn fresh_objects_evict_victims_when_full() {
    let shared = store();
    let cap = 2;
    shared.lock(0).put_from(&mut vec![1, 2], ..2, 0, cap);
    drop(shared.lock(1));
    shared.lock(1).put_from(&mut vec![3], ..1, 1, cap);
    let counts = shared.counts();
    assert_eq!((counts.idle, counts.dropped_capacity), (2, 1));
    let mut locked = shared.lock(1);
    assert_eq!(locked.take(), Some(3));
    assert!(locked.take().is_some());
    drop(locked);
    let counts = shared.counts();
    assert_eq!((counts.hits_primary, counts.hits_victim), (1, 1));
}

#[test]
fn a_full_store_with_no_victims_buries_the_newcomer() {
    let shared = store();
    let cap = 1;
    shared.lock(0).put_one(1, cap);
    shared.lock(0).put_one(2, cap);
    assert_eq!(shared.counts().dropped_capacity, 1);
    assert_eq!(shared.lock(0).take(), Some(1));
    assert_eq!(shared.lock(0).take(), None);
}

#[test]
fn put_from_moves_only_the_bottom_of_the_batch() {
    let shared = store();
    let cap = 8;
    let mut batch = vec![1, 2, 3, 4];
    shared.lock(0).put_from(&mut batch, ..2, 0, cap);
    assert_eq!(batch, [3, 4]);
}

#[test]
fn take_batch_moves_primaries_only() {
    let shared = store();
    let cap = 8;
    shared.lock(0).put_from(&mut vec![1], ..1, 0, cap);
    drop(shared.lock(1));
    shared.lock(1).put_from(&mut vec![2, 3, 4], ..3, 1, cap);
    let mut out = Vec::new();
    shared.lock(1).take_batch(&mut out, 8);
    assert_eq!(out, [2, 3, 4]);
    assert_eq!(shared.counts().idle, 1);
}

#[test]
fn buried_objects_are_destroyed_after_the_lock_is_released() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    // The destructor records whether the store's lock was free when it
    // ran (a destructor that took the lock under it would deadlock).
    struct Probe {
        store: Arc<Shared<Probe>>,
        ran_unlocked: Arc<AtomicBool>,
    }
    impl Drop for Probe {
        fn drop(&mut self) {
            let unlocked = self.store.tiers.try_lock().is_ok();
            self.ran_unlocked.store(unlocked, Ordering::SeqCst);
        }
    }
    // SAFETY: `forget_bytes` accepts every `Probe`.
    let shared = Arc::new(unsafe { Shared::new(forget_bytes::<Probe>) });
    let ran_unlocked = Arc::new(AtomicBool::new(false));
    let mut batch = vec![Probe {
        store: shared.clone(),
        ran_unlocked: ran_unlocked.clone(),
    }];
    // Capacity 0: the object is buried, and destroyed by this call.
    shared.lock(0).put_from(&mut batch, ..1, 0, 0);
    assert!(
        ran_unlocked.load(Ordering::SeqCst),
        "the buried object was destroyed, with the lock released"
    );
    assert_eq!(shared.counts().dropped_capacity, 1);
}

/// The layout `Shared` is for: the hints, the lock word and the primary
/// tier with the epoch on the store's first cache line, and the counters
/// (which refills write) off the line of the victim tier (which spills
/// read). A perf property, checked so that a change of std's `Mutex`
/// layout or of these fields is noticed.
#[test]
fn what_every_batch_touches_is_on_one_line() {
    let shared = store();
    let start = std::ptr::from_ref(&shared).addr();
    assert_eq!(start % 64, 0);
    let tiers = shared.tiers.lock().unwrap();
    let at = |field: usize| field - start;
    let data = at(std::ptr::from_ref::<Tiers<u32>>(&tiers).addr());
    let lock = std::mem::offset_of!(Shared<u32>, tiers);
    assert!(lock < data, "the lock word before the data");
    assert!(at(std::ptr::from_ref(&tiers.epoch).addr()) + 8 <= 64);
    assert!(at(std::ptr::from_ref(&tiers.primary).addr()) >= lock);
    let (victim, counts) = (
        at(std::ptr::from_ref(&tiers.victim).addr()),
        at(std::ptr::from_ref(&tiers.counts).addr()),
    );
    assert_eq!((victim / 64, counts / 64), (1, 2));
}
