use pool_core::Poolable;

#[derive(Poolable, Default)]
enum Mode {
    #[default]
    Read,
    Write,
}

fn main() {
    let _ = Mode::acquire();
}
