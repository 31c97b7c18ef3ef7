//! What the derive emits when the input has errors: the errors, plus stub
//! `Reset` and `Poolable` impls. Without the stubs every `T::acquire()` in
//! the user's crate would add an error of its own ("`Poolable` is not
//! implemented"), burying the real one.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, Path, parse_quote};

pub(crate) fn expand(input: &DeriveInput, krate: &Path, error: &syn::Error) -> TokenStream {
    let error = error.to_compile_error();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
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
        #error
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::Reset for #ident #ty_generics #where_clause {
                fn reset(&mut self) {}
            }

            #[automatically_derived]
            impl #impl_generics #krate::Poolable for #ident #ty_generics #poolable_where {
                fn create() -> Self {
                    ::core::unreachable!()
                }

                fn pool() -> &'static #krate::Pool<Self> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
