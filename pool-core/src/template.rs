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

use std::any::Any;
use std::marker::PhantomData;

use crate::padded::Boxed;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// The flag's states.
const UNKNOWN: u8 = 0;
const CLEAN: u8 = 1;
const RESTORE: u8 = 2;

/// Copies the constructor's values back into an object: the slow half of a
/// derived reset, set up once per type.
pub type Restorer<T> = Box<dyn Fn(&mut T) + Send + Sync>;

/// How a derived struct's reset reaches its constructor's values: one
/// `static` per derived struct (see the module docs).
pub struct Template<T: 'static> {
    state: AtomicU8,
    /// The `Restorer<T>`, behind `Any` so that the `OnceLock`'s code is
    /// compiled once, not once per derived struct (`crate::padded` says
    /// why that matters).
    restore: OnceLock<Box<dyn Any + Send + Sync>>,
    _type: PhantomData<fn(&mut T)>,
}

impl<T: 'static> Template<T> {
    /// A template that has not looked at the constructor yet.
    #[must_use]
    pub const fn new() -> Self {
        Template {
            state: AtomicU8::new(UNKNOWN),
            restore: OnceLock::new(),
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
        self.state.load(Ordering::Relaxed) == CLEAN
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
        if self.state.load(Ordering::Acquire) == UNKNOWN {
            match plan() {
                None => {
                    self.state.store(CLEAN, Ordering::Relaxed);
                    clear(value);
                    return;
                }
                Some(restorer) => {
                    // Another thread may have planned too; both plans are
                    // the same, the first one stays.
                    let _ = self.restore.set(Box::new(restorer));
                    self.state.store(RESTORE, Ordering::Release);
                }
            }
        }
        match self.restore.get() {
            Some(restore) => {
                let restore: &(dyn Any + Send + Sync) = &**restore;
                debug_assert!(restore.is::<Restorer<T>>());
                // SAFETY: the only value ever set is a `Restorer<T>`
                // (above), so the `dyn Any` points to one; the cast drops
                // the vtable and keeps the data pointer. Not
                // `downcast_ref`: its type check cost the restore 14
                // instructions in `scripts/callgrind.sh`.
                let restore = unsafe { &*std::ptr::from_ref(restore).cast::<Restorer<T>>() };
                restore(value);
            }
            // `RESTORE` is stored only after `restore` is set.
            None => unreachable!("a template in state RESTORE has its restorer"),
        }
    }
}

impl<T: 'static> std::fmt::Debug for Template<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.state.load(Ordering::Relaxed) {
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
    Made(crate::padded::boxed_with(create))
}

/// An object [`boxed`] made.
pub struct Made<T>(Boxed<T>);

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
        if !plan.any() {
            return None;
        }
        Some(Box::new(move |value: &mut T| {
            restore(value, &template, &mut plan.cursor());
        }))
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
        Some(Box::new(move |value: &mut T| {
            restore(value, &boxed(create), &mut plan.cursor());
        }))
    }
}
