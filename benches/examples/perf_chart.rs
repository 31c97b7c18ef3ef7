//! Draws `docs/perf.svg` from the results of `cargo bench --manifest-path benches/Cargo.toml --bench peers`.
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench peers
//! cargo run --release --manifest-path benches/Cargo.toml --example perf_chart            # benches/target/perf.svg
//! cargo run --release --manifest-path benches/Cargo.toml --example perf_chart -- --write # docs/perf.svg
//! ```
//!
//! Reads criterion's `target/criterion/<group>/<variant>/new/estimates.json`
//! (and `benchmark.json` beside it for the names) for the groups of
//! `benches/peers` (and for the cross-thread workload, which criterion does
//! not time, the median of the rounds in `target/rounds/<group>/`), and
//! draws one horizontal bar chart per workload: criterion's headline
//! estimate (the slope of its fit, or the mean where
//! there is none) in ns per operation, on a logarithmic axis, each bar
//! labelled with its value and its ratio to pool-core's. Only what was
//! measured is drawn: a workload or variant with no result is left out. The
//! footer names the machine (from `/proc/cpuinfo`), the command and the date
//! of the newest result.
//!
//! `perf_chart [--write] [TARGET_DIR] [OUT]` overrides where results are
//! read (default `$CARGO_TARGET_DIR` or `benches/target`) and where the chart
//! goes: by default `perf.svg` in the target directory, so that a run does
//! not overwrite the chart the repository tracks; `--write` writes that
//! one, `docs/perf.svg`.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The panels, in order: criterion group, title.
const PANELS: [(&str, &str); 8] = [
    (
        "1_thread_small",
        "1 thread, small object: ns per round trip",
    ),
    (
        "1_thread_person",
        "1 thread, Person (2 KiB): ns per round trip",
    ),
    (
        "2_threads_small",
        "2 threads, small object: ns per round trip per thread",
    ),
    (
        "2_threads_person",
        "2 threads, Person: ns per round trip per thread",
    ),
    (
        "cross_thread_small",
        "cross-thread return, small object: ns per object",
    ),
    (
        "cross_thread_person",
        "cross-thread return, Person: ns per object",
    ),
    (
        "json_decode/000_person",
        "JSON decode, Person with a 2 KiB remark: ns per decode",
    ),
    (
        "json_decode/001_student",
        "JSON decode, Student with a 1 KiB remark: ns per decode",
    ),
];

/// Variants in the order the bench lists them; any other found is appended.
const ORDER: [&str; 16] = [
    "pool",
    "thread_local",
    "box",
    "object-pool",
    "lifeguard",
    "opool",
    "opool_local",
    "sharded-slab",
    "regex-automata",
    "poolshark_local",
    "poolshark",
    "lockfree-object-pool",
    "pooled",
    "pooled_derive",
    "fresh",
    "fresh_boxed",
];

const WIDTH: u32 = 1400;
const PANEL_HEIGHT: u32 = 340;
const HEADER: u32 = 70;
const FOOTER: u32 = 50;

