//! Generates the `Reset` and `Poolable` impls of a valid input.
//!
//! The output reads like the impl one would write by hand, plus the
//! template that makes a reused object equal to a new one:
//!
//! ```text
//! const _: () = {
//!     // The check that `Request` is `Send`, reported at the fields that
//!     // are not, and a fallback `acquire` for when it fails (see `send`).
//!     const __POOL_CORE_SEND: usize = { ... };
//!     impl Request where ... { fn acquire() -> Unpoolable<Self> { ... } }
//!     #[automatically_derived]
//!     impl ::pool_core::Reset for Request {
//!         #[inline]
//!         fn reset(&mut self) {
//!             // One pass over the fields, for every use of them: a field's
//!             // kind (its `Reset`, nothing for a `Clone` type without one,
//!             // or an error at the field) is picked once, at compile time.
//!             // The pass resets each field; in the template's one probe it
//!             // records whether the constructor's value differs from the
//!             // reset one; in a restore it copies back the fields that
//!             // differ and resets the others.
//!             #[inline]
//!             fn __pool_fields(__pool_core_this: &mut Request, __pool_core_pass: &mut Pass<'_>) {
//!                 (&&&&&&&Probe::of(&__pool_core_this.name)).kind().reset(&mut __pool_core_this.name, __pool_core_pass);
//!                 // ... the same for `body`, then its shrink:
//!                 <Vec<u8> as ::pool_core::__private::MaxCapacity>::shrink_past(&mut __pool_core_this.body, 65536);
//!                 // Fields with attributes: in a reset, not in the probe.
//!                 if __pool_core_pass.resets() { __pool_core_this.mode = <Mode as ::core::default::Default>::default(); }
//!                 if __pool_core_pass.resets() { reset_scores(&mut __pool_core_this.scores); }
//!             }
//!             let __pool_core_template = {
//!                 static __POOL_TEMPLATE: Template = Template::new();
//!                 &__POOL_TEMPLATE
//!             };
//!             if __pool_core_template.is_clean() {
//!                 __pool_fields(self, &mut Pass::clear());
//!             } else {
//!                 // Cold, out of line: the first time, makes the template
//!                 // and probes it; then restores from it if it differs.
//!                 unsafe { __pool_core_template.restore(self, __pool_fields, <Request as Poolable>::create,
//!                     (&&Share::<Request>::new()).access()) };
//!             }
//!         }
//!     }
//!     #[automatically_derived]
//!     impl ::pool_core::Poolable for Request where for<'__pool_core> Request: Send {
//!         #[inline]
//!         fn create() -> Self {
//!             <Request as ::pool_core::__private::CreateDefault>::create_default()
//!         }
//!         #[inline]
//!         fn pool() -> &'static ::pool_core::Pool<Self> {
//!             ::pool_core::pool! {
//!                 // Listed by `pools()` as "Request"; no check of its own, and the
//!                 // item type as the derive's check names it: `Request`, or after
//!                 // a failed check an error type.
//!                 @declare ::core::stringify!(Request), [] [<Request as Checked<[(); __POOL_CORE_SEND]>>::Type] [..] =>
//!                 static __POOL: ::pool_core::Pool<<Request as Checked<[(); __POOL_CORE_SEND]>>::Type> =
//!                     ::pool_core::Pool::new(<... as ::pool_core::Poolable>::create).capacity(1024);
//!             }
//!             &__POOL
//!         }
//!     }
//! };
//! ```
//!
//! A struct with no plain field (each is `skip`, `default` or `reset =
//! path`) gets the plain statements directly in `reset`.
//!
//! Each field's statement is spanned at the field's type (or at the user's
//! path), so a missing trait is reported there. The `__private` kinds and
//! traits are forwarding shims, inlined away once optimised, that exist for the choice of
//! kind and for their diagnostics.
//!
//! Invariant: the output reaches the runtime only through the crate path
//! (`::pool_core`, or `#[pool(crate = path)]`), and only through its public
//! items and `__private`; it all sits in one `const _` block, so it adds no
//! name to the user's scope; and every local it binds (a `let`, a nested
//! function's parameter) is named in the `__pool_core_` space, since a
//! binding named like a static, a constant or a unit struct in the user's
//! scope does not compile.
//!
//! The impls and their bounds are made here; the body of `Poolable::pool`
//! in `pool`, that of `Reset::reset` in `reset`, the check that the struct
//! is `Send` in `send`.

mod heap;
mod pool;
mod reset;
mod send;
#[cfg(test)]
mod tests;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Path, WhereClause, parse_quote};

