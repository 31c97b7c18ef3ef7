//! What a derived struct's plan records of each plain field, and how its
//! restore walks the record: [`Plan`] and [`Cursor`]; and [`Probe`], which
//! picks for each field type, at compile time, how the field is reset and
//! whether it is copied back from the template: one of five kinds, from the
//! most capable down.
//!
//! | kind | the field's type | `reset` | differs from its reset value |
//! |---|---|---|---|
//! | [`CloneEq`] | `Reset + Clone + PartialEq` | its `Reset` | if a reset copy of the template's value is unequal to it |
//! | [`CloneOnly`] | `Reset + Clone` | its `Reset` | always (it cannot be compared) |
//! | [`Copied`] | `Clone`, no `Reset` | nothing | always: it has no reset value, only the constructor's |
//! | [`Trusted`] | `Reset`, not `Clone` | its `Reset` | never: it cannot be copied |
//! | [`Unresettable`] | neither | a compile error at the field | |
//!
//! Invariant: a plan holds one entry per plain field, in field order, and a
//! cursor yields them in that order; an entry says "differs" only for a
//! field whose type is `Clone`, so a trusted field is never copied; and a
//! field whose type has no `Reset` always differs, so it is always copied.

// The kinds' methods are the reset's per-field statements: free, also
// unoptimised, as the plain calls they replace.
#![allow(
    clippy::inline_always,
    reason = "forwarding shims, free also unoptimised"
)]

use std::marker::PhantomData;

use crate::reset::Reset;

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

/// Resets one field of a `#[derive(Poolable)]` struct: the bound of
/// [`Unresettable::reset`], so that a field type with neither `Reset` nor
/// `Clone` is reported at the field, with the ways out.
#[diagnostic::on_unimplemented(
    message = "`{Self}` implements neither `Reset` nor `Clone`, so `#[derive(Poolable)]` cannot reset this field",
    label = "this field's type implements neither `Reset` nor `Clone`",
    note = "derive or implement `Clone` for `{Self}` (the derive then copies the constructor's value back into the field), or implement `Reset` for it; or add `#[pool(reset = path)]` or `#[pool(skip)]` to the field (`#[pool(default)]` sets `Default::default()`, which a reused object then holds even where the constructor gives another value)"
)]
pub trait ResetField {
    /// [`Reset::reset`].
    fn reset_field(&mut self);
}

impl<T: Reset + ?Sized> ResetField for T {
    #[inline(always)]
    fn reset_field(&mut self) {
        self.reset();
    }
}

/// Picks, for one field type, how the template handles it, by autoref
/// specialisation in the derive's output: `(&&&&&Probe::of(&field)).kind()`
/// resolves to the most capable kind that the type implements (the
/// module's table). Five `&`: one more than the top kind's impl, which is
/// for `&&&&Probe<F>`, as `kind` takes `&self`. The field types are concrete in the generated code (or
/// bounded by the struct's where clause), so the choice is made at compile
/// time.
pub struct Probe<F: ?Sized>(PhantomData<fn(&F)>);

impl<F: ?Sized> std::fmt::Debug for Probe<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Probe")
    }
}

impl<F: ?Sized> Probe<F> {
    /// The probe of `field`'s type.
    #[inline(always)]
    #[must_use]
    pub fn of(_field: &F) -> Self {
        Probe(PhantomData)
    }
}

/// A `Reset + Clone + PartialEq` field: compared, copied back when it
/// differs.
#[derive(Debug, Clone, Copy)]
pub struct CloneEq;
/// A `Reset + Clone` field without `PartialEq`: always copied back.
#[derive(Debug, Clone, Copy)]
pub struct CloneOnly;
/// A `Clone` field without `Reset`: always copied back, never reset.
#[derive(Debug, Clone, Copy)]
pub struct Copied;
/// A `Reset` field that is not `Clone`: its `Reset` is trusted.
#[derive(Debug, Clone, Copy)]
pub struct Trusted;
/// A field with neither: its `reset` is a compile error at the field.
#[derive(Debug, Clone, Copy)]
pub struct Unresettable;

/// The choice for `Reset + Clone + PartialEq` field types.
pub trait KindCloneEq {
    /// [`CloneEq`].
    #[inline(always)]
    fn kind(&self) -> CloneEq {
        CloneEq
    }
}
impl<F: Reset + Clone + PartialEq> KindCloneEq for &&&&Probe<F> {}

/// The choice for `Reset + Clone` field types.
pub trait KindCloneOnly {
    /// [`CloneOnly`].
    #[inline(always)]
    fn kind(&self) -> CloneOnly {
        CloneOnly
    }
}
impl<F: Reset + Clone> KindCloneOnly for &&&Probe<F> {}

/// The choice for `Clone` field types without `Reset`.
pub trait KindCopied {
    /// [`Copied`].
    #[inline(always)]
    fn kind(&self) -> Copied {
        Copied
    }
}
impl<F: Clone> KindCopied for &&Probe<F> {}

/// The choice for `Reset` field types that are not `Clone`.
pub trait KindTrusted {
    /// [`Trusted`].
    #[inline(always)]
    fn kind(&self) -> Trusted {
        Trusted
    }
}
impl<F: Reset + ?Sized> KindTrusted for &Probe<F> {}

/// The choice for every other field type.
pub trait KindUnresettable {
    /// [`Unresettable`].
    #[inline(always)]
    fn kind(&self) -> Unresettable {
        Unresettable
    }
}
impl<F: ?Sized> KindUnresettable for Probe<F> {}

/// Resets a field with its type's `Reset`: the kinds that have one.
macro_rules! reset_by_reset {
    ($($kind:ident),*) => {$(
        impl $kind {
            /// Resets the field with its type's [`Reset`].
            #[inline(always)]
            pub fn reset<F: Reset + ?Sized>(self, field: &mut F) {
                field.reset();
            }
        }
    )*};
}

