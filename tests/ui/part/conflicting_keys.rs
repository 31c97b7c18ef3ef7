// A part's field keys are checked as a pooled struct's are.
use pool_core::Reset;

#[derive(Reset, Default)]
struct LineItem {
    #[pool(skip, default)]
    sku: String,
    #[pool(max_capacity = 16, skp)]
    note: String,
}

fn main() {
    LineItem::default().reset();
}
