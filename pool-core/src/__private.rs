//! Items used by the code that [`pool!`](crate::pool!) and
//! `#[derive(Poolable)]` generate. Not public API: anything here may change
//! in any release.

pub use crate::local::LocalCache;
pub use crate::pool::{PoolType, with_local};
