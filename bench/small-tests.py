#!/usr/bin/env python3
"""Small tests as whole processes (issue 14): the classic shapes checked one process per test, the tools
alternating round by round so that a change of machine load hits them alike. Reports per test and tool the
median wall time and the median CPU time (user + system of the child, from getrusage) over the rounds.

Tools: ptxmm with the smt and the enum engine, and herd7 when a command for it is given (`--herd "herd7 -model
PATH"`; the test file is appended): its test files must be in herd7's own PTX dialect, so `--herd-dir DIR`
names a directory holding them under the same base names (DIR/MP+rlx.litmus ...). Prints a Markdown table.

Usage: python3 bench/small-tests.py [--ptxmm PATH] [--model PATH] [--rounds N] [--herd CMD --herd-dir DIR]
                                    [TEST...]
TEST: litmus files (default: the classic shapes below).
"""
import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLASSIC = [
    "litmus/hw/MP+rlx.litmus",
    "litmus/hw/MP+rel+acq.gpu.litmus",
    "litmus/hw/SB+weak.litmus",
    "litmus/hw/SB+fence.sc.gpu.litmus",
    "litmus/hw/LB+weak.litmus",
    "litmus/hw/2+2W+weak.litmus",
    "litmus/hw/CoRR+rlx.litmus",
    "litmus/base/IRIW+rlx.gpu.litmus",
    "litmus/base/IRIW+fence.sc.gpu-in-gpu.litmus",
    "litmus/base/R+rlx.gpu.litmus",
    "litmus/base/S+rlx.gpu.litmus",
]


def run(cmd):
    """Wall seconds and CPU seconds (user + system) of one child process; its exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.returncode


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptxmm", default=os.path.join(ROOT, "build", "ptxmm"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "ptx.cat"))
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--herd", help="herd7 command line; the test file is appended")
    ap.add_argument("--herd-dir", help="herd7's versions of the tests, same base names")
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args(argv)
    if not os.access(a.ptxmm, os.X_OK):
        print(f"small-tests.py: error: '{a.ptxmm}' is not an executable ptxmm binary", file=sys.stderr)
        return 2
    if bool(a.herd) != bool(a.herd_dir):
        print("small-tests.py: error: --herd and --herd-dir go together", file=sys.stderr)
        return 2
    # Tests given are relative to where the benchmark is started; the default ones to the repository.
    tests = [os.path.abspath(t) for t in a.tests] or [os.path.join(ROOT, t) for t in CLASSIC]
    for t in tests:
        if not os.path.isfile(t):
            print(f"small-tests.py: error: no litmus file {t}", file=sys.stderr)
            return 2
    tools = {
        "ptxmm smt": lambda t: [a.ptxmm, "check", "--engine", "smt", "--model", a.model, "-j1", t],
        "ptxmm enum": lambda t: [a.ptxmm, "check", "--engine", "enum", "--model", a.model, "-j1", t],
    }
    if a.herd:
        tools["herd7"] = lambda t: shlex.split(a.herd) + [os.path.join(a.herd_dir, os.path.basename(t))]
    names = list(tools)
    wall = {(t, n): [] for t in tests for n in names}
    cpu = {(t, n): [] for t in tests for n in names}
    failed = set()
    for r in range(a.rounds):
        order = names if r % 2 == 0 else list(reversed(names))  # alternate which tool goes first
        for t in tests:
            for n in order:
                w, c, rc = run(tools[n](t))
                if rc != 0:
                    failed.add((t, n))
                wall[(t, n)].append(w)
                cpu[(t, n)].append(c)
    print("| test | " + " | ".join(f"{n} wall / CPU (ms)" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for t in tests:
        cells = []
        for n in names:
            if (t, n) in failed:  # an error or a failed check is no timing of a check
                cells.append("failed (exit ≠ 0)")
                continue
            cells.append(f"{statistics.median(wall[(t, n)]) * 1000:.1f} / {statistics.median(cpu[(t, n)]) * 1000:.1f}")
        shown = os.path.relpath(t, ROOT) if t.startswith(ROOT + os.sep) else t
        print(f"| {shown} | " + " | ".join(cells) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
