#!/usr/bin/python3
"""The scaling benchmark of issue 14: runs every member of bench/gen-pipelines.py with both engines (one
process per member and engine, `-j1`), records wall time and peak RSS (GNU time), plots both against size
(docs/scaling.png) and fits the growth of each family in N: a power law t - t0 = a * N^b and an exponential
t - t0 = a * c^N, least squares on log(t - t0), where t0 is the engine's floor (the whole process on a two-thread
test: start-up, model compilation, solver set-up), which does not grow with N; the better fit (higher R^2) is
named, and the growth between the two largest members is given as both a local exponent and a local base, the
one a power law keeps constant and the other an exponential keeps constant. Members whose time is under
twice the floor say little about growth and are left out of the fit. Once a member of a family and K runs
past the timeout with an engine, the larger members of that family and K are not run with it. The cow
members are run with `--max-states 1000000` (the default limit of 4096 states is a safety net that several of
them pass). Every member is run with the smt engine once per seed of Z3 (`--smt-seed 1..--seeds`, no more once most
have run past the timeout), and its time is the median, the range given with the result: Z3's search varies
with the seed (ring-K8-N17's first check took 0.32-0.63 s over seeds 0-3). The engine `enum-all` is the enum
engine with the path choices of a test searched on every hardware thread (`-j0` instead of `-j1`: docs/design.md
"Path choices in batches"), run on the members the targets name (every member but the growth members: ring,
K <= 2, N > 2K+1). Prints a Markdown section for docs/performance.md on stdout.

Usage: /usr/bin/python3 bench/scaling.py [PTXMM] [MODEL] [--timeout S] [--png PATH] [--csv PATH] [SIZES...]
       /usr/bin/python3 bench/scaling.py --from-csv PATH [--png PATH]   (plot and report measurements kept by --csv)
       /usr/bin/python3 bench/scaling.py --self-test
SIZES as in bench/gen-pipelines.py (FAMILY:K:N); default: its whole benchmark set.
Needs Debian's python3-matplotlib (scripts/install-deps.sh).
"""
import argparse
import csv
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_member(ptxmm, model, path, engine, timeout, extra=()):
    """Returns (wall seconds, peak RSS MiB or None, result text). engine: smt, enum, or enum-all (enum, -j0)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        # No --timeout: a deadline changes how the smt engine hands its encoding to Z3 (docs/design.md
        # "Resource budgets"), and the members are measured as a user runs them. The benchmark's own
        # deadline kills the process group instead.
        cmd = ["/usr/bin/time", "-f", "%M", "-o", rss.name, ptxmm, "check", "--engine", engine.split("-")[0],
               "--model", model, "-j0" if engine.endswith("-all") else "-j1", "--json", *extra, path]
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
        msg = rec.get("message", "")
        res += f": {msg[:90]}" if msg else ""
    return wall, mem, res


def run_seeds(a, path, extra):
    """The smt engine on one member with --smt-seed 1..a.seeds: (median wall, largest peak RSS, the result,
    which must be the same for every seed that finished). Once most seeds have run past the timeout, so has
    the median, and the other seeds are not run."""
    runs, past = [], 0
    for seed in range(1, a.seeds + 1):
        runs.append(run_member(a.ptxmm, a.model, path, "smt", a.timeout, [*extra, "--smt-seed", str(seed)]))
        past += runs[-1][0] >= a.timeout
        if 2 * past > a.seeds:
            return runs[-1]
    wall = statistics.median(r[0] for r in runs)
    done = [r for r in runs if r[0] < a.timeout]
    results = {r[2] for r in done}
    if len(results) != 1:
        return wall, None, "results differ between seeds: " + " / ".join(sorted(results))
    mems = [r[1] for r in done if r[1] is not None]
    lo, hi = min(r[0] for r in runs), max(r[0] for r in runs)
    late = f", {past} past the timeout" if past else ""
    return wall, max(mems) if mems else None, f"{done[0][2]}; median of {a.seeds} seeds ({lo:.2f}-{hi:.2f} s{late})"


def floor_of(ptxmm, model, engine):
    """The engine's floor: the fastest of three whole processes on a two-thread test of the suite."""
    test = os.path.join(HERE, "..", "litmus", "hw", "MP+rlx.litmus")
    return min(run_member(ptxmm, model, test, engine, 30)[0] for _ in range(3))


