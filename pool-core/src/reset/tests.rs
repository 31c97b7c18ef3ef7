//! Each std impl of [`Reset`] against what the module docs promise: the
//! value as new, the buffer kept.

use super::Reset;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, VecDeque};
use std::marker::PhantomData;
use std::sync::{Mutex, PoisonError, RwLock};

#[test]
fn numbers_bool_and_char_go_to_their_default() {
    let mut ints = (-5i8, 300i16, -7i32, 1i64 << 40, -1i128, -9isize);
    let mut uints = (7u8, 9u16, 11u32, 13u64, u128::MAX, usize::MAX);
    let mut others = (1.5f32, -2.5f64, true, 'x');
    ints.reset();
    uints.reset();
    others.reset();
    assert_eq!(ints, (0, 0, 0, 0, 0, 0));
    assert_eq!(uints, (0, 0, 0, 0, 0, 0));
    assert_eq!(others, (0.0, 0.0, false, '\0'));
}

#[test]
fn string_is_emptied_and_keeps_its_buffer() {
    let mut s = String::with_capacity(32);
    s.push_str("hello");
    let (cap, ptr) = (s.capacity(), s.as_ptr());
    s.reset();
    assert!(s.is_empty());
    assert!(s.capacity() >= cap);
    assert_eq!(s.as_ptr(), ptr);
}

#[test]
fn vec_is_emptied_and_keeps_its_buffer() {
    // `String` elements are not `Reset`-bound: clearing drops them.
    let mut v = vec![String::from("a"), String::from("b")];
    v.reserve(16);
    let (cap, ptr) = (v.capacity(), v.as_ptr());
    v.reset();
    assert!(v.is_empty());
    assert!(v.capacity() >= cap);
    assert_eq!(v.as_ptr(), ptr);
}

#[test]
fn vec_deque_is_emptied_and_keeps_its_capacity() {
    let mut d: VecDeque<u32> = VecDeque::with_capacity(16);
    d.extend([1, 2, 3]);
    let cap = d.capacity();
    d.reset();
    assert!(d.is_empty());
    assert!(d.capacity() >= cap);
}

#[test]
fn hash_map_and_set_are_emptied_and_keep_their_capacity() {
    let mut m: HashMap<u32, String> = HashMap::with_capacity(16);
    m.insert(1, "one".into());
    let mut s: HashSet<u32> = HashSet::with_capacity(16);
    s.insert(1);
    let (map_cap, set_cap) = (m.capacity(), s.capacity());
    m.reset();
    s.reset();
    assert!(m.is_empty() && s.is_empty());
    assert!(m.capacity() >= map_cap);
    assert!(s.capacity() >= set_cap);
}

#[test]
fn binary_heap_is_emptied_and_keeps_its_capacity() {
    let mut h = BinaryHeap::with_capacity(16);
    h.extend([3, 1, 2]);
    let cap = h.capacity();
    h.reset();
    assert!(h.is_empty());
    assert!(h.capacity() >= cap);
}

#[test]
fn btree_map_and_set_are_emptied() {
    let mut m = BTreeMap::from([(1, "one"), (2, "two")]);
    let mut s = BTreeSet::from([1, 2, 3]);
    m.reset();
    s.reset();
    assert!(m.is_empty());
    assert!(s.is_empty());
}

#[test]
fn option_becomes_none() {
    // `Vec<u8>`'s own `Reset` must not be used: the whole value goes.
    let mut o = Some(vec![1u8, 2, 3]);
    o.reset();
    assert_eq!(o, None);
}

#[test]
fn array_elements_are_each_reset_and_keep_their_buffers() {
    let mut a: [String; 3] = std::array::from_fn(|i| {
        let mut s = String::with_capacity(8);
        s.push_str(&i.to_string());
        s
    });
    let ptrs = a.each_ref().map(|s| s.as_ptr());
    a.reset();
    for (s, ptr) in a.iter().zip(ptrs) {
        assert!(s.is_empty());
        assert!(s.capacity() >= 8);
        assert_eq!(s.as_ptr(), ptr);
    }
}

#[test]
fn box_keeps_its_allocation_and_resets_the_value_inside() {
    let mut b = Box::new(String::from("boxed"));
    let addr = std::ptr::from_ref::<String>(&b);
    b.reset();
    assert_eq!(std::ptr::from_ref::<String>(&b), addr);
    assert!(b.is_empty());
}

#[test]
fn boxed_slice_keeps_its_allocation_and_resets_each_element() {
    let mut b: Box<[String]> = vec![String::from("a"), String::from("bc")].into_boxed_slice();
    let addr = std::ptr::from_ref::<[String]>(&b);
    b.reset();
    assert_eq!(std::ptr::from_ref::<[String]>(&b), addr);
    assert_eq!(b.len(), 2);
    assert!(b.iter().all(String::is_empty));
}

