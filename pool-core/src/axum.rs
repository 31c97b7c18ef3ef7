//! axum 0.8 extractors that decode a JSON body in place into a pooled
//! object (feature `axum`): [`PooledJson<T>`] for a type with a pool of its
//! own ([`Poolable`], the derive's), [`StatePooledJson<T>`] for a run-time
//! pool ([`PoolHandle<T>`]) in the router's state; and JSON responses
//! serialized into pooled buffers, from either, or from any `Serialize`
//! value with [`JsonResponse<T>`].
//!
//! # Why not `Json<Pooled<T>>`
//!
//! `Json<Pooled<T>>` works (`Pooled<T>` is `Deserialize`, and decodes in
//! place), but axum's `Json` decodes through `serde_path_to_error`, to say
//! where a bad body went wrong, and that copies every map key it passes
//! into a `String`, twice; its content-type check allocates once more. For
//! a 4 KB order of 30 line items that is 339 allocations per request
//! against the HTTP stack's own 18, which `PooledJson<Order>` matches
//! (the repository's `axum_json` bench, docs/PERFORMANCE.md). `PooledJson`
//! decodes with `serde_json` alone, in place, and pays for the path only
//! when the body is bad.
//!
//! # The same rejections as `Json<T>`
//!
//! Both extractors check the content type as `Json` does
//! (`application/json`, with parameters or not, or any `application/*+json`),
//! read the body with axum's `Bytes` extractor (so within the limit axum
//! applies, [`DefaultBodyLimit`](::axum::extract::DefaultBodyLimit) included),
//! and their rejection is axum's [`JsonRejection`]: status, headers and body
//! text are `Json<T>`'s, byte for byte, so a `From<JsonRejection>` of yours or
//! axum-extra's `WithRejection` keeps working. axum's `JsonDataError` and
//! `JsonSyntaxError`, which carry the path, cannot be made outside axum: when
//! the in-place decode fails, the same bytes are decoded again with
//! [`Json::<T>::from_bytes`](::axum::Json::from_bytes), fresh and with the
//! path tracked, and its rejection is returned. Only a bad body pays for the
//! second decode.
//!
//! The half-filled object of a failed decode never reaches a handler: its
//! guard resets it and returns it to the pool before the rejection is
//! returned. If the in-place decode fails and the fresh one succeeds (a
//! `Deserialize` impl whose `deserialize_in_place` is stricter than its
//! `deserialize`; serde's and serde_derive's agree), the fresh value is
//! moved into the pooled object and the request is accepted, as `Json<T>`
//! would accept it: the result is `Json`'s, the allocations those of a fresh
//! decode.
//!
//! # Cost
//!
//! A warm decode into a derived struct whose values fit the buffers earlier
//! decodes left allocates nothing, and neither does the content-type check
//! for `application/json` in any letter case (any other value is parsed as
//! axum parses it, which allocates once). What is decoded in place and what
//! is not is the crate docs' "Decoding with serde" section.
//!
//! # Responses
//!
//! `PooledJson<T>` (made from a guard with `PooledJson::from(pooled)`, as
//! `Json<T>` is made from a `T`), `StatePooledJson<T>` and
//! `JsonResponse<T>` answer as `Json<T>` does: the same status, headers
//! and body, a 500 with the error's text if serialization fails. The value
//! is serialized into a `Vec<u8>` from a pool of this crate, and hyper gets
//! it as the body's one chunk, a `Bytes` that owns the guard
//! (`Bytes::from_owner`): when hyper has written the chunk and drops it,
//! the buffer goes back to the pool, cleared, its capacity kept. A pooled
//! object answered this way goes back to its own pool as soon as it is
//! serialized.
//!
//! A warm response allocates nothing for its buffer. What it allocates is
//! the `Bytes`' small shared header and axum's boxed body, one each, where
//! `Json` allocates a `BytesMut` of 128 bytes, again each time it doubles,
//! a shared header when it is frozen, and the same boxed body.
//!
//! **Bounded memory.** A buffer that grew past 64 KiB is shrunk to 64 KiB
//! when it comes back (the pool's [`max_bytes`](crate::PoolConfig::max_bytes),
//! counted as `shrunk` in its [`Stats`](crate::Stats)), so one huge
//! response does not stay in memory;
//! the pool keeps at most 256 buffers in its shared store, and
//! [`DEFAULT_THREAD_CAPACITY`](crate::DEFAULT_THREAD_CAPACITY) in each
//! thread's cache: at most 64 KiB × (256 + 32 per thread). Idle buffers go
//! on rotation as every pool's objects do. [`pools()`](crate::pools) lists
//! the pool as `pool_core::axum responses`.
//!
//! **Released on another worker.** hyper drops the chunk in the
//! connection's task once it is written: usually on the worker that ran
//! the handler, but a task that waited for the socket may resume on
//! another. The buffer then goes into that worker's cache as a local
//! release does: no lock, no atomic read-modify-write. What moves is where
//! the buffers are: a worker that releases more than it acquires spills
//! part of its cache to the shared store when the cache is full (half of
//! it, or all of it once the worker keeps doing so), and one that acquires
//! more refills from there, a lock taken once per batch rather than per
//! buffer. The repository's docs/PERFORMANCE.md measures objects handed
//! from thread to thread.

