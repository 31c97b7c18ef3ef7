//! [`Rotator`]: a background thread that calls [`rotate`](crate::rotate)
//! on a fixed period.
//!
//! Invariant: the thread rotates until its handle is dropped, whatever the
//! destructors it runs do; dropping the handle stops it and waits for it.

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A background thread that calls [`rotate`](crate::rotate) on a fixed
/// period, so that idle pools give their memory back without the
/// application having to schedule it.
///
/// The thread is named `pool-rotator`. Dropping the handle stops it and
/// waits for it to finish its current rotation.
///
/// # Example
///
/// ```
/// use std::time::Duration;
///
/// // Objects idle for 30 to 60 seconds are dropped.
/// let rotator = pool_core::Rotator::spawn(Duration::from_secs(30))?;
/// // ... run the application ...
/// drop(rotator); // stops the thread
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Rotator {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Rotator {
    /// Starts a thread that rotates every `period`.
    ///
    /// An idle object, in a shared store or in the cache of a thread that
    /// is not using the pool, is then dropped after between one and two
    /// periods of idleness (see [`rotate`](crate::rotate) for the exception:
    /// platforms without a process-wide barrier). The process also rotates
    /// on its own ([`set_rotation_period`](crate::set_rotation_period)); a
    /// `Rotator` adds rotations of its own on top.
    ///
    /// # Errors
    ///
    /// `ErrorKind::InvalidInput` if `period` is zero (the thread would
    /// spin), or the error from spawning the thread.
    ///
    /// ```
    /// use std::io::ErrorKind;
    /// use std::time::Duration;
    ///
    /// use pool_core::Rotator;
    ///
    /// let rotator = Rotator::spawn(Duration::from_secs(60))?;
    /// drop(rotator); // stops the thread
    ///
    /// let zero = Rotator::spawn(Duration::ZERO).unwrap_err();
    /// assert_eq!(zero.kind(), ErrorKind::InvalidInput);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn spawn(period: Duration) -> std::io::Result<Rotator> {
        if period.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "rotation period must be greater than zero",
            ));
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("pool-rotator".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(period) {
                    // A panicking destructor must not end rotation for
                    // the rest of the process; its panic has already
                    // been reported by the panic hook.
                    let _ = std::panic::catch_unwind(crate::rotate);
                }
            })?;
        Ok(Rotator {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Rotator {
    fn drop(&mut self) {
        // Closing the channel wakes the thread at once.
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
