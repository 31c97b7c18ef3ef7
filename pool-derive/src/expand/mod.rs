//! Generates the `Reset` and `Poolable` impls of a valid input.
//!
//! The output reads like the impl one would write by hand, plus the
//! template that makes a reused object equal to a new one:
//!
//! ```text
//! const _: () = {
//!     #[automatically_derived]
//!     impl ::pool_core::Reset for Request {
//!         #[inline]
//!         fn reset(&mut self) {
//!             // The plain reset: one statement per field.
//!             #[inline(always)]
//!             fn __pool_clear(__this: &mut Request) {
//!                 <String as ::pool_core::__private::ResetField>::reset_field(&mut __this.name);
//!                 <Vec<u8> as ::pool_core::__private::ResetField>::reset_field(&mut __this.body);
//!                 <Vec<u8> as ::pool_core::__private::MaxCapacity>::shrink_past(&mut __this.body, 65536);
//!                 __this.mode = <Mode as ::core::default::Default>::default();
//!                 reset_scores(&mut __this.scores);
//!             }
//!             // Per plain field: copied back from the template if the
//!             // constructor's value differs from the reset one, else reset.
//!             fn __pool_restore(__this: &mut Request, __template: &Request, __cursor: &mut Cursor<'_>) {
//!                 if __cursor.differs() {
//!                     (&&&Probe::of(&__this.name)).kind().copy(&mut __this.name, &__template.name);
//!                 } else {
//!                     <String as ResetField>::reset_field(&mut __this.name);
//!                 }
//!                 // ...
//!             }
//!             // Once: compares the constructor's output with a reset object.
//!             #[cold]
//!             fn __pool_plan() -> Option<Restorer<Request>> { /* ... */ }
//!             #[cold]
//!             fn __pool_restore_all(__this: &mut Request) {
//!                 __POOL_TEMPLATE.restore(__this, __pool_clear, __pool_plan);
//!             }
//!             static __POOL_TEMPLATE: Template<Request> = Template::new();
//!             if __POOL_TEMPLATE.is_clean() {
//!                 __pool_clear(self);
//!             } else {
//!                 __pool_restore_all(self);
//!             }
//!         }
//!     }
//!     #[automatically_derived]
//!     impl ::pool_core::Poolable for Request {
//!         #[inline]
//!         fn create() -> Self {
//!             <Request as ::pool_core::__private::CreateDefault>::create_default()
//!         }
//!         #[inline]
//!         fn pool() -> &'static ::pool_core::Pool<Self> {
//!             ::pool_core::pool! {
//!                 @named ::core::stringify!(Request) => // listed by `pools()` as "Request"
//!                 static __POOL: ::pool_core::Pool<Request> =
//!                     ::pool_core::Pool::new(<Request as ::pool_core::Poolable>::create).capacity(1024);
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
//! path), so a missing trait is reported there. The `__private` traits are
//! forwarding shims, inlined away, that exist for their diagnostics.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Index, Member, Path, WhereClause, parse_quote};

use crate::ast::{Data, Field, Input};
use crate::ctxt::Ctxt;
use crate::{fallback, valid};