#[test]
fn twelve_tuple_of_mixed_types_is_reset() {
    let mut t = (
        1u8,
        -2i64,
        3.0f32,
        true,
        'z',
        String::from("s"),
        vec![1u16],
        Some(4u32),
        [5u16, 6],
        Box::new(7u64),
        Cell::new(8i32),
        (),
    );
    t.reset();
    let fresh = (
        0u8,
        0i64,
        0.0f32,
        false,
        '\0',
        String::new(),
        Vec::<u16>::new(),
        None::<u32>,
        [0u16; 2],
        Box::new(0u64),
        Cell::new(0i32),
        (),
    );
    assert_eq!(t, fresh);
}

// `()` and `PhantomData` hold nothing, so no run-time check of their
// reset could fail; what matters is that the impls exist (a derived
// struct's marker fields need them), and this fails to build without them.
const _: fn() = || {
    fn implements_reset<T: Reset + ?Sized>() {}
    implements_reset::<()>();
    implements_reset::<PhantomData<str>>();
};

#[test]
fn cell_and_ref_cell_reset_their_content() {
    let mut c = Cell::new(42u32);
    let mut r = RefCell::new(String::from("text"));
    c.reset();
    r.reset();
    assert_eq!(c.get(), 0);
    assert!(r.borrow().is_empty());
}

#[test]
fn mutex_and_rw_lock_reset_their_content() {
    let mut m = Mutex::new(vec![1, 2, 3]);
    let mut l = RwLock::new(99u64);
    m.reset();
    l.reset();
    assert!(m.into_inner().unwrap().is_empty());
    assert_eq!(l.into_inner().unwrap(), 0);
}

#[test]
fn poisoned_mutex_is_reset_and_its_poison_cleared() {
    let m = Mutex::new(String::from("half-written"));
    let result = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let _guard = m.lock().unwrap();
                panic!("poisoning the mutex on purpose");
            })
            .join()
    });
    assert!(result.is_err());
    let mut m = m;
    assert!(m.is_poisoned());
    m.reset();
    assert!(!m.is_poisoned(), "a reset lock is as good as new");
    let value = m.into_inner().unwrap_or_else(PoisonError::into_inner);
    assert!(value.is_empty());
}

#[test]
fn poisoned_rw_lock_is_reset_and_its_poison_cleared() {
    let l = RwLock::new(vec![1u8, 2, 3]);
    let result = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let _guard = l.write().unwrap();
                panic!("poisoning the lock on purpose");
            })
            .join()
    });
    assert!(result.is_err());
    let mut l = l;
    assert!(l.is_poisoned());
    l.reset();
    assert!(!l.is_poisoned(), "a reset lock is as good as new");
    let value = l.into_inner().unwrap_or_else(PoisonError::into_inner);
    assert!(value.is_empty());
}

#[test]
fn value_types_a_struct_holds_go_to_their_default() {
    use std::cmp::Reverse;
    use std::num::{Saturating, Wrapping};
    use std::sync::atomic::{AtomicBool, AtomicU64};
    use std::time::Duration;

    let mut timeout = Duration::from_secs(30);
    let mut wrapping = Wrapping(7u8);
    let mut saturating = Saturating(7i32);
    let mut reverse = Reverse(String::from("z"));
    let mut range = 3..9usize;
    let mut flag = AtomicBool::new(true);
    let mut count = AtomicU64::new(5);
    timeout.reset();
    wrapping.reset();
    saturating.reset();
    reverse.reset();
    range.reset();
    flag.reset();
    count.reset();
    assert_eq!(timeout, Duration::ZERO);
    assert_eq!((wrapping.0, saturating.0), (0, 0));
    assert!(reverse.0.is_empty() && reverse.0.capacity() >= 1);
    assert_eq!(range, 0..0);
    assert!(!*flag.get_mut());
    assert_eq!(*count.get_mut(), 0);
}

#[test]
fn paths_os_strings_and_linked_lists_are_emptied() {
    use std::collections::LinkedList;
    use std::ffi::OsString;
    use std::path::PathBuf;

    let mut path = PathBuf::with_capacity(64);
    path.push("/var/log/app.log");
    let mut os = OsString::from("name");
    let mut list: LinkedList<u8> = [1, 2].into_iter().collect();
    path.reset();
    os.reset();
    list.reset();
    assert_eq!(path, PathBuf::new());
    assert!(path.capacity() >= 64, "the buffer is kept");
    assert!(os.is_empty() && list.is_empty());
}
