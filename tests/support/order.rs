//! The nested request of the seeds' JSON workload, shared by
//! `tests/nested_decode.rs`, the `json_nested` bench (`benches/src/json.rs`)
//! and the axum example: an [`Order`] of ten [`LineItem`]s, the same with
//! `Vec`s ([`VecOrder`]), and its body ([`order_body`]). Included with
//! `#[path]`, so that every count and time is of the same request.

use pool_core::{Poolable, Reset, ReuseVec};
use serde::{Deserialize, Serialize};

/// A line item of [`Order`]: two strings and a list of tags, reset in
/// place with its order (no pool of its own).
#[derive(Reset, Default, Serialize, Deserialize)]
pub struct LineItem {
    /// The stock-keeping unit.
    pub sku: String,
    /// What it is.
    pub name: String,
    /// How many.
    pub quantity: u32,
    /// Kept, each tag with its buffer, across the order's uses.
    pub tags: ReuseVec<String>,
}

/// A nested request, decoded into `Pooled<Order>`: its line items and
/// tags are `ReuseVec`s, whose reset keeps the elements for the next
/// decode.
#[derive(Poolable, Default, Serialize, Deserialize)]
pub struct Order {
    /// The order's number.
    pub id: u64,
    /// Ten in [`order_body`].
    pub items: ReuseVec<LineItem>,
    /// The order's own tags.
    pub tags: ReuseVec<String>,
}

/// [`LineItem`] with a `Vec` of tags, as it is written without `ReuseVec`.
#[derive(Reset, Default, Deserialize)]
pub struct VecLineItem {
    /// The stock-keeping unit.
    pub sku: String,
    /// What it is.
    pub name: String,
    /// How many.
    pub quantity: u32,
    /// Cleared at each reset: the strings are dropped.
    pub tags: Vec<String>,
}

/// [`Order`] with `Vec`s: the reset drops every line item and tag.
#[derive(Poolable, Default, Deserialize)]
pub struct VecOrder {
    /// The order's number.
    pub id: u64,
    /// Ten in [`order_body`].
    pub items: Vec<VecLineItem>,
    /// The order's own tags.
    pub tags: Vec<String>,
}

/// The body of an [`Order`] (or a [`VecOrder`]) with ten line items of two
/// or three tags and two tags of its own, 47 strings in all, none with an
/// escape (serde_json would copy it through a scratch buffer it allocates
/// per call): the order of `tests/nested_decode.rs`.
pub fn order_body() -> Vec<u8> {
    let mut order = Order {
        id: 90_210,
        ..Order::default()
    };
    for i in 0..10 {
        let item = order.items.push_reused();
        item.sku = format!("SKU-{i:05}");
        item.name = format!("Espresso cups, set of {}, stoneware", i + 2);
        item.quantity = i + 1;
        item.tags.extend(["kitchen", "fragile"].map(String::from));
        if i % 2 == 0 {
            item.tags.push("gift-wrap".to_owned());
        }
    }
    order.tags.extend(["priority", "eu-west"].map(String::from));
    serde_json::to_vec(&order).expect("an Order serializes")
}
