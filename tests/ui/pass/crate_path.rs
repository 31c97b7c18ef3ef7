// `#[pool(crate = path)]` for a crate that re-exports `pool_core`.
#![deny(warnings)]

mod framework {
    pub mod pool {
        pub use pool_core::*;
    }
}

#[derive(framework::pool::Poolable, Default)]
#[pool(crate = framework::pool)]
struct Job {
    input: Vec<u8>,
}

fn main() {
    use framework::pool::Poolable;
    Job::acquire().input.push(1);
}
