// Every struct and field attribute, under strict lints: the generated code
// must not trip the user's.
#![forbid(unsafe_code)]
#![deny(
    warnings,
    rust_2018_idioms,
    trivial_casts,
    trivial_numeric_casts,
    unused_qualifications,
    unused_results
)]

use pool_core::{Poolable, Pooled};

#[derive(Default)]
enum Mode {
    #[default]
    Read,
    Write,
}

const PER_THREAD: usize = 8;

fn reset_scores(scores: &mut [f32; 4]) {
    *scores = [1.0; 4];
}

#[derive(Poolable)]
#[pool(new = Request::new, capacity = 1024, thread_capacity = PER_THREAD)]
#[pool(crate = ::pool_core, reset_on = acquire)]
struct Request {
    name: String,
    age: u32,
    tags: Vec<String>,
    #[pool(max_capacity = 65536)]
    body: Vec<u8>,
    #[pool(skip)]
    id: u64,
    #[pool(default)]
    mode: Mode,
    #[pool(reset = reset_scores)]
    scores: [f32; 4],
    #[pool(reset = Vec::clear, max_capacity = 16usize)]
    scratch: Vec<u8>,
    #[pool(reset = String::clear)]
    r#type: String,
}

impl Request {
    fn new() -> Self {
        Request {
            name: String::new(),
            age: 0,
            tags: Vec::new(),
            body: Vec::with_capacity(4096),
            id: 0,
            mode: Mode::Read,
            scores: [1.0; 4],
            scratch: Vec::new(),
            r#type: String::new(),
        }
    }
}

fn main() {
    let mut req: Pooled<Request> = Request::acquire();
    req.name.push_str("Ada");
    req.age = 36;
    req.tags.push(String::from("math"));
    req.body.push(1);
    req.id = 7;
    req.mode = Mode::Write;
    req.scores[0] = 2.0;
    req.scratch.push(3);
    req.r#type.push('t');
}
