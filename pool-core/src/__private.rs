//! Items used by the code that [`pool!`](crate::pool!) and
//! `#[derive(Poolable)]` generate. Not public API: anything here may change
//! in any release.
//!
//! [`ResetPart`] and [`CreateDefault`] add nothing at run time: each
//! forwards to one standard method and is inlined away (as does
//! [`ResetField`], the bound of a field with neither `Reset` nor `Clone`). They exist so that a
//! mistake in a derived struct is reported on the offending field, in the
//! derive's own words (`#[diagnostic::on_unimplemented]`), rather than as a
//! bare trait bound: when a blanket impl's bound fails for the same type,
//! rustc reports the trait that was asked for (ours) with its message, not
//! the inner bound. [`MaxCapacity`] is the run-time half of
//! `#[pool(max_capacity = N)]`, with a diagnostic of its own.

use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hash};

use crate::ReuseVec;
use crate::reset::Reset;

pub use crate::engine::cache::ThreadCache;
pub use crate::pool::config::{NoPool, NotAPool, Unpoolable};
pub use crate::pool::guard::{Home, Released};
pub use crate::pool::release;
pub use crate::pool::runtime::generic::{Generic, generic_acquire, generic_pool};
pub use crate::pool::state::PoolState;
pub use crate::pool::template::{
    Access, CloneEq, CloneOnly, Contents, ContentsCopied, ContentsEq, Copied, KindCloneEq,
    KindCloneOnly, KindContentsCopied, KindContentsEq, KindCopied, KindTrusted, KindUnresettable,
    LockedTemplate, Pass, Probe, ResetField, Share, ShareTemplate, Template, Trusted, Unresettable,
};

use crate::Pool;
use crate::pool::config::PoolConfig;
use crate::sync::LocalKey;

/// Names the item type of a `Pool<T>`, so that [`pool!`](crate::pool!) can
/// accept the pool's type however the user spells it.
pub trait PoolType {
    /// The `T` of `Pool<T>`.
    type Item;
}

impl<T: Reset + Send + 'static> PoolType for Pool<T> {
    type Item = T;
}

/// Whether a derived struct is `Send`, picked by method resolution:
/// `(&&SendProbe::<Request>::new()).send_kind()` is [`Sendable`] if it is
/// (by its fields, or by an `unsafe impl Send` of the user's), else
/// [`Unsendable`], whose `field::<F>()` asks each field's type for `Send`
/// ([`SendField`]), at the field. The derive makes these calls in a
/// closure in the constant that [`Checked`] takes, so a field that is not
/// `Send` is one error, at the field, in the derive's words, and fails the
/// constant.
pub struct SendProbe<T: ?Sized>(std::marker::PhantomData<fn(&T)>);

impl<T: ?Sized> SendProbe<T> {
    /// The probe of `T`.
    #[must_use]
    pub const fn new() -> Self {
        SendProbe(std::marker::PhantomData)
    }
}

impl<T: ?Sized> Default for SendProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: ?Sized> std::fmt::Debug for SendProbe<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SendProbe")
    }
}

/// [`SendProbe`] of a `Send` type (one `&` more than [`ProbeNotSend`]'s
/// impl, so method resolution tries it first).
pub trait ProbeSend {
    /// [`Sendable`].
    fn send_kind(&self) -> Sendable {
        Sendable
    }
}

impl<T: Send + ?Sized> ProbeSend for &SendProbe<T> {}

/// [`SendProbe`] of any other type.
pub trait ProbeNotSend {
    /// [`Unsendable`].
    fn send_kind(&self) -> Unsendable {
        Unsendable
    }
}

impl<T: ?Sized> ProbeNotSend for SendProbe<T> {}

/// A derived struct that is `Send`: its fields are not asked.
#[derive(Debug, Clone, Copy)]
pub struct Sendable;

impl Sendable {
    /// Nothing to check.
    pub fn field<F: ?Sized>(self) {}
}

/// A derived struct that is not `Send`: each field's type is asked, so the
/// ones that are not are reported.
#[derive(Debug, Clone, Copy)]
pub struct Unsendable;

impl Unsendable {
    /// `F` must be `Send`.
    pub fn field<F: SendField + ?Sized>(self) {}
}

/// `Send`, with the derive's message for a field whose type is not.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `Send`, so a struct with a field of this type cannot derive `Poolable`",
    label = "this field is not `Send`",
    note = "a pooled object may be released on one thread and acquired on another, so a type that derives `Poolable` must be `Send`: make `{Self}` `Send` (for example an `Arc` in place of an `Rc`), or keep the value out of the pooled struct"
)]
pub trait SendField {}

// Not recommended: a field that is not `Send` is reported as this trait's
// message, rather than as `Send` failing inside this impl.
#[diagnostic::do_not_recommend]
impl<T: Send + ?Sized> SendField for T {}

