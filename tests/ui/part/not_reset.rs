// A part's field whose type has no `Reset`: the error names the part
// derive's ways out.
use pool_core::Reset;

#[derive(Default)]
struct Config {
    verbose: bool,
}

#[derive(Reset, Default)]
struct LineItem {
    sku: String,
    config: Config,
}

fn main() {
    LineItem::default().reset();
}
