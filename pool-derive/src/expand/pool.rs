//! The body of the derived `Poolable::pool`: the pool the struct's objects
//! come from, with the struct's `capacity`, `thread_capacity`, `retain`,
//! `name` and `reset_on`.
//!
//! Invariant: a struct without parameters has one pool, a `static` that
//! `pool!` declares and `pools()` lists under the struct's name; a generic
//! struct, which cannot have a `static`, has one pool per instantiation,
//! made on first use and found by its type (`__private::generic_pool`).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::Path;
use syn::spanned::Spanned;

use super::at;
use super::reset::unself;
use crate::ast::Input;
use crate::attr::ResetOn;

/// What `pool()` returns: `&__POOL`, the struct's `static`, or for a
/// generic struct its instantiation's pool; and for a generic struct, its
/// pool's configuration, `Generic::CONFIG` (empty for another). `checked`
/// is the struct as the static names it (see `send`).
pub(super) fn body(
    krate: &Path,
    input: &Input<'_>,
    checked: &TokenStream,
) -> (TokenStream, TokenStream) {
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
    let max_bytes = input.attrs.max_bytes.as_ref().map(|set| {
        let count = &set.value;
        quote!(.max_bytes(#count))
    });
    let calibrate = input.attrs.calibrate.as_ref().map(|set| {
        let calibrate = set.value;
        quote!(.calibrate(#calibrate))
    });
    let max_idle_bytes = input.attrs.max_idle_bytes.as_ref().map(|set| {
        let count = &set.value;
        quote!(.max_idle_bytes(#count))
    });
    let reset_on = input
        .attrs
        .reset_on
        .as_ref()
        .filter(|set| set.value == ResetOn::Acquire)
        .map(|_| quote!(.reset_on_acquire()));
    // Through a typed `let`, so a test of the wrong type is reported at the
    // path as "expected `fn(&Request) -> bool`". In the `static` (an item
    // of its own) `Self` does not resolve: the struct's name replaces it.
    let retain = input.attrs.retain.as_ref().map(|set| {
        let path = if generic {
            set.value.to_token_stream()
        } else {
            unself(set.value.to_token_stream(), &ident.to_token_stream())
        };
        let this = if generic {
            quote!(Self)
        } else {
            quote!(#ident)
        };
        quote_spanned! {at(set.value.span())=>
            .retain({
                let __pool_core_retain: fn(&#this) -> bool = #path;
                __pool_core_retain
            })
        }
    });
    let name = input.attrs.name.as_ref().map(|set| &set.value);
    let config = quote! {
        #krate::Pool::new(<Self as #krate::Poolable>::create)
            #capacity
            #thread_capacity
            #retain
            #reset_on
            #max_bytes
            #calibrate
            #max_idle_bytes
    };
    if generic {
        // A `static` cannot be generic: each instantiation's pool is made
        // at run time on first use, from the constant `config`, and found
        // by its type; it is named by its type unless `name` says otherwise.
        let name = match name {
            Some(name) => quote!(::core::option::Option::Some(#name)),
            None => quote!(::core::option::Option::None),
        };
        let body = quote! { #krate::__private::generic_pool::<Self>(#name) };
        (body, config)
    } else {
        let name = match name {
            Some(name) => quote!(#name),
            None => quote!(::core::stringify!(#ident)),
        };
        let body = quote! {
            // `@declare` with no check of its own: `checked` is the
            // struct through the derive's, the item type in one projection.
            #krate::pool! {
                @declare #name, [] [#checked] [#checked] =>
                static __POOL: #krate::Pool<#checked> =
                    #krate::Pool::new(<#checked as #krate::Poolable>::create)
                        #capacity
                        #thread_capacity
                        #retain
                        #reset_on
                        #max_bytes
                        #calibrate
                        #max_idle_bytes;
            }
            &__POOL
        };
        (body, TokenStream::new())
    }
}
