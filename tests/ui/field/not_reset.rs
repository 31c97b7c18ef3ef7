use pool_core::Poolable;

#[derive(Default)]
struct Config {
    verbose: bool,
}

#[derive(Poolable, Default)]
struct Request {
    name: String,
    config: Config,
    configs: [Config; 2],
}

fn main() {
    let _ = Request::acquire();
}
