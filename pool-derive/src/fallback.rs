//! What the derive emits when the input has errors: the errors, plus stub
//! `Reset` and `Poolable` impls. Without the stubs every `T::acquire()` in
//! the user's crate would add an error of its own ("`Poolable` is not
//! implemented"), burying the real one.
//!
//! A struct with a field that is not `Send` cannot implement `Poolable` at
//! all, stub or not (its supertrait `Send` fails): it gets an inherent
//! `acquire` instead, returning an uninhabited guard that derefs to the
//! struct, so the user's `T::acquire()` calls and field accesses still
//! type-check and add no error. `#[derive(Reset)]` gets the `Reset` stub
//! alone.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, Path, parse_quote};

use crate::ast::Derive;
use crate::valid::Findings;

pub(crate) fn expand(
    input: &DeriveInput,
    derive: Derive,
    krate: &Path,
    error: &syn::Error,
    findings: &Findings,
) -> TokenStream {
    let error = error.to_compile_error();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let reset = quote! {
        #[automatically_derived]
        impl #impl_generics #krate::Reset for #ident #ty_generics #where_clause {
            fn reset(&mut self) {}
        }
    };
    let poolable = if derive == Derive::Reset {
        TokenStream::new()
    } else if findings.not_send {
        quote! {
            #[automatically_derived]
            impl #impl_generics #ident #ty_generics #where_clause {
                #[allow(dead_code)]
                fn acquire() -> #krate::__private::Unpoolable<Self> {
                    ::core::unreachable!()
                }
            }
        }
    } else {
        // A generic stub must still meet `Poolable`'s supertraits, which the
        // type parameters may not; a concrete type is left to the usual errors.
        let mut poolable_generics = input.generics.clone();
        if !poolable_generics.params.is_empty() {
            poolable_generics
                .make_where_clause()
                .predicates
                .push(parse_quote!(Self: ::core::marker::Send + 'static));
        }
        let poolable_where = &poolable_generics.where_clause;
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::Poolable for #ident #ty_generics #poolable_where {
                fn create() -> Self {
                    ::core::unreachable!()
                }

                fn pool() -> &'static #krate::Pool<Self> {
                    ::core::unreachable!()
                }
            }
        }
    };
    quote! {
        #error
        const _: () = {
            #reset
            #poolable
        };
    }
}
