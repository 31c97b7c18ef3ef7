// Only structs derive `Reset`; the stub keeps `reset` calls error-free.
use pool_core::Reset;

#[derive(Reset)]
enum Kind {
    Plain,
    Gift,
}

fn main() {
    Kind::Plain.reset();
    let _ = Kind::Gift;
}
