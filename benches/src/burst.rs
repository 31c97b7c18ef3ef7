//! The burst workload of issue 16: a batch of requests held at once, then
//! all dropped, as a server does when a burst of connections arrives. Each
//! request has two strings and a 48-byte body, as in
//! `examples/arena_vs_pool.rs`.
//!
//! Three ways to get the requests, each doing the same writes and the same
//! reset:
//!
//! - [`Way::Box`]: no pool, a fresh `Box<Request>` per request;
//! - [`Way::Default`]: [`Request`], derived `Poolable` with the default
//!   settings, whose capacities a burst of [`BATCH`] exceeds;
//! - [`Way::Sized`]: [`Sized`], the same fields with
//!   `#[pool(capacity = 16384)]`, which holds a whole burst;
//! - [`Way::Small`]: [`Small`], with `#[pool(capacity = 1024)]`, a pool
//!   a burst overflows: most requests are made and dropped as with no pool;
//! - [`Way::HugeBox`] and [`Way::Huge`]: bursts of [`HUGE`] requests, past
//!   the default capacity, with no pool and with [`HugeRequest`], derived
//!   with the default settings: a burst larger than a default pool.
//!
//! `benches/burst.rs` times them; `scripts/callgrind.sh` counts their
//! instructions (variants `burst_box`, `burst_default`, `burst_sized`,
//! `burst_small`, `burst_huge_box`, `burst_huge`, per request).

use std::fmt::Write as _;
use std::hint::black_box;

use pool_core::Poolable;

/// Requests held at once in one burst.
pub const BATCH: usize = 10_000;

/// Requests held at once in a burst past the default capacity
/// (`pool_core::DEFAULT_CAPACITY`, 65,536, plus a thread cache).
pub const HUGE: usize = 100_000;

/// A request, pooled with the default settings.
#[derive(Poolable, Default)]
pub struct Request {
    path: String,
    user: String,
    body: Vec<u8>,
}

/// The same request, in a pool that holds a whole burst.
#[derive(Poolable, Default)]
#[pool(capacity = 16384)]
pub struct Sized {
    path: String,
    user: String,
    body: Vec<u8>,
}

/// The same request, in a pool a burst overflows.
#[derive(Poolable, Default)]
#[pool(capacity = 1024)]
pub struct Small {
    path: String,
    user: String,
    body: Vec<u8>,
}

/// The same request, with the default settings, for the bursts of
/// [`HUGE`] requests (a pool of its own, so that the other ways' bursts
/// leave it nothing).
#[derive(Poolable, Default)]
pub struct HugeRequest {
    path: String,
    user: String,
    body: Vec<u8>,
}

/// How a burst gets its requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// A fresh `Box` per request, no pool.
    Box,
    /// [`Request::acquire`], default settings.
    Default,
    /// [`Sized::acquire`], a pool that holds a burst.
    Sized,
    /// [`Small::acquire`], a pool a burst overflows.
    Small,
    /// A fresh `Box` per request, in bursts of [`HUGE`].
    HugeBox,
    /// [`HugeRequest::acquire`], default settings, in bursts of [`HUGE`].
    Huge,
}

impl Way {
    /// Every way, by the name the benches use.
    pub const ALL: [(&'static str, Way); 6] = [
        ("box", Way::Box),
        ("default", Way::Default),
        ("sized", Way::Sized),
        ("small", Way::Small),
        ("huge_box", Way::HugeBox),
        ("huge", Way::Huge),
    ];

    /// Requests held at once in one of this way's bursts.
    pub fn requests(self) -> usize {
        match self {
            Way::HugeBox | Way::Huge => HUGE,
            Way::Box | Way::Default | Way::Sized | Way::Small => BATCH,
        }
    }

    /// The way with no pool and bursts of the same size, to compare with.
    pub fn baseline(self) -> Way {
        match self {
            Way::HugeBox | Way::Huge => Way::HugeBox,
            Way::Box | Way::Default | Way::Sized | Way::Small => Way::Box,
        }
    }
}

const BODY: [u8; 48] = [b'x'; 48];

/// Makes `n` requests with `$make`, writes each the same way, and keeps
/// them in `$held`; adds what it wrote to `$sum`.
macro_rules! requests {
    ($n:expr, $make:expr, $held:expr, $sum:ident) => {
        for i in 0..$n {
            let mut req = $make;
            write!(req.path, "/api/v1/items/{i}").expect("formatting");
            write!(req.user, "user-{}", i % 1000).expect("formatting");
            req.body.extend_from_slice(&BODY);
            $sum += req.path.len();
            $held.push(req);
        }
    };
}

/// Runs one burst of `n` requests the given way into `held` (emptied at
/// the end, its capacity kept, so the harness allocates nothing itself).
/// Returns a checksum of what was written, so nothing is optimised away.
pub fn burst(way: Way, n: usize, held: &mut Held) -> usize {
    let mut sum = 0;
    match way {
        Way::Box => requests!(n, Box::new(Request::default()), held.boxed, sum),
        Way::Default => requests!(n, Request::acquire(), held.default, sum),
        Way::Sized => requests!(n, Sized::acquire(), held.sized, sum),
        Way::Small => requests!(n, Small::acquire(), held.small, sum),
        Way::HugeBox => requests!(n, Box::new(Request::default()), held.boxed, sum),
        Way::Huge => requests!(n, HugeRequest::acquire(), held.huge, sum),
    }
    black_box(&*held);
    held.clear();
    sum
}

/// The vectors a burst holds its requests in, made once per run.
#[derive(Default)]
pub struct Held {
    #[allow(
        clippy::vec_box,
        reason = "each request allocated on its own, as plain allocation does"
    )]
    boxed: Vec<Box<Request>>,
    default: Vec<pool_core::Pooled<Request>>,
    sized: Vec<pool_core::Pooled<Sized>>,
    small: Vec<pool_core::Pooled<Small>>,
    huge: Vec<pool_core::Pooled<HugeRequest>>,
}

impl Held {
    /// Room for a burst of each way.
    pub fn new() -> Self {
        Held {
            boxed: Vec::with_capacity(HUGE),
            default: Vec::with_capacity(BATCH),
            sized: Vec::with_capacity(BATCH),
            small: Vec::with_capacity(BATCH),
            huge: Vec::with_capacity(HUGE),
        }
    }

    fn clear(&mut self) {
        self.boxed.clear();
        self.default.clear();
        self.sized.clear();
        self.small.clear();
        self.huge.clear();
    }
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held").finish_non_exhaustive()
    }
}
