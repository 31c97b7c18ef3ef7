//! A process-wide memory barrier: the rare side of the asymmetric barrier
//! that lets a rotation age an idle thread's cache (`crate::engine::slot`).
//!
//! Invariant: [`process_wide`] returns `true` only after every thread of
//! the process has run a full memory barrier since the call began; where
//! the platform cannot do that it returns `false` and does nothing, and
//! rotation then leaves the caches to their owners.
//!
//! - Linux: `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)` (Linux 4.14,
//!   2017), after the process registered for it once. The kernel
//!   interrupts only the CPUs that run a thread of this process; measured
//!   here at about the cost of a system call (`docs/DESIGN.md`).
//! - Windows: `FlushProcessWriteBuffers` (Vista and later), which does the
//!   same with inter-processor interrupts.
//! - Elsewhere (macOS, the BSDs), and on a Linux kernel without the
//!   command or a sandbox that forbids it: `false`.

#[cfg(target_os = "linux")]
mod linux {
    use std::sync::OnceLock;

    use libc::{SYS_membarrier, c_int, c_long, syscall};

    // From linux/membarrier.h.
    const QUERY: c_int = 0;
    const PRIVATE_EXPEDITED: c_int = 1 << 3;
    const REGISTER_PRIVATE_EXPEDITED: c_int = 1 << 4;

    fn membarrier(cmd: c_int) -> c_long {
        // SAFETY: membarrier(2) takes a command, flags and a CPU id, reads
        // and writes no memory of ours, and fails with -1 (ENOSYS, EINVAL,
        // EPERM) where it is not available.
        unsafe { syscall(SYS_membarrier, cmd, 0 as c_int, 0 as c_int) }
    }

    /// Whether the kernel has the private expedited command, and this
    /// process is registered for it (registered on the first call).
    pub(crate) fn available() -> bool {
        static REGISTERED: OnceLock<bool> = OnceLock::new();
        *REGISTERED.get_or_init(|| {
            let commands = membarrier(QUERY);
            let needed = c_long::from(PRIVATE_EXPEDITED | REGISTER_PRIVATE_EXPEDITED);
            commands >= 0
                && commands & needed == needed
                && membarrier(REGISTER_PRIVATE_EXPEDITED) == 0
        })
    }

    /// Runs a full memory barrier on every thread of the process, or
    /// returns `false` where that cannot be done.
    pub(crate) fn process_wide() -> bool {
        available() && membarrier(PRIVATE_EXPEDITED) == 0
    }
}

#[cfg(target_os = "linux")]
pub(crate) use linux::{available, process_wide};

/// `FlushProcessWriteBuffers` always works (Vista and later).
#[cfg(windows)]
pub(crate) fn available() -> bool {
    true
}

/// Runs a full memory barrier on every thread of the process.
#[cfg(windows)]
pub(crate) fn process_wide() -> bool {
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn FlushProcessWriteBuffers();
    }
    // SAFETY: takes no arguments and cannot fail (Vista and later).
    unsafe { FlushProcessWriteBuffers() };
    true
}

/// No process-wide barrier on this platform.
#[cfg(not(any(target_os = "linux", windows)))]
pub(crate) fn available() -> bool {
    false
}

/// No process-wide barrier on this platform.
#[cfg(not(any(target_os = "linux", windows)))]
pub(crate) fn process_wide() -> bool {
    false
}
