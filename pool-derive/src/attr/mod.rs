//! Reads `#[pool(...)]` attributes into typed slots.
//!
//! Every key's spelling is a [`Symbol`] constant here and nowhere else.
//! Parsing goes on past a bad key: its error is recorded in the [`Ctxt`],
//! the rest of the key is skipped up to the next comma, and the next key is
//! read, so one compile reports every mistake.

use std::fmt::{self, Display};

use proc_macro2::{Literal, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Attribute, Expr, ExprLit, ExprPath, Lit, Path, Token, parse_quote, token};

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

/// Field key: leave the field as it is.
pub(crate) const SKIP: Symbol = Symbol("skip");
/// Field key: reset to `Default::default()`.
pub(crate) const DEFAULT: Symbol = Symbol("default");
/// Field key: reset with a user function.
pub(crate) const RESET: Symbol = Symbol("reset");
/// Field key: shrink a buffer that grew past a bound.
pub(crate) const MAX_CAPACITY: Symbol = Symbol("max_capacity");

const STRUCT_KEYS: &[Symbol] = &[NEW, CAPACITY, THREAD_CAPACITY, CRATE];
const FIELD_KEYS: &[Symbol] = &[SKIP, DEFAULT, RESET, MAX_CAPACITY];

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

/// The struct's `#[pool(...)]` keys.
pub(crate) struct Container {
    pub(crate) new: Option<Set<ExprPath>>,
    pub(crate) capacity: Option<Set<Count>>,
    pub(crate) thread_capacity: Option<Set<Count>>,
    krate: Option<Set<Path>>,
}

impl Container {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut new = Slot::new(NEW);
        let mut capacity = Slot::new(CAPACITY);
        let mut thread_capacity = Slot::new(THREAD_CAPACITY);
        let mut krate = Slot::new(CRATE);
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
            } else if *key == CRATE {
                let value = path_value(meta, CRATE, "crate = ::my_crate::pool_core")?;
                match plain_path(value) {
                    Ok(path) => krate.set(cx, key, index, path),
                    Err(error) => cx.syn_error(error),
                }
            } else {
                return Err(unknown_key(meta, Position::Struct));
            }
            Ok(())
        });
        Container {
            new: new.get(),
            capacity: capacity.get(),
            thread_capacity: thread_capacity.get(),
            krate: krate.get(),
        }
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
    pub(crate) max_capacity: Option<Set<Count>>,
}