use self::reset::{Shape, part_reset_body, reset_body};
use self::send::SendCheck;
use crate::ast::{Data, Derive, Field, Input};
use crate::ctxt::Ctxt;
use crate::{fallback, valid};

/// The whole derive: read, check, then generate; on any error, the errors
/// and a stub impl.
pub(crate) fn derive(input: &DeriveInput, derive: Derive) -> TokenStream {
    let cx = Ctxt::new();
    let ast = Input::from_syn(&cx, derive, input);
    let findings = valid::check(&cx, &ast);
    let krate = ast.attrs.krate();
    match (cx.check(), derive) {
        (Ok(()), Derive::Poolable) => impl_poolable(&ast, &krate),
        (Ok(()), Derive::Reset) => impl_reset(&ast, &krate),
        (Err(error), _) => fallback::expand(input, derive, &krate, &error, &findings),
    }
}

/// `#[derive(Reset)]`: the field-by-field reset of a part, with no
/// template (a part has no constructor to compare with).
fn impl_reset(input: &Input<'_>, krate: &Path) -> TokenStream {
    let ident = &input.original.ident;
    let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
    let Data::Struct(fields) = &input.data else {
        unreachable!("`valid::check` rejects enums and unions")
    };
    let (reset_where, _) = generic_bounds(krate, input, fields);
    let reset_where = reset_where.as_ref().or(where_clause);
    let shape = Shape::new(input, reset_where);
    let reset = part_reset_body(krate, &shape, fields);
    let heap = heap::heap_items(krate, fields);
    quote! {
        const _: () = {
            // For `HeapOf`'s items of a field type without `Reset`.
            #[allow(unused_imports)]
            use #krate::__private::HeapFallback as _;

            #[automatically_derived]
            impl #impl_generics #krate::Reset for #ident #ty_generics #reset_where {
                #[inline]
                fn reset(&mut self) {
                    #reset
                }

                #heap
            }
        };
    }
}

fn impl_poolable(input: &Input<'_>, krate: &Path) -> TokenStream {
    let ident = &input.original.ident;
    let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
    let Data::Struct(fields) = &input.data else {
        unreachable!("`valid::check` rejects enums and unions")
    };
    let generic = !input.original.generics.params.is_empty();
    let create = if let Some(new) = &input.attrs.new {
        // Through a typed `let`, so a constructor of the wrong type is
        // reported at the path as "expected `fn() -> Request`".
        let path = &new.value;
        quote_spanned!(at(path.span())=> let __pool_core_create: fn() -> Self = #path; __pool_core_create())
    } else if generic {
        // `Self`: the bare name would lack its parameters.
        quote_spanned! {at(ident.span())=>
            <Self as #krate::__private::CreateDefault>::create_default()
        }
    } else {
        quote_spanned! {at(ident.span())=>
            <#ident as #krate::__private::CreateDefault>::create_default()
        }
    };
    let send = SendCheck::new(input);
    let (pool, config) = pool::body(krate, input, &send.checked(krate));
    let (reset_where, poolable_where) = generic_bounds(krate, input, fields);
    let reset_where = reset_where.as_ref().or(where_clause);
    let mut poolable_where = poolable_where.as_ref().or(where_clause).cloned();
    let shape = Shape::new(input, reset_where);
    let checked = send.checked(krate);
    let (reset, reset_where) = reset_body(
        krate,
        &shape,
        fields,
        reset_where,
        (!generic).then_some(&checked),
    );
    if let Some(assumed) = send.assumed() {
        poolable_where
            .get_or_insert_with(|| parse_quote!(where))
            .predicates
            .push(assumed);
    }
    let (reset, acquire, reset_with) = if generic {
        let bounds = poolable_where.as_ref();
        generic_impls(krate, input, fields, (reset, config), bounds)
    } else {
        (reset, TokenStream::new(), TokenStream::new())
    };
    let heap = heap::heap_items(krate, fields);
    let send = send.items(krate, fields);
    quote! {
        const _: () = {
            // For `HeapOf`'s items of a field type without `Reset`.
            #[allow(unused_imports)]
            use #krate::__private::HeapFallback as _;

            #send

            #[automatically_derived]
            impl #impl_generics #krate::Reset for #ident #ty_generics #reset_where {
                #[inline]
                fn reset(&mut self) {
                    #reset
                }

                #heap
            }

            #[automatically_derived]
            impl #impl_generics #krate::Poolable for #ident #ty_generics #poolable_where {
                #[inline]
                fn create() -> Self {
                    #create
                }

                #[inline]
                fn pool() -> &'static #krate::Pool<Self> {
                    #pool
                }

                #acquire
            }

            #reset_with
        };
    }
}