/// The whole derive: read, check, then generate; on any error, the errors
/// and a stub impl.
pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let ast = Input::from_syn(&cx, input);
    let findings = valid::check(&cx, &ast);
    let krate = ast.attrs.krate();
    match cx.check() {
        Ok(()) => impl_poolable(&ast, &krate),
        Err(error) => fallback::expand(input, &krate, &error, &findings),
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
        quote_spanned!(at(path.span())=> let __create: fn() -> Self = #path; __create())
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
    let capacity = input.attrs.capacity.as_ref().map(|set| {
        let count = &set.value;
        quote!(.capacity(#count))
    });
    let thread_capacity = input.attrs.thread_capacity.as_ref().map(|set| {
        let count = &set.value;
        quote!(.thread_capacity(#count))
    });
    let config = quote! {
        #krate::Pool::new(<Self as #krate::Poolable>::create)
            #capacity
            #thread_capacity
    };
    let pool = if generic {
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
                        #thread_capacity;
            }
            &__POOL
        }
    };
    let (reset_where, poolable_where) = generic_bounds(krate, input, fields);
    let reset_where = reset_where.as_ref().or(where_clause);
    let poolable_where = poolable_where.as_ref().or(where_clause);
    let shape = Shape {
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
    };
    let (reset, reset_where) = reset_body(krate, &shape, fields, reset_where);
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::Reset for #ident #ty_generics #reset_where {
                #[inline]
                fn reset(&mut self) {
                    #reset
                }
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
            }
        };
    }
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
    let mut reset = generics.clone();
    let predicates = &mut reset.make_where_clause().predicates;
    for field in fields {
        let (ty, attrs) = (field.ty, &field.attrs);
        if attrs.skip.is_some() || attrs.reset.is_some() {
            continue;
        }
        if attrs.default.is_some() {
            predicates.push(parse_quote!(#ty: ::core::default::Default));
        } else {
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

/// The body of `Reset::reset`.
///
/// A struct without plain fields (every field `skip`, `default` or
/// `reset = path`) resets as its attributes say, one statement per field.
/// Otherwise the plain fields must end up as the constructor makes them,
/// which a field's own `Reset` may not give (`retries: 3`): the body goes
/// through a `Template` (see `pool_core`'s `template` module: a `static` in
/// `reset`, or for a generic struct the template in its pool's state), which on the
/// first reset compares the constructor's output with a reset object, and
/// then runs `clear` (the per-field statements, when they agree) or
/// `restore` (which copies the fields that differ back from the template
/// with `clone_from`).
fn reset_body(
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
            (&&&#krate::__private::Probe::of(&__template.#member))
                .kind()
                .probe(&mut __plan, &__template.#member, &__cleared.#member);
        }
    });
    // The plan makes objects with the constructor, so it needs `Poolable`:
    // for a generic struct, a bound of the nested function and of the
    // `Reset` impl (where it is met by the derive's own `Poolable` impl).
    let mut plan_where = reset_where.cloned();
    if shape.generic {
        plan_where
            .get_or_insert_with(|| parse_quote!(where))
            .predicates
            .push(parse_quote!(#ty: #krate::Poolable));
    }
    let functions = quote! {
        #[allow(clippy::inline_always, reason = "the clean case is the plain per-field reset")]
        #[inline(always)]
        fn __pool_clear #fn_generics (__this: &mut #ty) #fn_where {
            #(#clear)*
        }
        fn __pool_restore #fn_generics (
            __this: &mut #ty,
            __template: &#ty,
            __cursor: &mut #krate::__private::Cursor<'_>,
        ) #fn_where {
            #[allow(unused_imports)]
            use #krate::__private::{KindCloneEq as _, KindCloneOnly as _, KindTrusted as _};
            #(#restore)*
        }
        // Runs once per struct: compiled for size.
        #[cold]
        fn __pool_plan #fn_generics () -> ::core::option::Option<#krate::__private::Restorer<#ty>>
        #plan_where
        {
            #[allow(unused_imports)]
            use #krate::__private::{
                FreshTemplate as _, KindCloneEq as _, KindCloneOnly as _, KindTrusted as _,
                ShareTemplate as _,
            };
            let __template = #krate::__private::boxed(<#ty as #krate::Poolable>::create);
            let mut __plan = #krate::__private::Plan::new();
            {
                let mut __cleared = #krate::__private::boxed(<#ty as #krate::Poolable>::create);
                __pool_clear(&mut __cleared);
                #(#probes)*
            }
            (&&#krate::__private::Share::<#ty>::new()).restorer(
                __template,
                __plan,
                __pool_restore #turbofish,
                <#ty as #krate::Poolable>::create,
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

/// What the reset's statements need to know of the struct.
struct Shape<'a> {
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
    } else {
        quote_spanned!(span=> <#ty as #krate::__private::ResetField>::reset_field(&mut #this.#member);)
    };
    let shrink = shrink_field(krate, shape, this, field);
    quote!(#reset #shrink)
}

/// The statements that restore one field of `this` from `template`: a
/// plain field is copied back if the plan says the constructor's value
/// differs from its reset one, else reset as in `clear`; any other field is
/// reset as in `clear`. The `ResetField` statement is the same tokens at the
/// same span as in `clear`, so a field type without `Reset` is reported
/// once.
fn restore_field(krate: &Path, shape: &Shape<'_>, field: &Field<'_>) -> TokenStream {
    let this = This::Nested;
    if !field.is_plain() {
        return clear_field(krate, shape, this, field);
    }
    let Field { member, ty, .. } = field;
    let span = at(ty.span());
    let reset = quote_spanned!(span=> <#ty as #krate::__private::ResetField>::reset_field(&mut #this.#member););
    let shrink = shrink_field(krate, shape, this, field);
    quote! {
        if __cursor.differs() {
            (&&&#krate::__private::Probe::of(&__this.#member))
                .kind()
                .copy(&mut __this.#member, &__template.#member);
        } else {
            #reset
        }
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
fn unself(tokens: TokenStream, with: &TokenStream) -> TokenStream {
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

/// A span for generated tokens that the compiler reports at `location` (the
/// user's field type or struct name) but that lints still see as coming
/// from the derive, so a user's lint settings do not apply to our code.
fn at(location: Span) -> Span {
    Span::call_site().located_at(location)
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;
    use syn::{DeriveInput, ImplItem, Item, parse_quote};

    use super::derive;

    /// The derive's output for `input`, printed (see it with
    /// `cargo test -p pool-derive -- --nocapture`) and parsed back.
    fn expand(input: &DeriveInput) -> Vec<Item> {
        let output = derive(input);
        println!("{output}");
        let file: syn::File = syn::parse2(output).expect("the output is valid Rust");
        file.items
    }

    /// The items inside the output's `const _: () = { ... };`.
    fn const_block_items(items: &[Item]) -> Vec<Item> {
        let consts: Vec<_> = items
            .iter()
            .filter_map(|item| match item {
                Item::Const(item) => Some(item),
                _ => None,
            })
            .collect();
        assert_eq!(consts.len(), 1, "everything sits in one `const _` block");
        assert_eq!(consts[0].ident, "_");
        let syn::Expr::Block(block) = &*consts[0].expr else {
            panic!("`const _` holds a block");
        };
        block
            .block
            .stmts
            .iter()
            .map(|stmt| match stmt {
                syn::Stmt::Item(item) => item.clone(),
                other => panic!("unexpected statement {}", quote!(#other)),
            })
            .collect()
    }

    /// The generated `Reset::reset`.
    fn reset_fn(items: &[Item]) -> syn::ImplItemFn {
        let items = const_block_items(items);
        let reset = items
            .iter()
            .find_map(|item| match item {
                Item::Impl(imp) if quote!(#imp).to_string().contains(":: Reset for") => Some(imp),
                _ => None,
            })
            .expect("a `Reset` impl");
        let ImplItem::Fn(function) = &reset.items[0] else {
            panic!("`Reset` has one fn");
        };
        assert_eq!(function.sig.ident, "reset");
        function.clone()
    }

    /// The per-field statements of the generated reset, one string each:
    /// those of its nested `fn clear` if it goes through a template, else
    /// its own.
    fn reset_statements(items: &[Item]) -> Vec<String> {
        let reset = reset_fn(items);
        let clear = reset.block.stmts.iter().find_map(|stmt| match stmt {
            syn::Stmt::Item(Item::Fn(f)) if f.sig.ident == "__pool_clear" => {
                Some(f.block.stmts.clone())
            }
            _ => None,
        });
        let statements: Vec<String> = clear
            .unwrap_or(reset.block.stmts)
            .iter()
            .map(|stmt| quote!(#stmt).to_string())
            .collect();
        println!("{}", statements.join("\n"));
        statements
    }

    fn strings(statements: &[TokenStream]) -> Vec<String> {
        statements.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_clean_reset_is_one_straight_line_statement_per_field_as_its_attributes_say() {
        let input: DeriveInput = parse_quote! {
            #[derive(Poolable, Default)]
            #[pool(capacity = 1024, thread_capacity = 32)]
            struct Request {
                name: String,
                age: u32,
                tags: Vec<String>,
                #[pool(max_capacity = 65536)]
                body: Vec<u8>,
                #[pool(skip)]
                id: u64,
                #[pool(default)]
                mode: Mode,
                #[pool(reset = reset_scores)]
                scores: [f32; 4],
            }
        };
        let items = expand(&input);
        let expected = strings(&[
            quote!(<String as ::pool_core::__private::ResetField>::reset_field(&mut __this.name);),
            quote!(<u32 as ::pool_core::__private::ResetField>::reset_field(&mut __this.age);),
            quote!(<Vec<String> as ::pool_core::__private::ResetField>::reset_field(&mut __this.tags);),
            quote!(<Vec<u8> as ::pool_core::__private::ResetField>::reset_field(&mut __this.body);),
            quote!(<Vec<u8> as ::pool_core::__private::MaxCapacity>::shrink_past(&mut __this.body, 65536);),
            quote!(__this.mode = <Mode as ::core::default::Default>::default();),
            quote!(reset_scores(&mut __this.scores);),
        ]);
        assert_eq!(reset_statements(&items), expected);
    }

    #[test]
    fn the_pool_is_a_typed_static_with_the_struct_capacities() {
        let input: DeriveInput = parse_quote! {
            #[pool(capacity = 1024, thread_capacity = PER_THREAD, new = Self::make)]
            struct Request {
                name: String,
            }
        };
        let output = const_block_items(&expand(&input));
        let poolable = quote!(#(#output)*).to_string();
        for expected in [
            quote!(#[automatically_derived] impl ::pool_core::Poolable for Request),
            quote!(let __create: fn() -> Self = Self::make; __create()),
            quote! {
                ::pool_core::pool! {
                    @named ::core::stringify!(Request) =>
                    static __POOL: ::pool_core::Pool<Request> =
                        ::pool_core::Pool::new(<Request as ::pool_core::Poolable>::create)
                            .capacity(1024)
                            .thread_capacity(PER_THREAD);
                }
                &__POOL
            },
        ] {
            let expected = expected.to_string();
            assert!(
                poolable.contains(&expected),
                "missing `{expected}` in `{poolable}`"
            );
        }
    }

    #[test]
    fn tuple_and_unit_structs_reset_by_position_and_not_at_all() {
        let tuple: DeriveInput = parse_quote! {
            struct Pair(String, #[pool(skip)] u8, #[pool(default)] Mode);
        };
        let expected = strings(&[
            quote!(<String as ::pool_core::__private::ResetField>::reset_field(&mut __this.0);),
            quote!(__this.2 = <Mode as ::core::default::Default>::default();),
        ]);
        assert_eq!(reset_statements(&expand(&tuple)), expected);

        let unit: DeriveInput = parse_quote!(
            struct Unit;
        );
        assert!(reset_statements(&expand(&unit)).is_empty());
    }

    #[test]
    fn plain_fields_go_through_the_template_and_attributed_ones_do_not() {
        let plain: DeriveInput = parse_quote! {
            struct Settings { retries: u32, #[pool(skip)] id: u64 }
        };
        let reset = reset_fn(&expand(&plain));
        let body = quote!(#reset).to_string();
        assert!(
            body.contains(
                &quote!(if __POOL_TEMPLATE.is_clean() {
                    __pool_clear(self);
                } else {
                    __pool_restore_all(self);
                })
                .to_string()
            ),
            "{body}"
        );

        let attributed: DeriveInput = parse_quote! {
            struct Slot { #[pool(skip)] id: u64, #[pool(default)] mode: Mode }
        };
        let reset = reset_fn(&expand(&attributed));
        let body = quote!(#reset).to_string();
        assert!(!body.contains("TEMPLATE"), "{body}");
        assert_eq!(
            reset_statements(&expand(&attributed)),
            strings(&[quote!(self.mode = <Mode as ::core::default::Default>::default();)])
        );
    }

    #[test]
    fn the_crate_path_can_be_overridden() {
        let input: DeriveInput = parse_quote! {
            #[pool(crate = my::pool)]
            struct Job { input: Vec<u8> }
        };
        let output = derive(&input).to_string();
        assert!(output.contains(&quote!(impl my::pool::Reset for Job).to_string()));
        assert!(output.contains(&quote!(my::pool::pool!).to_string()));
        assert!(!output.contains("pool_core"), "{output}");
    }

    #[test]
    fn every_error_is_reported_at_once_with_a_stub_impl() {
        let input: DeriveInput = parse_quote! {
            #[pool(capcity = 1, thread_capacity = "lots")]
            struct Request<'a, T> {
                #[pool(skip, default)]
                a: u8,
                #[pool(max_capacity)]
                b: Vec<T>,
            }
        };
        let items = expand(&input);
        let errors = items
            .iter()
            .filter(|item| {
                quote!(#item)
                    .to_string()
                    .starts_with(":: core :: compile_error !")
            })
            .count();
        assert_eq!(
            errors, 5,
            "unknown key, wrong value, conflict, no value, lifetime"
        );
        let stub = quote!(#(#items)*).to_string();
        assert!(
            stub.contains(
                &quote!(
                    fn reset(&mut self) {}
                )
                .to_string()
            ),
            "{stub}"
        );
        assert!(
            stub.contains(&quote!(Self: ::core::marker::Send + 'static).to_string()),
            "{stub}"
        );
        assert!(
            stub.contains(&quote!(::core::unreachable!()).to_string()),
            "{stub}"
        );
    }
}
