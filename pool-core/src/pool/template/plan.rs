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

use super::contents::Contents;
use crate::reset::Reset;

/// The plan of one struct's restore: for each plain field, in field
/// order, where the template's value of it is if the constructor's value
/// differs from the reset one (the field is copied back from there), or
/// `None` (the field is reset).
pub(super) type Plan = Vec<Option<NonNull<u8>>>;

/// One pass of a derived struct's fields (the derive's `__pool_fields`):
/// [`Pass::clear`] resets each field, as a reset does; a probe, once per
/// struct, records in a `Plan` which of the template's fields differ
/// from a reset copy of themselves, and changes nothing; a restore copies
/// those fields back from the template and resets the others.
#[derive(Debug)]
pub struct Pass<'a>(pub(super) Mode<'a>);

/// What a pass does: a reset, a probe that fills a plan, or the restore a
/// plan says how to do.
#[derive(Debug)]
pub(super) enum Mode<'a> {
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

    /// The one step of a plain field the template may copy back (a `Clone`
    /// field, or a wrapper's contents): in a probe, records the template's
    /// `field` as copied back if `differs` says so; in a restore, copies it
    /// back from the template if the plan says so. Whether the field is
    /// done: if not (a reset, or a field the restore does not copy), the
    /// caller resets it. In a restore its type is the one the probe
    /// recorded at the same place (`Template::restore`'s promise), and the
    /// template is alive and unchanged while this pass runs
    /// (`RawRestorer`'s invariant).
    #[inline]
    fn copy<F: Clone>(&mut self, field: &mut F, differs: impl FnOnce(&F) -> bool) -> bool {
        match &mut self.0 {
            Mode::Clear => false,
            Mode::Probe(plan) => {
                let copied = differs(field).then(|| NonNull::from(&*field).cast());
                plan.push(copied);
                true
            }
            Mode::Restore(copies) => {
                let Some(from) = copies.next().copied().flatten() else {
                    return false;
                };
                // SAFETY: a pointer to the template's value of this field,
                // an `F` (above), only read, by this thread alone unless `F`
                // is in a `Sync` struct (the restorer's lock) or is the
                // `Sync` contents of a wrapper (`contents`' kinds).
                field.clone_from(unsafe { from.cast::<F>().as_ref() });
                true
            }
        }
    }

    /// The step of a plain field never copied back: in a probe, records it
    /// so; whether to reset it (in a reset or a restore).
    #[inline]
    fn uncopied(&mut self) -> bool {
        match &mut self.0 {
            Mode::Probe(plan) => {
                plan.push(None);
                false
            }
            Mode::Restore(copies) => {
                let _ = copies.next();
                true
            }
            Mode::Clear => true,
        }
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

/// Declares the kinds, each a unit struct whose `reset` handles the field,
/// and the trait that picks it, implemented for the rung of the autoref
/// ladder (`$probe`) of the field types it takes (`[$bounds]`); and the
/// kind's `reset` on those types, `|field, pass| body`, unless written out
/// (`Unresettable`'s, whose bound is the field's error message).
macro_rules! kinds {
    () => {};
    ($(#[$doc:meta])* $kind:ident, $choice:ident for $probe:ty [$($bounds:tt)*]
        $(#[$reset_doc:meta])* |$field:ident, $pass:ident| $body:expr; $($rest:tt)*) => {
        impl $kind {
            $(#[$reset_doc])*
            #[inline]
            pub fn reset<F>(self, $field: &mut F, $pass: &mut Pass<'_>) where F: ?Sized, $($bounds)* {
                $body
            }
        }

        kinds!($(#[$doc])* $kind, $choice for $probe [$($bounds)*]; $($rest)*);
    };
    ($(#[$doc:meta])* $kind:ident, $choice:ident for $probe:ty [$($bounds:tt)*]; $($rest:tt)*) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $kind;

        #[doc = concat!("The choice of [`", stringify!($kind), "`], for the field types below.")]
        pub trait $choice {
            #[doc = concat!("[`", stringify!($kind), "`].")]
            #[inline]
            fn kind(&self) -> $kind {
                $kind
            }
        }

        impl<F: ?Sized> $choice for $probe where $($bounds)* {}

        kinds!($($rest)*);
    };
}

kinds! {
    /// A `Reset + Clone + PartialEq` field: compared, copied back when it
    /// differs.
    CloneEq, KindCloneEq for &&&&&&Probe<F> [F: Reset + Clone + PartialEq]
        /// Resets the field with its type's [`Reset`]; in a probe, records
        /// whether a reset copy of it is unequal to it; in a restore, copies
        /// it back if it is.
        |field, pass| if pass.is_clear() { field.reset() } else { pass_eq(field, pass) };
    /// A `Reset + Clone` field without `PartialEq`: always copied back.
    CloneOnly, KindCloneOnly for &&&&&Probe<F> [F: Reset + Clone]
        /// Resets the field with its type's [`Reset`]; in a probe, records
        /// that it differs: without `PartialEq` it cannot be told apart from
        /// its reset value, so it is always copied back.
        |field, pass| if !pass.copy(field, |_| true) { field.reset() };
    /// A `Clone` field without `Reset`: always copied back, never reset.
    Copied, KindCopied for &&&&Probe<F> [F: Clone]
        /// Nothing: the field has no reset of its own. In a probe, records
        /// that it differs: its only value is the constructor's, copied back
        /// on every reset.
        |field, pass| { let _ = pass.copy(field, |_| true); };
    /// A wrapper of `Reset + Clone + PartialEq + Sync` contents: compared,
    /// copied back when they differ (`contents`).
    ContentsEq, KindContentsEq for &&&Probe<F> [F: Contents<Inner: Reset + Clone + PartialEq + Sync>]
        /// Resets the contents with their [`Reset`]; in a probe, records
        /// whether a reset copy of them is unequal to them; in a restore,
        /// copies them back if so.
        |field, pass| {
            let contents = field.contents();
            if pass.is_clear() { contents.reset() } else { pass_eq(contents, pass) }
        };
    /// A wrapper of `Clone + Sync` contents without `Reset` or `PartialEq`:
    /// always copied back (`contents`).
    ContentsCopied, KindContentsCopied for &&Probe<F> [F: Contents<Inner: Clone + Sync>]
        /// As [`Copied`] for the contents: always copied back from the
        /// template, never reset.
        |field, pass| Copied.reset(field.contents(), pass);
    /// A `Reset` field that is not `Clone`: its `Reset` is trusted.
    Trusted, KindTrusted for &Probe<F> [F: Reset]
        /// Resets the field with its type's [`Reset`], which is trusted: a
        /// probe records that it never differs.
        |field, pass| if pass.uncopied() { field.reset() };
    /// A field with neither: its `reset` is a compile error at the field.
    Unresettable, KindUnresettable for Probe<F> [];
}

/// [`CloneEq::reset`] in a probe or a restore (and `ContentsEq`'s, for
/// the contents). Once per field type, not inlined into each struct's
/// pass.
#[inline(never)]
pub(super) fn pass_eq<F: Reset + Clone + PartialEq>(field: &mut F, pass: &mut Pass<'_>) {
    let differs = |field: &F| {
        let mut cleared = field.clone();
        cleared.reset();
        *field != cleared
    };
    if !pass.copy(field, differs) {
        field.reset();
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
    use super::{
        KindCloneEq, KindCloneOnly, KindContentsCopied, KindContentsEq, KindCopied, KindTrusted,
        KindUnresettable, Probe,
    };
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
