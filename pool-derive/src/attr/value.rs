//! Reads the value of one `#[pool(...)]` key: none for a flag, a path, a
//! crate's path, a `usize` count, a string, or where the reset runs.
//!
//! Invariant: a value is returned spanned where the user wrote it; a value
//! of the wrong kind gives one error, spanned at it (or at the key when the
//! value is missing), that says what the key takes and how to write it, and
//! nothing past the next top-level comma is consumed.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprLit, ExprPath, Lit, LitStr, Path, Token, token};

use super::{Count, ResetOn, Symbol, skip_to_comma};

/// A key that takes no value: `#[pool(skip)]`.
pub(super) fn flag(meta: &ParseNestedMeta<'_>, name: Symbol) -> syn::Result<()> {
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
pub(super) fn path_value(
    meta: &ParseNestedMeta<'_>,
    name: Symbol,
    example: &str,
) -> syn::Result<ExprPath> {
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

/// A `true` or `false` value: `calibrate = false`.
pub(super) fn bool_value(
    meta: &ParseNestedMeta<'_>,
    name: Symbol,
    example: &str,
) -> syn::Result<bool> {
    match value(meta, name, example)? {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(value),
            ..
        }) => Ok(value.value),
        other => Err(syn::Error::new_spanned(
            &other,
            format!(
                "`{name}` takes `true` or `false`{}, like `#[pool({example})]`",
                found(&other)
            ),
        )),
    }
}

/// A non-empty string value: `name = "requests"`.
pub(super) fn str_value(
    meta: &ParseNestedMeta<'_>,
    name: Symbol,
    example: &str,
) -> syn::Result<LitStr> {
    match value(meta, name, example)? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(string),
            ..
        }) => {
            if string.value().is_empty() {
                return Err(syn::Error::new_spanned(
                    &string,
                    format!("`{name}` cannot be empty, like `#[pool({example})]`"),
                ));
            }
            Ok(string)
        }
        Expr::Path(path) if path.attrs.is_empty() && path.qself.is_none() => {
            let written = quote!(#path).to_string().replace(' ', "");
            Err(syn::Error::new_spanned(
                &path,
                format!("`{name}` takes a string: write `#[pool({name} = \"{written}\")]`"),
            ))
        }
        other => Err(syn::Error::new_spanned(
            &other,
            format!(
                "`{name}` takes a string{}, like `#[pool({example})]`",
                found(&other)
            ),
        )),
    }
}

/// A path without `<T as Trait>::` or attributes: `crate = ::pool_core`.
pub(super) fn plain_path(path: ExprPath) -> syn::Result<Path> {
    if path.qself.is_some() {
        return Err(syn::Error::new_spanned(
            &path,
            "`crate` takes the path of a crate or module, like `#[pool(crate = ::my_crate::pool_core)]`",
        ));
    }
    Ok(path.path)
}

/// Where the reset runs: `reset_on = acquire` or `reset_on = release`.
pub(super) fn reset_on_value(meta: &ParseNestedMeta<'_>, name: Symbol) -> syn::Result<ResetOn> {
    let expr = value(meta, name, "reset_on = acquire")?;
    if let Expr::Path(path) = &expr {
        if path.attrs.is_empty() && path.qself.is_none() {
            if path.path.is_ident("acquire") {
                return Ok(ResetOn::Acquire);
            }
            if path.path.is_ident("release") {
                return Ok(ResetOn::Release);
            }
        }
    }
    Err(syn::Error::new_spanned(
        &expr,
        format!(
            "`{name}` takes `acquire` or `release`{}, like `#[pool(reset_on = acquire)]`",
            found(&expr)
        ),
    ))
}

/// A `usize` value: `capacity = 1024` or `capacity = CAPACITY`.
pub(super) fn count_value(
    meta: &ParseNestedMeta<'_>,
    name: Symbol,
    example: &str,
) -> syn::Result<Count> {
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
