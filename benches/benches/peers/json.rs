//! Workload 4: JSON decode, fresh or into a pooled value: the seeds' flat
//! bodies (`json_decode`) and a nested order (`json_nested`).

use std::hint::black_box;

use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;
use pool_core::Pooled;
use pool_perf::json::{Order, VecOrder};

/// The JSON decode variants, for one body and type.
pub(crate) trait Decodes {
    fn variant(&mut self, name: &'static str, decode: impl Fn(&[u8]));
}

/// Hands each JSON decode variant for type `$t` to `$v` (a [`Decodes`]).
macro_rules! decodes {
    ($t:ty, $v:expr) => {{
        use crate::json::Decodes as _;
        let v = $v;
        v.variant("fresh", |body| {
            let value: $t = ::serde_json::from_slice(body).expect("valid body");
            ::std::hint::black_box(&value);
        });
        v.variant("fresh_boxed", |body| {
            let value: Box<$t> = Box::new(::serde_json::from_slice(body).expect("valid body"));
            ::std::hint::black_box(&value);
        });
        v.variant("pooled_derive", |body| {
            let mut value = <$t as ::pool_core::Poolable>::acquire();
            let mut de = ::serde_json::Deserializer::from_slice(body);
            ::serde::Deserialize::deserialize_in_place(&mut de, &mut *value).expect("valid body");
            de.end().expect("nothing after the body");
            ::std::hint::black_box(&*value);
        });
        v.variant("pooled", |body| {
            let mut value = <$t as ::pool_core::Poolable>::acquire();
            let value = &mut *value;
            let mut de = ::serde_json::Deserializer::from_slice(body);
            ::pool_perf::json::fields_in_place(
                &mut de,
                &mut value.name,
                &mut value.age,
                &mut value.remark,
            )
            .expect("valid body");
            de.end().expect("nothing after the body");
            ::std::hint::black_box(&*value);
        });
    }};
}
pub(crate) use decodes;

/// Hands each decode of the nested order to `v`: fresh, as `Order` (with
/// `ReuseVec`s) and as `VecOrder` (with `Vec`s), and into a pooled one of
/// each, warm, the way a handler decodes it (`Pooled<T>: Deserialize`).
pub(crate) fn nested_decodes(v: &mut impl Decodes) {
    v.variant("fresh", |body| {
        let order: Order = serde_json::from_slice(body).expect("valid body");
        black_box(&order);
    });
    v.variant("fresh_vec", |body| {
        let order: VecOrder = serde_json::from_slice(body).expect("valid body");
        black_box(&order);
    });
    v.variant("pooled", |body| {
        let order: Pooled<Order> = serde_json::from_slice(body).expect("valid body");
        black_box(&*order);
    });
    v.variant("pooled_vec", |body| {
        let order: Pooled<VecOrder> = serde_json::from_slice(body).expect("valid body");
        black_box(&*order);
    });
}

pub(crate) struct DecodeTimed<'g, 'c, 'b> {
    pub(crate) group: &'g mut BenchmarkGroup<'c, WallTime>,
    pub(crate) seed: &'static str,
    pub(crate) body: &'b [u8],
}

impl Decodes for DecodeTimed<'_, '_, '_> {
    fn variant(&mut self, name: &'static str, decode: impl Fn(&[u8])) {
        let body = self.body;
        self.group
            .bench_function(format!("{}/{name}", self.seed), |b| {
                b.iter(|| decode(black_box(body)));
            });
    }
}
