//! The untimed passes: allocations and memory counted by the global
//! allocator, which is paused while criterion times.

use crate::{Shared, Statics, round_trips};
use pool_perf::round_trip::RoundTrips;
use pool_suite::alloc::{Counting, Usage};
use std::hint::black_box;

use crate::handoff::{Handoffs, Run, handoffs};
use crate::json::Decodes;
use pool_perf::handoff::{Handoff, MEMORY_N1, MEMORY_N2};

/// Counts allocations, allocated bytes, and live bytes (with their peak)
/// inside [`Counting::measure`] only: paused while criterion times.
#[global_allocator]
pub(crate) static ALLOC: Counting = Counting::paused();

/// Round trips counted on one thread, after a warm-up.
pub(crate) const ONE_THREAD_COUNT: u64 = 100_000;

/// Counts each round trip's allocations on this thread.
pub(crate) struct CountOne<'a> {
    pub(crate) group: &'a str,
    pub(crate) rows: &'a mut Vec<Row>,
}

impl RoundTrips for CountOne<'_> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        for i in 0..1000 {
            rt(i);
        }
        let (counted, ()) = ALLOC.measure(|| {
            for i in 0..ONE_THREAD_COUNT {
                rt(i);
            }
        });
        self.rows
            .push(Row::new(self.group, name, counted, ONE_THREAD_COUNT));
    }
}

/// Counts each cross-thread run's allocations and memory, on a fresh pool.
pub(crate) struct CrossCounted<'a> {
    pub(crate) group: &'a str,
    pub(crate) rows: &'a mut Vec<Row>,
}

impl Handoffs for CrossCounted<'_> {
    fn variant(&mut self, name: &'static str, run: impl Fn(Run) -> Handoff + 'static) {
        let start = ALLOC.live();
        let (counted, handoff) = ALLOC.measure(|| {
            run(Run {
                warm: 0,
                iters: MEMORY_N2,
                checkpoint: MEMORY_N1,
                cold: true,
            })
        });
        let mut row = Row::new(self.group, name, counted, MEMORY_N2);
        row.memory = Some(Memory {
            at_n1: handoff.live_at_checkpoint - start,
            at_n2: handoff.live_at_end - start,
            peak: counted.peak,
        });
        self.rows.push(row);
    }
}

/// Decodes counted, after a warm-up.
pub(crate) const JSON_COUNT: u64 = 5_000;

pub(crate) struct DecodeCounted<'a, 'b> {
    pub(crate) group: &'a str,
    pub(crate) seed: &'static str,
    pub(crate) body: &'b [u8],
    pub(crate) rows: &'a mut Vec<Row>,
}

impl Decodes for DecodeCounted<'_, '_> {
    fn variant(&mut self, name: &'static str, decode: impl Fn(&[u8])) {
        for _ in 0..100 {
            decode(self.body);
        }
        let (counted, ()) = ALLOC.measure(|| {
            for _ in 0..JSON_COUNT {
                decode(black_box(self.body));
            }
        });
        let name = format!("{}/{name}", self.seed);
        self.rows
            .push(Row::new(self.group, &name, counted, JSON_COUNT));
    }
}

/// One variant's counted figures.
pub(crate) struct Row {
    pub(crate) group: String,
    pub(crate) name: String,
    pub(crate) bytes_per_op: f64,
    pub(crate) allocs_per_op: f64,
    pub(crate) memory: Option<Memory>,
}

/// Heap held in the cross-thread memory pass, net of what was live before.
#[derive(Clone, Copy)]
pub(crate) struct Memory {
    pub(crate) at_n1: i64,
    pub(crate) at_n2: i64,
    pub(crate) peak: i64,
}

impl Row {
    fn new(group: &str, name: &str, counted: Usage, ops: u64) -> Self {
        Row {
            group: group.to_owned(),
            name: name.to_owned(),
            bytes_per_op: counted.bytes as f64 / ops as f64,
            allocs_per_op: counted.allocs as f64 / ops as f64,
            memory: None,
        }
    }
}

/// The untimed passes for one object type: allocations of the one-thread
/// round trips, allocations and memory of the cross-thread runs.
pub(crate) fn count_object<T: Statics>(
    shared: &Shared<T>,
    object: &str,
    wanted: &impl Fn(&str) -> bool,
    rows: &mut Vec<Row>,
) {
    let group = format!("1_thread_{object}");
    if wanted(&group) {
        round_trips(
            shared,
            &mut CountOne {
                group: &group,
                rows,
            },
        );
    }
    let group = format!("cross_thread_{object}");
    if wanted(&group) {
        handoffs::<T>(&mut CrossCounted {
            group: &group,
            rows,
        });
    }
}
