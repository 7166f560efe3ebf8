#!/usr/bin/env python3
"""Plots of a campaign report (called by `ptxmm campaign report`): reads the JSON that
campaign::plotData writes and draws, with matplotlib (Agg, no display), into OUTDIR:
  weak-rate.png           weak outcomes (instances satisfying the condition) per second per test
  coverage-vs-params.png  per tunable parameter: mutation score and allowed-state coverage of each
                          configuration tried, against the parameter's value
  kills.png               mutant kills over time during tuning (all kills and distinct mutants)
Usage: scripts/campaign-plots.py DATA.json OUTDIR
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def weak_rate(d, out):
    tests = [t for t in d["tests"] if t["weakPerSecond"] > 0 or t["instancesPerSecond"] > 0]
    tests.sort(key=lambda t: t["weakPerSecond"], reverse=True)
    tests = tests[:60]
    fig, ax = plt.subplots(figsize=(11, max(3, 0.22 * len(tests) + 1)))
    if tests:
        names = [t["name"] for t in tests][::-1]
        vals = [max(t["weakPerSecond"], 1e-3) for t in tests][::-1]
        ax.barh(names, vals, color="#4a7ab5")
        ax.set_xscale("log")
        ax.tick_params(axis="y", labelsize=7)
    else:
        ax.text(0.5, 0.5, "no finished runs", ha="center")
    ax.set_xlabel("weak outcomes per second (log)")
    ax.set_title("Weak outcomes per second per test (the 60 highest)")
    fig.tight_layout()
    fig.savefig(out + "/weak-rate.png", dpi=80)
    plt.close(fig)


def coverage_vs_params(d, out):
    dims = d["tuneSpace"]
    configs = [c for c in d["configs"] if "score" in c or "coverage" in c]
    cols = 4
    rows = max(1, math.ceil(len(dims) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(12, 2.6 * rows), squeeze=False)
    for i, name in enumerate(dims):
        ax = axes[i // cols][i % cols]
        for key, colour, label in (("score", "#c0392b", "mutation score"), ("coverage", "#27ae60", "coverage")):
            xs = [c["params"].get(name, 0) for c in configs if key in c]
            ys = [c[key] for c in configs if key in c]
            if xs:
                ax.scatter(xs, ys, s=12, alpha=0.6, color=colour, label=label)
        ax.set_title(name, fontsize=9)
        ax.set_ylim(-0.05, 1.05)
        ax.tick_params(labelsize=7)
        top = max([c["params"].get(name, 0) for c in configs] or [0])
        if top > 64:
            # Parameters are >= 0 and may be 0: symlog, linear up to 1, and no negative side.
            ax.set_xscale("symlog", linthresh=1)
            ax.set_xlim(-0.3, top * 1.6)
    for j in range(len(dims), rows * cols):
        axes[j // cols][j % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle("Mutation score and allowed-state coverage of each configuration against each parameter", y=0.995)
    if handles:  # under the title, not over its end
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.97), ncol=2, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(out + "/coverage-vs-params.png", dpi=80)
    plt.close(fig)


def kills(d, out):
    fig, ax = plt.subplots(figsize=(11, 3.5))
    k = d["kills"]
    if k:
        ax.step([e["t"] for e in k], [e["kills"] for e in k], where="post", label="kills (all runs)")
        ax.step([e["t"] for e in k], [e["distinct"] for e in k], where="post", label="distinct mutants killed")
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no tuning runs", ha="center")
    ax.set_xlabel("seconds since the first tuning run")
    ax.set_ylabel("kills")
    ax.set_title("Mutant kills over time")
    fig.tight_layout()
    fig.savefig(out + "/kills.png", dpi=80)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        d = json.load(f)
    weak_rate(d, sys.argv[2])
    coverage_vs_params(d, sys.argv[2])
    kills(d, sys.argv[2])


if __name__ == "__main__":
    main()
