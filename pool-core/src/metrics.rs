//! Every pool's [`Stats`] through the [`metrics`](https://docs.rs/metrics)
//! facade (feature `metrics`), under Prometheus-style names.
//!
//! Invariant: nothing here runs on a pool's acquire or release. The counts
//! already live in the per-thread counters that [`Pool::stats`] sums;
//! [`publish`] reads them through [`pools`] and hands the recorder their
//! absolute values (`Counter::absolute`, `Gauge::set`), so the fast path
//! pays nothing for metrics, and a process that never calls `publish` pays
//! nothing at all.
//!
//! The alternative, a `metrics::counter!(..).increment(1)` per acquire, was
//! rejected: it would look up a recorder and touch a shared atomic on every
//! acquire and release, the costs the thread caches exist to avoid. The
//! price of publishing snapshots is freshness: the recorder sees the values
//! of the last `publish`, so call it where the values are read (in the
//! scrape handler) or on a timer a little shorter than the scrape interval.
//!
//! A Prometheus scrape handler, with `metrics-exporter-prometheus`'s
//! recorder installed in `main`:
//!
//! ```
//! use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
//!
//! /// The body of `GET /metrics`: the pools' values as of this scrape.
//! fn scrape(prometheus: &PrometheusHandle) -> String {
//!     pool_core::metrics::publish();
//!     prometheus.render()
//! }
//!
//! // In `main`: `let prometheus = PrometheusBuilder::new().install_recorder()?;`
//! # let recorder = PrometheusBuilder::new().build_recorder();
//! # let prometheus = recorder.handle();
//! # pool_core::pool! { static BODIES: pool_core::Pool<Vec<u8>> = pool_core::Pool::new(Vec::new); }
//! # drop(BODIES.acquire());
//! # let body = metrics::with_local_recorder(&recorder, || scrape(&prometheus));
//! # assert!(body.contains("# TYPE pool_objects_created_total counter"), "{body}");
//! # assert!(body.contains(r#"pool_objects_created_total{pool="BODIES"} 1"#), "{body}");
//! ```
//!
//! [`Pool::stats`]: crate::Pool::stats

use crate::Stats;
use crate::engine::registry::pools;

/// Label naming the pool on every series: the [`PoolInfo::name`](crate::PoolInfo::name).
const POOL: &str = "pool";

// The series' names, written once for `publish` and `describe` alike.
const CREATED: &str = "pool_objects_created_total";
const REUSED: &str = "pool_objects_reused_total";
const RETURNED: &str = "pool_objects_returned_total";
const DROPPED: &str = "pool_objects_dropped_total";
const DISCARDED: &str = "pool_objects_discarded_total";
const REJECTED: &str = "pool_objects_rejected_total";
const DETACHED: &str = "pool_objects_detached_total";
const IDLE: &str = "pool_objects_idle";
const IN_USE: &str = "pool_objects_in_use";