/// A derived struct as its pool's static names it:
/// `<Request as Checked<[(); CHECK]>>::Type`, where `CHECK` is the constant
/// whose evaluation checks that every field is `Send`. `Request` itself,
/// once `CHECK` is evaluated; if a field is not `Send`, `CHECK` failed with
/// the derive's error at the field, and the type is an error type, on which
/// rustc reports nothing more (rather than one error per bound of the
/// pool's items that needs `Send`).
pub trait Checked<C> {
    /// `Self`.
    type Type;
}

impl<T, C> Checked<C> for T {
    type Type = T;
}

/// The body of a derived struct's fallback `acquire`: a call, cheaper to
/// compile in every derived struct than `unreachable!()`. Never called: the
/// fallback applies only to a program that does not compile.
#[must_use]
pub fn unpoolable<T>() -> Unpoolable<T> {
    unreachable!("a derived struct's fallback `acquire` applies only next to a compile error")
}

/// The bound of a derived struct's fallback `acquire`, implemented for
/// nothing: it holds only when it names a failed check (an error), so the
/// user's `T::acquire()` finds the fallback only next to the check's error.
pub trait Failed {}

/// Builds the pool `pool!` declares, from its recipe, its statics and its
/// release.
///
/// # Safety
///
/// The returned pool must be the initializer of a `static`: its guards
/// point to it and hold nothing (`crate::pool::declare`'s invariant).
pub const unsafe fn finish<T: Reset + Send + 'static>(
    (config, (local, state)): (
        PoolConfig<T>,
        (&'static LocalKey<ThreadCache>, &'static PoolState<T>),
    ),
    release: fn(std::ptr::NonNull<Home<T>>, Released<T>),
) -> Pool<T> {
    // SAFETY: the caller's promise.
    unsafe { Pool::from_parts(config, local, state, release) }
}

/// `std::thread_local!`, for generated code in crates that are
/// `#![no_std]` and link std through a dependency (`::std` does not resolve
/// there).
pub use std::thread_local;

/// The template of a generic derived struct's pool: a `static` cannot be
/// generic, so the template of `Frame<T>` lives in the state of
/// `Frame::<T>::pool()`, one per instantiation.
#[inline]
pub fn template_of<T: Reset + Send + 'static>(pool: &'static Pool<T>) -> &'static Template {
    &pool.state.template
}

/// Resets one field of a `#[derive(Reset)]` part: how that derive calls
/// [`Reset::reset`], so that a field type without `Reset` is reported at
/// the field, in its words (a part has no constructor to copy a value
/// from, as `#[derive(Poolable)]`'s `ResetField` does).
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `Reset`, so `#[derive(Reset)]` cannot reset this field",
    label = "this field's type does not implement `Reset`",
    note = "a part has no constructor: its reset state is each field's; add `#[pool(default)]` to set the field to `Default::default()`, `#[pool(reset = path)]` to reset it with a function or `#[pool(skip)]` to keep it, or implement `Reset` for `{Self}`"
)]
pub trait ResetPart {
    /// [`Reset::reset`].
    fn reset_part(&mut self);
}

// Not recommended: a field type without `Reset` is reported as this
// trait's message alone (see `ResetField`).
#[diagnostic::do_not_recommend]
impl<T: Reset + ?Sized> ResetPart for T {
    #[allow(
        clippy::inline_always,
        reason = "a forwarding shim: it costs nothing over calling `reset` directly"
    )]
    #[inline(always)]
    fn reset_part(&mut self) {
        self.reset();
    }
}

/// A derived struct's field's bytes, as its type's [`Reset`] counts and
/// shrinks them: `HeapOf::<Field>::HEAP`, `HeapOf::<Field>::bytes(&mut
/// field)`. For a type without `Reset` (a `Clone`-only or `default` field)
/// the inherent items do not apply and [`HeapFallback`]'s do: no heap
/// reported, nothing measured, nothing shrunk.
pub struct HeapOf<T: ?Sized>(std::marker::PhantomData<T>);

impl<T: Reset + ?Sized> HeapOf<T> {
    /// `T::HEAP`.
    pub const HEAP: crate::Heap = T::HEAP;

    /// `sum` and [`Reset::heap_bytes`] of `value`: the derived sum, one
    /// field at a time (wrapping: no overflow check compiled per field).
    #[allow(
        clippy::inline_always,
        reason = "a forwarding shim: it costs nothing over calling `heap_bytes` directly"
    )]
    #[inline(always)]
    pub fn bytes(value: &mut T, sum: usize) -> usize {
        sum.wrapping_add(value.heap_bytes())
    }

    /// `kept` and what [`Reset::shrink_to_bytes`] keeps of `value` within
    /// what `max` leaves after `kept`: the derived shrink, one field at a
    /// time. Never inlined: a shrink is a release's cold path, so each
    /// field type's is compiled once in a crate and called from every
    /// derived struct with a field of that type, with no arithmetic of its
    /// own.
    #[inline(never)]
    pub fn shrink(value: &mut T, max: usize, kept: usize) -> usize {
        kept + value.shrink_to_bytes(max.saturating_sub(kept))
    }
}

