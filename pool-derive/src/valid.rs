//! Checks that span several keys or the item's shape; each error points at
//! the offending tokens and says what to write instead.

use quote::quote;

use crate::ast::{Data, Derive, Field, Input};
use crate::attr::{DEFAULT, FRESH, MAX_CAPACITY, NEW, RESET, SKIP, Set, Symbol};
use crate::ctxt::Ctxt;

/// What the checks found that the stub impls must know about.
pub(crate) struct Findings {
    /// A field's type is an `Rc`, never `Send`: the stub cannot implement
    /// `Poolable` (whose supertrait `Send` would fail too).
    pub(crate) not_send: bool,
}

pub(crate) fn check(cx: &Ctxt, input: &Input<'_>) -> Findings {
    check_shape(cx, input);
    check_repr(cx, input);
    let poolable = input.derive == Derive::Poolable;
    if poolable {
        check_generics(cx, input);
    } else {
        check_part_keys(cx, input);
    }
    let mut not_send = false;
    if let Data::Struct(fields) = &input.data {
        for field in fields {
            check_field(cx, field);
            // A part need not be `Send` on its own: the pooled struct that
            // holds it must, and rustc says so there.
            not_send |= poolable && check_send(cx, field);
        }
    }
    Findings { not_send }
}

/// `#[derive(Reset)]` makes no pool and calls no constructor, so the keys
/// that configure those have nothing to act on.
fn check_part_keys(cx: &Ctxt, input: &Input<'_>) {
    let ident = &input.original.ident;
    for (name, key) in input.attrs.pool_keys() {
        let why = if name == NEW {
            format!(
                "`#[derive(Reset)]` calls no constructor: `{ident}` is reset field by field, \
                 each field as its type's `Reset` or its own attribute says (`#[pool(reset = \
                 path)]` gives a field another reset value)"
            )
        } else {
            format!(
                "`{name}` configures a pool, and `#[derive(Reset)]` makes none: `{ident}` is \
                 reset as a part of the pooled object that holds it"
            )
        };
        cx.error_spanned_by(
            key,
            format!(
                "{why}; remove `{name}`, or derive `Poolable` for a struct with a pool of its own"
            ),
        );
    }
}

/// No `#[repr(packed)]`: the reset takes `&mut` of each field, which Rust
/// refuses for a packed struct's possibly unaligned fields (E0793, from
/// inside the expansion, without this check).
fn check_repr(cx: &Ctxt, input: &Input<'_>) {
    for attr in &input.original.attrs {
        if !attr.path().is_ident("repr") {
            continue;
        }
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        let packed = list.tokens.clone().into_iter().find(
            |token| matches!(token, proc_macro2::TokenTree::Ident(ident) if ident == "packed"),
        );
        if let Some(packed) = packed {
            let derive = input.derive.name();
            let by_hand = match input.derive {
                Derive::Poolable => "`Reset` and `Poolable`",
                Derive::Reset => "`Reset`",
            };
            cx.error_spanned_by(
                packed,
                format!(
                    "`#[derive({derive})]` does not support `#[repr(packed)]` structs: resetting \
                     a field in place takes a reference to it, and a packed struct's fields may \
                     be unaligned, which Rust forbids references to; remove `packed`, or \
                     implement {by_hand} by hand, resetting each field by value \
                     (`self.len = 0`, see the docs of `pool_core::Poolable`)"
                ),
            );
        }
    }
}

/// A field whose type is, by its name, never `Send` (`Rc`, `rc::Weak`, also
/// inside another type): reported here once, at the field, instead of by
/// rustc at every place the expansion and the user's code need `Send` (17
/// errors for one `Rc<String>` field before this check), with the way out.
/// A type that hides one (a struct of the user's holding an `Rc`) is left
/// to the expansion's check (`expand::send`), one error at the field too.
/// Raw pointers and `NonNull` are left to that check as well, which asks
/// the fields only if the struct is not `Send`: a struct holding one may be
/// `Send` by an `unsafe impl` the derive cannot see. Returns whether it
/// reported.
fn check_send(cx: &Ctxt, field: &Field<'_>) -> bool {
    let Some(found) = never_send(field.ty) else {
        return false;
    };
    let name = match &field.member {
        syn::Member::Named(ident) => format!("field `{ident}`"),
        syn::Member::Unnamed(index) => format!("field {}", index.index),
    };
    let what = quote!(#found).to_string().replace(' ', "");
    cx.error_spanned_by(
        field.ty,
        format!(
            "{name} holds an `{what}`, which is not `Send`: a pooled object may be released on \
             one thread and acquired on another, so a type that derives `Poolable` must be \
             `Send`; use `std::sync::Arc` instead (and `std::sync::Weak` for `rc::Weak`), or \
             keep the value out of the pooled struct"
        ),
    );
    true
}

/// The first `Rc` or `rc::Weak` inside `ty`, by its name. Function
/// pointers are `Send` whatever they take, so they are not looked into.
fn never_send(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::Path(path) => {
            let segments = &path.path.segments;
            let last = segments.last()?;
            let in_rc = segments.len() >= 2 && segments[segments.len() - 2].ident == "rc";
            if last.ident == "Rc" || (last.ident == "Weak" && in_rc) {
                return Some(ty);
            }
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            args.args.iter().find_map(|arg| match arg {
                syn::GenericArgument::Type(inner) => never_send(inner),
                _ => None,
            })
        }
        syn::Type::Array(array) => never_send(&array.elem),
        syn::Type::Slice(slice) => never_send(&slice.elem),
        syn::Type::Paren(paren) => never_send(&paren.elem),
        syn::Type::Group(group) => never_send(&group.elem),
        syn::Type::Tuple(tuple) => tuple.elems.iter().find_map(never_send),
        _ => None,
    }
}

