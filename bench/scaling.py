#!/usr/bin/python3
"""The scaling benchmark of issue 14: runs every member of bench/gen-pipelines.py with both engines (one
process per member and engine, `-j1`), records wall time and peak RSS (GNU time), plots both against size
(docs/scaling.png) and fits the growth of each family in N: a power law t = a * N^b and an exponential
t = a * c^N, least squares on log t; the better fit (higher R^2) is named. Prints a Markdown section for
docs/performance.md on stdout.

Usage: /usr/bin/python3 bench/scaling.py [PTXMM] [MODEL] [--timeout S] [--png PATH] [--csv PATH] [SIZES...]
SIZES as in bench/gen-pipelines.py (FAMILY:K:N); default: its whole benchmark set.
Needs Debian's python3-matplotlib (scripts/install-deps.sh).
"""
import argparse
import csv
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_member(ptxmm, model, path, engine, timeout):
    """Returns (wall seconds, peak RSS MiB or None, result text)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        # No --timeout: a deadline changes how the smt engine hands its encoding to Z3 (docs/design.md
        # "Resource budgets"), and the members are measured as a user runs them. The benchmark's own
        # deadline kills the process group instead.
        cmd = ["/usr/bin/time", "-f", "%M", "-o", rss.name, ptxmm, "check", "--engine", engine, "--model", model,
               "-j1", "--json", path]
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return time.monotonic() - t0, None, f"killed after {timeout:g} s"
        wall = time.monotonic() - t0
        lines = [l for l in rss.read().split("\n") if l.strip().isdigit()]
        mem = int(lines[-1]) / 1024 if lines else None
    rec = next((json.loads(l) for l in out.splitlines() if l.startswith("{") and "summary" not in l), {})
    if rec.get("status") == "ok":
        res = rec.get("observation", "") + "".join(" +" + f for f in rec.get("flags", []))
        states = len(rec.get("states", [])) if isinstance(rec.get("states"), list) else rec.get("states", "")
        res += f" ({states} states)" if states != "" else ""
    else:
        res = rec.get("status", f"exit {p.returncode}")
    return wall, mem, res


def fit(points):
    """points: [(N, t)] -> (power exponent b, R^2, exponential base c, R^2)."""
    pts = [(n, t) for n, t in points if t > 0 and n > 0]
    if len(pts) < 3:
        return None

    def lsq(xs, ys):
        k = len(xs)
        mx, my = sum(xs) / k, sum(ys) / k
        sxx = sum((x - mx) ** 2 for x in xs)
        if sxx == 0:
            return 0.0, 0.0
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
        a = my - b * mx
        ss = sum((y - my) ** 2 for y in ys)
        res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
        return b, (1 - res / ss) if ss > 0 else 1.0

    ly = [math.log(t) for _, t in pts]
    b, r2p = lsq([math.log(n) for n, _ in pts], ly)
    c, r2e = lsq([float(n) for n, _ in pts], ly)
    return b, r2p, math.exp(c), r2e


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ptxmm", nargs="?", default="./build/ptxmm")
    ap.add_argument("model", nargs="?", default="models/ptx.cat")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--png", default="docs/scaling.png")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--engines", default="smt,enum")
    ap.add_argument("sizes", nargs="*")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ptxmm-scaling-")
    gen = subprocess.run([sys.executable, os.path.join(HERE, "gen-pipelines.py"), tmp] + a.sizes, capture_output=True,
                         text=True, check=True)
    rows = []
    for line in gen.stdout.splitlines():
        path, fam, k, n = line.split("\t")
        events = None
        for engine in a.engines.split(","):
            wall, mem, res = run_member(a.ptxmm, a.model, path, engine, a.timeout)
            if wall >= a.timeout:
                res = f"timeout after {a.timeout:g} s"
            rows.append(dict(member=os.path.basename(path)[:-7], family=fam, K=int(k), N=int(n), engine=engine,
                             wall=wall, rss=mem, result=res, instrs=sum(1 for l in open(path) if l.rstrip().endswith(";"))))
            print(f"{rows[-1]['member']} {engine} {wall:.2f} s {mem} MiB {res}", file=sys.stderr)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    plot(rows, a.png, a.timeout)
    report(rows, a)


def size_of(r):
    return r["N"] if r["family"] != "cow" else r["K"] + r["N"]  # cow: writers + readers


def plot(rows, png, timeout):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fams = sorted({r["family"] for r in rows})
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2))
    colors = dict(zip(fams, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    # Size panels: one point per member and engine (members of one family differ in K and N).
    for fam in fams:
        for engine, marker in (("smt", "o"), ("enum", "x")):
            pts = [r for r in rows if r["family"] == fam and r["engine"] == engine]
            if not pts:
                continue
            axes[0].scatter([r["instrs"] for r in pts], [r["wall"] for r in pts], marker=marker, color=colors[fam],
                            label=f"{fam} {engine}", s=22)
            measured = [r for r in pts if r["rss"] is not None]  # a killed process has no peak RSS
            axes[1].scatter([r["instrs"] for r in measured], [r["rss"] for r in measured], marker=marker,
                            color=colors[fam], label=f"{fam} {engine}", s=22)
    # Growth panel: time against N at fixed K, smt, for every (family, K) with three sizes or more.
    groups = {}
    for r in rows:
        if r["engine"] == "smt" and r["family"] != "cow":
            groups.setdefault((r["family"], r["K"]), []).append((r["N"], r["wall"]))
    for (fam, k), pts in sorted(groups.items()):
        if len(pts) < 3:
            continue
        pts.sort()
        axes[2].plot([p[0] for p in pts], [p[1] for p in pts], "-o", color=colors[fam], label=f"{fam} K={k}",
                     markersize=4, alpha=0.5 + 0.5 * (k == 1))
    for ax in (axes[0], axes[2]):
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        ax.axhline(timeout, color="red", linewidth=0.8, linestyle=":")
        ax.set_yscale("log")
        ax.set_ylabel("wall time per test [s] (dotted: 1 s target; red: timeout)")
    axes[0].set_xscale("log")
    axes[1].set_xscale("log")
    axes[0].set_xlabel("instructions in the test")
    axes[1].set_xlabel("instructions in the test")
    axes[2].set_xlabel("iterations N")
    axes[1].set_ylabel("peak RSS [MiB]")
    axes[0].set_title("time against size (o smt, x enum)")
    axes[1].set_title("peak memory against size")
    axes[2].set_title("smt: growth in N at fixed K")
    axes[1].legend(fontsize=7, ncol=2)
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def report(rows, a):
    print("| member | instructions | engine | wall | peak RSS | result |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        rss = f"{r['rss']:.0f} MiB" if r["rss"] else "?"
        print(f"| {r['member']} | {r['instrs']} | {r['engine']} | {r['wall']:.2f} s | {rss} | {r['result']} |")
    print()
    print("Growth in N per family and fixed K (members that finished; power law t ∝ N^b against exponential "
          "t ∝ c^N, least squares on log t):")
    print()
    print("| family | K | engine | N values | b (power) | R² | c (exp.) | R² | better fit |")
    print("|---|---|---|---|---|---|---|---|---|")
    groups = {}
    for r in rows:
        if r["family"] == "cow" or r["result"].startswith("timeout"):
            continue
        groups.setdefault((r["family"], r["K"], r["engine"]), []).append((r["N"], r["wall"]))
    for (fam, k, engine), pts in sorted(groups.items()):
        f = fit(sorted(pts))
        if not f:
            continue
        b, r2p, c, r2e = f
        print(f"| {fam} | {k} | {engine} | {', '.join(str(n) for n, _ in sorted(pts))} | {b:.2f} | {r2p:.2f} | "
              f"{c:.2f} | {r2e:.2f} | {'power' if r2p >= r2e else 'exponential'} |")
    print()
    print(f"Plot: ![time and memory against size]({os.path.relpath(a.png, 'docs')})")


if __name__ == "__main__":
    main()
