//! Reads `#[pool(...)]` attributes into typed slots: the struct's keys
//! ([`Container`]) and a field's ([`Field`]).
//!
//! Every key's spelling is a [`Symbol`] constant here and nowhere else.
//! Parsing goes on past a bad key: its error is recorded in the [`Ctxt`],
//! the rest of the key is skipped up to the next comma, and the next key is
//! read, so one compile reports every mistake.
//!
//! Invariant: each slot holds the first value its key was given, or none; a
//! key given twice, a bad value or an unknown key adds one error to the
//! [`Ctxt`] and leaves the other keys to be read.
//!
//! A key's value is read in `value`; the error for an unknown key, with
//! its suggestion, is made in `unknown`.

mod unknown;
mod value;

use std::fmt::{self, Display};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Attribute, ExprPath, LitStr, Path, parse_quote};

use self::unknown::{Position, unknown_key};
use self::value::{
    bool_value, count_value, flag, path_value, plain_path, reset_on_value, str_value,
};
use crate::ctxt::Ctxt;

/// The spelling of an attribute or key.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Symbol(&'static str);

/// The attribute itself: `#[pool(...)]`.
pub(crate) const POOL: Symbol = Symbol("pool");

/// Struct key: the constructor for new objects, instead of `Default`.
pub(crate) const NEW: Symbol = Symbol("new");
/// Struct key: the pool's shared capacity.
pub(crate) const CAPACITY: Symbol = Symbol("capacity");
/// Struct key: each thread cache's capacity.
pub(crate) const THREAD_CAPACITY: Symbol = Symbol("thread_capacity");
/// Struct key: the path to `pool_core`, for re-exports.
pub(crate) const CRATE: Symbol = Symbol("crate");
/// Struct key: where the pool resets its objects, `acquire` or `release`.
pub(crate) const RESET_ON: Symbol = Symbol("reset_on");
/// Struct key: the test a released object must pass to stay pooled.
pub(crate) const RETAIN: Symbol = Symbol("retain");
/// Struct key: the name `pools()` and the metrics list the pool under.
pub(crate) const NAME: Symbol = Symbol("name");
/// Struct key: the bound in bytes on what a kept object holds.
pub(crate) const MAX_BYTES: Symbol = Symbol("max_bytes");
/// Struct key: whether the pool learns its bound in bytes.
pub(crate) const CALIBRATE: Symbol = Symbol("calibrate");
/// Struct key: the budget of the heap bytes the idle objects hold.
pub(crate) const MAX_IDLE_BYTES: Symbol = Symbol("max_idle_bytes");

/// Field key: leave the field as it is.
pub(crate) const SKIP: Symbol = Symbol("skip");
/// Field key: reset to `Default::default()`.
pub(crate) const DEFAULT: Symbol = Symbol("default");
/// Field key: reset with a user function.
pub(crate) const RESET: Symbol = Symbol("reset");
/// Field key: shrink a buffer that grew past a bound.
pub(crate) const MAX_CAPACITY: Symbol = Symbol("max_capacity");
/// Field key: a new value from a user function at each reset.
pub(crate) const FRESH: Symbol = Symbol("fresh");
/// Field key: the function that counts the field's heap bytes.
pub(crate) const HEAP_BYTES: Symbol = Symbol("heap_bytes");

const STRUCT_KEYS: &[Symbol] = &[
    NEW,
    CAPACITY,
    THREAD_CAPACITY,
    RETAIN,
    NAME,
    CRATE,
    RESET_ON,
    MAX_BYTES,
    CALIBRATE,
    MAX_IDLE_BYTES,
];
const FIELD_KEYS: &[Symbol] = &[SKIP, DEFAULT, RESET, FRESH, MAX_CAPACITY, HEAP_BYTES];

impl Symbol {
    pub(crate) const fn as_str(self) -> &'static str {
        self.0
    }
}

impl PartialEq<Symbol> for Path {
    fn eq(&self, symbol: &Symbol) -> bool {
        self.is_ident(symbol.0)
    }
}

impl Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// A key that was given: where (for errors), in which order among its
/// item's keys (to point a conflict at the later one), and its value.
pub(crate) struct Set<T> {
    pub(crate) key: Path,
    pub(crate) index: usize,
    pub(crate) value: T,
}

/// A key that may be given once.
struct Slot<T> {
    name: Symbol,
    set: Option<Set<T>>,
}

impl<T> Slot<T> {
    const fn new(name: Symbol) -> Self {
        Slot { name, set: None }
    }

    fn set(&mut self, cx: &Ctxt, key: &Path, index: usize, value: T) {
        if self.set.is_some() {
            let name = self.name;
            cx.error_spanned_by(key, format!("`{name}` is given twice; remove one"));
        } else {
            self.set = Some(Set {
                key: key.clone(),
                index,
                value,
            });
        }
    }

