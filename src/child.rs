//! Runs a test in a child process, for a scenario that could abort the
//! process (a panic in a destructor during unwinding, a stack overflow): the
//! test is judged by how the child ended.

use std::process::Command;

/// The environment variable that tells the child which test to run.
const CHILD: &str = "POOL_SUITE_CHILD_TEST";

/// Whether this process is the child started to run `test`.
pub fn is_child(test: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|name| name == test)
}

/// Runs the libtest test named `test` (its full path) of this test binary
/// in a child process and panics, with the child's output, unless the child
/// passed it. The test calls this unless [`is_child`] says it is the child:
///
/// ```no_run
/// use pool_suite::child::{in_child_process, is_child};
///
/// #[test]
/// fn a_scenario_that_could_abort() {
///     const NAME: &str = "a_scenario_that_could_abort";
///     if !is_child(NAME) {
///         return in_child_process(NAME);
///     }
///     // ... the scenario ...
/// }
/// ```
pub fn in_child_process(test: &str) {
    let output = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args([test, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, test)
        .output()
        .expect("the child process starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the child process failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
}
