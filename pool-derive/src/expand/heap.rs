//! The bytes items of the derived `Reset`: `HEAP`, `heap_bytes` and
//! `shrink_to_bytes`, field by field.
//!
//! A field with `#[pool(heap_bytes = path)]` is counted by the user's
//! function, and not shrunk; any other field not `skip`ped or reset by
//! `reset = path` is counted and shrunk by its type's `Reset`, through
//! `__private::HeapOf`, which gives nothing for a type without one (a
//! `Clone`-only or `default` field: `HeapFallback`, imported at the top of
//! the derive's `const _` block). A `skip` or `reset = path` field
//! without `heap_bytes` counts as its size only.
//!
//! Invariant: `HEAP` is `Heap::None` exactly when no field is counted or
//! of a type that reports `Counted` or `Unreported`, so a struct with no
//! heap field is never measured (a constant, folded at compile time).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::Path;
use syn::spanned::Spanned;

use super::at;
use crate::ast::Field;

/// How one field's bytes are counted.
enum Bytes<'a> {
    /// By its type's `Reset`, or nothing without one.
    Type,
    /// By the user's `heap_bytes = path`.
    Path(&'a syn::ExprPath),
    /// Not counted: its size only.
    None,
}

fn bytes_of<'a>(field: &'a Field<'_>) -> Bytes<'a> {
    let attrs = &field.attrs;
    if let Some(path) = &attrs.heap_bytes {
        Bytes::Path(&path.value)
    } else if attrs.skip.is_some() || attrs.reset.is_some() {
        Bytes::None
    } else {
        Bytes::Type
    }
}

/// `const HEAP`, `heap_bytes` and `shrink_to_bytes` for the `Reset` impl
/// of a struct with `fields`, in a method (`self`).
pub(super) fn heap_items(krate: &Path, fields: &[Field<'_>]) -> TokenStream {
    let mut heap = Vec::new();
    let mut bytes = Vec::new();
    let mut shrink = Vec::new();
    for field in fields {
        let (member, ty) = (&field.member, field.ty);
        let span = at(ty.span());
        match bytes_of(field) {
            Bytes::Type => {
                heap.push(quote_spanned!(span=> .and(#krate::__private::HeapOf::<#ty>::HEAP)));
                bytes.push(quote_spanned! {span=>
                    __pool_core_sum =
                        #krate::__private::HeapOf::<#ty>::bytes(&mut self.#member, __pool_core_sum);
                });
                shrink.push(quote_spanned! {span=>
                    __pool_core_kept = #krate::__private::HeapOf::<#ty>::shrink(
                        &mut self.#member,
                        __pool_core_max,
                        __pool_core_kept,
                    );
                });
            }
            Bytes::Path(path) => {
                let span = at(path.span());
                let path = path.to_token_stream();
                heap.push(quote!(.and(#krate::Heap::Counted)));
                // Through a typed `let`, so a function of the wrong type is
                // reported at the path.
                let call = quote_spanned! {span=>
                    {
                        let __pool_core_bytes: fn(&mut #ty) -> usize = #path;
                        __pool_core_bytes(&mut self.#member)
                    }
                };
                bytes.push(quote!(__pool_core_sum += #call;));
                shrink.push(quote!(__pool_core_kept += #call;));
            }
            Bytes::None => {}
        }
    }
    quote! {
        const HEAP: #krate::Heap = #krate::Heap::None #(#heap)*;

        #[inline]
        fn heap_bytes(&mut self) -> usize {
            let mut __pool_core_sum: usize = 0;
            #(#bytes)*
            __pool_core_sum
        }

        #[inline]
        fn shrink_to_bytes(&mut self, __pool_core_max: usize) -> usize {
            let mut __pool_core_kept: usize = 0;
            #(#shrink)*
            let _ = __pool_core_max;
            __pool_core_kept
        }
    }
}