impl Field {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut skip = Slot::new(SKIP);
        let mut default = Slot::new(DEFAULT);
        let mut reset = Slot::new(RESET);
        let mut max_capacity = Slot::new(MAX_CAPACITY);
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
            } else if *key == MAX_CAPACITY {
                let value = count_value(meta, MAX_CAPACITY, "max_capacity = 65536")?;
                max_capacity.set(cx, key, index, value);
            } else {
                return Err(unknown_key(meta, Position::Field));
            }
            Ok(())
        });
        Field {
            skip: skip.get(),
            default: default.get(),
            reset: reset.get(),
            max_capacity: max_capacity.get(),
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

/// A key that takes no value: `#[pool(skip)]`.
fn flag(meta: &ParseNestedMeta<'_>, name: Symbol) -> syn::Result<()> {
    if meta.input.is_empty() || meta.input.peek(Token![,]) {
        return Ok(());
    }
    let key = &meta.path;
    let value = skip_to_comma(meta.input);
    Err(syn::Error::new_spanned(
        quote!(#key #value),
        format!("`{name}` takes no value: write `#[pool({name})]`"),
    ))
}

/// The expression after `key =`.
fn value(meta: &ParseNestedMeta<'_>, name: Symbol, example: &str) -> syn::Result<Expr> {
    if !meta.input.peek(Token![=]) {
        let key = &meta.path;
        let rest = if meta.input.peek(token::Paren) {
            skip_to_comma(meta.input)
        } else {
            TokenStream::new()
        };
        return Err(syn::Error::new_spanned(
            quote!(#key #rest),
            format!("`{name}` needs a value: write `#[pool({example})]`"),
        ));
    }
    meta.value()?.parse()
}

/// A path value: `new = Request::with_buffers`, `reset = clear_scores`.
fn path_value(meta: &ParseNestedMeta<'_>, name: Symbol, example: &str) -> syn::Result<ExprPath> {
    match value(meta, name, example)? {
        Expr::Path(path) if path.attrs.is_empty() => Ok(path),
        Expr::Lit(ExprLit {
            lit: Lit::Str(string),
            ..
        }) if string.parse::<Path>().is_ok() => Err(syn::Error::new_spanned(
            &string,
            format!(
                "write the path without quotes: `#[pool({name} = {})]`",
                string.value()
            ),
        )),
        other => Err(syn::Error::new_spanned(
            &other,
            format!(
                "`{name}` takes a path{}, like `#[pool({example})]`",
                found(&other)
            ),
        )),
    }
}

/// A path without `<T as Trait>::` or attributes: `crate = ::pool_core`.
fn plain_path(path: ExprPath) -> syn::Result<Path> {
    if path.qself.is_some() {
        return Err(syn::Error::new_spanned(
            &path,
            "`crate` takes the path of a crate or module, like `#[pool(crate = ::my_crate::pool_core)]`",
        ));
    }
    Ok(path.path)
}

/// A `usize` value: `capacity = 1024` or `capacity = CAPACITY`.
fn count_value(meta: &ParseNestedMeta<'_>, name: Symbol, example: &str) -> syn::Result<Count> {
    let expected = |found: &str| {
        format!(
            "`{name}` takes an integer or the path of a `usize` constant{found}, like `#[pool({example})]`"
        )
    };
    match value(meta, name, example)? {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => {
            if !matches!(int.suffix(), "" | "usize") {
                return Err(syn::Error::new_spanned(
                    &int,
                    format!(
                        "`{name}` is a `usize`: write `{}` without the `{}` suffix",
                        int.base10_digits(),
                        int.suffix()
                    ),
                ));
            }
            let count: usize = int.base10_parse().map_err(|_| {
                syn::Error::new_spanned(
                    &int,
                    format!("`{name}` is a `usize`, and this does not fit in one"),
                )
            })?;
            let mut literal = Literal::usize_unsuffixed(count);
            literal.set_span(int.span());
            Ok(Count(literal.into_token_stream()))
        }
        Expr::Path(path) if path.attrs.is_empty() && path.qself.is_none() => {
            Ok(Count(path.into_token_stream()))
        }
        Expr::Lit(ExprLit {
            lit: Lit::Str(string),
            ..
        }) if string.value().trim().parse::<usize>().is_ok() => Err(syn::Error::new_spanned(
            &string,
            format!(
                "write the number without quotes: `#[pool({name} = {})]`",
                string.value().trim()
            ),
        )),
        other => Err(syn::Error::new_spanned(&other, expected(&found(&other)))),
    }
}

/// Names the kind of a value of the wrong kind, for error messages: `, not
/// a string`.
fn found(expr: &Expr) -> String {
    let kind = match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Str(_) => "a string",
            Lit::Int(_) => "an integer",
            Lit::Float(_) => "a float",
            Lit::Bool(_) => "a bool",
            Lit::Char(_) => "a character",
            Lit::Byte(_) | Lit::ByteStr(_) | Lit::CStr(_) => "a byte literal",
            _ => "a literal",
        },
        Expr::Unary(_) => "an operation",
        Expr::Closure(_) => "a closure",
        Expr::Call(_) | Expr::MethodCall(_) => "a call",
        _ => return String::new(),
    };
    format!(", not {kind}")
}

/// Whether a key sits on the struct or on a field.
#[derive(Copy, Clone)]
enum Position {
    Struct,
    Field,
}

impl Position {
    const fn keys(self) -> &'static [Symbol] {
        match self {
            Position::Struct => STRUCT_KEYS,
            Position::Field => FIELD_KEYS,
        }
    }

    const fn name(self) -> &'static str {
        match self {
            Position::Struct => "struct",
            Position::Field => "field",
        }
    }

    const fn other(self) -> Self {
        match self {
            Position::Struct => Position::Field,
            Position::Field => Position::Struct,
        }
    }
}

