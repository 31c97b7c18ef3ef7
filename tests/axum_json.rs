//! `pool_core::axum` (feature `axum`): `PooledJson<T>` and
//! `StatePooledJson<T>` answer every request as axum's `Json<T>` does, and
//! their responses and `JsonResponse<T>`'s are `Json<T>`'s, their buffers
//! back in the pool once the body is dropped.
//!
//! The same requests go to a `Json<Order>` route and to the pooled routes
//! of one router, through `tower::ServiceExt::oneshot` (no socket), and the
//! responses are compared whole: status, every header, body. Bad bodies of
//! every kind axum tells apart, content types accepted and refused, the
//! body limit; then valid bodies, which must decode as a fresh `Order`
//! does however half-filled the pooled object was left by the failures
//! before (a current-thread runtime, so the routes get the same object
//! back each time).

use std::future::Future;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Json};
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use pool_core::axum::{JsonResponse, PooledJson, StatePooledJson};
use pool_core::{Pool, PoolHandle, Poolable, Reset, ReuseVec};
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use tower::ServiceExt;

#[derive(Reset, Default, Serialize, Deserialize)]
struct Customer {
    name: String,
    email: String,
}

#[derive(Reset, Default, Serialize, Deserialize)]
struct Address {
    street: String,
    city: String,
    zip: String,
}

#[derive(Reset, Default, Serialize, Deserialize)]
struct LineItem {
    sku: String,
    name: String,
    quantity: u32,
    price_cents: u64,
    tags: ReuseVec<String>,
}

#[derive(Clone, Copy, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    #[default]
    Open,
    Paid,
    Shipped,
}

/// The issue's order: a customer, an address, about 30 line items with
/// tags, notes; fields a body may leave out (`notes`, `coupon`), which a
/// half-filled object would show if it leaked.
#[derive(Poolable, Default, Serialize, Deserialize)]
struct Order {
    id: u64,
    customer: Customer,
    address: Address,
    status: Status,
    items: ReuseVec<LineItem>,
    #[serde(default)]
    notes: Vec<String>,
    #[serde(default)]
    coupon: Option<String>,
}

/// A valid order of `items` line items; `extras` adds notes and a coupon.
/// (`json!` sorts the keys: an item's `sku` follows its `quantity`.)
fn order_json(items: usize, extras: bool) -> serde_json::Value {
    let items: Vec<_> = (0..items)
        .map(|i| {
            serde_json::json!({
                "sku": format!("SKU-{i:05}"),
                "name": format!("Espresso cups, set of {}", i + 2),
                "quantity": i + 1,
                "price_cents": 1999 + i,
                "tags": if i % 3 == 0 { vec!["kitchen", "fragile", "gift"] } else { vec!["kitchen"] },
            })
        })
        .collect();
    let mut order = serde_json::json!({
        "id": 90210,
        "customer": {"name": "Ada Lovelace", "email": "ada@example.com"},
        "address": {"street": "12 St James's Square", "city": "London", "zip": "SW1Y 4JH"},
        "status": "paid",
        "items": items,
    });
    if extras {
        order["notes"] = serde_json::json!(["leave at the door", "ring twice\n"]);
        order["coupon"] = serde_json::json!("WINTER");
    }
    order
}

fn body_of(value: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap()
}

/// What each route answers for a decoded order: the order, serialized.
fn echo(order: &Order) -> String {
    serde_json::to_string(order).unwrap()
}

async fn json(Json(order): Json<Order>) -> String {
    echo(&order)
}

async fn pooled(order: PooledJson<Order>) -> String {
    echo(&order)
}

async fn state_pooled(order: StatePooledJson<Order>) -> String {
    echo(&order)
}

async fn json_option(order: Option<Json<Order>>) -> String {
    order.map_or_else(|| "none".to_owned(), |order| echo(&order))
}

async fn pooled_option(order: Option<PooledJson<Order>>) -> String {
    order.map_or_else(|| "none".to_owned(), |order| echo(&order))
}

async fn state_pooled_option(order: Option<StatePooledJson<Order>>) -> String {
    order.map_or_else(|| "none".to_owned(), |order| echo(&order))
}

/// The routes to compare, `Json<Order>`'s first; `limit` sets a
/// `DefaultBodyLimit` (axum's default, 2 MB, without one).
fn app(pool: PoolHandle<Order>, limit: Option<usize>) -> Router {
    let router = Router::new()
        .route("/json", post(json))
        .route("/pooled", post(pooled))
        .route("/state", post(state_pooled))
        .route("/json_option", post(json_option))
        .route("/pooled_option", post(pooled_option))
        .route("/state_option", post(state_pooled_option))
        .with_state(pool);
    match limit {
        Some(limit) => router.layer(DefaultBodyLimit::max(limit)),
        None => router,
    }
}

