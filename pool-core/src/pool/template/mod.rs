//! [`Template`]: what lets a derived reset give back what the constructor
//! made, not just what each field's [`Reset`] makes.
//!
//! A derived struct's reset first needs to know, once per type, whether its
//! constructor makes anything a plain reset would not: `retries: 3` where
//! the reset gives `0`, `Some("default")` where it gives `None`. It finds
//! out on the first reset, from two objects the constructor makes: one it
//! keeps as the template, one it resets field by field and compares with it
//! ([`Probe`]). If every field agrees, the constructor is *clean* and each
//! reset is the plain field-by-field one, behind one relaxed load of a
//! flag. Otherwise each reset copies the fields that differ back from the
//! template with `clone_from`, which writes into the buffers the field
//! already has (no allocation once they are large enough), and resets the
//! others as before.
//!
//! A field takes part when its type is `Clone`: it differs when its
//! template and reset values are unequal (`PartialEq`), or, for a type
//! without `PartialEq`, always. A field whose type is not `Clone` cannot be
//! copied back, so its `Reset` is trusted; `#[pool(reset = path)]` is the
//! way out for such a field.
//!
//! The template is shared by every thread, so it must be `Sync`. A struct
//! that is not (it holds a `Cell`) and whose constructor is not clean makes
//! a fresh template on each reset instead: correct, and as costly as the
//! constructor.
//!
//! Invariant: once [`Template::reset`] has returned, the flag is `CLEAN`
//! only if the constructor's output equals a reset object field by field
//! as far as `PartialEq` can tell; and every reset, clean or not, leaves
//! each `Clone` field equal to the constructor's value.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use crate::engine::erased::{Boxed, Dispose, Erased, dispose, drop_boxed};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// The flag's states.
const UNKNOWN: u8 = 0;
const CLEAN: u8 = 1;
const RESTORE: u8 = 2;

/// How a derived struct's reset reaches its constructor's values: one
/// `static` per derived struct (see the module docs).
///
/// Generic over the struct almost only in name: what it holds and does is
/// the same for every struct (a `RawTemplate`, holding a `RawRestorer`),
/// compiled once in pool-core; what is the struct's own is the derive's
/// per-field functions (`clear`, `restore`, `plan`), which it is handed,
/// and the one call of `plan`.
pub struct Template<T: 'static> {
    raw: RawTemplate,
    _type: PhantomData<fn(&mut T)>,
}

/// A [`Template`] without its type.
struct RawTemplate {
    state: AtomicU8,
    /// Set, once, when the plan finds a field that differs: the
    /// `Restorer<T>` of the template's `T`, without its type.
    restore: OnceLock<RawRestorer>,
}

impl<T: 'static> Template<T> {
    /// A template that has not looked at the constructor yet.
    #[must_use]
    pub const fn new() -> Self {
        Template {
            raw: RawTemplate {
                state: AtomicU8::new(UNKNOWN),
                restore: OnceLock::new(),
            },
            _type: PhantomData,
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
    #[inline(always)]
    pub fn is_clean(&self) -> bool {
        // Relaxed: `CLEAN` publishes no data, only that `clear` is enough.
        self.raw.state.load(Ordering::Relaxed) == CLEAN
    }

    /// Resets `value` when [`Template::is_clean`] says the plain reset may
    /// not be enough: the first time, finds out with `plan` (which compares
    /// the constructor's output with a reset object), then resets with
    /// `clear` if the constructor is clean, else with the restorer `plan`
    /// made.
    #[inline]
    pub fn restore(
        &'static self,
        value: &mut T,
        clear: fn(&mut T),
        plan: fn() -> Option<Restorer<T>>,
    ) {
        let restorer = if self.raw.state.load(Ordering::Acquire) == UNKNOWN {
            self.plan(plan)
        } else {
            // `RESTORE` is stored (with `Release`) only after `restore` is
            // set; under `CLEAN` it is never set.
            self.raw.restore.get()
        };
        match restorer {
            // SAFETY: the only restorer this template holds is a
            // `Restorer<T>` for this `T` (`Template::plan`), which restores
            // `T`s; `value` is one, borrowed exclusively for the call.
            Some(restorer) => unsafe { restorer.restore(NonNull::from(value).cast()) },
            // Clean, or found clean by another thread since `is_clean`.
            None => clear(value),
        }
    }

    /// Runs `plan` and keeps its restorer, if any: the first reset's slow
    /// path. The one part of the template compiled per struct, and small.
    #[cold]
    #[inline(never)]
    fn plan(&'static self, plan: fn() -> Option<Restorer<T>>) -> Option<&'static RawRestorer> {
        self.raw.planned(plan().map(|restorer| restorer.raw))
    }
}

impl RawTemplate {
    /// Records what the plan found: clean (`None`), or the restorer, which
    /// is returned.
    #[inline(never)]
    fn planned(&'static self, restorer: Option<RawRestorer>) -> Option<&'static RawRestorer> {
        match restorer {
            None => {
                self.state.store(CLEAN, Ordering::Relaxed);
                None
            }
            Some(restorer) => {
                // Another thread may have planned too; both plans are the
                // same, the first one stays.
                let _ = self.restore.set(restorer);
                self.state.store(RESTORE, Ordering::Release);
                self.restore.get()
            }
        }
    }
}

impl<T: 'static> std::fmt::Debug for Template<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.raw.state.load(Ordering::Relaxed) {
            UNKNOWN => "unknown",
            CLEAN => "clean",
            _ => "restore",
        };
        f.debug_struct("Template").field("state", &state).finish()
    }
}

