//! [`ReuseVec`] against its invariant: what is removed without being handed
//! out is reset in place and kept; every element made is dropped exactly
//! once, by the vector or by whoever it handed the element to.

use std::cell::Cell;

use super::ReuseVec;
use crate::__private::MaxCapacity;
use crate::reset::Reset;

thread_local! {
    // Per test thread: the tests run in parallel.
    static MADE: Cell<usize> = const { Cell::new(0) };
    static DROPPED: Cell<usize> = const { Cell::new(0) };
}

/// (made, dropped) on this thread so far.
fn census() -> (usize, usize) {
    (MADE.with(Cell::get), DROPPED.with(Cell::get))
}

/// An element that counts itself, with a buffer and a number to reset.
#[derive(Debug, PartialEq)]
struct Part {
    text: String,
    count: u32,
}

impl Part {
    fn new(text: &str, count: u32) -> Self {
        MADE.with(|n| n.set(n.get() + 1));
        Part {
            text: text.to_owned(),
            count,
        }
    }
}

impl Default for Part {
    fn default() -> Self {
        Part::new("", 0)
    }
}

impl Clone for Part {
    fn clone(&self) -> Self {
        Part::new(&self.text, self.count)
    }

    fn clone_from(&mut self, source: &Self) {
        self.text.clone_from(&source.text);
        self.count = source.count;
    }
}

impl Drop for Part {
    fn drop(&mut self) {
        DROPPED.with(|n| n.set(n.get() + 1));
    }
}

impl Reset for Part {
    fn reset(&mut self) {
        self.text.reset();
        self.count.reset();
    }
}

fn parts(texts: &[&str]) -> ReuseVec<Part> {
    texts
        .iter()
        .zip(1..)
        .map(|(text, count)| Part::new(text, count))
        .collect()
}

fn buffers(vec: &ReuseVec<Part>) -> Vec<*const u8> {
    vec.iter().map(|part| part.text.as_ptr()).collect()
}

#[test]
fn reset_keeps_every_element_reset_in_place() {
    let mut vec = parts(&["alpha", "beta", "gamma"]);
    let before = buffers(&vec);
    let (made, dropped) = census();

    vec.reset();
    assert!(vec.is_empty());
    assert_eq!(vec.kept(), 3);
    assert_eq!(census(), (made, dropped), "nothing made or dropped");

    for _ in 0..3 {
        let part = vec.push_reused();
        assert_eq!((part.text.as_str(), part.count), ("", 0), "reset in place");
        assert!(part.text.capacity() >= 4, "its buffer kept");
    }
    assert_eq!(
        buffers(&vec),
        before,
        "the same elements, in the same order"
    );
    assert_eq!(census(), (made, dropped), "push_reused made nothing");

    // A fourth is made: nothing is kept any more.
    vec.push_reused().text.push('x');
    assert_eq!(census(), (made + 1, dropped));
    assert_eq!(vec.len(), 4);
}

#[test]
fn pop_hands_out_its_element_and_the_kept_ones_stay() {
    let mut vec = parts(&["a", "b", "c", "d"]);
    vec.truncate(2); // "c" and "d" kept, reset
    let (made, dropped) = census();

    let popped = vec.pop().expect("two live elements");
    assert_eq!(
        popped.text, "b",
        "pop returns the last live element as it is"
    );
    assert_eq!((vec.len(), vec.kept()), (1, 2));
    assert_eq!(vec, [Part::new("a", 1)]);
    drop(popped);

    vec.reset();
    assert_eq!((vec.len(), vec.kept()), (0, 3));
    // `Part::new` above made one and dropped it; `popped` was dropped by us.
    assert_eq!(census(), (made + 1, dropped + 2));
    assert!(vec.pop().is_none(), "kept elements are not popped");
    assert_eq!(vec.kept(), 3);
}

#[test]
fn truncate_keeps_the_removed_elements_reset() {
    let mut vec = parts(&["a", "bb", "ccc"]);
    let third = vec[2].text.as_ptr();
    let (made, dropped) = census();

    vec.truncate(1);
    assert_eq!(vec.as_slice(), [Part::new("a", 1)]);
    assert_eq!(vec.kept(), 2);
    vec.truncate(5); // longer than it is: nothing happens
    assert_eq!(vec.len(), 1);

    vec.push_reused();
    let reused = vec.push_reused();
    assert_eq!((reused.text.as_str(), reused.count), ("", 0));
    assert_eq!(reused.text.as_ptr(), third);
    assert_eq!(census(), (made + 1, dropped + 1), "only the compared Part");
}