/// The error for a key that is not one of `position`'s: names the key, says
/// where it belongs if it is the other position's, suggests the nearest
/// spelling, and lists the valid keys.
fn unknown_key(meta: &ParseNestedMeta<'_>, position: Position) -> syn::Error {
    let path = &meta.path;
    let key = path.to_token_stream().to_string().replace(' ', "");
    let keys = list(position.keys());
    let here = position.name();
    let other = position.other();
    let message = if other.keys().iter().any(|symbol| *path == *symbol) {
        let there = other.name();
        format!("`{key}` is a {there} key and cannot go on a {here}; the {here} keys are {keys}")
    } else if let Some(symbol) = did_you_mean(&key, position.keys()) {
        format!(
            "unknown {here} key `{key}` in `#[pool(...)]`: did you mean `{symbol}`? The {here} keys are {keys}"
        )
    } else {
        format!("unknown {here} key `{key}` in `#[pool(...)]`; the {here} keys are {keys}")
    };
    syn::Error::new_spanned(path, message)
}

/// `` `a`, `b` and `c` ``.
fn list(symbols: &[Symbol]) -> String {
    let quoted: Vec<String> = symbols.iter().map(|s| format!("`{s}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The valid key that `key` is most likely a misspelling of, if any: the
/// same up to case, `-` and `_`; a prefix of it; or within a few edits.
fn did_you_mean(key: &str, candidates: &[Symbol]) -> Option<Symbol> {
    let normal = |s: &str| s.to_ascii_lowercase().replace(['_', '-'], "");
    candidates
        .iter()
        .filter_map(|&symbol| {
            let candidate = symbol.as_str();
            let distance = if normal(key) == normal(candidate)
                || (key.len() >= 3 && candidate.starts_with(key))
            {
                0
            } else {
                edit_distance(key, candidate)
            };
            (distance <= (candidate.len() / 3).max(1)).then_some((distance, symbol))
        })
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, symbol)| symbol)
}

/// Levenshtein distance, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{CAPACITY, FIELD_KEYS, MAX_CAPACITY, STRUCT_KEYS, THREAD_CAPACITY, did_you_mean};
    use super::{edit_distance, list};

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("capacity", "capacity"), 0);
        assert_eq!(edit_distance("capcity", "capacity"), 1);
        assert_eq!(edit_distance("capasity", "capacity"), 1);
        assert_eq!(edit_distance("", "new"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn misspelled_keys_get_a_suggestion_and_strangers_do_not() {
        assert_eq!(did_you_mean("capcity", STRUCT_KEYS), Some(CAPACITY));
        assert_eq!(
            did_you_mean("threadCapacity", STRUCT_KEYS),
            Some(THREAD_CAPACITY)
        );
        assert_eq!(
            did_you_mean("thread-capacity", STRUCT_KEYS),
            Some(THREAD_CAPACITY)
        );
        assert_eq!(did_you_mean("max_cap", FIELD_KEYS), Some(MAX_CAPACITY));
        assert_eq!(did_you_mean("frobnicate", STRUCT_KEYS), None);
        assert_eq!(did_you_mean("x", FIELD_KEYS), None);
    }

    #[test]
    fn keys_are_listed_in_prose() {
        assert_eq!(
            list(STRUCT_KEYS),
            "`new`, `capacity`, `thread_capacity` and `crate`"
        );
    }
}
