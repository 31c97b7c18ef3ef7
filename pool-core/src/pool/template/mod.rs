//! [`Template`]: what lets a derived reset give back what the constructor
//! made, not just what each field's [`Reset`](crate::Reset) makes.
//!
//! A derived struct's reset first needs to know, once per type, whether its
//! constructor makes anything a plain reset would not: `retries: 3` where
//! the reset gives `0`, `Some("default")` where it gives `None`, a
//! `Duration` of 30 s, an enum of the user's that has no `Reset` at all.
//! It finds out on the first reset, from one object the constructor makes,
//! the template: each field of it is compared with a reset copy of itself
//! ([`Probe`]). If every field agrees, the constructor is *clean*, the
//! template is dropped, and each reset is the plain field-by-field one,
//! behind one relaxed load of a flag. Otherwise the template is kept, and
//! each reset copies the fields that differ back from it with `clone_from`,
//! which writes into the buffers the field already has (no allocation once
//! they are large enough), and resets the others as before. So the
//! constructor runs once per type for the template, and otherwise only for
//! the objects the pool makes.
//!
//! A field takes part when its type is `Clone`: it differs when a reset
//! copy of the template's value is unequal to it (`PartialEq`), or, for a
//! type without `PartialEq` or without `Reset`, always. A lock, a cell or
//! an atomic whose contents are `Clone` (and `Sync`) takes part through its
//! contents (`contents`). A field whose type is neither cannot be copied
//! back, so its `Reset` is trusted; `#[pool(reset = path)]` and
//! `#[pool(fresh = path)]` are the ways out for such a field.
//!
//! The template is shared by every thread. A `Sync` struct's is read by
//! all at once; any other's (a struct holding a `Cell`, or a generic
//! struct, which the derive cannot see is `Sync`) is read under a lock, one
//! restore at a time.
//!
//! Invariant: once [`Template::restore`] has returned, the flag is `CLEAN`
//! only if the constructor's output equals a reset object field by field
//! as far as `PartialEq` can tell; and every reset, clean or not, leaves
//! each `Clone` field equal to the constructor's value.
//!
//! The typed [`Template`] and its flag are here; the derive's one pass over
//! the fields, which resets them or probes the template, and what the plan
//! records of each field, are in `plan` ([`Pass`], [`Probe`] and the
//! kinds); how a wrapper's contents are reached, in `contents`; the
//! restorer that copies the constructor's values back, with the template
//! it is made from, in `restorer`.

mod contents;
mod plan;
mod restorer;

pub use self::contents::Contents;
pub use self::plan::{
    CloneEq, CloneOnly, ContentsCopied, ContentsEq, Copied, KindCloneEq, KindCloneOnly,
    KindContentsCopied, KindContentsEq, KindCopied, KindTrusted, KindUnresettable, Pass, Probe,
    ResetField, Trusted, Unresettable,
};
pub use self::restorer::{Access, LockedTemplate, Share, ShareTemplate};

use std::ptr::NonNull;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use self::restorer::{Fields, FieldsFn, RawRestorer, erase_fields};
use crate::engine::erased::{Dispose, Erased, dispose, untyped};
use crate::pool::config::{Create, MakeFn, make};

/// The flag's states.
const UNKNOWN: u8 = 0;
const CLEAN: u8 = 1;
const RESTORE: u8 = 2;

/// How a derived struct's reset reaches its constructor's values: one
/// `static` per derived struct (see the module docs).
///
/// Not generic: what it holds and does is the same for every struct (a
/// `RawRestorer`), compiled once in pool-core; what is the struct's own is
/// the derive's pass over the fields, which it is handed, and
/// [`Template::restore`], generic over the struct, whose callers promise
/// that a template serves one struct.
pub struct Template {
    /// `CLEAN` once the plan found the constructor clean: the one load of
    /// the reset's fast path ([`Template::is_clean`]).
    state: AtomicU8,
    /// What the plan found, set once (by one thread: another waits for
    /// it, so the constructor makes one template per struct): the
    /// restorer of the template's `T`, without its type, or `None` if the
    /// constructor is clean.
    restore: OnceLock<Option<RawRestorer>>,
}

