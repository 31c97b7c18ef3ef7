#!/usr/bin/env python3
"""Checks pool-core's module graph against its layers.

    scripts/layers.sh            # check; exit 1 on an upward import or a cycle
    scripts/layers.sh --graph    # also print every module's imports

pool-core is built in layers, bottom up (docs/DESIGN.md, "Modules"):

    sync    the std/loom facade
    engine  one pool's machinery on erased objects, and the registry
    reset   the `Reset` trait and its impls
    pool    the typed pools: `Pool`, its guard, state, config, `pool!` and
            `Poolable`, run-time pools
    api     what users and generated code reach: serde, axum, metrics,
            `__private`, the crate root

A module may name items of its own layer and of the layers below it, and the
graph of modules (one a file) has no cycle. An import is any path in code
(not in comments) that starts with `crate::`, `super::` or, in a `use`, the
name of a child module; `crate::Name` is resolved through the crate root's
`pub use` lines to the module that defines `Name`. `$crate::` paths are left
out: they are the expansion site's, not the file's. Test modules (`tests/`,
`tests.rs`) are not checked.

Below the api layer, a module names an item through the module that
defines it, never through the crate root's re-export (`crate::Stats`).

It also fails on a source file over 800 lines (tests aside): one concept
per module, and a file that runs past 800 is split by sub-concept.
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pool-core", "src")

LAYERS = ["sync", "engine", "reset", "pool", "api"]
MAX_LINES = 800


def layer_of(module):
    top = module.split("::")[0] if module else ""
    if top in ("sync", "engine", "reset", "pool"):
        return LAYERS.index(top)
    return LAYERS.index("api")


def module_of(path):
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return "::".join(rel)


def strip_comments(text):
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]."""
    # Aliases first, while `as` is still a word of its own (`release`
    # ends in `ase`).
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:k])
            start = k + 1
    parts.append(inner[start:])
    return [p for part in parts if part for p in expand_use(prefix + part)]


