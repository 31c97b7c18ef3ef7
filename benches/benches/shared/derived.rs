// The round trips of derived structs, a plain one and a generic one, with
// `Small`'s fields: included after `variants.rs` by `benches/callgrind.rs` and
// `benches/round_trip.rs` (the peers bench has no use for them).

/// `Small`'s fields and reset in a derived struct, for the `derived`
/// round trip: a derived struct's pool, as `T::acquire()` reaches it.
#[derive(Poolable)]
#[pool(new = SmallDerived::new)]
struct SmallDerived {
    a: u64,
    b: u64,
    v: Vec<u8>,
}

impl SmallDerived {
    fn new() -> Self {
        SmallDerived {
            a: 0,
            b: 0,
            v: Vec::with_capacity(64),
        }
    }

    small_write!();
}

/// The same as a generic derived struct, for the `generic` round trip
/// (`SmallGeneric::<u8>::acquire()`: a pool per instantiation, found by
/// its type).
#[derive(Poolable)]
#[pool(new = SmallGeneric::new)]
struct SmallGeneric<T> {
    a: u64,
    b: u64,
    v: Vec<T>,
}

impl<T> SmallGeneric<T> {
    fn new() -> Self {
        SmallGeneric {
            a: 0,
            b: 0,
            v: Vec::with_capacity(64),
        }
    }
}

impl SmallGeneric<u8> {
    small_write!();
}

/// A second instantiation, for `generic_alternate`: the same writes, its
/// bytes as `i8`s.
impl SmallGeneric<i8> {
    #[inline(always)]
    fn write(&mut self, i: u64) {
        self.a = i;
        self.b = i ^ 0x5a5a;
        self.v.extend(i.to_le_bytes().map(|byte| byte as i8));
        black_box(&*self);
    }
}

/// The round trips of a derived struct (`derived`) and of a generic one
/// (`generic`; `generic_i8`, another instantiation; `generic_alternate`,
/// the two in turn), `Small`'s fields in both; not part of [`round_trips`], which
/// runs for every object type.
fn derive_round_trips(v: &mut impl pool_perf::round_trip::RoundTrips) {
    v.variant("derived", |i| {
        let mut s = SmallDerived::acquire();
        s.write(i);
    });
    v.variant("generic", |i| {
        let mut s = SmallGeneric::<u8>::acquire();
        s.write(i);
    });
    v.variant("generic_i8", |i| {
        let mut s = SmallGeneric::<i8>::acquire();
        s.write(i);
    });
    // Two instantiations in turn: each finds its pool in the thread's
    // memo of recent generic pools, not through the global list.
    v.variant("generic_alternate", |i| {
        if i % 2 == 0 {
            let mut s = SmallGeneric::<u8>::acquire();
            s.write(i);
        } else {
            let mut s = SmallGeneric::<i8>::acquire();
            s.write(i);
        }
    });
}
