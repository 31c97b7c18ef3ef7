// The generated code names everything by absolute path, so neither a
// missing prelude nor user types named like std's items change its meaning.
#![deny(warnings)]
#![no_implicit_prelude]

mod shadows {
    #![allow(dead_code)]
    pub struct Vec;
    pub struct Option;
    pub struct Default;
    pub struct Box;
    pub struct Send;
    pub struct Sized;
    pub struct Reset;
    pub struct Pool;
    pub struct Poolable;
    pub mod core {}
    pub mod std {}
    pub mod pool_core {}
}

use ::pool_core::Poolable;
#[allow(unused_imports)]
use shadows::*;

#[derive(Poolable, ::std::default::Default)]
#[pool(capacity = 8)]
struct Request {
    name: ::std::string::String,
    body: ::std::vec::Vec<u8>,
    #[pool(default)]
    count: u32,
    #[pool(max_capacity = 16)]
    bytes: ::std::vec::Vec<u8>,
}

fn main() {
    let mut req = <Request as ::pool_core::Poolable>::acquire();
    req.name.push('x');
    req.body.push(1);
    req.bytes.push(2);
    req.count = 3;
}
