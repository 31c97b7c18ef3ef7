//! `#[derive(Reset)]`: a struct that is a part of a pooled object (a line
//! item of an order) is reset field by field, as its attributes say, with no
//! pool of its own; inside a pooled struct, and in a `Vec` or array, its
//! buffers are kept.
//!
//! Each pooled test struct has its own type, so its own pool: tests run in
//! parallel and must not hand each other objects.

#![warn(clippy::pedantic)]

use std::marker::PhantomData;

use pool_core::{Poolable, Reset};

#[derive(Debug, Default, PartialEq, Clone, Copy)]
enum Kind {
    #[default]
    Plain,
    Gift,
}

fn reset_weights(weights: &mut [f32; 2]) {
    *weights = [1.0; 2];
}

/// A part with every field attribute.
#[derive(Reset, Debug, Default, PartialEq)]
struct LineItem {
    sku: String,
    quantity: u32,
    tags: Vec<String>,
    #[pool(max_capacity = 16)]
    note: String,
    #[pool(default)]
    kind: Kind,
    #[pool(reset = reset_weights)]
    weights: [f32; 2],
    #[pool(skip)]
    slot: usize,
}

fn used_item() -> LineItem {
    LineItem {
        sku: String::from("A-1"),
        quantity: 2,
        tags: vec!["red".into()],
        note: "n".repeat(100),
        kind: Kind::Gift,
        weights: [5.0; 2],
        slot: 7,
    }
}

#[test]
fn a_part_is_reset_field_by_field_as_its_attributes_say() {
    let mut item = used_item();
    let sku = item.sku.as_ptr();
    item.reset();
    assert_eq!(
        item,
        LineItem {
            sku: String::new(),
            quantity: 0,
            tags: Vec::new(),
            note: String::new(),
            kind: Kind::Plain,
            weights: [1.0; 2],
            slot: 7,
        }
    );
    assert_eq!(item.sku.as_ptr(), sku, "the buffer is kept");
    assert!(item.sku.capacity() >= 3);
    assert!(item.tags.capacity() >= 1);
    assert!(item.note.capacity() <= 16, "max_capacity shrinks");
}

/// The pooled object holding parts, directly and in an array.
#[derive(Poolable, Default)]
struct Order {
    first: LineItem,
    pair: [LineItem; 2],
    id: u64,
}

#[test]
fn a_part_inside_a_pooled_struct_is_reset_with_it() {
    let mut order = Order::acquire();
    order.first = used_item();
    order.pair = [used_item(), used_item()];
    order.id = 9;
    let sku = order.first.sku.as_ptr();
    drop(order);

    let order = Order::acquire(); // the same object: this thread's cache is a stack
    assert_eq!(order.id, 0);
    assert_eq!(order.first.sku.as_ptr(), sku, "the part's buffer is kept");
    for item in [&order.first, &order.pair[0], &order.pair[1]] {
        assert!(item.sku.is_empty() && item.tags.is_empty());
        assert_eq!(
            (item.quantity, item.kind, item.weights),
            (0, Kind::Plain, [1.0; 2])
        );
        assert_eq!(item.slot, 7, "`skip` keeps the slot");
    }
}

/// Generic parts, tuple and unit parts, and a part with a lifetime (a part
/// is never kept by a pool on its own, so it may borrow).
#[derive(Reset, Default)]
struct Column<T> {
    values: Vec<T>,
    #[pool(default)]
    label: Option<T>,
}

#[derive(Reset, Default)]
struct Pair(String, #[pool(skip)] u8);

#[derive(Reset)]
struct Marker;

#[derive(Reset)]
struct View<'a> {
    seen: usize,
    #[pool(skip)]
    source: &'a str,
    _life: PhantomData<&'a ()>,
}

#[test]
fn generic_tuple_unit_and_borrowing_parts_reset() {
    let mut column = Column {
        values: vec![1, 2],
        label: Some(3),
    };
    column.reset();
    assert!(column.values.is_empty() && column.label.is_none());

    let mut pair = Pair("left".into(), 4);
    pair.reset();
    assert_eq!((pair.0.as_str(), pair.1), ("", 4));

    Marker.reset();

    let text = String::from("borrowed");
    let mut view = View {
        seen: 3,
        source: &text,
        _life: PhantomData,
    };
    view.reset();
    assert_eq!((view.seen, view.source), (0, "borrowed"));
}

fn first_line() -> u32 {
    1
}

/// `fresh = path` on a part: the field gets the function's value at each
/// reset, as `#[derive(Poolable)]` gives it.
#[derive(Reset, Default)]
struct Numbered {
    #[pool(fresh = first_line)]
    line: u32,
    text: String,
}

#[test]
fn a_part_field_with_fresh_gets_the_functions_value() {
    let mut part = Numbered {
        line: 9,
        text: "used".to_owned(),
    };
    part.reset();
    assert_eq!(part.line, 1);
    assert!(part.text.is_empty());
}
