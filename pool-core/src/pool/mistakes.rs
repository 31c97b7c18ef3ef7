//! What the compile errors of two common mistakes are made of: calling
//! `acquire` on a pool's recipe ([`NotAPool`]), and a `pool!` whose
//! constructor captures ([`NoPool`]). Reached by generated code through
//! `__private`; not public API.
//!
//! Invariant: nothing here runs. An [`Unpoolable`] cannot be made, so the
//! methods that would hand one out are never called in a program that
//! compiled.

/// What the stub `acquire` of a derived struct that cannot be pooled (a
/// field is not `Send`) returns, next to the derive's error: it derefs to
/// the struct, so the user's code type-checks and adds no errors of its
/// own. It has no values.
pub struct Unpoolable<T> {
    never: std::convert::Infallible,
    _type: std::marker::PhantomData<T>,
}

impl<T> std::fmt::Debug for Unpoolable<T> {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.never {}
    }
}

impl<T> std::ops::Deref for Unpoolable<T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self.never {}
    }
}

impl<T> std::ops::DerefMut for Unpoolable<T> {
    fn deref_mut(&mut self) -> &mut T {
        match self.never {}
    }
}

/// What [`pool!`](crate::pool!) declares in place of a pool it refused (a
/// capturing constructor), next to its error: `POOL.acquire()` still
/// type-checks, so the program's uses add no errors of their own.
pub struct NoPool<T>(std::marker::PhantomData<fn() -> T>);

impl<T> NoPool<T> {
    /// The stand-in.
    #[must_use]
    pub const fn new() -> Self {
        NoPool(std::marker::PhantomData)
    }

    /// Never called: the program does not compile.
    pub fn acquire(&self) -> Unpoolable<T> {
        unreachable!("`pool!` refused this pool with a compile error")
    }
}

impl<T> Default for NoPool<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> std::fmt::Debug for NoPool<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NoPool")
    }
}

/// The bound of [`PoolConfig::acquire`](crate::PoolConfig), implemented for
/// nothing: its only use is the message of the error that a call to it
/// gets.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is the recipe for a pool, not a pool, so it has nothing to acquire",
    label = "a `PoolConfig`, not a pool",
    note = "declare a static pool with `pool! {{ static POOL: Pool<T> = Pool::new(..).capacity(..); }}` and call `POOL.acquire()`, or make one at run time with `Pool::builder(..).capacity(..).build()` and call `.acquire()` on that"
)]
pub trait NotAPool {}
