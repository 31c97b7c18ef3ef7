//! The derived reset's two cases, timed in one run (issue 13): a round trip
//! `T::acquire()` → write → drop of the seeds' `Person` (2 KiB remark),
//! whose constructor makes what a plain reset makes (`person_clean`: each
//! reset is the plain field-by-field one), and of `TunedPerson`, the same
//! struct with a constructor that sets a name and an age
//! (`person_restore`: each reset copies those back from the template with
//! `clone_from`). `box` is the same write on a fresh `Box<TunedPerson>`, no
//! pool, for scale.
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench derived_reset
//! ```
//!
//! Instruction counts of the two pooled cases:
//! `VARIANTS="none thread_local pool person_clean person_restore" scripts/callgrind.sh`
//! (callgrind counts each byte of a `rep stosb` memset, so the 2 KiB
//! zeroing weighs far more there than in time).

#![allow(
    dead_code,
    reason = "benches/shared/variants.rs is written for benches/peers, which uses all of it"
)]

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

include!("shared/variants.rs");

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("derived_reset");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    for name in RESET_VARIANTS {
        let rt = reset_variant(name).expect("a known variant");
        group.bench_function(name, |b| {
            let mut i = 0;
            b.iter(|| {
                i += 1;
                rt(black_box(i));
            });
        });
    }
    group.bench_function("box", |b| {
        let mut i = 0_u64;
        b.iter(|| {
            i += 1;
            let mut person = Box::new(TunedPerson::new());
            person.name.push_str("Ada");
            person.age = i as i32;
            person.remark[..8].copy_from_slice(&i.to_le_bytes());
            black_box(&*person);
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