    fn get(self) -> Option<Set<T>> {
        self.set
    }
}

/// A `usize` for the generated code: an integer literal or a constant's
/// path, spanned where the user wrote it.
pub(crate) struct Count(TokenStream);

impl ToTokens for Count {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.0.to_tokens(tokens);
    }
}

/// The value of `reset_on`: which thread resets a pooled object.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ResetOn {
    Release,
    Acquire,
}

/// The struct's `#[pool(...)]` keys.
pub(crate) struct Container {
    pub(crate) new: Option<Set<ExprPath>>,
    pub(crate) capacity: Option<Set<Count>>,
    pub(crate) thread_capacity: Option<Set<Count>>,
    pub(crate) reset_on: Option<Set<ResetOn>>,
    pub(crate) retain: Option<Set<ExprPath>>,
    pub(crate) name: Option<Set<LitStr>>,
    pub(crate) max_bytes: Option<Set<Count>>,
    pub(crate) calibrate: Option<Set<bool>>,
    pub(crate) max_idle_bytes: Option<Set<Count>>,
    krate: Option<Set<Path>>,
}

impl Container {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut new = Slot::new(NEW);
        let mut capacity = Slot::new(CAPACITY);
        let mut thread_capacity = Slot::new(THREAD_CAPACITY);
        let mut retain = Slot::new(RETAIN);
        let mut name = Slot::new(NAME);
        let mut krate = Slot::new(CRATE);
        let mut reset_on = Slot::new(RESET_ON);
        let mut max_bytes = Slot::new(MAX_BYTES);
        let mut calibrate = Slot::new(CALIBRATE);
        let mut max_idle_bytes = Slot::new(MAX_IDLE_BYTES);
        for_each_key(cx, attrs, |meta, index| {
            let key = &meta.path;
            if *key == NEW {
                let value = path_value(meta, NEW, "new = Request::with_buffers")?;
                new.set(cx, key, index, value);
            } else if *key == CAPACITY {
                let value = count_value(meta, CAPACITY, "capacity = 1024")?;
                capacity.set(cx, key, index, value);
            } else if *key == THREAD_CAPACITY {
                let value = count_value(meta, THREAD_CAPACITY, "thread_capacity = 32")?;
                thread_capacity.set(cx, key, index, value);
            } else if *key == RETAIN {
                let value = path_value(meta, RETAIN, "retain = Request::worth_keeping")?;
                retain.set(cx, key, index, value);
            } else if *key == NAME {
                let value = str_value(meta, NAME, "name = \"requests\"")?;
                name.set(cx, key, index, value);
            } else if *key == CRATE {
                let value = path_value(meta, CRATE, "crate = ::my_crate::pool_core")?;
                match plain_path(value) {
                    Ok(path) => krate.set(cx, key, index, path),
                    Err(error) => cx.syn_error(error),
                }
            } else if *key == RESET_ON {
                let value = reset_on_value(meta, RESET_ON)?;
                reset_on.set(cx, key, index, value);
            } else if *key == MAX_BYTES {
                let value = count_value(meta, MAX_BYTES, "max_bytes = 65536")?;
                max_bytes.set(cx, key, index, value);
            } else if *key == CALIBRATE {
                let value = bool_value(meta, CALIBRATE, "calibrate = false")?;
                calibrate.set(cx, key, index, value);
            } else if *key == MAX_IDLE_BYTES {
                let value = count_value(meta, MAX_IDLE_BYTES, "max_idle_bytes = 8388608")?;
                max_idle_bytes.set(cx, key, index, value);
            } else {
                return Err(unknown_key(meta, Position::Struct));
            }
            Ok(())
        });
        Container {
            new: new.get(),
            capacity: capacity.get(),
            thread_capacity: thread_capacity.get(),
            reset_on: reset_on.get(),
            retain: retain.get(),
            name: name.get(),
            max_bytes: max_bytes.get(),
            calibrate: calibrate.get(),
            max_idle_bytes: max_idle_bytes.get(),
            krate: krate.get(),
        }
    }

    /// The keys given that configure the pool or the constructor, which a
    /// `#[derive(Reset)]` struct has none of: each key's name and where it
    /// was written, for its error. Every struct key but `crate` is one.
    pub(crate) fn pool_keys(&self) -> Vec<(Symbol, &Path)> {
        let keys = [
            (NEW, self.new.as_ref().map(|set| (&set.key, set.index))),
            (
                CAPACITY,
                self.capacity.as_ref().map(|set| (&set.key, set.index)),
            ),
            (
                THREAD_CAPACITY,
                self.thread_capacity
                    .as_ref()
                    .map(|set| (&set.key, set.index)),
            ),
            (
                RESET_ON,
                self.reset_on.as_ref().map(|set| (&set.key, set.index)),
            ),
            (
                MAX_BYTES,
                self.max_bytes.as_ref().map(|set| (&set.key, set.index)),
            ),
            (
                CALIBRATE,
                self.calibrate.as_ref().map(|set| (&set.key, set.index)),
            ),
            (
                MAX_IDLE_BYTES,
                self.max_idle_bytes
                    .as_ref()
                    .map(|set| (&set.key, set.index)),
            ),
        ];
        let mut given: Vec<_> = keys
            .into_iter()
            .filter_map(|(name, key)| Some((name, key?)))
            .collect();
        // In the order they were written.
        given.sort_by_key(|(_, (_, index))| *index);
        given
            .into_iter()
            .map(|(name, (key, _))| (name, key))
            .collect()
    }

    /// The path the generated code reaches the runtime through:
    /// `::pool_core` unless `#[pool(crate = path)]` says otherwise.
    pub(crate) fn krate(&self) -> Path {
        match &self.krate {
            Some(set) => set.value.clone(),
            None => parse_quote!(::pool_core),
        }
    }
}

