// A struct declared inside a function body, with a constructor that is a
// `Self` path.
#![deny(warnings)]

use pool_core::Poolable;

fn main() {
    #[derive(Poolable)]
    #[pool(new = Self::make)]
    struct Local {
        text: String,
    }

    impl Local {
        fn make() -> Self {
            Local {
                text: String::with_capacity(8),
            }
        }
    }

    Local::acquire().text.push('x');
}
