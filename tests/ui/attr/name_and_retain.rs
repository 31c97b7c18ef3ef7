// `name` takes a non-empty string, `retain` a path to a `fn(&Self) -> bool`.
use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(name = requests, retain = |_: &Request| true)]
struct Request {
    path: String,
}

#[derive(Poolable, Default)]
#[pool(name = "")]
struct Empty {
    path: String,
}

#[derive(Poolable, Default)]
#[pool(retain = keep_all)]
struct Buffer {
    path: String,
}

fn keep_all(_: &String) -> bool {
    true
}

fn main() {
    let _ = (Request::acquire(), Empty::acquire(), Buffer::acquire());
}
