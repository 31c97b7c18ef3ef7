//! The derive's output for sample inputs, printed and parsed back: the
//! per-field statements, the pool, the template and the stub on errors.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{DeriveInput, ImplItem, Item, parse_quote};

use super::derive as derive_any;
use crate::ast::Derive;

/// `#[derive(Poolable)]`'s output.
fn derive(input: &DeriveInput) -> TokenStream {
    derive_any(input, Derive::Poolable)
}

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
/// those of its nested pass over the fields if it goes through a
/// template, else its own.
fn reset_statements(items: &[Item]) -> Vec<String> {
    let reset = reset_fn(items);
    let clear = reset.block.stmts.iter().find_map(|stmt| match stmt {
        syn::Stmt::Item(Item::Fn(f)) if f.sig.ident == "__pool_fields" => {
            Some(f.block.stmts.clone())
        }
        _ => None,
    });
    let statements: Vec<String> = clear
        .unwrap_or(reset.block.stmts)
        .iter()
        // The kinds' `use`, in the pass.
        .filter(|stmt| !matches!(stmt, syn::Stmt::Item(Item::Use(_))))
        .map(compact)
        .collect();
    println!("{}", statements.join("\n"));
    statements
}

fn strings(statements: &[TokenStream]) -> Vec<String> {
    statements.iter().map(compact).collect()
}