/// [`HeapOf`]'s items for a field type without `Reset`: it counts as its
/// size only (inline in the struct).
pub trait HeapFallback {
    /// Nothing reported.
    const HEAP: crate::Heap = crate::Heap::None;

    /// Nothing measured.
    #[allow(
        clippy::inline_always,
        reason = "a constant 0, folded into the derived sum"
    )]
    #[inline(always)]
    fn bytes<U: ?Sized>(_: &mut U, sum: usize) -> usize {
        sum
    }

    /// Nothing shrunk.
    #[inline]
    fn shrink<U: ?Sized>(_: &mut U, _: usize, kept: usize) -> usize {
        kept
    }
}

impl<T: ?Sized> HeapFallback for HeapOf<T> {}

impl<T: ?Sized> std::fmt::Debug for HeapOf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HeapOf")
    }
}

/// Makes a new object of a derived struct that has no `#[pool(new = path)]`,
/// with `Default`: the bound that tells the user both ways out when missing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` needs a constructor for `#[derive(Poolable)]`",
    label = "`{Self}` does not implement `Default`",
    note = "derive or implement `Default` for `{Self}`, or name a constructor with `#[pool(new = path)]` (a `fn() -> {Self}`)"
)]
pub trait CreateDefault: Sized {
    /// [`Default::default`].
    fn create_default() -> Self;
}

impl<T: Default> CreateDefault for T {
    #[allow(
        clippy::inline_always,
        reason = "a forwarding shim: it costs nothing over calling `default` directly"
    )]
    #[inline(always)]
    fn create_default() -> Self {
        T::default()
    }
}

/// Shrinks a buffer whose capacity exceeds a bound: the run-time half of a
/// field's `#[pool(max_capacity = N)]`.
#[diagnostic::on_unimplemented(
    message = "`#[pool(max_capacity = ...)]` needs a type with a capacity, and `{Self}` has none",
    label = "`{Self}` has no capacity to bound",
    note = "`max_capacity` applies to `String`, `Vec`, `VecDeque`, `HashMap`, `HashSet`, `BinaryHeap` and `ReuseVec` fields; remove it from this field"
)]
pub trait MaxCapacity {
    /// If the capacity is above `max`, shrinks it to (about) `max`; an
    /// in-bounds buffer is left alone, allocation and all.
    fn shrink_past(&mut self, max: usize);
}

macro_rules! impl_max_capacity {
    ($([$($params:tt)*] $t:ty),* $(,)?) => {
        $(
            impl<$($params)*> MaxCapacity for $t {
                #[inline]
                fn shrink_past(&mut self, max: usize) {
                    if self.capacity() > max {
                        self.shrink_to(max);
                    }
                }
            }
        )*
    };
}

impl_max_capacity!(
    [] String,
    [T] Vec<T>,
    [T] VecDeque<T>,
    [K: Eq + Hash, V, S: BuildHasher] HashMap<K, V, S>,
    [T: Eq + Hash, S: BuildHasher] HashSet<T, S>,
    [T: Ord] BinaryHeap<T>,
);

/// A `ReuseVec`'s bound is on the elements it keeps, each with its own
/// buffers, and then on its own buffer (`ReuseVec::shrink_kept_to`).
impl<T> MaxCapacity for ReuseVec<T> {
    #[inline]
    fn shrink_past(&mut self, max: usize) {
        self.shrink_kept_to(max);
    }
}

#[cfg(test)]
mod tests {
    use super::MaxCapacity;
    use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};

    #[test]
    fn shrink_past_shrinks_only_buffers_above_the_bound() {
        let mut big: Vec<u8> = Vec::with_capacity(4096);
        big.shrink_past(64);
        assert!(big.capacity() >= 64 && big.capacity() < 4096);

        let mut small: Vec<u8> = Vec::with_capacity(32);
        let ptr = small.as_ptr();
        small.shrink_past(64);
        assert_eq!(small.as_ptr(), ptr, "an in-bounds buffer is kept");
        assert_eq!(small.capacity(), 32);
    }

    #[test]
    fn shrink_past_covers_every_collection_with_a_capacity() {
        let mut string = String::with_capacity(1024);
        let mut deque: VecDeque<u8> = VecDeque::with_capacity(1024);
        let mut map: HashMap<u8, u8> = HashMap::with_capacity(1024);
        let mut set: HashSet<u8> = HashSet::with_capacity(1024);
        let mut heap: BinaryHeap<u8> = BinaryHeap::with_capacity(1024);
        let mut kept: crate::ReuseVec<String> = vec![String::new(); 1024].into();
        kept.clear();
        string.shrink_past(16);
        deque.shrink_past(16);
        map.shrink_past(16);
        set.shrink_past(16);
        heap.shrink_past(16);
        kept.shrink_past(16);
        assert!(string.capacity() < 1024);
        assert!(deque.capacity() < 1024);
        assert!(map.capacity() < 1024);
        assert!(set.capacity() < 1024);
        assert!(heap.capacity() < 1024);
        assert_eq!(kept.kept(), 16);
        assert!(kept.capacity() < 1024);
    }
}
