//! The check that a derived struct is `Send`, reported at the fields that
//! are not, and the gate that keeps the rest of the expansion quiet when
//! the check fails.
//!
//! A field of a type that hides something not `Send` (a struct of the
//! user's holding an `Rc`; `valid` reports the `Rc`s it can see by name)
//! makes the struct not `Send`, and each place of the expansion that names
//! `Pool<Session>`, `Poolable` or their bounds would be an error of its own
//! (13 for one such field). Instead:
//!
//! ```text
//! const __POOL_CORE_SEND: usize = {
//!     // Type-checked with the constant, never called. The kind is
//!     // `Sendable` if `Session` is `Send` (by its fields, or by an
//!     // `unsafe impl Send` of the user's), and its `field` asks nothing;
//!     // else `Unsendable`, whose `field` asks `Send` of the field's type,
//!     // in the derive's words, at the field: one error per field that is
//!     // not `Send`, and the constant fails.
//!     let _ = || {
//!         let __pool_core_kind = (&&SendProbe::<Session>::new()).send_kind();
//!         __pool_core_kind.field::<String>();
//!         __pool_core_kind.field::<Counter>();
//!     };
//!     0
//! };
//! // The pool's static names the struct through the constant: a failed
//! // constant makes it an error type, on which rustc reports nothing more.
//! static __POOL: Pool<<Session as Checked<[(); __POOL_CORE_SEND]>>::Type> = ...;
//! // `Poolable` assumes that the struct is `Send` (`for<'a>`: rustc checks
//! // a bound that names no parameter at the impl, unless it has a binder);
//! // the reset's restore, which needs `Send`, names it through the check.
//! impl Poolable for Session where for<'__pool_core> Session: Send { ... }
//! impl Reset for Session { ... restore::<<Session as Checked<..>>::Type>(..) ... }
//! // The user's `Session::acquire()` finds this one only after a failed
//! // check (its bound then names an error, which holds), and type-checks.
//! // Not in rustdoc's build, where `[Session::acquire]` must find the trait's.
//! #[cfg(not(doc))]
//! impl Session where for<'__pool_core> <Session as Checked<[(); __POOL_CORE_SEND]>>::Type: Failed {
//!     fn acquire() -> Unpoolable<Self> { unpoolable() }
//! }
//! ```
//!
//! The message is `SendField`'s, the same for every field: the error is at
//! the field, which the compiler shows. A trait per field, declared here
//! with a message that names the field, would not compile in a crate
//! without the prelude (`#![no_implicit_prelude]` takes the `diagnostic`
//! attribute namespace away).
//!
//! A generic struct is left as it was: a constant cannot name its
//! parameters, it has no static, and its impls are bounded by `Self: Send`,
//! so an instantiation that is not `Send` is an error where it is used.
//!
//! Invariant: when the struct is `Send`, the checked type is the struct
//! itself and the fallback `acquire` does not apply, so the output is the
//! same program as without the check (types only: nothing of it runs).

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::Path;
use syn::spanned::Spanned;

use super::at;
use super::reset::unself;
use crate::ast::{Field, Input};

/// The constant whose evaluation is the check.
const CHECK: &str = "__POOL_CORE_SEND";

/// What the check adds to a derived struct's expansion; nothing for a
/// generic struct.
pub(super) struct SendCheck<'a> {
    /// The struct, for one without parameters.
    ident: Option<&'a syn::Ident>,
}

impl<'a> SendCheck<'a> {
    pub(super) fn new(input: &Input<'a>) -> Self {
        let original = input.original;
        SendCheck {
            ident: original
                .generics
                .params
                .is_empty()
                .then_some(&original.ident),
        }
    }

    /// The constant and the fallback `acquire`: items of the `const _`
    /// block.
    pub(super) fn items(&self, krate: &Path, fields: &[Field<'_>]) -> TokenStream {
        let Some(ident) = self.ident else {
            return TokenStream::new();
        };
        let check = format_ident!("{CHECK}");
        let fields = fields.iter().map(|field| {
            // At the field's type, so the error points there. `Self` (in
            // `next: Option<Box<Self>>`) does not resolve in a constant.
            let ty = unself(field.ty.to_token_stream(), &ident.to_token_stream());
            quote_spanned!(at(field.ty.span())=> __pool_core_kind.field::<#ty>();)
        });
        let checked = self.checked(krate);
        quote! {
            // The calls are in a closure, type-checked with the constant
            // but never called: method resolution picks whether the fields
            // are asked for `Send`, and a constant may not call trait
            // methods.
            const #check: usize = {
                let _ = || {
                    #[allow(unused_imports)]
                    use #krate::__private::{ProbeNotSend as _, ProbeSend as _};
                    let __pool_core_kind =
                        (&&#krate::__private::SendProbe::<#ident>::new()).send_kind();
                    #(#fields)*
                };
                0
            };
            // What the user's `T::acquire()` finds when the struct is not
            // `Send` (and only then: the bound holds for no type), so that
            // the call, and the uses of what it returns, add no error to
            // the fields'. Not in rustdoc's build: an inherent `acquire`,
            // even one that never applies, is what an intra-doc link
            // `[Session::acquire]` in the user's docs would resolve to (a
            // private item, so a broken link), not `Poolable::acquire`.
            #[cfg(not(doc))]
            impl #ident where for<'__pool_core> #checked: #krate::__private::Failed {
                #[allow(dead_code)]
                fn acquire() -> #krate::__private::Unpoolable<Self> {
                    #krate::__private::unpoolable()
                }
            }
        }
    }

    /// The bound of the `Poolable` impl: what the check asserts, assumed.
    pub(super) fn assumed(&self) -> Option<syn::WherePredicate> {
        let ident = self.ident?;
        Some(syn::parse_quote!(for<'__pool_core> #ident: ::core::marker::Send))
    }

    /// The struct as the pool's static and the reset's restore name it:
    /// through the check.
    pub(super) fn checked(&self, krate: &Path) -> TokenStream {
        let Some(ident) = self.ident else {
            return quote!(Self);
        };
        let check = format_ident!("{CHECK}");
        quote!(<#ident as #krate::__private::Checked<[(); #check]>>::Type)
    }
}
