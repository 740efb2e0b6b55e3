#!/usr/bin/env python3
"""Report import cycles between src/ modules: a module is a top-level stage (src/X.rs or
src/X/) or a file inside one (src/X/Y.rs, named X::Y). An edge A -> B is any `crate::B…`
path in A's source (outside comments), or `super::B` inside the same stage. Exit 1 and print
each cycle found (none is tolerated).
    python3 tests/module_cycles.py"""
import os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
def module_of(path):
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    return rel

def strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)

files = []
for d, _, fs in os.walk(ROOT):
    for f in fs:
        if f.endswith(".rs"):
            files.append(os.path.join(d, f))

stages = {module_of(f)[0] for f in files if module_of(f)}
edges = {}
for f in files:
    m = module_of(f)
    if not m or m[0] in ("lib", "main"):
        continue
    text = strip_comments(open(f, encoding="utf-8").read())
    text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", text, flags=re.S)
    src = m[0]
    for b in re.findall(r"crate::([a-z_]+)", text):
        if b in stages and b != src:
            edges.setdefault(src, set()).add(b)
    if len(m) >= 2:
        me = "::".join(m[:2])
        for b in re.findall(r"super::([a-z_]+)", text):
            other = f"{src}::{b}"
            if other != me and any(module_of(g)[:2] == [src, b] for g in files):
                edges.setdefault(me, set()).add(other)

def cycles():
    found = set()
    for start in edges:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    found.add(frozenset(path))
                elif nxt not in path and len(path) < 6:
                    stack.append((nxt, path + [nxt]))
    return found

bad = 0
for c in sorted(cycles(), key=sorted):
    bad += 1
    print(f"CYCLE: {' <-> '.join(sorted(c))}")
sys.exit(1 if bad else 0)