def main():
    files = []
    for dirpath, _, names in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        if rel == "tests" or rel.startswith("tests" + os.sep):
            continue
        files += [os.path.join(dirpath, f) for f in names if f.endswith(".rs") and f != "tests.rs"]
    modules = {module_of(f): f for f in files}
    code = {m: without_tests(strip_comments(open(f, encoding="utf-8").read())) for m, f in modules.items()}

    # The crate root's re-exports and exported macros: `crate::Name` -> module.
    root_names = {}
    for m, text in code.items():
        for name in re.findall(r"#\[macro_export\]\s*macro_rules!\s*(\w+)", text):
            root_names[name] = m
    for tree in re.findall(r"\bpub\s+use\s+([^;]+);", code[""]):
        for path in expand_use(tree):
            segs = path.split("::")
            root_names[segs[-1]] = resolve(segs[:-1], modules)

    edges = {m: set() for m in modules}
    reexports = []
    for m, text in code.items():
        paths = []
        for tree in re.findall(r"\buse\s+([^;]+);", text):
            paths += expand_use(tree)
        paths += re.findall(r"(?<![\w$])((?:crate|super)(?:::\w+)+)", text)
        children = {c.split("::")[-1] for c in modules if parent(c) == m and c != m}
        for path in paths:
            segs = path.split("::")
            if segs[0] == "crate":
                segs = segs[1:]
            elif segs[0] == "super":
                base = m
                while segs and segs[0] == "super":
                    base, segs = parent(base), segs[1:]
                segs = (base.split("::") if base else []) + segs
            elif segs[0] == "self":
                segs = (m.split("::") if m else []) + segs[1:]
            elif segs[0] in children:
                segs = (m.split("::") if m else []) + segs
            else:
                continue  # std, a dependency, or a local item
            if len(segs) == 1 and segs[0] in root_names and segs[0] not in modules:
                target = root_names[segs[0]]
            else:
                target = resolve(segs, modules)
                if target == "" and segs and segs[0] in root_names:
                    target = root_names[segs[0]]
            if target != m and target is not None:
                edges[m].add(target)
        # Below the api layer, a module names the module that defines an
        # item, never the crate root's re-export of it (`crate::Stats`):
        # the re-exports are the api layer's, and a path through them hides
        # the real edge from this graph.
        if layer_of(m) < LAYERS.index("api"):
            for name in sorted(set(re.findall(r"(?<![\w$])crate::(\w+)", text))):
                if name in root_names and name not in modules:
                    reexports.append(f"{m} names the crate root's re-export `crate::{name}`: name its module ({root_names[name] or 'crate root'})")

    failures = list(reexports)
    for m in sorted(edges):
        for t in sorted(edges[m]):
            if layer_of(t) > layer_of(m):
                failures.append(
                    f"upward import: {m or 'crate root'} ({LAYERS[layer_of(m)]}) -> {t or 'crate root'} ({LAYERS[layer_of(t)]})"
                )
    for m, f in sorted(modules.items()):
        lines = sum(1 for _ in open(f, encoding="utf-8"))
        if lines > MAX_LINES:
            failures.append(f"{os.path.relpath(f, ROOT)} has {lines} lines, over {MAX_LINES}: split it by concept")
    failures += undocumented(modules)
    cycle = find_cycle(edges)
    if cycle:
        failures.append("cycle: " + " -> ".join(c or "crate root" for c in cycle))

    if "--graph" in sys.argv:
        for layer in reversed(range(len(LAYERS))):
            print(f"{LAYERS[layer]}:")
            for m in sorted(x for x in edges if layer_of(x) == layer):
                deps = ", ".join(sorted(t or "crate root" for t in edges[m])) or "-"
                print(f"  {m or 'crate root'} -> {deps}")
    for failure in failures:
        print(f"scripts/layers.sh: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"scripts/layers.sh: {len(modules)} modules in {len(LAYERS)} layers, no upward import, no cycle, none over {MAX_LINES} lines")
    return 0


def undocumented(modules):
    """Modules that docs/DESIGN.md's layer table does not name in their
    layer's row (by full path, path below the layer, or last segment, in
    backticks): the table is checked, not trusted."""
    design = os.path.join(ROOT, "..", "..", "docs", "DESIGN.md")
    rows = {}
    for line in open(design, encoding="utf-8"):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and cells[1] in LAYERS:
            rows[cells[1]] = cells[2]
    missing = []
    for m in sorted(modules):
        if not m or m in LAYERS:
            continue
        row = rows.get(LAYERS[layer_of(m)], "")
        segs = m.split("::")
        names = {m, "::".join(segs[1:]), segs[-1]}
        if not any(f"`{n}`" in row for n in names if n):
            missing.append(f"docs/DESIGN.md's layer table does not name `{m}` in the {LAYERS[layer_of(m)]} row")
    return missing


def without_tests(text):
    """The file without its inline `#[cfg(test)] mod tests { ... }` blocks:
    each block alone, up to its matching brace, so that code after one is
    still read (comments and strings are already stripped)."""
    pattern = re.compile(r"#\[cfg\([^\]]*test[^\]]*\)\]\s*mod\s+\w+\s*\{")
    while True:
        found = pattern.search(text)
        if not found:
            return text
        depth, k = 1, found.end()
        while k < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        text = text[: found.start()] + text[k:]


def parent(module):
    return module.rsplit("::", 1)[0] if "::" in module else ""


def resolve(segs, modules):
    """The longest prefix of `segs` that is a module; the root if none."""
    for k in range(len(segs), 0, -1):
        candidate = "::".join(segs[:k])
        if candidate in modules:
            return candidate
    return ""


def find_cycle(edges):
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                return stack[stack.index(t) :] + [t]
            if state.get(t) is None:
                found = visit(t)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if state.get(m) is None:
            found = visit(m)
            if found:
                return found
    return None


if __name__ == "__main__":
    sys.exit(main())
