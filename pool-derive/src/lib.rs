//! `#[derive(Poolable)]` for `pool-core`. Use it through `pool_core::Poolable`;
//! this crate is not meant to be a dependency of its own.
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations, unreachable_pub)]

// The derive runs in stages, one module each: `attr` reads the
// `#[pool(...)]` attributes into typed slots, `ast` pairs them with the
// borrowed syn tree, `valid` checks what spans several keys or the item's
// shape, and `expand` generates the code, or `fallback` the errors and a
// stub. Every stage records its errors in one `ctxt::Ctxt`, so the user sees
// all of them at once.

mod ast;
mod attr;
mod ctxt;
mod expand;
mod fallback;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `Reset` (field by field) and `Poolable` (with a static pool and
/// its per-thread cache) for a struct.
///
/// ```rust,ignore
/// use pool_core::{Poolable, Pooled};
///
/// #[derive(Poolable, Default)]
/// struct Request {
///     path: String,       // cleared, its buffer kept
///     headers: Vec<u8>,   // cleared, its buffer kept
///     retries: u32,       // back to 0
/// }
///
/// let mut request: Pooled<Request> = Request::acquire();
/// request.path.push_str("/index.html");
/// drop(request); // reset and cached for the next `Request::acquire()`
/// ```
///
/// Named, tuple and unit structs are supported. New objects come from
/// `Default::default()` unless `#[pool(new = path)]` names a constructor.
/// Each field is reset with its type's `Reset` unless a field attribute
/// says otherwise; a struct that derives `Poolable` implements `Reset`, so
/// it can be a field of another derived struct.
///
/// # Struct attributes
///
/// ## `#[pool(new = path)]`
///
/// Makes new objects with `path`, a `fn() -> Self`, instead of
/// `Default::default()`: for a type without `Default`, or to start buffers
/// with some capacity.
///
/// ```rust,ignore
/// #[derive(Poolable)]
/// #[pool(new = Frame::with_buffer)]
/// struct Frame {
///     bytes: Vec<u8>,
/// }
///
/// impl Frame {
///     fn with_buffer() -> Self {
///         Frame { bytes: Vec::with_capacity(4096) }
///     }
/// }
/// ```
///
/// ## `#[pool(capacity = N)]` and `#[pool(thread_capacity = N)]`
///
/// Bound the idle objects the pool keeps: `capacity` in its shared store
/// (default `pool_core::DEFAULT_CAPACITY`), `thread_capacity` in each
/// thread's cache (default `pool_core::DEFAULT_THREAD_CAPACITY`). `N` is an
/// integer or the path of a `usize` constant.
///
/// ```rust,ignore
/// const WORKERS: usize = 16;
///
/// #[derive(Poolable, Default)]
/// #[pool(capacity = 1024, thread_capacity = WORKERS)]
/// struct Message {
///     text: String,
/// }
/// ```
///
/// ## `#[pool(crate = path)]`
///
/// The path to `pool_core`, for a crate that re-exports it under another
/// name. The default is `::pool_core`.
///
/// ```rust,ignore
/// #[derive(my_framework::pool::Poolable, Default)]
/// #[pool(crate = my_framework::pool)]
/// struct Job {
///     input: Vec<u8>,
/// }
/// ```
///
/// # Field attributes
///
/// ## `#[pool(skip)]`
///
/// Leaves the field as it is: for what describes the object's slot rather
/// than its contents, such as an id that outlives each use.
///
/// ```rust,ignore
/// #[derive(Poolable, Default)]
/// struct Connection {
///     #[pool(skip)]
///     id: u64,
///     buffer: Vec<u8>,
/// }
/// ```
///
/// ## `#[pool(default)]`
///
/// Sets the field to `Default::default()`: for a type without `Reset`.
///
/// ```rust,ignore
/// #[derive(Default)]
/// enum Mode {
///     #[default]
///     Read,
///     Write,
/// }
///
/// #[derive(Poolable, Default)]
/// struct Request {
///     #[pool(default)]
///     mode: Mode,
/// }
/// ```
///
/// ## `#[pool(reset = path)]`
///
/// Resets the field with `path`, a `fn(&mut FieldType)`.
///
/// ```rust,ignore
/// fn reset_scores(scores: &mut [f32; 4]) {
///     *scores = [1.0; 4];
/// }
///
/// #[derive(Poolable, Default)]
/// struct Player {
///     #[pool(reset = reset_scores)]
///     scores: [f32; 4],
/// }
/// ```
///
/// ## `#[pool(max_capacity = N)]`
///
/// After the reset, shrinks the field's buffer to `N` if it grew past `N`,
/// so that one huge use does not pin its memory in the pool for good. For
/// `String`, `Vec`, `VecDeque`, `HashMap`, `HashSet` and `BinaryHeap`
/// fields; it combines with `reset = path` but not with `skip` or
/// `default`.
///
/// ```rust,ignore
/// #[derive(Poolable, Default)]
/// struct Response {
///     #[pool(max_capacity = 65536)]
///     body: Vec<u8>,
/// }
/// ```
///
/// # Errors
///
/// Enums, unions and generic structs cannot derive `Poolable` (a pool is a
/// `static`, and a static cannot be generic); implement `Poolable` by hand
/// for them, as the docs of `pool_core::Poolable` show. A field type without
/// `Reset` needs `skip`, `default` or `reset = path`; a struct without
/// `Default` needs `new = path`. Every such mistake is reported at the
/// offending tokens, all in one compile.
#[proc_macro_derive(Poolable, attributes(pool))]
pub fn derive_poolable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