use std::ops::{Deref, DerefMut};

use ::axum::Json;
use ::axum::body::Bytes;
use ::axum::extract::rejection::{JsonRejection, MissingJsonContentType};
use ::axum::extract::{FromRef, FromRequest, OptionalFromRequest, Request};
use ::axum::http::{HeaderMap, header};
use ::axum::response::{IntoResponse, Response};
use ::serde::Serialize;
use ::serde::de::DeserializeOwned;

use crate::pool::declare::Poolable;
use crate::pool::guard::Pooled;
use crate::pool::runtime::PoolHandle;
use crate::reset::Reset;

mod response;

pub use response::JsonResponse;

/// A JSON request body decoded in place into an object from `T`'s pool,
/// and a JSON response serialized into a pooled buffer.
///
/// As an extractor it is axum's [`Json<T>`](::axum::Json) with
/// `T::acquire()` as the place to decode into: the same content-type
/// check, body limit and [`JsonRejection`]s (see [the module](self)). It
/// dereferences to `T`; [`into_inner`](Self::into_inner), or the field,
/// gives the [`Pooled<T>`] guard, which returns the object to its pool,
/// reset, when dropped. `Option<PooledJson<T>>` is `None` for a request
/// without a content type, as `Option<Json<T>>` is.
///
/// As a response (`PooledJson::from(pooled)`, then `IntoResponse`) it is
/// `Json<T>`'s, serialized into a pooled buffer that goes back to its pool
/// when hyper has written it (see [the module](self#responses)).
///
/// ```
/// use axum::extract::FromRequest;
/// use axum::http::Request;
/// use pool_core::axum::PooledJson;
/// use pool_core::{Poolable, Reset, ReuseVec};
/// use serde::Deserialize;
///
/// #[derive(Reset, Default, Deserialize)]
/// struct LineItem {
///     sku: String,
///     quantity: u32,
/// }
///
/// #[derive(Poolable, Default, Deserialize)]
/// struct Order {
///     id: u64,
///     items: ReuseVec<LineItem>,
/// }
///
/// // A handler; axum calls `PooledJson::from_request` for it, as below.
/// async fn create(order: PooledJson<Order>) -> usize {
///     order.items.iter().map(|item| item.quantity as usize).sum()
/// } // the order goes back to its pool, line items and strings kept
///
/// # let runtime = tokio::runtime::Builder::new_current_thread().build()?;
/// # runtime.block_on(async {
/// let request = Request::post("/orders")
///     .header("content-type", "application/json")
///     .body(r#"{"id": 7, "items": [{"sku": "A-1", "quantity": 2}]}"#.into())
///     .unwrap();
/// let order = PooledJson::<Order>::from_request(request, &()).await.unwrap();
/// assert_eq!(order.items[0].sku, "A-1"); // derefs to `Order`
/// assert_eq!(create(order).await, 2);
///
/// let request = Request::post("/orders")
///     .header("content-type", "text/plain")
///     .body("{}".into())
///     .unwrap();
/// let rejection = PooledJson::<Order>::from_request(request, &()).await.err().unwrap();
/// assert_eq!(rejection.status(), 415); // `Json<Order>`'s rejection
/// # });
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
#[must_use]
pub struct PooledJson<T: Reset + Send + 'static>(pub Pooled<T>);