/// A response, whole.
#[derive(Debug, PartialEq)]
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

async fn send(app: &Router, path: &str, content_type: Option<&HeaderValue>, body: &[u8]) -> Answer {
    let mut request = Request::post(path);
    if let Some(content_type) = content_type {
        request = request.header(header::CONTENT_TYPE, content_type);
    }
    let request = request.body(Body::from(body.to_vec())).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

/// Sends the request to `Json<Order>`'s route and to the pooled ones, and
/// asserts the answers equal. Returns `Json`'s.
async fn same(app: &Router, what: &str, content_type: Option<&HeaderValue>, body: &[u8]) -> Answer {
    let expected = send(app, "/json", content_type, body).await;
    for path in ["/pooled", "/state"] {
        let got = send(app, path, content_type, body).await;
        assert_eq!(
            got, expected,
            "{what}: {path} answered otherwise than Json<Order>"
        );
    }
    let expected_option = send(app, "/json_option", content_type, body).await;
    for path in ["/pooled_option", "/state_option"] {
        let got = send(app, path, content_type, body).await;
        assert_eq!(
            got, expected_option,
            "{what}: {path} answered otherwise than Option<Json<Order>>"
        );
    }
    expected
}

/// Runs one test's requests, one test at a time: the tests share
/// `Order`'s pool and the response buffers' pool, whose counts they check.
fn run(test: impl Future<Output = ()>) {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(test);
}

fn json_type() -> HeaderValue {
    HeaderValue::from_static("application/json")
}

/// Replaces the first `from` in `body` after `after` by `to`.
fn replace_after(body: &str, after: &str, from: &str, to: &str) -> Vec<u8> {
    let start = body
        .find(after)
        .unwrap_or_else(|| panic!("{after} in the body"));
    let at = start + body[start..].find(from).unwrap();
    format!("{}{to}{}", &body[..at], &body[at + from.len()..]).into_bytes()
}

#[test]
fn rejections_are_jsons_byte_for_byte_and_nothing_half_filled_leaks() {
    run(async {
        let pool = Pool::builder(Order::default).build();
        let app = app(pool.clone(), Some(16 * 1024));
        let ct = json_type();
        let full = String::from_utf8(body_of(&order_json(30, true))).unwrap();
        assert!(full.len() > 3000, "about 4 KB: {}", full.len());

        // Valid first, so that the pools hold an object to half-fill.
        let answer = same(&app, "valid", Some(&ct), full.as_bytes()).await;
        assert_eq!(answer.status, StatusCode::OK);

        // Syntax errors at several offsets, and the end of input.
        let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
        for cut in [1, 2, 9, 40, full.len() / 3, full.len() / 2, full.len() - 1] {
            cases.push((format!("cut at {cut}"), full.as_bytes()[..cut].to_vec()));
        }
        // A structural byte (a brace, a quote) made '#', early to late.
        let quotes: Vec<usize> = full.match_indices('"').map(|(at, _)| at).collect();
        let picks = [1, 2, 9, quotes.len() / 2, quotes.len() - 1].map(|n| quotes[n]);
        for at in [0, full.len() - 1].into_iter().chain(picks) {
            let mut body = full.clone().into_bytes();
            body[at] = b'#';
            cases.push((format!("# at {at}"), body));
        }
        cases.push((
            "trailing characters".into(),
            format!("{full} x").into_bytes(),
        ));
        cases.push(("two values".into(), format!("{full}{full}").into_bytes()));
        cases.push(("empty body".into(), Vec::new()));
        cases.push(("whitespace only".into(), b"  \n".to_vec()));
        cases.push((
            "invalid UTF-8 in a string".into(),
            replace_after(&full, "\"city\"", "London", "Lon\u{0}don"),
        ));
        let mut bad_utf8 = full.clone().into_bytes();
        let at = full.find("London").unwrap();
        bad_utf8[at + 1] = 0xff;
        cases.push(("a byte that is not UTF-8".into(), bad_utf8));
        // Data errors, deep and shallow.
        cases.push((
            "wrong type, a tag of item 17".into(),
            replace_after(&full, "SKU-00018", "\"kitchen\"", "5"),
        ));
        cases.push((
            "wrong type, quantity of item 3".into(),
            replace_after(
                &full,
                "SKU-00002",
                "\"quantity\":4",
                "\"quantity\":\"four\"",
            ),
        ));
        cases.push((
            "out of range, quantity of item 29".into(),
            replace_after(
                &full,
                "SKU-00028",
                "\"quantity\":30",
                "\"quantity\":4294967296",
            ),
        ));
        cases.push((
            "negative unsigned".into(),
            replace_after(&full, "\"id\"", "90210", "-1"),
        ));
        cases.push((
            "null for a string, deep".into(),
            replace_after(&full, "\"customer\"", "\"ada@example.com\"", "null"),
        ));
        cases.push((
            "unknown variant".into(),
            replace_after(&full, "\"status\"", "\"paid\"", "\"lost\""),
        ));
        cases.push((
            "missing field, top".into(),
            replace_after(&full, "\"address\"", "\"address\":", "\"adres\":"),
        ));
        cases.push((
            "missing field, nested".into(),
            replace_after(&full, "SKU-00020", "\"price_cents\"", "\"price\""),
        ));
        cases.push((
            "duplicate field".into(),
            format!("{{\"id\":1,{}", &full[1..]).into_bytes(),
        ));
        cases.push(("not an object".into(), b"[1, 2, 3]".to_vec()));
        cases.push(("a bare string".into(), b"\"order\"".to_vec()));
        cases.push(("the last item bad, notes set before".into(), {
            let mut order = order_json(30, true);
            order.as_object_mut().unwrap().remove("items");
            let mut body = String::from_utf8(body_of(&order)).unwrap();
            body.pop();
            body.push_str(r#","items":[{"sku":"A","name":"B","quantity":1,"price_cents":1,"tags":["x"]},{"sku":7}]}"#);
            body.into_bytes()
        }));
        for (what, body) in &cases {
            let answer = same(&app, what, Some(&ct), body).await;
            assert!(answer.status.is_client_error(), "{what}: {answer:?}");
        }
        // The texts carry the path, for data errors and syntax errors.
        let deep = same(
            &app,
            "deep",
            Some(&ct),
            &replace_after(&full, "SKU-00018", "\"kitchen\"", "5"),
        )
        .await;
        let text = String::from_utf8_lossy(&deep.body);
        assert!(text.contains("items[18].tags[0]"), "{text}");
        assert_eq!(deep.status, StatusCode::UNPROCESSABLE_ENTITY);

        // Content types, accepted and refused.
        let valid = body_of(&order_json(3, false));
        let content_types: Vec<HeaderValue> = [
            "application/json",
            "APPLICATION/JSON",
            "Application/Json",
            "application/json; charset=utf-8",
            "application/json;charset=UTF-8",
            "application/json; charset=\"utf-8\"",
            "application/json; charset=latin1; q=1",
            "application/json;",
            "application/vnd.api+json",
            "application/cloudevents+json; charset=utf-8",
            "application/json+xml",
            "application/jsonx",
            "application/ json",
            "text/json",
            "text/plain",
            "*/*",
            "json",
            "",
        ]
        .into_iter()
        .map(HeaderValue::from_static)
        .chain([HeaderValue::from_bytes(b"application/json\xff").unwrap()])
        .collect();
        let mut accepted = 0;
        for content_type in &content_types {
            let what = format!("content type {content_type:?}");
            let answer = same(&app, &what, Some(content_type), &valid).await;
            accepted += usize::from(answer.status == StatusCode::OK);
        }
        // The first eleven: `Json` takes `application/json+xml` too (its
        // subtype, before the suffix, is `json`).
        assert_eq!(accepted, 11);
        let answer = same(&app, "no content type", None, &valid).await;
        assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let option = send(&app, "/pooled_option", None, &valid).await;
        assert_eq!(option.body, "none");

        // The body limit: the router's, and axum's default (2 MB).
        let big = body_of(&order_json(300, true));
        assert!(big.len() > 16 * 1024);
        let answer = same(&app, "over the router's limit", Some(&ct), &big).await;
        assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
        let unlimited = self::app(pool.clone(), None);
        let answer = same(&unlimited, "within axum's default limit", Some(&ct), &big).await;
        assert_eq!(answer.status, StatusCode::OK);
        let huge = vec![b' '; 2 * 1024 * 1024 + 1];
        let answer = same(&unlimited, "over axum's default limit", Some(&ct), &huge).await;
        assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);

        // After all that, valid bodies without the optional fields: a
        // half-filled object from the failures would show its notes or its
        // coupon, or a line item too many.
        let before = (Order::pool().stats(), pool.stats());
        for items in [0, 1, 30] {
            let body = body_of(&order_json(items, false));
            let answer = same(&app, "valid after failures", Some(&ct), &body).await;
            assert_eq!(answer.status, StatusCode::OK);
            let fresh: Order = serde_json::from_slice(&body).unwrap();
            assert_eq!(answer.body, echo(&fresh));
        }
        let after = (Order::pool().stats(), pool.stats());
        assert_eq!(
            (after.0.in_use(), after.1.in_use()),
            (0, 0),
            "every object went back"
        );
        // Each route reused its pool's object: nothing was made for these.
        assert_eq!(
            (after.0.created, after.1.created),
            (before.0.created, before.1.created)
        );
    });
}

/// A number whose in-place decode refuses 13 and whose fresh decode takes
/// it: a `Deserialize` impl stricter in place than fresh.
#[derive(Clone, Copy, Default)]
struct Picky(u64);

impl<'de> Deserialize<'de> for Picky {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        u64::deserialize(deserializer).map(Picky)
    }

    fn deserialize_in_place<D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        match u64::deserialize(deserializer)? {
            13 => Err(D::Error::custom("13 refused in place")),
            n => {
                place.0 = n;
                Ok(())
            }
        }
    }
}

#[derive(Poolable, Default, Deserialize)]
struct Ticket {
    number: Picky,
    holder: String,
}

#[test]
fn a_body_the_fresh_decode_accepts_is_accepted_with_the_fresh_value() {
    async fn json(Json(ticket): Json<Ticket>) -> String {
        format!("{} {}", ticket.number.0, ticket.holder)
    }
    async fn pooled(ticket: PooledJson<Ticket>) -> String {
        format!("{} {}", ticket.number.0, ticket.holder)
    }
    run(async {
        let app = Router::new()
            .route("/json", post(json))
            .route("/pooled", post(pooled));
        let ct = json_type();
        for body in [
            &br#"{"number": 13, "holder": "ada"}"#[..],
            br#"{"number": 12, "holder": "grace"}"#,
            br#"{"number": 13}"#,
            br#"{"number": -13, "holder": "ada"}"#,
        ] {
            let expected = send(&app, "/json", Some(&ct), body).await;
            let got = send(&app, "/pooled", Some(&ct), body).await;
            assert_eq!(got, expected, "{}", String::from_utf8_lossy(body));
        }
        let accepted = send(
            &app,
            "/pooled",
            Some(&ct),
            br#"{"number": 13, "holder": "ada"}"#,
        )
        .await;
        assert_eq!(accepted.body, "13 ada");
        assert_eq!(Ticket::pool().stats().in_use(), 0);
    });
}

