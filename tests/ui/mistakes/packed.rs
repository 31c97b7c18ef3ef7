use pool_core::Poolable;

#[derive(Poolable, Default)]
#[repr(C, packed)]
struct Header {
    kind: u8,
    len: u32,
}

fn main() {
    let header = Header::acquire();
    drop(header);
}