/// One measured bar.
struct Bar {
    variant: String,
    ns: f64,
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let write_tracked = args.iter().any(|arg| arg == "--write");
    args.retain(|arg| arg != "--write");
    let mut args = args.into_iter();
    let target = args.next().map(PathBuf::from).unwrap_or_else(|| {
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
            PathBuf::from,
        )
    });
    let out = args.next().map(PathBuf::from).unwrap_or_else(|| {
        if write_tracked {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("docs")
                .join("perf.svg")
        } else {
            target.join("perf.svg")
        }
    });

    let (mut results, mut newest) = read_results(&target.join("criterion"))?;
    read_rounds(&target.join("rounds"), &mut results, &mut newest)?;
    let panels: Vec<(&str, Vec<Bar>)> = PANELS
        .iter()
        .filter_map(|(key, title)| {
            let bars = results.get(*key)?;
            let mut bars: Vec<Bar> = bars
                .iter()
                .map(|(variant, ns)| Bar {
                    variant: variant.clone(),
                    ns: *ns,
                })
                .collect();
            bars.sort_by_key(|b| {
                ORDER
                    .iter()
                    .position(|o| *o == b.variant)
                    .unwrap_or(ORDER.len())
            });
            Some((*title, bars))
        })
        .collect();
    if panels.is_empty() {
        return Err(format!(
            "no results of benches/peers.rs under {}: run `cargo bench --manifest-path benches/Cargo.toml --bench peers` first",
            target.join("criterion").display()
        )
        .into());
    }

    let rows = panels.len().div_ceil(2) as u32;
    let height = HEADER + rows * PANEL_HEIGHT + FOOTER;
    let root = SVGBackend::new(&out, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (header, rest) = root.split_vertically(HEADER);
    let (body, footer) = rest.split_vertically(rows * PANEL_HEIGHT);

    header.draw(&Text::new(
        "pool-core vs peer pools: time per operation (lower is better; log scale)",
        (20, 18),
        ("sans-serif", 26).into_font().style(FontStyle::Bold),
    ))?;
    header.draw(&Text::new(
        "bar label: criterion estimate (cross-thread: median of the rounds), and its ratio to pool-core's (\"pool\" = 1.00x; JSON: to \"pooled\")",
        (20, 48),
        ("sans-serif", 16).into_font().color(&RGBColor(90, 90, 90)),
    ))?;

    let cells = body.split_evenly((rows as usize, 2));
    for ((title, bars), cell) in panels.iter().zip(cells.iter()) {
        draw_panel(cell, title, bars)?;
    }

    let machine = machine();
    let date = newest.map_or_else(|| "unknown date".to_owned(), utc_date);
    footer.draw(&Text::new(
        format!(
            "measured {date} on {machine}; command: cargo bench --manifest-path benches/Cargo.toml --bench peers, then cargo run --release --manifest-path benches/Cargo.toml --example perf_chart"
        ),
        (20, 12),
        ("sans-serif", 15).into_font().color(&RGBColor(60, 60, 60)),
    ))?;
    footer.draw(&Text::new(
        "criterion's estimates; docs/PERFORMANCE.md has the machine's load, allocation counts, memory and instruction counts",
        (20, 32),
        ("sans-serif", 13).into_font().color(&RGBColor(90, 90, 90)),
    ))?;
    root.present()?;
    println!("wrote {}", out.display());
    Ok(())
}

/// Colours: pool-core stands out; the no-pool and free-list references are
/// grey; peers are blue.
fn colour(variant: &str) -> RGBColor {
    match variant {
        "pool" | "pooled" => RGBColor(214, 90, 30),
        "pooled_derive" => RGBColor(240, 150, 90),
        "thread_local" => RGBColor(120, 120, 120),
        "box" | "fresh" | "fresh_boxed" => RGBColor(185, 185, 185),
        _ => RGBColor(70, 120, 190),
    }
}

fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    title: &str,
    bars: &[Bar],
) -> Result<(), Box<dyn Error>> {
    let reference = bars
        .iter()
        .find(|b| b.variant == "pool" || b.variant == "pooled")
        .map(|b| b.ns);
    let min = bars.iter().map(|b| b.ns).fold(f64::INFINITY, f64::min);
    let max = bars.iter().map(|b| b.ns).fold(0.0, f64::max);
    // Whole decades around the data, with room on the right for labels.
    let lo = 10f64.powf((min / 2.0).log10().floor());
    let hi = 10f64.powf((max * 8.0).log10().ceil());
    let n = bars.len();

    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .margin_right(40)
        .caption(title, ("sans-serif", 17).into_font().style(FontStyle::Bold))
        .x_label_area_size(40)
        .y_label_area_size(150)
        // Plotters' integer ranges include their end: `0..n - 1` is n rows.
        .build_cartesian_2d((lo..hi).log_scale(), (0..n - 1).into_segmented())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if *i < n => bars[n - 1 - *i].variant.clone(),
            _ => String::new(),
        })
        .x_label_formatter(&|v| axis_label(*v))
        .x_desc("ns, log scale")
        .label_style(("sans-serif", 13))
        .draw()?;

    for (i, bar) in bars.iter().enumerate() {
        let row = n - 1 - i;
        let mut rect = Rectangle::new(
            [
                (lo, SegmentValue::Exact(row)),
                (bar.ns, SegmentValue::Exact(row + 1)),
            ],
            colour(&bar.variant).filled(),
        );
        rect.set_margin(3, 3, 0, 0);
        chart.draw_series(std::iter::once(rect))?;
        let ratio = reference.map_or_else(String::new, |r| format!("  {:.2}x", bar.ns / r));
        chart.draw_series(std::iter::once(Text::new(
            format!(" {}{ratio}", format_ns(bar.ns)),
            (bar.ns, SegmentValue::CenterOf(row)),
            TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
        )))?;
    }
    Ok(())
}

