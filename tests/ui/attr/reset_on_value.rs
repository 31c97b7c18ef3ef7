use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(reset_on = "acquire")]
struct Quoted {
    body: Vec<u8>,
}

#[derive(Poolable, Default)]
#[pool(reset_on = drop)]
struct Misnamed {
    body: Vec<u8>,
}

#[derive(Poolable, Default)]
#[pool(reset_on)]
struct Missing {
    body: Vec<u8>,
}

#[derive(Poolable, Default)]
#[pool(reset_on = acquire, reset_on = release)]
struct Twice {
    body: Vec<u8>,
}

fn main() {
    let _ = Quoted::acquire();
    let _ = Misnamed::acquire();
    let _ = Missing::acquire();
    let _ = Twice::acquire();
}
