//! The tables printed after the run.

use pool_perf::results::{best_sample_ns, estimate_ns};
use pool_perf::round_trip::{VARIANTS, is_peer_crate};

use crate::counting::Row;
use crate::handoff::{
    CROSS_NOT_APPLICABLE, FLOOR, ON_ACQUIRE_PEERS, ON_RELEASE_PEERS, POOL_ON_ACQUIRE,
    cross_variants,
};
use pool_perf::handoff::{BATCH, DEPTH, MEMORY_N1, MEMORY_N2, ROUNDS, Rounds};
use pool_perf::results::load_rounds;

pub(crate) fn counted<'r>(rows: &'r [Row], group: &str, name: &str) -> Option<&'r Row> {
    rows.iter().find(|r| r.group == group && r.name == name)
}

pub(crate) fn fmt_opt(v: Option<f64>, width: usize, precision: usize) -> String {
    v.map_or_else(
        || format!("{:>width$}", "-"),
        |v| format!("{v:>width$.precision$}"),
    )
}

pub(crate) fn report(rows: &[Row]) {
    for object in ["small", "person"] {
        let one = format!("1_thread_{object}");
        let two = format!("2_threads_{object}");
        let pool_ns = estimate_ns(&one, "pool");
        let floor = estimate_ns(&one, "thread_local");
        let fastest_peer = VARIANTS
            .iter()
            .filter(|n| is_peer_crate(n))
            .filter_map(|n| estimate_ns(&one, n).map(|t| (t, *n)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        println!("\n## round trip, {object}: 1 thread and 2 threads\n");
        println!(
            "{:<22} {:>9} {:>8} {:>8} {:>8} {:>9} {:>11} {:>10} {:>9} {:>10}",
            "variant",
            "1thr ns",
            "/pool",
            "/tl",
            "B/op",
            "allocs/op",
            "2thr ns/thr",
            "agg Mop/s",
            "2thr/1thr",
            "best-smpl"
        );
        for name in VARIANTS {
            let t1 = estimate_ns(&one, name);
            let t2 = estimate_ns(&two, name);
            let row = counted(rows, &one, name);
            let best = best_sample_ns(&one, name).zip(best_sample_ns(&two, name));
            println!(
                "{name:<22} {} {} {} {} {} {} {} {} {}",
                fmt_opt(t1, 9, 2),
                fmt_opt(t1.zip(pool_ns).map(|(t, p)| t / p), 8, 2),
                fmt_opt(t1.zip(floor).map(|(t, f)| t / f), 8, 2),
                fmt_opt(row.map(|r| r.bytes_per_op), 8, 1),
                fmt_opt(row.map(|r| r.allocs_per_op), 9, 3),
                fmt_opt(t2, 11, 2),
                fmt_opt(t2.map(|t| 2.0 * 1e3 / t), 10, 1),
                fmt_opt(t1.zip(t2).map(|(a, b)| 2.0 * a / b), 9, 2),
                fmt_opt(best.map(|(a, b)| 2.0 * a / b), 10, 2),
            );
        }
        if let (Some(p), Some(f), Some((peer, peer_name))) = (pool_ns, floor, fastest_peer) {
            println!(
                "pool / thread_local = {:.2}x; fastest peer crate {peer_name} / pool = {:.2}x",
                p / f,
                peer / p
            );
        }

        scaling(object);

        let cross = format!("cross_thread_{object}");
        let rounds = |name: &str| load_rounds(&cross, name).map(|(r, _)| r);
        let pool_ns = rounds("pool").map(|r| r.median());
        let best_peer = cross_variants()
            .filter(|n| is_peer_crate(n))
            .filter_map(|n| rounds(n).map(|r| (r.median(), n)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        println!(
            "\n## cross-thread return, {object} (batches of {BATCH}, ring depth {DEPTH}; median of {ROUNDS} rounds)\n"
        );
        println!(
            "{:<22} {:>9} {:>8} {:>9} {:>9} {:>8} {:>8} {:>9} {:>12} {:>12} {:>12}",
            "variant",
            "ns/obj",
            "/pool",
            "min",
            "max",
            "max/med",
            "B/op",
            "allocs/op",
            format!("heap@{}k", MEMORY_N1 / 1000),
            format!("heap@{}k", MEMORY_N2 / 1000),
            "peak heap"
        );
        for name in cross_variants() {
            if let Some((_, why)) = CROSS_NOT_APPLICABLE.iter().find(|(n, _)| *n == name) {
                println!("{name:<22} n/a: {why}");
                continue;
            }
            let r = rounds(name);
            let t = r.as_ref().map(|r| r.median());
            let row = counted(rows, &cross, name);
            if r.is_none() && row.is_none() {
                continue;
            }
            let memory = row.and_then(|r| r.memory);
            let kib = |v: i64| format!("{:>9.0} KiB", v as f64 / 1024.0);
            println!(
                "{name:<22} {} {} {} {} {} {} {} {:>12} {:>12} {:>12}",
                fmt_opt(t, 9, 2),
                fmt_opt(t.zip(pool_ns).map(|(t, p)| t / p), 8, 2),
                fmt_opt(r.as_ref().map(|r| r.min()), 9, 2),
                fmt_opt(r.as_ref().map(|r| r.max()), 9, 2),
                fmt_opt(r.as_ref().map(|r| r.spread()), 8, 2),
                fmt_opt(row.map(|r| r.bytes_per_op), 8, 1),
                fmt_opt(row.map(|r| r.allocs_per_op), 9, 3),
                memory.map_or_else(|| "-".to_owned(), |m| kib(m.at_n1)),
                memory.map_or_else(|| "-".to_owned(), |m| kib(m.at_n2)),
                memory.map_or_else(|| "-".to_owned(), |m| kib(m.peak)),
            );
        }
        if let (Some(p), Some((peer, peer_name))) = (pool_ns, best_peer) {
            println!(
                "pool / best peer ({peer_name}) = {:.2}x (target: at most 0.90x)",
                p / peer
            );
        }
        // The same comparison round by round, against the peers whose
        // rounds were run with pool-core's (saved within a minute of them:
        // one interleaved run), so that each ratio is taken in one state
        // of the machine.
        let pool_rounds = load_rounds(&cross, "pool");
        let same_run = |name: &str| {
            let (r, at) = load_rounds(&cross, name)?;
            let (_, pool_at) = pool_rounds.as_ref()?;
            let apart = match at.duration_since(*pool_at) {
                Ok(d) => d,
                Err(e) => e.duration(),
            };
            (apart < std::time::Duration::from_secs(60)).then_some(r)
        };
        let peers: Vec<_> = cross_variants()
            .filter(|n| is_peer_crate(n))
            .filter_map(same_run)
            .collect();
        let per_round = pool_rounds
            .as_ref()
            .map(|(pool, _)| pool.per_round_over(&peers.iter().collect::<Vec<_>>()))
            .unwrap_or_default();
        if !per_round.is_empty() {
            let each: Vec<String> = per_round.iter().map(|r| format!("{r:.2}")).collect();
            println!(
                "pool / best peer of each round ({} peers) = median {:.2}x, rounds [{}]",
                peers.len(),
                Rounds { ns: per_round }.median(),
                each.join(" ")
            );
        }
        modes(&cross, &same_run);
    }

    json_report(rows);
}

/// Two threads over one in interleaved rounds (`ScalingRounds`): each
/// variant's one-thread and two-thread runs of a round back to back, so
/// that the round's scaling, 2 × t(1) / t(2), is taken in one state of the
/// machine.
fn scaling(object: &str) {
    let one = format!("scaling_1_thread_{object}");
    let two = format!("scaling_2_threads_{object}");
    let rows: Vec<_> = VARIANTS
        .iter()
        .filter_map(|&name| {
            let t1 = load_rounds(&one, name)?.0;
            let t2 = load_rounds(&two, name)?.0;
            let scaling: Vec<f64> = t1.ns.iter().zip(&t2.ns).map(|(a, b)| 2.0 * a / b).collect();
            (scaling.len() == t1.ns.len()).then_some((name, t1, t2, Rounds { ns: scaling }))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    println!("\n## two threads over one, {object}: interleaved rounds (2 x t1 / t2 per round)\n");
    println!(
        "{:<22} {:>9} {:>11} {:>8} {:>8} {:>8}  rounds",
        "variant", "1thr ns", "2thr ns/thr", "median", "min", "max"
    );
    for (name, t1, t2, scaling) in &rows {
        let each: Vec<String> = scaling.ns.iter().map(|r| format!("{r:.2}")).collect();
        println!(
            "{name:<22} {:>9.2} {:>11.2} {:>8.2} {:>8.2} {:>8.2}  [{}]",
            t1.median(),
            t2.median(),
            scaling.median(),
            scaling.min(),
            scaling.max(),
            each.join(" ")
        );
    }
    if let Some((_, _, _, pool)) = rows.iter().find(|(name, ..)| *name == "pool") {
        println!(
            "pool: two threads' throughput over one thread's = median {:.2}x (target: at least 1.90x)",
            pool.median()
        );
    }
}

/// Each reset mode against the peers of its kind, round by round (issue
/// 26): pool-core resetting on release against poolshark and the free
/// list, resetting on acquire against opool and the `ArrayQueue` pool, and
/// the faster of the two modes (by median) against the best of all four.
fn modes(cross: &str, same_run: &dyn Fn(&str) -> Option<Rounds>) {
    let line = |ours: &str, peers: &[&str], targets: &str| {
        let own = load_rounds(cross, ours)?.0;
        let theirs: Vec<Rounds> = peers.iter().filter_map(|n| same_run(n)).collect();
        let ratios = own.per_round_over(&theirs.iter().collect::<Vec<_>>());
        if ratios.is_empty() || theirs.len() != peers.len() {
            return None;
        }
        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        let ratios = Rounds { ns: ratios };
        println!(
            "{ours} / best of {} in each round = median {:.2}x, max {:.2}x, rounds [{}] ({targets})",
            peers.join(", "),
            ratios.median(),
            ratios.max(),
            each.join(" ")
        );
        Some(own.median())
    };
    let targets = "targets: median at most 0.90x, no round above 1.10x";
    // The floor (no pool) against the same peers: the least a pool's ratio
    // can be in each round.
    let least = "no pool: the least a pool's ratio can be in that round";
    let on_release = line("pool", &ON_RELEASE_PEERS, targets);
    line(FLOOR, &ON_RELEASE_PEERS, least);
    let on_acquire = line(POOL_ON_ACQUIRE, &ON_ACQUIRE_PEERS, targets);
    line(FLOOR, &ON_ACQUIRE_PEERS, least);
    if let (Some(release), Some(acquire)) = (on_release, on_acquire) {
        let faster = if acquire < release {
            POOL_ON_ACQUIRE
        } else {
            "pool"
        };
        let all: Vec<&str> = ON_RELEASE_PEERS
            .iter()
            .chain(&ON_ACQUIRE_PEERS)
            .copied()
            .collect();
        line(
            faster,
            &all,
            "the faster mode by median; target: median at most 0.90x",
        );
    }
}

/// The JSON decode table.
fn json_report(rows: &[Row]) {
    println!("\n## JSON decode (seeds 000 and 001)\n");
    println!(
        "{:<28} {:>10} {:>8} {:>9}",
        "variant", "ns/op", "B/op", "allocs/op"
    );
    for seed in ["000_person", "001_student"] {
        for name in ["fresh", "fresh_boxed", "pooled_derive", "pooled"] {
            let id = format!("{seed}/{name}");
            let row = counted(rows, "json_decode", &id);
            println!(
                "{id:<28} {} {} {}",
                fmt_opt(estimate_ns("json_decode", &id), 10, 1),
                fmt_opt(row.map(|r| r.bytes_per_op), 8, 1),
                fmt_opt(row.map(|r| r.allocs_per_op), 9, 3),
            );
        }
    }

    println!("\n## JSON decode, nested (an order of ten line items)\n");
    println!(
        "{:<22} {:>10} {:>8} {:>10} {:>8} {:>8} {:>9}",
        "variant", "ns/op", "/fresh", "best-smpl", "/fresh", "B/op", "allocs/op"
    );
    let fresh = estimate_ns("json_nested", "order/fresh");
    let fresh_best = best_sample_ns("json_nested", "order/fresh");
    for name in ["fresh", "fresh_vec", "pooled", "pooled_vec"] {
        let id = format!("order/{name}");
        let row = counted(rows, "json_nested", &id);
        let ns = estimate_ns("json_nested", &id);
        let best = best_sample_ns("json_nested", &id);
        println!(
            "{id:<22} {} {} {} {} {} {}",
            fmt_opt(ns, 10, 1),
            fmt_opt(ns.zip(fresh).map(|(t, f)| t / f), 8, 2),
            fmt_opt(best, 10, 1),
            fmt_opt(best.zip(fresh_best).map(|(t, f)| t / f), 8, 2),
            fmt_opt(row.map(|r| r.bytes_per_op), 8, 1),
            fmt_opt(row.map(|r| r.allocs_per_op), 9, 3),
        );
    }
}
