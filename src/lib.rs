//! The workspace's own package: it owns the examples, and is never
//! published. Its library holds the support code the examples, the
//! integration tests (the `pool-tests` package, `tests/`), the HTTP
//! examples (`examples/http`) and the benches (`benches/`) share, written
//! once: [`alloc`], the
//! counting global allocator; [`census`], objects that count themselves;
//! [`child`], a test run in a child process. It also runs the repository
//! README's examples as doctests.

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod alloc;
pub mod census;
pub mod child;

/// The repository README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
