//! Checks that span several keys or the item's shape; each error points at
//! the offending tokens and says what to write instead.

use quote::quote;

use crate::ast::{Data, Field, Input};
use crate::attr::{DEFAULT, MAX_CAPACITY, RESET, SKIP, Set, Symbol};
use crate::ctxt::Ctxt;

pub(crate) fn check(cx: &Ctxt, input: &Input<'_>) {
    check_shape(cx, input);
    check_generics(cx, input);
    if let Data::Struct(fields) = &input.data {
        for field in fields {
            check_field(cx, field);
        }
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
    cx.error_spanned_by(
        keyword,
        format!(
            "only structs can derive `Poolable`, and `{ident}` is {kind}; \
             implement `Reset` and `Poolable` for it by hand (see the docs of `pool_core::Poolable`), \
             or wrap it in a struct that derives `Poolable`"
        ),
    );
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
    let keys: [(Symbol, Option<Key<'_>>); 4] = [
        (SKIP, attrs.skip.as_ref().map(Key::of)),
        (DEFAULT, attrs.default.as_ref().map(Key::of)),
        (RESET, attrs.reset.as_ref().map(Key::of)),
        (MAX_CAPACITY, attrs.max_capacity.as_ref().map(Key::of)),
    ];
    let conflicts: [(Symbol, Symbol, &str); 5] = [
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
