//! `#[derive(Poolable)]` for `pool-core`. Use it through `pool_core::Poolable`;
//! this crate is not meant to be a dependency of its own. The derive's
//! reference (each attribute, with an example and the error its misuse
//! gives) is the documentation of `pool_core::Poolable`, where the examples
//! can run: a proc-macro crate cannot depend on the runtime its code calls.
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations, unreachable_pub)]

// The derive runs in stages, one module each: `attr` reads the
// `#[pool(...)]` attributes into typed slots, `ast` pairs them with the
// borrowed syn tree, `valid` checks what spans several keys or the item's
// shape, and `expand` generates the code, or `fallback` the errors and a
// stub. Every stage records its errors in one `ctxt::Ctxt`, so the user sees
// all of them at once.

mod ast;
mod attr;
mod ctxt;
mod expand;
mod fallback;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

use crate::ast::Derive;

/// `#[derive(Poolable)]` is implemented in `pool-derive`, a proc-macro crate,
/// and documented on its re-export in `pool-core`, `pool_core::Poolable`
/// (feature `derive`, on by default): every `#[pool(...)]` attribute, with an
/// example that runs as a doctest there and the error its misuse gives.
// rustdoc appends this to the re-export's docs, under the last heading of
// `pool-core/derive.md`: keep it a paragraph that reads well on both pages.
#[proc_macro_derive(Poolable, attributes(pool))]
pub fn derive_poolable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, Derive::Poolable).into()
}

/// `#[derive(Reset)]` is implemented in `pool-derive` and documented on its
/// re-export in `pool-core`, `pool_core::Reset` (feature `derive`): the
/// field-by-field reset of a struct that is a part of a pooled object,
/// with the field attributes of `#[derive(Poolable)]`.
// rustdoc appends this to the re-export's docs, under the last heading of
// `pool-core/derive_reset.md`.
#[proc_macro_derive(Reset, attributes(pool))]
pub fn derive_reset(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, Derive::Reset).into()
}
