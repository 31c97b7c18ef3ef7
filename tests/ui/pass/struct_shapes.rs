// Tuple, unit and empty structs, a `where` clause, and a derived struct as
// a field of another.
#![deny(warnings)]

use pool_core::Poolable;

#[derive(Poolable, Default)]
struct Pair(String, #[pool(skip)] u8, #[pool(max_capacity = 64)] Vec<u8>);

#[derive(Poolable, Default)]
struct Unit;

#[derive(Poolable, Default)]
struct Empty {}

#[derive(Poolable, Default)]
struct Bounded
where
    String: Clone,
{
    text: String,
}

#[derive(Poolable, Default)]
struct Outer {
    pair: Pair,
    unit: Unit,
    empty: Empty,
    bounded: Bounded,
    boxed: Box<Pair>,
    many: [Unit; 3],
}

fn main() {
    let mut outer = Outer::acquire();
    outer.pair.0.push('x');
    outer.bounded.text.push('y');
    let _ = (
        &outer.unit,
        &outer.empty,
        &outer.boxed,
        &outer.many,
        outer.pair.1,
        &outer.pair.2,
    );
    drop(outer);
    drop(Unit::acquire());
}