/// Only structs: a pooled object is reset field by field.
fn check_shape(cx: &Ctxt, input: &Input<'_>) {
    let ident = &input.original.ident;
    let (keyword, kind) = match &input.data {
        Data::Struct(_) => return,
        Data::Enum(data) => {
            let token = data.enum_token;
            (quote!(#token #ident), "an enum")
        }
        Data::Union(data) => {
            let token = data.union_token;
            (quote!(#token #ident), "a union")
        }
    };
    let message = match input.derive {
        Derive::Poolable => format!(
            "only structs can derive `Poolable`, and `{ident}` is {kind}; \
             implement `Reset` and `Poolable` for it by hand (see the docs of `pool_core::Poolable`), \
             or wrap it in a struct that derives `Poolable`"
        ),
        Derive::Reset => format!(
            "only structs can derive `Reset`, and `{ident}` is {kind}; implement `Reset` for it \
             by hand (see the docs of `pool_core::Reset`), or, as a field of a derived struct, \
             give it `#[pool(reset = path)]`"
        ),
    };
    cx.error_spanned_by(keyword, message);
}

/// Type and const parameters are fine (each instantiation gets a pool of
/// its own); a lifetime is not: a pool keeps its objects past any borrow.
fn check_generics(cx: &Ctxt, input: &Input<'_>) {
    let generics = &input.original.generics;
    if generics.lifetimes().next().is_none() {
        return;
    }
    cx.error_spanned_by(
        generics,
        "`Poolable` cannot be derived for a struct with a lifetime parameter: its pool keeps \
         objects for the life of the process, past any borrow; own the data instead (a `String` \
         for a `&str`, a `Vec` for a slice), or implement `Poolable` by hand for a `'static` \
         instance (see the docs of `pool_core::Poolable`)",
    );
}

/// Keys that contradict each other on one field. Each conflict is reported
/// once, at the later of its two keys.
fn check_field(cx: &Ctxt, field: &Field<'_>) {
    let attrs = &field.attrs;
    let keys: [(Symbol, Option<Key<'_>>); 5] = [
        (SKIP, attrs.skip.as_ref().map(Key::of)),
        (DEFAULT, attrs.default.as_ref().map(Key::of)),
        (RESET, attrs.reset.as_ref().map(Key::of)),
        (FRESH, attrs.fresh.as_ref().map(Key::of)),
        (MAX_CAPACITY, attrs.max_capacity.as_ref().map(Key::of)),
    ];
    let conflicts: [(Symbol, Symbol, &str); 9] = [
        (
            SKIP,
            DEFAULT,
            "`skip` keeps the field as it is and `default` replaces it; keep one",
        ),
        (
            SKIP,
            RESET,
            "`skip` keeps the field as it is and `reset` calls a function on it; keep one",
        ),
        (
            DEFAULT,
            RESET,
            "`default` and `reset` both say how to reset the field; keep one",
        ),
        (
            SKIP,
            FRESH,
            "`skip` keeps the field as it is and `fresh` gives it a new value; keep one",
        ),
        (
            DEFAULT,
            FRESH,
            "`default` and `fresh` both say what value the field gets; keep one",
        ),
        (
            RESET,
            FRESH,
            "`reset` calls a function on the field and `fresh` replaces it; keep one",
        ),
        (
            FRESH,
            MAX_CAPACITY,
            "`max_capacity` has no effect on a field that `fresh` replaces; remove one",
        ),
        (
            SKIP,
            MAX_CAPACITY,
            "`max_capacity` has no effect on a field that `skip` keeps as it is; remove one",
        ),
        (
            DEFAULT,
            MAX_CAPACITY,
            "`max_capacity` has no effect on a field that `default` replaces; remove one",
        ),
    ];
    let given = |name: Symbol| keys.iter().find(|(symbol, _)| *symbol == name)?.1;
    let mut reported = Vec::new();
    for (a, b, why) in conflicts {
        let (Some(first), Some(second)) = (given(a), given(b)) else {
            continue;
        };
        let later = if first.index > second.index {
            first
        } else {
            second
        };
        if reported.contains(&later.index) {
            continue;
        }
        reported.push(later.index);
        cx.error_spanned_by(
            later.path,
            format!("`{a}` and `{b}` cannot both be given: {why}"),
        );
    }
}

/// Where a field key was given.
#[derive(Copy, Clone)]
struct Key<'a> {
    path: &'a syn::Path,
    index: usize,
}

impl<'a> Key<'a> {
    fn of<T>(set: &'a Set<T>) -> Self {
        Key {
            path: &set.key,
            index: set.index,
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::never_send;

    #[test]
    fn rc_is_found_by_name_also_inside_other_types() {
        let cases: [(syn::Type, bool); 10] = [
            (parse_quote!(Rc<String>), true),
            (parse_quote!(std::rc::Rc<String>), true),
            (parse_quote!(Vec<Option<Rc<u8>>>), true),
            (parse_quote!(rc::Weak<u8>), true),
            (parse_quote!((u8, [Rc<u8>; 4])), true),
            (parse_quote!(Arc<String>), false),
            (parse_quote!(sync::Weak<u8>), false),
            (parse_quote!(fn(Rc<u8>) -> Rc<u8>), false),
            (parse_quote!(*const u8), false),
            (parse_quote!(HashMap<String, Vec<u8>>), false),
        ];
        for (ty, expected) in cases {
            assert_eq!(
                never_send(&ty).is_some(),
                expected,
                "{}",
                quote::quote!(#ty)
            );
        }
    }
}