impl Template {
    /// A template that has not looked at the constructor yet.
    #[must_use]
    pub const fn new() -> Self {
        Template {
            state: AtomicU8::new(UNKNOWN),
            restore: OnceLock::new(),
        }
    }

    /// Whether the plain field-by-field reset is enough: the derived reset
    /// runs it if so, and calls [`Template::restore`] (from a cold function
    /// of its own, so this check adds a load and a branch to the reset) if
    /// not.
    #[allow(
        clippy::inline_always,
        reason = "the clean case must cost the plain reset and one load, also across crates"
    )]
    #[inline]
    pub fn is_clean(&self) -> bool {
        // Relaxed: `CLEAN` publishes no data, only that `clear` is enough.
        self.state.load(Ordering::Relaxed) == CLEAN
    }

    /// Resets `value` when [`Template::is_clean`] says the plain reset may
    /// not be enough: the first time, finds out (makes the template with
    /// `create` and probes it with `fields`, the derive's pass over the
    /// struct's fields), then resets with `fields` if the constructor is
    /// clean, else with the restorer, which copies the fields that differ
    /// back from the template and resets the others. `access`: how the
    /// template is read ([`Share`]).
    ///
    /// Out of line, once per struct, and cold: the reset's fast path is
    /// the flag's load and the pass.
    ///
    /// # Safety
    ///
    /// This template is `T`'s own: every call of this method on it is for
    /// the same `T`. `fields` is the derive's pass over `T`'s fields: every
    /// call hands the pass the same plain fields of the object it is given,
    /// in the same order, each with its kind's `reset`, and nothing else.
    /// (A restore copies a field back from where the probe found it in the
    /// template, as the type the probe saw there.)
    #[cold]
    #[inline(never)]
    pub unsafe fn restore<T: Send + 'static>(
        &'static self,
        value: &mut T,
        fields: Fields<T>,
        create: fn() -> T,
        access: Access<T>,
    ) {
        let restorer = match self.restore.get() {
            Some(restorer) => restorer.as_ref(),
            None => {
                let create = Create::Fn(create);
                let make = (
                    make::<T> as MakeFn,
                    untyped(&raw const create as *const u8).cast(),
                );
                // SAFETY: the pool's `make` with a live `Create<T>` and
                // `dispose` for this `T: Send`, the derive's pass over
                // `T`'s fields (the caller's promise), and `access` says
                // `false` only for a `T: Sync` (`Access`).
                unsafe { self.plan(make, dispose::<T>, erase_fields(fields), access.locked) }
            }
        };
        match restorer {
            // SAFETY: the only restorer this template holds is made for
            // `T` (above), with the same pass (the caller's promise), and
            // `value` is a `T`, borrowed exclusively.
            Some(restorer) => unsafe { restorer.restore(untyped(value as *mut T as *const u8)) },
            // Clean.
            None => fields(value, &mut Pass::clear()),
        }
    }

    /// The first reset's slow path: plans, once, and records what it found
    /// in the flag.
    ///
    /// # Safety
    ///
    /// As for [`RawRestorer::plan`], whose arguments these are.
    #[cold]
    #[inline(never)]
    unsafe fn plan(
        &'static self,
        make: (MakeFn, NonNull<()>),
        dispose: Dispose<Erased>,
        fields: FieldsFn,
        locked: bool,
    ) -> Option<&'static RawRestorer> {
        let restorer = self
            .restore
            // SAFETY: the caller's promise.
            .get_or_init(|| unsafe { RawRestorer::plan(make, dispose, fields, locked) })
            .as_ref();
        // Relaxed: the flag publishes no data (`CLEAN` only says that the
        // pass is enough); the restorer is reached through the `OnceLock`.
        let found = if restorer.is_some() { RESTORE } else { CLEAN };
        self.state.store(found, Ordering::Relaxed);
        restorer
    }
}

impl std::fmt::Debug for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.state.load(Ordering::Relaxed) {
            UNKNOWN => "unknown",
            CLEAN => "clean",
            _ => "restore",
        };
        f.debug_struct("Template").field("state", &state).finish()
    }
}

impl Default for Template {
    fn default() -> Self {
        Self::new()
    }
}
