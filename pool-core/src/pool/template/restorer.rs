//! [`Restorer`]: what copies the constructor's values back into an object
//! of a derived struct whose constructor is not clean. Its plan makes it,
//! once per struct: [`ShareTemplate`] for a `Sync` struct, with one
//! template shared by every thread; [`FreshTemplate`] for any other, with a
//! fresh template for each restore. [`boxed`] makes the objects it is made
//! from.
//!
//! Invariant: a `RawRestorer` was made as a `Restorer<T>`, and every
//! pointer it holds (the template) or is handed (the object to restore) is
//! to a `T` of that struct, whose `restore` it holds; a shared template is
//! a `T: Send + Sync`, only read, and dropped once, with its restorer.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use super::plan::{Cursor, Plan};
use crate::engine::erased::{Boxed, Dispose, Erased, dispose, drop_boxed};

/// Makes an object with `create`, on the heap, in a frame of its own: a
/// large struct (600 KiB inline) then takes one copy's worth of stack, for
/// the duration of this call, and none in the caller's frame (the same care
/// as the pool's create path, for threads with small stacks).
#[inline(never)]
pub fn boxed<T>(create: fn() -> T) -> Made<T> {
    Made(ManuallyDrop::new(crate::engine::erased::boxed_with(create)))
}

/// An object [`boxed`] made.
pub struct Made<T>(ManuallyDrop<Boxed<T>>);

impl<T> Made<T> {
    /// The box, which the caller now drops.
    fn into_boxed(self) -> Boxed<T> {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so the box is taken once, here.
        unsafe { ManuallyDrop::take(&mut this.0) }
    }
}

impl<T> Drop for Made<T> {
    fn drop(&mut self) {
        // SAFETY: `drop` runs once and nothing uses the field after it.
        drop_boxed(unsafe { ManuallyDrop::take(&mut self.0) });
    }
}

impl<T> std::fmt::Debug for Made<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Made")
    }
}

impl<T> std::ops::Deref for Made<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Made<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// Picks how the restorer reaches the template, by autoref specialisation
/// on `T: Sync`: `(&&Share::<T>::new()).restorer(..)`.
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

/// Copies the constructor's values back into an object of `T`: the slow
/// half of a derived reset, set up once per type by the derive's plan
/// ([`ShareTemplate::restorer`] or [`FreshTemplate::restorer`], the only
/// ways to make one).
///
/// Typed, so that a template can only be handed a restorer of its own `T`,
/// but holding only a `RawRestorer`: the object, the template and the
/// derive's per-field `restore` are reached through erased pointers, so
/// that neither the restorer's code nor the template's `OnceLock` is
/// compiled once per derived struct, as a `Box<dyn Fn(&mut T)>` behind
/// `Any` would be (docs/PERFORMANCE.md, "Compile cost of the derive").
pub struct Restorer<T> {
    pub(super) raw: RawRestorer,
    _type: PhantomData<fn(&mut T)>,
}

impl<T> std::fmt::Debug for Restorer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Restorer")
            .field("plan", &self.raw.plan)
            .finish_non_exhaustive()
    }
}

/// A [`Restorer`] without its type. Invariant: it was made as a
/// `Restorer<T>`, and every pointer it holds (the template) or is handed
/// (the object to restore) is to a `T` of that struct, whose `restore` it
/// holds.
pub(super) struct RawRestorer {
    plan: Plan,
    /// The derive's `restore` for the struct, erased ([`erase_restore`]).
    restore: RestoreFn,
    source: Source,
}

