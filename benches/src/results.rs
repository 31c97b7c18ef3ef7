//! Criterion's results as it left them in `target/criterion`
//! (`$CARGO_TARGET_DIR/criterion` if that is set), and the cross-thread
//! rounds in `target/rounds`.

use std::path::PathBuf;
use std::time::SystemTime;

/// `target` (`$CARGO_TARGET_DIR` if that is set).
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    )
}

/// `target/criterion/<group>/<id>/new/<file>`.
fn result_path(group: &str, id: &str, file: &str) -> PathBuf {
    target_dir()
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

/// `target/rounds/<group>/<id>.json`: where [`save_rounds`] keeps the
/// cross-thread rounds, which criterion does not time.
fn rounds_path(group: &str, id: &str) -> PathBuf {
    target_dir()
        .join("rounds")
        .join(group)
        .join(format!("{}.json", id.replace('/', "_")))
}

/// Writes the rounds of `group/id` (ns per object, in the order run), for
/// the reports of this and later runs.
pub fn save_rounds(group: &str, id: &str, rounds: &crate::handoff::Rounds) {
    let path = rounds_path(group, id);
    let json = serde_json::json!({ "ns": rounds.ns });
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, json.to_string()));
    if let Err(e) = written {
        eprintln!("could not write {}: {e}", path.display());
    }
}

/// The rounds of `group/id` from this or an earlier run, and when they were
/// written.
pub fn load_rounds(group: &str, id: &str) -> Option<(crate::handoff::Rounds, SystemTime)> {
    let path = rounds_path(group, id);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    let ns = json["ns"]
        .as_array()?
        .iter()
        .map(serde_json::Value::as_f64)
        .collect::<Option<Vec<f64>>>()?;
    let written = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
    Some((crate::handoff::Rounds { ns }, written))
}
