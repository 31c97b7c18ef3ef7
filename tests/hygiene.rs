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

/// Issue 40, item 3: `pool!` bound `let (config, parts)` and `let release`
/// (and its release function the parameter `value`), the derive `let
/// __retain`, `__create` and `__template` (and its pass `__this` and
/// `__pass`); a module with a static, a constant or a unit struct of one of
/// those names failed every `pool!` and derive in it: "let bindings cannot
/// shadow statics". The expansions now bind only `__pool_core_` names.
/// Each module below declares items of every one of those names, then a
/// `pool!` static, a derived struct that goes through every binding (a
/// constructor, a `retain` test, a template to restore from), a generic
/// one and a derived part.
macro_rules! named_like_the_bindings {
    ($module:ident; $($item:item)*) => {
        #[allow(dead_code, non_upper_case_globals, non_camel_case_types)]
        mod $module {
            use pool_core::{Pool, Poolable, Reset, pool};

            $($item)*

            pool! {
                pub(crate) static NAMES: Pool<String> = Pool::new(String::new);
            }

            #[derive(Reset, Default)]
            pub(crate) struct Line {
                pub(crate) text: String,
                #[pool(default)]
                pub(crate) count: u32,
            }

            #[derive(Poolable)]
            #[pool(new = Self::new, retain = Self::small)]
            pub(crate) struct Request {
                pub(crate) retries: u32,
                pub(crate) line: Line,
                #[pool(skip)]
                pub(crate) id: u64,
            }

            impl Request {
                fn new() -> Self {
                    Request { retries: 3, line: Line::default(), id: 0 }
                }

                fn small(&self) -> bool {
                    self.line.text.capacity() < 1 << 20
                }
            }

            #[derive(Poolable, Default)]
            #[pool(retain = Self::small)]
            pub(crate) struct Frame<T: Send + 'static> {
                pub(crate) data: Vec<T>,
            }

            impl<T: Send + 'static> Frame<T> {
                fn small(&self) -> bool {
                    self.data.capacity() < 1 << 20
                }
            }
        }
    };
}

named_like_the_bindings! {
    statics;
    static config: u8 = 0;
    static parts: u8 = 0;
    pool! { pub(crate) static release: Pool<String> = Pool::new(String::new); }
    static value: u8 = 0;
    static __create: u8 = 0;
    static __retain: u8 = 0;
    static __template: u8 = 0;
    static __this: u8 = 0;
    static __pass: u8 = 0;
}

named_like_the_bindings! {
    constants;
    const config: u8 = 0;
    const parts: u8 = 0;
    const release: u8 = 0;
    const value: u8 = 0;
    const __create: u8 = 0;
    const __retain: u8 = 0;
    const __template: u8 = 0;
    const __this: u8 = 0;
    const __pass: u8 = 0;
}

named_like_the_bindings! {
    unit_structs;
    struct config;
    struct parts;
    struct release;
    struct value;
    struct __create;
    struct __retain;
    struct __template;
    struct __this;
    struct __pass;
}

/// Runs a module's pool, derived struct and generic struct: each resets,
/// and the derived struct gets its constructor's value back.
macro_rules! exercise {
    ($module:ident) => {{
        use pool_core::Poolable as _;
        $module::NAMES.acquire().push_str("kept");
        assert!($module::NAMES.acquire().is_empty(), "reset on release");

        let mut req = $module::Request::acquire();
        assert_eq!(req.retries, 3);
        req.retries = 0;
        req.line.text.push_str("line");
        req.line.count = 2;
        drop(req);
        let req = $module::Request::acquire();
        assert_eq!(req.retries, 3, "the constructor's value, restored");
        assert!(req.line.text.is_empty() && req.line.count == 0);

        $module::Frame::<u8>::acquire().data.push(1);
        assert!($module::Frame::<u8>::acquire().data.is_empty());
    }};
}

#[test]
fn pools_and_derives_work_next_to_items_named_like_their_old_bindings() {
    exercise!(statics);
    exercise!(constants);
    exercise!(unit_structs);
    statics::release
        .acquire()
        .push_str("a pool named `release`");
    assert!(statics::release.acquire().is_empty());
}
