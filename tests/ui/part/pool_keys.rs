// A part has no pool and no constructor: the keys that configure them are
// errors, each at its key; `crate` is fine.
use pool_core::Reset;

#[derive(Reset, Default)]
#[pool(crate = ::pool_core, capacity = 64, new = LineItem::new)]
#[pool(thread_capacity = 4, reset_on = acquire)]
struct LineItem {
    sku: String,
}

impl LineItem {
    fn new() -> Self {
        LineItem { sku: String::with_capacity(16) }
    }
}

fn main() {
    LineItem::new().reset();
}
