//! `#[derive(Poolable)]` on generic structs: each instantiation has its own
//! pool (`Frame::<u8>::pool()` is not `Frame::<String>::pool()`), with its
//! own statistics and the derive's reset, bounds and attributes. Each test
//! uses instantiations of its own, so tests running in parallel share none.

use pool_core::{Poolable, Reset};

#[derive(Poolable, Default)]
#[pool(capacity = 4, thread_capacity = 2)]
struct Frame<T> {
    data: Vec<T>,
    #[pool(skip)]
    generation: u32,
}

#[test]
fn two_instantiations_use_their_own_pools_and_statistics() {
    let mut bytes = Frame::<u8>::acquire();
    bytes.data.extend_from_slice(b"abc");
    bytes.generation = 7;
    let mut strings = Frame::<String>::acquire();
    strings.data.push("abc".to_owned());
    drop((bytes, strings));

    let again = Frame::<u8>::acquire();
    assert!(again.data.is_empty(), "reset on return");
    assert!(again.data.capacity() >= 3, "allocation kept");
    assert_eq!(again.generation, 7, "a skipped field is left as it is");
    drop(again);

    let (u8s, strings) = (Frame::<u8>::pool().stats(), Frame::<String>::pool().stats());
    assert_eq!((u8s.created, u8s.reused(), u8s.idle), (1, 1, 1), "{u8s:?}");
    assert_eq!(
        (strings.created, strings.reused(), strings.idle),
        (1, 0, 1),
        "{strings:?}"
    );
    assert!(std::ptr::eq(Frame::<u8>::pool(), Frame::<u8>::pool()));
    assert!(!std::ptr::eq(
        Frame::<u16>::pool() as *const _ as *const (),
        Frame::<u32>::pool() as *const _ as *const ()
    ));
}

#[test]
fn the_attributes_apply_to_every_instantiation() {
    assert_eq!(Frame::<i64>::pool().prefill(100), 4, "capacity = 4");
    assert_eq!(Frame::<i64>::pool().stats().idle, 4);
}

#[test]
fn other_threads_find_the_same_pool() {
    drop(Frame::<char>::acquire());
    let from_thread = std::thread::spawn(|| {
        drop(Frame::<char>::acquire());
        Frame::<char>::pool() as *const _ as usize
    })
    .join()
    .unwrap();
    assert_eq!(from_thread, Frame::<char>::pool() as *const _ as usize);
    let stats = Frame::<char>::pool().stats();
    assert_eq!(stats.acquired(), 2, "{stats:?}");
}

#[test]
fn pools_lists_each_instantiation_under_its_type_name() {
    drop(Frame::<bool>::acquire());
    let names: Vec<_> = pool_core::pools().iter().map(|p| p.name()).collect();
    assert!(
        names.iter().any(|name| name.contains("Frame<bool>")),
        "{names:?}"
    );
}

/// A field of the parameter's type is reset with the parameter's `Reset`,
/// which the derive asks for in its bounds.
#[derive(Poolable, Default)]
struct Slot<T> {
    value: T,
}

#[derive(Default)]
struct Counter(u32);

impl Reset for Counter {
    fn reset(&mut self) {
        self.0 = 0;
    }
}

#[test]
fn a_field_of_the_parameter_type_is_reset_by_its_own_reset() {
    let mut slot = Slot::<Counter>::acquire();
    slot.value.0 = 5;
    drop(slot);
    assert_eq!(Slot::<Counter>::acquire().value.0, 0);
}

#[derive(Poolable, Default)]
struct Fixed<const N: usize> {
    bytes: Vec<u8>,
}

#[test]
fn const_parameters_get_a_pool_per_value() {
    drop(Fixed::<1>::acquire());
    drop(Fixed::<2>::acquire());
    drop(Fixed::<2>::acquire());
    assert_eq!(Fixed::<1>::pool().stats().acquired(), 1);
    assert_eq!(Fixed::<2>::pool().stats().acquired(), 2);
}

/// A generic struct whose constructor makes what a reset does not
/// (`retries: 3`): its release puts the constructor's value back from the
/// template in its pool's state, on the thread that acquired the guard,
/// on another thread, and in a thread-local destructor (after the thread's
/// shares are gone, or before).
#[derive(Poolable)]
#[pool(new = Retry::new)]
struct Retry<T> {
    retries: u32,
    items: Vec<T>,
}

impl<T> Retry<T> {
    fn new() -> Self {
        Retry {
            retries: 3,
            items: Vec::new(),
        }
    }
}

/// What a thread-local's destructor saw: `retries` of an object reused
/// there, plus one.
static IN_DESTRUCTOR: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

struct ReusesOnExit;

impl Drop for ReusesOnExit {
    fn drop(&mut self) {
        let mut retry = Retry::<u16>::acquire();
        retry.retries = 0;
        drop(retry);
        let reused = Retry::<u16>::acquire().retries;
        IN_DESTRUCTOR.store(reused + 1, std::sync::atomic::Ordering::Relaxed);
    }
}

std::thread_local! {
    static ON_EXIT: ReusesOnExit = const { ReusesOnExit };
}

#[test]
fn the_constructor_s_values_come_back_wherever_the_guard_is_dropped() {
    let mut here = Retry::<u8>::acquire();
    here.retries = 0;
    here.items.push(1);
    drop(here);
    let mut held = Retry::<u8>::acquire();
    assert_eq!((held.retries, held.items.len()), (3, 0));
    held.retries = 1;
    std::thread::spawn(move || drop(held)).join().unwrap();
    let both = [Retry::<u8>::acquire(), Retry::<u8>::acquire()];
    assert_eq!(both.each_ref().map(|retry| retry.retries), [3, 3]);
    let stats = Retry::<u8>::pool().stats();
    assert_eq!((stats.created, stats.reused()), (2, 2), "{stats:?}");

    std::thread::spawn(|| {
        ON_EXIT.with(|_| {});
        drop(Retry::<u16>::acquire());
    })
    .join()
    .unwrap();
    assert_eq!(IN_DESTRUCTOR.load(std::sync::atomic::Ordering::Relaxed), 4);
}

#[test]
fn a_guard_taken_out_or_discarded_is_counted_in_its_instantiation_s_pool() {
    let kept: Frame<u64> = pool_core::Pooled::into_inner(Frame::<u64>::acquire());
    assert!(kept.data.is_empty());
    pool_core::Pooled::discard(Frame::<u64>::acquire());
    let stats = Frame::<u64>::pool().stats();
    assert_eq!(
        (stats.detached, stats.discarded, stats.idle),
        (1, 1, 0),
        "{stats:?}"
    );
}