#[test]
fn push_by_value_drops_the_kept_element_it_replaces() {
    let start = census();
    let mut vec = parts(&["a", "b"]);
    vec.clear();
    let (made, dropped) = census();

    vec.push(Part::new("new", 9));
    assert_eq!((vec.len(), vec.kept()), (1, 1));
    assert_eq!(
        census(),
        (made + 1, dropped + 1),
        "one kept element dropped"
    );

    // Filling by value round after round holds no more than the longest fill.
    for _ in 0..10 {
        vec.clear();
        vec.extend([Part::new("x", 1), Part::new("y", 2), Part::new("z", 3)]);
    }
    assert_eq!((vec.len(), vec.kept()), (3, 0));
    let (made, dropped) = census();
    assert_eq!(
        (made - start.0) - (dropped - start.1),
        3,
        "every replaced element was dropped"
    );
}

#[test]
fn dropping_the_vector_drops_live_and_kept_elements() {
    let (made, dropped) = census();
    let mut vec = parts(&["a", "b", "c"]);
    vec.truncate(1);
    drop(vec.pop());
    vec.push_reused();
    drop(vec);
    let (made_after, dropped_after) = census();
    assert_eq!(made_after - made, 3);
    assert_eq!(dropped_after - dropped, 3, "no element lost or leaked");
}

#[test]
fn max_capacity_bounds_the_kept_elements_and_the_buffer() {
    let mut vec = parts(&["a"; 100]);
    let (made, dropped) = census();
    vec.reset();
    // What a derived struct's `#[pool(max_capacity = 8)]` does after it.
    vec.shrink_past(8);
    assert_eq!((vec.len(), vec.kept()), (0, 8));
    assert!(vec.capacity() < 100);
    assert_eq!(census(), (made, dropped + 92));

    // Within the bound nothing is dropped and the buffer stays.
    let buffer = vec.items.as_ptr();
    vec.shrink_past(8);
    assert_eq!(vec.kept(), 8);
    assert_eq!(vec.items.as_ptr(), buffer);

    // Live elements are never dropped by the bound.
    for _ in 0..10 {
        vec.push_reused();
    }
    vec.shrink_kept_to(0);
    assert_eq!((vec.len(), vec.kept()), (10, 0));
}

#[test]
fn clone_from_writes_into_the_kept_elements() {
    let source = parts(&["one"]);
    let mut target = parts(&["a long text", "b"]);
    let first = target[0].text.as_ptr();
    target.clear();
    let (made, dropped) = census();

    target.clone_from(&source);
    assert_eq!(target, source);
    assert_eq!(
        target[0].text.as_ptr(),
        first,
        "cloned into the kept buffer"
    );
    assert_eq!(target.kept(), 1);
    assert_eq!(census(), (made, dropped), "nothing made or dropped");

    // A longer source: the rest are cloned new.
    let longer = parts(&["x", "y", "z"]);
    target.clone_from(&longer);
    assert_eq!(target, longer);
    assert_eq!(target.kept(), 0);

    // A clone carries no kept element.
    target.truncate(1);
    let copy = target.clone();
    assert_eq!((copy.len(), copy.kept()), (1, 0));
}

#[test]
fn the_slice_traits_see_the_live_elements_only() {
    let mut vec: ReuseVec<String> = ["b", "a", "c"].map(String::from).into_iter().collect();
    vec.truncate(2);
    assert_eq!(vec, ["b", "a"]);
    assert_eq!(vec, vec!["b".to_owned(), "a".to_owned()]);
    assert_eq!(format!("{vec:?}"), r#"["b", "a"]"#);
    vec.sort();
    assert_eq!(vec[..], ["a", "b"]);
    assert_eq!(vec.iter().count(), 2);
    assert_eq!((&vec).into_iter().count(), 2);
    for text in &mut vec {
        text.push('!');
    }
    assert_eq!(vec, ["a!", "b!"]);
    assert_eq!(Vec::from(vec), ["a!", "b!"], "the kept string is dropped");
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn a_kept_element_is_out_of_bounds() {
    let mut vec: ReuseVec<String> = vec![String::from("a")].into();
    vec.clear();
    let _ = &vec[0];
}
