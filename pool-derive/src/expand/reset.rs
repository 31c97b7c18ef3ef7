//! The body of the derived `Reset::reset`: one statement per field, as its
//! attributes say (`clear`), and for a struct with plain fields the
//! template around them: one pass over the fields (`__pool_fields`) that
//! resets them, or once per struct probes the template for the fields the
//! constructor makes differently, which the template's restore then copies
//! back after each reset.
//!
//! Invariant: a field's reset statement appears once, at the field's type
//! or the user's path, so a missing trait is reported once, on the field;
//! and a struct whose constructor is clean resets with the pass alone,
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
/// makes with a reset copy of it (a probe, through the same pass over the
/// fields as the reset), and then resets with the pass alone (when they
/// agree) or with the pass and then copies the fields that differ back from
/// the template with `clone_from`.
pub(super) fn reset_body(
    krate: &Path,
    shape: &Shape<'_>,
    fields: &[Field<'_>],
    reset_where: Option<&WhereClause>,
    checked: Option<&TokenStream>,
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
    // One pass over the fields serves the reset and, once per struct, the
    // probe of the template: each field's kind is picked once.
    let pass = fields.iter().map(|field| pass_field(krate, shape, field));
    // A generic struct's reset looks its template up through its pool, and
    // hands it to `Generic::reset_with`, which holds this body: bounds
    // of the `Reset` impl (met by the derive's own impls).
    let mut plan_where = reset_where.cloned();
    if shape.generic {
        let predicates = &mut plan_where
            .get_or_insert_with(|| parse_quote!(where))
            .predicates;
        predicates.push(parse_quote!(#ty: #krate::Poolable));
        predicates.push(parse_quote!(#ty: #krate::__private::Generic));
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
    let checked = checked.unwrap_or(ty);
    let fields_fn = quote! {
        // A hint, the same in every build: an optimised build inlines it
        // into the reset, whose clean case is then the plain per-field
        // reset; a debug build calls it.
        #[inline]
        #bounds
        fn __pool_fields #fn_generics (
            __pool_core_this: &mut #ty,
            __pool_core_pass: &mut #krate::__private::Pass<'_>,
        ) #fn_where {
            #kinds
            #(#pass)*
        }
    };
    // The template's restore, cold and out of line: the constructor, and
    // how the template is read (`Share`: without a lock if the struct is
    // `Sync`).
    let restore = quote! {
        {
            #[allow(unused_imports)]
            use #krate::__private::{LockedTemplate as _, ShareTemplate as _};
            // SAFETY: `__pool_core_template` is this struct's own (a static in this
            // reset, or its pool's state), and the pass is its
            // `__pool_fields`, as `restore` asks.
            unsafe {
                __pool_core_template.restore::<#checked>(
                    self,
                    __pool_fields #turbofish,
                    <#checked as #krate::Poolable>::create,
                    (&&#krate::__private::Share::<#checked>::new()).access(),
                );
            }
        }
    };
    // A `static` cannot be generic: a generic struct's template lives in
    // the state of its instantiation's pool, and is `reset_with`'s
    // parameter.
    let template = (!shape.generic).then(|| {
        quote! {
            let __pool_core_template = {
                static __POOL_TEMPLATE: #krate::__private::Template =
                    #krate::__private::Template::new();
                &__POOL_TEMPLATE
            };
        }
    });
    let body = quote! {
        #fields_fn
        #template
        if __pool_core_template.is_clean() {
            __pool_fields(self, &mut #krate::__private::Pass::clear());
        } else #restore
    };
    let where_clause = if shape.generic {
        plan_where
    } else {
        reset_where.cloned()
    };
    (body, where_clause)
}

/// The kind traits in scope, for `(&&&&&&&Probe::of(&field)).kind()` (see
/// `pool_core`'s `template::plan`).
fn kinds(krate: &Path) -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use #krate::__private::{
            KindCloneEq as _, KindCloneOnly as _, KindContentsCopied as _, KindContentsEq as _,
            KindCopied as _, KindTrusted as _, KindUnresettable as _,
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
/// `reset`, the value of the user's function for `fresh`, else the field
/// type's `Reset`; then the shrink for `max_capacity`.
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
    } else if let Some(fresh) = &attrs.fresh {
        // A new value from the user's function, typed through a `let` so
        // that a function of the wrong type is reported at the path as
        // "expected fn pointer `fn() -> u64`".
        let path = this.user_tokens(fresh.value.to_token_stream(), shape);
        let span = fresh.value.span();
        // At the path too, so the mismatch is reported there alone.
        let field_ty = respan_all(this.user_tokens(ty.to_token_stream(), shape), span);
        let member = respan(member, span);
        let this: TokenStream = this
            .to_token_stream()
            .into_iter()
            .map(|mut token| {
                token.set_span(span);
                token
            })
            .collect();
        quote_spanned! {span=>
            #this.#member = {
                let __pool_core_fresh: fn() -> #field_ty = #path;
                __pool_core_fresh()
            };
        }
    } else if shape.part {
        quote_spanned!(span=> <#ty as #krate::__private::ResetPart>::reset_part(&mut #this.#member);)
    } else {
        // The field's kind: its `Reset`, or nothing for a `Clone` type
        // without one (the plan copies it back instead), or a compile error
        // at the field for a type with neither. Only in the pass, for a
        // plain field: the kind, picked once, resets the field, or as the
        // pass says records whether the template's differs, or restores
        // it from the template.
        let place = place(this, member, span);
        quote_spanned! {span=>
            (&&&&&&&#krate::__private::Probe::of(&#place)).kind().reset(&mut #place, __pool_core_pass);
        }
    };
    let shrink = shrink_field(krate, shape, this, field);
    quote!(#reset #shrink)
}

/// The statements of one field in the pass (`__pool_fields`): as in
/// `clear`, where a plain field's kind resets it, or in a probe records it
/// if the constructor's value differs from its reset one; any other field
/// is reset in a reset only (a probe leaves the template's other fields
/// alone).
fn pass_field(krate: &Path, shape: &Shape<'_>, field: &Field<'_>) -> TokenStream {
    let clear = clear_field(krate, shape, This::Nested, field);
    if field.is_plain() || clear.is_empty() {
        clear
    } else {
        quote!(if __pool_core_pass.resets() { #clear })
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
    /// In the template's nested functions: `__pool_core_this`.
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
            This::Nested => quote!(__pool_core_this).to_tokens(tokens),
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

/// `tokens`, every one (in groups too) as if written at `span`.
fn respan_all(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), respan_all(group.stream(), span));
                inner.set_span(span);
                TokenTree::Group(inner)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
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