reset_by_reset!(CloneEq, CloneOnly, Trusted);

/// Restores a field that has a `Reset` and is `Clone`: copied back from
/// the template where the plan says the constructor's value differs, else
/// reset. One copy per field type, not inlined into each struct's
/// `restore`, which is then one call per field (docs/PERFORMANCE.md,
/// "Compile cost of the derive").
macro_rules! restore_by_copy_or_reset {
    ($($kind:ident),*) => {$(
        impl $kind {
            /// Copies `template` into `field` (into the buffers `field`
            /// has) if the plan says it differs, else resets `field`.
            #[inline(never)]
            pub fn restore<F: Reset + Clone>(self, field: &mut F, template: &F, cursor: &mut Cursor<'_>) {
                if cursor.differs() {
                    field.clone_from(template);
                } else {
                    field.reset();
                }
            }
        }
    )*};
}

restore_by_copy_or_reset!(CloneEq, CloneOnly);

impl CloneEq {
    /// Records whether `template` (the constructor's value) differs from
    /// its reset value: a copy of it, reset.
    // Once per field type, not inlined into each struct's plan: a plan
    // runs once per struct.
    #[inline(never)]
    pub fn probe<F: Reset + Clone + PartialEq>(self, plan: &mut Plan, template: &F) {
        let mut cleared = template.clone();
        cleared.reset();
        plan.differs.push(*template != cleared);
    }
}

impl CloneOnly {
    /// Records that the field differs: without `PartialEq` it cannot be
    /// told apart from its reset value, so it is always copied back.
    #[inline]
    pub fn probe<F: ?Sized>(self, plan: &mut Plan, _template: &F) {
        plan.differs.push(true);
    }
}

impl Copied {
    /// Nothing: the field has no reset of its own, and the plan says it
    /// differs, so its restore copies it instead.
    #[inline(always)]
    pub fn reset<F: ?Sized>(self, _field: &mut F) {}

    /// Copies `template` into `field`: the plan says it differs, always.
    #[inline(never)]
    pub fn restore<F: Clone>(self, field: &mut F, template: &F, cursor: &mut Cursor<'_>) {
        if cursor.differs() {
            field.clone_from(template);
        }
    }

    /// Records that the field differs: its only value is the
    /// constructor's, copied back on every reset.
    #[inline]
    pub fn probe<F: ?Sized>(self, plan: &mut Plan, _template: &F) {
        plan.differs.push(true);
    }
}

impl Trusted {
    /// Records that the field's reset is trusted: it is never copied.
    #[inline]
    pub fn probe<F: ?Sized>(self, plan: &mut Plan, _template: &F) {
        plan.differs.push(false);
    }

    /// Resets the field with its type's [`Reset`]: the plan says a trusted
    /// field never differs.
    #[inline]
    pub fn restore<F: Reset + ?Sized>(self, field: &mut F, _template: &F, cursor: &mut Cursor<'_>) {
        let _ = cursor.differs();
        field.reset();
    }
}

impl Unresettable {
    /// A compile error at the field, from its bound ([`ResetField`]'s
    /// message): a type with `Reset` would have been [`Trusted`].
    #[inline(always)]
    pub fn reset<F: ResetField + ?Sized>(self, field: &mut F) {
        field.reset_field();
    }

    /// Records nothing that matters: the field's `reset` does not compile.
    #[inline]
    pub fn probe<F: ?Sized>(self, plan: &mut Plan, _template: &F) {
        plan.differs.push(false);
    }

    /// Nothing, and no bound: the field's `reset` in the plain reset is
    /// the one compile error for it.
    #[inline]
    pub fn restore<F: ?Sized>(self, _field: &mut F, _template: &F, cursor: &mut Cursor<'_>) {
        let _ = cursor.differs();
    }
}

#[cfg(test)]
mod tests {
    use super::{KindCloneEq, KindCloneOnly, KindCopied, KindTrusted, KindUnresettable, Probe};
    use crate::reset::Reset;

    /// `Reset + Clone`, without `PartialEq`.
    #[derive(Clone)]
    struct NoEq;
    impl Reset for NoEq {
        fn reset(&mut self) {}
    }

    /// `Clone + PartialEq` without `Reset`, as an enum of the user's.
    #[derive(Clone, PartialEq)]
    enum Mode {
        Read,
    }

    /// Neither.
    struct Opaque;

    fn kind_name<K>(_: K) -> &'static str {
        std::any::type_name::<K>()
            .rsplit("::")
            .next()
            .unwrap_or_default()
    }

    // The regression: with one `&` too few every `Reset + Clone +
    // PartialEq` field was taken for `CloneOnly`, always copied back, and
    // no constructor was ever clean.
    #[test]
    #[allow(
        clippy::needless_borrow,
        reason = "autoref specialisation: the borrows pick the kind"
    )]
    fn each_field_type_gets_the_most_capable_kind_it_implements() {
        let mode = Mode::Read;
        assert!(matches!(mode, Mode::Read));
        let kinds = [
            kind_name((&&&&&Probe::of(&0u64)).kind()),
            kind_name((&&&&&Probe::of(&Vec::<u8>::new())).kind()),
            kind_name((&&&&&Probe::of(&NoEq)).kind()),
            kind_name((&&&&&Probe::of(&mode)).kind()),
            kind_name((&&&&&Probe::of(&std::sync::Mutex::new(1u8))).kind()),
            kind_name((&&&&&Probe::of(&Opaque)).kind()),
        ];
        assert_eq!(
            kinds,
            [
                "CloneEq",
                "CloneEq",
                "CloneOnly",
                "Copied",
                "Trusted",
                "Unresettable"
            ]
        );
    }
}