/// The derive's `fn(&mut T, &T, &mut Cursor)`, with the two objects as
/// erased pointers.
type RestoreFn = unsafe fn(NonNull<u8>, NonNull<u8>, &mut Cursor<'_>);

/// Where a restorer copies from.
enum Source {
    /// The template, one object shared by every thread (a `Sync` struct):
    /// a `Boxed<T>`, erased, dropped with `dispose` when the restorer is.
    Shared {
        template: Erased,
        dispose: Dispose<Erased>,
    },
    /// A struct that is not `Sync`: a fresh template for each restore,
    /// made, used with the `restore` it is handed and dropped by this.
    Fresh(Box<FreshFn>),
}

/// A [`Source::Fresh`]: makes a template, restores the object (the first
/// pointer) from it with the `restore` it is handed, and drops it.
type FreshFn = dyn Fn(NonNull<u8>, RestoreFn, &mut Cursor<'_>) + Send + Sync;

// SAFETY: a shared template is a `T: Send + Sync` (`ShareTemplate`'s
// bound), only read by restores on any thread, and dropped once, by the
// restorer's owner; the rest is plain data, fn pointers and a `Send + Sync`
// closure.
unsafe impl Send for RawRestorer {}
// SAFETY: as above: `&RawRestorer` only reads the template.
unsafe impl Sync for RawRestorer {}

impl RawRestorer {
    /// A restorer from a shared `template`, or `None` (and the template
    /// dropped) if `plan` finds no field that differs.
    #[inline(never)]
    fn shared(
        template: Erased,
        dispose: Dispose<Erased>,
        plan: Plan,
        restore: RestoreFn,
    ) -> Option<RawRestorer> {
        if !plan.any() {
            // SAFETY: `dispose` is the template's (the caller's promise,
            // `ShareTemplate::restorer`).
            unsafe { dispose(template) };
            return None;
        }
        Some(RawRestorer {
            plan,
            restore,
            source: Source::Shared { template, dispose },
        })
    }

    /// Restores `value` from the template.
    ///
    /// # Safety
    ///
    /// `value` points to a live, exclusively borrowed `T` of the struct
    /// whose plan made this restorer.
    #[inline]
    pub(super) unsafe fn restore(&self, value: NonNull<u8>) {
        let mut cursor = self.plan.cursor();
        match &self.source {
            // SAFETY: `restore` is the struct's, `value` one of its objects
            // (the caller's promise), `template` another, alive as long as
            // `self`; the restore only reads it.
            Source::Shared { template, .. } => unsafe {
                (self.restore)(value, template.as_ptr(), &mut cursor);
            },
            Source::Fresh(fresh) => fresh(value, self.restore, &mut cursor),
        }
    }
}

impl Drop for RawRestorer {
    fn drop(&mut self) {
        if let Source::Shared { template, dispose } = &self.source {
            // SAFETY: the template is the restorer's, dropped once, here;
            // `Erased` has no destructor of its own, so the copy read out
            // is the only one that is used. `dispose` is its type's.
            unsafe { dispose(std::ptr::read(template)) };
        }
    }
}

/// The derive's `restore` of a struct, with its objects erased.
fn erase_restore<T>(restore: fn(&mut T, &T, &mut Cursor<'_>)) -> RestoreFn {
    // SAFETY: `&mut T` and `&T` (`T: Sized`) are ABI-compatible with
    // `NonNull<u8>` (the function pointer ABI rules of the `fn` primitive's
    // docs: pointers whose pointee types have the same metadata, here
    // none), and the rest of the signature is unchanged, so calling the
    // result is calling `restore`; `RawRestorer` calls it only with pointers
    // to `T`s, valid as the references it takes (its invariant).
    unsafe { std::mem::transmute::<fn(&mut T, &T, &mut Cursor<'_>), RestoreFn>(restore) }
}

/// A `Sync` struct keeps one template, shared by every thread.
pub trait ShareTemplate<T> {
    /// A restorer that copies from `template`, or `None` if `plan` finds
    /// no field that differs.
    fn restorer(
        &self,
        template: Made<T>,
        plan: Plan,
        restore: fn(&mut T, &T, &mut Cursor<'_>),
        create: fn() -> T,
    ) -> Option<Restorer<T>>;
}

impl<T: Send + Sync + 'static> ShareTemplate<T> for &Share<T> {
    fn restorer(
        &self,
        template: Made<T>,
        plan: Plan,
        restore: fn(&mut T, &T, &mut Cursor<'_>),
        _create: fn() -> T,
    ) -> Option<Restorer<T>> {
        // The objects' type is `T`, and `dispose::<T>` is what drops them.
        let raw = RawRestorer::shared(
            Erased::new(template.into_boxed()),
            dispose::<T>,
            plan,
            erase_restore(restore),
        )?;
        Some(Restorer {
            raw,
            _type: PhantomData,
        })
    }
}

/// A struct that is not `Sync` cannot share its template across threads,
/// so each restore makes a fresh one.
pub trait FreshTemplate<T> {
    /// A restorer that copies from a new object each time, or `None` if
    /// `plan` finds no field that differs.
    fn restorer(
        &self,
        template: Made<T>,
        plan: Plan,
        restore: fn(&mut T, &T, &mut Cursor<'_>),
        create: fn() -> T,
    ) -> Option<Restorer<T>>;
}

impl<T: 'static> FreshTemplate<T> for Share<T> {
    fn restorer(
        &self,
        template: Made<T>,
        plan: Plan,
        restore: fn(&mut T, &T, &mut Cursor<'_>),
        create: fn() -> T,
    ) -> Option<Restorer<T>> {
        if !plan.any() {
            return None;
        }
        drop(template);
        let fresh = move |value: NonNull<u8>, restore: RestoreFn, cursor: &mut Cursor<'_>| {
            let template = boxed(create);
            // SAFETY: `restore` is the struct's (`erase_restore` below),
            // `value` one of its objects (`RawRestorer::restore`'s promise),
            // and the template a live `T`, only read.
            unsafe { restore(value, NonNull::from(&*template).cast(), cursor) };
        };
        Some(Restorer {
            raw: RawRestorer {
                plan,
                restore: erase_restore(restore),
                source: Source::Fresh(Box::new(fresh)),
            },
            _type: PhantomData,
        })
    }
}