/// A generic struct's `Reset::reset` body, and its `Generic` impl and
/// `acquire` (in the `Poolable` impl): its pool's configuration, `config`,
/// is a constant; the reset with the template at hand is `reset_with`,
/// which the pool's release calls with the template in its state, and
/// `reset` looks the template up through the pool; `acquire` finds the
/// thread's share of the pool in one lookup.
fn generic_impls(
    krate: &Path,
    input: &Input<'_>,
    fields: &[Field<'_>],
    (reset, config): (TokenStream, TokenStream),
    poolable_where: Option<&WhereClause>,
) -> (TokenStream, TokenStream, TokenStream) {
    let ident = &input.original.ident;
    let (impl_generics, ty_generics, _) = input.original.generics.split_for_impl();
    let (reset, reset_with) = if fields.iter().any(Field::is_plain) {
        let pool = quote!(<Self as #krate::Poolable>::pool());
        let reset_with = quote! {
            #krate::__private::Generic::reset_with(self, #krate::__private::template_of(#pool))
        };
        (reset_with, reset)
    } else {
        (reset, quote!(#krate::Reset::reset(self)))
    };
    let acquire = quote! {
        #[inline]
        fn acquire() -> #krate::Pooled<Self> {
            #krate::__private::generic_acquire(<Self as #krate::Poolable>::pool)
        }
    };
    let reset_with = quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::Generic for #ident #ty_generics #poolable_where {
            const CONFIG: #krate::PoolConfig<Self> = #config;

            #[inline]
            fn reset_with(&mut self, __pool_core_template: &'static #krate::__private::Template) {
                #reset_with
            }
        }
    };
    (reset, acquire, reset_with)
}

/// For a generic struct, the where clauses of the two impls: the reset
/// needs each field's reset to exist for the parameters (`Vec<T>: Reset`,
/// or `T: Default` for a `default` field), and `Poolable` needs its
/// supertraits and, without `new`, a `Default`. `None` for a struct with
/// no parameters, whose impls keep the user's where clause (none).
fn generic_bounds(
    krate: &Path,
    input: &Input<'_>,
    fields: &[Field<'_>],
) -> (Option<WhereClause>, Option<WhereClause>) {
    let generics = &input.original.generics;
    if generics.params.is_empty() {
        return (None, None);
    }
    let params: Vec<&syn::Ident> = generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(param) => Some(&param.ident),
            syn::GenericParam::Const(param) => Some(&param.ident),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let mut reset = generics.clone();
    let predicates = &mut reset.make_where_clause().predicates;
    for field in fields {
        let (ty, attrs) = (field.ty, &field.attrs);
        if attrs.skip.is_some() || attrs.reset.is_some() || attrs.fresh.is_some() {
            continue;
        }
        if attrs.default.is_some() {
            predicates.push(parse_quote!(#ty: ::core::default::Default));
        } else if mentions(ty.to_token_stream(), &params) {
            // A concrete type needs no bound: its kind (its `Reset`, or a
            // copy for a `Clone` type without one) is found where the
            // reset names it, and a type with neither is reported there,
            // at the field, rather than as a false bound.
            predicates.push(parse_quote!(#ty: #krate::Reset));
        }
        if attrs.max_capacity.is_some() {
            predicates.push(parse_quote!(#ty: #krate::__private::MaxCapacity));
        }
    }
    let mut poolable = reset.clone();
    let predicates = &mut poolable.make_where_clause().predicates;
    predicates.push(parse_quote!(Self: ::core::marker::Send + 'static));
    if input.attrs.new.is_none() {
        predicates.push(parse_quote!(Self: #krate::__private::CreateDefault));
    }
    (reset.where_clause, poolable.where_clause)
}

/// Whether `tokens` (a field's type) name one of the struct's type or const
/// parameters.
fn mentions(tokens: TokenStream, params: &[&syn::Ident]) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => params.iter().any(|param| **param == ident),
        proc_macro2::TokenTree::Group(group) => mentions(group.stream(), params),
        _ => false,
    })
}

/// A span for generated tokens that the compiler reports at `location` (the
/// user's field type or struct name) but that lints still see as coming
/// from the derive, so a user's lint settings do not apply to our code.
fn at(location: Span) -> Span {
    Span::call_site().located_at(location)
}
