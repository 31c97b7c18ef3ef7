//! What a derived struct's plan records of its plain fields, and the one
//! pass over them the derive generates (`__pool_fields`): [`Pass`], which
//! either resets each field or probes the template into a [`Plan`]; and
//! [`Probe`], which picks for each field type, at compile time, how the
//! field is reset and whether it is copied back from the template: one of
//! seven kinds, from the most capable down.
//!
//! | kind | the field's type | `reset` | differs from its reset value |
//! |---|---|---|---|
//! | [`CloneEq`] | `Reset + Clone + PartialEq` | its `Reset` | if a reset copy of the template's value is unequal to it |
//! | [`CloneOnly`] | `Reset + Clone` | its `Reset` | always (it cannot be compared) |
//! | [`Copied`] | `Clone`, no `Reset` | nothing | always: it has no reset value, only the constructor's |
//! | `ContentsEq`, `ContentsCopied` | not `Clone`, but its contents are (a `Mutex`, an atomic: `contents`) | as the first and third rows, for the contents | |
//! | [`Trusted`] | `Reset`, not `Clone` | its `Reset` | never: it cannot be copied |
//! | [`Unresettable`] | neither | a compile error at the field | |
//!
//! One pass serves the reset, the probe and the restore, so each field's
//! kind is picked once per struct, and a field's statement is one call
//! (docs/PERFORMANCE.md, "Compile cost of the derive").
//!
//! Invariant: a plan has one entry per plain field, in field order, and a
//! restore's pass yields them in that order; an entry points to the
//! template's value of its field only for a field of a `Clone` type, so a
//! trusted field is never copied; and a field whose type has no `Reset`
//! always points there, so it is always copied.

use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::reset::Reset;

/// The plan of one struct's restore: for each plain field, in field
/// order, where the template's value of it is if the constructor's value
/// differs from the reset one (the field is copied back from there), or
/// `None` (the field is reset).
#[derive(Debug, Default)]
pub(super) struct Plan {
    copies: Vec<Option<NonNull<u8>>>,
}

impl Plan {
    /// Whether any field differs.
    pub(super) fn any(&self) -> bool {
        self.copies.iter().any(Option::is_some)
    }
}

/// One pass of a derived struct's fields (the derive's `__pool_fields`):
/// [`Pass::clear`] resets each field, as a reset does; a probe, once per
/// struct, records in a `Plan` which of the template's fields differ
/// from a reset copy of themselves, and changes nothing; a restore copies
/// those fields back from the template and resets the others.
#[derive(Debug)]
pub struct Pass<'a>(Mode<'a>);

#[derive(Debug)]
enum Mode<'a> {
    Clear,
    Probe(&'a mut Plan),
    Restore(std::slice::Iter<'a, Option<NonNull<u8>>>),
}

impl Pass<'_> {
    /// The reset: each field reset as its kind says.
    #[inline]
    #[must_use]
    pub fn clear() -> Self {
        Pass(Mode::Clear)
    }

    /// Whether this pass resets the fields that are not plain (`skip`,
    /// `default`, `reset = path`, and `max_capacity`'s shrink): a probe
    /// leaves the template's alone.
    #[inline]
    #[must_use]
    pub fn resets(&self) -> bool {
        !matches!(self.0, Mode::Probe(_))
    }

    /// Whether this pass is the plain reset (no probe, no restore).
    #[inline]
    pub(super) fn is_clear(&self) -> bool {
        matches!(self.0, Mode::Clear)
    }

    /// In a restore, the template's value of the next plain field if it is
    /// copied back (else `None`, and in a reset or a probe).
    #[inline]
    fn source(&mut self) -> Option<NonNull<u8>> {
        match &mut self.0 {
            Mode::Restore(copies) => copies.next().copied().flatten(),
            Mode::Clear | Mode::Probe(_) => None,
        }
    }

    /// In a probe, records the next plain field, the template's `field`:
    /// copied back if `differs`. Nothing otherwise.
    #[inline]
    fn record<F>(&mut self, field: &F, differs: bool) {
        if let Mode::Probe(plan) = &mut self.0 {
            plan.copies
                .push(differs.then(|| NonNull::from(field).cast()));
        }
    }

    /// Passes the next plain field, one never copied back: in a probe,
    /// records it so; whether to reset it (in a reset or a restore).
    #[inline]
    fn uncopied(&mut self) -> bool {
        match &mut self.0 {
            Mode::Probe(plan) => {
                plan.copies.push(None);
                false
            }
            Mode::Restore(copies) => {
                let _ = copies.next();
                true
            }
            Mode::Clear => true,
        }
    }

    /// In a restore, copies the next plain field, `field`, back from the
    /// template if the plan says so: whether it did (else the caller
    /// resets it). Its type is the one the probe recorded at the same
    /// place (`Template::restore`'s promise), and the template is alive and
    /// unchanged while this pass runs (`RawRestorer`'s invariant).
    #[inline]
    fn copy_back<F: Clone>(&mut self, field: &mut F) -> bool {
        let Some(from) = self.source() else {
            return false;
        };
        // SAFETY: a pointer to the template's value of this field, an `F`
        // (above), only read, by this thread alone unless `F` is in a
        // `Sync` struct (the restorer's lock) or is the `Sync` contents of
        // a wrapper (`contents`' kinds).
        field.clone_from(unsafe { from.cast::<F>().as_ref() });
        true
    }
}

