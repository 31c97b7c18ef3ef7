//! `pool!` and `#[derive(Poolable)]` do not break on names a user may
//! choose (issue 11): a pool named like the statics the expansion declares,
//! a struct named like the type alias it used to declare, a module of the
//! same name as a pool. Each of these failed to compile in pool-core 0.1 (a
//! type mismatch, a type-alias cycle).
#![allow(non_snake_case, non_camel_case_types)]

use pool_core::{Pool, Poolable, pool};

pool! {
    static __POOL_CORE_LOCAL: Pool<String> = Pool::new(String::new);
    static __POOL_CORE_STATE: Pool<Vec<u8>> = Pool::new(Vec::new);
}

/// A module named like a pool and like the expansion's statics.
mod __POOL_CORE_LOCAL {
    pub(crate) fn create() -> String {
        String::with_capacity(16)
    }
}

#[derive(Poolable, Default)]
struct __PoolCoreItem {
    name: String,
}

pool! {
    static ITEMS: Pool<__PoolCoreItem> = Pool::new(__PoolCoreItem::default);
    static MADE_BY_A_MODULE: Pool<String> = Pool::new(__POOL_CORE_LOCAL::create);
}

#[test]
fn pools_named_like_the_expansions_statics_work() {
    __POOL_CORE_LOCAL.acquire().push_str("kept");
    assert!(__POOL_CORE_LOCAL.acquire().is_empty(), "reset on release");
    __POOL_CORE_STATE.acquire().push(1);
    assert_eq!(__POOL_CORE_LOCAL.stats().created, 1);
    assert_eq!(__POOL_CORE_STATE.stats().idle, 1);
}

#[test]
fn a_struct_named_like_the_old_type_alias_derives_and_pools() {
    __PoolCoreItem::acquire().name.push_str("kept");
    assert!(__PoolCoreItem::acquire().name.is_empty());
    drop(ITEMS.acquire());
    assert_eq!(__PoolCoreItem::pool().stats().created, 1);
    assert_eq!(ITEMS.stats().created, 1, "its own pool");
    assert!(MADE_BY_A_MODULE.acquire().capacity() >= 16);
}