/// A field's `#[pool(...)]` keys.
pub(crate) struct Field {
    pub(crate) skip: Option<Set<()>>,
    pub(crate) default: Option<Set<()>>,
    pub(crate) reset: Option<Set<ExprPath>>,
    pub(crate) fresh: Option<Set<ExprPath>>,
    pub(crate) max_capacity: Option<Set<Count>>,
    pub(crate) heap_bytes: Option<Set<ExprPath>>,
}

impl Field {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut skip = Slot::new(SKIP);
        let mut default = Slot::new(DEFAULT);
        let mut reset = Slot::new(RESET);
        let mut fresh = Slot::new(FRESH);
        let mut max_capacity = Slot::new(MAX_CAPACITY);
        let mut heap_bytes = Slot::new(HEAP_BYTES);
        for_each_key(cx, attrs, |meta, index| {
            let key = &meta.path;
            if *key == SKIP {
                flag(meta, SKIP)?;
                skip.set(cx, key, index, ());
            } else if *key == DEFAULT {
                flag(meta, DEFAULT)?;
                default.set(cx, key, index, ());
            } else if *key == RESET {
                let value = path_value(meta, RESET, "reset = clear_scores")?;
                reset.set(cx, key, index, value);
            } else if *key == FRESH {
                let value = path_value(meta, FRESH, "fresh = next_id")?;
                fresh.set(cx, key, index, value);
            } else if *key == MAX_CAPACITY {
                let value = count_value(meta, MAX_CAPACITY, "max_capacity = 65536")?;
                max_capacity.set(cx, key, index, value);
            } else if *key == HEAP_BYTES {
                let value = path_value(meta, HEAP_BYTES, "heap_bytes = Cache::heap_bytes")?;
                heap_bytes.set(cx, key, index, value);
            } else {
                return Err(unknown_key(meta, Position::Field));
            }
            Ok(())
        });
        Field {
            skip: skip.get(),
            default: default.get(),
            reset: reset.get(),
            fresh: fresh.get(),
            max_capacity: max_capacity.get(),
            heap_bytes: heap_bytes.get(),
        }
    }
}

/// Calls `each` on every key of every `#[pool(...)]` in `attrs`, with the
/// key's position among them. An error from `each` is recorded and the rest
/// of that key skipped, so the next key is still read.
fn for_each_key(
    cx: &Ctxt,
    attrs: &[Attribute],
    mut each: impl FnMut(&ParseNestedMeta<'_>, usize) -> syn::Result<()>,
) {
    let mut index = 0;
    for attr in attrs.iter().filter(|attr| *attr.path() == POOL) {
        let parsed = attr.parse_nested_meta(|meta| {
            index += 1;
            if let Err(error) = each(&meta, index) {
                cx.syn_error(error);
                skip_to_comma(meta.input);
            }
            Ok(())
        });
        if let Err(error) = parsed {
            cx.syn_error(error);
        }
    }
}

/// Consumes the tokens up to the next top-level comma (or the end).
fn skip_to_comma(input: ParseStream<'_>) -> TokenStream {
    input
        .step(|cursor| {
            let mut skipped = TokenStream::new();
            let mut rest = *cursor;
            while let Some((tree, next)) = rest.token_tree() {
                if matches!(&tree, TokenTree::Punct(punct) if punct.as_char() == ',') {
                    break;
                }
                skipped.extend([tree]);
                rest = next;
            }
            Ok((skipped, rest))
        })
        .unwrap_or_default()
}
