//! Field types that are not `Clone` but whose contents are: a `Mutex`, an
//! `RwLock`, a `Cell`, an atomic. The template restores such a field
//! through its contents, as it does a `Clone` field: [`Contents`] reaches
//! them through `&mut` (no lock taken, no atomic operation), and two kinds
//! of `plan` (`ContentsEq`, `ContentsCopied`) compare and copy them.
//!
//! | kind | the field's type | `reset` | differs from its reset value |
//! |---|---|---|---|
//! | `ContentsEq` | [`Contents`] of a `Reset + Clone + PartialEq + Sync` type | the contents' `Reset` | if a reset copy of the template's contents is unequal to them |
//! | `ContentsCopied` | [`Contents`] of a `Clone + Sync` type | nothing | always |
//!
//! A wrapper of a type that is not `Clone` (or not `Sync`) has no contents
//! kind: it is `Trusted` (its `Reset`) as before.
//!
//! Invariant: the probe records a pointer to the template's contents,
//! taken through `&mut` while the probe borrows the template alone; after
//! it nothing writes the template, so the restores read the contents
//! through that pointer with no lock, from any thread at once, which the
//! `Sync` bound on the contents makes sound.

use std::cell::Cell;
use std::sync::atomic::{
    AtomicBool, AtomicI8, AtomicI16, AtomicI32, AtomicI64, AtomicIsize, AtomicU8, AtomicU16,
    AtomicU32, AtomicU64, AtomicUsize,
};
use std::sync::{Mutex, PoisonError, RwLock};

/// A field type whose contents the template copies back: what it holds,
/// reached through an exclusive borrow.
pub trait Contents {
    /// What the wrapper holds.
    type Inner;

    /// The contents. A lock's poison is cleared: its reset or restore
    /// discards whatever a panicking thread left half-done, as a new lock
    /// has none.
    fn contents(&mut self) -> &mut Self::Inner;
}

/// The impls, each `[params] Wrapper => Inner, |wrapper| its contents`.
macro_rules! impl_contents {
    ($([$($params:tt)*] $t:ty => $inner:ty, |$this:ident| $get:expr;)*) => {$(
        impl<$($params)*> Contents for $t {
            type Inner = $inner;

            #[inline]
            fn contents(&mut self) -> &mut $inner {
                let $this = self;
                $get
            }
        }
    )*};
}

impl_contents! {
    [T] Mutex<T> => T, |m| { m.clear_poison(); m.get_mut().unwrap_or_else(PoisonError::into_inner) };
    [T] RwLock<T> => T, |l| { l.clear_poison(); l.get_mut().unwrap_or_else(PoisonError::into_inner) };
    [T] Cell<T> => T, |c| c.get_mut();
    // Restored by value: the template's is read as a plain value (nothing
    // writes it), the object's written through `get_mut`.
    [] AtomicBool => bool, |a| a.get_mut();
    [] AtomicI8 => i8, |a| a.get_mut();
    [] AtomicI16 => i16, |a| a.get_mut();
    [] AtomicI32 => i32, |a| a.get_mut();
    [] AtomicI64 => i64, |a| a.get_mut();
    [] AtomicIsize => isize, |a| a.get_mut();
    [] AtomicU8 => u8, |a| a.get_mut();
    [] AtomicU16 => u16, |a| a.get_mut();
    [] AtomicU32 => u32, |a| a.get_mut();
    [] AtomicU64 => u64, |a| a.get_mut();
    [] AtomicUsize => usize, |a| a.get_mut();
}