impl<'a> Pass<'a> {
    /// The probe that fills `plan`.
    pub(super) fn probe(plan: &'a mut Plan) -> Self {
        Pass(Mode::Probe(plan))
    }

    /// The restore `plan` says how to do.
    pub(super) fn restore_by(plan: &'a Plan) -> Self {
        Pass(Mode::Restore(plan.copies.iter()))
    }
}

/// Resets one field of a `#[derive(Poolable)]` struct: the bound of
/// [`Unresettable::reset`], so that a field type with neither `Reset` nor
/// `Clone` is reported at the field, with the ways out.
#[diagnostic::on_unimplemented(
    message = "`{Self}` implements neither `Reset` nor `Clone`, so `#[derive(Poolable)]` cannot reset this field",
    label = "this field's type implements neither `Reset` nor `Clone`",
    note = "derive `Reset` for the type (`#[derive(pool_core::Reset)]`, for an array or a tuple: for its elements' types) or implement `Reset` for it by hand; or derive `Clone` for it, and the field gets the constructor's value back; or give the field `#[pool(reset = path)]` or `#[pool(skip)]`"
)]
pub trait ResetField {
    /// [`Reset::reset`].
    fn reset_field(&mut self);
}

// Not recommended: a field type without `Reset` is reported as this
// trait's message alone, not followed by `Reset`'s and a list of the types
// that implement it.
#[diagnostic::do_not_recommend]
impl<T: Reset + ?Sized> ResetField for T {
    #[inline]
    fn reset_field(&mut self) {
        self.reset();
    }
}

/// Picks, for one field type, how the template handles it, by autoref
/// specialisation in the derive's output: `(&&&&&&&Probe::of(&field)).kind()`
/// resolves to the most capable kind that the type implements (the
/// module's table). Seven `&`: one more than the top kind's impl, which is
/// for `&&&&&&Probe<F>`, as `kind` takes `&self`. The field types are
/// concrete in the generated code (or bounded by the struct's where
/// clause), so the choice is made at compile time.
pub struct Probe<F: ?Sized>(PhantomData<fn(&F)>);

impl<F: ?Sized> std::fmt::Debug for Probe<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Probe")
    }
}

impl<F: ?Sized> Probe<F> {
    /// The probe of `field`'s type.
    #[inline]
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
    #[inline]
    fn kind(&self) -> CloneEq {
        CloneEq
    }
}
impl<F: Reset + Clone + PartialEq> KindCloneEq for &&&&&&Probe<F> {}

/// The choice for `Reset + Clone` field types.
pub trait KindCloneOnly {
    /// [`CloneOnly`].
    #[inline]
    fn kind(&self) -> CloneOnly {
        CloneOnly
    }
}
impl<F: Reset + Clone> KindCloneOnly for &&&&&Probe<F> {}

/// The choice for `Clone` field types without `Reset`.
pub trait KindCopied {
    /// [`Copied`].
    #[inline]
    fn kind(&self) -> Copied {
        Copied
    }
}
impl<F: Clone> KindCopied for &&&&Probe<F> {}

/// The choice for `Reset` field types that are not `Clone`.
pub trait KindTrusted {
    /// [`Trusted`].
    #[inline]
    fn kind(&self) -> Trusted {
        Trusted
    }
}
impl<F: Reset + ?Sized> KindTrusted for &Probe<F> {}

/// The choice for every other field type.
pub trait KindUnresettable {
    /// [`Unresettable`].
    #[inline]
    fn kind(&self) -> Unresettable {
        Unresettable
    }
}
impl<F: ?Sized> KindUnresettable for Probe<F> {}