def fit(pts):
    """pts: [(N, t - t0)] -> (power exponent b, R^2, exponential base c, R^2), least squares on the log."""

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


def growth(points, floor):
    """The row of the growth table for points [(N, t)] and the engine's floor t0: the N values fitted (the
    members with t >= 2 t0), the two fits of t - t0 over them and over the three largest only (the small
    members, where fixed costs other than the process floor still weigh, bend a fit over the whole range),
    and the local exponent and base between the two largest; None with fewer than three such members."""
    used = sorted((n, t - floor) for n, t in points if t >= 2 * floor and n > 0)
    if len(used) < 3:
        return None
    b, r2p, c, r2e = fit(used)
    tb, tr2p, tc, tr2e = fit(used[-3:])
    (n1, t1), (n2, t2) = used[-2], used[-1]
    return dict(ns=[n for n, _ in used], b=b, r2p=r2p, c=c, r2e=r2e, better="power" if r2p >= r2e else "exponential",
                tail_b=tb, tail_r2p=tr2p, tail_c=tc, tail_r2e=tr2e,
                tail_better="power" if tr2p >= tr2e else "exponential",
                local_b=math.log(t2 / t1) / math.log(n2 / n1), local_c=(t2 / t1) ** (1 / (n2 - n1)))


def self_test():
    """Checks growth() on synthetic times with a floor (ctest "bench:scaling.py ..."): a power law and an
    exponential over the same floor must be told apart, with their parameters, and members under twice the
    floor left out. Returns the process exit code."""
    floor, ns = 0.03, [2, 3, 4, 6, 8, 10, 12, 14]
    cases = [("power", [(n, floor + 2e-5 * n ** 4.5) for n in ns], "b", 4.5, "local_b"),
             ("exponential", [(n, floor + 1e-3 * 1.6 ** n) for n in ns], "c", 1.6, "local_c")]
    bad = []
    for want, pts, key, val, local in cases:
        g = growth(pts, floor)
        if g is None or g["better"] != want or abs(g[key] - val) > 0.01 or abs(g[local] - val) > 0.01:
            bad.append(f"{want}: got {g}")
        elif min(g["ns"]) <= 2 and want == "power":  # 2e-5 * 2^4.5 < floor: under twice the floor
            bad.append(f"{want}: N = 2 (t < 2 t0) was fitted: {g['ns']}")
    for b in bad:
        print("scaling.py self-test: " + b, file=sys.stderr)
    print("scaling.py self-test: " + ("FAILED" if bad else "ok"))
    return 1 if bad else 0


FIELDS = ["member", "family", "K", "N", "engine", "wall", "rss", "result", "instrs"]


