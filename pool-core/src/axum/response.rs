//! JSON responses serialized into pooled buffers: `PooledJson<T>`'s
//! `IntoResponse`, and [`JsonResponse<T>`] for any `Serialize` value. The
//! buffer pool's bounds are the two constants below, and nowhere else;
//! the public account is the parent module's "Responses" section.

use ::axum::body::{Body, Bytes};
use ::axum::http::{HeaderValue, StatusCode, header};
use ::axum::response::{IntoResponse, Response};
use ::serde::Serialize;

use crate::pool::Pool;
use crate::pool::guard::Pooled;

/// The most capacity a response buffer keeps in the pool: one that grew
/// past it is shrunk to it when it comes back.
const MAX_KEPT_BYTES: usize = 64 * 1024;

/// The most buffers the response pool keeps in its shared store (besides
/// each thread's cache): with [`MAX_KEPT_BYTES`], at most 16 MiB.
const KEPT_BUFFERS: usize = 256;

crate::pool! {
    @named "pool_core::axum responses" =>
    static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new)
        .capacity(KEPT_BUFFERS)
        .max_bytes(MAX_KEPT_BYTES);
}

/// A `Serialize` value answered as JSON, serialized into a pooled buffer:
/// `Json<T>`'s response (the same status, headers and body, a 500 with the
/// error's text if serialization fails) without allocating the buffer once
/// warm. For a value held in a [`Pooled`] guard, [`PooledJson`](super::PooledJson) is the same
/// response, the object going back to its pool as soon as it is
/// serialized.
///
/// ```
/// use axum::response::IntoResponse;
/// use pool_core::axum::JsonResponse;
/// use serde::Serialize;
///
/// #[derive(Serialize)]
/// struct Created {
///     id: u64,
/// }
///
/// async fn create() -> JsonResponse<Created> {
///     JsonResponse(Created { id: 7 })
/// }
///
/// # let runtime = tokio::runtime::Builder::new_current_thread().build()?;
/// # runtime.block_on(async {
/// let response = create().await.into_response();
/// assert_eq!(response.headers()["content-type"], "application/json");
/// let body = axum::body::to_bytes(response.into_body(), 1024).await.unwrap();
/// assert_eq!(body, r#"{"id":7}"#);
/// # });
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
#[must_use]
pub struct JsonResponse<T>(pub T);

impl<T: Serialize> IntoResponse for JsonResponse<T> {
    fn into_response(self) -> Response {
        respond(&self.0)
    }
}

/// A pooled buffer as the owner of a `Bytes`.
struct Chunk(Pooled<Vec<u8>>);

impl AsRef<[u8]> for Chunk {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// axum's `Json` response (`IntoResponse for Json<T>` in axum's `json.rs`),
/// serialized into a pooled buffer.
pub(super) fn respond<T: Serialize + ?Sized>(value: &T) -> Response {
    let mut buffer = BUFFERS.acquire();
    match serde_json::to_writer(&mut *buffer, value) {
        Ok(()) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            Body::from(Bytes::from_owner(Chunk(buffer))),
        )
            .into_response(),
        // A `String` answers with `Json`'s content type for its error text,
        // `text/plain; charset=utf-8`.
        Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response(),
    }
}