impl<T: Reset + Send + 'static> PooledJson<T> {
    /// The guard: the object stays out of its pool until the guard is
    /// dropped.
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use pool_core::axum::PooledJson;
    /// use pool_core::{Poolable, Pooled};
    ///
    /// #[derive(Poolable, Default)]
    /// struct Note {
    ///     text: String,
    /// }
    ///
    /// let json = PooledJson::from(Note::acquire());
    /// let note: Pooled<Note> = json.into_inner();
    /// assert_eq!(Note::pool().stats().in_use(), 1);
    /// drop(note);
    /// assert_eq!(Note::pool().stats().in_use(), 0);
    /// # }
    /// ```
    pub fn into_inner(self) -> Pooled<T> {
        self.0
    }
}

impl<T: Reset + Send + 'static> From<Pooled<T>> for PooledJson<T> {
    /// Wraps a pooled object, to be returned as a JSON response (as
    /// `Json::from(value)` does).
    ///
    /// ```
    /// use axum::response::IntoResponse;
    /// use pool_core::axum::PooledJson;
    /// use pool_core::{Pool, Pooled, pool};
    ///
    /// pool! { static IDS: Pool<Vec<u64>> = Pool::new(Vec::new); }
    ///
    /// async fn list() -> PooledJson<Vec<u64>> {
    ///     let mut ids: Pooled<Vec<u64>> = IDS.acquire();
    ///     ids.extend([1, 2, 3]);
    ///     PooledJson::from(ids)
    /// }
    ///
    /// # let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    /// # runtime.block_on(async {
    /// let response = list().await.into_response();
    /// assert_eq!(IDS.stats().in_use(), 0); // serialized, the vector went back
    /// assert_eq!(response.headers()["content-type"], "application/json");
    /// let body = axum::body::to_bytes(response.into_body(), 1024).await.unwrap();
    /// assert_eq!(body, "[1,2,3]");
    /// # });
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn from(pooled: Pooled<T>) -> Self {
        PooledJson(pooled)
    }
}

/// [`PooledJson`] for a run-time pool: decodes into an object of the
/// [`PoolHandle<T>`] the router's state gives ([`FromRef`]), for a type
/// without a pool of its own (`Vec<u64>`, a type of another crate) or a
/// pool per router, sized from configuration.
///
/// The same content-type check, body limit and [`JsonRejection`]s as
/// `Json<T>`, the same `Option` behaviour; it dereferences to `T`, and
/// [`into_inner`](Self::into_inner) gives the guard. As a response it is
/// `PooledJson<T>`'s. A type of its own, not
/// a second impl on `PooledJson`, because the two would overlap for a
/// `Poolable` type whose state also holds a pool of it. Taking the handle
/// from the state clones it (two atomic increments, no allocation).
///
/// ```
/// use axum::Router;
/// use axum::extract::FromRequest;
/// use axum::http::Request;
/// use axum::routing::post;
/// use pool_core::axum::StatePooledJson;
/// use pool_core::{Pool, PoolHandle};
///
/// async fn sum(ids: StatePooledJson<Vec<u64>>) -> String {
///     ids.iter().sum::<u64>().to_string()
/// }
///
/// let ids: PoolHandle<Vec<u64>> = Pool::builder(|| Vec::with_capacity(64)).build();
/// // The state is the handle here; in a larger state, `impl FromRef`.
/// let app: Router = Router::new().route("/sum", post(sum)).with_state(ids.clone());
///
/// # let runtime = tokio::runtime::Builder::new_current_thread().build()?;
/// # runtime.block_on(async {
/// let request = Request::post("/sum")
///     .header("content-type", "application/json")
///     .body("[1, 2, 3]".into())
///     .unwrap();
/// let decoded = StatePooledJson::<Vec<u64>>::from_request(request, &ids).await.unwrap();
/// assert_eq!(*decoded, [1, 2, 3]);
/// drop(decoded);
/// assert_eq!((ids.stats().created, ids.stats().in_use()), (1, 0));
/// # });
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
#[must_use]
pub struct StatePooledJson<T: Reset + Send + 'static>(pub Pooled<T>);