def write_csv(path, rows, floors, timeout):
    """The measurements, with each engine's floor as a row of family "floor" and the limit as one of family
    "timeout" (read back by --from-csv)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
        for engine, t in floors.items():
            w.writerow(dict(member="MP+rlx", family="floor", K=0, N=0, engine=engine, wall=t, rss="", result="",
                            instrs=0))
        w.writerow(dict(member="", family="timeout", K=0, N=0, engine="", wall=timeout, rss="", result="", instrs=0))


def read_csv(path):
    """-> (rows, floors, timeout) as write_csv wrote them."""
    rows, floors, timeout = [], {}, 0.0
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            wall = float(r["wall"]) if r["wall"] else None
            if r["family"] == "floor":
                floors[r["engine"]] = wall
            elif r["family"] == "timeout":
                timeout = wall
            else:
                rows.append(dict(r, K=int(r["K"]), N=int(r["N"]), instrs=int(r["instrs"]), wall=wall,
                                 rss=float(r["rss"]) if r["rss"] else None))
    return rows, floors, timeout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("args", nargs="*", metavar="[PTXMM] [MODEL] [SIZES...]",
                    help="the binary (default ./build/ptxmm), the model (default models/ptx.cat), then FAMILY:K:N sizes")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--png", default="docs/scaling.png")
    ap.add_argument("--csv", default=None, help="also write the measurements to this CSV file")
    ap.add_argument("--from-csv", default=None, help="plot and report the measurements of a CSV file of --csv "
                    "instead of running anything")
    ap.add_argument("--engines", default="smt,enum,enum-all", help="of smt, enum, enum-all (default: all three)")
    ap.add_argument("--seeds", type=int, default=3, help="smt on every member: the median of this many runs with "
                    "--smt-seed 1..SEEDS (default 3; 1: one run with the default seed)")
    ap.add_argument("--self-test", action="store_true", help="check the growth fit on synthetic times and exit")
    a = ap.parse_intermixed_args()
    if a.self_test:
        sys.exit(self_test())
    try:
        import matplotlib  # noqa: F401  (the plot, at the end)
    except ImportError:
        ap.error(f"the plot needs matplotlib, which {sys.executable} lacks: run /usr/bin/python3 with Debian's "
                 "python3-matplotlib (scripts/install-deps.sh installs it)")
    if a.from_csv:
        if a.args:
            ap.error("--from-csv runs nothing: no binary, model or sizes")
        try:
            rows, floors, a.timeout = read_csv(a.from_csv)
        except (OSError, KeyError, ValueError) as e:
            ap.error(f"'{a.from_csv}': not a CSV file of --csv ({e})")
    else:
        rows, floors = measure(a, ap)
        if a.csv:
            write_csv(a.csv, rows, floors, a.timeout)
    plot(rows, a.png, a.timeout, floors)
    report(rows, a, floors)


def measure(a, ap):
    """Runs the members: -> (rows, floors)."""
    # The leading arguments that are not sizes name the binary and the model.
    lead = [x for x in a.args if not re.fullmatch(r"[a-z0-9]+:[0-9]+:[0-9]+", x)]
    a.sizes = a.args[len(lead):]
    if len(lead) > 2 or a.args[:len(lead)] != lead:
        ap.error(f"expected [PTXMM] [MODEL] then FAMILY:K:N sizes, got: {' '.join(a.args)}")
    a.ptxmm = lead[0] if lead else "./build/ptxmm"
    a.model = lead[1] if len(lead) > 1 else "models/ptx.cat"
    if not (os.path.isfile(a.ptxmm) and os.access(a.ptxmm, os.X_OK)):
        ap.error(f"'{a.ptxmm}' is not an executable ptxmm binary (build it, or pass its path)")
    if not os.path.isfile(a.model):
        ap.error(f"'{a.model}': no such model file")
    tmp = tempfile.mkdtemp(prefix="ptxmm-scaling-")
    gen = subprocess.run([sys.executable, os.path.join(HERE, "gen-pipelines.py"), tmp] + a.sizes, capture_output=True,
                         text=True)
    if gen.returncode != 0:
        ap.error(gen.stderr.strip().splitlines()[-1] if gen.stderr.strip() else "gen-pipelines.py failed")
    rows = []
    engines = a.engines.split(",")
    for engine in engines:
        if engine not in ("smt", "enum", "enum-all"):
            ap.error(f"--engines: '{engine}' is not one of smt, enum, enum-all")
    floors = {engine: floor_of(a.ptxmm, a.model, engine) for engine in engines}
    timedOut = {}  # (family, K, engine) -> the smallest N that ran past the timeout
    for line in gen.stdout.splitlines():
        path, fam, k, n = line.split("\t")
        for engine in engines:
            past = timedOut.get((fam, k, engine))
            if past is not None and int(n) > past:
                wall, mem, res = None, None, f"not run (timeout at N = {past})"
            else:
                extra = ["--max-states", "1000000"] if fam == "cow" else []
                growthMember = fam == "ring" and int(k) <= 2 and int(n) > 2 * int(k) + 1
                if engine == "enum-all" and growthMember:
                    continue
                if engine == "smt" and a.seeds > 1:
                    wall, mem, res = run_seeds(a, path, extra)
                else:
                    wall, mem, res = run_member(a.ptxmm, a.model, path, engine, a.timeout, extra)
                if wall >= a.timeout:
                    res = f"timeout after {a.timeout:g} s"
                    timedOut[(fam, k, engine)] = int(n)
            rows.append(dict(member=os.path.basename(path)[:-7], family=fam, K=int(k), N=int(n), engine=engine,
                             wall=wall, rss=mem, result=res, instrs=sum(1 for l in open(path) if l.rstrip().endswith(";"))))
            print(f"{rows[-1]['member']} {engine} {wall} s {mem} MiB {res}", file=sys.stderr)
    return rows, floors


def size_of(r):
    return r["N"] if r["family"] != "cow" else r["K"] + r["N"]  # cow: writers + readers


def plot(rows, png, timeout, floors):
    import matplotlib
    import matplotlib.ticker
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fams = sorted({r["family"] for r in rows})
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2))
    colors = dict(zip(fams, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    # Size panels: one point per member and engine (members of one family differ in K and N).
    for fam in fams:
        for engine, marker in (("smt", "o"), ("enum", "x"), ("enum-all", "+")):
            pts = [r for r in rows if r["family"] == fam and r["engine"] == engine and r["wall"] is not None]
            if not pts:
                continue
            axes[0].scatter([r["instrs"] for r in pts], [r["wall"] for r in pts], marker=marker, color=colors[fam],
                            label=f"{fam} {engine}", s=22)
            measured = [r for r in pts if r["rss"] is not None]  # a killed process has no peak RSS
            axes[1].scatter([r["instrs"] for r in measured], [r["rss"] for r in measured], marker=marker,
                            color=colors[fam], label=f"{fam} {engine}", s=22)
    # Growth panel: t - t0 against N at fixed K on log-log axes (a power law is a straight line, an
    # exponential bends upwards), for every (family, K) with three sizes or more, both engines.
    for engine, style in (("smt", "-o"), ("enum", "--x")):
        groups = {}
        for r in rows:
            if (r["engine"] == engine and r["family"] != "cow" and r["wall"] is not None and
                    not r["result"].startswith("timeout") and r["wall"] >= 2 * floors[engine]):
                groups.setdefault((r["family"], r["K"]), []).append((r["N"], r["wall"] - floors[engine]))
        for (fam, k), pts in sorted(groups.items()):
            if len(pts) < 3:
                continue
            pts.sort()
            axes[2].plot([p[0] for p in pts], [p[1] for p in pts], style, color=colors[fam],
                         label=f"{fam} K={k} {engine}", markersize=4, alpha=1.0 if k == 1 else 0.55)
    for ax in (axes[0], axes[2]):
        ax.set_yscale("log")
    for ax in (axes[0],):
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        ax.axhline(timeout, color="red", linewidth=0.8, linestyle=":")
        ax.set_ylabel("wall time per test [s] (dotted: 1 s target; red: timeout)")
    axes[2].set_xscale("log")
    axes[2].xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    axes[2].xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[2].set_xticks(sorted({n for line in axes[2].get_lines() for n in line.get_xdata()}))
    axes[2].set_ylabel("t - t0 [s] (t0: the engine's floor)")
    axes[0].set_xscale("log")
    axes[1].set_xscale("log")
    axes[0].set_xlabel("instructions in the test")
    axes[1].set_xlabel("instructions in the test")
    axes[2].set_xlabel("iterations N")
    axes[1].set_ylabel("peak RSS [MiB]")
    axes[0].set_title("time against size (o smt, x enum, + enum on every thread)")
    axes[1].set_title("peak memory against size")
    axes[2].set_title("growth in N at fixed K, log-log (- smt, -- enum)")
    axes[1].legend(fontsize=7, ncol=2)
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def report(rows, a, floors):
    print("| member | instructions | engine | wall | peak RSS | result |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        rss = f"{r['rss']:.0f} MiB" if r["rss"] else "?"
        wall = f"{r['wall']:.2f} s" if r["wall"] is not None else "–"
        print(f"| {r['member']} | {r['instrs']} | {r['engine']} | {wall} | {rss} | {r['result']} |")
    print()
    print("Growth in N per family and fixed K, members that finished: t0 is the engine's floor (the whole process "
          "on litmus/hw/MP+rlx.litmus, fastest of three: " +
          ", ".join(f"{e} {t * 1000:.0f} ms" for e, t in floors.items()) + "); the fits are least squares on "
          "log(t - t0) over the members with t ≥ 2 t0 (power law t - t0 ∝ N^b against exponential t - t0 ∝ c^N); "
          "the same two fits over the three largest of them only; and the growth between the two largest, as a local "
          "exponent b' (constant for a power law) and a local base c' (constant for an exponential).")
    print()
    print("| family | K | engine | N values fitted | b (power) | R² | c (exp.) | R² | better fit | three largest: b, R² | "
          "c, R² | better fit | b' (last two) | c' (last two) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    groups = {}
    for r in rows:
        # enum-all is not run on the growth members (few stages, many iterations): no fit.
        if r["family"] == "cow" or r["engine"] == "enum-all" or r["wall"] is None or r["result"].startswith("timeout"):
            continue
        groups.setdefault((r["family"], r["K"], r["engine"]), []).append((r["N"], r["wall"]))
    for (fam, k, engine), pts in sorted(groups.items()):
        g = growth(pts, floors[engine])
        if not g:
            continue
        print(f"| {fam} | {k} | {engine} | {', '.join(str(n) for n in g['ns'])} | {g['b']:.2f} | {g['r2p']:.3f} | "
              f"{g['c']:.2f} | {g['r2e']:.3f} | {g['better']} | {g['tail_b']:.2f}, {g['tail_r2p']:.3f} | "
              f"{g['tail_c']:.2f}, {g['tail_r2e']:.3f} | {g['tail_better']} | {g['local_b']:.2f} | {g['local_c']:.2f} |")
    print()
    ratios(rows)
    print()
    print(f"Plot: ![time and memory against size]({os.path.relpath(a.png, 'docs')})")


def ratios(rows):
    """The target "enum within 10x of smt": per member that smt finished, enum's wall time over smt's, on one
    thread and on every hardware thread (enum-all)."""
    by = {(r["member"], r["engine"]): r for r in rows}
    members = [r for r in rows if r["engine"] == "smt" and r["wall"] is not None and
               not r["result"].startswith(("timeout", "killed"))]
    if not members or not any((m["member"], "enum") in by for m in members):
        return
    print(f"enum against smt (wall time ratios; enum-all: the path choices on every hardware thread, "
          f"{os.cpu_count()} here):")
    print()
    print("| member | smt | enum | enum / smt | enum-all | enum-all / smt |")
    print("|---|---|---|---|---|---|")
    for m in members:
        cells = []
        for engine in ("enum", "enum-all"):
            r = by.get((m["member"], engine))
            if r is None or r["wall"] is None:
                cells += ["–", "–"]
            elif r["result"].startswith(("timeout", "killed")):
                cells += [r["result"], "–"]
            else:
                cells += [f"{r['wall']:.2f} s", f"{r['wall'] / m['wall']:.1f}x"]
        print(f"| {m['member']} | {m['wall']:.2f} s | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
