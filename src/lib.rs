//! The workspace's own package: it owns the examples, integration tests and
//! benches, and is never published. This library exists only so that the
//! repository README's examples run as doctests.

/// The repository README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
