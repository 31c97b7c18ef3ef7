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
///     path: String,     // cleared, its buffer kept
///     headers: Vec<u8>, // cleared, its buffer kept
///     retries: u32,     // back to 0
/// }
///
/// let mut request: Pooled<Request> = Request::acquire();
/// request.path.push_str("/index.html");
/// drop(request); // reset and cached for the next `Request::acquire()`
/// assert!(Request::acquire().path.is_empty());
/// ```
///
/// Named, tuple and unit structs are supported. New objects come from
/// `Default::default()` unless `#[pool(new = path)]` names a constructor.
/// Each field is reset with its type's `Reset` unless a field attribute
/// says otherwise; a struct that derives `Poolable` implements `Reset`, so
/// it can be a field of another derived struct. The generated code reaches
/// the runtime as `::pool_core` (see `crate` below), so use the derive through
/// `pool_core::Poolable`, not from this crate.
///
/// | attribute | on | effect |
/// |---|---|---|
/// | [`new = path`](#poolnew--path) | struct | constructor for new objects, instead of `Default::default()` |
/// | [`capacity = N`](#poolcapacity--n-and-poolthread_capacity--n) | struct | idle objects the shared store keeps (default 1024) |
/// | [`thread_capacity = N`](#poolcapacity--n-and-poolthread_capacity--n) | struct | idle objects each thread's cache keeps (default 32) |
/// | [`crate = path`](#poolcrate--path) | struct | the path to `pool_core`, for re-exports |
/// | [`skip`](#poolskip) | field | leave the field as it is |
/// | [`default`](#pooldefault) | field | set the field to `Default::default()` |
/// | [`reset = path`](#poolreset--path) | field | reset the field with a function |
/// | [`max_capacity = N`](#poolmax_capacity--n) | field | after the reset, shrink a buffer that grew past `N` |
///
/// Keys can be combined in one attribute (`#[pool(capacity = 64, thread_capacity = 8)]`)
/// or spread over several. Each misuse below is a compile error at the
/// offending tokens, quoted as rustc prints it; the derive reports every
/// mistake of a struct in one compile.
///
/// # Struct attributes
///
/// ## `#[pool(new = path)]`
///
/// Makes new objects with `path`, a `fn() -> Self`, instead of
/// `Default::default()`: for a type without `Default`, or to start buffers
/// with some capacity. `Self::name` works too.
///
/// ```rust,ignore
/// # use pool_core::Poolable;
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
///
/// assert!(Frame::acquire().bytes.capacity() >= 4096);
/// ```
///
/// Misuse:
///
/// - A value that is not a path, such as `#[pool(new = 42)]`:
///   ``error: `new` takes a path, not an integer, like `#[pool(new = Request::with_buffers)]` ``
///   (a closure or a string is refused the same way; a path in quotes gets
///   ``write the path without quotes``).
/// - A function of another type: `error[E0308]: mismatched types` at the path,
///   ``expected fn pointer `fn() -> Request`, found fn item``.
/// - No `new` and no `Default` for the struct:
///   ``error[E0277]: `Request` needs a constructor for `#[derive(Poolable)]` ``
///   at the struct's name, with the note ``derive or implement `Default` for
///   `Request`, or name a constructor with `#[pool(new = path)]` (a `fn() -> Request`)``.
///
/// ## `#[pool(capacity = N)]` and `#[pool(thread_capacity = N)]`
///
/// Bound the idle objects the pool keeps: `capacity` in its shared store
/// (default `pool_core::DEFAULT_CAPACITY`, 1024), `thread_capacity` in each
/// thread's cache (default `pool_core::DEFAULT_THREAD_CAPACITY`, 32). `N` is
/// an integer or the path of a `usize` constant. The crate docs of
/// `pool_core` explain how to pick them.
///
/// ```rust,ignore
/// # use pool_core::Poolable;
/// const WORKERS: usize = 16;
///
/// #[derive(Poolable, Default)]
/// #[pool(capacity = 1024, thread_capacity = WORKERS)]
/// struct Message {
///     text: String,
/// }
///
/// let pool = format!("{:?}", Message::pool());
/// assert!(pool.contains("capacity: 1024") && pool.contains("thread_capacity: 16"));
/// ```
///
/// Misuse:
///
/// - No value, or a value in parentheses (`#[pool(capacity)]`,
///   `#[pool(thread_capacity(4))]`):
///   ``error: `capacity` needs a value: write `#[pool(capacity = 1024)]` ``.
/// - A value of the wrong kind:
///   ``error: `capacity` takes an integer or the path of a `usize` constant, not a string, like `#[pool(capacity = 1024)]` ``
///   (likewise `not a float`, `not an operation` for `-1`).
/// - A number in quotes, `"1024"`:
///   ``error: write the number without quotes: `#[pool(capacity = 1024)]` ``.
/// - A suffix other than `usize`, `8u32`:
///   ``error: `capacity` is a `usize`: write `8` without the `u32` suffix``;
///   a number too large: ``error: `capacity` is a `usize`, and this does not fit in one``.
/// - A path to something that is not a `usize` constant: rustc's own type
///   error at the path.
///
/// ## `#[pool(crate = path)]`
///
/// The path to `pool_core`, for a crate that re-exports it under another
/// name. The default is `::pool_core`.
///
/// ```rust,ignore
/// mod my_framework {
///     pub mod pool {
///         pub use pool_core::*;
///     }
/// }
///
/// #[derive(my_framework::pool::Poolable, Default)]
/// #[pool(crate = my_framework::pool)]
/// struct Job {
///     input: Vec<u8>,
/// }
///
/// use my_framework::pool::Poolable as _;
/// Job::acquire().input.push(1);
/// ```
///
/// Misuse: a qualified path such as `<T as Trait>::x` gives
/// ``error: `crate` takes the path of a crate or module, like `#[pool(crate = ::my_crate::pool_core)]` ``;
/// a path that does not lead to `pool_core`'s items fails to resolve, with
/// rustc's error at the path.
///
/// # Field attributes
///
/// Field attributes go on named and tuple fields alike:
///
/// ```rust,ignore
/// # use pool_core::Poolable;
/// #[derive(Poolable, Default)]
/// struct Pair(String, #[pool(skip)] u8);
///
/// let mut pair = Pair::acquire();
/// pair.0.push_str("left");
/// pair.1 = 7;
/// drop(pair);
/// let pair = Pair::acquire();
/// assert_eq!((pair.0.as_str(), pair.1), ("", 7));
/// ```
///
/// ## `#[pool(skip)]`
///
/// Leaves the field as it is: for what describes the object's slot rather
/// than its contents, such as an id that outlives each use. Whatever a user
/// writes into a skipped field is what the next user finds.
///
/// ```rust,ignore
/// # use pool_core::Poolable;
/// #[derive(Poolable, Default)]
/// struct Connection {
///     #[pool(skip)]
///     id: u64,
///     buffer: Vec<u8>,
/// }
///
/// let mut conn = Connection::acquire();
/// conn.id = 7;
/// conn.buffer.push(1);
/// drop(conn);
///
/// let conn = Connection::acquire(); // the same object: this thread's cache is a stack
/// assert_eq!(conn.id, 7);           // kept
/// assert!(conn.buffer.is_empty());  // reset
/// ```
///
/// Misuse:
///
/// - A value, `#[pool(skip = true)]`: ``error: `skip` takes no value: write `#[pool(skip)]` ``.
/// - With another way of resetting: ``error: `skip` and `default` cannot both
///   be given: `skip` keeps the field as it is and `default` replaces it; keep one``
///   (and ``error: `skip` and `reset` cannot both be given: `skip` keeps the
///   field as it is and `reset` calls a function on it; keep one``).
/// - With `max_capacity`: ``error: `skip` and `max_capacity` cannot both be
///   given: `max_capacity` has no effect on a field that `skip` keeps as it is; remove one``.
///
/// ## `#[pool(default)]`
///
/// Sets the field to `Default::default()`: for a type without `Reset`, such as
/// an enum of your own.
///
/// ```rust,ignore
/// # use pool_core::Poolable;
/// #[derive(Default, Debug, PartialEq)]
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
///
/// let mut req = Request::acquire();
/// req.mode = Mode::Write;
/// drop(req);
/// assert_eq!(Request::acquire().mode, Mode::Read);
/// ```
///
/// Misuse:
///
/// - A value, `#[pool(default(1))]`: ``error: `default` takes no value: write `#[pool(default)]` ``.
/// - A field type without `Default`: ``error[E0277]: the trait bound `Handle: Default` is not satisfied``
///   at the field's type.
/// - With `reset`: ``error: `default` and `reset` cannot both be given:
///   `default` and `reset` both say how to reset the field; keep one``; with
///   `max_capacity`: ``error: `default` and `max_capacity` cannot both be
///   given: `max_capacity` has no effect on a field that `default` replaces; remove one``.
///
/// ## `#[pool(reset = path)]`
///
/// Resets the field with `path`, a `fn(&mut FieldType)`: for a type without
/// `Reset`, or a reset state other than the type's own (here, scores that
/// start at 1).
///
/// ```rust,ignore
/// # use pool_core::Poolable;
/// fn reset_scores(scores: &mut [f32; 4]) {
///     *scores = [1.0; 4];
/// }
///
/// #[derive(Poolable, Default)]
/// struct Player {
///     #[pool(reset = reset_scores)]
///     scores: [f32; 4],
/// }
///
/// let mut player = Player::acquire();
/// player.scores[0] = 9.0;
/// drop(player);
/// assert_eq!(Player::acquire().scores, [1.0; 4]);
/// ```
///
/// Misuse:
///
/// - A closure: ``error: `reset` takes a path, not a closure, like `#[pool(reset = clear_scores)]` ``;
///   a path in quotes: ``error: write the path without quotes: `#[pool(reset = clear)]` ``.
/// - A function of another signature: `error[E0308]: mismatched types` at the
///   path, with rustc's account of the difference (for example ``expected an
///   array with a size of 3, found one with a size of 4``).
///
/// ## `#[pool(max_capacity = N)]`
///
/// After the reset, shrinks the field's buffer to `N` if it grew past `N`,
/// so that one huge use does not pin its memory in the pool for good; a
/// buffer within the bound keeps its allocation. For `String`, `Vec`,
/// `VecDeque`, `HashMap`, `HashSet` and `BinaryHeap` fields; it combines with
/// `reset = path` but not with `skip` or `default`.
///
/// ```rust,ignore
/// # use pool_core::Poolable;
/// #[derive(Poolable, Default)]
/// struct Response {
///     #[pool(max_capacity = 65536)]
///     body: Vec<u8>,
/// }
///
/// let mut res = Response::acquire();
/// res.body.resize(1 << 20, 0); // one huge response
/// drop(res);
/// assert!(Response::acquire().body.capacity() <= 65536); // not kept at 1 MiB
/// ```
///
/// Misuse:
///
/// - No value: ``error: `max_capacity` needs a value: write `#[pool(max_capacity = 65536)]` ``;
///   a value of the wrong kind, a suffix or an overflow as for `capacity`.
/// - A field type without a capacity:
///   ``error[E0277]: `#[pool(max_capacity = ...)]` needs a type with a capacity, and `u32` has none``,
///   with the note listing the types it applies to.
///
/// # Errors anywhere
///
/// - A misspelt key: ``error: unknown struct key `capcity` in `#[pool(...)]`:
///   did you mean `capacity`? The struct keys are `new`, `capacity`,
///   `thread_capacity` and `crate` `` (likewise `unknown field key`).
/// - A key in the wrong place: ``error: `skip` is a field key and cannot go on
///   a struct; the struct keys are ...`` and ``error: `capacity` is a struct key
///   and cannot go on a field; the field keys are ...``.
/// - A key given twice: ``error: `capacity` is given twice; remove one``.
/// - `#[pool = "..."]` or a bare `#[pool]`: ``error: expected parentheses: #[pool(...)]``
///   and ``error: expected attribute arguments in parentheses: #[pool(...)]``.
/// - A field whose type has no `Reset` and no attribute:
///   ``error[E0277]: `Config` does not implement `Reset`, so `#[derive(Poolable)]` cannot reset this field``,
///   with the note ``add `#[pool(skip)]`, `#[pool(default)]` or `#[pool(reset = path)]`
///   to the field, or implement `Reset` for `Config` ``.
/// - An enum or a union: ``error: only structs can derive `Poolable`, and `Mode`
///   is an enum; implement `Reset` and `Poolable` for it by hand (see the docs
///   of `pool_core::Poolable`), or wrap it in a struct that derives `Poolable` ``.
/// - A generic struct (type, const or lifetime parameters): ``error: `Poolable`
///   cannot be derived for a generic struct: its pool is a `static`, and a
///   static cannot be generic; implement `Poolable` by hand for each concrete
///   type you pool, declaring its pool with `pool_core::pool!` (see the docs of
///   `pool_core::Poolable`)``.
///
/// After an attribute error the derive still implements `Poolable` for the
/// struct, so uses of `T::acquire()` elsewhere do not add errors of their own.
#[proc_macro_derive(Poolable, attributes(pool))]
pub fn derive_poolable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
