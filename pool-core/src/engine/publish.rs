//! What `pool_core::metrics::publish()` does, here so that every rotation
//! runs it, whatever kind of pool the process has (feature `metrics`):
//! every pool's [`Stats`] set in the `metrics` facade as absolute values.
//!
//! Invariant: nothing here runs on a pool's acquire or release, and a
//! counter series never falls for the life of the process: pools of one
//! name are added together with the final counts of those that ended, and
//! no counter is set below the value it was last set to.

use std::sync::{Mutex, PoisonError};

use crate::engine::registry::{pools, retired};
use crate::engine::stats::{Stats, add_named};

/// Label naming the pool on every series: the [`PoolInfo::name`](crate::PoolInfo::name).
const POOL: &str = "pool";

/// The series: each a constant of its name, for `publish`, and its kind,
/// unit and help text, which `describe` gives the recorder. Written once
/// for both.
macro_rules! series {
    ($($kind:ident $name:ident = $series:literal, $unit:ident: $help:literal;)*) => {
        $(const $name: &str = $series;)*

        /// Gives the recorder each series' unit and help text.
        fn describe() {
            $(series!(@describe $kind $name, ::metrics::Unit::$unit, $help);)*
        }
    };
    (@describe counter $($args:tt)*) => { ::metrics::describe_counter!($($args)*) };
    (@describe gauge $($args:tt)*) => { ::metrics::describe_gauge!($($args)*) };
}

series! {
    counter CREATED = "pool_objects_created_total", Count:
        "Objects made by the pool's constructor: because no idle one was found, or by prefill.";
    counter REUSED = "pool_objects_reused_total", Count:
        "Acquires served by an idle object, by the tier it came from.";
    counter RETURNED = "pool_objects_returned_total", Count:
        "Objects that became idle in the pool: released by a guard, given with Pool::put, or made by prefill.";
    counter DROPPED = "pool_objects_dropped_total", Count:
        "Objects dropped: returned to full tiers (capacity), idle across two rotations (rotation), or over the pool's bound in bytes on release (oversize).";
    counter SHRUNK = "pool_objects_shrunk_total", Count:
        "Released objects over the pool's bound in bytes, shrunk to it and kept.";
    counter DISCARDED = "pool_objects_discarded_total", Count:
        "Objects dropped instead of returned: their guard was dropped during a panic, by Pooled::discard, or their reset panicked.";
    counter REJECTED = "pool_objects_rejected_total", Count:
        "Objects dropped on release because the pool's retain test refused them.";
    counter DETACHED = "pool_objects_detached_total", Count:
        "Objects taken out of the pool for good with Pooled::into_inner.";
    counter PUT = "pool_objects_put_total", Count:
        "Objects made elsewhere and given to the pool with Pool::put.";
    gauge IDLE = "pool_objects_idle", Count:
        "Objects idle in the pool now.";
    gauge IDLE_BYTES = "pool_objects_idle_bytes", Bytes:
        "Bytes the idle objects hold: their heap as Reset::heap_bytes counts it, and their boxes.";
    gauge IN_USE = "pool_objects_in_use", Count:
        "Objects handed out and not yet returned, discarded, rejected or detached.";
}

/// Sets every pool's series (the table is `pool_core::metrics::publish`'s).
pub(crate) fn publish() {
    let figures = by_name();
    // Under the lock: two threads publishing at once must not set a counter
    // back to the older of their two readings. A fork waits for it
    // (`crate::engine::fork`), so that a child can publish too.
    let _fork = crate::engine::fork::excluded();
    let mut floor = FLOOR.lock().unwrap_or_else(PoisonError::into_inner);
    describe();
    for (name, mut stats) in figures {
        let in_use = stats.in_use();
        match floor.iter_mut().find(|(known, _)| *known == name) {
            Some((_, last)) => {
                raise_counters(&mut stats, *last);
                *last = stats;
            }
            None => floor.push((name, stats)),
        }
        let counter = |series: &'static str| ::metrics::counter!(series, POOL => name);
        counter(CREATED).absolute(stats.created);
        counter(RETURNED).absolute(stats.returned);
        counter(DISCARDED).absolute(stats.discarded);
        counter(REJECTED).absolute(stats.rejected);
        counter(DETACHED).absolute(stats.detached);
        counter(PUT).absolute(stats.put);
        counter(SHRUNK).absolute(stats.shrunk);
        for (tier, count) in [
            ("thread", stats.hits_local),
            ("primary", stats.hits_primary),
            ("victim", stats.hits_victim),
        ] {
            ::metrics::counter!(REUSED, POOL => name, "tier" => tier).absolute(count);
        }
        for (reason, count) in [
            ("capacity", stats.dropped_capacity),
            ("rotation", stats.dropped_rotation),
            ("oversize", stats.dropped_oversize),
        ] {
            ::metrics::counter!(DROPPED, POOL => name, "reason" => reason).absolute(count);
        }
        // A gauge holds an f64: exact for counts below 2^53.
        ::metrics::gauge!(IDLE, POOL => name).set(stats.idle as f64);
        ::metrics::gauge!(IDLE_BYTES, POOL => name).set(stats.idle_bytes as f64);
        ::metrics::gauge!(IN_USE, POOL => name).set(in_use as f64);
    }
}

/// What each name's series were last set to: a counter is never set below
/// it (see [`raise_counters`]).
static FLOOR: Mutex<Vec<(&'static str, Stats)>> = Mutex::new(Vec::new());

/// Every pool's statistics, pools of the same name added together, with
/// the final counters of the pools of that name that have ended, in the
/// order [`pools`] lists them (ended names last).
///
/// The live pools are held (`PoolInfo` counts as a handle) while the ended
/// ones are read, so no pool is in both or, once it is listed, in neither.
/// A pool that ends just before `pools` is read, and whose counters are not
/// yet retired, is missed by this reading; `publish` holds its name's
/// counters where they were until it is.
pub(crate) fn by_name() -> Vec<(&'static str, Stats)> {
    let live = pools();
    let mut merged = Vec::new();
    for pool in &live {
        add_named(&mut merged, pool.name(), pool.stats());
    }
    for (name, stats) in retired() {
        add_named(&mut merged, name, stats);
    }
    // A run-time pool dropped here ends with no lock of ours held.
    drop(live);
    merged
}

/// Raises each counter of `stats` to at least its value in `floor`, so that
/// a counter series never falls (the gauges, `idle`, follow the pools).
pub(crate) fn raise_counters(stats: &mut Stats, mut floor: Stats) {
    for (count, floor) in stats.counters_mut().into_iter().zip(floor.counters_mut()) {
        *count = (*count).max(*floor);
    }
}
