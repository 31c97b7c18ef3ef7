//! A static pool's fast paths past its type: its thread's cache, and a
//! release of an object its reset has prepared. Not generic, so that a
//! debug build compiles them once, not once per pooled type; an optimised
//! one inlines them where the pool is named, where its thread-local and
//! its state are constants (docs/PERFORMANCE.md, "Compile cost of the
//! derive").
//!
//! Invariant: as `slow`'s: every `Erased` here is an object of the pool
//! whose cache or core is given.

use std::ptr::NonNull;

use crate::engine::cache::RawCache;
use crate::engine::core::PoolCore;
use crate::engine::erased::Erased;
use crate::engine::slot::epoch;
use crate::engine::unset::ThreadCache;
use crate::sync::LocalKey;

use super::slow;

/// A static pool's release of a prepared object: to this thread's cache
/// (`None` only under loom, see `Pool::acquire`: to the shared store), or
/// past it.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(super) fn put_static(key: &'static LocalKey<ThreadCache>, core: &PoolCore, value: Erased) {
    let cache = static_cache(key);
    if let Some(value) = offer(cache, value, epoch().now()) {
        slow::put(core, cache, value);
    }
}

/// Offers a prepared object to `cache`, this thread's cache: `None` if it
/// kept it, else the object, for the slow path.
#[allow(clippy::inline_always, reason = "the release's fast path")]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn offer(cache: Option<&RawCache>, value: Erased, now: u64) -> Option<Erased> {
    match cache {
        Some(cache) => cache.push(value, now).err(),
        None => Some(value),
    }
}

/// This thread's cache of a static pool, through one non-generic
/// function, so that `LocalKey::try_with` is compiled once for every pool,
/// not once per pooled type. (Always `Some` outside loom: the
/// thread-local has no destructor to have run.)
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn static_cache(key: &'static LocalKey<ThreadCache>) -> Option<&'static RawCache> {
    let cache = key.try_with(|cache| NonNull::from(cache.raw())).ok()?;
    // SAFETY: the thread-local is never dropped (`ThreadCache`), so its
    // value lives until the thread ends, and the reference cannot outlive
    // the thread: `RawCache` is not `Sync`, so `&RawCache` stays on it.
    Some(unsafe { cache.as_ref() })
}
