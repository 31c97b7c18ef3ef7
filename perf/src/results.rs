//! Criterion's results as it left them in `target/criterion`
//! (`$CARGO_TARGET_DIR/criterion` if that is set).

use std::path::PathBuf;
use std::time::SystemTime;

/// `target/criterion/<group>/<id>/new/<file>`.
fn result_path(group: &str, id: &str, file: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    );
    target
        .join("criterion")
        .join(group)
        .join(id.replace('/', "_"))
        .join("new")
        .join(file)
}

/// `target/criterion/<group>/<id>/new/<file>`, parsed.
pub fn criterion_json(group: &str, id: &str, file: &str) -> Option<serde_json::Value> {
    serde_json::from_slice(&std::fs::read(result_path(group, id, file)).ok()?).ok()
}

/// Whether criterion wrote its estimate for `group/id` at or after `since`
/// (that is, in this run, if `since` is the run's start).
pub fn written_since(group: &str, id: &str, since: SystemTime) -> bool {
    std::fs::metadata(result_path(group, id, "estimates.json"))
        .and_then(|m| m.modified())
        .is_ok_and(|modified| modified >= since)
}

/// When criterion wrote its estimate for `group/id`.
pub fn written_at(group: &str, id: &str) -> Option<SystemTime> {
    std::fs::metadata(result_path(group, id, "estimates.json"))
        .and_then(|m| m.modified())
        .ok()
}

/// Criterion's headline estimate (ns) for `group/id` from this or an
/// earlier run: the slope of its linear fit, or the mean where there is no
/// slope.
pub fn estimate_ns(group: &str, id: &str) -> Option<f64> {
    let json = criterion_json(group, id, "estimates.json")?;
    let slope = &json["slope"]["point_estimate"];
    slope
        .as_f64()
        .or_else(|| json["mean"]["point_estimate"].as_f64())
}

/// The fastest of criterion's samples (ns per iteration) for `group/id`.
/// On a machine shared with other work a sample that was preempted is
/// slower, never faster, so the best sample is the figure least disturbed
/// by the neighbours; it is printed next to the estimate for the workloads
/// with two threads, which suffer most.
pub fn best_sample_ns(group: &str, id: &str) -> Option<f64> {
    let json = criterion_json(group, id, "sample.json")?;
    let iters = json["iters"].as_array()?;
    let times = json["times"].as_array()?;
    iters
        .iter()
        .zip(times)
        .filter_map(|(i, t)| Some(t.as_f64()? / i.as_f64()?))
        .min_by(f64::total_cmp)
}
