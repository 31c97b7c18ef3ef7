//! Runs a test in a child process, for a scenario that could abort the
//! process (a panic in a destructor during unwinding, a stack overflow): the
//! test is judged by how the child ended.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable that tells the child which test to run.
const CHILD: &str = "POOL_SUITE_CHILD_TEST";

/// Whether this process is the child started to run `test`.
pub fn is_child(test: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|name| name == test)
}

/// Runs the libtest test named `test` (its full path) of this test binary
/// in a child process and panics, with the child's output, unless the child
/// passed it within two minutes (a child still running then is killed, and
/// the test fails as hung). The test calls this unless [`is_child`] says it is the child:
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
    let mut child = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args([test, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, test)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child process starts");
    // Read both pipes while waiting, so that a chatty child never blocks
    // on a full pipe and looks hung.
    let stdout = drain(child.stdout.take().expect("piped"));
    let stderr = drain(child.stderr.take().expect("piped"));
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child process is waited for") {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let (stdout, stderr) = (
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    );
    let Some(status) = status else {
        panic!(
            "the child process did not end within {TIMEOUT:?} (hung), killed:\n{stdout}\n{stderr}"
        );
    };
    assert!(
        status.success() && stdout.contains("1 passed"),
        "the child process failed ({status}):\n{stdout}\n{stderr}"
    );
}

/// How long a child may run before it counts as hung and is killed.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Reads `pipe` to its end on a thread of its own.
fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = pipe.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    })
}