/// Publishes every pool's statistics to the installed `metrics` recorder.
///
/// Reads [`pools`] and each pool's [`Stats`], and sets, for each pool,
/// labelled `pool="<name>"` with the pool's [name](crate::PoolInfo::name):
///
/// | series | kind | from [`Stats`] |
/// |---|---|---|
/// | `pool_objects_created_total` | counter | `created`: made by the constructor |
/// | `pool_objects_reused_total{tier="thread"}` | counter | `hits_local`: served from the acquiring thread's cache |
/// | `pool_objects_reused_total{tier="primary"}` | counter | `hits_primary`: served from the shared primary tier |
/// | `pool_objects_reused_total{tier="victim"}` | counter | `hits_victim`: served from the shared victim tier |
/// | `pool_objects_returned_total` | counter | `returned`: reset and given back |
/// | `pool_objects_dropped_total{reason="capacity"}` | counter | `dropped_capacity`: returned to full tiers, dropped |
/// | `pool_objects_dropped_total{reason="rotation"}` | counter | `dropped_rotation`: idle across two rotations, dropped |
/// | `pool_objects_discarded_total` | counter | `discarded`: dropped during a panic, by `Pooled::discard`, or their reset panicked |
/// | `pool_objects_rejected_total` | counter | `rejected`: refused on release by the pool's `retain` test |
/// | `pool_objects_detached_total` | counter | `detached`: taken out with `Pooled::into_inner` |
/// | `pool_objects_idle` | gauge | `idle`: idle in the pool now |
/// | `pool_objects_in_use` | gauge | [`Stats::in_use`]: handed out and not back |
///
/// All acquires are `created` plus the three `reused` series
/// (`sum by (pool) (rate(pool_objects_reused_total[5m]))` over
/// `rate(pool_objects_created_total[5m])` is the reuse ratio), so no
/// `acquired` series repeats them. The unit is objects: a count, so the
/// names carry no unit suffix beyond Prometheus's `_total` for counters.
/// Each call also describes the series (help text and unit) to the
/// recorder, which exporters print as `# HELP` lines.
///
/// Pools that share a name (two types called `Request` in two modules)
/// are published as one series, their counts added: two values set one
/// after the other on the same series would make it jump back and forth.
///
/// Counters are set to the pool's totals, not incremented, so calling
/// `publish` often, or from two threads, counts nothing twice. With no
/// recorder installed, it reads the statistics and records nothing.
///
/// # Example
///
/// A scrape endpoint publishes, then renders. With
/// `metrics-exporter-prometheus`:
///
/// ```
/// use pool_core::{Pool, pool};
/// use metrics_exporter_prometheus::PrometheusBuilder;
///
/// pool! { static LINES: Pool<String> = Pool::new(String::new); }
///
/// drop(LINES.acquire()); // made
/// drop(LINES.acquire()); // reused from this thread's cache
///
/// let recorder = PrometheusBuilder::new().build_recorder();
/// // An application installs the recorder once, in `main`
/// // (`PrometheusBuilder::install`); a local one keeps this example apart.
/// metrics::with_local_recorder(&recorder, pool_core::metrics::publish);
///
/// let text = recorder.handle().render();
/// assert!(text.contains(r#"pool_objects_created_total{pool="LINES"} 1"#), "{text}");
/// assert!(text.contains(r#"pool_objects_reused_total{pool="LINES",tier="thread"} 1"#));
/// assert!(text.contains(r#"pool_objects_idle{pool="LINES"} 1"#));
/// ```
///
/// On a timer instead, for exporters that push or render on their own
/// (call it a little more often than they scrape):
///
/// ```no_run
/// use std::time::Duration;
///
/// std::thread::spawn(|| loop {
///     pool_core::metrics::publish();
///     std::thread::sleep(Duration::from_secs(10));
/// });
/// ```
pub fn publish() {
    describe();
    for (name, stats) in by_name() {
        let counter = |series: &'static str| ::metrics::counter!(series, POOL => name);
        counter(CREATED).absolute(stats.created);
        counter(RETURNED).absolute(stats.returned);
        counter(DISCARDED).absolute(stats.discarded);
        counter(REJECTED).absolute(stats.rejected);
        counter(DETACHED).absolute(stats.detached);
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
        ] {
            ::metrics::counter!(DROPPED, POOL => name, "reason" => reason).absolute(count);
        }
        // A gauge holds an f64: exact for counts below 2^53.
        ::metrics::gauge!(IDLE, POOL => name).set(stats.idle as f64);
        ::metrics::gauge!(IN_USE, POOL => name).set(stats.in_use() as f64);
    }
}

/// Every pool's statistics, pools of the same name added together, in the
/// order [`pools`] lists them.
fn by_name() -> Vec<(&'static str, Stats)> {
    let mut merged: Vec<(&'static str, Stats)> = Vec::new();
    for pool in pools() {
        let stats = pool.stats();
        match merged.iter_mut().find(|(name, _)| *name == pool.name()) {
            Some((_, total)) => total.add(&stats),
            None => merged.push((pool.name(), stats)),
        }
    }
    merged
}

/// Gives the recorder each series' unit and help text.
fn describe() {
    use ::metrics::{Unit, describe_counter, describe_gauge};
    describe_counter!(
        CREATED,
        Unit::Count,
        "Objects made by the pool's constructor because no idle one was found."
    );
    describe_counter!(
        REUSED,
        Unit::Count,
        "Acquires served by an idle object, by the tier it came from."
    );
    describe_counter!(
        RETURNED,
        Unit::Count,
        "Objects reset and given back to the pool."
    );
    describe_counter!(
        DROPPED,
        Unit::Count,
        "Idle objects dropped: returned to full tiers (capacity) or idle across two rotations (rotation)."
    );
    describe_counter!(
        DISCARDED,
        Unit::Count,
        "Objects dropped instead of returned: their guard was dropped during a panic, by Pooled::discard, or their reset panicked."
    );
    describe_counter!(
        REJECTED,
        Unit::Count,
        "Objects dropped on release because the pool's retain test refused them."
    );
    describe_counter!(
        DETACHED,
        Unit::Count,
        "Objects taken out of the pool for good with Pooled::into_inner."
    );
    describe_gauge!(IDLE, Unit::Count, "Objects idle in the pool now.");
    describe_gauge!(
        IN_USE,
        Unit::Count,
        "Objects handed out and not yet returned, discarded, rejected or detached."
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Pool, pool};

    pool! { static FIRST: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(0); }

    mod other {
        use crate::{Pool, pool};
        // The same name as the outer one, in another module.
        pool! { pub(super) static FIRST: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(0); }
    }

    /// Two pools named alike must be one series with their counts added,
    /// not two values fighting over one series.
    #[test]
    fn pools_of_one_name_are_added() {
        drop(FIRST.acquire());
        let held = [other::FIRST.acquire(), other::FIRST.acquire()];
        let first = by_name()
            .into_iter()
            .filter(|(name, _)| *name == "FIRST")
            .collect::<Vec<_>>();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].1.created, 3);
        assert_eq!(first[0].1.in_use(), 2);
        drop(held);
    }
}
