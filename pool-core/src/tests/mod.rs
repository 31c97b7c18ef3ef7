//! Unit tests of the runtime as a whole, and the loom models.
//!
//! The behaviour tests run under Miri too (`cargo +nightly miri test -p
//! pool-core`), so they keep their thread and iteration counts small.

#[cfg(not(loom))]
mod behaviour;
#[cfg(loom)]
mod loom_bytes;
#[cfg(loom)]
mod loom_guard;
#[cfg(loom)]
mod loom_reclaim;
#[cfg(loom)]
mod loom_rotation;
#[cfg(loom)]
mod loom_runtime;
#[cfg(loom)]
mod loom_shared;
#[cfg(loom)]
mod loom_support;