impl CloneEq {
    /// Resets the field with its type's [`Reset`]; in a probe, records
    /// whether a reset copy of it is unequal to it; in a restore, copies it
    /// back if it is.
    #[inline]
    pub fn reset<F: Reset + Clone + PartialEq>(self, field: &mut F, pass: &mut Pass<'_>) {
        if let Mode::Clear = pass.0 {
            field.reset();
        } else {
            pass_eq(field, pass);
        }
    }
}

/// [`CloneEq::reset`] in a probe or a restore (and `ContentsEq`'s, for
/// the contents). Once per field type, not inlined into each struct's
/// pass.
#[inline(never)]
pub(super) fn pass_eq<F: Reset + Clone + PartialEq>(field: &mut F, pass: &mut Pass<'_>) {
    if let Mode::Probe(_) = pass.0 {
        let mut cleared = field.clone();
        cleared.reset();
        pass.record(field, *field != cleared);
    } else {
        if !pass.copy_back(field) {
            field.reset();
        }
    }
}

impl CloneOnly {
    /// Resets the field with its type's [`Reset`]; in a probe, records
    /// that it differs: without `PartialEq` it cannot be told apart from
    /// its reset value, so it is always copied back.
    #[inline]
    pub fn reset<F: Reset + Clone>(self, field: &mut F, pass: &mut Pass<'_>) {
        match pass.0 {
            Mode::Clear => field.reset(),
            Mode::Probe(_) => pass.record(field, true),
            Mode::Restore(_) => {
                if !pass.copy_back(field) {
                    field.reset();
                }
            }
        }
    }
}

impl Copied {
    /// Nothing: the field has no reset of its own. In a probe, records
    /// that it differs: its only value is the constructor's, copied back
    /// on every reset.
    #[inline]
    pub fn reset<F: Clone>(self, field: &mut F, pass: &mut Pass<'_>) {
        match pass.0 {
            Mode::Clear => {}
            Mode::Probe(_) => pass.record(field, true),
            Mode::Restore(_) => {
                let _ = pass.copy_back(field);
            }
        }
    }
}

impl Trusted {
    /// Resets the field with its type's [`Reset`], which is trusted: a
    /// probe records that it never differs.
    #[inline]
    pub fn reset<F: Reset + ?Sized>(self, field: &mut F, pass: &mut Pass<'_>) {
        if pass.uncopied() {
            field.reset();
        }
    }
}

impl Unresettable {
    /// A compile error at the field, from its bound ([`ResetField`]'s
    /// message): a type with `Reset` would have been [`Trusted`].
    #[inline]
    pub fn reset<F: ResetField + ?Sized>(self, field: &mut F, pass: &mut Pass<'_>) {
        if pass.uncopied() {
            field.reset_field();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::contents::{KindContentsCopied, KindContentsEq};
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
            kind_name((&&&&&&&Probe::of(&0u64)).kind()),
            kind_name((&&&&&&&Probe::of(&Vec::<u8>::new())).kind()),
            kind_name((&&&&&&&Probe::of(&NoEq)).kind()),
            kind_name((&&&&&&&Probe::of(&mode)).kind()),
            kind_name((&&&&&&&Probe::of(&std::sync::Mutex::new(1u8))).kind()),
            kind_name((&&&&&&&Probe::of(&std::sync::atomic::AtomicU32::new(1))).kind()),
            kind_name((&&&&&&&Probe::of(&std::cell::Cell::new(String::new()))).kind()),
            kind_name((&&&&&&&Probe::of(&std::sync::RwLock::new(mode.clone()))).kind()),
            // Contents that are not `Sync` are not read from the template
            // by several threads at once: trusted.
            kind_name((&&&&&&&Probe::of(&std::sync::Mutex::new(std::cell::Cell::new(1u8)))).kind()),
            kind_name((&&&&&&&Probe::of(&std::sync::Mutex::new(Opaque))).kind()),
            kind_name((&&&&&&&Probe::of(&Opaque)).kind()),
        ];
        assert_eq!(
            kinds,
            [
                "CloneEq",
                "CloneEq",
                "CloneOnly",
                "Copied",
                "ContentsEq",
                "ContentsEq",
                "ContentsEq",
                "ContentsCopied",
                "Trusted",
                "Unresettable",
                "Unresettable"
            ]
        );
    }
}
