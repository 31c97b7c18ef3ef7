//! The body of the derived `Reset::reset`: one statement per field, as its
//! attributes say (`clear`), and for a struct with plain fields the
//! template around them, whose `restore` copies back the fields the
//! constructor makes differently and whose `plan` finds out which.
//!
//! Invariant: a field's reset statement is the same tokens at the same
//! span, the field's type or the user's path, wherever it appears (in
//! `clear` and in `restore`), so a missing trait is reported once, on the
//! field; and a struct whose constructor is clean resets with `clear` alone,
//! behind one load of the template's flag.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Index, Member, Path, WhereClause, parse_quote};

use super::at;
use crate::ast::{Derive, Field, Input};

/// The body of a `#[derive(Reset)]` part's `Reset::reset`: one statement
/// per field, as its attributes say. A part has no constructor, so its
/// reset state is each field's, with no template.
pub(super) fn part_reset_body(
    krate: &Path,
    shape: &Shape<'_>,
    fields: &[Field<'_>],
) -> TokenStream {
    let clear = fields
        .iter()
        .map(|field| clear_field(krate, shape, This::Method, field));
    quote!(#(#clear)*)
}

/// The body of `Reset::reset`.
///
/// A struct without plain fields (every field `skip`, `default` or
/// `reset = path`) resets as its attributes say, one statement per field.
/// Otherwise the plain fields must end up as the constructor makes them,
/// which a field's own `Reset` may not give (`retries: 3`): the body goes
/// through a `Template` (see `pool_core`'s `template` module: a `static` in
/// `reset`, or for a generic struct the template in its pool's state), which
/// on the first reset compares each field of one object the constructor
/// makes with a reset copy of it, and then runs `clear` (the per-field
/// statements, when they agree) or `restore` (which copies the fields that
/// differ back from the template with `clone_from`).
pub(super) fn reset_body(
    krate: &Path,
    shape: &Shape<'_>,
    fields: &[Field<'_>],
    reset_where: Option<&WhereClause>,
) -> (TokenStream, Option<WhereClause>) {
    let this = This::Method;
    if !fields.iter().any(Field::is_plain) {
        let clear = fields
            .iter()
            .map(|field| clear_field(krate, shape, this, field));
        return (quote!(#(#clear)*), reset_where.cloned());
    }
    let Shape {
        ty,
        fn_generics,
        turbofish,
        fn_where,
        ..
    } = shape;
    let this = This::Nested;
    let clear = fields
        .iter()
        .map(|field| clear_field(krate, shape, this, field));
    let restore = fields
        .iter()
        .map(|field| restore_field(krate, shape, field));
    let probes = fields.iter().filter(|field| field.is_plain()).map(|field| {
        let member = &field.member;
        quote! {
            (&&&&&#krate::__private::Probe::of(&__template.#member))
                .kind()
                .probe(&mut __plan, &__template.#member);
        }
    });
    // The plan makes the template with the constructor, so it needs
    // `Poolable`: for a generic struct, a bound of the nested function and
    // of the `Reset` impl (where it is met by the derive's own `Poolable`
    // impl).
    let mut plan_where = reset_where.cloned();
    if shape.generic {
        plan_where
            .get_or_insert_with(|| parse_quote!(where))
            .predicates
            .push(parse_quote!(#ty: #krate::Poolable));
    }
    // A generic struct's parameters come with the bounds the user wrote on
    // them, and the where clause adds the fields' bounds: clippy would
    // report the two places at the user's parameter.
    let bounds = shape.generic.then(|| {
        quote! {
            #[allow(
                clippy::multiple_bound_locations,
                reason = "the struct's own bounds, then the fields' in the where clause"
            )]
        }
    });
    let kinds = kinds(krate);
    let functions = quote! {
        #[allow(clippy::inline_always, reason = "the clean case is the plain per-field reset")]
        #[inline(always)]
        #bounds
        fn __pool_clear #fn_generics (__this: &mut #ty) #fn_where {
            #kinds
            #(#clear)*
        }
        #bounds
        fn __pool_restore #fn_generics (
            __this: &mut #ty,
            __template: &#ty,
            __cursor: &mut #krate::__private::Cursor<'_>,
        ) #fn_where {
            #kinds
            #(#restore)*
        }
        // Runs once per struct: compiled for size.
        #[cold]
        #bounds
        fn __pool_plan #fn_generics () -> ::core::option::Option<#krate::__private::Restorer<#ty>>
        #plan_where
        {
            #kinds
            #[allow(unused_imports)]
            use #krate::__private::{LockedTemplate as _, ShareTemplate as _};
            let __template = #krate::__private::boxed(<#ty as #krate::Poolable>::create);
            let mut __plan = #krate::__private::Plan::new();
            #(#probes)*
            (&&#krate::__private::Share::<#ty>::new()).restorer(
                __template,
                __plan,
                __pool_restore #turbofish,
            )
        }
    };
    if shape.generic {
        // A `static` cannot be generic: the template lives in the state of
        // this instantiation's pool.
        let body = quote! {
            #functions
            let __template = #krate::__private::template_of(<Self as #krate::Poolable>::pool());
            if __template.is_clean() {
                __pool_clear(self);
            } else {
                __template.restore(self, __pool_clear #turbofish, __pool_plan #turbofish);
            }
        };
        return (body, plan_where);
    }
    let body = quote! {
        #functions
        #[cold]
        #[inline(never)]
        fn __pool_restore_all(__this: &mut #ty) {
            __POOL_TEMPLATE.restore(__this, __pool_clear, __pool_plan);
        }
        static __POOL_TEMPLATE: #krate::__private::Template<#ty> =
            #krate::__private::Template::new();
        if __POOL_TEMPLATE.is_clean() {
            __pool_clear(self);
        } else {
            __pool_restore_all(self);
        }
    };
    (body, reset_where.cloned())
}

/// The kind traits in scope, for `(&&&&&Probe::of(&field)).kind()` (see
/// `pool_core`'s `template::plan`).
fn kinds(krate: &Path) -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use #krate::__private::{
            KindCloneEq as _, KindCloneOnly as _, KindCopied as _, KindTrusted as _,
            KindUnresettable as _,
        };
    }
}

/// What the reset's statements need to know of the struct.
pub(super) struct Shape<'a> {
    ident: &'a Ident,
    /// The struct's type, with its parameters.
    ty: TokenStream,
    /// The struct's parameters, for the reset's nested functions.
    fn_generics: TokenStream,
    /// `::<T, ..>` to name those functions, empty for a non-generic struct.
    turbofish: TokenStream,
    /// The bounds of those functions: the `Reset` impl's.
    fn_where: TokenStream,
    generic: bool,
    /// `#[derive(Reset)]`: a field without `Reset` is reported in its words.
    part: bool,
}

impl<'a> Shape<'a> {
    /// The shape of `input`, whose `Reset` impl has the bounds
    /// `reset_where`.
    pub(super) fn new(input: &Input<'a>, reset_where: Option<&WhereClause>) -> Self {
        let ident = &input.original.ident;
        let (impl_generics, ty_generics, _) = input.original.generics.split_for_impl();
        let generic = !input.original.generics.params.is_empty();
        Shape {
            ident,
            ty: quote!(#ident #ty_generics),
            fn_generics: quote!(#impl_generics),
            turbofish: if generic {
                let turbofish = ty_generics.as_turbofish();
                quote!(#turbofish)
            } else {
                TokenStream::new()
            },
            fn_where: quote!(#reset_where),
            generic,
            part: input.derive == Derive::Reset,
        }
    }
}

/// The statements that reset one field of `this`, as its attributes say:
/// nothing for `skip`, a `Default` for `default`, the user's function for
/// `reset`, else the field type's `Reset`; then the shrink for
/// `max_capacity`.
fn clear_field(krate: &Path, shape: &Shape<'_>, this: This, field: &Field<'_>) -> TokenStream {
    let Field { member, ty, attrs } = field;
    let span = at(ty.span());
    let reset = if attrs.skip.is_some() {
        return TokenStream::new();
    } else if attrs.default.is_some() {
        quote_spanned!(span=> #this.#member = <#ty as ::core::default::Default>::default();)
    } else if let Some(reset) = &attrs.reset {
        let path = this.user_tokens(reset.value.to_token_stream(), shape);
        // The whole call at the path, so a function of the wrong type is
        // reported there rather than across the field.
        let span = reset.value.span();
        let member = respan(member, span);
        let this: TokenStream = this
            .to_token_stream()
            .into_iter()
            .map(|mut token| {
                token.set_span(span);
                token
            })
            .collect();
        quote_spanned!(span=> #path(&mut #this.#member);)
    } else if shape.part {
        quote_spanned!(span=> <#ty as #krate::__private::ResetPart>::reset_part(&mut #this.#member);)
    } else {
        // The field's kind: its `Reset`, or nothing for a `Clone` type
        // without one (the plan copies it back instead), or a compile error
        // at the field for a type with neither.
        let place = place(this, member, span);
        quote_spanned! {span=>
            (&&&&&#krate::__private::Probe::of(&#place)).kind().reset(&mut #place);
        }
    };
    let shrink = shrink_field(krate, shape, this, field);
    quote!(#reset #shrink)
}

/// The statements that restore one field of `this` from `template`: a
/// plain field is copied back if the plan says the constructor's value
/// differs from its reset one, else reset as in `clear`; any other field is
/// reset as in `clear`. The reset is the same call at the same span as in
/// `clear`, so a field type with neither `Reset` nor `Clone` is reported
/// once.
fn restore_field(krate: &Path, shape: &Shape<'_>, field: &Field<'_>) -> TokenStream {
    let this = This::Nested;
    if !field.is_plain() {
        return clear_field(krate, shape, this, field);
    }
    let Field { member, ty, .. } = field;
    let span = at(ty.span());
    let place = place(this, member, span);
    let shrink = shrink_field(krate, shape, this, field);
    // One call per field, to the kind's `restore` for the field's type,
    // which is compiled once per type rather than inlined here.
    quote! {
        (&&&&&#krate::__private::Probe::of(&#place))
            .kind()
            .restore(&mut __this.#member, &__template.#member, __cursor);
        #shrink
    }
}

/// The shrink of a field with `#[pool(max_capacity = N)]`.
fn shrink_field(
    krate: &Path,
    shape: &Shape<'_>,
    this: This,
    field: &Field<'_>,
) -> Option<TokenStream> {
    let Field { member, ty, attrs } = field;
    let span = at(ty.span());
    attrs.max_capacity.as_ref().map(|max| {
        let max = this.user_tokens(max.value.to_token_stream(), shape);
        quote_spanned! {span=>
            <#ty as #krate::__private::MaxCapacity>::shrink_past(&mut #this.#member, #max);
        }
    })
}

/// Where the reset's statements are, and so what they call the object.
#[derive(Clone, Copy)]
enum This {
    /// In `reset` itself: `self`.
    Method,
    /// In the template's nested functions: `__this`.
    Nested,
}

impl This {
    /// The user's `tokens` (a `reset = path`, a `max_capacity` value) as
    /// they must be written here: unchanged in `reset`, where `Self`
    /// resolves; with `Self` replaced in a nested function, where it does
    /// not.
    fn user_tokens(self, tokens: TokenStream, shape: &Shape<'_>) -> TokenStream {
        match self {
            This::Method => tokens,
            This::Nested if shape.generic => {
                let ty = &shape.ty;
                unself(tokens, &quote!(<#ty>))
            }
            This::Nested => unself(tokens, &shape.ident.to_token_stream()),
        }
    }
}

impl ToTokens for This {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            This::Method => quote!(self).to_tokens(tokens),
            This::Nested => quote!(__this).to_tokens(tokens),
        }
    }
}

/// `tokens` with each `Self` replaced by `with` (the struct's name, or
/// `<Frame<T>>` for a generic one): the reset's statements live in nested
/// functions, where `Self` does not resolve, and the user may write
/// `#[pool(reset = Self::clear_scores)]`.
pub(super) fn unself(tokens: TokenStream, with: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|token| match token {
            TokenTree::Ident(found) if found == "Self" => with
                .clone()
                .into_iter()
                .map(|mut token| {
                    token.set_span(found.span());
                    token
                })
                .collect::<Vec<_>>(),
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), unself(group.stream(), with));
                inner.set_span(group.span());
                vec![TokenTree::Group(inner)]
            }
            other => vec![other],
        })
        .collect()
}

/// `this.member`, every token as if written at `span` (the field's type),
/// so that an error about the field's reset points there alone, not across
/// the struct from the derive to the field.
fn place(this: This, member: &Member, span: Span) -> TokenStream {
    let member = respan(member, span);
    let this: TokenStream = this
        .to_token_stream()
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect();
    quote_spanned!(span=> #this.#member)
}

/// `member`, as if written at `span`.
fn respan(member: &Member, span: Span) -> Member {
    match member {
        Member::Named(ident) => {
            let mut ident = ident.clone();
            ident.set_span(span);
            Member::Named(ident)
        }
        Member::Unnamed(index) => Member::Unnamed(Index {
            index: index.index,
            span,
        }),
    }
}