impl<T: 'static> Default for Template<T> {
    fn default() -> Self {
        Self::new()
    }
}

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

/// The plan of one struct's restore: which fields differ from their reset
/// value in the constructor's output, in field order.
#[derive(Debug, Default)]
pub struct Plan {
    differs: Vec<bool>,
}

impl Plan {
    /// An empty plan, to be filled by one `probe` call per field, in field
    /// order.
    #[must_use]
    pub fn new() -> Self {
        Plan::default()
    }

    /// Whether any field differs.
    fn any(&self) -> bool {
        self.differs.iter().any(|&d| d)
    }

    /// A cursor at the first field, for one restore.
    fn cursor(&self) -> Cursor<'_> {
        Cursor(self.differs.iter())
    }
}

/// Walks a [`Plan`] during one restore: one `restore` call per field, in
/// the order the fields were probed.
#[derive(Debug)]
pub struct Cursor<'a>(std::slice::Iter<'a, bool>);

impl Cursor<'_> {
    /// Whether the next plain field differs from its reset value in the
    /// constructor's output.
    #[inline]
    pub fn differs(&mut self) -> bool {
        self.0.next().copied().unwrap_or(false)
    }
}

/// Picks, for one field type, how the template handles it, by autoref
/// specialisation in the derive's output: `(&&&Probe::of(&field)).kind()`
/// resolves to the most capable of [`CloneEq`], [`CloneOnly`] and
/// [`Trusted`] that the type implements. The field types are concrete in
/// the generated code, so the choice is made at compile time.
pub struct Probe<F: ?Sized>(PhantomData<fn(&F)>);

impl<F: ?Sized> std::fmt::Debug for Probe<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Probe")
    }
}

impl<F: ?Sized> Probe<F> {
    /// The probe of `field`'s type.
    #[must_use]
    pub fn of(_field: &F) -> Self {
        Probe(PhantomData)
    }
}

/// A `Clone + PartialEq` field: compared, copied back when it differs.
#[derive(Debug, Clone, Copy)]
pub struct CloneEq;
/// A `Clone` field without `PartialEq`: always copied back.
#[derive(Debug, Clone, Copy)]
pub struct CloneOnly;
/// Any other field: its `Reset` is trusted.
#[derive(Debug, Clone, Copy)]
pub struct Trusted;

/// The choice for `Clone + PartialEq` field types.
pub trait KindCloneEq {
    /// [`CloneEq`].
    fn kind(&self) -> CloneEq {
        CloneEq
    }
}
impl<F: Clone + PartialEq> KindCloneEq for &&Probe<F> {}

/// The choice for `Clone` field types.
pub trait KindCloneOnly {
    /// [`CloneOnly`].
    fn kind(&self) -> CloneOnly {
        CloneOnly
    }
}
impl<F: Clone> KindCloneOnly for &Probe<F> {}

/// The choice for every other field type.
pub trait KindTrusted {
    /// [`Trusted`].
    fn kind(&self) -> Trusted {
        Trusted
    }
}
impl<F: ?Sized> KindTrusted for Probe<F> {}

impl CloneEq {
    /// Records whether `template` (the constructor's value) and `cleared`
    /// (a reset one) differ.
    // Once per field type, not inlined into each struct's plan: a plan
    // runs once per struct.
    #[inline(never)]
    pub fn probe<F: Clone + PartialEq>(self, plan: &mut Plan, template: &F, cleared: &F) {
        plan.differs.push(template != cleared);
    }

    /// Copies `template` into `field`, into the buffers `field` has.
    #[inline]
    pub fn copy<F: Clone>(self, field: &mut F, template: &F) {
        field.clone_from(template);
    }
}

impl CloneOnly {
    /// Records that the field differs: without `PartialEq` it cannot be
    /// told apart from its reset value, so it is always copied back.
    // Once per field type, not inlined into each struct's plan: a plan
    // runs once per struct.
    #[inline(never)]
    pub fn probe<F: Clone>(self, plan: &mut Plan, _template: &F, _cleared: &F) {
        plan.differs.push(true);
    }

    /// Copies `template` into `field`, as [`CloneEq::copy`] does.
    #[inline]
    pub fn copy<F: Clone>(self, field: &mut F, template: &F) {
        CloneEq.copy(field, template);
    }
}

impl Trusted {
    /// Records that the field's reset is trusted: [`Trusted::copy`] is
    /// never called.
    // Once per field type, not inlined into each struct's plan: a plan
    // runs once per struct.
    #[inline(never)]
    pub fn probe<F: ?Sized>(self, plan: &mut Plan, _template: &F, _cleared: &F) {
        plan.differs.push(false);
    }

    /// Never called: the plan says a trusted field does not differ, so the
    /// derived restore resets it instead.
    #[inline]
    pub fn copy<F: ?Sized>(self, _field: &mut F, _template: &F) {}
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
/// compiled once per derived struct (as a `Box<dyn Fn(&mut T)>` behind
/// `Any`, some 300 LLVM IR lines and a third of the machine code of every
/// derived struct).
pub struct Restorer<T> {
    raw: RawRestorer,
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
struct RawRestorer {
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
    unsafe fn restore(&self, value: NonNull<u8>) {
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