/// Collects a response, whole.
async fn answer(response: Response) -> Answer {
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: axum::body::to_bytes(body, usize::MAX).await.unwrap(),
    }
}

/// The response buffers' pool, as `pools()` lists it.
fn buffers() -> pool_core::Stats {
    pool_core::pools()
        .into_iter()
        .find(|pool| pool.name() == "pool_core::axum responses")
        .expect("the response buffers' pool, once used")
        .stats()
}

#[test]
fn responses_are_jsons_and_their_buffers_come_back() {
    run(async {
        let body = body_of(&order_json(30, true));
        let fresh = || serde_json::from_slice::<Order>(&body).unwrap();
        let expected = answer(Json(fresh()).into_response()).await;
        assert_eq!(expected.status, StatusCode::OK);

        let pooled =
            |body: &[u8]| serde_json::from_slice::<pool_core::Pooled<Order>>(body).unwrap();
        assert_eq!(
            answer(PooledJson::from(pooled(&body)).into_response()).await,
            expected
        );
        assert_eq!(
            answer(JsonResponse(fresh()).into_response()).await,
            expected
        );
        assert_eq!(
            answer(JsonResponse(&*pooled(&body)).into_response()).await,
            expected
        );
        let state = Pool::builder(Order::default).build();
        let mut from_state = StatePooledJson(state.acquire());
        *from_state = fresh();
        assert_eq!(answer(from_state.into_response()).await, expected);
        assert_eq!(
            Order::pool().stats().in_use(),
            0,
            "answered orders went back"
        );

        // A value serde_json cannot serialize (a map whose keys are not
        // strings): `Json`'s 500 and text.
        let bad = std::collections::BTreeMap::from([(vec![1u8], 1u8)]);
        let expected = answer(Json(&bad).into_response()).await;
        assert_eq!(expected.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(answer(JsonResponse(&bad).into_response()).await, expected);

        // The buffer is the body's chunk, and back in the pool when the
        // chunk is dropped: the next response is written into it.
        let first = answer(JsonResponse(fresh()).into_response()).await;
        assert_eq!(buffers().in_use(), 1, "the body holds its buffer");
        let at = first.body.as_ptr();
        drop(first);
        assert_eq!(buffers().in_use(), 0);
        let second = answer(PooledJson::from(pooled(&body)).into_response()).await;
        assert_eq!(second.body.as_ptr(), at, "the same buffer");
        drop(second);

        // One that grew past 64 KiB is not kept at its size: shrunk to it.
        let big = body_of(&order_json(1000, true));
        assert!(big.len() > 64 * 1024);
        let before = buffers();
        let response = answer(PooledJson::from(pooled(&big)).into_response()).await;
        assert_eq!(response.body.len(), big.len());
        drop(response);
        let after = buffers();
        assert_eq!((after.shrunk - before.shrunk, after.in_use()), (1, 0));
    });
}