/// `tokens` as a string without whitespace or trailing commas in calls:
/// `&&` and `& &`, `f(a)` and `f(a,)` (which rustfmt may write for the
/// other in a test's `quote!`) compare equal.
fn compact(tokens: impl ToTokens) -> String {
    let text: String = tokens
        .to_token_stream()
        .to_string()
        .split_whitespace()
        .collect();
    text.replace(",)", ")")
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
            #[pool(fresh = Self::next_id)]
            serial: u64,
        }
    };
    let items = expand(&input);
    let expected = strings(&[
        quote!((& & & & & & &::pool_core::__private::Probe::of(&__pool_core_this.name)).kind().reset(&mut __pool_core_this.name, __pool_core_pass);),
        quote!((& & & & & & &::pool_core::__private::Probe::of(&__pool_core_this.age)).kind().reset(&mut __pool_core_this.age, __pool_core_pass);),
        quote!((& & & & & & &::pool_core::__private::Probe::of(&__pool_core_this.tags)).kind().reset(&mut __pool_core_this.tags, __pool_core_pass);),
        quote!((& & & & & & &::pool_core::__private::Probe::of(&__pool_core_this.body)).kind().reset(&mut __pool_core_this.body, __pool_core_pass);),
        quote!(<Vec<u8> as ::pool_core::__private::MaxCapacity>::shrink_past(&mut __pool_core_this.body, 65536);),
        // Fields with attributes are reset, and left alone by the probe of
        // the template.
        quote!(if __pool_core_pass.resets() {
            __pool_core_this.mode = <Mode as ::core::default::Default>::default();
        }),
        quote!(if __pool_core_pass.resets() {
            reset_scores(&mut __pool_core_this.scores);
        }),
        // `Self` in the user's path is the struct's name in the nested pass.
        quote!(if __pool_core_pass.resets() {
            __pool_core_this.serial = {
                let __pool_core_fresh: fn() -> u64 = Request::next_id;
                __pool_core_fresh()
            };
        }),
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
    let poolable = compact(quote!(#(#output)*));
    for expected in [
        quote!(#[automatically_derived] impl ::pool_core::Poolable for Request),
        quote!(let __pool_core_create: fn() -> Self = Self::make; __pool_core_create()),
        quote! {
            ::pool_core::pool! {
                @declare ::core::stringify!(Request), []
                    [<Request as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type]
                    [<Request as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type] =>
                static __POOL: ::pool_core::Pool<
                    <Request as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type
                > = ::pool_core::Pool::new(
                    <<Request as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type
                        as ::pool_core::Poolable>::create
                )
                .capacity(1024)
                .thread_capacity(PER_THREAD);
            }
            &__POOL
        },
    ] {
        let expected = compact(expected);
        assert!(
            poolable.contains(&expected),
            "missing `{expected}` in `{poolable}`"
        );
    }
}

#[test]
fn the_struct_is_checked_to_be_send_at_each_field_and_the_rest_goes_through_the_check() {
    let input: DeriveInput = parse_quote! {
        struct Session { name: String, counter: Counter, next: Option<Box<Self>> }
    };
    let output = const_block_items(&expand(&input));
    let output = compact(quote!(#(#output)*));
    for expected in [
        // Each field asked at its type, if the struct is not `Send`; `Self`
        // named (a constant has none).
        quote! {
            const __POOL_CORE_SEND: usize = {
                let _ = || {
                    #[allow(unused_imports)]
                    use ::pool_core::__private::{ProbeNotSend as _, ProbeSend as _};
                    let __pool_core_kind =
                        (&&::pool_core::__private::SendProbe::<Session>::new()).send_kind();
                    __pool_core_kind.field::<String>();
                    __pool_core_kind.field::<Counter>();
                    __pool_core_kind.field::<Option<Box<Session> > >();
                };
                0
            };
        },
        // `Poolable` assumes it, with a binder so that rustc does not check
        // the bound at the impl; the restore goes through the check.
        quote!(impl ::pool_core::Poolable for Session
            where for<'__pool_core> Session: ::core::marker::Send),
        quote!(__pool_core_template.restore::<
            <Session as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type
        >),
        // The fallback `acquire`, only for a failed check.
        quote!(impl Session where for<'__pool_core>
            <Session as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type:
                ::pool_core::__private::Failed),
    ] {
        let expected = compact(expected);
        assert!(
            output.contains(&expected),
            "missing `{expected}` in `{output}`"
        );
    }

    // A generic struct: no constant can name its parameters; its impls
    // are bounded by `Self: Send`, and it has no static.
    let generic: DeriveInput = parse_quote! {
        struct Frame<T> { data: Vec<T>, counter: Counter }
    };
    let output = derive(&generic).to_string();
    assert!(!output.contains("__POOL_CORE_SEND"), "{output}");
}

#[test]
fn tuple_and_unit_structs_reset_by_position_and_not_at_all() {
    let tuple: DeriveInput = parse_quote! {
        struct Pair(String, #[pool(skip)] u8, #[pool(default)] Mode);
    };
    let expected = strings(&[
        quote!((& & & & & & &::pool_core::__private::Probe::of(&__pool_core_this.0)).kind().reset(&mut __pool_core_this.0, __pool_core_pass);),
        quote!(if __pool_core_pass.resets() {
            __pool_core_this.2 = <Mode as ::core::default::Default>::default();
        }),
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
    let body = compact(&reset);
    assert!(
        body.contains(&compact(quote!(if __pool_core_template.is_clean() {
            __pool_fields(self, &mut ::pool_core::__private::Pass::clear());
        } else {
            #[allow(unused_imports)]
            use ::pool_core::__private::{LockedTemplate as _, ShareTemplate as _};
            unsafe {
                __pool_core_template.restore::<
                    <Settings as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type
                >(
                    self,
                    __pool_fields,
                    <<Settings as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type
                        as ::pool_core::Poolable>::create,
                    (&&::pool_core::__private::Share::<
                        <Settings as ::pool_core::__private::Checked<[(); __POOL_CORE_SEND]>>::Type
                    >::new())
                    .access(),
                );
            }
        }))),
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
    assert!(!output.contains(":: pool_core"), "{output}");
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

#[test]
fn a_part_gets_the_field_by_field_reset_and_nothing_else() {
    let input: DeriveInput = parse_quote! {
        struct LineItem<T> { sku: String, #[pool(default)] kind: T, #[pool(skip)] slot: usize }
    };
    let output = derive_any(&input, Derive::Reset);
    let text = output.to_string();
    assert!(!text.contains("Poolable"), "no pool: {text}");
    assert!(
        !text.contains("TEMPLATE") && !text.contains("template"),
        "{text}"
    );
    let items = expand_part(&input);
    assert_eq!(
        reset_statements(&items),
        strings(&[
            quote!(<String as ::pool_core::__private::ResetPart>::reset_part(&mut self.sku);),
            quote!(self.kind = <T as ::core::default::Default>::default();),
        ])
    );
    assert!(
        text.contains(&quote!(T: ::core::default::Default).to_string()),
        "the bound a generic part's reset needs: {text}"
    );
}

#[test]
fn a_part_with_pool_keys_gets_their_errors_and_a_reset_stub() {
    let input: DeriveInput = parse_quote! {
        #[pool(capacity = 4, new = LineItem::new)]
        struct LineItem { sku: String }
    };
    let items = expand_part(&input);
    let text = quote!(#(#items)*).to_string();
    assert_eq!(text.matches("compile_error").count(), 2, "{text}");
    assert!(!text.contains(":: Poolable for"), "{text}");
    assert!(
        text.contains(
            &quote!(
                fn reset(&mut self) {}
            )
            .to_string()
        ),
        "{text}"
    );
}

/// `#[derive(Reset)]`'s output, printed and parsed back.
fn expand_part(input: &DeriveInput) -> Vec<Item> {
    let output = derive_any(input, Derive::Reset);
    println!("{output}");
    let file: syn::File = syn::parse2(output).expect("the output is valid Rust");
    file.items
}

/// The names `tokens` bind: after `let`, and a `fn`'s parameters (not
/// `self`, not `_`), in nested groups too.
fn bindings(tokens: TokenStream, found: &mut Vec<String>) {
    use proc_macro2::{Delimiter, TokenTree};
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let names = |pattern: &[TokenTree], found: &mut Vec<String>| {
        for tree in pattern {
            match tree {
                TokenTree::Ident(ident)
                    if !matches!(ident.to_string().as_str(), "mut" | "ref" | "self" | "_") =>
                {
                    found.push(ident.to_string());
                }
                TokenTree::Group(group) => {
                    let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                    found.extend(inner.iter().filter_map(|tree| match tree {
                        TokenTree::Ident(ident) if ident != "mut" && ident != "_" => {
                            Some(ident.to_string())
                        }
                        _ => None,
                    }));
                }
                _ => {}
            }
        }
    };
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) if ident == "let" => {
                // The pattern: up to `=` or `:`.
                let pattern: Vec<TokenTree> = trees[i + 1..]
                    .iter()
                    .take_while(|tree| !matches!(tree, TokenTree::Punct(p) if p.as_char() == '=' || p.as_char() == ':'))
                    .cloned()
                    .collect();
                names(&pattern, found);
            }
            // A function item (`fn name`), not a pointer type (`fn(&T)`).
            TokenTree::Ident(ident)
                if ident == "fn" && matches!(trees.get(i + 1), Some(TokenTree::Ident(_))) =>
            {
                let Some(TokenTree::Group(params)) = trees[i + 1..].iter().find(
                    |tree| matches!(tree, TokenTree::Group(group) if group.delimiter() == Delimiter::Parenthesis),
                ) else {
                    continue;
                };
                let params: Vec<TokenTree> = params.stream().into_iter().collect();
                for param in
                    params.split(|tree| matches!(tree, TokenTree::Punct(p) if p.as_char() == ','))
                {
                    // The pattern: up to the first lone `:` (not `::`).
                    let end = param
                        .windows(2)
                        .position(|pair| {
                            matches!(&pair[0], TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Alone)
                        })
                        .unwrap_or(param.len());
                    names(&param[..end], found);
                }
            }
            TokenTree::Group(group) => bindings(group.stream(), found),
            _ => {}
        }
    }
}

// Issue 40, item 3: the derive bound `let __retain` (and `__create`,
// `__template`, and its pass's parameters `__this` and `__pass`), so a
// module with a static, a constant or a unit struct of one of these names
// could not derive `Poolable` ("let bindings cannot shadow statics"). Every
// local the output binds is in the `__pool_core_` space.
#[test]
fn every_local_the_output_binds_is_named_in_the_pool_core_space() {
    let every_key: DeriveInput = parse_quote! {
        #[pool(new = Self::make, retain = Self::keep, capacity = 8, reset_on = acquire)]
        struct Request {
            name: String,
            #[pool(reset = Self::clear)]
            scores: Vec<u8>,
            #[pool(default)]
            mode: Mode,
            #[pool(fresh = Self::next_id)]
            id: u64,
        }
    };
    let generic: DeriveInput = parse_quote! {
        #[pool(retain = Self::keep)]
        struct Frame<T> { data: Vec<T>, #[pool(max_capacity = 8)] bytes: Vec<u8> }
    };
    let mut found = Vec::new();
    for output in [
        derive(&every_key),
        derive(&generic),
        derive_any(&every_key, Derive::Reset),
        derive_any(&generic, Derive::Reset),
    ] {
        bindings(output, &mut found);
    }
    for expected in [
        "__pool_core_create",
        "__pool_core_retain",
        "__pool_core_this",
        "__pool_core_fresh",
    ] {
        assert!(
            found.iter().any(|name| name == expected),
            "{expected} in {found:?}"
        );
    }
    let outside: Vec<&String> = found
        .iter()
        .filter(|name| !name.starts_with("__pool_core_"))
        .collect();
    assert!(
        outside.is_empty(),
        "bound outside `__pool_core_`: {outside:?}"
    );
}

#[test]
fn bindings_are_found_after_let_and_in_parameters() {
    let mut found = Vec::new();
    bindings(
        quote! {
            fn f(&mut self, a: u8, (b, mut c): (u8, u8), _: ::core::ptr::NonNull<u8>, h: fn(&X)) {
                let d = 1;
                let (e, _) = (1, 2);
                { let mut g: u8 = 0; }
            }
        },
        &mut found,
    );
    assert_eq!(found, ["a", "b", "c", "h", "d", "e", "g"]);
}