/// Axis ticks, which fall on decades: `1 ns`, `10 µs`, ...
fn axis_label(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{} ms", (ns / 1e6).round())
    } else if ns >= 1e3 {
        format!("{} µs", (ns / 1e3).round())
    } else {
        format!("{} ns", ns.round())
    }
}

fn format_ns(ns: f64) -> String {
    if ns >= 1_000_000.0 {
        format!("{:.0} ms", ns / 1e6)
    } else if ns >= 10_000.0 {
        format!("{:.1} µs", ns / 1000.0)
    } else if ns >= 100.0 {
        format!("{ns:.0} ns")
    } else {
        format!("{ns:.1} ns")
    }
}

/// Results by panel key (the criterion group, or for `json_decode` the group
/// and the seed) and variant, and the newest file's time.
type Results = BTreeMap<String, BTreeMap<String, f64>>;

fn read_results(criterion: &Path) -> Result<(Results, Option<SystemTime>), Box<dyn Error>> {
    let mut results = Results::new();
    let mut newest: Option<SystemTime> = None;
    let groups = std::fs::read_dir(criterion).map_err(|e| {
        format!(
            "{}: {e}; run `cargo bench --manifest-path benches/Cargo.toml --bench peers` first",
            criterion.display()
        )
    })?;
    for group in groups {
        let group = group?.path();
        let Some(group_name) = group.file_name().and_then(|g| g.to_str()) else {
            continue;
        };
        let wanted = PANELS
            .iter()
            .any(|(key, _)| key.split('/').next() == Some(group_name));
        if !wanted || !group.is_dir() {
            continue;
        }
        for bench in std::fs::read_dir(&group)? {
            let new = bench?.path().join("new");
            let (Ok(estimates), Ok(benchmark)) = (
                std::fs::read(new.join("estimates.json")),
                std::fs::read(new.join("benchmark.json")),
            ) else {
                continue;
            };
            let estimates: serde_json::Value = serde_json::from_slice(&estimates)?;
            let benchmark: serde_json::Value = serde_json::from_slice(&benchmark)?;
            let Some(ns) = estimates["slope"]["point_estimate"]
                .as_f64()
                .or_else(|| estimates["mean"]["point_estimate"].as_f64())
            else {
                continue;
            };
            let Some(function) = benchmark["function_id"].as_str() else {
                continue;
            };
            // `json_decode` ids are `<seed>/<variant>`: one panel per seed.
            let (key, variant) = match function.split_once('/') {
                Some((seed, variant)) => (format!("{group_name}/{seed}"), variant),
                None => (group_name.to_owned(), function),
            };
            results
                .entry(key)
                .or_default()
                .insert(variant.to_owned(), ns);
            if let Ok(modified) = std::fs::metadata(new.join("estimates.json"))?.modified() {
                newest = Some(newest.map_or(modified, |n| n.max(modified)));
            }
        }
    }
    Ok((results, newest))
}

/// The cross-thread panels come from `target/rounds/<group>/<variant>.json`
/// (the median of the rounds `benches/peers` saves; criterion does not time
/// that workload), in place of any older criterion result for them.
fn read_rounds(
    rounds: &Path,
    results: &mut Results,
    newest: &mut Option<SystemTime>,
) -> Result<(), Box<dyn Error>> {
    for (key, _) in PANELS.iter().filter(|(k, _)| k.starts_with("cross_thread")) {
        let Ok(files) = std::fs::read_dir(rounds.join(key)) else {
            continue;
        };
        let panel = results.entry((*key).to_owned()).or_default();
        panel.clear();
        for file in files {
            let path = file?.path();
            let Some(variant) = path.file_stem().and_then(|v| v.to_str()) else {
                continue;
            };
            let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
            let Some(ns) = json["ns"]
                .as_array()
                .and_then(|ns| ns.iter().map(serde_json::Value::as_f64).collect())
            else {
                continue;
            };
            let rounds = pool_perf::handoff::Rounds { ns };
            panel.insert(variant.to_owned(), rounds.median());
            let written = std::fs::metadata(&path)?.modified()?;
            *newest = Some(newest.map_or(written, |n| n.max(written)));
        }
    }
    Ok(())
}

/// The CPU model and the number of logical CPUs, from `/proc/cpuinfo`.
fn machine() -> String {
    let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") else {
        return "an unknown machine".to_owned();
    };
    let model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, m)| m.trim())
        })
        .unwrap_or("unknown CPU");
    let cpus = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    format!("{model}, {cpus} CPUs")
}

/// `YYYY-MM-DD` (UTC) of `time`.
fn utc_date(time: SystemTime) -> String {
    let days = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
