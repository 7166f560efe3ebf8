#!/usr/bin/env python3
"""Generate the combinatorial benchmark family (herd7's cost explodes on these, reference
cat-language.md section 12): N threads each writing twice to one location and then reading it
(CoWNx2, all threads share x), and the same with 3 locations (CoWNx2-3loc: thread i writes
loc[i % 3] twice and reads loc[(i + 1) % 3])."""
import argparse
import os


def test(name, nthreads, locs):
    cols = []
    for i in range(nthreads):
        w = locs[i % len(locs)]
        r = locs[(i + 1) % len(locs)] if len(locs) > 1 else w
        cols.append([f"P{i}@cta {i},gpu 0",
                     f"st.relaxed.gpu {w}, {2 * i + 1}",
                     f"st.relaxed.gpu {w}, {2 * i + 2}",
                     f"ld.relaxed.gpu r0, {r}"])
    width = [max(len(c[k]) for k in range(4)) for c in cols]
    rows = []
    for k in range(4):
        rows.append(" " + " | ".join(c[k].ljust(width[j]) for j, c in enumerate(cols)) + " ;")
    init = "; ".join(f"{l} = 0" for l in locs)
    cond = " /\\ ".join(f"{i}:r0 == {2 * ((i + 1) % nthreads) + 1}" for i in range(nthreads))
    return f"PTX {name}\n\"benchmark family member\"\n{{ {init} }}\n" + "\n".join(rows) + f"\nexists ({cond})\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("outdir", nargs="?", default="bench/family", help="where to write the tests (default: bench/family)")
    out = ap.parse_args().outdir
    os.makedirs(out, exist_ok=True)
    for n in (3, 4):
        for name, locs in ((f"CoW{n}x2", ["x"]), (f"CoW{n}x2-3loc", ["x", "y", "z"])):
            with open(os.path.join(out, name + ".litmus"), "w") as f:
                f.write(test(name, n, locs))
            print(os.path.join(out, name + ".litmus"))


if __name__ == "__main__":
    main()
