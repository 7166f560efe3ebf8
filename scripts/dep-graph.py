#!/usr/bin/env python3
"""The stage dependency graph of harness/, from the includes, checked against the CMake stages.

Each stage is a static library declared in harness/CMakeLists.txt by `ptxmm_stage(NAME DEPS ...)`; the
executables (the `ptxmm` CLI in harness/cli/, the tools under tools/) sit above every stage. A source file
of stage A may include a header of stage B only if B is A itself or among the stages A depends on
(transitively) in CMake: an include of any other stage is an edge running up (or sideways), and fails
the check with the file and line of the include.

Usage:
  scripts/dep-graph.py            print the graph (stage -> stages it includes) and the violations
  scripts/dep-graph.py --write    also rewrite the graph section of docs/design.md and render
                                  docs/dependencies.png (needs Graphviz `dot`)
  scripts/dep-graph.py --check    exit 1 on a violation or if docs/design.md's section is not what --write
                                  would write
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HARNESS = ROOT / "harness"
DESIGN = ROOT / "docs" / "design.md"
PNG = ROOT / "docs" / "dependencies.png"
BEGIN = "<!-- dep-graph:begin (scripts/dep-graph.py --write) -->"
END = "<!-- dep-graph:end -->"
TOP = "cli"  # the executables' sources: may include every stage

STAGE_RE = re.compile(r"^\s*ptxmm_stage\(\s*(\w+)\s*(?:DEPS\s+([^)]*))?\)", re.M)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"', re.M)


def cmake_stages():
    """Stages in declaration order and their declared stage dependencies."""
    text = (HARNESS / "CMakeLists.txt").read_text()
    order, deps = [], {}
    for m in STAGE_RE.finditer(text):
        name = m.group(1)
        order.append(name)
        deps[name] = [d[len("ptxmm_"):] for d in (m.group(2) or "").split() if d.startswith("ptxmm_")]
    if not order:
        sys.exit("dep-graph: no ptxmm_stage(...) in harness/CMakeLists.txt")
    for s, ds in deps.items():
        for d in ds:
            if d not in deps:
                sys.exit(f"dep-graph: stage {s} depends on unknown stage {d}")
    return order, deps


def closure(deps):
    """Stage -> every stage it may use (itself included)."""
    out = {}

    def visit(s):
        if s not in out:
            out[s] = {s}
            for d in deps[s]:
                out[s] |= visit(d)
        return out[s]

    for s in deps:
        visit(s)
    return out


def sources(stage_dir):
    for p in sorted(stage_dir.rglob("*")):
        if p.suffix in (".cpp", ".hpp", ".def", ".h") and p.is_file():
            yield p


def include_edges(order):
    """(from stage, to stage) -> [(file, line)] for every include of another stage's header."""
    known = set(order) | {TOP}
    edges = {}
    dirs = [(s, HARNESS / s) for s in order] + [(TOP, HARNESS / TOP)]
    tools = ROOT / "tools"
    if tools.is_dir():
        dirs += [(TOP, tools)]
    for stage, d in dirs:
        if not d.is_dir():
            continue
        for f in sources(d):
            text = f.read_text(errors="replace")
            for m in INCLUDE_RE.finditer(text):
                to = m.group(1)
                if to not in known or to == stage:
                    continue
                line = text.count("\n", 0, m.start()) + 1
                edges.setdefault((stage, to), []).append((f.relative_to(ROOT), line))
    return edges


def reduce(order, edges):
    """The transitive reduction of the include graph (an edge implied by a path is left out)."""
    succ = {s: {b for (a, b) in edges if a == s} for s in order + [TOP]}

    def reach(a, skip):
        seen, todo = set(), [x for x in succ[a] if (a, x) != skip]
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo += succ.get(x, ())
        return seen

    return sorted(e for e in edges if e[1] not in reach(e[0], e))


def markdown(order, deps, edges, reduced):
    lines = [BEGIN, "", "| stage | includes headers of (direct) | may use (CMake, transitively) |", "|---|---|---|"]
    cl = closure(deps)
    for s in order + [TOP]:
        inc = sorted({b for (a, b) in edges if a == s}, key=lambda x: (order + [TOP]).index(x))
        may = "every stage" if s == TOP else ", ".join(x for x in order if x in cl[s] and x != s) or "—"
        name = "`cli/`, `tools/` (the executables)" if s == TOP else f"`{s}/`"
        lines.append(f"| {name} | {', '.join(f'`{x}`' for x in inc) or '—'} | {may} |")
    lines += ["", "Edges of the graph (transitively reduced), each pointing down:", "", "```"]
    lines += [f"{a} -> {b}" for (a, b) in reduced]
    lines += ["```", "", END]
    return "\n".join(lines)


def dot_source(order, reduced):
    out = ["digraph stages {", '  rankdir=TB; node [shape=box, fontname="Helvetica"];']
    out.append(f'  "{TOP}" [label="cli/, tools/"];')
    for s in order[::-1]:
        out.append(f'  "{s}";')
    out += [f'  "{a}" -> "{b}";' for (a, b) in reduced]
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    order, deps = cmake_stages()
    cl = closure(deps)
    edges = include_edges(order)
    bad = []
    for (a, b), where in sorted(edges.items()):
        if a != TOP and b not in cl[a]:
            for f, line in where:
                bad.append(f"{f}:{line}: error: stage `{a}` includes `{b}/`, which it does not depend on "
                           f"(harness/CMakeLists.txt: {a} uses {', '.join(sorted(cl[a] - {a})) or 'nothing'})")
        if b == TOP:
            for f, line in where:
                bad.append(f"{f}:{line}: error: stage `{a}` includes the executables' code `{TOP}/`")
    reduced = reduce(order, edges)
    md = markdown(order, deps, edges, reduced)
    if not args.check:
        print(md)
    for b in bad:
        print(b, file=sys.stderr)
    design = DESIGN.read_text()
    if BEGIN not in design or END not in design:
        current = None
    else:
        current = design[design.index(BEGIN):design.index(END) + len(END)]
    if args.write:
        if current is None:
            sys.exit(f"dep-graph: docs/design.md has no section between `{BEGIN}` and `{END}`")
        DESIGN.write_text(design.replace(current, md))
        if shutil.which("dot"):
            subprocess.run(["dot", "-Tpng", "-Gdpi=110", "-o", str(PNG)], input=dot_source(order, reduced),
                           text=True, check=True)
        else:
            print("dep-graph: Graphviz `dot` not found, docs/dependencies.png not rendered", file=sys.stderr)
    if args.check:
        stale = current != md
        if stale:
            print("docs/design.md: the dependency graph section is not what `scripts/dep-graph.py --write` writes",
                  file=sys.stderr)
        if bad or stale:
            return 1
        print(f"dep-graph: {len(order)} stages, {len(edges)} include edges, none running up")
    return 1 if bad and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
