/work/wt37/target-doc/debug/deps/pool_derive-fb3b712b3c47d189.d: pool-derive/src/lib.rs pool-derive/src/ast.rs pool-derive/src/attr/mod.rs pool-derive/src/attr/unknown.rs pool-derive/src/attr/value.rs pool-derive/src/ctxt.rs pool-derive/src/expand/mod.rs pool-derive/src/expand/heap.rs pool-derive/src/expand/pool.rs pool-derive/src/expand/reset.rs pool-derive/src/fallback.rs pool-derive/src/valid.rs

/work/wt37/target-doc/debug/deps/libpool_derive-fb3b712b3c47d189.so: pool-derive/src/lib.rs pool-derive/src/ast.rs pool-derive/src/attr/mod.rs pool-derive/src/attr/unknown.rs pool-derive/src/attr/value.rs pool-derive/src/ctxt.rs pool-derive/src/expand/mod.rs pool-derive/src/expand/heap.rs pool-derive/src/expand/pool.rs pool-derive/src/expand/reset.rs pool-derive/src/fallback.rs pool-derive/src/valid.rs

pool-derive/src/lib.rs:
pool-derive/src/ast.rs:
pool-derive/src/attr/mod.rs:
pool-derive/src/attr/unknown.rs:
pool-derive/src/attr/value.rs:
pool-derive/src/ctxt.rs:
pool-derive/src/expand/mod.rs:
pool-derive/src/expand/heap.rs:
pool-derive/src/expand/pool.rs:
pool-derive/src/expand/reset.rs:
pool-derive/src/fallback.rs:
pool-derive/src/valid.rs:
