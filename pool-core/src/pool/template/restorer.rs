//! [`RawRestorer`]: what gives back the constructor's values to an object
//! of a derived struct whose constructor is not clean, made once per
//! struct by [`RawRestorer::plan`] from the one template it keeps and the
//! plan of the fields that differ. [`Share`] picks, by autoref
//! specialisation, how the template is read: by every thread at once for a
//! `Sync` struct ([`ShareTemplate`]); under a lock, one restore at a time,
//! for any other ([`LockedTemplate`]: a struct holding a `Cell`, or a
//! generic struct, which the derive cannot see is `Sync`). All of it
//! without the struct's type: what it needs of the struct (its pass over
//! the fields, the pool's `make` and `dispose`) it is handed erased.
//!
//! Invariant: a `RawRestorer` was made for one struct `T`, and every
//! pointer it holds (the template) or is handed (the object to restore) is
//! to a `T`, whose pass over its fields and plan it holds; the template is
//! a `T: Send`, only read, by one thread at a time (under its lock) unless
//! `T: Sync`, and dropped once, with its restorer.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::plan::{Mode, Pass, Plan};
use crate::engine::erased::{Dispose, Erased};
use crate::pool::config::MakeFn;

/// Gives back the constructor's values to an object of one derived struct:
/// a reset (the derive's pass over the fields), then the plan's copies
/// from the template. Without the struct's type (the module's invariant),
/// so that neither its code nor the template's `OnceLock` is compiled once
/// per derived struct, as a `Box<dyn Fn(&mut T)>` behind `Any` would be
/// (docs/PERFORMANCE.md, "Compile cost of the derive").
pub(super) struct RawRestorer {
    plan: Plan,
    /// The derive's pass over the struct's fields, erased ([`erase_fields`]).
    fields: FieldsFn,
    /// Where it copies from: the template, a `Boxed<T>`, erased, dropped
    /// with `dispose` when the restorer is.
    template: Erased,
    dispose: Dispose<Erased>,
    /// For a `T` that may not be `Sync`, the lock every read of the
    /// template holds.
    lock: Option<Mutex<()>>,
}

/// The derive's `fn(&mut T, &mut Pass)`, with the object an erased
/// pointer.
pub(super) type FieldsFn = unsafe fn(NonNull<u8>, &mut Pass<'_>);

// SAFETY: the template is a `T: Send` (`plan`'s caller's promise), only read, and
// dropped once, by the restorer's owner. It is read by restores on any
// thread at once only if `T: Sync` (the only `Access` without a lock is
// `ShareTemplate`'s, whose impl needs the bound); otherwise
// each read holds `lock`, as a `Mutex<T>` would, which is `Sync` for a
// `T: Send`. The rest is plain data and fn pointers.
unsafe impl Send for RawRestorer {}
// SAFETY: as above: `&RawRestorer` only reads the template, under the lock
// where it must.
unsafe impl Sync for RawRestorer {}

impl RawRestorer {
    /// Makes the template with `make` (the pool's, with its `Create<T>`),
    /// probes it with `fields`, and returns the restorer, read under a lock
    /// if `locked`, or `None` (and the template dropped with `dispose`) if
    /// no field differs. Runs once per struct.
    ///
    /// # Safety
    ///
    /// `make`, `create`, `dispose` and `fields` are those of one struct
    /// `T: Send` (the erasure invariant, `crate::pool::state`), and
    /// `locked` is `false` only if `T: Sync`.
    #[inline(never)]
    pub(super) unsafe fn plan(
        (make, create): (MakeFn, NonNull<()>),
        dispose: Dispose<Erased>,
        fields: FieldsFn,
        locked: bool,
    ) -> Option<RawRestorer> {
        let mut restorer = RawRestorer {
            plan: Plan::new(),
            fields,
            // SAFETY: the caller's promise. From here the template is the
            // restorer's, dropped with it, if the probe panics too.
            template: unsafe { make(create) },
            dispose,
            lock: locked.then(|| Mutex::new(())),
        };
        let object = restorer.template.as_ptr();
        // SAFETY: the struct's pass over one of its objects, borrowed by
        // nothing else.
        unsafe { fields(object, &mut Pass(Mode::Probe(&mut restorer.plan))) };
        // Kept if any field differs.
        restorer
            .plan
            .iter()
            .any(Option::is_some)
            .then_some(restorer)
    }

    /// Copies the fields that differ back from the template into `value`,
    /// and resets the others.
    ///
    /// # Safety
    ///
    /// `value` points to a live, exclusively borrowed `T` of the struct
    /// whose plan made this restorer.
    #[inline]
    pub(super) unsafe fn restore(&self, value: NonNull<u8>) {
        // A template that may not be `Sync` is read under its lock, unless
        // this thread holds it already.
        let _held = self
            .lock
            .as_ref()
            .and_then(|lock| TemplateHold::take(self, lock));
        // SAFETY: `fields` is the struct's pass, `value` one of its objects
        // (the caller's promise); the plan's pointers are to the fields of
        // the template, alive as long as `self`, never written, and read
        // under the lock unless `T: Sync` (the invariant) or this thread
        // already holds it.
        unsafe { (self.fields)(value, &mut Pass(Mode::Restore(self.plan.iter()))) };
    }
}

std::thread_local! {
    /// The restorer whose lock this thread holds, if any: a `clone_from`
    /// run under it may release an object of the same struct, whose reset
    /// then reads the template on this thread again, which needs no lock
    /// (and would deadlock on it).
    static HOLDING: Cell<*const RawRestorer> = const { Cell::new(std::ptr::null()) };
}

/// A template's lock, held by this thread for one restore.
struct TemplateHold<'a> {
    _guard: MutexGuard<'a, ()>,
    outer: *const RawRestorer,
}

