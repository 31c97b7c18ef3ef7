//! Every pool's [`Stats`](crate::Stats) through the [`metrics`](https://docs.rs/metrics)
//! facade (feature `metrics`), under Prometheus-style names.
//!
//! Invariant: nothing here runs on a pool's acquire or release. The counts
//! already live in the per-thread counters that [`Pool::stats`](crate::Pool::stats) sums;
//! [`publish`] reads them through [`pools`](crate::pools) and hands the recorder their
//! absolute values (`Counter::absolute`, `Gauge::set`), so the fast path
//! pays nothing for metrics.
//!
//! **Every rotation publishes.** With this feature, [`rotate`](crate::rotate) ends by
//! doing what `publish` does, after its destructors and the allocator trim,
//! so the figures it sets include that rotation's drops; the automatic
//! rotation (every [`DEFAULT_ROTATION_PERIOD`](crate::DEFAULT_ROTATION_PERIOD) unless
//! [`set_rotation_period`](crate::set_rotation_period) says otherwise) thus keeps a scrape at most one
//! period stale with no call of yours, whatever kind of pools the program
//! has. Call `publish` yourself for figures fresher than the last
//! rotation.
//!
//! The alternative, a `metrics::counter!(..).increment(1)` per acquire, was
//! rejected: it would look up a recorder and touch a shared atomic on every
//! acquire and release, the costs the thread caches exist to avoid. The
//! price of publishing snapshots is freshness: the recorder sees the values
//! of the last `publish` or rotation, so call it where the values are read
//! (in the scrape handler) when a rotation period is too stale.
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
//! [`Pool::stats`](crate::Pool::stats): crate::Pool::stats
//! [`rotate`](crate::rotate): crate::rotate
//! [`DEFAULT_ROTATION_PERIOD`](crate::DEFAULT_ROTATION_PERIOD): crate::DEFAULT_ROTATION_PERIOD
//! [`set_rotation_period`](crate::set_rotation_period): crate::set_rotation_period

/// Publishes every pool's statistics to the installed `metrics` recorder.
///
/// Reads [`pools`](crate::pools) and each pool's [`Stats`](crate::Stats), and sets, for each pool,
/// labelled `pool="<name>"` with the pool's [name](crate::PoolInfo::name):
///
/// | series | kind | from [`Stats`](crate::Stats) |
/// |---|---|---|
/// | `pool_objects_created_total` | counter | `created`: made by the constructor |
/// | `pool_objects_reused_total{tier="thread"}` | counter | `hits_local`: served from the acquiring thread's cache |
/// | `pool_objects_reused_total{tier="primary"}` | counter | `hits_primary`: served from the shared primary tier |
/// | `pool_objects_reused_total{tier="victim"}` | counter | `hits_victim`: served from the shared victim tier |
/// | `pool_objects_returned_total` | counter | `returned`: reset and given back |
/// | `pool_objects_dropped_total{reason="capacity"}` | counter | `dropped_capacity`: returned to full tiers, dropped |
/// | `pool_objects_dropped_total{reason="rotation"}` | counter | `dropped_rotation`: idle across two rotations, dropped |
/// | `pool_objects_dropped_total{reason="oversize"}` | counter | `dropped_oversize`: over the pool's bound in bytes on release, dropped |
/// | `pool_objects_shrunk_total` | counter | `shrunk`: over the pool's bound in bytes on release, shrunk to it and kept |
/// | `pool_objects_discarded_total` | counter | `discarded`: dropped during a panic, by `Pooled::discard`, or their reset panicked |
/// | `pool_objects_rejected_total` | counter | `rejected`: refused on release by the pool's `retain` test |
/// | `pool_objects_detached_total` | counter | `detached`: taken out with `Pooled::into_inner` |
/// | `pool_objects_put_total` | counter | `put`: made elsewhere and given with `Pool::put` |
/// | `pool_objects_idle` | gauge | `idle`: idle in the pool now |
/// | `pool_objects_idle_bytes` | gauge | `idle_bytes`: the bytes the idle objects hold, heap and boxes |
/// | `pool_objects_in_use` | gauge | [`Stats::in_use`](crate::Stats::in_use): handed out and not back |
///
/// All acquires are `created` plus the three `reused` series
/// (`sum by (pool) (rate(pool_objects_reused_total[5m]))` over
/// `rate(pool_objects_created_total[5m])` is the reuse ratio), so no
/// `acquired` series repeats them. The unit is objects: a count, so the
/// names carry no unit suffix beyond Prometheus's `_total` for counters.
/// Each call also describes the series (help text and unit) to the
/// recorder, which exporters print as `# HELP` lines.
///
/// Pools that share a name (two types called `Request` in two modules,
/// run-time pools of one type, which are named after it) are published as
/// one series, their counts added: two values set one after the other on
/// the same series would make it jump back and forth.
///
/// Counters are set to the pools' totals, not incremented, so calling
/// `publish` often, or from two threads, counts nothing twice. They never
/// fall, for the life of the process: a run-time pool that ends leaves its
/// final counts in its name's totals, and no counter is set below the
/// value it was last set to. With no recorder installed, it reads the
/// statistics and records nothing.
///
/// Every [`rotate`](crate::rotate), the automatic ones included, ends by
/// publishing (see the [module docs](self)); call `publish` for figures
/// fresher than the last rotation.
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
    crate::engine::publish::publish();
}

#[cfg(test)]
mod tests {
    use crate::Stats;
    use crate::engine::publish::{by_name, raise_counters};
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

    /// Regression (issue 24, item 5): pools of one name are one series, and
    /// when one of two run-time pools of a name was dropped, its counts left
    /// the sum, so `pool_objects_returned_total` fell (5100 to 110).
    #[test]
    fn counters_do_not_fall_when_a_pool_of_the_name_ends() {
        const NAME: &str = "metrics::tests::ENDING";
        let returned = || {
            by_name()
                .into_iter()
                .find(|(name, _)| *name == NAME)
                .map_or(0, |(_, stats)| stats.returned)
        };
        let first = Pool::builder(Vec::<u8>::new).name(NAME).build();
        let second = Pool::builder(Vec::<u8>::new).name(NAME).build();
        for _ in 0..3 {
            drop(first.acquire());
        }
        drop(second.acquire());
        assert_eq!(returned(), 4);
        drop(first);
        assert_eq!(returned(), 4, "the ended pool's returns stay counted");
        drop(second.acquire());
        assert_eq!(returned(), 5);
    }

    /// A counter is never set below what it was last set to, by `publish`
    /// or a rotation.
    #[test]
    fn raised_counters_keep_their_floor() {
        let mut stats = Stats {
            returned: 3,
            idle: 1,
            ..Stats::default()
        };
        let floor = Stats {
            returned: 5,
            created: 2,
            idle: 9,
            ..Stats::default()
        };
        raise_counters(&mut stats, floor);
        assert_eq!((stats.returned, stats.created, stats.idle), (5, 2, 1));
    }
}
