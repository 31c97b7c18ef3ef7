//! What a derived struct's plan records of each plain field, and how its
//! restore walks the record: [`Plan`] and [`Cursor`]; and [`Probe`], which
//! picks for each field type, at compile time, whether the field is
//! compared ([`CloneEq`]), always copied back ([`CloneOnly`]) or trusted
//! ([`Trusted`]).
//!
//! Invariant: a plan holds one entry per plain field, in field order, and a
//! cursor yields them in that order; an entry says "differs" only for a
//! field whose type is `Clone`, so a trusted field is never copied.

use std::marker::PhantomData;

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
    pub(super) fn any(&self) -> bool {
        self.differs.iter().any(|&d| d)
    }

    /// A cursor at the first field, for one restore.
    pub(super) fn cursor(&self) -> Cursor<'_> {
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
