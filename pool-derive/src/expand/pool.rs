//! The body of the derived `Poolable::pool`: the pool the struct's objects
//! come from, with the struct's `capacity`, `thread_capacity` and
//! `reset_on`.
//!
//! Invariant: a struct without parameters has one pool, a `static` that
//! `pool!` declares and `pools()` lists under the struct's name; a generic
//! struct, which cannot have a `static`, has one pool per instantiation,
//! made on first use and found by its type (`__private::generic_pool`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::Path;

use crate::ast::Input;
use crate::attr::ResetOn;

/// What `pool()` returns: `&__POOL`, the struct's `static`, or for a
/// generic struct its instantiation's pool.
pub(super) fn body(krate: &Path, input: &Input<'_>) -> TokenStream {
    let ident = &input.original.ident;
    let generic = !input.original.generics.params.is_empty();
    let capacity = input.attrs.capacity.as_ref().map(|set| {
        let count = &set.value;
        quote!(.capacity(#count))
    });
    let thread_capacity = input.attrs.thread_capacity.as_ref().map(|set| {
        let count = &set.value;
        quote!(.thread_capacity(#count))
    });
    let reset_on = input
        .attrs
        .reset_on
        .as_ref()
        .filter(|set| set.value == ResetOn::Acquire)
        .map(|_| quote!(.reset_on_acquire()));
    let config = quote! {
        #krate::Pool::new(<Self as #krate::Poolable>::create)
            #capacity
            #thread_capacity
            #reset_on
    };
    if generic {
        // A `static` cannot be generic: each instantiation's pool is made
        // at run time on first use, and found by its type.
        quote! { #krate::__private::generic_pool::<Self>(|| #config) }
    } else {
        quote! {
            #krate::pool! {
                @named ::core::stringify!(#ident) =>
                static __POOL: #krate::Pool<#ident> =
                    #krate::Pool::new(<#ident as #krate::Poolable>::create)
                        #capacity
                        #thread_capacity
                        #reset_on;
            }
            &__POOL
        }
    }
}
