#!/usr/bin/env python3
"""Writes the worst-case inputs of the resource-bound benchmark into DIR (bench/run-bench.sh "Bounds").

Each input once ran for minutes or took the machine's memory; the benchmark checks that --timeout and
--memory end it with the right status. Printed: one line per case, "name<TAB>options<TAB>file".
"""
import argparse
import importlib.util
import os

_spec = importlib.util.spec_from_file_location("gen_pipelines", os.path.join(os.path.dirname(__file__), "gen-pipelines.py"))
gen_pipelines = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_pipelines)


def many_threads(threads, accesses):
    locs = "xyzw"
    out = ["PTX many\n{ x = 0; y = 0; z = 0; w = 0 }"]
    for p in range(threads):
        out.append(f"P{p}@cta {p},gpu 0:")
        for a in range(accesses):
            l = locs[(p + a) % 4]
            if (p + a) % 2 == 0:
                out.append(f"    st.relaxed.gpu.global.u32 [{l}], {a + 1};")
            else:
                out.append(f"    ld.relaxed.gpu.global.u32 r{a}, [{l}];")
    return "\n".join(out) + "\nexists (0:r1 == 1)\n"


def sc_fences(k):
    out = ["PTX SB+fences\n{ x = 0; y = 0 }"]
    for p, (w, r) in enumerate([("x", "y"), ("y", "x")]):
        out.append(f"P{p}@cta {p},gpu 0:\n    st.relaxed.gpu.global.u32 [{w}], 1;")
        out += ["    fence.sc.gpu;"] * k
        out.append(f"    ld.relaxed.gpu.global.u32 r0, [{r}];")
    return "\n".join(out) + "\nexists (0:r0 == 0 /\\ 1:r0 == 0)\n"


NESTED = """PTX nested-loops
{ x = 0; y = 0 }
P0@cta 0,gpu 0:
outer:
    ld.relaxed.gpu.global.u32 r0, [x];
inner:
    ld.relaxed.gpu.global.u32 r1, [y];
    setp.eq.u32 p, r1, 0;
    @p bra inner;
    setp.eq.u32 q, r0, 0;
    @q bra outer;
P1@cta 1,gpu 0:
    st.relaxed.gpu.global.u32 [x], 1;
    st.relaxed.gpu.global.u32 [y], 1;
exists (0:r0 == 1)
"""

TWO_LOOPS = NESTED.replace("outer:\n    ld.relaxed.gpu.global.u32 r0, [x];\ninner:\n    ld.relaxed.gpu.global.u32 r1, [y];\n    setp.eq.u32 p, r1, 0;\n    @p bra inner;\n    setp.eq.u32 q, r0, 0;\n    @q bra outer;",
                           "l1:\n    ld.relaxed.gpu.global.u32 r0, [x];\n    setp.eq.u32 p, r0, 0;\n    @p bra l1;\nl2:\n    ld.relaxed.gpu.global.u32 r1, [y];\n    setp.eq.u32 q, r1, 0;\n    @q bra l2;").replace("nested-loops", "two-loops")

WITH_MODEL = '"with-from stress"\nwith co2 from linearisations(W, 0)\nacyclic po | rf | co2 as test\n'


def writes10():
    rows = "".join(f" st.relaxed.gpu x, {k} | st.relaxed.gpu x, {k + 5} ;\n" for k in range(1, 6))
    return "PTX W10\n{ x = 0 }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n" + rows + "exists (x == 1)\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir", help="where to write the inputs")
    d = ap.parse_args().dir
    os.makedirs(d, exist_ok=True)
    files = {
        "many16x12.litmus": many_threads(16, 12),
        "sc-fences12.litmus": sc_fences(12),
        "nested-loops.litmus": NESTED,
        "two-loops.litmus": TWO_LOOPS,
        "W10.litmus": writes10(),
        "with.cat": WITH_MODEL,
        "ring-K1-N14.litmus": gen_pipelines.ring(1, 14)[1],
    }
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    cases = [
        ("16 threads x 12 accesses, enum", "--engine enum --timeout 1", "many16x12.litmus"),
        ("16 threads x 12 accesses, both", "--engine both --timeout 1", "many16x12.litmus"),
        ("12 fence.sc per thread, enum", "--engine enum --timeout 1", "sc-fences12.litmus"),
        ("12 fence.sc per thread, both (smt decides)", "--engine both --timeout 10", "sc-fences12.litmus"),
        ("nested loops, --unroll 64", "--unroll 64 --max-events 0 --timeout 1", "nested-loops.litmus"),
        ("two loops, --unroll 64, default --max-events", "--unroll 64", "two-loops.litmus"),
        ("two loops, --unroll 64 --max-events 0, timeout", "--unroll 64 --max-events 0 --timeout 2", "two-loops.litmus"),
        ("two loops, --unroll 64 --max-events 0, memory", "--unroll 64 --max-events 0 --memory 300M", "two-loops.litmus"),
        ("TMA ring K = 1, N = 14, smt", "--engine smt --timeout 3", "ring-K1-N14.litmus"),
        ("TMA ring K = 1, N = 14, smt, deadline in a large assertion", "--engine smt --timeout 5", "ring-K1-N14.litmus"),
        ("TMA ring K = 1, N = 14, smt, Z3's memory", "--engine smt -j1 --memory 200M", "ring-K1-N14.litmus"),
        ("with ... from over 10! orders, enum", "--engine enum --memory 100M --model " + os.path.join(d, "with.cat"), "W10.litmus"),
    ]
    for name, opts, f in cases:
        print(f"{name}\t{opts}\t{os.path.join(d, f)}")


if __name__ == "__main__":
    main()