impl<T: Reset + Send + 'static> StatePooledJson<T> {
    /// The guard, which returns the object to the state's pool when
    /// dropped.
    ///
    /// ```
    /// use pool_core::Pool;
    /// use pool_core::axum::StatePooledJson;
    ///
    /// let pool = Pool::builder(String::new).build();
    /// let name = StatePooledJson(pool.acquire()).into_inner();
    /// assert_eq!(pool.stats().in_use(), 1);
    /// drop(name);
    /// assert_eq!(pool.stats().in_use(), 0);
    /// ```
    pub fn into_inner(self) -> Pooled<T> {
        self.0
    }
}

/// The impls the two extractors share: `Deref` to `T`; `FromRequest`
/// (`Json<T>`'s checks, then the body decoded in place into the object
/// `|state| acquire` gives, for a `T` and a state `S` that meet `bounds`)
/// and `OptionalFromRequest`; and `IntoResponse`, `Json<T>`'s response
/// serialized into a pooled buffer (see [the module](self#responses)),
/// the object going back to its pool once serialized.
macro_rules! extractor {
    ($name:ident, |$state:ident| $acquire:expr, where $($bounds:tt)*) => {
        impl<T: Reset + Send + 'static> Deref for $name<T> {
            type Target = T;

            fn deref(&self) -> &T {
                &self.0
            }
        }

        impl<T: Reset + Send + 'static> DerefMut for $name<T> {
            fn deref_mut(&mut self) -> &mut T {
                &mut self.0
            }
        }

        impl<T, S> FromRequest<S> for $name<T>
        where
            $($bounds)*
        {
            type Rejection = JsonRejection;

            async fn from_request(request: Request, state: &S) -> Result<Self, JsonRejection> {
                if !json_content_type(request.headers()) {
                    return Err(MissingJsonContentType::default().into());
                }
                let body = Bytes::from_request(request, state).await?;
                let $state = state;
                decode(&body, $acquire).map($name)
            }
        }

        impl<T, S> OptionalFromRequest<S> for $name<T>
        where
            $($bounds)*
        {
            type Rejection = JsonRejection;

            async fn from_request(request: Request, state: &S) -> Result<Option<Self>, JsonRejection> {
                if request.headers().get(header::CONTENT_TYPE).is_none() {
                    return Ok(None);
                }
                <Self as FromRequest<S>>::from_request(request, state)
                    .await
                    .map(Some)
            }
        }

        impl<T: Reset + Send + Serialize + 'static> IntoResponse for $name<T> {
            fn into_response(self) -> Response {
                response::respond(&*self.0)
            }
        }
    };
}

extractor!(PooledJson, |_state| T::acquire(), where
    T: Poolable + DeserializeOwned,
    S: Send + Sync,
);
extractor!(StatePooledJson, |state| PoolHandle::<T>::from_ref(state).acquire(), where
    T: Reset + Send + DeserializeOwned + 'static,
    PoolHandle<T>: FromRef<S>,
    S: Send + Sync,
);

/// Decodes `body` into `pooled` in place; on an error, decodes it again
/// with `Json<T>`, for its rejection (see the module's docs).
fn decode<T>(body: &[u8], mut pooled: Pooled<T>) -> Result<Pooled<T>, JsonRejection>
where
    T: Reset + Send + DeserializeOwned + 'static,
{
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let in_place =
        T::deserialize_in_place(&mut deserializer, &mut *pooled).and_then(|()| deserializer.end());
    if in_place.is_ok() {
        return Ok(pooled);
    }
    // On an error `pooled` is dropped with the closure, outside any panic:
    // reset and returned.
    Json::<T>::from_bytes(body).map(|Json(fresh)| {
        *pooled = fresh;
        pooled
    })
}

/// axum's check (`json_content_type` in axum's `json.rs`), with the common
/// case first: `application/json` in any letter case is what the parser
/// accepts as is, without the `String` it allocates.
fn json_content_type(headers: &HeaderMap) -> bool {
    let Some(content_type) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    if content_type
        .as_bytes()
        .eq_ignore_ascii_case(b"application/json")
    {
        return true;
    }
    let mime = content_type
        .to_str()
        .ok()
        .and_then(|text| text.parse::<mime::Mime>().ok());
    mime.is_some_and(|mime| {
        mime.type_() == "application"
            && (mime.subtype() == "json" || mime.suffix().is_some_and(|name| name == "json"))
    })
}