impl<'a> TemplateHold<'a> {
    /// The lock, or `None` if this thread holds it already (the restore is
    /// nested in one of the same template: same thread, no data race).
    fn take(restorer: &RawRestorer, lock: &'a Mutex<()>) -> Option<TemplateHold<'a>> {
        let me: *const RawRestorer = restorer;
        let outer = HOLDING.try_with(Cell::get).unwrap_or(std::ptr::null());
        if std::ptr::eq(outer, me) {
            return None;
        }
        // The template is only read, so a restore that panicked under the
        // lock left it whole: a poisoned lock is taken all the same.
        let guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = HOLDING.try_with(|holding| holding.set(me));
        Some(TemplateHold {
            _guard: guard,
            outer,
        })
    }
}

impl Drop for TemplateHold<'_> {
    fn drop(&mut self) {
        let _ = HOLDING.try_with(|holding| holding.set(self.outer));
    }
}

impl Drop for RawRestorer {
    fn drop(&mut self) {
        // SAFETY: the template is the restorer's, dropped once, here;
        // `Erased` has no destructor of its own, so the copy read out is
        // the only one that is used. `dispose` is its type's.
        unsafe { (self.dispose)(std::ptr::read(&self.template)) };
    }
}

/// The derive's pass over a struct's fields, with the objects erased.
pub(super) fn erase_fields<T>(fields: Fields<T>) -> FieldsFn {
    // SAFETY: `&mut T` (`T: Sized`) is ABI-compatible with `NonNull<u8>`
    // (the function pointer ABI rules of the `fn` primitive's docs:
    // pointers whose pointee types have the same metadata, here none), and
    // the rest of the signature is unchanged, so calling the result is
    // calling `fields`. `RawRestorer` calls it only with pointers to `T`s,
    // valid as the reference it takes (its invariant).
    unsafe { std::mem::transmute::<Fields<T>, FieldsFn>(fields) }
}

/// The derive's pass over the fields of `T`, which resets, probes or
/// restores the object as the [`Pass`] says.
pub(super) type Fields<T> = fn(&mut T, &mut Pass<'_>);

/// Picks how a struct's restorer reads its template, by autoref
/// specialisation on `T: Sync`: `(&&Share::<T>::new()).access()`.
pub struct Share<T>(PhantomData<fn(T)>);

impl<T> std::fmt::Debug for Share<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Share")
    }
}

impl<T> Share<T> {
    /// The chooser for `T`.
    #[must_use]
    pub const fn new() -> Self {
        Share(PhantomData)
    }
}

impl<T> Default for Share<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// How a struct's template is read, as [`Share`] picked it: without a lock
/// only for a `T: Sync` (the one way to make that value is
/// [`ShareTemplate`], whose impl needs the bound).
pub struct Access<T> {
    pub(super) locked: bool,
    _type: PhantomData<fn(T)>,
}

impl<T> std::fmt::Debug for Access<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access")
            .field("locked", &self.locked)
            .finish()
    }
}

/// A `Sync` struct keeps one template, read by every thread at once.
pub trait ShareTemplate<T> {
    /// Reads without a lock.
    fn access(&self) -> Access<T>;
}

impl<T: Sync> ShareTemplate<T> for &Share<T> {
    #[inline]
    fn access(&self) -> Access<T> {
        Access {
            locked: false,
            _type: PhantomData,
        }
    }
}

/// A struct that may not be `Sync` keeps one template too, read under a
/// lock by one restore at a time.
pub trait LockedTemplate<T> {
    /// Reads under the template's lock.
    fn access(&self) -> Access<T>;
}

impl<T> LockedTemplate<T> for Share<T> {
    #[inline]
    fn access(&self) -> Access<T> {
        Access {
            locked: true,
            _type: PhantomData,
        }
    }
}
